package matrix

import (
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/report"
)

// Failures as a run's report gives them ("failed: <gomega's message> (at file:line)"), in
// the shapes the suites' assertions print: a probe's response under framework's matchers,
// a status compared alone, a user name under Equal.
const (
	denied200 = "failed: the unprivileged user must be denied through peerproxy-apiserver-1 as by peerproxy-apiserver-2 directly\n" +
		"Expected a JSON Status 403 Forbidden, got:\n" +
		"    <framework.Response>: GET /apis/batch/v1/namespaces/x/jobs via peerproxy-apiserver-1: HTTP 200 application/json (6ms) {\"kind\":\"JobList\"}\n" +
		"            audit ID skewcheck-3db8, headers map[Audit-Id:[skewcheck-3db8]] (at /work/main/suites/mvp/identity.go:22)"
	denied503 = "failed: the unprivileged user must be denied through peerproxy-apiserver-1 as by peerproxy-apiserver-2 directly\n" +
		"Expected a JSON Status 403 Forbidden, got:\n" +
		"    <framework.Response>: GET /apis/batch/v1/namespaces/x/jobs via peerproxy-apiserver-1: HTTP 503 text/plain (6ms) error trying to reach service\n" +
		"            audit ID skewcheck-3db8, headers map[] (at /work/main/suites/mvp/identity.go:22)"
	deniedTimeout = "failed: the unprivileged user must be denied through peerproxy-apiserver-1 as by peerproxy-apiserver-2 directly\n" +
		"Expected a JSON Status 403 Forbidden, got:\n" +
		"    <framework.Response>: GET /apis/batch/v1/namespaces/x/jobs via peerproxy-apiserver-1: error context deadline exceeded\n" +
		"            audit ID skewcheck-3db8, headers map[] (at /work/main/suites/mvp/identity.go:22)"
	// The description prints the response too (HTTP 200): only the actual, under Expected, counts.
	anonymous = "failed: anonymous through peerproxy-apiserver-1 should be answered as directly at peerproxy-apiserver-2: GET /apis/x via peerproxy-apiserver-1: HTTP 200 application/json (4ms) {}\n" +
		"Expected\n    <int>: 401\nto equal\n    <int>: 403 (at /work/main/suites/mvp/identity.go:165)"
	userAtPeer = "failed: user at the peer\nExpected\n    <string>: skewcheck-admin\nto equal\n    <string>: skewcheck-user (at /work/main/suites/mvp/identity.go:62)"
	// The expected value holds the part a claim looks for: it is not the observed one.
	userExpected = "failed: user at the peer\nExpected\n    <string>: system:anonymous\nto equal\n    <string>: skewcheck-admin (at x.go:1)"
	uidEmpty     = "failed: UID the upstream sees through the gateway for the token (directly: \"abc\")\nExpected\n    <string>: \nto equal\n    <string>: abc (at x.go:1)"
	noExpected   = "failed: requests through the gateway never answered 200 within 10s: 3 of 40 failed (at x.go:1)"
	timedOut     = "timedout: A spec timeout occurred (at x.go:1)"
	refused      = "failed: with ipMode VIP, the NodePort must serve a client outside the node: request 1 of 10 failed: GET http://198.18.0.2:31064/: connection refused\n" +
		"Unexpected error:\n    <*url.Error | 0x6cc65783500>: \n    Get \"http://198.18.0.2:31064/\": dial tcp 198.18.0.2:31064: connect: connection refused\n    {\n        Op: \"Get\",\n    }\noccurred (at x.go:1)"
	timeoutErr = "failed: with ipMode VIP, the NodePort must serve a client outside the node: request 1 of 10 failed: connection refused\n" +
		"Unexpected error:\n    <*url.Error | 0x6cc65783500>: \n    Get \"http://198.18.0.2:31064/\": context deadline exceeded\noccurred (at x.go:1)"
	// An endpoint name with words in it (a server name the probe asked for).
	asServerName = "failed: a request with the server name unknown.gateway.test, which no UpstreamCluster lists: the gateway answers it\n" +
		"Expected HTTP 503, got:\n    <framework.Response>: GET /api/v1/configmaps via gateway as unknown.gateway.test: HTTP 200 application/json (8ms) {}\n" +
		"            audit ID x, headers map[] (at x.go:1)"
	// A status compared with BeNumerically: the expected bound is 500 too.
	serverError = "failed: secrets, which no policy matches, answered with a server error: GET /api/v1/secrets via gateway: HTTP 500 application/json (1ms) {}\n" +
		"Expected\n    <int>: 500\nto be <\n    <int>: 500 (at x.go:1)"
	// A count compared alone (BeZero): the 404s told while the server was registered.
	spurious = "failed: a crash of apiserver-2: 37 requests got 404 although the only server serving the GVR is still registered (answers by status: map[200:3 404:37])\n" +
		"Expected\n    <int>: 37\nto be zero-valued (at x.go:1)"
	noCount     = "failed: a crash of apiserver-2: no 503 within 5s (answers by status: map[404:37])\nExpected\n    <float64>: -1\nto be >=\n    <int>: 0 (at x.go:1)"
	emptyAudit  = "failed: apiserver-1 should have audited request skewcheck-09 once\nExpected\n    <[]framework.AuditEvent | len:0, cap:0>: nil\nto have length 1 (at x.go:23)"
	noError     = "failed: an UpstreamCluster with a resource r/* was applied; it must be refused\nExpected an error to have occurred.  Got:\n    <nil>: nil (at x.go:68)"
	asAnonymous = "failed: get as the allowed user through peerproxy-apiserver-1\nExpected HTTP 200, got:\n" +
		`    <framework.Response>: GET /apis/x/v1/ys/a via peerproxy-apiserver-1: HTTP 403 application/json (8ms) {"kind":"Status","message":"ys.x \"a\" is forbidden: User \"system:anonymous\" cannot get resource"}` +
		"\n            audit ID x, headers map[] (at x.go:1)"
)

