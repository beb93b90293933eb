package local

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/clusters"
)

// Gate is the feature gate of the Mixed Version Proxy (KEP-4020).
const Gate = "UnknownVersionInteroperabilityProxy"

// minor returns the minor number of a resolved version such as v1.36.3.
func minor(version string) int {
	var maj, min int
	fmt.Sscanf(strings.TrimPrefix(semver.MajorMinor(version), "v"), "%d.%d", &maj, &min)
	return min
}

// gateDefault is whether the gate is on when nobody sets it: alpha (off) up to 1.35, beta and on from 1.36.
func gateDefault(version string) bool { return minor(version) >= 36 }

// gateSince is the first minor with the gate: a 1.27 kube-apiserver refuses to start when
// told of it, and has no --peer-ca-file.
const gateSince = 28

// HasPeerProxy reports whether a kube-apiserver of this resolved version has the Mixed
// Version Proxy at all.
func HasPeerProxy(version string) bool { return minor(version) >= gateSince }

// peerProxyEnabled decides whether a server of a resolved version proxies: its gate is on
// and it has a peer CA. Upstream builds the proxy only when --peer-ca-file is set
// (k8s.io/kubernetes pkg/controlplane/apiserver/config.go:325 in 1.36.3, :323 in 1.35.4),
// so extra flags that empty it (--peer-ca-file=, the last value wins) leave a server that
// never proxies, while, its gate on, it still writes its endpoint lease and its peers
// proxy to it (docs/spec-vs-code.md: the KEP says 503 there).
func peerProxyEnabled(version string, s clusters.ServerSpec) bool {
	return gateEnabled(version, s) && !peerCAEmptied(s) && !s.KubeadmPeerProxy
}

// peerCAEmptied reports whether the spec's extra flags end with an empty --peer-ca-file.
func peerCAEmptied(s clusters.ServerSpec) bool {
	emptied := false
	for _, f := range s.ExtraFlags {
		if v, ok := strings.CutPrefix(f, "--peer-ca-file="); ok {
			emptied = strings.TrimSpace(v) == ""
		}
	}
	return emptied
}

// gateEnabled decides whether a server of a resolved version runs with the proxy's gate on:
// the spec's wish, unless its extra flags set the gate explicitly, in which case they win (a
// user who passes --feature-gates=UnknownVersionInteroperabilityProxy=false means it).
// A version before the gate existed runs without it, whatever was asked: the tests that
// need the proxy skip such a server by their version range.
func gateEnabled(version string, s clusters.ServerSpec) bool {
	if !HasPeerProxy(version) {
		return false
	}
	on := !s.DisablePeerProxy
	if on && s.KubeadmPeerProxy {
		on = gateDefault(featureRelease(version, s)) // kubeadm names no gate
	}
	for _, f := range s.ExtraFlags {
		v, ok := strings.CutPrefix(f, "--feature-gates=")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(v, ",") {
			if name, val, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(name) == Gate {
				on = strings.EqualFold(strings.TrimSpace(val), "true")
			}
		}
	}
	return on
}

