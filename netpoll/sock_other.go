//go:build !linux

package netpoll

import "net"

// Listen returns an error wrapping [ErrUnsupported] on this system.
func Listen(p *Poller, network, address string) (*Listener, error) { return nil, errNoBackend }

// Accept returns an error wrapping [ErrUnsupported] on this system.
func (l *Listener) Accept() (*Conn, error) { return nil, errNoBackend }

// Close returns an error wrapping [ErrUnsupported] on this system.
func (l *Listener) Close() error { return errNoBackend }

// Dial returns an error wrapping [ErrUnsupported] on this system.
func Dial(p *Poller, network, address string) (*Conn, error) { return nil, errNoBackend }

// Connected returns an error wrapping [ErrUnsupported] on this system.
func (c *Conn) Connected() error { return errNoBackend }

// Read returns an error wrapping [ErrUnsupported] on this system.
func (c *Conn) Read(b []byte) (int, error) { return 0, errNoBackend }

// Write returns an error wrapping [ErrUnsupported] on this system.
func (c *Conn) Write(b []byte) (int, error) { return 0, errNoBackend }

// CloseWrite returns an error wrapping [ErrUnsupported] on this system.
func (c *Conn) CloseWrite() error { return errNoBackend }

// SetLinger returns an error wrapping [ErrUnsupported] on this system.
func (c *Conn) SetLinger(sec int) error { return errNoBackend }

// LocalAddr returns nil on this system.
func (c *Conn) LocalAddr() net.Addr { return nil }

// Close returns an error wrapping [ErrUnsupported] on this system.
func (c *Conn) Close() error { return errNoBackend }
