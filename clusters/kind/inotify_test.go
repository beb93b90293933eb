package kind

import (
	"strings"
	"testing"
)

// The kernel's default instances limit gets a warning that says how to raise it; limits at
// or above kind's advice, or unreadable, say nothing.
func TestWarnInotify(t *testing.T) {
	limits := map[string]string{"/proc/sys/fs/inotify/max_user_instances": "128\n", "/proc/sys/fs/inotify/max_user_watches": "524288\n"}
	read := func(p string) ([]byte, error) { return []byte(limits[p]), nil }
	var out strings.Builder
	warnInotifyFrom(&out, read)
	if got := out.String(); !strings.Contains(got, "fs.inotify.max_user_instances is 128, below the 512") ||
		!strings.Contains(got, "sysctl -w fs.inotify.max_user_instances=512") || strings.Contains(got, "max_user_watches is") {
		t.Errorf("warning %q: want the instances limit alone, with its sysctl", got)
	}
	limits["/proc/sys/fs/inotify/max_user_instances"] = "8192"
	out.Reset()
	warnInotifyFrom(&out, read)
	if out.Len() != 0 {
		t.Errorf("limits above the advice: %q, want nothing", out.String())
	}
}
