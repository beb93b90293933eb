package peerproxy

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// An exec session whose apiserver froze (no byte either way) is ended after
// UpgradeIdleTimeout, on both sides; one that moves bytes is not, however long it lasts.
func TestSilentUpgradeIsClosed(t *testing.T) {
	const idle = 300 * time.Millisecond
	backend, ended := upgradingBackend(t)
	p, addr := servingProxy(t, backend.URL)
	p.cfg.UpgradeIdleTimeout = idle
	t.Cleanup(func() { p.Close() })
	conn := openExec(t, addr)

	// The client types for three idle periods: the session stays.
	// The silence is timed from before the last write: the byte may pass the proxy, which
	// times it, before a time read after the write returned (a make test run saw the
	// close 299.45 ms after such a reading, 2026-12-02).
	var silent time.Time
	for range 12 {
		time.Sleep(idle / 4)
		silent = time.Now()
		if _, err := io.WriteString(conn, "x"); err != nil {
			t.Fatalf("a session moving bytes was closed: %v", err)
		}
	}
	// Then nothing moves either way.
	conn.SetReadDeadline(time.Now().Add(10 * idle))
	_, err := io.Copy(io.Discard, conn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the client's side of a silent exec session is still open %v after its last byte, want closed after %v", 10*idle, idle)
	}
	if d := time.Since(silent); d < idle {
		t.Errorf("closed %v after the last byte, before the idle timeout %v", d, idle)
	}
	select {
	case <-ended:
	case <-time.After(3 * time.Second):
		t.Error("the apiserver's side of the silent exec session is still open")
	}
}
