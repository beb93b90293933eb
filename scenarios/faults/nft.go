package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"

	"sigs.k8s.io/knftables"

	"github.com/skewcheck/skewcheck/clusters/node"
)

// Packet faults are real nftables rules, in a table of their own that Heal deletes, on the
// output hook of every network namespace the faulted traffic leaves from, and matching only
// peer traffic: a peer path's address, or a server's addresses from another server's
// sockets. On the local provider that is this machine's namespace, where loopback traffic
// passes. On the containers provider each apiserver's pod has a namespace of its own
// (node.Dialer.NetNS): a peer's dial leaves through it before it reaches the bridge, so
// the rules go there too, and this machine's namespace keeps them for the harness's own
// dialers (the reference's proxies). Nothing else on the machine is touched.
type packets struct {
	name, what  string
	places      []place
	unsupported string // why this machine cannot inject it
	table       string
	added       []*netns // where the table is, for Heal
}

// place is one network namespace and the rules that go into it.
type place struct {
	ns    string // a server's NetNS; "": this machine's
	rules []string
}

var tableSeq atomic.Int64

// toPath matches packets to a peer path.
func toPath(p *node.PeerPath) string {
	host, port, _ := net.SplitHostPort(p.Address)
	return knftables.Concat("ip daddr", host, "tcp dport", port)
}

// everywhere puts the same rules in this machine's namespace and in the own namespace of
// each of peers that has one: where peer traffic into a path starts.
func everywhere(rules []string, peers []*node.Dialer) []place {
	places := []place{{rules: rules}}
	for _, s := range peers {
		if s != nil && s.NetNS != "" && !slices.ContainsFunc(places, func(p place) bool { return p.ns == s.NetNS }) {
			places = append(places, place{ns: s.NetNS, rules: rules})
		}
	}
	return places
}

// Loss drops percent of the packets to a peer path, at random, wherever they come from:
// this machine, and each of peers in a network namespace of its own.
func Loss(p *node.PeerPath, percent int, peers ...*node.Dialer) Fault {
	return &packets{name: "loss", what: fmt.Sprintf("%d%% of packets dropped (nftables)", percent),
		places: everywhere([]string{toPath(p) + fmt.Sprintf(" numgen random mod 100 < %d drop", percent)}, peers)}
}

// Partition drops every packet to the given peer paths, from this machine and from each of
// peers in a namespace of its own: with the paths of two servers it cuts them apart both
// ways; with one, one way (nothing reaches that server from peers). With more servers it
// cuts the given ones off from all; PartitionPair is exact.
func Partition(paths []*node.PeerPath, peers ...*node.Dialer) Fault {
	what := "peer traffic into"
	var rules []string
	for _, p := range paths {
		what += " " + p.Address
		rules = append(rules, toPath(p)+" drop")
	}
	return &packets{name: "partition", what: what + " dropped (nftables)", places: everywhere(rules, peers)}
}

// PartitionPair cuts exactly a and b apart, and no one else: packets from a's sockets to
// b's addresses (its own and its advertised peer address) are dropped, and, unless oneWay,
// b's to a's. A server in a network namespace of its own (a container's pod) has the rule
// there; servers sharing this machine's are told apart by their cgroups.
func PartitionPair(a, b *node.Dialer, oneWay bool) Fault {
	name, how := "partition-pair", "cut apart both ways"
	pairs := [][2]*node.Dialer{{a, b}, {b, a}}
	if oneWay {
		name, how = "partition-pair-one-way", "cannot reach"
		pairs = pairs[:1]
	}
	f := &packets{name: name}
	var by []string
	for _, p := range pairs {
		from, to := p[0], p[1]
		addrs := []string{to.IP}
		if host, _, err := net.SplitHostPort(to.PeerAdvertise); err == nil && host != to.IP {
			addrs = append(addrs, host)
		}
		rule := fmt.Sprintf(`ip daddr { %s } tcp dport %d drop`, strings.Join(addrs, ", "), to.Port)
		switch {
		case from.NetNS != "":
			f.places = append(f.places, place{ns: from.NetNS, rules: []string{rule}})
			by = append(by, "in "+from.Name+"'s network namespace")
		case from.Cgroup != nil:
			rule = fmt.Sprintf(`socket cgroupv2 level %d "%s" `, from.Cgroup.Level, from.Cgroup.Rel) + rule
			if len(f.places) > 0 && f.places[0].ns == "" {
				f.places[0].rules = append(f.places[0].rules, rule)
			} else {
				f.places = append(f.places, place{rules: []string{rule}})
			}
			by = append(by, "by "+from.Name+"'s cgroup")
		default:
			f.unsupported = "an exact partition between two servers that share this machine's network namespace needs cgroup v2 under /sys/fs/cgroup, to tell the servers' sockets apart"
		}
	}
	if oneWay {
		f.what = fmt.Sprintf("%s %s %s (nftables, %s)", a.Name, how, b.Name, strings.Join(slices.Compact(by), ", "))
	} else {
		f.what = fmt.Sprintf("%s and %s %s (nftables, %s)", a.Name, b.Name, how, strings.Join(slices.Compact(by), ", "))
	}
	return f
}

func (p *packets) Name() string        { return p.name }
func (p *packets) Description() string { return p.what }

// Inject adds the fault's table to every namespace of it, or to none: when one fails, the
// tables already added are deleted again before the error returns.
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
	for _, pl := range p.places {
		if pl.ns != "" {
			if _, err := exec.LookPath("nsenter"); err != nil {
				return Unsupported{Reason: "putting nftables rules in a server's own network namespace needs nsenter: install it with apt-get install util-linux"}
			}
		}
	}
	for _, pl := range p.places {
		ns, err := openNetns(pl.ns)
		if err != nil {
			return errors.Join(err, p.Heal(context.Background()))
		}
		tx := nft.NewTransaction()
		tx.Add(&knftables.Table{Comment: knftables.PtrTo(tableComment())})
		tx.Add(&knftables.Chain{Name: "output", Type: knftables.PtrTo(knftables.FilterType),
			Hook: knftables.PtrTo(knftables.OutputHook), Priority: knftables.PtrTo(knftables.FilterPriority)})
		for _, r := range pl.rules {
			tx.Add(&knftables.Rule{Chain: "output", Rule: r})
		}
		if err := ns.run(ctx, nft, tx); err != nil {
			ns.close()
			return errors.Join(fmt.Errorf("nft, adding table %s in %s: %w", p.table, ns, err), p.Heal(context.Background()))
		}
		p.added = append(p.added, ns)
	}
	return nil
}

// Heal deletes the table from every namespace it was added to; a table already gone (its
// namespace's container removed, a sweep) is healed.
func (p *packets) Heal(ctx context.Context) error {
	if len(p.added) == 0 {
		return nil
	}
	nft, err := knftables.New(knftables.InetFamily, p.table)
	if err != nil {
		return fmt.Errorf("nftables is not usable to delete table %s (%v): delete it by hand with nft delete table inet %s", p.table, err, p.table)
	}
	var errs []error
	for _, ns := range p.added {
		tx := nft.NewTransaction()
		tx.Delete(&knftables.Table{})
		if err := ns.run(ctx, nft, tx); err != nil && !knftables.IsNotFound(err) && !strings.Contains(err.Error(), "No such file or directory") {
			errs = append(errs, fmt.Errorf("deleting table %s in %s: %w (delete it by hand: %s)", p.table, ns, err, ns.byHand("delete table inet "+p.table)))
		}
		ns.close()
	}
	p.added = nil
	return errors.Join(errs...)
}
