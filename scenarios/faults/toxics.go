package faults

import (
	"context"
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/node"
)

// Peer path faults act on the forwarder in front of one server's peer address (see
// node.PeerPath): every apiserver-to-peer connection into that server, and nothing else.

// toxic is one toxiproxy toxic on a peer path.
type toxic struct {
	name, what string
	path       *node.PeerPath
	toxics     []string // JSON toxics
}

func (t *toxic) Name() string        { return t.name }
func (t *toxic) Description() string { return "peer path into " + t.path.Address + ": " + t.what }

func (t *toxic) Inject(context.Context) error {
	for _, j := range t.toxics {
		if _, err := t.path.Proxy.Toxics.AddToxicJson(strings.NewReader(j)); err != nil {
			return err
		}
	}
	return nil
}

func (t *toxic) Heal(ctx context.Context) error {
	t.path.Proxy.Toxics.ResetToxics(ctx)
	return nil
}

func toxicJSON(name, typ, stream string, attrs string) string {
	return fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":{%s}}`, name, typ, stream, attrs)
}

// Latency delays every byte each way by d milliseconds.
func Latency(p *node.PeerPath, ms int) Fault {
	return &toxic{name: "latency", what: fmt.Sprintf("%d ms added each way", ms), path: p, toxics: []string{
		toxicJSON("latency-down", "latency", "downstream", fmt.Sprintf(`"latency":%d`, ms)),
		toxicJSON("latency-up", "latency", "upstream", fmt.Sprintf(`"latency":%d`, ms))}}
}

// Bandwidth limits the peer's answers to kbps kilobytes per second.
func Bandwidth(p *node.PeerPath, kbps int) Fault {
	return &toxic{name: "bandwidth", what: fmt.Sprintf("answers limited to %d KB/s", kbps), path: p, toxics: []string{
		toxicJSON("bandwidth", "bandwidth", "downstream", fmt.Sprintf(`"rate":%d`, kbps))}}
}

// Reset answers every connection with a TCP reset.
func Reset(p *node.PeerPath) Fault {
	return &toxic{name: "reset", what: "connections reset (TCP RST)", path: p, toxics: []string{
		toxicJSON("reset", "reset_peer", "upstream", `"timeout":0`)}}
}

// Blackhole lets connections open but carries no data either way.
func Blackhole(p *node.PeerPath) Fault {
	return &toxic{name: "blackhole", what: "connections open, no data either way", path: p, toxics: []string{
		toxicJSON("blackhole-up", "timeout", "upstream", `"timeout":0`),
		toxicJSON("blackhole-down", "timeout", "downstream", `"timeout":0`)}}
}

// HalfOpen carries requests to the peer but none of its answers back.
func HalfOpen(p *node.PeerPath) Fault {
	return &toxic{name: "half-open", what: "requests arrive, answers never come back", path: p, toxics: []string{
		toxicJSON("half-open", "timeout", "downstream", `"timeout":0`)}}
}

// SlowClose delays closing connections by ms milliseconds.
func SlowClose(p *node.PeerPath, ms int) Fault {
	return &toxic{name: "slow-close", what: fmt.Sprintf("closing delayed %d ms", ms), path: p, toxics: []string{
		toxicJSON("slow-close", "slow_close", "downstream", fmt.Sprintf(`"delay":%d`, ms))}}
}

// Refused closes the listener: new connections are refused, open ones end.
func Refused(p *node.PeerPath) Fault { return &refused{path: p} }

type refused struct{ path *node.PeerPath }

func (r *refused) Name() string { return "refused" }
func (r *refused) Description() string {
	return "peer path into " + r.path.Address + ": listener closed, connections refused"
}
func (r *refused) Inject(context.Context) error { r.path.Proxy.Stop(); return nil }
func (r *refused) Heal(context.Context) error   { return r.path.Proxy.Start() }
