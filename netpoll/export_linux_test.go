//go:build linux

package netpoll

// BreakFd returns p's break eventfd, for tests that read its counter.
func BreakFd(p *Poller) int { return p.evfd }
