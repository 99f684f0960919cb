package linearizability

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/vsched/vsched/internal/campaign"
	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// Mode selects what [Stress] drives.
type Mode int

const (
	// QueueMode drives one runq.Queue: its owner (Put, PutBatch, Get,
	// Drain) and [Config.Thieves] thieves (Grab, StealInto their own
	// queue, Empty, and owner operations on their own queue).
	QueueMode Mode = iota
	// SystemMode drives [Config.Procs] Ps, each the owner of a runq.Queue,
	// and a runq.Global under a mutex: overflow goes to the global queue,
	// a P with an empty queue takes a batch from the global queue, else
	// steals from another P with StealInto.
	SystemMode
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case QueueMode:
		return "queue"
	case SystemMode:
		return "system"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Config configures [Stress]. The zero value is a short QueueMode run.
type Config struct {
	Mode Mode
	// Thieves is the number of thief threads in QueueMode (default: the
	// number of CPUs less one, between 1 and 3).
	Thieves int
	// Procs is the number of Ps in SystemMode (default: the number of
	// CPUs, between 2 and 4).
	Procs int
	// Rounds stops the run after that many rounds, Duration after that
	// much time, whichever comes first; with both zero, Duration is 1s.
	Rounds   int
	Duration time.Duration
	// OpsPerRound is the number of operations of the owner (each P in
	// SystemMode) per round (default 200); thieves stop when the owner
	// does, or after twice as many.
	OpsPerRound int
	// Seed seeds the choice of operations (not their interleaving); 0
	// picks a seed, reported in [Result.Seed].
	Seed uint64
	// ArtifactDir receives the HTML visualization of a failure; default
	// $VSCHED_ARTIFACTS, else [os.TempDir].
	ArtifactDir string
	// CheckTimeout bounds the check of each round (default 10s); a round
	// whose check times out counts in [Result.Unknown], not as a failure.
	CheckTimeout time.Duration
	// StuckTimeout is how long a round may take before the run reports
	// that an operation is stuck, [ErrStuck] (default 10s; a round takes
	// milliseconds).
	StuckTimeout time.Duration
	// ExtraRounds is how many more rounds run after the first failure, to
	// find a failing round with fewer operations (default 10).
	ExtraRounds int
}

// Result is what [Stress] did.
type Result struct {
	Mode Mode
	Seed uint64
	// Rounds is the number of rounds run and checked, Ops the number of
	// operations in rounds checked to the end (Ok or Illegal), Unknown the
	// number of rounds whose check timed out.
	Rounds, Ops, Unknown int
	// Failure is the failing round with the fewest operations, or nil.
	Failure *Failure
}

// Environment variables read by [Config.WithEnv].
const (
	EnvDuration  = campaign.EnvLinDuration // a time.ParseDuration string
	EnvRounds    = "VSCHED_LIN_ROUNDS"     // a round count
	EnvSeed      = campaign.EnvLinSeed     // a uint64 seed
	EnvArtifacts = campaign.EnvArtifacts   // the artifact directory
	EnvOps       = "VSCHED_LIN_OPS"        // operations per round
	EnvStuck     = "VSCHED_LIN_STUCK"      // the stuck timeout, a duration
	EnvThieves   = "VSCHED_LIN_THIEVES"    // thieves in QueueMode
	EnvProcs     = "VSCHED_LIN_PROCS"      // Ps in SystemMode
)

// WithEnv returns c with the fields that the environment variables
// [EnvDuration], [EnvRounds], [EnvSeed], [EnvArtifacts], [EnvOps],
// [EnvStuck], [EnvThieves] and [EnvProcs] set. A
// bad value gives an error wrapping [ErrConfig].
func (c Config) WithEnv() (Config, error) {
	for _, e := range []struct {
		name string
		dst  *time.Duration
	}{{EnvDuration, &c.Duration}, {EnvStuck, &c.StuckTimeout}} {
		if v := os.Getenv(e.name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return c, fmt.Errorf("%w: %s=%q: want a non-negative duration", ErrConfig, e.name, v)
			}
			*e.dst = d
		}
	}
	for _, e := range []struct {
		name string
		dst  *int
	}{{EnvRounds, &c.Rounds}, {EnvOps, &c.OpsPerRound}, {EnvThieves, &c.Thieves}, {EnvProcs, &c.Procs}} {
		if v := os.Getenv(e.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return c, fmt.Errorf("%w: %s=%q: want a non-negative integer", ErrConfig, e.name, v)
			}
			*e.dst = n
		}
	}
	if v := os.Getenv(EnvSeed); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return c, fmt.Errorf("%w: %s=%q: want an unsigned integer", ErrConfig, EnvSeed, v)
		}
		c.Seed = n
	}
	if v := os.Getenv(EnvArtifacts); v != "" {
		c.ArtifactDir = v
	}
	return c, nil
}

