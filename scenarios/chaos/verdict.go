package chaos

import (
	"fmt"

	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Violations lists what the outcomes show a proxy doing that it must not, one line each:
// an error, no recovery after healing or a lost write under any fault; a 404 while the only server serving the GVR is
// still registered (every fault but a graceful stop); no 503 at all while that server
// refuses connections or answers nothing (faults.Unavailable); any failed answer where the
// fault must go unnoticed (faults.Unnoticed, and every fault under a CRD load: Expected),
// nor a request stalled past unnoticedStall; and, for a silent server serving the load
// alone, any answer but 503 after the first. Skipped outcomes measured nothing and break
// nothing.
//
// An answer that began 200 and broke off (Broken200) is reported, not failed: every
// kube-apiserver cuts an answer that outlasts its request timeout after the status was
// sent, proxied or served locally (k8s.io/apiserver pkg/server/filters/timeout.go), and
// the only way around it, holding the status back until the body is whole, is the
// buffering that breaks watches and big lists.
func Violations(outcomes []Outcome) []string {
	var v []string
	for _, o := range outcomes {
		if o.Skipped != "" {
			continue
		}
		at := o.Target + " " + o.Fault
		if o.Error != "" {
			v = append(v, fmt.Sprintf("%s: %s", at, o.Error))
		}
		if o.Unrecovered != "" {
			v = append(v, fmt.Sprintf("%s: %s", at, o.Unrecovered))
		}
		if o.LostWrites > 0 {
			v = append(v, fmt.Sprintf("%s: %d of %d acknowledged writes lost", at, o.LostWrites, o.AckedWrites))
		}
		if o.Spurious404 > 0 {
			v = append(v, fmt.Sprintf("%s: %d spurious 404s while the server was still registered", at, o.Spurious404))
		}
		if Expected(o) == faults.Unnoticed && o.TimeToFirstError >= 0 {
			v = append(v, fmt.Sprintf("%s: clients saw errors (%s) where the fault must go unnoticed, the first %.2f s after it began", at, errorKinds(o.Errors), o.TimeToFirstError))
		}
		if Expected(o) == faults.Unnoticed && o.SlowestAnswer > unnoticedStall {
			v = append(v, fmt.Sprintf("%s: a request of the load took %.1f s where the fault must go unnoticed (more than %.0f s): the front let one client hold up others", at, o.SlowestAnswer, unnoticedStall))
		}
		if Expected(o) == faults.Unavailable && o.TimeTo503 < 0 {
			v = append(v, fmt.Sprintf("%s: no 503 while the server could not answer (answers by status: %v)", at, o.Statuses))
		}
		if faults.Silent(o.Fault) && o.Load == LoadSole && o.Not503AfterFirst > 0 {
			v = append(v, fmt.Sprintf("%s: %d answers other than 503 after the first, while the server stayed registered and silent (held %.1f s)", at, o.Not503AfterFirst, o.Held503))
		}
	}
	return v
}

// unnoticedStall is the longest a request of the load may take while a fault that must go
// unnoticed lasts. Unfaulted, the load's requests take milliseconds here; a front that lets
// a slow client hold others up stalls them for the whole fault.
const unnoticedStall = 5.0
