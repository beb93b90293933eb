package reqbody

import (
	"bytes"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// An upstream that refuses a write before reading its body, behind a ReverseProxy, and an
// HTTP/2 client that sends the request's headers and then nothing (no body, no END_STREAM,
// no RST_STREAM: what Go's client does once an error answer came before its body went):
// the answer must end at once. Without EndOnAnswer it usually does not end at all (the
// client below gives up after 3 s).
func TestEarlyAnswerEndsPromptly(t *testing.T) {
	for _, end := range []bool{true, false} {
		name := map[bool]string{true: "ended", false: "left"}[end]
		t.Run(name, func(t *testing.T) {
			ended := answerEnds(t, frontFor(t, end), 3*time.Second)
			if end && !ended {
				t.Error("the 403 did not end within 3 s")
			}
			if !end {
				// The control: without EndOnAnswer the 403 hung until the client gave up on an
				// idle machine (3.00 to 3.02 s, three runs, 2026-12-02), but under make test's
				// load it once ended (the upstream stream was reset first): said, not judged.
				t.Logf("without EndOnAnswer the 403 ended within 3 s: %v", ended)
			}
		})
	}
}

// frontFor is a ReverseProxy as both references have it (FlushInterval -1) in front of an
// upstream that answers 403 at once; end says whether its ModifyResponse calls EndOnAnswer.
func frontFor(t *testing.T, end bool) *httptest.Server {
	upstream := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"kind":"Status","code":403}`, http.StatusForbidden) // before reading the body
	}))
	upstream.EnableHTTP2 = true
	upstream.StartTLS()
	t.Cleanup(upstream.Close)
	target, _ := url.Parse(upstream.URL)
	upTransport := upstream.Client().Transport.(*http.Transport).Clone()
	upTransport.ForceAttemptHTTP2 = true
	front := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp := &httputil.ReverseProxy{
			Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
			Transport:     upTransport,
			FlushInterval: -1,
			ModifyResponse: func(resp *http.Response) error {
				if end {
					EndOnAnswer(r, resp)
				}
				return nil
			},
		}
		rp.ServeHTTP(w, r)
	}))
	front.EnableHTTP2 = true
	front.StartTLS()
	t.Cleanup(front.Close)
	return front
}

// answerEnds sends a POST's headers on a raw HTTP/2 connection and nothing after, and says
// whether the answer's END_STREAM came within bound.
func answerEnds(t *testing.T, front *httptest.Server, bound time.Duration) bool {
	conn, err := tls.Dial("tcp", front.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(bound))
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	var hdr bytes.Buffer
	enc := hpack.NewEncoder(&hdr)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "https"}, {":authority", front.Listener.Addr().String()},
		{":path", "/apis/x/v1/things"}, {"content-type", "application/json"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hdr.Bytes(), EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return false // the bound ran out (or the connection ended) before the answer did
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.DataFrame:
			if f.StreamID == 1 && f.StreamEnded() {
				return true
			}
		case *http2.HeadersFrame:
			if f.StreamID == 1 && f.StreamEnded() {
				return true
			}
		}
	}
}
