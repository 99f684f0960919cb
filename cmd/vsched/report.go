package main

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/vsched/vsched/internal/campaign"
)

// The HTML report of a check campaign is one self-contained file (styles
// inline, no scripts of its own, no links out) to attach to an issue: the
// verdict, the machine and the seed, a table of the phases, and per phase
// what ran and what it found; per failure its output, the explorer's replay
// commands and porcupine's visualization of a failing history in a frame.

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Parse(reportTemplateText))

type report struct {
	Verdict, Started, Total, Budget, Rerun string
	Seed                                   uint64
	Machine                                machine
	Phases                                 []reportPhase
	Failed                                 int
	Warnings                               []string // what the report could not include
}

type machine struct {
	GOOS, GOARCH, CPU, GoVersion, Source string
	Cores                                int
}

type reportPhase struct {
	Name, ID, Verdict, Summary, Duration, Searches, What, Command string
	Budget                                                        time.Duration // shown when set
	Capped                                                        []string
	Failures                                                      []reportFailure
}

type reportFailure struct {
	Title, Output string
	Replays       []string                      // the explorer's replay commands, ready to paste
	Visuals       []struct{ Path, HTML string } // porcupine's visualizations of failing histories
}

// phaseWhat describes each phase for a reader who has not read the code.
var phaseWhat = map[string]string{
	"properties":      "Property tests: rapid state machines drive the real run queues, the global queue, the steal order and a single-M kernel in lock step with the executable specification (package spec), and the packages' own unit and stress tests.",
	"fuzz seeds":      "The fuzz targets run as plain tests on their committed seed corpora, replaying every input a fuzzer ever found.",
	"explore":         "The model checker (build tag vsched_explore) runs the real code under every schedule within a preemption bound: litmus tests of the explorer itself, run-queue scenarios with a 4-slot ring, the kernel's wakeup-protocol models at their default bound, the task groups' models and netpoll's wait-slot models, under SC and under RC11.",
	"explore kernel":  "The kernel's models again at preemption bound 2, bounded in executions and time; a lost wakeup shows as a deadlock.",
	"linearizability": "Owner and thieves run on every core and record histories; porcupine checks each against models built from the specification. A failing history is drawn as porcupine's visualization.",
	"fuzz":            "Coverage-guided fuzzing (go test -fuzz) of one target for its share of the budget; a failing input is written under fuzz/testdata/fuzz and replayed by the fuzz seeds phase from then on.",
}

// replayLine matches the explorer's replay setting in a failure's output,
// with the go test command that follows it when there is one.
var replayLine = regexp.MustCompile(campaign.EnvReplay + `='?([^'\s]+)'?(?: go test[^\n]*)?`)

// htmlPath matches a path to an HTML file in a failure's output.
var htmlPath = regexp.MustCompile(`(/[^\s'"]+\.html)\b`)

func newReport(ctx context.Context, c *checker, results []result, start time.Time, total time.Duration, v verdict) report {
	r := report{
		Verdict: v.String(), Started: start.Format(time.RFC1123), Total: formatDuration(total), Budget: c.duration.String(), Seed: c.seed,
		Rerun:   fmt.Sprintf("go run ./cmd/vsched check -duration %s -seed %d", c.duration, c.seed),
		Machine: machineOf(ctx, c.root),
	}
	for _, res := range results {
		what, _, _ := strings.Cut(res.phase, " Fuzz")
		p := reportPhase{
			Name: res.phase, ID: "phase-" + strings.ReplaceAll(res.phase, " ", "-"), Verdict: res.verdict.String(), Summary: res.summary,
			Duration: formatDuration(res.dur), What: phaseWhat[what], Command: res.command,
			Searches: coverage(res.complete, len(res.cappedIn)), Capped: res.cappedIn, Budget: res.budget,
		}
		if res.verdict == fail {
			r.Failed++
		}
		for _, f := range res.failures {
			p.Failures = append(p.Failures, r.failure(res.phase, f))
		}
		r.Phases = append(r.Phases, p)
	}
	return r
}

// failure gathers what the report shows of f: its output, each schedule's
// fullest replay command (the trace prints a bare setting, the failure the
// command with it), and the visualizations it names.
func (r *report) failure(phase string, f failure) reportFailure {
	rf := reportFailure{Title: f.title, Output: f.output}
	fullest := map[string]int{} // schedule → index in rf.Replays
	for _, m := range replayLine.FindAllStringSubmatch(f.output, -1) {
		if i, ok := fullest[m[1]]; !ok {
			fullest[m[1]] = len(rf.Replays)
			rf.Replays = append(rf.Replays, m[0])
		} else if len(m[0]) > len(rf.Replays[i]) {
			rf.Replays[i] = m[0]
		}
	}
	for _, path := range slices.Compact(slices.Sorted(slices.Values(htmlPath.FindAllString(f.output, -1)))) {
		data, err := os.ReadFile(path)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: visualization %s not embedded: %v", phase, path, err))
			continue
		}
		rf.Visuals = append(rf.Visuals, struct{ Path, HTML string }{path, string(data)})
	}
	return rf
}

// writeReport renders r to path.
func writeReport(path string, r report) error {
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, r); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// machineOf describes the machine and the source the campaign ran on. The
// system, architecture and Go version are those of the go command that ran
// the tests.
func machineOf(ctx context.Context, root string) machine {
	m := machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Cores: runtime.NumCPU(), CPU: "unknown", Source: "unknown"}
	if out, err := exec.CommandContext(ctx, "go", "env", "GOOS", "GOARCH", "GOVERSION").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 3 {
			m.GOOS, m.GOARCH, m.GoVersion = f[0], f[1], f[2]
		}
	}
	if out, err := exec.CommandContext(ctx, "git", "-C", root, "describe", "--always", "--dirty").Output(); err == nil {
		m.Source = "commit " + strings.TrimSpace(string(out))
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPU = cmp.Or(cpuinfoModel(string(data)), m.CPU)
	} else if out, err := exec.CommandContext(ctx, "sysctl", "-n", "machdep.cpu.brand_string").Output(); err == nil {
		m.CPU = cmp.Or(strings.TrimSpace(string(out)), m.CPU) // macOS
	}
	return m
}

// cpuinfoModel reads the processor's name out of /proc/cpuinfo: the model
// name on x86; on arm64, which has none, the implementer and part numbers.
func cpuinfoModel(cpuinfo string) string {
	fields := map[string]string{}
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k, v = strings.TrimSpace(k), strings.TrimSpace(v); v != "" && fields[k] == "" {
			fields[k] = v
		}
	}
	if impl := fields["CPU implementer"]; fields["model name"] == "" && impl != "" {
		return fmt.Sprintf("CPU implementer %s, part %s", impl, fields["CPU part"])
	}
	return fields["model name"]
}
