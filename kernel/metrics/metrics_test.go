package metrics_test

import (
	"encoding/json"
	"errors"
	"expvar"
	"testing"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/kernel/metrics"
)

func TestPublishedStatsAreTheKernelsAndANameIsTakenOnce(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if err := metrics.Publish("vsched_test", k); err != nil {
		t.Fatal(err)
	}
	if err := metrics.Publish("vsched_test", k); !errors.Is(err, metrics.ErrNameTaken) {
		t.Fatalf("second Publish under one name: %v, want ErrNameTaken", err)
	}
	if err := metrics.Publish("vsched_nil", nil); err == nil {
		t.Fatal("Publish of a nil kernel succeeded")
	}
	done := make(chan struct{})
	if err := k.Go(func(*kernel.Ctx) { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
	var s kernel.Stats
	if err := json.Unmarshal([]byte(expvar.Get("vsched_test").String()), &s); err != nil {
		t.Fatal(err)
	}
	if s.Workers != 2 || s.RemoteScheduleCount != 1 || len(s.PerWorker) != 2 {
		t.Fatalf("published %+v; want 2 workers and the one task submitted", s)
	}
}
