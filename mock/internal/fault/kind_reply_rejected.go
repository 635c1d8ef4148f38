package fault

import "fmt"

// replyRejectedKind plays answers that moderation turns down after they
// were sent: at each hit, the Reject newest answered reviews of the
// list lose their answer (answer_state "rejected", the text kept), so
// they are unanswered again, and every later read shows it.
var replyRejectedKind = Kind{
	Name:  "reply_rejected",
	in:    func(f *Fault) bool { return f.ReplyRejected != nil },
	check: func(f *Fault, p *problems) { f.ReplyRejected.check(p) },
	label: func(f *Fault) string { return fmt.Sprintf("reply_rejected %d", f.ReplyRejected.Reject) },
	live: func(f *Fault, hits int, _ bool, l Live) string {
		ids := l.Reject(min(f.ReplyRejected.Reject*hits, MaxDrift))
		if len(ids) == 0 {
			return ""
		}
		return fmt.Sprintf("reply_rejected: %d answers rejected so far (ids %s)", len(ids), idWords(ids))
	},
}

// ReplyRejected is how many answers moderation turns down at each hit.
type ReplyRejected struct {
	Reject int `json:"reject" yaml:"reject"` // of the newest answered reviews
}

func (r *ReplyRejected) check(p *problems) {
	if r.Reject < 1 || r.Reject > maxDriftStep {
		p.add("reply_rejected.reject", "must be from 1 to %d, got %d", maxDriftStep, r.Reject)
	}
}
