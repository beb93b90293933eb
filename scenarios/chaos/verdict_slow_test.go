package chaos

import (
	"strings"
	"testing"
)

// A fault that must go unnoticed may not stall the load either; a 200 that broke off is
// reported in the table's note, never a violation by itself.
func TestSlowVerdicts(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Fault: "slow-client", TimeToFirstError: -1, TimeTo503: -1, SlowestAnswer: 0.04}, ""},
		{Outcome{Fault: "slow-client", TimeToFirstError: -1, TimeTo503: -1, SlowestAnswer: 8.05}, "took 8.1 s"},
		{Outcome{Fault: "latency", TimeToFirstError: -1, TimeTo503: -1, SlowestAnswer: 8}, ""},
		{Outcome{Fault: "slow-body", TimeToFirstError: -1, TimeTo503: -1, Broken200: 1, Observed: []string{"a list ... broke off"}}, ""},
	} {
		c.o.Target = "upstream"
		v := Violations([]Outcome{c.o})
		if c.want == "" && len(v) > 0 || c.want != "" && (len(v) != 1 || !strings.Contains(v[0], c.want)) {
			t.Errorf("%+v: violations %q, want %q", c.o, v, c.want)
		}
	}
}

func TestTableNotesWhatTheFaultSaw(t *testing.T) {
	md := Markdown([]Outcome{{Target: "reference", Fault: "slow-client", TimeTo503: -1, TimeToFirstError: -1, SlowestAnswer: 0.02,
		Observed: []string{"slow headers: 8 of 8 cut after 30.0-30.0 s (closed)"}}})
	if !strings.Contains(md, "| slowest request of the load 0.0 s; slow headers: 8 of 8 cut after 30.0-30.0 s (closed) |") {
		t.Errorf("the note must carry the fault's own figures:\n%s", md)
	}
}
