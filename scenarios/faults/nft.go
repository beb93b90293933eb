package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"

	"sigs.k8s.io/knftables"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// Packet faults are real nftables rules, in a table of their own that Heal deletes, on the
// output hook (where loopback traffic passes) and matching only peer traffic: a peer path's
// address, or a server's addresses from another server's sockets. Nothing else on the
// machine is touched.
type packets struct {
	name, what  string
	rules       []string
	table       string
	unsupported string // why this machine cannot inject it
}

var tableSeq atomic.Int64

// toPath matches packets to a peer path.
func toPath(p *local.PeerPath) string {
	host, port, _ := net.SplitHostPort(p.Address)
	return knftables.Concat("ip daddr", host, "tcp dport", port)
}

// Loss drops percent of the packets to a peer path, at random.
func Loss(p *local.PeerPath, percent int) Fault {
	return &packets{name: "loss", what: fmt.Sprintf("%d%% of packets dropped (nftables)", percent),
		rules: []string{toPath(p) + fmt.Sprintf(" numgen random mod 100 < %d drop", percent)}}
}

// Partition drops every packet to the given peer paths: with the paths of two servers it
// cuts them apart both ways; with one, one way (nothing reaches that server from peers).
// With more servers it cuts the given ones off from all; PartitionPair is exact.
func Partition(paths ...*local.PeerPath) Fault {
	what := "peer traffic into"
	var rules []string
	for _, p := range paths {
		what += " " + p.Address
		rules = append(rules, toPath(p)+" drop")
	}
	return &packets{name: "partition", what: what + " dropped (nftables)", rules: rules}
}

// PartitionPair cuts exactly a and b apart, and no one else: packets from a's sockets to
// b's addresses (its own and its advertised peer address) are dropped, and, unless oneWay,
// b's to a's. The servers are told apart by their cgroups, since they share one network.
func PartitionPair(a, b *local.Server, oneWay bool) Fault {
	name, what := "partition-pair", fmt.Sprintf("%s and %s cut apart both ways (nftables, by cgroup)", a.Name, b.Name)
	pairs := [][2]*local.Server{{a, b}, {b, a}}
	if oneWay {
		name, what = "partition-pair-one-way", fmt.Sprintf("%s cannot reach %s (nftables, by cgroup)", a.Name, b.Name)
		pairs = pairs[:1]
	}
	if a.Cgroup == nil || b.Cgroup == nil {
		return &packets{name: name, what: what, unsupported: "an exact partition between two servers needs cgroup v2 under /sys/fs/cgroup, to tell the servers' sockets apart"}
	}
	var rules []string
	for _, p := range pairs {
		from, to := p[0], p[1]
		addrs := []string{to.IP}
		if host, _, err := net.SplitHostPort(to.Spec.PeerAdvertise); err == nil && host != to.IP {
			addrs = append(addrs, host)
		}
		rules = append(rules, fmt.Sprintf(`socket cgroupv2 level %d "%s" ip daddr { %s } tcp dport %d drop`,
			from.Cgroup.Level, from.Cgroup.Rel, strings.Join(addrs, ", "), to.Port))
	}
	return &packets{name: name, what: what, rules: rules}
}

func (p *packets) Name() string        { return p.name }
func (p *packets) Description() string { return p.what }

func (p *packets) Inject(ctx context.Context) error {
	if p.unsupported != "" {
		return Unsupported{Reason: p.unsupported}
	}
	sweepTablesOnce.Do(func() { sweepTables(ctx) })
	p.table = fmt.Sprintf("%s%d_%d", tablePrefix, os.Getpid(), tableSeq.Add(1))
	nft, err := knftables.New(knftables.InetFamily, p.table)
	if err != nil {
		return Unsupported{Reason: fmt.Sprintf("nftables is not usable (%v): install it with apt-get install nftables, as root", err)}
	}
	tx := nft.NewTransaction()
	tx.Add(&knftables.Table{})
	tx.Add(&knftables.Chain{Name: "output", Type: knftables.PtrTo(knftables.FilterType),
		Hook: knftables.PtrTo(knftables.OutputHook), Priority: knftables.PtrTo(knftables.FilterPriority)})
	for _, r := range p.rules {
		tx.Add(&knftables.Rule{Chain: "output", Rule: r})
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
