package matrix

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/skewcheck/skewcheck/framework/report"
)

// Claim is what a mutant's flaw must make one test fail with: the assertion, by a fragment
// of its description (text unique to it), and what that assertion observed, the value the
// flaw produces. An assertion's text alone holds for any failure of it, a timeout or a 5xx
// included, so a claim says what the flaw makes the assertion see (an HTTP status, or a
// part of the value, such as the user name), and a failure counts only when it printed
// that as the assertion's actual value. A claim that says no value is valid, but shown as
// "text only" wherever claims are listed (TextOnly), so the gap is visible.
type Claim struct {
	// Assertion is a fragment of the failing assertion's description.
	Assertion string `json:"assertion"`
	// Status is the HTTP status the flaw makes the assertion observe (a probe's response,
	// "via <endpoint>: HTTP 200", or a status compared alone, "<int>: 200"); 0: none.
	Status int `json:"status,omitempty"`
	// Observed is a part of the value the assertion observed, as gomega prints the actual
	// value, its type included ("<string>: skewcheck-admin", "len:0"); "" for none.
	Observed string `json:"observed,omitempty"`
	// Empty: the flaw makes the assertion observe an empty value (a UID not passed on).
	Empty bool `json:"empty,omitempty"`
	// AtLeast is the least count the flaw makes the assertion observe, a count compared
	// alone ("<int>: 37", 404s told while a server was registered); 0: none.
	AtLeast int `json:"atLeast,omitempty"`
}

// ClaimText claims a failure of the assertion alone, whatever it observed: text only.
func ClaimText(assertion string) Claim { return Claim{Assertion: assertion} }

// ClaimStatus claims the assertion failed observing the HTTP status code.
func ClaimStatus(assertion string, code int) Claim { return Claim{Assertion: assertion, Status: code} }

// ClaimValue claims the assertion failed observing a value that holds part.
func ClaimValue(assertion, part string) Claim { return Claim{Assertion: assertion, Observed: part} }

// ClaimEmpty claims the assertion failed observing an empty value.
func ClaimEmpty(assertion string) Claim { return Claim{Assertion: assertion, Empty: true} }

// ClaimCount claims the assertion failed observing a count of at least n.
func ClaimCount(assertion string, n int) Claim { return Claim{Assertion: assertion, AtLeast: n} }

// TextOnly says whether the claim names no observed value: any failure of its assertion
// counts, which is weaker evidence, and listed as such.
func (c Claim) TextOnly() bool {
	return c.Status == 0 && c.Observed == "" && !c.Empty && c.AtLeast == 0
}

// Value is the observed value the claim names, in words: "HTTP 200", "skewcheck-admin",
// "empty", or "text only".
func (c Claim) Value() string {
	switch {
	case c.Status != 0:
		return "HTTP " + strconv.Itoa(c.Status)
	case c.Empty:
		return "empty"
	case c.AtLeast > 0:
		return "a count of " + strconv.Itoa(c.AtLeast) + " or more"
	case c.Observed != "":
		return c.Observed
	}
	return "text only"
}

func (c Claim) String() string {
	if c.TextOnly() {
		return fmt.Sprintf("%q (text only)", c.Assertion)
	}
	return fmt.Sprintf("%q observing %s", c.Assertion, c.Value())
}

// Evidence is what a catch matched in the failure: the claim's assertion and the value it
// observed, as the matrix records it for every catch.
type Evidence struct {
	Mutant    string `json:"mutant"`
	Assertion string `json:"assertion"`
	// Observed is the claim's value found in the assertion's actual ("HTTP 200"); "" for a
	// text-only claim.
	Observed string `json:"observed,omitempty"`
	// Actual is the first line of the value the assertion printed, clipped.
	Actual   string `json:"actual,omitempty"`
	TextOnly bool   `json:"textOnly,omitempty"`
}