// apiserverFlags builds the command line of one kube-apiserver. Version differences (a
// server that emulates an older release gets that release's feature gates, emulation.go):
//   - up to 1.27: no gate, no proxy (HasPeerProxy).
//   - 1.28-1.35: the gate is alpha and must be switched on; 1.36+: beta, on by default.
//   - 1.28-1.32: the proxy also needs StorageVersionAPI and the internal.apiserver.k8s.io API.
//   - 1.32+: --requestheader-uid-headers exists, so the UID survives the hop (1.32: behind
//     the alpha gate RemoteRequestHeaderUID, which must be on for the flag to be accepted).
//   - Proxying switches on only with --peer-ca-file, which is rejected when the gate is off.
//
// The peers' serving certs are signed by the cluster CA, so the cluster CA is the peer CA;
// every peer trusts the front-proxy client cert the proxying server presents.
func apiserverFlags(c *Cluster, s *Server) []string {
	b := c.PKI
	f := []string{
		"--advertise-address=" + advertiseAddress(s),
		"--bind-address=" + s.IP,
		fmt.Sprintf("--secure-port=%d", s.Port),
		"--etcd-servers=" + c.etcdURL,
		"--cert-dir=" + filepath.Join(s.Dir, "certs"),
		"--tls-cert-file=" + s.Serving.CertFile,
		"--tls-private-key-file=" + s.Serving.KeyFile,
		"--client-ca-file=" + b.CA.CertFile,
		"--service-account-key-file=" + b.ServiceAccountPub,
		"--service-account-signing-key-file=" + b.ServiceAccountKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=" + serviceCIDR,
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		// Loopback addresses are not valid endpoints of the kubernetes Service; the
		// reconciler would log an error every few seconds and change nothing we test.
		"--endpoint-reconciler-type=none",
		// A watch over HTTP/2 (client-go's, kube-proxy's) holds a stopping apiserver for up to
		// its request timeout (60s): net/http waits for open streams after GOAWAY. Draining
		// watches at shutdown makes a graceful stop take about 2s, as it does without them.
		"--shutdown-watch-termination-grace-period=2s",
		"--requestheader-client-ca-file=" + b.FrontProxyCA.CertFile,
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + b.FrontProxyClient.CertFile,
		"--proxy-client-key-file=" + b.FrontProxyClient.KeyFile,
		"--audit-policy-file=" + c.auditPolicy,
		"--audit-log-path=" + s.AuditLog(),
		"--audit-log-maxsize=100",
		"--v=1",
	}
	// m is the binary's minor, which decides what flags and code paths exist; features'
	// defaults are those of the release the server emulates, if it emulates one.
	m, features := minor(s.Version), featureVersion(s)
	if m >= 32 {
		f = append(f, "--requestheader-uid-headers=X-Remote-Uid")
	}
	if e := s.Spec.EmulatedVersion; e != "" {
		f = append(f, "--emulated-version="+strings.TrimPrefix(e, "v")) // kube-apiserver wants major.minor
	}
	on := gateEnabled(s.Version, s.Spec)
	var gates []string
	switch {
	case on && !gateDefault(features):
		gates = append(gates, Gate+"=true")
	case !on && gateDefault(features):
		gates = append(gates, Gate+"=false")
	}
	if on && m <= 32 {
		gates = append(gates, "StorageVersionAPI=true")
		f = append(f, "--runtime-config=internal.apiserver.k8s.io/v1alpha1=true")
	}
	if m == 27 {
		// SelfSubjectReview, how skewcheck learns who a client identity is, is GA from 1.28;
		// 1.27 has it as a beta API, and new beta APIs are off unless asked for.
		f = append(f, "--runtime-config=authentication.k8s.io/v1beta1=true")
	}
	if m >= 32 && minor(features) == 32 {
		// 1.32 has the UID header flag behind an alpha gate (beta and on from 1.33), and
		// refuses the flag without it; so does a newer binary emulating 1.32.
		gates = append(gates, "RemoteRequestHeaderUID=true")
	}
	if len(gates) > 0 {
		f = append(f, "--feature-gates="+strings.Join(gates, ","))
	}
	if on && !s.Spec.KubeadmPeerProxy { // kubeadm sets no peer CA (kubernetes/kubeadm#3301)
		// The server's own copy of the cluster CA (certfiles.go), so a fault can replace
		// one server's peer CA without touching every server's --client-ca-file.
		peerCA := s.Certs.PeerCA
		if peerCA == "" {
			peerCA = b.CA.CertFile
		}
		f = append(f, "--peer-ca-file="+peerCA)
	}
	if on && s.Spec.PeerAdvertise != "" {
		ip, port, _ := net.SplitHostPort(s.Spec.PeerAdvertise) // checked when the spec was made
		f = append(f, "--peer-advertise-ip="+ip, "--peer-advertise-port="+port)
	}
	return append(f, s.Spec.ExtraFlags...)
}

// advertiseAddress is the server's own address, or its PeerAdvertise IP when that has the
// server's port. kube-apiserver 1.35 and 1.36 parse --peer-advertise-ip/-port but never
// use them: CreateConfig (pkg/controlplane/apiserver/config.go) does not copy them into
// Extra.PeerAdvertiseAddress, so the peer endpoint lease and the identity lease's
// kubernetes.io/peer-advertise-address carry --advertise-address:--secure-port (server.go,
// getPeerAddress). The advertise address is what peers really dial, so a peer path (or a
// user's --peer-advertise) goes there too; both flags are passed, for versions that honour
// the documented one. Clients never use the advertise address: the kubernetes Service's
// endpoint reconciler is off.
func advertiseAddress(s *Server) string {
	if !gateEnabled(s.Version, s.Spec) || s.Spec.PeerAdvertise == "" {
		return s.IP
	}
	ip, port, err := net.SplitHostPort(s.Spec.PeerAdvertise)
	if err != nil || port != fmt.Sprint(s.Port) {
		return s.IP
	}
	return ip
}

// AuditPolicy records who asked for what at Metadata level: enough to see, on the peer, the
// user, groups and UID a proxied request arrived with, without logging bodies. Every
// provider's apiservers use it.
const AuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/readyz*", "/livez*", "/healthz*"]
- level: None
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
  users: ["system:apiserver"]
- level: Metadata
`
