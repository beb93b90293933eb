package proxystate

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Issue is kubeadm's issue about --peer-ca-file: kubeadm never sets it, waiting for the
// gate to go GA.
const Issue = "https://github.com/kubernetes/kubeadm/issues/3301"

// maker is how the cluster was made, which decides how its fix is worded.
type maker int

const (
	madeUnknown   maker = iota // neither kubeadm's ConfigMap nor its absence could be read
	madeSkewcheck              // skewcheck started the servers (local, containers, kind)
	madeKubeadm                // kube-system/kubeadm-config exists
	madeOtherwise              // no kubeadm-config: a managed service, k3s, hand-made
)

// madeBy asks whether kubeadm made the cluster: it writes kube-system/kubeadm-config (the
// ClusterConfiguration) at init and reads it at every join and upgrade.
func madeBy(ctx context.Context, cfg *rest.Config) maker {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return madeUnknown
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	_, err = cs.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, "kubeadm-config", metav1.GetOptions{})
	switch {
	case err == nil:
		return madeKubeadm
	case apierrors.IsNotFound(err):
		return madeOtherwise
	}
	return madeUnknown
}

// The fixes, by how the cluster was made. The peer CA is the CA that signed every
// apiserver's serving certificate: peers verify it with the name kubernetes.default.svc
// (k8s.io/kubernetes v1.36.3 pkg/controlplane/apiserver/peer.go:70-77), which kubeadm's
// apiserver certificate carries, signed by /etc/kubernetes/pki/ca.crt
// (cmd/kubeadm/app/phases/certs/certlist.go:293-298, app/util/pkiutil/pki_helpers.go:392).
// kubeadm already sets the front-proxy client certificate and the --requestheader-* flags
// the proxied request authenticates with (app/phases/controlplane/manifests.go:202-211).
// --peer-advertise-ip/-port are not needed: 1.36.3 never copies them into the address it
// advertises (config.go sets no Extra.PeerAdvertiseAddress; server.go:189 and :260 use it),
// so peers dial --advertise-address:--secure-port.
const (
	fixSkewcheck = "skewcheck started these servers so (--kubeadm-peer-proxy, --no-peer-proxy, or a --server-flag emptying --peer-ca-file or turning the gate off): leave that out for an active proxy."

	fixKubeadm = `kubeadm sets no --peer-ca-file. Add it to the ClusterConfiguration (kube-system/kubeadm-config, kubeadm.k8s.io/v1beta4), so that joins and upgrades keep it:
  apiServer:
    extraArgs:
    - name: peer-ca-file
      value: /etc/kubernetes/pki/ca.crt
and on every control-plane node add --peer-ca-file=/etc/kubernetes/pki/ca.crt to /etc/kubernetes/manifests/kube-apiserver.yaml, or give kubeadm init/join/upgrade a patch in its --patches directory, kube-apiserver+json.json:
  [{"op": "add", "path": "/spec/containers/0/command/-", "value": "--peer-ca-file=/etc/kubernetes/pki/ca.crt"}]
(kind: the same ClusterConfiguration under kubeadmConfigPatches). /etc/kubernetes/pki/ca.crt signs every apiserver's serving certificate; kubeadm already sets the front-proxy and --requestheader-* flags the proxy needs, and peers dial --advertise-address:--secure-port, so --peer-advertise-ip/--peer-advertise-port are not needed.`

	fixFlags = `Give every kube-apiserver --peer-ca-file=<the CA that signed every apiserver's serving certificate, which must carry the DNS name kubernetes.default.svc>. The proxy also needs --proxy-client-cert-file and --proxy-client-key-file, a client certificate every peer trusts through --requestheader-client-ca-file and --requestheader-allowed-names, and --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group --requestheader-extra-headers-prefix=X-Remote-Extra- (and --requestheader-uid-headers=X-Remote-Uid from 1.32). Peers dial --advertise-address:--secure-port; --peer-advertise-ip/--peer-advertise-port are not needed.`

	// fixGate is added where the gate is off: before 1.36 it is alpha and off.
	fixGate = `Where the gate is off, also --feature-gates=UnknownVersionInteroperabilityProxy=true (1.28 to 1.32 also need StorageVersionAPI=true and --runtime-config=internal.apiserver.k8s.io/v1alpha1=true).`
)

// fix is the fix for an inert proxy, for the way the cluster was made.
func fix(m maker, gateOff bool) string {
	var s string
	switch m {
	case madeSkewcheck:
		return fixSkewcheck
	case madeKubeadm:
		s = fixKubeadm
	case madeOtherwise:
		s = fixFlags
	default:
		s = "On a kubeadm cluster: " + fixKubeadm + "\nOn any other: " + fixFlags
	}
	if gateOff {
		s += "\n" + fixGate
	}
	return s
}
