package races

import "github.com/skewcheck/skewcheck/framework"

// expired and forged are what the races write of the registrations (upstream's identity
// leases; a target's own Registrar writes its own): the nodes' stops, kills and restarts
// are no write to the cluster.
var (
	expired = framework.Write{Resource: "leases.coordination.k8s.io", Verbs: []string{"delete"}, Scope: framework.InNamespace("kube-system"),
		Why: "the peer's identity lease, deleted while its server runs on (it registers again at its next renewal)"}
	forged = framework.Write{Resource: "leases.coordination.k8s.io", Verbs: []string{"create", "delete"}, Scope: framework.InNamespace("kube-system"),
		Why: "an identity lease of a server that does not exist, deleted when the race ends"}
)
