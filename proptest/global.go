package proptest

import (
	"pgregory.net/rapid"

	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// globalSystem is the state of [CheckGlobal].
type globalSystem struct {
	q      runq.Global[item]
	model  spec.Global[int]
	ledger spec.Ledger[int]
	nextID int
}

// CheckGlobal is the property that runq.Global behaves as spec.Global under
// any sequence of Put, PutHead, PutBatch, Get and GetBatch, the last with any
// procs and max, and that every batch has the fair-share size.
func CheckGlobal(t *rapid.T) {
	s := new(globalSystem)
	t.Repeat(map[string]func(*rapid.T){
		"Put": func(t *rapid.T) {
			g := s.newItem(t)
			s.q.Put(g)
			s.model.Put(g.id)
		},
		"PutHead": func(t *rapid.T) {
			g := s.newItem(t)
			s.q.PutHead(g)
			s.model.PutHead(g.id)
		},
		"PutBatch": func(t *rapid.T) {
			gs := make([]*item, rapid.IntRange(0, 3*runq.Size).Draw(t, "n"))
			for i := range gs {
				gs[i] = s.newItem(t)
			}
			s.q.PutBatch(gs)
			s.model.PutBatch(ids(gs))
		},
		"Get": func(t *rapid.T) {
			want, ok := s.model.Get()
			g := s.q.Get()
			if !ok {
				if g != nil {
					mismatch(t, "Global.Get on an empty queue returned item %d", g.id)
				}
				return
			}
			if g == nil {
				mismatch(t, "Global.Get returned nothing, want item %d", want)
			}
			equalIDs(t, "Global.Get", []int{want}, []int{g.id})
			must(t, s.ledger.Leave(g.id))
		},
		"GetBatch": func(t *rapid.T) {
			max := rapid.IntRange(1, runq.Size).Draw(t, "max")
			procs := rapid.IntRange(1, 300).Draw(t, "procs")
			size := s.model.Len()
			want := s.model.GetBatch(max, procs)
			dst := make([]*item, rapid.IntRange(0, 3).Draw(t, "dst prefix"))
			g, rest := s.q.GetBatch(max, procs, dst)
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
			for _, g := range got {
				must(t, s.ledger.Leave(g.id))
			}
		},
		"": func(t *rapid.T) {
			must(t, spec.CheckGlobalLen(s.q.Len(), s.model.Len()))
		},
	})
	for s.model.Len() > 0 {
		want, _ := s.model.Get()
		g := s.q.Get()
		if g == nil {
			mismatch(t, "Global lost item %d", want)
		}
		equalIDs(t, "Global.Get while draining", []int{want}, []int{g.id})
		must(t, s.ledger.Leave(g.id))
	}
	if g := s.q.Get(); g != nil {
		mismatch(t, "Global returned item %d after the model was drained", g.id)
	}
	if live := s.ledger.Live(); live != 0 {
		mismatch(t, "%d items were submitted and never handed out", live)
	}
}

func (s *globalSystem) newItem(t *rapid.T) *item {
	s.nextID++
	must(t, s.ledger.Enter(s.nextID))
	return &item{id: s.nextID}
}

func sameItems(a, b []*item) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
