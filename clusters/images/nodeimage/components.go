package nodeimage

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// imageSet is the images kubeadm of one version runs, by what they hold.
type imageSet struct {
	APIServer, ControllerManager, Scheduler, Etcd, Pause string
	// Skipped are images kubeadm would use that a node does not carry (CoreDNS,
	// kube-proxy): their addons are switched off in the kubeadm configuration.
	Skipped []string
}

// kubeadmImages asks kubeadm itself which images (names and tags) its version uses, so a
// node carries exactly what its kubeadm will look for.
func kubeadmImages(ctx context.Context, kubeadm, version string) (imageSet, error) {
	var s imageSet
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, kubeadm, "config", "images", "list", "--kubernetes-version", version)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return s, fmt.Errorf("%s config images list --kubernetes-version %s: %v: %s", kubeadm, version, err, strings.TrimSpace(errb.String()))
	}
	for _, ref := range strings.Fields(out.String()) {
		repo := ref[:strings.LastIndex(ref, ":")]
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
		return s, fmt.Errorf("kubeadm %s listed images %q: expected kube-apiserver, kube-controller-manager, kube-scheduler, etcd and pause among them", version, strings.Fields(out.String()))
	}
	return s, nil
}

// nodeBinaries are the components a node image carries on its filesystem (kubelet, kubeadm,
// kubectl) or as images (the control plane).
var nodeBinaries = []binaries.Component{
	binaries.Kubeadm, binaries.Kubelet, binaries.Kubectl,
	binaries.KubeAPIServer, binaries.KubeControllerManager, binaries.KubeScheduler,
}
