// Package fuzz runs the properties of package proptest under Go's native
// fuzzer: the fuzzer's input bytes become the choices rapid makes (which
// operations, which arguments, where the counters start), so coverage
// guidance steers the state machines towards new paths in runq.
//
// The committed seed corpora under testdata/fuzz run in every plain go test;
// fuzzing proper runs with
//
//	go test -run '^$' -fuzz '^FuzzQueue$' -fuzztime 1m -fuzzminimizetime 100x ./fuzz
//
// Keep -fuzzminimizetime small: an input is a rapid bitstream of a few
// kilobytes, and with go test's default minimization budget of 60s per new
// interesting input the workers spend the whole run minimizing.
//
// A failing input is written to testdata/fuzz/<Target>/ and replays with
// go test -run '<Target>/<file>' ./fuzz.
package fuzz
