package upgrade_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// roundTrip is an upgrade and its downgrade of two servers, a and b: versions change at
// each step's Up, and only v1.36.3 serves mutatingadmissionpolicies.
func roundTrip() *upgrade.Result {
	const map36 = "admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	return &upgrade.Result{Path: []string{"v1.35.4", "v1.36.3", "v1.35.4"}, Window: 2, Duration: 80, Servers: 2,
		Hops: []upgrade.Hop{{From: "v1.35.4", To: "v1.36.3", Direction: upgrade.Upgrade, Start: 10, End: 30},
			{From: "v1.36.3", To: "v1.35.4", Direction: upgrade.Downgrade, Start: 50, End: 70, Gone: []string{map36}}},
		Steps: []upgrade.Step{
			{Hop: 1, Server: "a", From: "v1.35.4", To: "v1.36.3", Start: 10, Up: 14, End: 18},
			{Hop: 1, Server: "b", From: "v1.35.4", To: "v1.36.3", Start: 20, Up: 24, End: 30},
			{Hop: 2, Server: "a", From: "v1.36.3", To: "v1.35.4", Start: 50, Up: 54, End: 58},
			{Hop: 2, Server: "b", From: "v1.36.3", To: "v1.35.4", Start: 60, Up: 64, End: 70}},
		ServedBy: map[string][]string{map36: {"v1.36.3"}},
		Kept: []upgrade.Kept{{GVR: map36, Name: "k1", Hop: 1, Server: "a", Version: "v1.36.3", Reads: []upgrade.KeptRead{
			{Hop: 1, Server: "a", Status: 200}, {Hop: 1, Server: "b", Status: 200},
			{Hop: 2, Server: "a", Status: 404, Unserved: true}, {Hop: 2, Server: "b", Status: 404, Unserved: true}}}},
		Events: []upgrade.Event{
			{T: 5, Server: "a", Kind: "read", GVR: "core/v1/configmaps", Status: 200},
			{T: 22, Server: "b", Kind: "read", GVR: map36, Status: 200}, // b still 1.35.4: rerouted
			{T: 26, Server: "b", Kind: "read", GVR: map36, Status: 200}, // b up at 1.36.3: its own
			{T: 27, Server: "a", Kind: "read", GVR: map36, Status: 200},
			{T: 40, Server: "a", Kind: "write", GVR: "core/v1/configmaps", Status: 201, Name: "w1", Lost: true},
			{T: 53, Server: "a", Kind: "watch-end", Status: 0},
			{T: 55, Server: "a", Kind: "watch-resume", Status: 200},
			{T: 62, Server: "a", Kind: "read", GVR: map36, Status: 200}, // a back at 1.35.4: rerouted to b
			{T: 66, Server: "b", Kind: "read", GVR: map36, Status: 404}, // nobody serves it any more
			{T: 75, Server: "b", Kind: "read", GVR: "core/v1/configmaps", Status: 404},
		}}
}

func tally(t *testing.T, r *upgrade.Result, period, class string) upgrade.Tally {
	t.Helper()
	for _, p := range r.Periods {
		if p.Name == period {
			if c := p.Classes[class]; c != nil {
				return *c
			}
			return upgrade.Tally{}
		}
	}
	t.Fatalf("no period %q among %+v", period, r.Periods)
	return upgrade.Tally{}
}

// Every class of request is counted in every step, every hop's mixed window and outside;
// a read is rerouted when the server's version at the time does not serve its GVR.
func TestPeriodsCountEveryClassPerStepAndMixedWindow(t *testing.T) {
	r := roundTrip()
	upgrade.Classify(r)
	for _, c := range []struct {
		period, class string
		want          upgrade.Tally
	}{
		{"hop 1 step b", upgrade.ClassSkewedRead, upgrade.Tally{Requests: 3, Rerouted: 1}},
		{"hop 1 step a", upgrade.ClassSkewedRead, upgrade.Tally{}},
		{"hop 1 mixed v1.35.4 -> v1.36.3", upgrade.ClassSkewedRead, upgrade.Tally{Requests: 3, Rerouted: 1}},
		{"hop 2 step a", upgrade.ClassWatch, upgrade.Tally{Requests: 1, NoAnswer: 1, Resumes: 1}},
		{"hop 2 step b", upgrade.ClassSkewedRead, upgrade.Tally{Requests: 2, Rerouted: 1, NotFound: 1}},
		{"hop 2 mixed v1.36.3 -> v1.35.4", upgrade.ClassSkewedRead, upgrade.Tally{Requests: 2, Rerouted: 1, NotFound: 1}},
		{"hop 2 mixed v1.36.3 -> v1.35.4", upgrade.ClassWatch, upgrade.Tally{Requests: 1, NoAnswer: 1, Resumes: 1}},
		{"outside the windows", upgrade.ClassRead, upgrade.Tally{Requests: 2, NotFound: 1}},
		{"outside the windows", upgrade.ClassWrite, upgrade.Tally{Requests: 1, Lost: 1}},
	} {
		if got := tally(t, r, c.period, c.class); got != c.want {
			t.Errorf("%s, %s: %+v, want %+v", c.period, c.class, got, c.want)
		}
	}
	if r.Counts.NotFoundInside != 1 || r.Counts.NotFoundOutside != 1 {
		t.Errorf("counts %+v", r.Counts)
	}
	// The 404 outside every window happened after the downgrade began: it is that hop's.
	if len(r.Violations) != 1 || len(r.Hops[0].Violations) != 0 || len(r.Hops[1].Violations) != 1 {
		t.Errorf("violations %q, by hop %q and %q", r.Violations, r.Hops[0].Violations, r.Hops[1].Violations)
	}
	table := r.Table()
	for _, w := range []string{"hop 2, downgrade v1.36.3 -> v1.35.4: mixed window 50.0s to 70.0s (20.0s), 1 violations",
		"no longer served by any server: admissionregistration.k8s.io/v1/mutatingadmissionpolicies",
		"| hop 2 step b | skewed-read | 2 | 1 | 0 | 0 | 1 | 0 | 0 | 0 |",
		"  kept admissionregistration.k8s.io/v1/mutatingadmissionpolicies: 1 objects written at v1.36.3, read through every server: 200 ×2\n",
		"  kept admissionregistration.k8s.io/v1/mutatingadmissionpolicies: 1 objects written at v1.36.3, read through every server: 404 (no server serves it) ×2\n"} {
		if !strings.Contains(table, w) {
			t.Errorf("table lacks %q:\n%s", w, table)
		}
	}
}

// The timeline shows every hop, which way it went, and the path in its title.
func TestTimelineShowsEveryHop(t *testing.T) {
	r := roundTrip()
	upgrade.Classify(r)
	svg := r.SVG()
	var doc struct{ XMLName xml.Name }
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("the timeline is not an SVG document: %v", err)
	}
	for _, w := range []string{"v1.35.4 → v1.36.3 → v1.35.4", "hop 1, upgrade v1.35.4 → v1.36.3", "hop 2, downgrade v1.36.3 → v1.35.4: 1 violations", "downgrade hop"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the timeline lacks %q", w)
		}
	}
}
