package chaos

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Markdown renders outcomes as the table users compare night to night: one row per fault
// and target, so upstream and the reference sit side by side.
func Markdown(outcomes []Outcome) string {
	var b strings.Builder
	b.WriteString("| fault | target | time to first error | error kinds | time to 503 | 503 held | time to recover | spurious 404s | 404s after leaving | 404 window | lost writes | reads (statuses) | note |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, o := range outcomes {
		t503, tErr := seconds(o.TimeTo503), seconds(o.TimeToFirstError)
		note := strings.TrimPrefix(o.Error+"; "+o.Unrecovered, "; ")
		note = strings.TrimSuffix(note, "; ")
		if len(o.Observed) > 0 {
			note = strings.TrimPrefix(fmt.Sprintf("%s; slowest request of the load %.1f s; %s", note, o.SlowestAnswer, strings.Join(o.Observed, "; ")), "; ")
		}
		if o.Skipped != "" {
			note = "skipped: " + o.Skipped
		}
		fault := o.Fault
		if o.Load != LoadSole {
			fault += " (" + o.Load + " load)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.1f s | %.2f s | %d | %d | %.2f s | %d of %d | %d %v | %s |\n", fault, o.Target, tErr, errorKinds(o.Errors), t503, o.Held503, o.TimeToRecover,
			o.Spurious404, o.Left404, o.Window404, o.LostWrites, o.AckedWrites, o.Reads, o.Statuses, note)
	}
	return b.String()
}

// seconds is a time from injection, or "none" when the thing never came (-1).
func seconds(s float64) string {
	if s < 0 {
		return "none"
	}
	return fmt.Sprintf("%.2f s", s)
}

// errorKinds lists the kinds of failed answers with their counts, most first.
func errorKinds(errs map[string]int) string {
	if len(errs) == 0 {
		return "none"
	}
	kinds := slices.SortedFunc(maps.Keys(errs), func(a, b string) int {
		if errs[a] != errs[b] {
			return errs[b] - errs[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s ×%d", k, errs[k])
	}
	return strings.Join(parts, ", ")
}
