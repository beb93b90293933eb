// Package kind makes skewed control planes of kind nodes through kind's Go API
// (sigs.k8s.io/kind/pkg/cluster, Docker provider): one control-plane node per version, each
// from an offline node image (clusters/images/nodeimage) or a kind node image the user names
// (kindest/node), behind kind's load balancer. A service dataplane under test can run on a
// node (dataplane.go).
//
// kind runs kubeadm init on the first node (the oldest version) and kubeadm join on the
// others. A joining node's static pods take the cluster's version from kubeadm's stored
// configuration, so each node gets kubeadm patches (mounted from the host) that put its own
// version's images in its static pods: the state of a control plane halfway through a
// kubeadm upgrade.
package kind
