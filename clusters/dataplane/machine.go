package dataplane

import "context"

// Machine is an existing machine the dataplane runs on instead of a network namespace of
// its own: a kind node, which is a container of the local Docker engine. The topology's
// veth, address and route to the load balancers go into its network namespace (and go
// with the topology); a command dataplane runs in that namespace, an Image's container
// joins it. Its own kube-apiserver serves on 127.0.0.1:6443 there, where the dataplane's
// kubeconfig points, so no bridge to the apiserver is made.
type Machine struct {
	Container string // the container's name
	Pid       int    // a process of the container: its network namespace is the node's
}

// Machines is a cluster whose apiservers run on machines of their own (kind nodes): a
// dataplane runs on its apiserver's machine, as kube-proxy would. It is declared here, by
// the dataplanes that use it, so the abstract clusters package needs no dataplane.
type Machines interface {
	DataplaneMachine(ctx context.Context, server string) (*Machine, error)
}
