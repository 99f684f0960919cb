//go:build vsched_explore

package explorer

import (
	"fmt"
	"strconv"
	"strings"
)

// A schedule string lists the decisions of an execution, run-length
// encoded: a thread number for the thread chosen to step, "@k" for a choice
// of the weak memory model (alternative k: the k-th store before the latest
// one); "0:12,1:3,@1,0" is T0 for 12 decisions, T1 for 3, a load that reads
// the store before the latest, then T0 once.
func formatSchedule(s []int) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if s[i] < 0 {
			b.WriteString("@" + strconv.Itoa(-1-s[i]))
		} else {
			b.WriteString(strconv.Itoa(s[i]))
		}
		if j-i > 1 {
			fmt.Fprintf(&b, ":%d", j-i)
		}
		i = j
	}
	return b.String()
}

func parseSchedule(str string) ([]int, error) {
	var s []int
	for _, run := range strings.Split(strings.TrimSpace(str), ",") {
		id, count, found := strings.Cut(run, ":")
		var t int
		if alt, ok := strings.CutPrefix(id, "@"); ok {
			k, err := strconv.Atoi(alt)
			if err != nil || k < 0 || k >= maxChoices {
				return nil, fmt.Errorf("explore: bad schedule %q: %q is not a memory choice", str, id)
			}
			t = -1 - k
		} else {
			var err error
			t, err = strconv.Atoi(id)
			if err != nil || t < 0 || t >= MaxThreads {
				return nil, fmt.Errorf("explore: bad schedule %q: %q is not a thread number", str, id)
			}
		}
		n := 1
		if found {
			var err error
			if n, err = strconv.Atoi(count); err != nil || n < 1 {
				return nil, fmt.Errorf("explore: bad schedule %q: %q is not a repeat count", str, count)
			}
		}
		for range n {
			s = append(s, t)
		}
	}
	return s, nil
}