func TestClaimMatch(t *testing.T) {
	const deniedThrough = "the unprivileged user must be denied through"
	for _, tc := range []struct {
		name     string
		claim    Claim
		failure  string
		observed string // the evidence's observed value; "" when it must not match
		why      string // a part of why not
	}{
		{"the status the flaw produces", ClaimStatus(deniedThrough, 200), denied200, "HTTP 200", ""},
		{"a 5xx at the same assertion", ClaimStatus(deniedThrough, 200), denied503, "", "observing HTTP 503, not 200"},
		{"a timeout at the same assertion", ClaimStatus(deniedThrough, 200), deniedTimeout, "", "observing no HTTP status"},
		{"text only: any failure of the assertion", ClaimText(deniedThrough), denied503, "text only", ""},
		{"another assertion", ClaimStatus("Impersonate headers through", 200), denied200, "", "it failed saying"},
		{"a test's timeout", ClaimStatus(deniedThrough, 200), timedOut, "", "it failed saying"},
		{"a status compared alone", ClaimStatus("anonymous through", 401), anonymous, "HTTP 401", ""},
		{"the description's status is not the observed one", ClaimStatus("anonymous through", 200), anonymous, "", "observing HTTP 401, not 200"},
		{"a user name observed", ClaimValue("user at the peer", "skewcheck-admin"), userAtPeer, "skewcheck-admin", ""},
		{"the expected value is not the observed one", ClaimValue("user at the peer", "skewcheck-admin"), userExpected, "", `without "skewcheck-admin"`},
		{"an empty value observed", ClaimEmpty("UID the upstream sees through the gateway"), uidEmpty, "empty", ""},
		{"a value where empty is claimed", ClaimEmpty("user at the peer"), userAtPeer, "", "not an empty value"},
		{"no observed value printed", ClaimStatus("never answered 200 within", 503), noExpected, "", "prints no observed value"},
		{"text only, no observed value printed", ClaimText("never answered 200 within"), noExpected, "text only", ""},
		{"an error that must not have occurred", ClaimValue("NodePort must serve a client outside the node", "connect: connection refused"), refused, "connect: connection refused", ""},
		{"another error, the claimed one in the description", ClaimValue("NodePort must serve a client outside the node", "connection refused"), timeoutErr, "", "without"},
		{"an endpoint asked by another server name", ClaimStatus("which no UpstreamCluster lists", 200), asServerName, "HTTP 200", ""},
		{"a status under BeNumerically", ClaimStatus("answered with a server error", 500), serverError, "HTTP 500", ""},
		{"an empty list, by its type", ClaimValue("should have audited request", "len:0"), emptyAudit, "len:0", ""},
		{"no error", ClaimValue("was applied; it must be refused", "nil"), noError, "nil", ""},
		{"a count observed", ClaimCount("although the only server serving the GVR is still registered", 1), spurious, "a count of 1 or more", ""},
		{"a count too small", ClaimCount("although the only server serving the GVR is still registered", 40), spurious, "", "observing 37, fewer than 40"},
		{"no count observed", ClaimCount("no 503 within", 1), noCount, "", "observing no count"},
		{"the user a peer saw, in the Status", ClaimValue("get as the allowed user through", `User \"system:anonymous\" cannot`), asAnonymous, `User \"system:anonymous\" cannot`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, why := tc.claim.Match(tc.failure)
			if tc.observed == "" {
				if why == "" || !strings.Contains(why, tc.why) {
					t.Errorf("matched (%+v) or why %q lacks %q", ev, why, tc.why)
				}
				return
			}
			got := ev.Observed
			if ev.TextOnly {
				got = "text only"
			}
			if why != "" || got != tc.observed || ev.Assertion != tc.claim.Assertion {
				t.Errorf("evidence %+v, why %q; want observed %q", ev, why, tc.observed)
			}
		})
	}
	ev, _ := ClaimStatus(deniedThrough, 200).Match(denied200)
	if !strings.HasPrefix(ev.Actual, "<framework.Response>: GET /apis/batch/v1/namespaces/x/jobs via peerproxy-apiserver-1: HTTP 200") || strings.Contains(ev.Actual, "(at ") {
		t.Errorf("actual %q: want the response the assertion printed, without the failure's location", ev.Actual)
	}
}

