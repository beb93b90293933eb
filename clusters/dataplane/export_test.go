package dataplane

// NodeName is the name of the Node a dataplane registered, for the external tests (which
// import clusters/local, and so package clusters, which imports this one).
func NodeName(d *Dataplane) string { return d.topo.node.Name }

// ClientIP is the address of the topology's client host.
const ClientIP = clientIP
