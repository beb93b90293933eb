package reqbody

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"
)

// An upstream that refuses a write before reading its body, behind a ReverseProxy, to an
// HTTP/2 client that has not sent its body yet: the client gets the answer and its end at
// once, not when its own timeout runs out.
func TestEarlyAnswerEndsPromptly(t *testing.T) {
	for _, end := range []bool{true, false} {
		name := map[bool]string{true: "ended", false: "left"}[end]
		t.Run(name, func(t *testing.T) {
			took := roundTrip(t, end)
			if end && took > 2*time.Second {
				t.Errorf("the answer ended after %v, want at once", took)
			}
			if !end && took < 2*time.Second {
				// The hang this guards against: without EndOnAnswer the answer does not
				// end before the client gives up. If Go ever ends it by itself, this test
				// says so, and EndOnAnswer can go.
				t.Errorf("without EndOnAnswer the answer ended after %v: Go no longer hangs here", took)
			}
		})
	}
}

// roundTrip sends a POST whose body never comes and returns how long the whole answer took.
func roundTrip(t *testing.T, end bool) time.Duration {
	upstream := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"kind":"Status","code":403}`, http.StatusForbidden) // before reading the body
	}))
	upstream.EnableHTTP2 = true
	upstream.StartTLS()
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	upTransport := upstream.Client().Transport.(*http.Transport).Clone()
	upTransport.ForceAttemptHTTP2 = true

	front := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp := &httputil.ReverseProxy{
			Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
			Transport:     upTransport,
			FlushInterval: -1, // as both references: the answer's bytes go out as they come
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
	defer front.Close()

	client := front.Client()
	client.Transport.(*http.Transport).ForceAttemptHTTP2 = true
	client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}
	client.Timeout = 4 * time.Second
	body, w := io.Pipe() // never written: the body is not sent yet when the answer comes
	defer w.Close()
	req, _ := http.NewRequest("POST", front.URL+"/apis/x/v1/things", body)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("answer %s %d, want HTTP/2 403", resp.Proto, resp.StatusCode)
	}
	// The client's timeout ends a body that never ends: the time says which it was.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start)
}
