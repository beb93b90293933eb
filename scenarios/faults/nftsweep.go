package faults

import (
	"context"
	"os/exec"
	"strings"
	"sync"

	procs "github.com/skewcheck/skewcheck/clusters/process"
	"sigs.k8s.io/knftables"
)

// tablePrefix names every packet fault's table: skewcheck_<pid>_<seq>, so the process that
// owns a table is known from its name.
const tablePrefix = "skewcheck_"

var sweepTablesOnce sync.Once

// sweepTables deletes the fault tables of skewcheck runs whose process is gone. A run
// killed with SIGKILL cannot heal its faults, and its table would go on dropping peer
// traffic into addresses the next run reuses.
func sweepTables(ctx context.Context) {
	out, err := exec.CommandContext(ctx, "nft", "list", "tables", "inet").Output()
	if err != nil {
		return // no nft: no table can be left either
	}
	for _, table := range deadRunTables(string(out)) {
		if nft, err := knftables.New(knftables.InetFamily, table); err == nil {
			tx := nft.NewTransaction()
			tx.Delete(&knftables.Table{})
			nft.Run(ctx, tx)
		}
	}
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