func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Mode != QueueMode && c.Mode != SystemMode:
		return c, fmt.Errorf("%w: unknown %v", ErrConfig, c.Mode)
	case c.Thieves < 0, c.Procs < 0, c.Rounds < 0, c.Duration < 0, c.OpsPerRound < 0, c.CheckTimeout < 0, c.StuckTimeout < 0, c.ExtraRounds < 0:
		return c, fmt.Errorf("%w: negative field in %+v", ErrConfig, c)
	case c.Mode == SystemMode && c.Procs == 1:
		return c, fmt.Errorf("%w: SystemMode needs at least 2 Ps to steal", ErrConfig)
	}
	// As many workers as CPUs: a worker that waits for a core misses the
	// races that only truly parallel threads reach. A few suffice, and
	// the search cost grows exponentially with concurrency.
	if c.Thieves == 0 {
		c.Thieves = min(max(runtime.NumCPU()-1, 1), 3)
	}
	if c.Procs == 0 {
		c.Procs = min(max(runtime.NumCPU(), 2), 4)
	}
	if c.Rounds == 0 && c.Duration == 0 {
		c.Duration = time.Second
	}
	if c.OpsPerRound == 0 {
		c.OpsPerRound = 200
	}
	if c.Seed == 0 {
		c.Seed = rand.Uint64() | 1
	}
	if c.ArtifactDir == "" {
		c.ArtifactDir = os.Getenv(EnvArtifacts)
	}
	if c.ArtifactDir == "" {
		c.ArtifactDir = os.TempDir()
	}
	if c.CheckTimeout == 0 {
		c.CheckTimeout = 10 * time.Second
	}
	if c.StuckTimeout == 0 {
		c.StuckTimeout = 10 * time.Second
	}
	if c.ExtraRounds == 0 {
		c.ExtraRounds = 10
	}
	return c, nil
}

// Stress runs rounds of real concurrent operations on runq.Queue (and
// runq.Global in SystemMode), records each round's history and checks it
// with porcupine against [NewModel], and checks that every item was
// consumed exactly once. Each round starts from empty queues and ends with
// every queue drained, so rounds check independently. Every worker runs on
// its own goroutine locked to an OS thread, and GOMAXPROCS is raised to the
// number of workers for the run.
//
// It returns an error wrapping [ErrConfig] for a bad configuration, and a
// *[Failure] (as the error and in [Result.Failure]) for the failing round
// with the fewest operations among those found before the run stopped.
func Stress(cfg Config) (Result, error) {
	return stress(cfg, func() *runq.Queue[item] { return new(runq.Queue[item]) }, runq.Size)
}

// item is a task as the queues see it: a distinct pointer with an id.
type item struct{ id int }

// queue is the method set of runq.Queue[item] that the driver uses, so that
// tests can drive a deliberately wrong queue too.
type queue[Q any] interface {
	Put(g *item, next bool) []*item
	PutBatch(gs []*item) []*item
	Get() (*item, bool)
	Drain(dst []*item) []*item
	Grab(batch []*item, stealRunNext bool, pause func()) int
	StealInto(dst Q, stealRunNext bool, pause func()) *item
	Empty() bool
	Len() int
}

