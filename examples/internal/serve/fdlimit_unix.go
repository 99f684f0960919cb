//go:build unix

package serve

import "syscall"

// fdLimit returns the process's soft limit on open descriptors.
func fdLimit() (int, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur > 1<<30 {
		return 0, false
	}
	return int(l.Cur), true
}
