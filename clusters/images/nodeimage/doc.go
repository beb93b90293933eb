// Package nodeimage builds kind node images offline: a Debian root filesystem made with
// debootstrap, the Kubernetes binaries of one version built from the Go module proxy
// (clusters/binaries), and the images kubeadm runs (control plane, etcd, pause) made from
// binaries with go-containerregistry and loaded into the node's containerd at boot. Nothing
// is pulled from a registry. It also makes the look-alike of kind's load-balancer image.
package nodeimage