func stress[Q queue[Q]](cfg Config, newQueue func() Q, ringSize int) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	workers := cfg.Thieves + 1
	procs := cfg.Thieves + 1 // the victim's queue and one per thief
	if cfg.Mode == SystemMode {
		workers, procs = cfg.Procs, cfg.Procs
	}
	if prev := runtime.GOMAXPROCS(0); prev < workers {
		runtime.GOMAXPROCS(workers)
		defer runtime.GOMAXPROCS(prev)
	}
	d := &driver[Q]{
		cfg:      cfg,
		ringSize: ringSize,
		rec:      NewRecorder(workers, 0),
		capacity: recordCapacity(cfg, ringSize),
		queues:   make([]Q, procs),
		nextID:   make([]int, workers),
		workers:  make([]workerLog, workers),
	}
	for i := range d.queues {
		d.queues[i] = newQueue()
	}
	res := Result{Mode: cfg.Mode, Seed: cfg.Seed}
	began := time.Now()
	extra := -1 // rounds left after the first failure
	var best []porcupine.Operation
	for round := 1; ; round++ {
		if cfg.Rounds > 0 && round > cfg.Rounds || cfg.Duration > 0 && time.Since(began) >= cfg.Duration || extra == 0 {
			break
		}
		if extra > 0 {
			extra--
		}
		ops, fatal, unbalanced := d.round(round)
		res.Rounds++
		r, err := Checker{Procs: procs, RingSize: ringSize, Timeout: cfg.CheckTimeout}.Check(ops)
		var f *Failure
		switch {
		case err != nil:
			f = err.(*Failure)
			if fatal != nil {
				f.Detail = fatal.Err.Error() + " afterwards: " + fatal.Detail
			}
		case fatal != nil:
			f = fatal
		case r == porcupine.Unknown:
			res.Unknown++
			continue
		default:
			f = unbalanced
		}
		if f == nil {
			res.Ops += len(ops)
			continue
		}
		f.Round = round
		if f.Err == ErrNotLinearizable {
			res.Ops += len(ops)
		}
		if res.Failure == nil || f.RoundOps < res.Failure.RoundOps {
			res.Failure, best = f, ops
		}
		if fatal != nil {
			break // the queues may be broken for good
		}
		if extra < 0 {
			extra = cfg.ExtraRounds
		}
	}
	if res.Failure == nil {
		return res, nil
	}
	if res.Failure.Err == ErrNotLinearizable {
		// Shrink and visualize the chosen round only.
		c := Checker{Procs: procs, RingSize: ringSize, Timeout: cfg.CheckTimeout, Dir: cfg.ArtifactDir,
			Label: fmt.Sprintf("%v-round%d", cfg.Mode, res.Failure.Round)}
		if _, err := c.Check(best); err != nil {
			f := err.(*Failure)
			f.Round, f.Detail = res.Failure.Round, res.Failure.Detail
			res.Failure = f
		}
	}
	return res, res.Failure
}

// driver holds what persists across rounds.
type driver[Q queue[Q]] struct {
	cfg      Config
	ringSize int
	rec      *Recorder
	queues   []Q
	global   runq.Global[item]
	globalMu sync.Mutex
	nextID   []int // per worker: items created so far
	workers  []workerLog

	// Per round.
	capacity int // operations per thread per round
	arrived  atomic.Int32
	stop     atomic.Bool // the owner finished (QueueMode)
	// The emptyProbe rounds' per-iteration barrier: the owner publishes
	// epoch e once runnext holds an item and the ring is empty, each
	// prober adds to ready when it starts probing epoch e, and the owner
	// sets done to e after its Put and Get. from is the stamp the owner
	// took just before it published the epoch: every probe of the epoch
	// is called after it.
	probeEpoch, probeReady, probeDone, probeFrom atomic.Int64
	// The wrapSteal round's barrier: the owner publishes a ring whose
	// tail has wrapped past 2^32 and whose head has not, and waits until
	// every thief has stolen from it once.
	wrapPublished atomic.Bool
	wrapStolen    atomic.Int32

	abort    atomic.Bool
	panicMsg atomic.Pointer[string]
}

// workerLog is what a worker created and consumed in a round, for the
// conservation check.
type workerLog struct {
	created, consumed []int
	_                 [64]byte
}

// recordCapacity is the most operations any worker records in a round:
// the owner's wrapSteal round adds up to a ring and runnext of Puts to
// its share.
func recordCapacity(cfg Config, ringSize int) int {
	return 6*cfg.OpsPerRound + 8 + ringSize + 1
}

// newItem returns an item with an id no worker ever used before.
func (d *driver[Q]) newItem(w int) *item {
	d.nextID[w]++
	g := &item{id: (d.nextID[w]-1)*len(d.nextID) + w + 1}
	d.workers[w].created = append(d.workers[w].created, g.id)
	return g
}

