package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync/atomic"

	"sigs.k8s.io/knftables"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// Packet faults are real nftables rules, in a table of their own that Heal deletes, on the
// output hook (where loopback traffic passes) and matching only a peer path's address:
// nothing else on the machine is touched.
type packets struct {
	name, what string
	paths      []*local.PeerPath
	verdict    string // e.g. "drop" or "numgen random mod 100 < 30 drop"
	table      string
}

var tableSeq atomic.Int64

// Loss drops percent of the packets to a peer path, at random.
func Loss(p *local.PeerPath, percent int) Fault {
	return &packets{name: "loss", what: fmt.Sprintf("%d%% of packets dropped (nftables)", percent), paths: []*local.PeerPath{p},
		verdict: fmt.Sprintf("numgen random mod 100 < %d drop", percent)}
}

// Partition drops every packet to the given peer paths: with the paths of two servers it
// cuts them apart both ways; with one, one way (nothing reaches that server from peers).
func Partition(paths ...*local.PeerPath) Fault {
	what := "peer traffic into"
	for _, p := range paths {
		what += " " + p.Address
	}
	return &packets{name: "partition", what: what + " dropped (nftables)", paths: paths, verdict: "drop"}
}

func (p *packets) Name() string        { return p.name }
func (p *packets) Description() string { return p.what }

func (p *packets) Inject(ctx context.Context) error {
	p.table = fmt.Sprintf("skewcheck_%d_%d", os.Getpid(), tableSeq.Add(1))
	nft, err := knftables.New(knftables.InetFamily, p.table)
	if err != nil {
		return Unsupported{Reason: fmt.Sprintf("nftables is not usable (%v): install it with apt-get install nftables, as root", err)}
	}
	tx := nft.NewTransaction()
	tx.Add(&knftables.Table{})
	tx.Add(&knftables.Chain{Name: "output", Type: knftables.PtrTo(knftables.FilterType),
		Hook: knftables.PtrTo(knftables.OutputHook), Priority: knftables.PtrTo(knftables.FilterPriority)})
	for _, path := range p.paths {
		host, port, err := net.SplitHostPort(path.Address)
		if err != nil {
			return err
		}
		tx.Add(&knftables.Rule{Chain: "output", Rule: knftables.Concat("ip daddr", host, "tcp dport", port, p.verdict)})
	}
	if err := nft.Run(ctx, tx); err != nil {
		return fmt.Errorf("nft: %w", err)
	}
	return nil
}

func (p *packets) Heal(ctx context.Context) error {
	nft, err := knftables.New(knftables.InetFamily, p.table)
	if err != nil {
		return err
	}
	tx := nft.NewTransaction()
	tx.Delete(&knftables.Table{})
	if err := nft.Run(ctx, tx); err != nil && !knftables.IsNotFound(err) {
		return err
	}
	return nil
}
