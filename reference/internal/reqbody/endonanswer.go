// Package reqbody holds what both references do with a client's request body beyond what
// httputil.ReverseProxy does.
package reqbody

import "net/http"

// EndOnAnswer ends the client's request body once the upstream has answered, for a
// client on HTTP/2 (call it from ReverseProxy's ModifyResponse with the incoming request).
//
// Why: an apiserver may answer a write before reading its body (403 from authorization,
// 401, 429); a Go HTTP/2 client that sees an answer of 300 or more before it has sent its
// body stops sending it, without END_STREAM, and waits for the answer's end. ReverseProxy
// hands the upstream transport the client's body behind a Close that does nothing, and
// closing the upstream answer's body (after copying it) waits for the transport's writer,
// which waits in a Read of that body for bytes the client will never send: the client gets
// the whole answer but not its end, and waits out its own timeout (30 s: MVP-044 under
// make test's load, 2026-12-02, "its body broke off after 412 of 412 bytes"). Closing the
// HTTP/2 body itself breaks that Read. An answer means the upstream wants no more of the
// body (an apiserver answers a write after reading all of it, or refuses it), except a 101,
// whose body is the session. An HTTP/1 body is left alone: its Close reads what is left of
// it from the connection, which would wait on the same client.
func EndOnAnswer(in *http.Request, resp *http.Response) {
	if in.ProtoMajor != 2 || resp.StatusCode == http.StatusSwitchingProtocols || in.Body == nil {
		return
	}
	in.Body.Close()
}