func (d *driver[Q]) consumed(w int, gs ...int) {
	d.workers[w].consumed = append(d.workers[w].consumed, gs...)
}

// round runs one round and returns its history; fatal reports a worker
// that panicked or got stuck in an operation (the run must stop), and
// unbalanced a conservation violation.
func (d *driver[Q]) round(round int) (ops []porcupine.Operation, fatal, unbalanced *Failure) {
	d.rec.Reset(d.capacity)
	for w := range d.workers {
		d.workers[w].created = d.workers[w].created[:0]
		d.workers[w].consumed = d.workers[w].consumed[:0]
	}
	d.arrived.Store(0)
	d.stop.Store(false)
	d.probeEpoch.Store(0)
	d.probeReady.Store(0)
	d.probeDone.Store(0)
	d.probeFrom.Store(0)
	d.abort.Store(false)
	d.panicMsg.Store(nil)
	d.wrapPublished.Store(false)
	d.wrapStolen.Store(0)
	seed := rand.New(rand.NewPCG(d.cfg.Seed, uint64(round)))
	for _, q := range d.queues {
		// Now and then, move the empty queues' counters just below 2^32.
		if seed.IntN(4) == 0 && q.Empty() {
			testhook.RunqStartAt(q, belowWrap(seed.IntN(4*d.ringSize)))
		}
	}
	// The flavors before wrapSteal are drawn at random, emptyProbe with
	// two shares: the race it hunts (an item moving from runnext to the
	// ring between Empty's reads) is the rarest on real cores. Every run
	// begins with a wrapSteal round, so that each run steals across the
	// wrap whatever its length.
	fl := flavor(seed.IntN(int(wrapSteal) + 1))
	if fl == wrapSteal {
		fl = emptyProbe
	}
	if round == 1 {
		fl = wrapSteal
	}
	var wg sync.WaitGroup
	for w := range d.workers {
		rng := rand.New(rand.NewPCG(seed.Uint64(), uint64(w)))
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer d.recoverInto(w)
			if !d.barrier() {
				return
			}
			switch {
			case d.cfg.Mode == SystemMode:
				d.runP(w, rng)
			case w == 0:
				d.runOwner(rng, fl)
			default:
				d.runThief(w, rng, fl)
			}
		})
	}
	stuck := !d.await(&wg)
	if !stuck && d.panicMsg.Load() == nil {
		// Every queue is drained by its owner's thread, the global queue
		// by P0's; a drain may spin for ever on a broken queue.
		wg.Go(func() {
			defer d.recoverInto(0)
			d.drainAll()
		})
		stuck = !d.await(&wg)
	}
	ops = d.rec.Operations()
	switch p := d.panicMsg.Load(); {
	case p != nil:
		return ops, &Failure{Err: ErrPanicked, RoundOps: len(ops), Ops: len(ops), Detail: *p}, nil
	case stuck:
		return ops, &Failure{Err: ErrStuck, RoundOps: len(ops), Ops: len(ops),
			Detail: fmt.Sprintf("an operation did not return within %v; the queue may livelock", d.cfg.StuckTimeout)}, nil
	}
	return ops, nil, d.conservation(len(ops))
}

// recoverInto turns a panic of worker w into the round's failure.
func (d *driver[Q]) recoverInto(w int) {
	if r := recover(); r != nil {
		msg := fmt.Sprintf("worker %d: %v", w, r)
		d.panicMsg.CompareAndSwap(nil, &msg)
		d.abort.Store(true)
	}
}

// await waits for wg until the stuck timeout, and then aborts the round
// and reports false. A worker that is stuck inside a queue operation cannot
// be stopped: it is left behind.
func (d *driver[Q]) await(wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(d.cfg.StuckTimeout)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		d.abort.Store(true)
		return false
	}
}

// barrier makes the workers start together. It returns false if the round
// was aborted or the owner has finished it.
func (d *driver[Q]) barrier() bool {
	n := int32(len(d.workers))
	d.arrived.Add(1)
	return d.spinUntil(func() bool { return d.arrived.Load() >= n })
}

