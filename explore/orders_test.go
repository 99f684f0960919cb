//go:build vsched_explore

package explore_test

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vsched/vsched/explore"
)

// The minimality table: for every atomic operation of runq, kernel and
// netpoll that a model reaches, the order it names and, for each weaker
// order, whether the models under RC11 find a counterexample with the
// operation weakened to it (explore.Config.Orders weakens one call site
// without rebuilding the code).
//
//	go test -tags vsched_explore -run '^TestOrderMinimality$' -timeout 0 ./explore -args -vsched.orders=../docs/VERIFICATION.md
//
// rewrites the table between the markers <!-- orders:begin --> and
// <!-- orders:end --> of the file.
var (
	ordersOut   = flag.String("vsched.orders", "", "run TestOrderMinimality and write its table into `file`, between its orders markers")
	ordersSites = flag.String("vsched.orders-sites", "", "weaken only the sites whose file:line matches `regexp`")
	ordersCap   = flag.Int("vsched.orders-executions", 30_000, "execution cap of each kernel model's run with a weakened site")
)

// orderModel is a model the table runs, with its exploration, and the
// package whose sites it judges: the runq scenarios judge runq's sites (the
// queue's own contract), the kernel models the kernel's and netpoll's.
type orderModel struct {
	name  string
	model func()
	cfg   explore.Config
	pkg   string
}

func orderModels() []orderModel {
	var ms []orderModel
	for _, sc := range scenarios {
		ms = append(ms, orderModel{"runq " + sc.name, sc.model, explore.Config{Memory: explore.RC11}, "runq/"})
	}
	for _, km := range kernelModels {
		cfg := kernelConfig(km.name)
		cfg.Memory = explore.RC11
		ms = append(ms, orderModel{km.name, km.model, cfg, "kernel/"})
	}
	return ms
}

// judges reports whether m judges the sites of the file rel.
func (m orderModel) judges(rel string) bool {
	if m.pkg == "kernel/" {
		return strings.HasPrefix(rel, "kernel/") || strings.HasPrefix(rel, "netpoll/")
	}
	return strings.HasPrefix(rel, m.pkg)
}

// siteInfo is what the discovery run learned of a call site.
type siteInfo struct {
	site     explore.Site
	declared explore.Order
	models   []int // indexes of the models that reach it
}

// weaker lists the orders below declared for an operation of kind op,
// strongest first: loads SC, acquire, relaxed; stores SC, release, relaxed;
// read-modify-writes SC, acq_rel, relaxed (a compare-and-swap named with
// release, CasRel, goes to relaxed).
func weaker(op explore.Op, declared explore.Order) []explore.Order {
	var chain []explore.Order
	switch op {
	case explore.OpLoad:
		chain = []explore.Order{explore.SeqCst, explore.Acquire, explore.Relaxed}
	case explore.OpStore:
		chain = []explore.Order{explore.SeqCst, explore.Release, explore.Relaxed}
	default:
		chain = []explore.Order{explore.SeqCst, explore.AcqRel, explore.Release, explore.Relaxed}
		if declared != explore.Release {
			chain = slices.DeleteFunc(chain, func(o explore.Order) bool { return o == explore.Release })
		}
	}
	i := slices.Index(chain, declared)
	if i < 0 {
		return nil
	}
	return chain[i+1:]
}

// verdictOf is the result of one weakening.
type verdictOf struct {
	order   explore.Order
	failure string // "" for none within the bounds
	capped  bool   // some model stopped at its execution cap
}

