package nodeimage

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// removeTree removes a debootstrap work directory. An interrupted debootstrap leaves /proc
// and /sys (and in some setups /dev) mounted inside the new root; removing files through
// those mounts would reach the host's, so they are detached first, deepest first.
func removeTree(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for _, m := range mountsUnder(abs) {
		unix.Unmount(m, unix.MNT_DETACH)
	}
	if len(mountsUnder(abs)) > 0 {
		return os.ErrExist // leave it rather than risk the host's files
	}
	return os.RemoveAll(abs)
}

// mountsUnder lists the mount points at or below dir, deepest first.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		// mountinfo escapes spaces and the like as octal; our paths have none.
		if m := fields[4]; m == dir || strings.HasPrefix(m, dir+"/") {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}
