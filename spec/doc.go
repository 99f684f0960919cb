// Package spec is the executable sequential specification that every
// verifier checks the scheduler against: plain Go state machines, small
// enough to read in one sitting, with the same operation names as the code
// they specify, so the two can be read side by side.
//
//   - [Queue] specifies runq.Queue: a FIFO ring with a capacity plus a
//     runnext slot (the runtime's runqput, runqputbatch, runqget,
//     runqdrain, runqgrab, runqsteal, runqempty).
//   - [Global] specifies runq.Global: an unbounded FIFO with the fair-share
//     batch of globrunqgetbatch.
//   - [Coprimes] and [Visit] specify steal.Order (randomOrder).
//   - [Scheduler] specifies the kernel's task life cycle, as a run with one
//     M at a time sees it: runnable, running, waiting, dead; Ctx.Go into
//     runnext with inheritTime; Yield to the global tail; Park committed at
//     the end of the run, and a Wake that comes first making the task run
//     again at once; findRunnable's order with the 61-tick global check.
//   - [Groups] specifies task groups (kernel.Group and Ctx.Join): the
//     pending count, the first error, the limit's FIFO queue and active
//     count, Join continuations (each starts once, when the joined group
//     is done, and belongs to the joining task's group) and Wait.
//   - [Ledger] and the Check functions are the invariants of the runtime
//     reference, section 7, as executable checks that return a [*Violation]
//     naming the invariant.
//
// # Nondeterminism
//
// A sequential model cannot decide alone what a concurrent steal takes. A
// thief reads head and then tail at two different moments, so the length L
// it computes half of may be any length the ring had during the operation,
// which can be less than the length at the moment its CAS commits. The
// specification makes that choice explicit: [Queue.Grab] takes the observed
// length as an argument and removes the oldest L - L/2 ring items, or
// runnext when the ring looked empty (L == 0) and runnext stealing was asked
// for. A caller that knows L (a sequential test knows it exactly) supplies
// it; a checker that does not enumerates [Queue.GrabOutcomes].
//
// This package imports nothing of the implementation.
package spec
