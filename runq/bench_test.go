package runq_test

import (
	"sync"
	"testing"

	"github.com/vsched/vsched/runq"
)

// The queue benchmarks run the same single-goroutine workloads on runq and on
// the two queues a Go programmer would otherwise reach for: a buffered
// channel of capacity Size and a ring under sync.Mutex. Read them with
//
//	benchstat -col /impl
//
// op=PutGet      one append and one removal
// op=PutNextGet  the same through runnext (chan and mutex have no runnext,
//                so they do their PutGet)
// op=StealHalf   fill a queue with Size/2 items, move half of them to a
//                second queue in one steal, then empty both
// op=PutBatch    append Size/2 items at once, then empty the queue

// task has a non-zero size, so that distinct tasks have distinct pointers.
type task struct{ _ int }

// mutexQueue is a FIFO ring of Size slots under a sync.Mutex.
type mutexQueue struct {
	mu   sync.Mutex
	buf  [runq.Size]*task
	head int
	n    int
}

func (q *mutexQueue) put(g *task) {
	q.mu.Lock()
	q.buf[(q.head+q.n)%runq.Size] = g
	q.n++
	q.mu.Unlock()
}

func (q *mutexQueue) get() *task {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return nil
	}
	g := q.buf[q.head]
	q.head = (q.head + 1) % runq.Size
	q.n--
	return g
}

func (q *mutexQueue) putBatch(gs []*task) {
	q.mu.Lock()
	for _, g := range gs {
		q.buf[(q.head+q.n)%runq.Size] = g
		q.n++
	}
	q.mu.Unlock()
}

// takeHalf moves ceil(n/2) items to dst under both locks, as a thief would.
func (q *mutexQueue) takeHalf(dst *mutexQueue) {
	q.mu.Lock()
	k := q.n - q.n/2
	dst.mu.Lock()
	for range k {
		dst.buf[(dst.head+dst.n)%runq.Size] = q.buf[q.head]
		dst.n++
		q.head = (q.head + 1) % runq.Size
		q.n--
	}
	dst.mu.Unlock()
	q.mu.Unlock()
}

func (q *mutexQueue) drain() {
	q.mu.Lock()
	q.head, q.n = 0, 0
	q.mu.Unlock()
}

var sink *task

func BenchmarkQueue(b *testing.B) {
	items := make([]task, runq.Size)
	ptrs := make([]*task, runq.Size)
	for i := range items {
		ptrs[i] = &items[i]
	}
	half := ptrs[:runq.Size/2]

	putGet := map[string]func(b *testing.B){
		"runq": func(b *testing.B) {
			var q runq.Queue[task]
			for i := 0; b.Loop(); i++ {
				q.Put(ptrs[i%runq.Size], false)
				sink, _ = q.Get()
			}
		},
		"chan": func(b *testing.B) {
			ch := make(chan *task, runq.Size)
			for i := 0; b.Loop(); i++ {
				ch <- ptrs[i%runq.Size]
				sink = <-ch
			}
		},
		"mutex": func(b *testing.B) {
			var q mutexQueue
			for i := 0; b.Loop(); i++ {
				q.put(ptrs[i%runq.Size])
				sink = q.get()
			}
		},
	}
	putNextGet := map[string]func(b *testing.B){
		"runq": func(b *testing.B) {
			var q runq.Queue[task]
			for i := 0; b.Loop(); i++ {
				q.Put(ptrs[i%runq.Size], true)
				sink, _ = q.Get()
			}
		},
		"chan":  putGet["chan"],
		"mutex": putGet["mutex"],
	}
	stealHalf := map[string]func(b *testing.B){
		"runq": func(b *testing.B) {
			var victim, thief runq.Queue[task]
			var scratch [runq.Size + 1]*task
			for b.Loop() {
				victim.PutBatch(half)
				sink = victim.StealInto(&thief, false, nil)
				victim.Drain(scratch[:0])
				thief.Drain(scratch[:0])
			}
		},
		"chan": func(b *testing.B) {
			victim := make(chan *task, runq.Size)
			thief := make(chan *task, runq.Size)
			for b.Loop() {
				for _, g := range half {
					victim <- g
				}
				for range len(victim) - len(victim)/2 {
					thief <- <-victim
				}
				for len(victim) > 0 {
					sink = <-victim
				}
				for len(thief) > 0 {
					sink = <-thief
				}
			}
		},
		"mutex": func(b *testing.B) {
			var victim, thief mutexQueue
			for b.Loop() {
				victim.putBatch(half)
				victim.takeHalf(&thief)
				victim.drain()
				thief.drain()
			}
		},
	}
	putBatch := map[string]func(b *testing.B){
		"runq": func(b *testing.B) {
			var q runq.Queue[task]
			var scratch [runq.Size + 1]*task
			for b.Loop() {
				q.PutBatch(half)
				q.Drain(scratch[:0])
			}
		},
		"chan": func(b *testing.B) {
			ch := make(chan *task, runq.Size)
			for b.Loop() {
				for _, g := range half {
					ch <- g
				}
				for len(ch) > 0 {
					sink = <-ch
				}
			}
		},
		"mutex": func(b *testing.B) {
			var q mutexQueue
			for b.Loop() {
				q.putBatch(half)
				q.drain()
			}
		},
	}

	for _, op := range []struct {
		name  string
		impls map[string]func(b *testing.B)
	}{
		{"PutGet", putGet},
		{"PutNextGet", putNextGet},
		{"StealHalf", stealHalf},
		{"PutBatch", putBatch},
	} {
		b.Run("op="+op.name, func(b *testing.B) {
			for _, impl := range []string{"runq", "chan", "mutex"} {
				b.Run("impl="+impl, func(b *testing.B) {
					b.ReportAllocs()
					op.impls[impl](b)
				})
			}
		})
	}
}
