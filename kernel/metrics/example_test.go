package metrics_test

import (
	"encoding/json"
	"expvar"
	"fmt"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/kernel/metrics"
)

// A kernel's Stats, published once, appear in /debug/vars under their name
// (serve it with net/http's DefaultServeMux).
func ExamplePublish() {
	k, err := kernel.New(kernel.WithProcs(4))
	if err != nil {
		panic(err)
	}
	defer k.Close()
	if err := metrics.Publish("scheduler", k); err != nil {
		panic(err)
	}
	var s struct{ Workers int }
	json.Unmarshal([]byte(expvar.Get("scheduler").String()), &s)
	fmt.Println("workers:", s.Workers)
	// Output: workers: 4
}