func TestOrderMinimality(t *testing.T) {
	if *ordersOut == "" {
		t.Skip("writes the table of the weakest orders: run with -vsched.orders=<file>")
	}
	var filter *regexp.Regexp
	if *ordersSites != "" {
		filter = regexp.MustCompile(*ordersSites)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	models := orderModels()
	weakScenarios = true
	defer func() { weakScenarios = false }()

	// Discovery: every site the models reach, with the order it names.
	sites := map[explore.Site]*siteInfo{}
	for i, m := range models {
		cfg := m.cfg
		cfg.Orders = func(s explore.Site, declared explore.Order) explore.Order {
			rel, ok := strings.CutPrefix(s.File, root+string(filepath.Separator))
			if !ok || !m.judges(rel) || strings.HasSuffix(rel, "_test.go") {
				return declared
			}
			s.File = rel
			info := sites[s]
			if info == nil {
				info = &siteInfo{site: s, declared: declared}
				sites[s] = info
			}
			if n := len(info.models); n == 0 || info.models[n-1] != i {
				info.models = append(info.models, i)
			}
			return declared
		}
		res, err := explore.Run(cfg, m.model)
		if err != nil || res.Failure != nil || !res.Complete {
			t.Fatalf("model %s fails unweakened (%v): %s", m.name, err, explore.Summary(res))
		}
	}
	all := slices.SortedFunc(func(yield func(*siteInfo) bool) {
		for _, s := range sites {
			if !yield(s) {
				return
			}
		}
	}, func(a, b *siteInfo) int {
		return cmp.Or(cmp.Compare(a.site.File, b.site.File), cmp.Compare(a.site.Line, b.site.Line), cmp.Compare(a.site.Op, b.site.Op))
	})

	// Weakening: each site, each weaker order, until a counterexample.
	start := time.Now()
	rows := map[*siteInfo][]verdictOf{}
	for _, info := range all {
		if filter != nil && !filter.MatchString(fmt.Sprintf("%s:%d", info.site.File, info.site.Line)) {
			continue
		}
		if _, ok := rows[info]; !ok {
			rows[info] = nil // a site in the table even when it is relaxed already
		}
		for _, w := range weaker(info.site.Op, info.declared) {
			v := verdictOf{order: w}
			for _, i := range info.models {
				m := models[i]
				cfg := m.cfg
				if m.pkg == "kernel/" {
					cfg.MaxExecutions = *ordersCap
				}
				target := info.site
				cfg.Orders = func(s explore.Site, declared explore.Order) explore.Order {
					if s.Line == target.Line && s.Op == target.Op && strings.HasSuffix(s.File, string(filepath.Separator)+target.File) {
						return w
					}
					return declared
				}
				res, err := explore.Run(cfg, m.model)
				if err != nil {
					t.Fatal(err)
				}
				if f := res.Failure; f != nil {
					v.failure = fmt.Sprintf("%s: %s, `VSCHED_REPLAY='%s'`", m.name, f.Kind, f.Schedule)
					break
				}
				v.capped = v.capped || res.Capped != ""
			}
			rows[info] = append(rows[info], v)
			t.Logf("%s:%d %s %s → %s: %s", info.site.File, info.site.Line, info.site.Op, info.declared, w, cmp.Or(v.failure, v.none()))
			if v.failure != "" {
				break
			}
		}
	}
	writeOrderTable(t, all, rows, models, time.Since(start))
}

// none describes a weakening that no model broke.
func (v verdictOf) none() string {
	if v.capped {
		return fmt.Sprintf("none (CAPPED at %d executions per model)", *ordersCap)
	}
	return "none (complete within the bounds)"
}

// writeOrderTable writes the table between the markers of the output file.
func writeOrderTable(t *testing.T, all []*siteInfo, rows map[*siteInfo][]verdictOf, models []orderModel, took time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "| site | operation | named | weakened to | counterexample (model: failure, replay) |\n|---|---|---|---|---|\n")
	weakest := 0
	for _, info := range all {
		vs, ok := rows[info]
		if !ok {
			continue
		}
		if len(vs) == 0 {
			fmt.Fprintf(&b, "| %s:%d | %s | %s | — | (the weakest order) |\n", info.site.File, info.site.Line, info.site.Op, info.declared)
			continue
		}
		for _, v := range vs {
			f := v.failure
			if f == "" {
				f = v.none()
				weakest++
			}
			fmt.Fprintf(&b, "| %s:%d | %s | %s | %s | %s |\n", info.site.File, info.site.Line, info.site.Op, info.declared, v.order, f)
		}
	}
	fmt.Fprintf(&b, "\n%d sites reached by %d models; %d weakenings with no counterexample within the bounds; weakening took %s.\n",
		len(rows), len(models), weakest, took.Round(time.Second))
	data, err := os.ReadFile(*ordersOut)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- orders:begin -->\n", "<!-- orders:end -->"
	i, j := strings.Index(string(data), begin), strings.Index(string(data), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q markers", *ordersOut, begin, end)
	}
	out := string(data[:i+len(begin)]) + b.String() + string(data[j:])
	if err := os.WriteFile(*ordersOut, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