func TestClaimWords(t *testing.T) {
	for c, want := range map[Claim]string{
		ClaimText("x"):          `"x" (text only)`,
		ClaimStatus("x", 200):   `"x" observing HTTP 200`,
		ClaimValue("x", "user"): `"x" observing user`,
		ClaimEmpty("x"):         `"x" observing empty`,
		ClaimCount("x", 1):      `"x" observing a count of 1 or more`,
	} {
		if got := c.String(); got != want {
			t.Errorf("%#v: %q, want %q", c, got, want)
		}
	}
	if !ClaimText("x").TextOnly() || ClaimStatus("x", 200).TextOnly() || ClaimEmpty("x").TextOnly() || ClaimCount("x", 1).TextOnly() {
		t.Error("only a claim naming no value is text only")
	}
}

// A claim with a value counts only when the failure observed it; the matrix records what
// matched, and a failure at the claimed assertion with another value is no catch but a
// claim that did not hold, saying what was observed.
func TestMutationCountsOnlyTheObservedValue(t *testing.T) {
	run := func(name, failure string) MutationRun {
		c := &report.Conformance{Tests: []report.Test{{ID: "T-1", Profile: "p", Result: report.Failed, Failure: failure}}}
		if failure == "" {
			c.Tests[0].Result = report.Passed
		}
		r := MutationRun{Name: name, Family: "a", Profiles: []string{"p"}, Report: c}
		if name != "a" {
			r.Mutant = strings.TrimPrefix(name, "a/")
		}
		return r
	}
	m := &Mutation{Runs: []MutationRun{run("a", ""), run("a/flaw", denied200), run("a/slow", deniedTimeout), run("a/text", denied503)}}
	m.Build([]MutationTest{{ID: "T-1", Profile: "p"}}, MutationReasons{}, Catches{
		"a/flaw": {"T-1": ClaimStatus("must be denied through", 200)},
		"a/slow": {"T-1": ClaimStatus("must be denied through", 200)},
		"a/text": {"T-1": ClaimText("must be denied through")},
	})
	row := m.Tests[0]
	if !slices.Equal(row.FailedBy, []string{"a/flaw", "a/text"}) {
		t.Errorf("failed by %v, want a/flaw (HTTP 200 observed) and a/text (text only)", row.FailedBy)
	}
	if len(row.Evidence) != 2 || row.Evidence[0] != (Evidence{Mutant: "a/flaw", Assertion: "must be denied through", Observed: "HTTP 200", Actual: row.Evidence[0].Actual}) ||
		!row.Evidence[1].TextOnly || row.Evidence[1].Observed != "" {
		t.Errorf("evidence %+v", row.Evidence)
	}
	problems := strings.Join(m.Problems(), "\n")
	if want := `mutant a/slow must fail T-1 at "must be denied through" observing HTTP 200; it failed at the assertion observing no HTTP status`; !strings.Contains(problems, want) {
		t.Errorf("problems lack %q:\n%s", want, problems)
	}
	md := m.Markdown()
	for _, want := range []string{"2 catches: 1 matched the value their assertion observed, 1 text only",
		"| T-1 | a/flaw | must be denied through | HTTP 200 | <framework.Response>: GET", "| T-1 | a/text | must be denied through | text only |"} {
		if !strings.Contains(md, want) {
			t.Errorf("mutation.md lacks %q:\n%s", want, md)
		}
	}
}

