package runq_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// getAllGlobal empties g with Get, oldest first.
func getAllGlobal(g *runq.Global[item]) []*item {
	var out []*item
	for it := g.Get(); it != nil; it = g.Get() {
		out = append(out, it)
	}
	return out
}

func TestGlobalGetReturnsItemsInPutOrder(t *testing.T) {
	items := makeItems(5)
	g := new(runq.Global[item])
	if it := g.Get(); it != nil || g.Len() != 0 {
		t.Fatalf("new Global: Get() = %v, Len() = %d", it, g.Len())
	}
	for i, it := range items {
		g.Put(it)
		if g.Len() != i+1 {
			t.Fatalf("Len() = %d after %d puts", g.Len(), i+1)
		}
	}
	if got := getAllGlobal(g); !slices.Equal(got, items) {
		t.Fatalf("Get order = %v, want %v", got, items)
	}
	if g.Len() != 0 {
		t.Fatalf("Len() = %d after draining", g.Len())
	}
}

func TestGlobalPutHeadMakesItemNextToLeave(t *testing.T) {
	items := makeItems(5)
	g := new(runq.Global[item])
	g.PutHead(items[2]) // on an empty queue
	g.Put(items[3])
	g.PutHead(items[1])
	g.PutHead(items[0])
	g.Put(items[4])
	if got := getAllGlobal(g); !slices.Equal(got, items) {
		t.Fatalf("Get order = %v, want %v", got, items)
	}
}

func TestGlobalPutBatchAppendsInOrder(t *testing.T) {
	items := makeItems(7)
	g := new(runq.Global[item])
	g.PutBatch(nil)
	if g.Len() != 0 {
		t.Fatalf("Len() = %d after an empty PutBatch", g.Len())
	}
	g.Put(items[0])
	g.PutBatch(items[1:4])
	g.PutHead(&item{id: -1})
	g.Get()
	g.PutBatch(items[4:])
	if g.Len() != len(items) {
		t.Fatalf("Len() = %d, want %d", g.Len(), len(items))
	}
	if got := getAllGlobal(g); !slices.Equal(got, items) {
		t.Fatalf("Get order = %v, want %v", got, items)
	}
}

func TestGlobalGetBatchTakesFairShareOldestFirstAppendedToDst(t *testing.T) {
	items := makeItems(300)
	sentinel := &item{id: -1}
	for _, size := range []int{1, 2, 3, 7, 16, 17, 100, 128, 129, 255, 256, 257, 300} {
		for _, procs := range []int{1, 2, 3, 4, 8, 64, 1000} {
			for _, max := range []int{-1, 0, 1, 5, runq.Size / 2, 1000} {
				g := new(runq.Global[item])
				g.PutBatch(items[:size])
				first, rest := g.GetBatch(max, procs, []*item{sentinel})

				want := min(max, size, size/procs+1)
				if want < 1 {
					want = 1
				}
				if w := spec.GlobalBatchSize(size, max, procs); w != want {
					t.Fatalf("size %d, max %d, procs %d: spec.GlobalBatchSize = %d, the formula gives %d", size, max, procs, w, want)
				}
				got := len(rest) // the sentinel stands for first
				if err := spec.CheckGlobalBatch(size, max, procs, got); err != nil {
					t.Fatalf("GetBatch: %v", err)
				}
				if first != items[0] || rest[0] != sentinel || !slices.Equal(rest[1:], items[1:want]) {
					t.Fatalf("size %d, max %d, procs %d: GetBatch = %v, %v; want %v, [-1 %v]", size, max, procs, first, rest, items[0], items[1:want])
				}
				if g.Len() != size-want {
					t.Fatalf("size %d, max %d, procs %d: Len() = %d after taking %d", size, max, procs, g.Len(), want)
				}
				if left := getAllGlobal(g); !slices.Equal(left, items[want:size]) {
					t.Fatalf("size %d, max %d, procs %d: left %v, want %v", size, max, procs, left, items[want:size])
				}
			}
		}
	}
}

