package chaos

import (
	"strings"
	"testing"
)

func TestViolations(t *testing.T) {
	cases := []struct {
		name string
		o    Outcome
		want []string // substrings, one per expected violation
	}{
		{"a held freeze is fine", Outcome{Fault: "freeze", TimeTo503: 2, Held503: 60}, nil},
		{"a graceful stop may 404", Outcome{Fault: "stop", TimeTo503: -1, Left404: 9}, nil},
		{"latency need not 503", Outcome{Fault: "latency", TimeTo503: -1}, nil},
		{"skipped measures nothing", Outcome{Fault: "blackhole", TimeTo503: -1, Skipped: "bypassed"}, nil},
		{"frozen then forgotten", Outcome{Fault: "freeze", TimeTo503: 2, Spurious404: 40, Not503AfterFirst: 40},
			[]string{"40 spurious 404s", "40 answers other than 503"}},
		{"crash never 503", Outcome{Fault: "crash", TimeTo503: -1, Statuses: map[int]int{0: 5}}, []string{"no 503"}},
		{"lost write and error", Outcome{Fault: "reset", TimeTo503: -1, LostWrites: 1, AckedWrites: 3, Error: "no 200 within 2m0s of healing"},
			[]string{"no 200 within", "1 of 3 acknowledged writes lost"}},
	}
	for _, c := range cases {
		c.o.Target = "reference"
		got := Violations([]Outcome{c.o})
		if len(got) != len(c.want) {
			t.Errorf("%s: %d violations %q, want %d", c.name, len(got), got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) || !strings.HasPrefix(got[i], "reference "+c.o.Fault+": ") {
				t.Errorf("%s: violation %q, want one naming the target and fault and saying %q", c.name, got[i], w)
			}
		}
	}
}
