// Package newpkg has no row in the layer table.
package newpkg

import "fmt"

var _ = fmt.Sprint