func TestGlobalGetBatchOnEmptyQueueReturnsNilAndDst(t *testing.T) {
	g := new(runq.Global[item])
	dst := []*item{{id: -1}}
	first, rest := g.GetBatch(runq.Size/2, 4, dst)
	if first != nil || !slices.Equal(rest, dst) {
		t.Fatalf("GetBatch on an empty queue = %v, %v; want nil, dst", first, rest)
	}
	if first, rest := g.GetBatch(runq.Size/2, 4, nil); first != nil || rest != nil {
		t.Fatalf("GetBatch(nil dst) on an empty queue = %v, %v; want nil, nil", first, rest)
	}
}

func TestGlobalGetBatchPanicsWhenProcsBelowOne(t *testing.T) {
	items := makeItems(3)
	g := new(runq.Global[item])
	g.PutBatch(items)
	for _, procs := range []int{0, -1} {
		mustPanic(t, "procs", func() { g.GetBatch(runq.Size/2, procs, nil) })
	}
	empty := new(runq.Global[item])
	mustPanic(t, "procs", func() { empty.GetBatch(runq.Size/2, 0, nil) })
	if got := getAllGlobal(g); !slices.Equal(got, items) {
		t.Fatalf("queue after the refused GetBatch = %v, want %v", got, items)
	}
}

func TestGlobalNilPutsPanicAndLeaveQueueUnchanged(t *testing.T) {
	items := makeItems(4)
	g := new(runq.Global[item])
	g.PutBatch(items[:2])
	mustPanic(t, "nil", func() { g.Put(nil) })
	mustPanic(t, "nil", func() { g.PutHead(nil) })
	mustPanic(t, "nil", func() { g.PutBatch([]*item{items[2], nil, items[3]}) })
	if g.Len() != 2 {
		t.Fatalf("Len() = %d after refused puts, want 2", g.Len())
	}
	if got := getAllGlobal(g); !slices.Equal(got, items[:2]) {
		t.Fatalf("queue = %v, want %v", got, items[:2])
	}
}

// The ring buffer starts at 16 slots: wrap it before it grows, so that growth
// has to unwrap it.
func TestGlobalKeepsFIFOWhenGrowingWrappedBuffer(t *testing.T) {
	items := makeItems(1000)
	g := new(runq.Global[item])
	var want []*item
	next := 0
	put := func(k int) {
		for range k {
			g.Put(items[next])
			want = append(want, items[next])
			next++
		}
	}
	get := func(k int) {
		t.Helper()
		for range k {
			it := g.Get()
			if it != want[0] {
				t.Fatalf("Get = %v, want %v", it, want[0])
			}
			want = want[1:]
		}
	}
	put(10)
	get(7)
	put(12) // 15 items in 16 slots, wrapped
	put(5)  // grows while wrapped
	get(3)
	put(40)
	get(30)
	g.PutBatch(items[next : next+100]) // grows by a batch while wrapped
	want = append(want, items[next:next+100]...)
	next += 100
	if g.Len() != len(want) {
		t.Fatalf("Len() = %d, want %d", g.Len(), len(want))
	}
	if got := getAllGlobal(g); !slices.Equal(got, want) {
		t.Fatalf("Get order = %v, want %v", got, want)
	}
}

