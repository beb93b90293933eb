package upgrade

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
)

// The kinds of failure that are not a status: no whole answer, and a watch stream cut
// short; each followed by what the client saw, in chaos's words (": refused", ": reset",
// ": timeout", ": closed", ": tls"), when it says.
const (
	NoAnswer   = "no answer"
	EndedEarly = "watch ended early"
)

// failure names what was wrong with an answer of the load, "" when it is the request's
// success: a read's 200, a write's 201, a watch whose stream ran to its own timeout. A
// status is its number.
func failure(e Event) string {
	switch e.Kind {
	case "read":
		if e.Status == 200 {
			return ""
		}
	case "write":
		if e.Status == 201 {
			return ""
		}
	case "watch-end":
		if e.Status == 200 && !e.Early {
			return ""
		}
		if e.Status == 200 {
			return EndedEarly + strings.TrimPrefix(errorKind(e.Error), NoAnswer)
		}
	default:
		return "" // resumes and relists are what a watch did, not answers
	}
	if e.Status != 0 {
		return strconv.Itoa(e.Status)
	}
	return errorKind(e.Error)
}

// errorKind is "no answer", with what the client's error says (chaos.ErrorKind), so the
// chaos tables and the upgrade's speak one vocabulary.
func errorKind(err string) string { return chaos.ErrorKind(framework.Response{Err: err}) }

// request is the request an event answered, as Failure names it.
func request(e Event) string {
	if e.Kind == "watch-end" {
		return ClassWatch
	}
	return e.Kind
}

// Failure counts the answers of one kind that one server gave one request of one GVR, in
// the windows or outside them all.
type Failure struct {
	Kind    string `json:"kind"`    // "500", "no answer: refused", "watch ended early: reset"
	Request string `json:"request"` // read, write or watch
	Server  string `json:"server"`
	GVR     string `json:"gvr,omitempty"`
	Inside  bool   `json:"inside"` // in a step's or a fault's window
	// Allowed names the allowance that covers them inside a window; "" when each is a
	// violation (every one outside the windows is).
	Allowed string `json:"allowed,omitempty"`
	Count   int    `json:"count"`
}

// addFailure counts one failed answer in r.Failures.
func (r *Result) addFailure(e Event, kind string, inside bool, allowed string) {
	f := Failure{Kind: kind, Request: request(e), Server: e.Server, GVR: e.GVR, Inside: inside, Allowed: allowed}
	for i := range r.Failures {
		if g := r.Failures[i]; g.Kind == f.Kind && g.Request == f.Request && g.Server == f.Server && g.GVR == f.GVR && g.Inside == f.Inside && g.Allowed == f.Allowed {
			r.Failures[i].Count++
			return
		}
	}
	f.Count = 1
	r.Failures = append(r.Failures, f)
}

// sortFailures orders the failures as reports list them: the violations first (outside,
// then not allowed inside), then by kind, request, server and GVR.
func (r *Result) sortFailures() {
	rank := func(f Failure) int {
		switch {
		case !f.Inside:
			return 0
		case f.Allowed == "":
			return 1
		}
		return 2
	}
	slices.SortFunc(r.Failures, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Request, b.Request),
			strings.Compare(a.Server, b.Server), strings.Compare(a.GVR, b.GVR))
	})
}
