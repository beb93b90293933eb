package chaos

import (
	"fmt"
	"strings"
)

// Markdown renders outcomes as the table users compare night to night: one row per fault
// and target, so upstream and the reference sit side by side.
func Markdown(outcomes []Outcome) string {
	var b strings.Builder
	b.WriteString("| fault | target | time to 503 | 503 held | time to recover | spurious 404s | 404s after leaving | 404 window | lost writes | reads (statuses) | note |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, o := range outcomes {
		t503 := "none"
		if o.TimeTo503 >= 0 {
			t503 = fmt.Sprintf("%.2f s", o.TimeTo503)
		}
		note := strings.TrimPrefix(o.Error+"; "+o.Unrecovered, "; ")
		note = strings.TrimSuffix(note, "; ")
		if o.Skipped != "" {
			note = "skipped: " + o.Skipped
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f s | %.2f s | %d | %d | %.2f s | %d of %d | %d %v | %s |\n", o.Fault, o.Target, t503, o.Held503, o.TimeToRecover,
			o.Spurious404, o.Left404, o.Window404, o.LostWrites, o.AckedWrites, o.Reads, o.Statuses, note)
	}
	return b.String()
}
