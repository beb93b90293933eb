package framework

import (
	"net/http"
	"strings"
	"testing"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

func resp(status int, contentType, body string) Response {
	return Response{
		Endpoint: "apiserver-1", Method: "GET", Path: "/apis/x/v1/ys",
		Status: status, ContentType: contentType, Body: []byte(body), BodyText: body,
		Header: http.Header{"Content-Type": []string{contentType}},
	}
}

const (
	textPlain = "text/plain; charset=utf-8"
	appJSON   = "application/json"
)

func statusBody(code, reason string) string {
	return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"` + reason + `","code":` + code + `}`
}

type matchCase struct {
	name string
	r    Response
	want bool
}

func runMatcher(t *testing.T, m types.GomegaMatcher, cases []matchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Match(tc.r)
			if err != nil {
				t.Fatalf("Match returned an error: %v", err)
			}
			if got != tc.want {
				t.Errorf("Match(%s) = %v, want %v", tc.r, got, tc.want)
			}
			if !got {
				// A failure message must show the response, which is what the reader needs.
				if msg := m.FailureMessage(tc.r); !strings.Contains(msg, tc.r.Path) {
					t.Errorf("failure message does not show the response: %s", msg)
				}
			}
		})
	}
}

func TestHaveStatus(t *testing.T) {
	withErr := resp(0, "", "")
	withErr.Err = "connection refused"
	errWith200 := resp(200, appJSON, "{}")
	errWith200.Err = "body read: unexpected EOF"
	runMatcher(t, HaveStatus(200), []matchCase{
		{"200", resp(200, appJSON, "{}"), true},
		{"201", resp(201, appJSON, "{}"), false},
		{"404", resp(404, textPlain, "404 page not found"), false},
		{"transport error", withErr, false},
		{"status with error", errWith200, false},
	})
	runMatcher(t, HaveStatus(503), []matchCase{
		{"503", resp(503, textPlain, "x"), true},
		{"500", resp(500, textPlain, "x"), false},
	})
}

func TestBeNotFoundText(t *testing.T) {
	runMatcher(t, BeNotFoundText(), []matchCase{
		{"mux 404", resp(404, textPlain, "404 page not found\n"), true},
		{"mux 404 without charset", resp(404, "text/plain", "404 page not found"), true},
		{"JSON 404", resp(404, appJSON, statusBody("404", "NotFound")), false},
		{"JSON content type with the text body", resp(404, appJSON, "404 page not found"), false},
		{"other text", resp(404, textPlain, "404 page not found: extra"), false},
		{"200 with that body", resp(200, textPlain, "404 page not found"), false},
		{"503 text", resp(503, textPlain, "error trying to reach service: dial tcp"), false},
	})
}

// Up to 1.37 a group-version no server serves is the mux's text; from 1.38 a JSON Status
// of the same words, and a Status of other words is not it.
func TestBeNoSuchGroupVersion(t *testing.T) {
	page := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"404 page not found","reason":"NotFound","code":404}`
	other := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no server serves /apis/x/v1/things","reason":"NotFound","code":404}`
	for _, v := range []string{"v1.36.3", "v1.37.2"} {
		runMatcher(t, BeNoSuchGroupVersion(v), []matchCase{
			{v + " mux 404", resp(404, textPlain, "404 page not found\n"), true},
			{v + " JSON 404", resp(404, appJSON, page), false},
		})
	}
	for _, v := range []string{"v1.38.0-beta.0", "v1.38.1", "v1.39.0"} {
		runMatcher(t, BeNoSuchGroupVersion(v), []matchCase{
			{v + " JSON 404 of the page's words", resp(404, appJSON, page), true},
			{v + " JSON 404 of other words", resp(404, appJSON, other), false},
			{v + " mux text", resp(404, textPlain, "404 page not found\n"), false},
			{v + " JSON 503", resp(503, appJSON, statusBody("503", "ServiceUnavailable")), false},
		})
	}
}

func TestBeStatus(t *testing.T) {
	runMatcher(t, BeStatus(404, "NotFound"), []matchCase{
		{"matching", resp(404, appJSON, statusBody("404", "NotFound")), true},
		{"content type with charset", resp(404, "application/json; charset=utf-8", statusBody("404", "NotFound")), true},
		{"wrong reason", resp(404, appJSON, statusBody("404", "Forbidden")), false},
		{"wrong code in body", resp(404, appJSON, statusBody("403", "NotFound")), false},
		{"wrong HTTP status", resp(403, appJSON, statusBody("404", "NotFound")), false},
		{"not a Status", resp(404, appJSON, `{"kind":"Pod","reason":"NotFound","code":404}`), false},
		{"no kind", resp(404, appJSON, `{"reason":"NotFound","code":404}`), false},
		{"text/plain", resp(404, textPlain, statusBody("404", "NotFound")), false},
		{"not JSON", resp(404, appJSON, "404 page not found"), false},
		{"empty", resp(404, appJSON, ""), false},
	})
	runMatcher(t, BeStatus(403, "Forbidden"), []matchCase{
		{"forbidden", resp(403, appJSON, statusBody("403", "Forbidden")), true},
		{"not found", resp(404, appJSON, statusBody("404", "NotFound")), false},
	})
}

func TestBeServiceUnavailable(t *testing.T) {
	runMatcher(t, BeServiceUnavailable(), []matchCase{
		{"JSON Status", resp(503, appJSON, statusBody("503", "ServiceUnavailable")), true},
		{"text error trying to reach service", resp(503, textPlain, "Error trying to reach service: 'dial tcp 127.0.0.1:6443: connect: connection refused'\nerror trying to reach service: dial tcp"), true},
		{"text only the phrase", resp(503, textPlain, "error trying to reach service"), true},
		{"text without the phrase", resp(503, textPlain, "service unavailable"), false},
		{"JSON other reason", resp(503, appJSON, statusBody("503", "InternalError")), false},
		{"JSON wrong code", resp(503, appJSON, statusBody("500", "ServiceUnavailable")), false},
		{"502 text", resp(502, textPlain, "error trying to reach service"), false},
		{"502 JSON", resp(502, appJSON, statusBody("502", "ServiceUnavailable")), false},
		{"404 text", resp(404, textPlain, "404 page not found"), false},
		{"503 no content type", resp(503, "", "error trying to reach service"), false},
	})
}

func TestMatchersWithGomega(t *testing.T) {
	g := gomega.NewWithT(t)
	g.Expect(resp(404, textPlain, "404 page not found")).To(BeNotFoundText())
	g.Expect(resp(404, appJSON, statusBody("404", "NotFound"))).NotTo(BeNotFoundText())
	g.Expect(resp(404, appJSON, statusBody("404", "NotFound"))).To(BeStatus(404, "NotFound"))
	g.Expect(resp(503, appJSON, statusBody("503", "ServiceUnavailable"))).To(BeServiceUnavailable())
	g.Expect(resp(503, textPlain, "error trying to reach service: x")).To(gomega.And(HaveStatus(503), BeServiceUnavailable()))
	g.Expect(resp(502, textPlain, "error trying to reach service")).NotTo(BeServiceUnavailable())

	// A matcher given something other than a Response reports an error, not a match.
	if ok, err := HaveStatus(200).Match("not a response"); ok || err == nil {
		t.Errorf("HaveStatus on a string = %v, %v; want false and an error", ok, err)
	}
}
