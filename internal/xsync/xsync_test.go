package xsync

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestNoteWakeupBeforeSleepIsNotLost(t *testing.T) {
	var n Note
	n.Wakeup()
	n.Sleep() // returns at once: the wakeup was pending
}

func TestNoteWakesASleeper(t *testing.T) {
	var n Note
	done := make(chan struct{})
	go func() {
		n.Sleep()
		close(done)
	}()
	n.Wakeup()
	<-done
}

func TestNoteEachSleepConsumesOneWakeup(t *testing.T) {
	var n Note
	for range 3 {
		n.Wakeup()
		n.Sleep()
	}
}

func TestNoteSecondPendingWakeupPanics(t *testing.T) {
	var n Note
	n.Wakeup()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "woken twice") {
			t.Fatalf("second Wakeup: recovered %v, want a panic naming the double wakeup", r)
		}
	}()
	n.Wakeup()
}

// TestNoteSpinSleepTakesAWakeupWhileItSpins: a spin of an hour ends at the
// Wakeup, so the spin looks at the note.
func TestNoteSpinSleepTakesAWakeupWhileItSpins(t *testing.T) {
	var n Note
	done := make(chan struct{})
	go func() {
		n.SpinSleep(time.Hour)
		close(done)
	}()
	n.Wakeup()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("SpinSleep(1h) did not return within a minute of the Wakeup: the spin does not look at the note")
	}
	n.Wakeup() // the first was consumed: no panic
	n.Sleep()
}

// TestNoteSpinSleepWaitsPastItsSpin: a sleeper with no spin (d = 0) or
// one too short to matter (one look, usually) blocks until the Wakeup, and
// the sleep consumes exactly that Wakeup: a second one would panic if the
// first were still pending. Only d = 0 forces the blocking path.
func TestNoteSpinSleepWaitsPastItsSpin(t *testing.T) {
	for _, d := range []time.Duration{0, time.Nanosecond} {
		var n Note
		done := make(chan struct{})
		go func() {
			n.SpinSleep(d)
			close(done)
		}()
		n.Wakeup()
		<-done
		n.Wakeup()
		n.Sleep()
	}
}

func TestAtomicsReadWhatWasWritten(t *testing.T) {
	var u Uint32
	u.StoreRel(7)
	if !u.CasRel(7, 8) || u.Cas(7, 9) || u.LoadAcq() != 8 || u.Add(2) != 10 || u.Swap(1) != 10 || u.Load() != 1 {
		t.Fatal("Uint32 operations disagree with their sequential meaning")
	}
	var p Pointer[int]
	a, b := new(int), new(int)
	p.StoreRel(a)
	if !p.CasRel(a, b) || p.Cas(a, a) || p.LoadAcq() != b || p.Swap(nil) != b || p.Load() != nil {
		t.Fatal("Pointer operations disagree with their sequential meaning")
	}
}

// TestEveryOperationInlines checks the promise of the default build: each
// atomic method of this package is a wrapper the compiler inlines, so using
// xsync instead of sync/atomic costs nothing. It compiles this package's
// test binary, whose tests instantiate the generic Pointer with int.
func TestEveryOperationInlines(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "test", "-c", "-gcflags=-m", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	report := string(out)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "atomic.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !fn.Name.IsExported() {
			continue
		}
		name := "(*" + recvType(fn.Recv.List[0].Type) + ")." + fn.Name.Name
		if !strings.Contains(report, "can inline "+name+"\n") && !strings.Contains(report, "can inline "+name+" ") {
			t.Errorf("%s is not inlined in the default build", name)
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("checked only %d methods; is atomic.go parsed?", checked)
	}
	// The mutex too, and its AssertHeld, which the default build leaves
	// empty so that the scheduler's lock-held checks cost nothing.
	for _, name := range []string{"(*Mutex).Lock", "(*Mutex).Unlock", "(*Mutex).AssertHeld"} {
		if !strings.Contains(report, "can inline "+name+"\n") && !strings.Contains(report, "can inline "+name+" ") {
			t.Errorf("%s is not inlined in the default build", name)
		}
	}
}

func recvType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr: // Pointer[T]
		return x.X.(*ast.Ident).Name + "[go.shape.int]"
	}
	return ""
}
