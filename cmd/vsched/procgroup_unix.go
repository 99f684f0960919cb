//go:build unix

package main

import (
	"os/exec"
	"syscall"
	"time"
)

// stopGrace is how long go test gets to wind down after an interrupt (a
// fuzzing coordinator stops its workers and reports) before it is killed.
const stopGrace = 10 * time.Second

// stopOnCancel makes cancelling cmd's context interrupt go test and the test
// binary it runs, not only the go command.
//
// The go command ignores SIGINT and waits for its child, relying on the
// terminal to deliver Ctrl-C to the whole foreground process group. That
// does not happen when vsched itself is signalled (kill -INT, a CI runner
// cancelling a job), so each go test gets a process group of its own and
// the interrupt is sent to that group.
func stopOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	}
	cmd.WaitDelay = stopGrace
}

// killLeftovers kills what is left of cmd's process group after a cancelled
// run: after stopGrace os/exec kills the go command alone, and a test binary
// that ignored the interrupt would otherwise run on. A group id is not
// reused while any member lives, and an emptied one only after a new process
// takes the same pid and makes itself a group leader, so killing right after
// Wait returns reaches nobody else in practice.
func killLeftovers(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH: nothing left
	}
}
