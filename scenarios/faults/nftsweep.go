package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	procs "github.com/skewcheck/skewcheck/clusters/process"
)

// tablePrefix names every packet fault's table: skewcheck_<pid>_<seq>, so the process that
// owns a table is known from its name, whatever namespace the table is in.
const tablePrefix = "skewcheck_"

var sweepTablesOnce sync.Once

// sweepTables deletes the fault tables of skewcheck runs whose process is gone, in this
// machine's network namespace and in every other one a process on this machine is in. A
// run killed with SIGKILL cannot heal its faults, and its table would go on dropping peer
// traffic into addresses the next run reuses; a table in a container's namespace goes with
// the container, but a container can outlive the run (a kind node, a cluster a run did not
// make, a sweep of containers that failed).
//
// In another namespace a table is deleted only if its comment says its owner's pid is in
// this process's pid namespace: a skewcheck run inside a container makes tables in its own
// network namespace named by pids that mean nothing here.
func sweepTables(ctx context.Context) {
	pidns := pidNamespace()
	for _, ns := range netNamespaces() {
		out, err := nftIn(ctx, ns, "list", "tables", "inet").Output()
		if err != nil {
			continue // no nft (then no table can be left either), or the namespace has gone
		}
		for _, table := range deadRunTables(string(out)) {
			if ns != "" {
				if desc, err := nftIn(ctx, ns, "list", "table", "inet", table).Output(); err != nil || pidns == "" || !strings.Contains(string(desc), pidns) {
					continue
				}
			}
			nftIn(ctx, ns, "delete", "table", "inet", table).Run()
		}
	}
}

// pidNamespace names this process's pid namespace (pid:[inode]), "" when it cannot be read.
func pidNamespace() string {
	id, _ := os.Readlink("/proc/self/ns/pid")
	return id
}

// tableComment says whose a fault's table is, for people reading nft list ruleset and for
// sweepTables: the owner's pid and the pid namespace that pid is in.
func tableComment() string {
	return fmt.Sprintf("skewcheck packet fault of pid %d in %s", os.Getpid(), pidNamespace())
}

// netNamespaces names each network namespace on this machine once: "" for this process's
// own, then /proc/<pid>/ns/net of one process in each other.
func netNamespaces() []string {
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return []string{""}
	}
	seen := map[string]bool{own: true}
	spaces := []string{""}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		path := filepath.Join("/proc", e.Name(), "ns", "net")
		id, err := os.Readlink(path) // net:[inode]; fails for a process that has exited
		if err != nil || seen[id] {
			continue
		}
		seen[id] = true
		spaces = append(spaces, path)
	}
	return spaces
}

// deadRunTables picks, from `nft list tables inet`, skewcheck's tables whose owner pid is
// neither this process nor alive.
func deadRunTables(listing string) []string {
	var dead []string
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Fields(line) // table inet <name>
		if len(f) != 3 || f[0] != "table" || !strings.HasPrefix(f[2], tablePrefix) {
			continue
		}
		if procs.OwnerGone(f[2], tablePrefix, "_") {
			dead = append(dead, f[2])
		}
	}
	return dead
}