// drainAll empties every queue at the end of a round, recording the drains;
// the workers have stopped.
func (d *driver[Q]) drainAll() {
	for p, q := range d.queues {
		th := d.rec.Thread(p % len(d.workers))
		call := th.Stamp()
		got := q.Drain(nil)
		ret := th.Stamp()
		th.Record(call, ret, Input{Op: Drain, P: p}, Output{Items: ids(got)})
		d.consumed(p%len(d.workers), ids(got)...)
	}
	if d.cfg.Mode == SystemMode {
		th := d.rec.Thread(0)
		call := th.Stamp()
		g, rest := d.global.GetBatch(math.MaxInt, 1, nil)
		ret := th.Stamp()
		out := Output{}
		if g != nil {
			out.Items = append([]int{g.id}, ids(rest)...)
		}
		th.Record(call, ret, Input{Op: GlobalGetBatch, Max: math.MaxInt, Procs: 1}, out)
		d.consumed(0, out.Items...)
	}
}

// conservation checks that every item created in the round was consumed
// exactly once.
func (d *driver[Q]) conservation(nops int) *Failure {
	var l spec.Ledger[int]
	fail := func(err error) *Failure {
		return &Failure{Err: ErrConservation, RoundOps: nops, Ops: nops, Detail: err.Error()}
	}
	for _, w := range d.workers {
		for _, g := range w.created {
			if err := l.Enter(g); err != nil {
				return fail(err)
			}
		}
	}
	for _, w := range d.workers {
		for _, g := range w.consumed {
			if err := l.Leave(g); err != nil {
				return fail(err)
			}
		}
	}
	if n := l.Live(); n != 0 {
		return fail(fmt.Errorf("%d items were never consumed", n))
	}
	return nil
}

func ids(gs []*item) []int {
	if len(gs) == 0 {
		return nil
	}
	out := make([]int, len(gs))
	for i, g := range gs {
		if g != nil {
			out[i] = g.id
		}
	}
	return out
}

func id(g *item) []int {
	if g == nil {
		return nil
	}
	return []int{g.id}
}

// A flavor biases a QueueMode round's operation mix.
type flavor int

const (
	mixed      flavor = iota // every operation
	runNext                  // runnext hand-offs on a short queue, many Empty probes
	emptyProbe               // an item moves from runnext to the ring under Empty probes
	fill                     // more puts than gets: overflow
	steal                    // the tail runs ahead while thieves steal into half-full rings
	wrapSteal                // round 1 only: steal's mix, after every thief has stolen once from a ring that straddles 2^32
)

// belowWrap is a starting value for a queue's counters k below 2^32: the
// (k+1)th put after it wraps the tail to 0.
func belowWrap(k int) uint32 { return math.MaxUint32 - uint32(k) }

