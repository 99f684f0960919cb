//go:build !vsched_explore

// The outputs below assume the default Size of 256.

package runq_test

import (
	"fmt"

	"github.com/vsched/vsched/runq"
)

// job stands for a goroutine in the examples.
type job struct{ name string }

func ExampleQueue() {
	var p0, p1 runq.Queue[job] // the local queues of two Ps

	// The owner of p0 readies three jobs, then one to run next.
	p0.Put(&job{"a"}, false)
	p0.Put(&job{"b"}, false)
	p0.Put(&job{"c"}, false)
	p0.Put(&job{"next"}, true)

	g, inheritTime := p0.Get()
	fmt.Println("p0 runs", g.name, "inheriting its time slice:", inheritTime)

	// p1 is idle: it steals half of p0's ring (ceil(3/2) = 2, oldest first),
	// runs the last one it took and keeps the others in its own ring.
	g = p0.StealInto(&p1, true, nil)
	fmt.Println("p1 steals and runs", g.name)
	g, _ = p1.Get()
	fmt.Println("p1 runs", g.name)
	g, _ = p0.Get()
	fmt.Println("p0 runs", g.name)
	fmt.Println("both empty:", p0.Empty() && p1.Empty())

	// Output:
	// p0 runs next inheriting its time slice: true
	// p1 steals and runs b
	// p1 runs a
	// p0 runs c
	// both empty: true
}

func ExampleQueue_Put_overflow() {
	var local runq.Queue[job]
	var global runq.Global[job] // guarded by the scheduler lock

	jobs := make([]job, runq.Size+1)
	for i := range jobs {
		jobs[i].name = fmt.Sprint("j", i)
	}
	for i := range runq.Size {
		local.Put(&jobs[i], false) // fills the ring
	}

	// One more job overflows: the oldest half of the ring and the new job
	// move to the global queue, in order.
	if overflow := local.Put(&jobs[runq.Size], false); overflow != nil {
		global.PutBatch(overflow)
	}
	fmt.Println("local:", local.Len(), "global:", global.Len())
	fmt.Println("global head:", global.Get().name)
	g, _ := local.Get()
	fmt.Println("local head:", g.name)

	// Output:
	// local: 128 global: 129
	// global head: j0
	// local head: j128
}

func ExampleGlobal_GetBatch() {
	var global runq.Global[job]
	for i := range 10 {
		global.Put(&job{fmt.Sprint("j", i)})
	}

	// With 4 Ps, a P with an empty local queue takes its fair share,
	// 10/4+1 = 3 jobs: one to run now and the rest for its local queue.
	var local runq.Queue[job]
	g, rest := global.GetBatch(runq.Size/2, 4, nil)
	local.PutBatch(rest)
	fmt.Println("run:", g.name, "local:", local.Len(), "global:", global.Len())

	// Output:
	// run: j0 local: 2 global: 7
}
