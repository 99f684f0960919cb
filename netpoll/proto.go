package netpoll

import "github.com/vsched/vsched/internal/pollproto"

// The scheduler's side of the package goes to the kernel through
// internal/pollproto, so that only the kernel can call it.
func init() {
	pollproto.Set(pollproto.Ops[*Poller, *Desc, Mode]{
		New:         newPoller,
		Poll:        (*Poller).poll,
		Expire:      (*Poller).expire,
		Break:       (*Poller).breakPoll,
		Close:       (*Poller).close,
		PrepareWait: (*Desc).prepareWait,
		CommitWait:  (*Desc).commitWait,
		FinishWait:  (*Desc).finishWait,
		CancelWait:  (*Desc).cancelWait,
	})
}
