package proptest

import (
	"pgregory.net/rapid"

	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// ledger hands out fresh items and checks, through spec.Ledger, that each
// leaves the system exactly once.
type ledger struct {
	l      spec.Ledger[int]
	nextID int
}

// enter makes a new item and records that it entered the system.
func (l *ledger) enter(t *rapid.T) *item {
	l.nextID++
	must(t, l.l.Enter(l.nextID))
	return &item{id: l.nextID}
}

// leave records that the real code handed out gs, after the caller has
// compared them with the model.
func (l *ledger) leave(t *rapid.T, gs ...*item) {
	for _, g := range gs {
		must(t, l.l.Leave(g.id))
	}
}

// balanced fails the test if an item entered and never left.
func (l *ledger) balanced(t *rapid.T) {
	if live := l.l.Live(); live != 0 {
		mismatch(t, "%d items were submitted and never handed out", live)
	}
}

// globalPair is a runq.Global and its model, operated together.
type globalPair struct {
	q     runq.Global[item]
	model spec.Global[int]
}

// get runs Get on both and returns what the real queue handed out.
func (p *globalPair) get(t *rapid.T) []*item {
	want, ok := p.model.Get()
	g := p.q.Get()
	switch {
	case !ok && g != nil:
		mismatch(t, "Global.Get on an empty queue returned item %d", g.id)
	case !ok:
		return nil
	case g == nil:
		mismatch(t, "Global.Get returned nothing, want item %d", want)
	}
	equalIDs(t, "Global.Get", []int{want}, []int{g.id})
	return []*item{g}
}

// getBatch runs GetBatch on both, checks that the real queue appended its
// rest to dst and took its fair share, and returns what it handed out.
func (p *globalPair) getBatch(t *rapid.T, max, procs int, dst []*item) []*item {
	size := p.model.Len()
	want := p.model.GetBatch(max, procs)
	g, rest := p.q.GetBatch(max, procs, dst)
	if len(rest) < len(dst) || !sameItems(rest[:len(dst)], dst) {
		mismatch(t, "Global.GetBatch did not append to dst")
	}
	rest = rest[len(dst):]
	var got []*item
	if g != nil {
		got = append([]*item{g}, rest...)
	} else if len(rest) != 0 {
		mismatch(t, "Global.GetBatch returned no item but a rest of %d", len(rest))
	}
	equalIDs(t, "Global.GetBatch", want, ids(got))
	must(t, spec.CheckGlobalBatch(size, max, procs, len(got)))
	return got
}

// drain empties both through Get and returns what the real queue handed
// out; the real queue must be empty when the model is.
func (p *globalPair) drain(t *rapid.T) []*item {
	var out []*item
	for p.model.Len() > 0 {
		out = append(out, p.get(t)...)
	}
	if g := p.q.Get(); g != nil {
		mismatch(t, "Global returned item %d after the model was drained", g.id)
	}
	return out
}

// CheckGlobal is the property that runq.Global behaves as spec.Global under
// any sequence of Put, PutHead, PutBatch, Get and GetBatch, the last with any
// procs and max, and that every batch has the fair-share size.
func CheckGlobal(t *rapid.T) {
	var items ledger
	var p globalPair
	t.Repeat(map[string]func(*rapid.T){
		"Put": func(t *rapid.T) {
			g := items.enter(t)
			p.q.Put(g)
			p.model.Put(g.id)
		},
		"PutHead": func(t *rapid.T) {
			g := items.enter(t)
			p.q.PutHead(g)
			p.model.PutHead(g.id)
		},
		"PutBatch": func(t *rapid.T) {
			gs := make([]*item, rapid.IntRange(0, 3*runq.Size).Draw(t, "n"))
			for i := range gs {
				gs[i] = items.enter(t)
			}
			p.q.PutBatch(gs)
			p.model.PutBatch(ids(gs))
		},
		"Get": func(t *rapid.T) { items.leave(t, p.get(t)...) },
		"GetBatch": func(t *rapid.T) {
			max := rapid.IntRange(1, runq.Size).Draw(t, "max")
			procs := rapid.IntRange(1, 300).Draw(t, "procs")
			dst := make([]*item, rapid.IntRange(0, 3).Draw(t, "dst prefix"))
			items.leave(t, p.getBatch(t, max, procs, dst)...)
		},
		"": func(t *rapid.T) {
			must(t, spec.CheckGlobalLen(p.q.Len(), p.model.Len()))
		},
	})
	items.leave(t, p.drain(t)...)
	items.balanced(t)
}

func sameItems(a, b []*item) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
