package dataplane

import "context"

// Spec says how to run one dataplane on the node.
type Spec interface {
	// Name is how reports and logs call it: kube-proxy-nftables, reference, exec.
	Name() string
	// Release is the dataplane's version, "" where it has none of its own.
	Release() string
	// Unsupported says why this machine cannot run the dataplane, or "" when it can.
	Unsupported() string
	// Process returns the command to start on the node.
	Process(ctx context.Context, n NodeInfo) (Process, error)
}

// NodeInfo is what a dataplane needs to know of the node it runs as.
type NodeInfo struct {
	Name       string // the Node object's name
	IP         string
	Kubeconfig string // reaches the apiserver from inside the node
	Dir        string // for the dataplane's own files
}

// Process is a command line and extra environment.
type Process struct {
	Argv []string
	Env  []string
}
