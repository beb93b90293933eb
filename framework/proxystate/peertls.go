package proxystate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/report"
)

// peerServerName is the name a peer verifies another's serving certificate by, against
// its --peer-ca-file: k8s.io/kubernetes v1.36.3 pkg/controlplane/apiserver/peer.go:66-73
// builds the peer transport with CAFile: peerCAFile and ServerName: "kubernetes.default.svc";
// k8s.io/apiserver v0.36.3 pkg/util/peerproxy/peerproxy.go:171 makes it the one transport
// that both fetches each peer's discovery (peer_discovery.go:203; v0.35.4 :211, v0.37.2
// :203) and proxies requests to it (peerproxy_handler.go:263, a failure answered 503 at
// :278-281), at the host:port of the peer's endpoint lease
// (peerproxy_handler.go:228-239), of which the identity lease's annotation is a copy.
const peerServerName = "kubernetes.default.svc"

// serviceAccountToken is the token file rest.InClusterConfig names in its config
// (k8s.io/client-go v0.36.3 rest/config.go:545, :572), as its CAFile names the pod's
// ServiceAccount ca.crt (:546, :564): a server config naming it is a run inside the cluster,
// which the target does not otherwise say.
const serviceAccountToken = "/var/run/secrets/kubernetes.io/serviceaccount/token"

// DialTimeout bounds each handshake, all at once and beside the one request judge may make,
// so that Read stays within Budget; a handshake on a control plane's network takes
// milliseconds.
const DialTimeout = 3 * time.Second

// checkPeerTLS dials address as a peer would: a TLS handshake as peerServerName, verified
// against the CA cfg trusts, which inside the cluster is the pod's ServiceAccount ca.crt,
// the cluster CA kubeadm's fix names as --peer-ca-file. No client certificate is offered:
// a kube-apiserver asks for one but does not require it (k8s.io/apiserver v0.36.3
// pkg/server/secure_serving.go:81, tls.RequestClientCert), and the handshake is the question.
func checkPeerTLS(ctx context.Context, cfg *rest.Config, address string) report.Finding {
	if address == "" {
		return report.Finding{State: report.NotChecked, Evidence: "its identity lease names no peer address"}
	}
	if cfg.BearerTokenFile != serviceAccountToken {
		return report.Finding{State: report.NotChecked, Evidence: report.NotCheckedOutside}
	}
	ca := cfg.TLSClientConfig.CAFile
	if ca == "" {
		return report.Finding{State: report.NotChecked, Evidence: "the pod's ServiceAccount gave no CA (rest.InClusterConfig could not load its ca.crt): mount the ServiceAccount's token and ca.crt"}
	}
	pem, err := os.ReadFile(ca)
	if err != nil {
		return report.Finding{State: report.NotChecked, Evidence: "the cluster CA could not be read: " + err.Error()}
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return report.Finding{State: report.NotChecked, Evidence: "the cluster CA " + ca + " holds no PEM certificate"}
	}
	how := fmt.Sprintf("TLS to %s as %s against %s", address, peerServerName, ca)
	ctx, cancel := context.WithTimeout(ctx, DialTimeout)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{RootCAs: roots, ServerName: peerServerName}}
	conn, err := d.DialContext(ctx, "tcp", address)
	var unverified *tls.CertificateVerificationError
	switch {
	case err == nil:
		conn.Close()
		return report.Finding{State: report.PeerTLSVerified, Evidence: how}
	case errors.As(err, &unverified):
		return report.Finding{State: report.PeerTLSUnverified, Evidence: how + ": " + err.Error()}
	}
	// Refused, timed out, or no TLS there: no session a peer could proxy over.
	return report.Finding{State: report.PeerTLSUnreachable, Evidence: how + ": " + err.Error()}
}
