package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// progress shows a campaign while it runs. On a terminal it redraws one
// status line (phase, phase time, total time, budget left, failures so far,
// the phase's counts) every quarter second, with finished phases and notes
// printed above it. Elsewhere (CI logs, pipes) it writes whole lines only:
// one when a phase starts and one when it ends. Its methods may be called
// from any goroutine.
type progress struct {
	w        io.Writer
	tty      bool
	width    int
	deadline time.Time // when the budget runs out; zero if there is none

	mu                sync.Mutex
	start, phaseStart time.Time
	phase, detail     string // the running phase (empty between phases) and its counts
	failed            int    // phases failed so far
	drawn, closed     bool   // a status line is on screen; nothing more is printed
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, tty: isTerminal(w), width: 80, start: time.Now()}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		p.width = n
	}
	if p.tty {
		var redraw func()
		redraw = func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if !p.closed {
				p.draw()
				time.AfterFunc(250*time.Millisecond, redraw)
			}
		}
		redraw()
	}
	return p
}

// isTerminal reports whether w is a terminal that can erase a line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// begin marks the start of the phase called name.
func (p *progress) begin(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.phaseStart, p.detail = name, time.Now(), ""
	if p.tty {
		p.draw()
		return
	}
	p.println("=== " + name + p.left())
}

// status replaces the running phase's counts; only a terminal shows them.
func (p *progress) status(detail string) {
	p.mu.Lock()
	p.detail = detail
	p.mu.Unlock()
}

// line prints one whole line above the status line.
func (p *progress) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.println(s)
}

// end prints the verdict of the phase that began last.
func (p *progress) end(r result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase = ""
	if r.verdict == fail {
		p.failed++
	}
	p.println(endLine(r))
}

// endLine records a finished phase, in go test's style.
func endLine(r result) string {
	s := fmt.Sprintf("--- %s %s", r.verdict, r.phase)
	if r.summary != "" {
		s += ": " + r.summary
	}
	if cov := coverage(r.complete, len(r.cappedIn)); cov != "" {
		s += "; searches " + cov
	}
	return s + " (" + formatDuration(r.dur) + ")"
}

// close erases the status line; later calls print nothing, so the summary
// that follows is not interleaved with progress.
func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	p.closed = true
}

// left says how much of the budget remains. Called with p.mu held.
func (p *progress) left() string {
	if p.deadline.IsZero() {
		return ""
	}
	if d := time.Until(p.deadline); d > 0 {
		return " (" + d.Truncate(time.Second).String() + " left)"
	}
	return " (budget spent)"
}

// println writes s as a whole line, erasing the status line first and
// drawing it again after. Called with p.mu held.
func (p *progress) println(s string) {
	if p.closed {
		return
	}
	p.erase()
	fmt.Fprintln(p.w, s)
	p.draw()
}

// draw shows the status line of the running phase. Called with p.mu held.
func (p *progress) draw() {
	if !p.tty || p.closed || p.phase == "" {
		return
	}
	elapsed := func(since time.Time) string { return time.Since(since).Truncate(time.Second).String() }
	s := fmt.Sprintf("%s  %s  (total %s)%s", p.phase, elapsed(p.phaseStart), elapsed(p.start), p.left())
	if p.failed > 0 {
		s += fmt.Sprintf("  %d failed so far", p.failed)
	}
	if p.detail != "" {
		s += "  " + p.detail
	}
	// \r returns to column 0 and ESC[K clears to the end of the line.
	fmt.Fprint(p.w, "\r\x1b[K"+truncate(s, p.width-1))
	p.drawn = true
}

// erase removes the status line. Called with p.mu held.
func (p *progress) erase() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
