package upgrade_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// Every answer that is not the request's success, outside every window, is a violation,
// whatever its kind, and the table names each kind.
func TestEveryFailureOutsideTheWindowsIsAViolation(t *testing.T) {
	r := &upgrade.Result{Window: 5, Steps: []upgrade.Step{{Hop: 1, Server: "a", Start: 100, End: 110}}}
	failures := []struct {
		status int
		err    string
	}{{500, ""}, {502, ""}, {504, ""}, {0, "dial tcp 10.0.0.1:6443: connect: connection refused"}, {401, ""}, {403, ""}, {429, ""}}
	for i := range 420 {
		f := failures[i%len(failures)]
		kind, status := "read", f.status
		if i%2 == 1 {
			kind = "write"
		}
		r.Events = append(r.Events, upgrade.Event{T: float64(i) / 10, Sent: float64(i)/10 - 0.05, Server: "b", Kind: kind, GVR: "core/v1/configmaps", Status: status, Error: f.err})
	}
	upgrade.Classify(r)
	if len(r.Violations) != 420 || r.Counts.FailedOutside != 420 || r.Counts.FailedInside != 0 {
		t.Fatalf("%d violations, counts %+v; want 420 outside", len(r.Violations), r.Counts)
	}
	table := r.Table()
	for _, kind := range []string{"500", "502", "504", "no answer: refused", "401", "403", "429"} {
		for _, req := range []string{"read", "write"} {
			if row := fmt.Sprintf("| outside every window | %s | %s | b | core/v1/configmaps | 30 | violations |", kind, req); !strings.Contains(table, row) {
				t.Errorf("the table lacks %q:\n%s", row, table)
			}
		}
	}
	if !strings.Contains(r.Violations[3], "no answer: refused for a write of core/v1/configmaps through b at 0.3s, outside every step window") {
		t.Errorf("violation %q does not name the kind, request, server and time", r.Violations[3])
	}
}

// Inside a window only what an upgrade gives there is allowed: its own server's clients get
// no answer, 429s and, for a write, admission's 500; a skewed read through a peer may carry
// the restarting server's 429; any server may answer 404 and 503. A peer's own no answer,
// or a read's 500, is not.
func TestWindowAllowances(t *testing.T) {
	const skewed = "admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	r := &upgrade.Result{Window: 5, ServedBy: map[string][]string{skewed: {"v1.36.3"}},
		Steps: []upgrade.Step{{Hop: 1, Server: "a", Start: 10, End: 20}},
		Events: []upgrade.Event{
			{T: 11, Server: "a", Kind: "write", GVR: "core/v1/configmaps", Error: "read: connection reset by peer"},
			{T: 12, Server: "a", Kind: "read", GVR: "core/v1/configmaps", Status: 429},
			{T: 13, Server: "b", Kind: "read", GVR: skewed, Status: 429},
			{T: 14, Server: "b", Kind: "read", GVR: skewed, Status: 503},
			{T: 15, Server: "a", Kind: "watch-end", Status: 200, Early: true, Error: "unexpected EOF"},
			{T: 24, Server: "b", Kind: "read", GVR: "core/v1/configmaps", Status: 404},
			// Sent in the window, answered after it: subject to it.
			{T: 40, Sent: 24.5, Server: "a", Kind: "read", GVR: "core/v1/configmaps", Error: "context deadline exceeded"},
			{T: 16, Server: "b", Kind: "write", GVR: "core/v1/configmaps", Error: "dial tcp: connect: connection refused"},
			{T: 17, Server: "a", Kind: "read", GVR: "core/v1/configmaps", Status: 500},
			{T: 18, Server: "b", Kind: "read", GVR: "core/v1/configmaps", Status: 429},
			{T: 19, Server: "a", Kind: "write", GVR: "core/v1/configmaps", Status: 500},
		}}
	upgrade.Classify(r)
	if r.Counts.FailedInside != 11 || r.Counts.Disallowed != 3 || len(r.Violations) != 3 {
		t.Fatalf("counts %+v, violations %q; want 11 inside, 3 of them not allowed", r.Counts, r.Violations)
	}
	for i, want := range []string{"no answer: refused for a write of core/v1/configmaps through b at 16.0s", "500 for a read of core/v1/configmaps through a at 17.0s",
		"429 for a read of core/v1/configmaps through b at 18.0s, in the window of a's step (hop 1), where an upgrade never answers that"} {
		if !strings.Contains(r.Violations[i], want) {
			t.Errorf("violation %d %q lacks %q", i, r.Violations[i], want)
		}
	}
	if r.Counts.NotFoundInside != 1 || r.Counts.UnavailableInside != 1 {
		t.Errorf("404 and 503 inside: %+v", r.Counts)
	}
	if table := r.Table(); !strings.Contains(table, "| in a window | watch ended early: closed | watch | a |  | 1 | allowed: its server out |") {
		t.Errorf("the table does not show the watch cut short as allowed:\n%s", table)
	}
}

