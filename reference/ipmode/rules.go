package ipmode

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/knftables"
)

// Table is the nftables table the reference owns (family ip).
const Table = "skewcheck-ipmode"

// masqueradeMark marks connections the reference DNATs, so that postrouting masquerades
// them and the endpoint's reply comes back through the node.
const masqueradeMark = "0x4000"

// Endpoint is one ready address and port of a Service port.
type Endpoint struct {
	IP   string
	Port int32
}

// ServicePort is one TCP port of a LoadBalancer or NodePort Service, resolved.
type ServicePort struct {
	Namespace, Name, Port string // Port is the port's name ("" for an unnamed port)
	PortNumber, NodePort  int32
	// ShortCircuit are the ingress IPs the node may send straight to an endpoint.
	ShortCircuit []string
	Endpoints    []Endpoint
	// nodeOnly serves the NodePort to the node's own traffic only (FlawCloseNodePort).
	nodeOnly bool
}

// chain names the service port's chain. "/" cannot appear in a namespace, name or port
// name, so two service ports never share a chain (as kube-proxy's nftables mode names them).
func (p ServicePort) chain() string {
	return fmt.Sprintf("svc-%s/%s/%s", p.Namespace, p.Name, p.Port)
}

func endpointChain(e Endpoint) string { return fmt.Sprintf("ep-%s/%d", e.IP, e.Port) }

// Ruleset writes the whole table for the node's ports into tx, replacing whatever the table
// held: every sync is a full, atomic rewrite, so no stale rule can survive a change.
func Ruleset(tx *knftables.Transaction, nodeIP string, ports []ServicePort) {
	tx.Add(&knftables.Table{})
	tx.Delete(&knftables.Table{})
	tx.Add(&knftables.Table{Comment: knftables.PtrTo("skewcheck reference dataplane: load-balancer IPs by ipMode")})
	base := func(name string, hook knftables.BaseChainHook, prio knftables.BaseChainPriority) {
		tx.Add(&knftables.Chain{Name: name, Type: knftables.PtrTo(knftables.NATType), Hook: knftables.PtrTo(hook), Priority: knftables.PtrTo(prio)})
	}
	base("prerouting", knftables.PreroutingHook, knftables.DNATPriority)
	base("output", knftables.OutputHook, knftables.DNATPriority)
	base("postrouting", knftables.PostroutingHook, knftables.SNATPriority)
	tx.Add(&knftables.Chain{Name: "services"})
	tx.Add(&knftables.Rule{Chain: "prerouting", Rule: "jump services"})
	tx.Add(&knftables.Rule{Chain: "output", Rule: "jump services"})
	tx.Add(&knftables.Rule{Chain: "postrouting", Rule: fmt.Sprintf("meta mark & %s == %s masquerade", masqueradeMark, masqueradeMark)})

	ports = slices.Clone(ports)
	sort.Slice(ports, func(i, j int) bool { return ports[i].chain() < ports[j].chain() })
	endpointChains := map[string]bool{}
	for _, p := range ports {
		if len(p.Endpoints) == 0 {
			continue // nothing to send to: the connection is refused by the node or the LB
		}
		svc := p.chain()
		tx.Add(&knftables.Chain{Name: svc})
		for _, ip := range p.ShortCircuit {
			tx.Add(&knftables.Rule{Chain: "services", Rule: fmt.Sprintf("ip daddr %s tcp dport %d jump %s", ip, p.PortNumber, svc),
				Comment: knftables.PtrTo(p.Namespace + "/" + p.Name + " load-balancer IP")})
		}
		if p.NodePort != 0 && nodeIP != "" {
			from := ""
			if p.nodeOnly {
				from = " fib saddr type local" // sent by the node itself
			}
			tx.Add(&knftables.Rule{Chain: "services", Rule: fmt.Sprintf("ip daddr %s tcp dport %d%s jump %s", nodeIP, p.NodePort, from, svc),
				Comment: knftables.PtrTo(p.Namespace + "/" + p.Name + " NodePort")})
		}
		var vmap []string
		for i, e := range p.Endpoints {
			ep := endpointChain(e)
			if !endpointChains[ep] {
				endpointChains[ep] = true
				tx.Add(&knftables.Chain{Name: ep})
				tx.Add(&knftables.Rule{Chain: ep, Rule: fmt.Sprintf("meta mark set meta mark | %s meta l4proto tcp dnat to %s:%d", masqueradeMark, e.IP, e.Port)})
			}
			vmap = append(vmap, fmt.Sprintf("%d : goto %s", i, ep))
		}
		tx.Add(&knftables.Rule{Chain: svc, Rule: fmt.Sprintf("numgen random mod %d vmap { %s }", len(p.Endpoints), strings.Join(vmap, ", "))})
	}
}
