package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// The HTML report of a check campaign: one self-contained file (styles
// inline, no scripts, no links out) that can be mailed or attached to an
// issue. It holds the verdict, the machine and the seed, a table of the
// phases, and per phase what ran (its description and the exact command),
// its counts and verdict; for each failure the output, the explorer's replay
// string and trace, and porcupine's visualization of a failing history,
// embedded in a frame.

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Parse(reportTemplateText))

type report struct {
	Verdict  string
	Started  string
	Total    string
	Budget   string
	Seed     uint64
	Rerun    string // the command that repeats the campaign with its seed
	Machine  machine
	Phases   []reportPhase
	Failed   int
	Warnings []string // what the report could not include
}

type machine struct {
	GOOS, GOARCH, CPU, GoVersion, Vsched string
	Cores                                int
}

type reportPhase struct {
	Name, ID, Verdict, Summary, Duration, Budget string
	// Searches counts the explorer's searches, complete and capped;
	// Capped names the capped ones.
	Searches string
	Capped   []string
	What     string // what the verifier is
	Command  string
	Failures []reportFailure
}

type reportFailure struct {
	Title   string
	Output  string
	Replays []string // the explorer's VSCHED_REPLAY settings, ready to paste
	Visuals []visual
}

// visual is a porcupine visualization of a failing history.
type visual struct {
	Path string
	HTML string
}

// phaseWhat describes each phase for a reader who has not read the code.
func phaseWhat(name string) string {
	switch {
	case name == "properties":
		return "Property tests: rapid state machines drive the real run queues, the global queue, the steal order and a single-M kernel in lock step with the executable specification (package spec), and the packages' own unit tests."
	case name == "fuzz seeds":
		return "The fuzz targets run as plain tests on their committed seed corpora, replaying every input a fuzzer ever found."
	case name == "explore":
		return "The model checker (build tag vsched_explore) runs the real code under every schedule within a preemption bound: litmus tests of the explorer itself, run-queue scenarios with a 4-slot ring, the kernel's wakeup-protocol models at bound 1 (one whose bug needs two preemptions at bound 2) and netpoll's wait-slot models."
	case name == "explore kernel":
		return "The kernel's models again at preemption bound 2, bounded in executions and time; a lost wakeup shows as a deadlock."
	case name == "linearizability":
		return "Owner and thieves run on every core and record histories; porcupine checks each against models built from the specification. A failing history is drawn as porcupine's visualization."
	case strings.HasPrefix(name, "fuzz "):
		return "Coverage-guided fuzzing (go test -fuzz) of one target for its share of the budget; a failing input is written under fuzz/testdata/fuzz and replayed by the fuzz seeds phase from then on."
	}
	return ""
}

// replayLine matches the explorer's replay setting in a failure's output,
// with the go test command that follows it when there is one.
var replayLine = regexp.MustCompile(`VSCHED_REPLAY='?[^'\s]+'?(?: go test[^\n]*)?`)

