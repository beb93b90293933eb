package containers

import (
	"os"
	"strconv"
)

// Labels every container of skewcheck's carries: the pid of the run that made it and the
// machine it ran on, so that a later run on the same machine can tell a leftover of a dead
// run from a container of a live one (another machine's pids mean nothing here).
const (
	OwnerLabel = "io.skewcheck.owner-pid"
	HostLabel  = "io.skewcheck.owner-host"
)

// namePrefix starts every container name, followed by the owner's pid: the form
// process.OwnerGone reads.
const namePrefix = "skewcheck-"

// ContainerName is the Docker name of the container this run calls name.
func ContainerName(name string) string {
	return namePrefix + strconv.Itoa(os.Getpid()) + "-" + name
}

func ownerLabels() map[string]string {
	host, _ := os.Hostname()
	return map[string]string{OwnerLabel: strconv.Itoa(os.Getpid()), HostLabel: host}
}
