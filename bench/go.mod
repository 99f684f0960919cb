module github.com/vsched/vsched/bench

go 1.26.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/gammazero/workerpool v1.3.0
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	github.com/vsched/vsched v0.0.0
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.47.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/gammazero/deque v1.2.2 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/perf v0.0.0-20260709024250-82a0b07e230d // indirect
)

replace github.com/vsched/vsched => ../

tool golang.org/x/perf/cmd/benchstat
