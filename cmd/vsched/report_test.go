//go:build !vsched_explore

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReportEmbedsTheReplayAndTheVisualizationOfEachFailure(t *testing.T) {
	dir := t.TempDir()
	vis := filepath.Join(dir, "vsched-lin-123.html")
	if err := os.WriteFile(vis, []byte(`<html><body><script>render("history")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &checker{duration: 2 * time.Minute, seed: 42}
	results := []result{
		{phase: "properties", verdict: pass, summary: "95 passed, 0 failed, 0 skipped", command: "go test ./proptest"},
		{phase: "explore", verdict: fail, summary: "58 passed, 1 failed", failures: []failure{{
			title: "github.com/vsched/vsched/explore",
			output: "--- FAIL: TestKernelModels/SpawnVsIdle\ndeadlock: every thread is blocked\nreplay (1 preemptions): VSCHED_REPLAY=0.1.1.0\n" +
				"to replay: VSCHED_REPLAY='0.1.1.0' go test -tags vsched_explore -run '^TestKernelModels$/^SpawnVsIdle$' <this package>\n",
		}}},
		{phase: "linearizability", verdict: fail, summary: "10 passed, 1 failed", budget: time.Minute, failures: []failure{{
			title:  "github.com/vsched/vsched/linearizability",
			output: "--- FAIL: TestQueueHistoriesAreLinearizable\nnot linearizable; visualization: " + vis + "\n",
		}}},
	}
	path := filepath.Join(dir, "report.html")
	rep := newReport(t.Context(), c, results, time.Now(), time.Minute, fail)
	if r := rep.Phases[1].Failures[0].Replays; len(r) != 1 || !strings.HasSuffix(r[0], "<this package>") {
		t.Errorf("replays %q; want only the full command, not the bare setting of the same schedule", r)
	}
	if err := writeReport(path, rep); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	for _, want := range []string{
		"vsched check: <span class=\"FAIL\">FAIL</span>",
		"3 phases, 2 failed",
		"-seed 42",
		"VSCHED_REPLAY=&#39;0.1.1.0&#39; go test -tags vsched_explore -run &#39;^TestKernelModels$/^SpawnVsIdle$&#39;",
		// The visualization is embedded, escaped, in a frame of its own.
		`srcdoc="&lt;html&gt;&lt;body&gt;&lt;script&gt;render(&#34;history&#34;)`,
		"budget 1m0s",
		"go test ./proptest",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Count(html, "<iframe") != 1 {
		t.Errorf("want exactly one embedded visualization, got %d", strings.Count(html, "<iframe"))
	}
}

func TestReportSaysWhichVisualizationItCouldNotEmbed(t *testing.T) {
	c := &checker{duration: time.Minute, seed: 1}
	results := []result{{phase: "linearizability", verdict: fail, failures: []failure{{
		title: "x", output: "visualization: /nonexistent/vsched-lin-1.html",
	}}}}
	r := newReport(t.Context(), c, results, time.Now(), time.Minute, fail)
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "/nonexistent/vsched-lin-1.html") {
		t.Fatalf("warnings %q", r.Warnings)
	}
}

func TestCPUModelIsReadFromCpuinfoOnX86AndArm64(t *testing.T) {
	x86 := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) Processor\n"
	arm := "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"
	for in, want := range map[string]string{x86: "Intel(R) Xeon(R) Processor", arm: "CPU implementer 0x41, part 0xd0c", "": ""} {
		if got := cpuinfoModel(in); got != want {
			t.Errorf("cpuinfoModel = %q, want %q", got, want)
		}
	}
}