// judged is a hop of one step of a, with a read of each server outside the windows enough
// times to pass, and the events given.
func judged(events ...upgrade.Event) *upgrade.Result {
	r := &upgrade.Result{Window: 2, Duration: 40, Initial: map[string]string{"a": "v1.35.4", "b": "v1.35.4"},
		Hops:  []upgrade.Hop{{From: "v1.35.4", To: "v1.36.3", Direction: upgrade.Upgrade, Start: 10, End: 20}},
		Steps: []upgrade.Step{{Hop: 1, Server: "a", From: "v1.35.4", To: "v1.36.3", Start: 10, Up: 14, End: 20, Confirmed: "skewcheck restarted it at v1.36.3"}}}
	for i := range 5 {
		for _, s := range []string{"a", "b"} {
			r.Events = append(r.Events, upgrade.Event{T: float64(i), Server: s, Kind: "read", GVR: "core/v1/configmaps", Status: 200},
				upgrade.Event{T: float64(30 + i), Server: s, Kind: "read", GVR: "core/v1/configmaps", Status: 200})
		}
	}
	r.Events = append(r.Events, upgrade.Event{T: 15, Server: "a", Kind: "watch-end", Error: "connection refused"}, upgrade.Event{T: 16, Server: "a", Kind: "watch-resume", Status: 200})
	r.Events = append(r.Events, events...)
	return r
}

// An upgrade in which every write failed, where writes may fail, proves nothing: it fails.
func TestAnUpgradeWithNoAcknowledgedWriteFails(t *testing.T) {
	passing := judged(upgrade.Event{T: 25, Server: "b", Kind: "write", GVR: "core/v1/configmaps", Status: 201, Name: "w1"})
	upgrade.Judge(passing)
	if !passing.Passed() || passing.Counts.AckedWrites != 1 {
		t.Fatalf("with a write acknowledged: violations %q, counts %+v", passing.Violations, passing.Counts)
	}
	r := judged(upgrade.Event{T: 12, Server: "a", Kind: "write", GVR: "core/v1/configmaps", Error: "connection refused"})
	upgrade.Judge(r)
	if len(r.Violations) != 1 || !strings.Contains(r.Violations[0], "hop 1 (v1.35.4 -> v1.36.3): no write was acknowledged") || len(r.Hops[0].Violations) != 1 {
		t.Errorf("violations %q; want the hop's writes missing", r.Violations)
	}
}

// Each server must have served reads outside the windows: silence is no pass.
func TestEveryServerNeedsReadsOutsideTheWindows(t *testing.T) {
	r := judged(upgrade.Event{T: 25, Server: "b", Kind: "write", GVR: "core/v1/configmaps", Status: 201, Name: "w1"})
	r.Initial["c"] = "v1.35.4"
	upgrade.Judge(r)
	if len(r.Violations) != 1 || !strings.Contains(r.Violations[0], "c gave 0 successful reads outside every window, fewer than 5") {
		t.Errorf("violations %q; want c's missing reads", r.Violations)
	}
}

// Classifying a run again (a saved one, with another window) counts each answer once: the
// counts are the events', not added to what an earlier classification counted.
func TestClassifyAgainCountsOnce(t *testing.T) {
	r := &upgrade.Result{Window: 5, Steps: []upgrade.Step{{Hop: 1, Server: "a", Start: 10, End: 12}},
		Events: []upgrade.Event{{T: 1, Server: "a", Kind: "read", Status: 404}, {T: 11, Server: "a", Kind: "read", Status: 503},
			{T: 11, Server: "a", Kind: "write", Status: 201, Name: "w"}, {T: 13, Server: "a", Kind: "watch-resume", Status: 200}}}
	upgrade.Classify(r)
	once := r.Counts
	upgrade.Classify(r)
	if fmt.Sprint(r.Counts) != fmt.Sprint(once) {
		t.Errorf("classified twice: %+v, once: %+v", r.Counts, once)
	}
}
