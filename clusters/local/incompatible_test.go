package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKnownIncompatibility(t *testing.T) {
	for _, c := range []struct {
		versions []string
		want     bool
	}{
		{[]string{"v1.34.4", "v1.35.4"}, true},
		{[]string{"v1.33.13", "v1.34.4"}, true},
		{[]string{"v1.34.4"}, false},
		{[]string{"v1.32.13", "v1.33.13"}, true},
		{[]string{"v1.32.13", "v1.32.13"}, false}, // no peer discovery before 1.33: StorageVersions
		{[]string{"v1.35.4", "v1.36.3"}, false},
		{[]string{"v1.36.3", "v1.37.2"}, false},
	} {
		got := knownIncompatibility(c.versions)
		if (got != "") != c.want || (c.want && !strings.Contains(got, "missing port in address")) {
			t.Errorf("%v: %q, want an explanation: %v", c.versions, got, c.want)
		}
	}
}

// A crash is put down to the known defect only for 1.33 and 1.34 and only when the log
// shows the panic in peer discovery.
func TestKnownCrash(t *testing.T) {
	dir := t.TempDir()
	panicked := filepath.Join(dir, "panicked.log")
	os.WriteFile(panicked, []byte("panic: runtime error: invalid memory address or nil pointer dereference\n\tk8s.io/apiserver@v0.0.0/pkg/util/peerproxy/peer_discovery.go:99 +0x14d\n"), 0o644)
	other := filepath.Join(dir, "other.log")
	os.WriteFile(other, []byte("E1123 error: failed to listen on 127.77.1.11:6443: address already in use\n"), 0o644)
	for _, c := range []struct {
		version, log string
		want         bool
	}{
		{"v1.34.4", panicked, true},
		{"v1.33.13", panicked, true},
		{"v1.35.4", panicked, false},
		{"v1.34.4", other, false},
		{"v1.34.4", filepath.Join(dir, "missing.log"), false},
	} {
		if got := knownCrash(c.version, c.log); (got != "") != c.want {
			t.Errorf("%s %s: %q, want an explanation: %v", c.version, filepath.Base(c.log), got, c.want)
		}
	}
}
