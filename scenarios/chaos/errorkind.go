package chaos

import (
	"strconv"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
)

// ErrorKind names what a failed answer was, for the chaos table's error kinds: its status,
// or, when no answer came, the class of the client's error, so a table says whether clients
// were refused, reset, timed out or turned away by TLS (an expired or untrusted
// certificate), not only that they got nothing.
func ErrorKind(r framework.Response) string {
	if r.Status != 0 {
		return strconv.Itoa(r.Status)
	}
	e := strings.ToLower(r.Err)
	for _, c := range []struct{ kind, says string }{
		{"tls", "x509"}, {"tls", "tls:"}, {"tls", "certificate"},
		{"refused", "connection refused"},
		{"reset", "connection reset"}, {"reset", "broken pipe"},
		{"timeout", "timeout"}, {"timeout", "deadline exceeded"},
		{"closed", "eof"}, {"closed", "server closed"},
	} {
		if strings.Contains(e, c.says) {
			return "no answer: " + c.kind
		}
	}
	return "no answer"
}
