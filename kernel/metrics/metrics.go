// Package metrics publishes a kernel's [kernel.Stats] through expvar, so
// that /debug/vars (and anything that scrapes it) shows the scheduler next
// to the Go runtime's memstats.
//
// It is a package of its own because expvar registers an HTTP handler on
// http.DefaultServeMux when it is imported: a program that schedules with
// the kernel but serves no debug page should not get net/http for it.
//
// The published value is computed when it is read: each read of
// /debug/vars calls [kernel.Kernel.Stats] once, which takes the scheduler
// lock once; nothing runs while nobody reads.
package metrics

import (
	"errors"
	"expvar"
	"fmt"
	"sync"

	"github.com/vsched/vsched/kernel"
)

// ErrNameTaken is returned by [Publish] for a name expvar already has:
// expvar cannot unpublish, and publishing twice would panic.
var ErrNameTaken = errors.New("metrics: expvar name already published")

// Publish publishes k's [kernel.Stats] in expvar under name, as a JSON
// object whose keys are the field names of kernel.Stats. Publish a kernel
// once for the life of the program; a name already taken gives an error
// wrapping [ErrNameTaken].
func Publish(name string, k *kernel.Kernel) error {
	if k == nil {
		return fmt.Errorf("metrics: Publish(%q, nil): no kernel", name)
	}
	publishMu.Lock()
	defer publishMu.Unlock()
	if expvar.Get(name) != nil {
		return fmt.Errorf("%w: %q", ErrNameTaken, name)
	}
	expvar.Publish(name, expvar.Func(func() any { return k.Stats() }))
	return nil
}

// publishMu makes Publish's check and publish one step, so that two calls
// with one name cannot both pass the check.
var publishMu sync.Mutex
