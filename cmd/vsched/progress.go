package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// progress shows the campaign while it runs. It has two faces:
//
//   - on a terminal, one status line (phase, phase time, total time, counts)
//     redrawn in place every redrawInterval, with the finished phases and
//     any notes printed above it;
//   - elsewhere (CI logs, pipes, files), plain lines only: one when a phase
//     starts and one when it ends. Nothing is ever redrawn, and every write
//     is a whole line, so a log stays readable when lines from different
//     sources meet.
//
// All methods may be called from any goroutine: go test's stdout and stderr
// are read on separate goroutines, and the terminal redraw runs on a third.
type progress struct {
	w     io.Writer
	tty   bool
	width int // terminal columns; the status line is cut to fit

	// deadline, when set, is when the campaign's budget runs out; the
	// status line counts down to it.
	deadline time.Time

	mu         sync.Mutex
	failed     int       // phases failed so far
	start      time.Time // when the campaign started
	phase      string    // the running phase; empty between phases
	phaseStart time.Time
	detail     string // counts of the running phase, as the phase reports them
	drawn      bool   // a status line is on screen and must be erased first
	closed     bool

	stop chan struct{} // closed by close to end the redraw goroutine
	done chan struct{} // closed by the redraw goroutine when it returns
}

const redrawInterval = 250 * time.Millisecond

func newProgress(w io.Writer, tty bool) *progress {
	p := &progress{
		w:     w,
		tty:   tty,
		width: terminalWidth(),
		start: time.Now(),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	if tty {
		go p.redrawLoop()
	} else {
		close(p.done)
	}
	return p
}

// isTerminal reports whether w is a character device, that is, a terminal
// a person is watching. A dumb terminal cannot erase a line, so it gets the
// plain output.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// terminalWidth trusts $COLUMNS when the shell exports it; without a
// terminal-size ioctl, 80 columns is the safe guess.
func terminalWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 80
}

func (p *progress) redrawLoop() {
	defer close(p.done)
	t := time.NewTicker(redrawInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// begin marks the start of phase name.
func (p *progress) begin(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.phaseStart, p.detail = name, time.Now(), ""
	if p.tty {
		p.draw()
		return
	}
	p.println("=== " + name + p.left(time.Now()))
}

// left says how much of the budget remains, or nothing without one.
func (p *progress) left(now time.Time) string {
	if p.deadline.IsZero() {
		return ""
	}
	if d := p.deadline.Sub(now); d > 0 {
		return " (" + formatElapsed(d) + " left)"
	}
	return " (budget spent)"
}

// status replaces the running phase's counts ("12 passed, 0 failed").
// Only the terminal shows them; plain output reports counts when the phase
// ends.
func (p *progress) status(detail string) {
	p.mu.Lock()
	p.detail = detail
	p.mu.Unlock()
}

// line prints one complete line of output (a note, or go test's output
// under -v) above the status line.
func (p *progress) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.println(s)
}

// end prints the verdict of the phase that began last.
func (p *progress) end(r result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase = "" // first, so that println does not draw the finished phase again
	if r.verdict == fail {
		p.failed++
	}
	p.println(endLine(r))
}

// endLine is the line that records a finished phase, in go test's style.
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

// close erases the status line and stops redrawing; later calls print
// nothing, so the summary that follows is not interleaved with progress.
func (p *progress) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.erase()
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	<-p.done
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
	now := time.Now()
	s := fmt.Sprintf("%s  %s  (total %s)%s", p.phase, formatElapsed(now.Sub(p.phaseStart)), formatElapsed(now.Sub(p.start)), p.left(now))
	if p.failed > 0 {
		s += fmt.Sprintf("  %d failed so far", p.failed)
	}
	if p.detail != "" {
		s += "  " + p.detail
	}
	// \r returns to column 0 and ESC[K clears to the end of the line, so a
	// shorter status leaves no tail of the longer one before it.
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

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// formatElapsed shows a running clock in whole seconds: "7s", "1m2s".
func formatElapsed(d time.Duration) string {
	return d.Truncate(time.Second).String()
}

// formatDuration shows a finished duration with as much precision as is
// useful at its size: "412ms", "3.1s", "1m2s".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}
