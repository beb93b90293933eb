package chaos

import (
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
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

// The error kinds say what clients saw when no status came, so a table tells a TLS refusal
// from a reset or a timeout.
func TestErrorKinds(t *testing.T) {
	for _, c := range []struct {
		r    framework.Response
		want string
	}{
		{framework.Response{Status: 503}, "503"},
		{framework.Response{Err: `Get "https://127.0.0.1:6443/apis": tls: failed to verify certificate: x509: certificate has expired or is not yet valid`}, "no answer: tls"},
		{framework.Response{Err: "dial tcp 127.0.0.2:6443: connect: connection refused"}, "no answer: refused"},
		{framework.Response{Err: "read tcp: connection reset by peer"}, "no answer: reset"},
		{framework.Response{Err: "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}, "no answer: timeout"},
		{framework.Response{Err: "unexpected EOF"}, "no answer: closed"},
		{framework.Response{Err: "something else"}, "no answer"},
	} {
		if got := ErrorKind(c.r); got != c.want {
			t.Errorf("ErrorKind(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
	if got := errorKinds(map[string]int{"503": 2, "no answer: tls": 5, "404": 2}); got != "no answer: tls ×5, 404 ×2, 503 ×2" {
		t.Errorf("errorKinds = %q: want the most frequent first, ties by name", got)
	}
	if errorKinds(nil) != "none" || seconds(-1) != "none" || seconds(1.234) != "1.23 s" {
		t.Error("an outcome without errors must read none")
	}
}