// fullestReplays drops a bare VSCHED_REPLAY=<schedule> when the same
// schedule also came with its go test command: the trace prints the one,
// the failure the other.
func fullestReplays(rs []string) []string {
	schedule := func(r string) string {
		s, _, _ := strings.Cut(strings.TrimPrefix(r, "VSCHED_REPLAY="), " ")
		return strings.Trim(s, "'")
	}
	var out []string
	for _, r := range rs {
		covered := false
		for _, o := range rs {
			if o != r && len(o) > len(r) && schedule(o) == schedule(r) {
				covered = true
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// htmlPath matches a path to an HTML file in a failure's output.
var htmlPath = regexp.MustCompile(`(/[^\s'"]+\.html)\b`)

func newReport(ctx context.Context, goBin string, c *checker, results []result, start time.Time, total time.Duration, v verdict) report {
	r := report{
		Verdict: v.String(),
		Started: start.Format(time.RFC1123),
		Total:   formatDuration(total),
		Budget:  c.duration.String(),
		Seed:    c.seed,
		Rerun:   fmt.Sprintf("go run ./cmd/vsched check -duration %s -seed %d", c.duration, c.seed),
		Machine: machineOf(ctx, goBin),
	}
	for _, res := range results {
		p := reportPhase{
			Name: res.phase, ID: "phase-" + strings.ReplaceAll(res.phase, " ", "-"), Verdict: res.verdict.String(), Summary: res.summary,
			Duration: formatDuration(res.dur), What: phaseWhat(res.phase), Command: res.command,
			Searches: coverage(res.complete, len(res.cappedIn)), Capped: res.cappedIn,
		}
		if res.budget > 0 {
			p.Budget = res.budget.String()
		}
		if res.verdict == fail {
			r.Failed++
		}
		for _, f := range res.failures {
			rf := reportFailure{Title: f.title, Output: strings.Join(f.output, "\n")}
			seen := map[string]bool{}
			for _, m := range replayLine.FindAllString(rf.Output, -1) {
				if !seen[m] {
					seen[m] = true
					rf.Replays = append(rf.Replays, m)
				}
			}
			rf.Replays = fullestReplays(rf.Replays)
			for _, m := range htmlPath.FindAllString(rf.Output, -1) {
				if seen[m] {
					continue
				}
				seen[m] = true
				data, err := os.ReadFile(m)
				if err != nil {
					r.Warnings = append(r.Warnings, fmt.Sprintf("%s: visualization %s not embedded: %v", res.phase, m, err))
					continue
				}
				rf.Visuals = append(rf.Visuals, visual{Path: m, HTML: string(data)})
			}
			p.Failures = append(p.Failures, rf)
		}
		r.Phases = append(r.Phases, p)
	}
	return r
}

// writeReport renders r to path, through a temporary file so that a
// half-written report never replaces a good one.
func writeReport(path string, r report) error {
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, r); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vsched-report-*.html")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// machineOf describes the machine the campaign ran on. The operating
// system, architecture and Go version are those of the go command that ran
// the tests, which may differ from the ones vsched was built with.
func machineOf(ctx context.Context, goBin string) machine {
	m := machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Cores: runtime.NumCPU(), CPU: cpuModel(ctx)}
	if out, err := exec.CommandContext(ctx, goBin, "env", "GOOS", "GOARCH", "GOVERSION").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 3 {
			m.GOOS, m.GOARCH, m.GoVersion = f[0], f[1], f[2]
		}
	}
	m.Vsched = "built from a clone"
	if v, released := readBuildInfo(); released {
		m.Vsched = v
	}
	return m
}

// cpuModel names the processor: /proc/cpuinfo on Linux (the model name on
// x86; the implementer and part numbers on arm64, which has no name there),
// sysctl on macOS and the BSDs.
func cpuModel(ctx context.Context) string {
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if s := cpuinfoModel(string(data)); s != "" {
			return s
		}
	}
	for _, key := range []string{"machdep.cpu.brand_string", "hw.model"} {
		if out, err := exec.CommandContext(ctx, "sysctl", "-n", key).Output(); err == nil {
			if s := strings.TrimSpace(string(out)); s != "" {
				return s
			}
		}
	}
	return "unknown"
}

// cpuinfoModel reads the processor's name out of /proc/cpuinfo.
func cpuinfoModel(cpuinfo string) string {
	fields := map[string]string{}
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if ok && v != "" {
			if _, dup := fields[k]; !dup {
				fields[k] = v
			}
		}
	}
	for _, k := range []string{"model name", "Model", "Hardware", "cpu model", "cpu"} {
		if v := fields[k]; v != "" {
			return v
		}
	}
	if impl, part := fields["CPU implementer"], fields["CPU part"]; impl != "" {
		return fmt.Sprintf("CPU implementer %s, part %s", impl, part)
	}
	return ""
}
