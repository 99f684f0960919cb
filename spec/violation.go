package spec

import "fmt"

// Violation reports a broken invariant of the specification.
type Violation struct {
	// Invariant names the property, as in the runtime reference, section 7
	// (for example "conservation" or "steal amount").
	Invariant string
	// Detail says what was observed.
	Detail string
}

// Error names the invariant and says what was observed.
func (v *Violation) Error() string {
	return fmt.Sprintf("spec: invariant %q violated: %s", v.Invariant, v.Detail)
}

func violation(invariant, format string, args ...any) *Violation {
	return &Violation{Invariant: invariant, Detail: fmt.Sprintf(format, args...)}
}
