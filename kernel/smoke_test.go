package kernel

import (
	"context"
	"sync/atomic"
	"testing"
)

func TestSmokeTreeOfTasksAllRunOnceAndShutdownDrains(t *testing.T) {
	k, err := New(WithProcs(2))
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	var spawn func(depth int) func(*Ctx)
	spawn = func(depth int) func(*Ctx) {
		return func(c *Ctx) {
			ran.Add(1)
			if depth > 0 {
				c.Go(spawn(depth - 1))
				c.Go(spawn(depth - 1))
			}
		}
	}
	for range 10 {
		if err := k.Go(spawn(10)); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := int64(10 * (1<<11 - 1))
	if got := ran.Load(); got != want {
		t.Fatalf("ran %d tasks, want %d", got, want)
	}
	st := k.Stats()
	t.Logf("%+v", st)
	if st.TasksRun != uint64(want) {
		t.Fatalf("Stats.TasksRun = %d, want %d", st.TasksRun, want)
	}
}
