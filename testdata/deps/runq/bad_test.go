package runq

// A test file is free to import anything: this one is not reported.
import (
	"sync"

	"pgregory.net/rapid"
)

var _ sync.Mutex
var _ = rapid.Int