// spinUntil spins until cond holds and reports true, or reports false once
// the round is aborted or the owner has stopped.
func (d *driver[Q]) spinUntil(cond func() bool) bool {
	for i := 0; !cond(); i++ {
		if d.stop.Load() || d.abort.Load() {
			return false
		}
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
	return true
}

// pause is what a thief calls before taking runnext: nothing, a short spin
// or a yield, standing for the runtime's usleep(3).
func pause(rng *rand.Rand) func() {
	switch rng.IntN(3) {
	case 0:
		return nil
	case 1:
		return func() {
			for range 32 {
				spinSink.Add(1)
			}
		}
	}
	return runtime.Gosched
}

var spinSink atomic.Int64

// runOwner is the owner of queue 0 in QueueMode.
func (d *driver[Q]) runOwner(rng *rand.Rand, fl flavor) {
	defer d.stop.Store(true)
	q, th := d.queues[0], d.rec.Thread(0)
	if fl == wrapSteal {
		if !d.publishWrappedRing(rng) {
			return
		}
		fl = steal
	}
	for range d.cfg.OpsPerRound {
		if d.abort.Load() {
			return
		}
		r := rng.IntN(100)
		if fl == emptyProbe {
			// runqempty's hard case: with one item in runnext and an
			// empty ring, Put with next moves it to the ring and Get
			// takes the new runnext, so the queue is never empty. The
			// probers start at a barrier, as the runtime's
			// TestSchedLocalQueueEmpty does, so that their probes
			// overlap the Put and Get; running free, they rarely do.
			for d.get(0, 0) {
			}
			d.put(0, 0, true)
			d.probeFrom.Store(th.Stamp())
			e := d.probeEpoch.Add(1)
			if !d.spinUntil(func() bool { return d.probeReady.Load() >= e*int64(len(d.workers)-1) }) {
				return
			}
			d.putGet()
			d.probeDone.Store(e)
			continue
		}
		if fl == runNext {
			// Hand-offs through runnext on a short queue.
			switch {
			case r < 45 && q.Len() < 3:
				d.put(0, 0, rng.IntN(4) != 0)
			case r < 55:
				d.put(0, 0, false)
			default:
				d.get(0, 0)
			}
			continue
		}
		put, batch, get := 35, 45, 95
		switch fl {
		case fill: // more puts than gets: the ring fills and overflows
			put, batch, get = 50, 65, 97
		case steal: // as many puts as gets: the tail runs ahead
			put, batch, get = 50, 50, 100
		}
		switch {
		case r < put:
			d.put(0, 0, rng.IntN(3) == 0)
		case r < batch:
			d.putBatch(0, 0, 1+rng.IntN(d.ringSize/2+2))
		case r < get:
			d.get(0, 0)
		default:
			call := th.Stamp()
			got := q.Drain(nil)
			ret := th.Stamp()
			th.Record(call, ret, Input{Op: Drain}, Output{Items: ids(got)})
			d.consumed(0, ids(got)...)
		}
	}
}

// publishWrappedRing starts queue 0's counters so that its tail wraps
// past 2^32 at the last of 1 to Size puts into the ring, and its head stays
// below, and puts them, with an item in runnext half the time; it panics
// if the counters do not straddle 2^32 then. Then it waits until every
// thief has stolen once, from the ring only. The thieves' steals are the
// only operations in flight, so a steal that finds nothing in this ring is
// not linearizable on any machine, busy or not: a thief that misreads the
// ring's length across the wrap is reported in the round. It reports false
// if the round was aborted.
func (d *driver[Q]) publishWrappedRing(rng *rand.Rand) bool {
	n := 1 + rng.IntN(d.ringSize)
	testhook.RunqStartAt(d.queues[0], belowWrap(n-1))
	for range n {
		d.put(0, 0, false)
	}
	if rng.IntN(2) == 0 {
		d.put(0, 0, true)
	}
	if h, t := testhook.RunqCounters(d.queues[0]); t >= h {
		panic(fmt.Sprintf("a wrapSteal round's ring has head %#x and tail %#x (invariant: its tail has wrapped past 2^32 and its head has not)", h, t))
	}
	d.wrapPublished.Store(true)
	return d.spinUntil(func() bool { return int(d.wrapStolen.Load()) == len(d.workers)-1 })
}

func (d *driver[Q]) put(w, p int, next bool) {
	q, th := d.queues[p], d.rec.Thread(w)
	g := d.newItem(w)
	call := th.Stamp()
	over := q.Put(g, next)
	ret := th.Stamp()
	out := ids(over)
	th.Record(call, ret, Input{Op: Put, P: p, Items: []int{g.id}, Next: next}, Output{Items: out})
	d.overflow(w, over, out)
}

func (d *driver[Q]) putBatch(w, p, k int) {
	q, th := d.queues[p], d.rec.Thread(w)
	gs := make([]*item, k)
	for i := range gs {
		gs[i] = d.newItem(w)
	}
	in := ids(gs)
	call := th.Stamp()
	rest := q.PutBatch(gs)
	ret := th.Stamp()
	out := ids(rest)
	th.Record(call, ret, Input{Op: PutBatch, P: p, Items: in}, Output{Items: out})
	d.overflow(w, rest, out)
}

// overflow hands what a put could not keep to the global queue (SystemMode)
// or out of the system (QueueMode).
func (d *driver[Q]) overflow(w int, gs []*item, gids []int) {
	if len(gs) == 0 {
		return
	}
	if d.cfg.Mode != SystemMode {
		d.consumed(w, gids...)
		return
	}
	th := d.rec.Thread(w)
	d.globalMu.Lock()
	call := th.Stamp()
	d.global.PutBatch(gs)
	ret := th.Stamp()
	d.globalMu.Unlock()
	th.Record(call, ret, Input{Op: GlobalPutBatch, Items: gids}, Output{})
}

// putGet runs Put with next and Get on queue 0 back to back, so that the
// moment between the displaced runnext reaching the ring and Get taking the
// new runnext is as short as in a scheduler. Both operations are recorded
// with the interval of the pair: wider than their own, which can only make
// the check accept more, never reject a correct queue.
func (d *driver[Q]) putGet() {
	q, th := d.queues[0], d.rec.Thread(0)
	g := d.newItem(0)
	call := th.Stamp()
	over := q.Put(g, true)
	got, inherit := q.Get()
	ret := th.Stamp()
	out := ids(over)
	th.Record(call, ret, Input{Op: Put, Items: []int{g.id}, Next: true}, Output{Items: out})
	th.Record(call, ret, Input{Op: Get}, Output{Items: id(got), InheritTime: inherit})
	d.overflow(0, over, out)
	d.consumed(0, id(got)...)
}

// get runs Get on queue p and reports whether it found an item.
func (d *driver[Q]) get(w, p int) bool {
	q, th := d.queues[p], d.rec.Thread(w)
	call := th.Stamp()
	g, inherit := q.Get()
	ret := th.Stamp()
	th.Record(call, ret, Input{Op: Get, P: p}, Output{Items: id(g), InheritTime: inherit})
	d.consumed(w, id(g)...)
	return g != nil
}

// runThief is thief w in QueueMode: it steals from queue 0 and owns queue
// w.
func (d *driver[Q]) runThief(w int, rng *rand.Rand, fl flavor) {
	victim, own, th := d.queues[0], d.queues[w], d.rec.Thread(w)
	// Grab needs Size/2 slots. Many more keep a broken Grab that trusts a
	// torn read of head and tail (its copy runs past Size/2 before its CAS
	// fails) from panicking, so that its steals are judged by porcupine.
	batch := make([]*item, max(d.ringSize/2, 4096))
	if fl == wrapSteal {
		// One steal each from the owner's wrapped ring, which waits.
		// Not of runnext: a steal that may take runnext may also find
		// the ring empty, at a moment the specification allows to lie
		// between its look at the ring and at runnext, and take nothing
		// more.
		if !d.spinUntil(d.wrapPublished.Load) {
			return
		}
		if rng.IntN(2) == 0 {
			d.grab(w, batch, false, rng)
		} else {
			d.stealInto(w, false, rng)
		}
		d.wrapStolen.Add(1)
		fl = steal
	}
	var last int64                    // the last emptyProbe epoch probed
	for range 2 * d.cfg.OpsPerRound { // at most two operations each
		if d.stop.Load() || d.abort.Load() {
			return
		}
		r := rng.IntN(100)
		if fl == steal {
			r = 50 // StealInto only
		}
		switch {
		case fl == emptyProbe:
			// Wait for the owner's next epoch, then probe back to back
			// until its Put and Get are done, and record only a true
			// result, with the interval of all the probes: leaving out a
			// read-only operation, or widening its interval, can only
			// make the check accept more.
			e := last + 1
			if !d.spinUntil(func() bool { return d.probeEpoch.Load() >= e }) {
				return
			}
			last = e
			from := d.probeFrom.Load() // epoch e's: the owner waits for ready
			d.probeReady.Add(1)
			call := th.Stamp()
			if call <= from {
				panic(fmt.Sprintf("a probe of epoch %d was stamped at %d, before the epoch began at %d (invariant: a probe's interval begins after the owner's Gets and Put)", e, call, from))
			}
			found := false
			for {
				done := d.probeDone.Load() >= e
				if victim.Empty() {
					found = true
					break
				}
				if done || d.abort.Load() {
					break
				}
			}
			ret := th.Stamp()
			if found {
				th.Record(call, ret, Input{Op: Empty}, Output{Empty: true})
			}
		case fl == runNext && r < 70 || fl == mixed && r < 20:
			call := th.Stamp()
			e := victim.Empty()
			ret := th.Stamp()
			th.Record(call, ret, Input{Op: Empty}, Output{Empty: e})
		case r < 50:
			d.grab(w, batch, rng.IntN(2) == 0, rng)
		case r < 90:
			// The thief's own queue only changes here, so its Len is
			// exact: keep at most Size/2 ring items, some of them
			// fillers that a torn steal would overwrite.
			if n := own.Len(); n > d.ringSize/2 {
				d.drain(w, w)
			} else if k := rng.IntN(d.ringSize/2 - n + 1); k > 0 && (fl == steal || rng.IntN(4) != 0) {
				if fl == steal {
					k = d.ringSize/2 - n
				}
				d.putBatch(w, w, k)
			}
			d.stealInto(w, rng.IntN(2) == 0, rng)
		default:
			d.get(w, w)
		}
	}
}

// grab is thief w's Grab from queue 0 into batch, of runnext too if srn.
func (d *driver[Q]) grab(w int, batch []*item, srn bool, rng *rand.Rand) {
	pf := pause(rng)
	th := d.rec.Thread(w)
	call := th.Stamp()
	n := d.queues[0].Grab(batch, srn, pf)
	ret := th.Stamp()
	got := ids(batch[:n])
	th.Record(call, ret, Input{Op: Grab, StealRunNext: srn}, Output{Items: got})
	d.consumed(w, got...)
}

// stealInto is thief w's StealInto from queue 0 into its own queue, of
// runnext too if srn.
func (d *driver[Q]) stealInto(w int, srn bool, rng *rand.Rand) {
	pf := pause(rng)
	th := d.rec.Thread(w)
	call := th.Stamp()
	g := d.queues[0].StealInto(d.queues[w], srn, pf)
	ret := th.Stamp()
	th.Record(call, ret, Input{Op: StealInto, Dst: w, StealRunNext: srn}, Output{Items: id(g)})
	d.consumed(w, id(g)...)
}

func (d *driver[Q]) drain(w, p int) {
	q, th := d.queues[p], d.rec.Thread(w)
	call := th.Stamp()
	got := q.Drain(nil)
	ret := th.Stamp()
	th.Record(call, ret, Input{Op: Drain, P: p}, Output{Items: ids(got)})
	d.consumed(w, ids(got)...)
}

// runP is P w in SystemMode: a findRunnable-like loop over its own queue,
// the global queue and the other Ps' queues, interleaved with spawning.
func (d *driver[Q]) runP(w int, rng *rand.Rand) {
	own, th := d.queues[w], d.rec.Thread(w)
	procs := len(d.queues)
	for range d.cfg.OpsPerRound {
		if d.abort.Load() {
			return
		}
		r := rng.IntN(100)
		switch {
		case r < 30:
			d.put(w, w, rng.IntN(3) == 0)
		case r < 38:
			d.putBatch(w, w, 1+rng.IntN(d.ringSize/2+2))
		case r < 42:
			g := d.newItem(w)
			d.globalMu.Lock()
			call := th.Stamp()
			d.global.Put(g)
			ret := th.Stamp()
			d.globalMu.Unlock()
			th.Record(call, ret, Input{Op: GlobalPut, Items: []int{g.id}}, Output{})
		case r < 47 && own.Len() <= d.ringSize/2:
			// Steal although the own queue holds items (at most
			// Size/2 in the ring, as Len only overestimates).
			d.steal(w, rng)
		default:
			if d.get(w, w) {
				continue
			}
			// The own queue was empty and only this P fills it.
			d.globalMu.Lock()
			call := th.Stamp()
			g, rest := d.global.GetBatch(d.ringSize/2, procs, nil)
			ret := th.Stamp()
			d.globalMu.Unlock()
			out := id(g)
			if g != nil {
				out = append(out, ids(rest)...)
			}
			th.Record(call, ret, Input{Op: GlobalGetBatch, Max: d.ringSize / 2, Procs: procs}, Output{Items: out})
			if g != nil {
				d.consumed(w, g.id)
				if len(rest) > 0 {
					in := ids(rest)
					call := th.Stamp()
					left := own.PutBatch(rest)
					ret := th.Stamp()
					th.Record(call, ret, Input{Op: PutBatch, P: w, Items: in}, Output{Items: ids(left)})
					d.overflow(w, left, ids(left))
				}
				continue
			}
			d.steal(w, rng)
		}
	}
}

// steal is runqsteal by P w from another P, chosen at random.
func (d *driver[Q]) steal(w int, rng *rand.Rand) {
	v := rng.IntN(len(d.queues) - 1)
	if v >= w {
		v++
	}
	th := d.rec.Thread(w)
	srn := rng.IntN(2) == 0
	pf := pause(rng)
	call := th.Stamp()
	g := d.queues[v].StealInto(d.queues[w], srn, pf)
	ret := th.Stamp()
	th.Record(call, ret, Input{Op: StealInto, P: v, Dst: w, StealRunNext: srn}, Output{Items: id(g)})
	d.consumed(w, id(g)...)
}
