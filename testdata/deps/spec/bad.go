// Package spec breaks its rule: the oracle imports the implementation.
package spec

import "github.com/vsched/vsched/kernel"

var _ *kernel.Kernel
