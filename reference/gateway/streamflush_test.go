package gateway

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A streamed answer (no Content-Length: a watch) reaches the client event by event: the
// gateway forwards the first event while the upstream still holds back the second, though
// it no longer flushes answers of known length after every write (forward.go).
func TestStreamedAnswerFlushesEachEvent(t *testing.T) {
	seen := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"type":"ADDED"}` + "\n"))
		w.(http.Flusher).Flush()
		select { // the second event only once the client has the first
		case <-seen:
		case <-time.After(5 * time.Second):
		}
		w.Write([]byte(`{"type":"MODIFIED"}` + "\n"))
	}))
	defer up.Close()
	gw := httptest.NewServer(testGateway(t, Defects{}, up.URL))
	defer gw.Close()
	req, _ := http.NewRequest(http.MethodGet, gw.URL+"/api/v1/namespaces/default/configmaps?watch=1", nil)
	req.Header.Set("Authorization", "Bearer bob")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("watching through the gateway: %v", err)
	}
	defer resp.Body.Close()
	first, err := bufio.NewReader(resp.Body).ReadString('\n')
	close(seen)
	if err != nil || first != `{"type":"ADDED"}`+"\n" || time.Since(start) > 3*time.Second {
		t.Fatalf("first event %q (%v) after %v through the gateway, want ADDED at once, while the upstream holds the next back", first, err, time.Since(start))
	}
}
