//go:build vsched_explore

package explorer

import (
	"fmt"
	"strconv"
	"strings"
)

// A schedule string lists the thread chosen at each decision of an
// execution, run-length encoded: "0:12,1:3,0" is T0 for 12 decisions, T1
// for 3, then T0 once.
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
		b.WriteString(strconv.Itoa(s[i]))
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
		t, err := strconv.Atoi(id)
		if err != nil || t < 0 || t >= MaxThreads {
			return nil, fmt.Errorf("explore: bad schedule %q: %q is not a thread number", str, id)
		}
		n := 1
		if found {
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
