package chaos

import (
	"strings"
	"testing"
)

// Under a CRD load every fault on the CRD's origin must go unnoticed: an error is a
// violation even for a fault whose own expectation is a 503 (crash) or nothing (stop), and
// a silent fault's "503 after the first" rule no longer applies, the 503 itself being wrong.
func TestCRDLoadExpectsUnnoticed(t *testing.T) {
	quiet := Outcome{Target: "upstream", Load: LoadCRD, TimeTo503: -1, TimeToFirstError: -1, Statuses: map[int]int{200: 40}}
	for _, fault := range []string{"crash", "freeze", "stop", "partition"} {
		o := quiet
		o.Fault = fault
		if v := Violations([]Outcome{o}); len(v) != 0 {
			t.Errorf("%s under a CRD load, every read 200: violations %q, want none", fault, v)
		}
	}
	proxied := Outcome{Target: "reference", Fault: "freeze", Load: LoadCRD, TimeTo503: 2, TimeToFirstError: 2, Not503AfterFirst: 0,
		Errors: map[string]int{"503": 30}, Statuses: map[int]int{200: 10, 503: 30}}
	v := Violations([]Outcome{proxied})
	if len(v) != 1 || !strings.Contains(v[0], "must go unnoticed") || !strings.Contains(v[0], "503 ×30") {
		t.Errorf("a frozen origin's CRs answered 503: violations %q, want one saying the fault must go unnoticed", v)
	}
	if md := Markdown([]Outcome{proxied}); !strings.Contains(md, "| freeze (crd load) | reference |") {
		t.Errorf("the table does not name the load:\n%s", md)
	}
	if got := Expected(Outcome{Fault: "crash"}); got != "503" {
		t.Errorf("a crash of a sole server expects %q, want 503", got)
	}
	if got := Expected(Outcome{Fault: "crash", Load: LoadAggregated}); got != Expected(Outcome{Fault: "crash", Load: LoadCRD}) {
		t.Errorf("a crash of the server an aggregated API was registered through expects %q, want what a CRD's origin's crash expects", got)
	}
}
