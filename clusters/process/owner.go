package process

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// OwnerGone reports whether name is <prefix><pid><sep>... for a pid that is neither this
// process nor alive: a leftover of a skewcheck run killed before it could clean up
// (network namespaces, cgroups, nftables tables and directories are named that way).
func OwnerGone(name, prefix, sep string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	pidText, _, _ := strings.Cut(rest, sep)
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err != nil && err != syscall.EPERM
}
