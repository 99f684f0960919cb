// Command plot draws a scaling curve from the output of go test -bench as
// an SVG: one metric of one benchmark against the integer value of a key
// in the benchmark's name, with a line per implementation.
//
//	cd bench
//	go test -run '^$' -bench 'Echo$' -count 6 ./netbench > net.txt
//	go run ./cmd/plot -bench Echo -x conns -unit rps -logx -o echo-rps.svg net.txt
//
// The benchmarks it reads are named Benchmark<Name>/<key>=<value>/...,
// as in this module, for example BenchmarkEcho/conns=50/impl=kernel-2.
// The trailing -2 is GOMAXPROCS and is dropped (a name printed with
// GOMAXPROCS=1 has none, and one whose last value ends in a dash and
// digits then loses them). The flags are
//
//	-bench Name    the benchmark, without the Benchmark prefix; it must
//	               be the whole first element of the name
//	-x key         the key whose integer value is the x axis
//	-unit unit     the metric on the y axis, as printed: ns/op, B/conn,
//	               rps, p99-ns, ns/task, ...
//	-where k=v     keep only the lines whose name has k=v; repeat it for
//	               several keys
//	-logx, -logy   logarithmic axes
//	-title text    the title (default: the benchmark's name)
//	-ylabel text   the y axis label (default: the unit)
//	-o file.svg    where to write the plot; the file is written only
//	               once everything has been read and drawn
//
// and then the files to read, or none for standard input ("-" also names
// standard input). Lines that are not benchmark results, and results of
// other benchmarks, are skipped.
//
// Besides the x key a name must have impl, and the plot has a line per
// value of impl, in the order the implementations first appear in the
// input, with a point at each x; y is the median of every sample of that
// implementation at that x (a run with -count n gives n of them, and
// several files add theirs). Any other key must either be fixed with
// -where or have one value on every line that is read, so that a plot
// never mixes two workloads: without -where, lines of
// BenchmarkEcho/proto=echo/... and BenchmarkEcho/proto=http/... are
// refused.
//
// The plot is 14cm by 9cm, with the legend to the right of the data. A
// linear y axis starts at zero when every value is positive. A
// logarithmic axis has a tick at each 1 to 9 times a power of ten, and
// labels the powers of ten, or 1, 2 and 5 times them, or every tick,
// whichever first gives two labels; its values must be above zero.
//
// Every error (a bad flag, a file that cannot be read, no matching line, a
// matching line without the unit or without the x key or impl, names that
// differ in a key not fixed with -where, a value of zero or less on a log
// axis) is printed on standard error, and plot exits with status 2
// without writing the file.
package main
