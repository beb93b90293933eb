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

// writeUnauthorized answers as kube-apiserver's authentication filter answers a request
// no authenticator accepts (k8s.io/apiserver's filters.Unauthorized): a Status 401
// "Unauthorized" saying nothing more, and over HTTP/2 Connection: close, which Go's
// server turns into a GOAWAY once this stream is done (kube-apiserver's
// UnauthenticatedHTTP2DOSMitigation, on by default since 1.29): a client that cannot
// authenticate keeps no HTTP/2 connection, whose cheap streams are what CVE-2023-44487
// abused.
func writeUnauthorized(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 2 {
		w.Header().Set("Connection", "close")
	}
	writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", 0)
}

// unavailableRetryAfter is what a 503 tells clients: health checks restore a server
// within a second or two of its recovery.
const unavailableRetryAfter = time.Second

// What the gateway's 503s tell clients. They name nothing of the gateway's: the
// servers' addresses, what failed dialing them and the other UpstreamClusters' server
// names are the operator's, and a client (of any cluster, or of none) learns nothing
// from them it could act on. The details go to the gateway's log.
const (
	unavailableUpstream  = "the upstream apiserver is unavailable"
	unavailableBusy      = "the upstream apiservers are busy: try again later"
	unavailableNoCluster = "no upstream cluster serves this server name: connect with the server of your kubeconfig's cluster (kubectl sends its host as both TLS server name and Host)"
)

func writeUnavailable(w http.ResponseWriter, message string) {
	writeStatus(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, message, unavailableRetryAfter)
}
