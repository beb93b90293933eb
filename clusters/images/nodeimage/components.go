package nodeimage

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// ImageSet is the images kubeadm of one version runs, by what they hold.
type ImageSet struct {
	Images
	// Skipped are images kubeadm would use that a node does not carry (CoreDNS,
	// kube-proxy): their addons are switched off in the kubeadm configuration.
	Skipped []string
}

// kubeadmImages asks kubeadm itself which images (names and tags) its version uses, so a
// node carries exactly what its kubeadm will look for.
func kubeadmImages(ctx context.Context, kubeadm, version string) (ImageSet, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, kubeadm, "config", "images", "list", "--kubernetes-version", version)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return ImageSet{}, fmt.Errorf("%s config images list --kubernetes-version %s: %v: %s", kubeadm, version, err, strings.TrimSpace(errb.String()))
	}
	return ParseImageList(version, out.String())
}

// ParseImageList sorts what `kubeadm config images list` printed into the images of the
// control plane (the ones a node must carry) and the rest. A kind node image of any origin
// carries what its kubeadm lists: kind's own node images are made from that list too.
func ParseImageList(version, list string) (ImageSet, error) {
	var s ImageSet
	for _, ref := range strings.Fields(list) {
		colon := strings.LastIndex(ref, ":")
		if colon < 0 {
			return s, fmt.Errorf("kubeadm %s listed %q, which is not an image reference with a tag", version, ref)
		}
		repo := ref[:colon]
		switch repo[strings.LastIndex(repo, "/")+1:] {
		case "kube-apiserver":
			s.APIServer = ref
		case "kube-controller-manager":
			s.ControllerManager = ref
		case "kube-scheduler":
			s.Scheduler = ref
		case "etcd":
			s.Etcd = ref
		case "pause":
			s.Pause = ref
		default:
			s.Skipped = append(s.Skipped, ref)
		}
	}
	if s.APIServer == "" || s.ControllerManager == "" || s.Scheduler == "" || s.Etcd == "" || s.Pause == "" {
		return s, fmt.Errorf("kubeadm %s listed images %q: expected kube-apiserver, kube-controller-manager, kube-scheduler, etcd and pause among them", version, strings.Fields(list))
	}
	return s, nil
}

// nodeBinaries are the components a node image carries on its filesystem (kubelet, kubeadm,
// kubectl) or as images (the control plane).
var nodeBinaries = []binaries.Component{
	binaries.Kubeadm, binaries.Kubelet, binaries.Kubectl,
	binaries.KubeAPIServer, binaries.KubeControllerManager, binaries.KubeScheduler,
}
