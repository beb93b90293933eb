package upgrade

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Table is the periods' counts as a Markdown table: a row per period and class of request
// that had any, with the hops and steps above it. It is what the command prints and what
// docs quote.
func (r *Result) Table() string {
	var b strings.Builder
	for i, h := range r.Hops {
		verdict := "passed"
		if len(h.Violations) > 0 {
			verdict = fmt.Sprintf("%d violations", len(h.Violations))
		}
		fmt.Fprintf(&b, "hop %d, %s %s -> %s: mixed window %.1fs to %.1fs (%.1fs), %s\n", i+1, h.Direction, h.From, h.To, h.Start, h.End, h.End-h.Start, verdict)
		for _, s := range r.Steps {
			if s.Hop == i+1 {
				if s.Unconverged != "" {
					fmt.Fprintf(&b, "  %s: up at %s after %.1fs, ended after %.1fs NOT CONVERGED: %s\n", s.Server, s.To, s.Up-s.Start, s.End-s.Start, s.Unconverged)
					continue
				}
				fmt.Fprintf(&b, "  %s: up at %s after %.1fs, converged after %.1fs\n", s.Server, s.To, s.Up-s.Start, s.End-s.Start)
			}
		}
		if len(h.Gone) > 0 {
			fmt.Fprintf(&b, "  no longer served by any server: %s\n", strings.Join(h.Gone, ", "))
		}
		if len(h.Added) > 0 {
			fmt.Fprintf(&b, "  newly served: %s\n", strings.Join(h.Added, ", "))
		}
		for _, line := range r.keptAfter(i + 1) {
			fmt.Fprintf(&b, "  kept %s\n", line)
		}
	}
	for _, line := range r.ownersText() {
		fmt.Fprintln(&b, line)
	}
	for _, g := range r.Gaps {
		fmt.Fprintf(&b, "readiness gap, not a restart: %s unready %.1fs to %.1fs: %s\n", g.Server, g.Start, g.End, g.Why)
	}
	b.WriteString("\n| period | class | requests | 404 | 503 | no answer | rerouted | lost writes | watch resumes | relists | other failures |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Periods {
		for _, c := range Classes {
			t := p.Classes[c]
			if t == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", p.Name, c, t.Requests, t.NotFound, t.Unavailable, t.NoAnswer, t.Rerouted, t.Lost, t.Resumes, t.Relists, t.Other)
		}
	}
	b.WriteString(r.failureTable())
	return b.String()
}

// failureTable lists every kind of failed answer, by request, server and GVR: outside the
// windows (violations), inside them and not allowed there (violations), and allowed.
func (r *Result) failureTable() string {
	if len(r.Failures) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nfailed answers (not a read's 200, a write's 201, a watch's stream to its timeout), by kind:\n\n")
	b.WriteString("| where | kind | request | server | gvr | answers | verdict |\n|---|---|---|---|---|---|---|\n")
	for _, f := range r.Failures {
		where, verdict := "outside every window", "violations"
		if f.Inside {
			where = "in a window"
			if f.Allowed != "" {
				verdict = "allowed: " + f.Allowed
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %s |\n", where, f.Kind, f.Request, f.Server, f.GVR, f.Count, verdict)
	}
	return b.String()
}

// keptAfter sums up the reads of kept objects after a hop, one line per GVR: "<gvr>: 4
// objects written at v1.35.4, v1.36.3, read through every server: 200 ×12".
func (r *Result) keptAfter(hop int) []string {
	type sum struct {
		objects  int
		versions []string
		statuses map[string]int
	}
	sums := map[string]*sum{}
	var order []string
	for _, k := range r.Kept {
		read := false
		for _, rd := range k.Reads {
			if rd.Hop != hop {
				continue
			}
			s := sums[k.GVR]
			if s == nil {
				s = &sum{statuses: map[string]int{}}
				sums[k.GVR] = s
				order = append(order, k.GVR)
			}
			status := fmt.Sprint(rd.Status)
			if rd.Unserved {
				status += " (no server serves it)"
			}
			s.statuses[status]++
			read = true
		}
		if s := sums[k.GVR]; read {
			s.objects++
			if !slices.Contains(s.versions, k.Version) {
				s.versions = append(s.versions, k.Version)
			}
		}
	}
	var out []string
	for _, g := range order {
		s := sums[g]
		var st []string
		for _, k := range slices.Sorted(maps.Keys(s.statuses)) {
			st = append(st, fmt.Sprintf("%s ×%d", k, s.statuses[k]))
		}
		out = append(out, fmt.Sprintf("%s: %d objects written at %s, read through every server: %s", g, s.objects, strings.Join(s.versions, ", "), strings.Join(st, ", ")))
	}
	return out
}
