//go:build race || vsched_explore

package kernel_test

// allocSkip skips the allocation tests outside the default build.
const allocSkip = "allocation counts are a property of the default build, the one users run: " +
	"-race instruments the code (which can move buffers to the heap), and the vsched_explore build " +
	"shrinks runq.Size to 4 and routes every xsync operation through the explorer"