// TestGlobalAgreesWithSpec runs random operations on a Global and on its
// model and compares every result and Len.
func TestGlobalAgreesWithSpec(t *testing.T) {
	ops, seeds := 5000, uint64(4)
	if testing.Short() {
		ops, seeds = 1000, 1
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			g, m := new(runq.Global[item]), new(spec.Global[*item])
			id := 0
			fresh := func() *item { id++; return &item{id: id} }
			bias := 0.5
			for step := range ops {
				if step%300 == 0 {
					bias = 0.2 + 0.6*rng.Float64()
				}
				var op string
				switch r := rng.Float64(); {
				case r < bias*0.6:
					it := fresh()
					op = fmt.Sprint("Put(", it, ")")
					g.Put(it)
					m.Put(it)
				case r < bias*0.8:
					it := fresh()
					op = fmt.Sprint("PutHead(", it, ")")
					g.PutHead(it)
					m.PutHead(it)
				case r < bias:
					gs := make([]*item, rng.IntN(20))
					for i := range gs {
						gs[i] = fresh()
					}
					op = fmt.Sprint("PutBatch(", len(gs), " items)")
					g.PutBatch(gs)
					m.PutBatch(gs)
				case r < bias+(1-bias)/2:
					op = "Get"
					it := g.Get()
					w, ok := m.Get()
					if it != w || (it != nil) != ok {
						t.Fatalf("step %d: Get = %v, the model says %v", step, it, w)
					}
				default:
					max, procs := rng.IntN(2*runq.Size)-2, 1+rng.IntN(8)
					op = fmt.Sprintf("GetBatch(%d, %d)", max, procs)
					first, rest := g.GetBatch(max, procs, nil)
					var got []*item
					if first != nil {
						got = append([]*item{first}, rest...)
					} else if rest != nil {
						t.Fatalf("step %d: %s returned no item but rest %v", step, op, rest)
					}
					if want := m.GetBatch(max, procs); !slices.Equal(got, want) {
						t.Fatalf("step %d: %s = %v, the model says %v", step, op, got, want)
					}
				}
				if err := spec.CheckGlobalLen(g.Len(), m.Len()); err != nil {
					t.Fatalf("step %d (%s): %v", step, op, err)
				}
			}
			if got, want := getAllGlobal(g), m.Items(); !slices.Equal(got, want) {
				t.Fatalf("final content %v, the model says %v", got, want)
			}
		})
	}
}

// Len may be read without the scheduler lock while a lock holder mutates the
// queue; the race detector checks that, and Len never reports a size the
// queue did not have.
func TestGlobalLenMayBeReadWithoutLock(t *testing.T) {
	const rounds, most = 2000, 3
	items := makeItems(most)
	g := new(runq.Global[item])
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range rounds {
			mu.Lock()
			g.PutBatch(items)
			mu.Unlock()
			mu.Lock()
			g.GetBatch(most, 1, nil)
			mu.Unlock()
		}
	}()
	for {
		if n := g.Len(); n < 0 || n > most {
			t.Fatalf("Len() = %d, the queue never held more than %d", n, most)
		}
		select {
		case <-done:
			return
		default:
		}
	}
}

func TestGlobalSteadyStateDoesNotAllocate(t *testing.T) {
	items := makeItems(64)
	g := new(runq.Global[item])
	g.PutBatch(items) // warm up: grow the buffer to its high-water mark
	dst := make([]*item, 0, len(items))
	for g.Len() > 0 {
		_, dst = g.GetBatch(len(items), 1, dst[:0])
	}
	cases := []struct {
		name string
		f    func()
	}{
		{"Put+Get", func() { g.Put(items[0]); g.Put(items[1]); g.Get(); g.Get() }},
		{"PutHead+Get", func() { g.PutHead(items[0]); g.Get() }},
		{"PutBatch+GetBatch", func() {
			g.PutBatch(items[:40])
			_, dst = g.GetBatch(runq.Size/2, 1, dst[:0])
		}},
	}
	for _, c := range cases {
		if allocs := testing.AllocsPerRun(200, c.f); allocs != 0 {
			t.Errorf("%s: %v allocations per run, want 0", c.name, allocs)
		}
	}
}

// A queue that empties after a burst of more than 64 Ki items lets its
// ring go, so that the next burst grows a new one; after a smaller burst
// it keeps its ring, and the next such burst allocates nothing.
func TestGlobalLetsABigRingGoWhenEmpty(t *testing.T) {
	for _, c := range []struct {
		burst    int
		allocate bool
	}{{64, false}, {10000, false}, {1 << 16, false}, {1<<16 + 1, true}} {
		items := makeItems(c.burst)
		g := new(runq.Global[item])
		burst := func() {
			g.PutBatch(items)
			for g.Len() > 0 {
				g.Get()
			}
		}
		if got := testing.AllocsPerRun(5, burst); (got > 0) != c.allocate {
			t.Errorf("a burst of %d after another: %v allocations, want some: %v", c.burst, got, c.allocate)
		}
	}
}
