//go:build vsched_explore

package explore_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vsched/vsched/explore"
)

var reductionTable = flag.Bool("vsched.reduction-table", false,
	"print the table of executions per scenario and reduction of docs/VERIFICATION.md")

// reductionConfigs are the columns of the reduction table. Under a bound
// the search never uses DPOR, so the bounded columns are none and sleep
// sets.
var reductionConfigs = []struct {
	name string
	cfg  explore.Config
}{
	{"bound 2, none", explore.Config{MaxPreemptions: 2, NoReduction: true}},
	{"bound 2, sleep sets", explore.Config{MaxPreemptions: 2}},
	{"unbounded, none", explore.Config{MaxPreemptions: explore.Unbounded, NoReduction: true}},
	{"unbounded, sleep sets", explore.Config{MaxPreemptions: explore.Unbounded, SleepSetsOnly: true}},
	{"unbounded, DPOR", explore.Config{MaxPreemptions: explore.Unbounded}},
}

// Each cell of the table is capped; a capped cell says so.
const (
	tableExecutions = 3_000_000
	tableTime       = 90 * time.Second
)

// TestReductionTable prints, with -vsched.reduction-table, the executions
// each runq scenario and each model of the tokio port takes to complete
// under each reduction, bounded and unbounded: the table of
// docs/VERIFICATION.md. A cell is "executions + pruned", or CAPPED with
// the executions reached.
func TestReductionTable(t *testing.T) {
	if !*reductionTable {
		t.Skip("prints the reduction table with -vsched.reduction-table")
	}
	models := []struct {
		name  string
		model func()
	}{
		{"tokio port: basic", tokioBasic},
		{"tokio port: steal_overflow", tokioStealOverflow},
		{"tokio port: multi_stealer", tokioMultiStealer},
		{"tokio port: chained_steal", tokioChainedSteal},
	}
	for _, sc := range scenarios {
		models = append(models, struct {
			name  string
			model func()
		}{sc.name, sc.model})
	}
	var b strings.Builder
	b.WriteString("| scenario |")
	for _, c := range reductionConfigs {
		b.WriteString(" " + c.name + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(reductionConfigs)) + "\n")
	for _, m := range models {
		b.WriteString("| " + m.name + " |")
		for _, c := range reductionConfigs {
			cfg := c.cfg
			cfg.MaxExecutions, cfg.MaxDuration = tableExecutions, tableTime
			start := time.Now()
			res, err := explore.Run(cfg, m.model)
			if err != nil || res.Failure != nil {
				t.Fatalf("%s, %s: %v %v", m.name, c.name, err, res.Failure)
			}
			b.WriteString(" " + tableCell(res) + " |")
			t.Logf("%s, %s: %s in %v", m.name, c.name, explore.Summary(res), time.Since(start).Round(time.Millisecond))
		}
		b.WriteString("\n")
	}
	fmt.Print(b.String())
}

// tableCell formats a result for the reduction table.
func tableCell(res explore.Result) string {
	n := fmt.Sprintf("%s + %s", commas(res.Executions), commas(res.Pruned))
	if !res.Complete {
		return "CAPPED at " + commas(res.Executions+res.Pruned)
	}
	return n
}

// commas writes n with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