// Match says whether failure, a failed test's failure as its report gives it, is the
// claim's: its assertion's description holds c.Assertion and, unless the claim is text
// only, the actual value that assertion printed is the claim's. It returns the evidence
// matched, or why the failure is not the claim's.
func (c Claim) Match(failure string) (Evidence, string) {
	at := strings.Index(failure, c.Assertion)
	if c.Assertion == "" || at < 0 {
		return Evidence{}, fmt.Sprintf("it failed saying %q", firstLine(failure))
	}
	actual, ok := actualAfter(failure[at+len(c.Assertion):])
	ev := Evidence{Assertion: c.Assertion, Actual: clip(strings.Join(actual, " "), 200), TextOnly: c.TextOnly()}
	if c.TextOnly() {
		return ev, ""
	}
	if !ok {
		return Evidence{}, fmt.Sprintf("it failed at the assertion, but its failure prints no observed value (no \"Expected\" after %q)", c.Assertion)
	}
	switch {
	case c.Status != 0:
		got, found := observedStatus(actual)
		if !found {
			return Evidence{}, fmt.Sprintf("it failed at the assertion observing no HTTP status: %s", ev.Actual)
		}
		if got != c.Status {
			return Evidence{}, fmt.Sprintf("it failed at the assertion observing HTTP %d, not %d: %s", got, c.Status, ev.Actual)
		}
	case c.Empty:
		if !anyValue(actual, func(v string) bool { return v == "" }) {
			return Evidence{}, fmt.Sprintf("it failed at the assertion observing %s, not an empty value", ev.Actual)
		}
	case c.AtLeast > 0:
		n, found := observedCount(actual)
		if !found {
			return Evidence{}, fmt.Sprintf("it failed at the assertion observing no count: %s", ev.Actual)
		}
		if n < c.AtLeast {
			return Evidence{}, fmt.Sprintf("it failed at the assertion observing %d, fewer than %d: %s", n, c.AtLeast, ev.Actual)
		}
	default:
		if !slices.ContainsFunc(actual, func(l string) bool { return strings.Contains(l, c.Observed) }) {
			return Evidence{}, fmt.Sprintf("it failed at the assertion observing %s, without %q", ev.Actual, c.Observed)
		}
	}
	ev.Observed = c.Value()
	return ev, ""
}

// location is the "(at file:line)" the report appends to a failure.
var location = regexp.MustCompile(` \(at [^()]*:\d+\)$`)

// actualAfter is the actual value the assertion printed after its description (rest is
// the failure from the end of the claim's fragment on), one entry per line, indentation
// removed: the indented lines under the first line that opens with "Expected" (gomega's
// "Expected\n    <int>: 200\nto equal ...", framework's "Expected HTTP 403, got:\n
// <framework.Response>: ...") or "Unexpected error" (an error that must not have
// occurred). ok is false when no such block follows.
func actualAfter(rest string) (lines []string, ok bool) {
	rest = location.ReplaceAllString(strings.TrimRight(rest, "\n"), "")
	all := strings.Split(rest, "\n")
	for i := 1; i < len(all); i++ { // line 0 is the rest of the description's line
		if !strings.HasPrefix(all[i], "Expected") && !strings.HasPrefix(all[i], "Unexpected error") {
			continue
		}
		for _, l := range all[i+1:] {
			if l == "" || (l[0] != ' ' && l[0] != '\t') {
				break
			}
			lines = append(lines, strings.TrimSpace(l))
		}
		return lines, len(lines) > 0
	}
	return nil, false
}

// A probe's response ("GET /path via apiserver-1: HTTP 200 ...") or a status compared
// alone ("<int>: 200").
var (
	responseStatus = regexp.MustCompile(` via [^:\n]+: HTTP (\d{3})\b`)
	intStatus      = regexp.MustCompile(`^<int>: (\d{3})$`)
)

// observedStatus is the HTTP status the actual value shows, the first line that has one.
func observedStatus(actual []string) (int, bool) {
	for _, l := range actual {
		for _, re := range []*regexp.Regexp{responseStatus, intStatus} {
			if m := re.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				return n, true
			}
		}
	}
	return 0, false
}

// intValue is gomega's print of an integer compared alone ("<int>: 37").
var intValue = regexp.MustCompile(`^<u?int(8|16|32|64)?>: (-?\d+)$`)

// observedCount is the integer the actual value shows, the first line that is one.
func observedCount(actual []string) (int, bool) {
	for _, l := range actual {
		if m := intValue.FindStringSubmatch(l); m != nil {
			n, err := strconv.Atoi(m[2])
			return n, err == nil
		}
	}
	return 0, false
}

// anyValue reports whether some line's value ("<string>: v" gives "v", a line without a
// type the whole line) satisfies ok.
func anyValue(actual []string, ok func(string) bool) bool {
	for _, l := range actual {
		v := l
		if strings.HasPrefix(l, "<") {
			if i := strings.Index(l, ">:"); i >= 0 {
				v = strings.TrimPrefix(l[i+2:], " ")
			}
		}
		if ok(v) {
			return true
		}
	}
	return false
}

// MissedClaims lists the claims c does not hold: a claimed test not in the report, not
// failed, or failed otherwise than the claim says (report.MissedFailures with the
// observed value checked too), for the Go tests that run a flawed reference.
func MissedClaims(c report.Conformance, claims map[string]Claim) []string {
	want := make(map[string]string, len(claims))
	for id, cl := range claims {
		want[id] = fmt.Sprintf("at %s", cl)
	}
	return report.Missed(c, want, func(id, failure string) string {
		if _, why := claims[id].Match(failure); why != "" {
			return fmt.Sprintf("want failed at %s; %s", claims[id], why)
		}
		return ""
	})
}
