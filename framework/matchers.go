package framework

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"
)

// The outcomes the Mixed Version Proxy promises, as matchers on a probe Response. Their
// failure messages print the whole response, since that is what a reader needs.

// HaveStatus matches a response with the given HTTP status.
func HaveStatus(code int) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r Response) (bool, error) {
		return r.Err == "" && r.Status == code, nil
	}).WithTemplate(fmt.Sprintf("Expected HTTP %d, got:\n{{format .Actual 1}}", code))
}

// BeNotFoundText matches the 404 a server gives for a group-version no server serves:
// the plain-text answer of the mux, `404 page not found`.
func BeNotFoundText() types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r Response) (bool, error) {
		return r.Status == 404 && strings.HasPrefix(r.ContentType, "text/plain") &&
			strings.TrimSpace(r.BodyText) == "404 page not found", nil
	}).WithTemplate("Expected a text/plain `404 page not found`, got:\n{{format .Actual 1}}")
}

// BeNoSuchGroupVersion matches the 404 a server of version gives for a group-version no
// server serves, which its handler chain leaves to the not-found handler at its end. Up to
// 1.37 that handler is the mux's plain text (BeNotFoundText: k8s.io/apiserver v0.37.2
// pkg/util/notfoundhandler/not_found_handler.go:64, http.NotFound); from 1.38 it is a JSON
// Status, reason NotFound, of the same words (v0.38.0-beta.0 :64-77, ErrorNegotiated).
func BeNoSuchGroupVersion(version string) types.GomegaMatcher {
	if CompareMinor(version, "1.38") < 0 {
		return BeNotFoundText()
	}
	return gcustom.MakeMatcher(func(r Response) (bool, error) {
		if ok, err := BeStatus(404, "NotFound").Match(r); !ok || err != nil {
			return false, err
		}
		var s struct {
			Message string `json:"message"`
		}
		return json.Unmarshal(r.Body, &s) == nil && s.Message == "404 page not found", nil
	}).WithTemplate(fmt.Sprintf("Expected the JSON Status 404 NotFound `404 page not found` a %s server gives, got:\n{{format .Actual 1}}", version))
}

// BeStatus matches a JSON metav1.Status response with code and reason.
func BeStatus(code int, reason string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r Response) (bool, error) {
		if r.Status != code || !strings.HasPrefix(r.ContentType, "application/json") {
			return false, nil
		}
		var s struct {
			Kind   string `json:"kind"`
			Reason string `json:"reason"`
			Code   int    `json:"code"`
		}
		if json.Unmarshal(r.Body, &s) != nil {
			return false, nil
		}
		return s.Kind == "Status" && s.Reason == reason && s.Code == code, nil
	}).WithTemplate(fmt.Sprintf("Expected a JSON Status %d %s, got:\n{{format .Actual 1}}", code, reason))
}

// BeServiceUnavailable matches the two 503s of the proxy: a JSON Status with reason
// ServiceUnavailable (peer address lookup failed) or the text/plain `error trying to
// reach service` (dial or TLS failure). Either means "a server serves it, try again".
func BeServiceUnavailable() types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r Response) (bool, error) {
		if r.Status != 503 {
			return false, nil
		}
		if strings.HasPrefix(r.ContentType, "text/plain") {
			return strings.Contains(r.BodyText, "error trying to reach service"), nil
		}
		return BeStatus(503, "ServiceUnavailable").Match(r)
	}).WithTemplate("Expected a 503 from the proxy (JSON Status ServiceUnavailable, or text/plain `error trying to reach service`), got:\n{{format .Actual 1}}")
}