// A baseline run with a mutant's focus must pass what the mutant runs: where it fails, the
// mutant's failure is no catch (the focused run itself may cause it), the claim is unmet,
// and the focused baseline's failure is a problem of its own; where it passes, the catch
// stands. Its column is not in the matrix table, its line is in the runs table.
func TestMutationFocusedBaselineMustPass(t *testing.T) {
	rep := func(res report.Result, failure string) *report.Conformance {
		return &report.Conformance{Tests: []report.Test{{ID: "T-1", Profile: "p", Result: res, Failure: failure}}}
	}
	build := func(focused report.Result) *Mutation {
		m := &Mutation{Runs: []MutationRun{
			{Name: "a", Family: "a", Profiles: []string{"p"}, Report: rep(report.Passed, "")},
			{Name: "a@m1", Family: "a", BaselineFor: []string{"a/m1"}, Profiles: []string{"p"}, Dir: "a/baseline@m1", Report: rep(focused, "failed: alone it fails (at x.go:1)")},
			{Name: "a/m1", Family: "a", Mutant: "m1", Profiles: []string{"p"}, Report: rep(report.Failed, denied200)},
		}}
		m.Build([]MutationTest{{ID: "T-1", Profile: "p"}}, MutationReasons{}, Catches{"a/m1": {"T-1": ClaimStatus("must be denied through", 200)}})
		return m
	}
	if m := build(report.Passed); !slices.Equal(m.Tests[0].FailedBy, []string{"a/m1"}) || len(m.Problems()) != 0 {
		t.Errorf("focused baseline passed: failed by %v, problems %v; want a/m1 caught, no problem", m.Tests[0].FailedBy, m.Problems())
	}
	m := build(report.Failed)
	if m.Tests[0].FailedBy != nil {
		t.Errorf("failed by %v although the baseline with the mutant's focus failed T-1 too", m.Tests[0].FailedBy)
	}
	problems := strings.Join(m.Problems(), "\n")
	for _, want := range []string{
		"test T-1 fails against the unmutated reference run with the focus of a/m1 (a@m1, a/baseline@m1/)",
		"mutant a/m1 must fail T-1 at \"must be denied through\" observing HTTP 200; it failed, but the baseline with its focus (a@m1) did not pass it (failed)",
		"mutant a/m1: no test catches it",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
	if b := m.BaselineFailures(); len(b) != 1 || !strings.HasPrefix(b[0], "BASELINE FAILS: a@m1") {
		t.Errorf("baseline failures %q: want the focused baseline's", b)
	}
	md := m.Markdown()
	for _, want := range []string{"| T-1 | pass | fail |\n", "| 2 | a@m1 | p | (baseline with the focus of a/m1) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("mutation.md lacks %q:\n%s", want, md)
		}
	}
	if got := m.Totals(); got.Mutants != 1 {
		t.Errorf("totals %+v: a focused baseline is no mutant", got)
	}
	// A baseline of the focus that left no report proves nothing either: no catch.
	m = build(report.Passed)
	m.Runs[1].Report, m.Runs[1].Error = nil, "exit status 1: cluster did not start"
	m.Build([]MutationTest{{ID: "T-1", Profile: "p"}}, MutationReasons{}, Catches{"a/m1": {"T-1": ClaimStatus("must be denied through", 200)}})
	if problems := strings.Join(m.Problems(), "\n"); m.Tests[0].FailedBy != nil || !strings.Contains(problems, "run a@m1 left no report") ||
		!strings.Contains(problems, "did not pass it (not run)") {
		t.Errorf("focused baseline without a report: failed by %v, problems:\n%s", m.Tests[0].FailedBy, problems)
	}
}
