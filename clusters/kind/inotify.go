package kind

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// inotifyAdvised are the inotify limits kind's known-issues page advises: each node's
// containerd and kubelet take instances of the host's per-user pool, which the host's other
// processes share (every kube-apiserver takes 6 for its certificate reloaders). At the
// kernel's default of 128, a node's containerd found none left beside make test's other
// clusters: "failed to create fsnotify watcher: too many open files", and the node's
// kubelet never started (2026-12-02).
var inotifyAdvised = map[string]int{"max_user_instances": 512, "max_user_watches": 524288}

// warnInotify says, before kind starts, which inotify limit is below the advised and how
// to raise it: a cluster may still come up, so it is a warning, not a refusal.
func warnInotify(out io.Writer) { warnInotifyFrom(out, os.ReadFile) }

// warnInotifyFrom is warnInotify reading the limits' files with read.
func warnInotifyFrom(out io.Writer, read func(string) ([]byte, error)) {
	for _, name := range []string{"max_user_instances", "max_user_watches"} {
		b, err := read("/proc/sys/fs/inotify/" + name)
		if err != nil {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n < inotifyAdvised[name] {
			fmt.Fprintf(out, "warning: fs.inotify.%s is %d, below the %d kind advises: nodes may fail to start with \"too many open files\"; as root: sysctl -w fs.inotify.%s=%d (make deps does)\n",
				name, n, inotifyAdvised[name], name, inotifyAdvised[name])
		}
	}
}
