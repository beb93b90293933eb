package gateway

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeStatus answers for the gateway itself with a JSON metav1.Status, as an apiserver
// does, so clients (client-go, kubectl) read the reason and the message. retryAfter > 0
// adds Retry-After in whole seconds (and in the Status details, where client-go looks).
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string, retryAfter time.Duration) {
	st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message}
	if retryAfter > 0 {
		secs := retryAfterSeconds(retryAfter)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		st.Details = &metav1.StatusDetails{RetryAfterSeconds: int32(secs)}
	}
	b, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(b)
}

func writeUnauthorized(w http.ResponseWriter) {
	writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", 0)
}

// unavailableRetryAfter is what a 503 tells clients: health checks restore a server
// within a second or two of its recovery.
const unavailableRetryAfter = time.Second

func writeUnavailable(w http.ResponseWriter, message string) {
	writeStatus(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, message, unavailableRetryAfter)
}
