package chaos

import (
	"fmt"

	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Violations lists what the outcomes show a proxy doing that it must not, one line each:
// an error, no recovery after healing or a lost write under any fault; a 404 while the only server serving the GVR is
// still registered (every fault but a graceful stop); no 503 at all while that server
// refuses connections or answers nothing; and, for a silent server, any answer but 503
// after the first. Skipped outcomes measured nothing and break nothing.
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
		if mustAnswer503(o.Fault) && o.TimeTo503 < 0 {
			v = append(v, fmt.Sprintf("%s: no 503 while the server could not answer (answers by status: %v)", at, o.Statuses))
		}
		if faults.Silent(o.Fault) && o.Not503AfterFirst > 0 {
			v = append(v, fmt.Sprintf("%s: %d answers other than 503 after the first, while the server stayed registered and silent (held %.1f s)", at, o.Not503AfterFirst, o.Held503))
		}
	}
	return v
}

// mustAnswer503: under these faults no request can reach the server, which stays
// registered, so a proxy has no honest answer but 503.
func mustAnswer503(fault string) bool {
	switch fault {
	case "crash", "refused", "partition":
		return true
	}
	return faults.Silent(fault)
}
