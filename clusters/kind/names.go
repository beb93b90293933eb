package kind

import "fmt"

// namePrefix starts the kind cluster's name, and so every container, network and volume it
// makes, to tell skewcheck's apart from everything else in the engine.
const namePrefix = "skewcheck-kind-"

// KindName is the kind cluster name of the skewcheck cluster called name.
func KindName(name string) string { return namePrefix + name }

// networkName is the Docker network of one cluster: its own, so deleting the cluster can
// remove it (kind's shared "kind" network would outlive every cluster).
func networkName(name string) string { return namePrefix + name }

// nodeContainer is the container kind names for the i-th control-plane node (0-based).
func nodeContainer(name string, i int) string {
	if i == 0 {
		return KindName(name) + "-control-plane"
	}
	return fmt.Sprintf("%s-control-plane%d", KindName(name), i+1)
}

func loadBalancerContainer(name string) string { return KindName(name) + "-external-load-balancer" }
