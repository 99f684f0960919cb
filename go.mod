module github.com/vsched/vsched

go 1.25.0

require (
	golang.org/x/sys v0.47.0
	pgregory.net/rapid v1.3.0
)

require github.com/anishathalye/porcupine v1.3.1
