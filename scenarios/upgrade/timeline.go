package upgrade

import (
	"cmp"
	"fmt"
	"html"
	"sort"
	"strings"
)

// SVG draws the run: one row per server, one tick per answer coloured by outcome, the
// steps as shaded spans (darker: the step; lighter: the declared window after it), each
// hop's mixed window as a bar above the rows (green: an upgrade; purple: a downgrade), and
// any fault injected during a step on its server's row.
// A reader sees at a glance where every kind of failure fell relative to the steps and
// hops, and where a server was unready without restarting (a readiness gap).
func (r *Result) SVG() string {
	servers := map[string]bool{}
	for _, e := range r.Events {
		servers[e.Server] = true
	}
	var names []string
	for s := range servers {
		names = append(names, s)
	}
	sort.Strings(names)
	const left, width, rowH, top = 110.0, 900.0, 34.0, 56.0
	height := top + rowH*float64(len(names)) + 102
	total := r.Duration
	if total <= 0 {
		total = 1
	}
	x := func(t float64) float64 { return left + width*t/total }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", left+width+20, height)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14">Rolling restarts %s, %d servers, seed %d: %s</text>`+"\n",
		html.EscapeString(strings.Join(r.path(), " → ")), r.Servers, r.Seed, verdict(r))
	for i, h := range r.Hops {
		fill := "#74c476"
		if h.Direction == Downgrade {
			fill = "#9e9ac8"
		}
		label := fmt.Sprintf("hop %d, %s %s → %s", i+1, h.Direction, h.From, h.To)
		if len(h.Violations) > 0 {
			label += fmt.Sprintf(": %d violations", len(h.Violations))
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="28" width="%.1f" height="16" fill="%s" opacity="0.6"><title>mixed window %.1fs to %.1fs</title></rect>`+"\n",
			x(h.Start), x(h.End)-x(h.Start), fill, h.Start, h.End)
		fmt.Fprintf(&b, `<text x="%.1f" y="40" font-size="11">%s</text>`+"\n", x(h.Start)+3, html.EscapeString(label))
	}
	bottom := top + rowH*float64(len(names))
	for i, s := range r.Steps {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="#9ecae1" opacity="0.5"/>`+"\n", x(s.Start), top, x(s.End)-x(s.Start), bottom-top)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="#deebf7" opacity="0.5"/>`+"\n", x(s.End), top, x(s.End+r.Window)-x(s.End), bottom-top)
		// Labels take three lines in turn: a short step's label would cover the next one's.
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="10">%s → %s</text>`+"\n", x(s.Start), bottom+14+12*float64(i%3), html.EscapeString(s.Server), html.EscapeString(s.To))
	}
	for _, f := range r.Faults {
		for i, n := range names {
			if n == f.Server {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="#fcbba1" opacity="0.8"><title>%s</title></rect>`+"\n",
					x(f.Start), top+rowH*float64(i), x(f.End)-x(f.Start), rowH, html.EscapeString(f.Description))
			}
		}
	}
	for _, g := range r.Gaps {
		for i, n := range names {
			if n == g.Server {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="none" stroke="#d95f0e" stroke-dasharray="4 2"><title>readiness gap, not a restart: %s</title></rect>`+"\n",
					x(g.Start), top+rowH*float64(i)+1, x(g.End)-x(g.Start), rowH-2, html.EscapeString(g.Why))
			}
		}
	}
	for i, n := range names {
		y := top + rowH*float64(i)
		fmt.Fprintf(&b, `<text x="10" y="%.0f">%s</text>`+"\n", y+rowH/2+4, html.EscapeString(n))
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#ccc"/>`+"\n", left, y+rowH, left+width, y+rowH)
	}
	row := map[string]int{}
	for i, n := range names {
		row[n] = i
	}
	for _, e := range r.Events {
		kind := failure(e)
		if e.Kind != "read" && e.Kind != "write" && e.Kind != "watch-resume" && kind == "" {
			continue // a watch's routine end
		}
		y := top + rowH*float64(row[e.Server]) + 4
		h := rowH - 8
		if e.Kind == "watch-resume" {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#6a51a3"/>`+"\n", x(e.T), y+h/2)
			continue
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="1.5" height="%.1f" fill="%s"><title>%s %s %s at %.2fs</title></rect>`+"\n",
			x(e.T), y, h, colour(kind), e.Kind, html.EscapeString(e.GVR), html.EscapeString(cmp.Or(kind, fmt.Sprint(e.Status))), e.T)
	}
	legend := []struct{ c, t string }{{colour(""), "success"}, {colour("404"), "404"}, {colour("503"), "503"}, {colour("429"), "429"},
		{colour("403"), "other 4xx"}, {colour("500"), "other 5xx"}, {colour(NoAnswer), "no answer"}, {colour(EndedEarly), "watch cut short"},
		{"#6a51a3", "watch resumed"}, {"#9ecae1", "step"}, {"#deebf7", "convergence window"}, {"#fcbba1", "fault"},
		{"#d95f0e", "readiness gap (dashed)"}, {"#74c476", "upgrade hop"}, {"#9e9ac8", "downgrade hop"}}
	for i, l := range legend {
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="10" height="10" fill="%s"/><text x="%d" y="%.0f">%s</text>`+"\n", 10+(i%5)*180, height-42+12*float64(i/5), l.c, 24+(i%5)*180, height-33+12*float64(i/5), l.t)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// colour is a tick's, by the answer's failure ("" for a success).
func colour(kind string) string {
	switch {
	case kind == "":
		return "#31a354"
	case kind == "404":
		return "#de2d26"
	case kind == "503":
		return "#fd8d3c"
	case kind == "429":
		return "#fed976"
	case strings.HasPrefix(kind, "4"):
		return "#e7298a"
	case strings.HasPrefix(kind, "5"):
		return "#67000d"
	case strings.HasPrefix(kind, EndedEarly):
		return "#525252"
	}
	return "#969696" // no answer
}

func verdict(r *Result) string {
	if r.Passed() {
		return "passed"
	}
	return fmt.Sprintf("%d violations", len(r.Violations))
}

// path is the run's versions, also for a result of before paths (From and To).
func (r *Result) path() []string {
	if len(r.Path) > 0 {
		return r.Path
	}
	return []string{r.From, r.To}
}
