package xsync

import "time"

// epoch is the origin of Nanotime outside an explorer model.
var epoch = time.Now()

// monotonic is the time in nanoseconds since the package was initialized.
func monotonic() int64 { return int64(time.Since(epoch)) }
