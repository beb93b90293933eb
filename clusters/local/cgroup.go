package local

import (
	"bufio"
	"fmt"
	"github.com/skewcheck/skewcheck/clusters/node"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/skewcheck/skewcheck/clusters/process"
)

// A server's cgroup (node.Cgroup). All apiservers share the loopback network, so their
// connections to a peer cannot be told apart by address; nftables can tell them apart by
// the cgroup of the socket (`socket cgroupv2`), which is what an exact partition between
// two servers of three needs.

const nftCgroupRoot = "/sys/fs/cgroup"

// cgroup2Mount finds where cgroup v2 is mounted (/sys/fs/cgroup on a unified host,
// /sys/fs/cgroup/unified on a hybrid one; "" when it is not) and which cgroup of the
// hierarchy the mount shows at its top ("/" unless a subtree is mounted).
func cgroup2Mount() (mount, root string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mount-point options ... - fstype source options
		fields := strings.Fields(sc.Text())
		for i, fl := range fields {
			if fl == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return fields[4], fields[3]
			}
		}
	}
	return "", ""
}

// newCgroup makes skewcheck-<pid>-<name> at the root of the cgroup v2 hierarchy. It returns
// nil, not an error, where cgroup v2 is missing or outside /sys/fs/cgroup: then only the
// faults that need it are unavailable.
//
// nftables matches `socket cgroupv2 level N` against the cgroup's depth in the whole
// hierarchy: the mount's root adds its own depth. Inside a cgroup namespace the true depth
// is hidden; there TestExactPartitionOfThree fails rather than a partition silently
// dropping nothing.
func newCgroup(name string) *node.Cgroup {
	mount, root := cgroup2Mount()
	rel, err := filepath.Rel(nftCgroupRoot, mount)
	if mount == "" || err != nil || strings.HasPrefix(rel, "..") {
		return nil
	}
	sweepOnce.Do(func() { sweepCgroups(mount) })
	base := fmt.Sprintf("%s%d-%s", cgroupPrefix, os.Getpid(), name)
	dir := filepath.Join(mount, base)
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return nil
	}
	level := 1
	if r := strings.Trim(root, "/"); r != "" {
		level += strings.Count(r, "/") + 1
	}
	return &node.Cgroup{Dir: dir, Rel: filepath.Join(rel, base), Level: level}
}

const cgroupPrefix = "skewcheck-"

// sweepOnce: leftovers of dead runs are looked for once per process, not per server.
var sweepOnce sync.Once

// removeCgroup deletes g once its processes are gone (an exiting process leaves it a
// moment after it is reaped).
func removeCgroup(g *node.Cgroup) error {
	if g == nil {
		return nil
	}
	var err error
	for i := 0; i < 50; i++ {
		if err = syscall.Rmdir(g.Dir); err == nil || os.IsNotExist(err) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("removing cgroup %s: %w", g.Dir, err)
}

// sweepCgroups removes the cgroups of skewcheck runs whose process is gone.
func sweepCgroups(mount string) {
	entries, _ := os.ReadDir(mount)
	for _, e := range entries {
		if e.IsDir() && process.OwnerGone(e.Name(), cgroupPrefix, "-") {
			syscall.Rmdir(filepath.Join(mount, e.Name()))
		}
	}
}
