//go:build !unix

package main

import (
	"os/exec"
	"time"
)

const stopGrace = 10 * time.Second

// stopOnCancel keeps os/exec's default of killing the go command on
// cancellation; without process groups a test binary it started may outlive
// it.
func stopOnCancel(cmd *exec.Cmd) {
	cmd.WaitDelay = stopGrace
}

func killLeftovers(*exec.Cmd) {}
