package local

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/skewcheck/skewcheck/clusters/pki"
)

// Identity is who a client is: the admin (system:masters) or an unprivileged user that RBAC
// grants nothing, so a 403 shows that authorization ran where the request landed.
type Identity string

const (
	Admin        Identity = "admin"
	Unprivileged Identity = "user"
)

// ContextName is the kubeconfig context for a server and identity: "<cluster>-apiserver-1"
// for the admin, "<cluster>-apiserver-1-user" for the unprivileged user.
func (c *Cluster) ContextName(s *Server, id Identity) string {
	name := c.Name + "-" + s.Name
	if id == Unprivileged {
		name += "-user"
	}
	return name
}

// writeKubeconfig writes one cluster entry per server (each its own endpoint, never a load
// balancer: the suites must know which server a request entered) and two contexts each.
func (c *Cluster) writeKubeconfig() error {
	cfg := clientcmdapi.NewConfig()
	cfg.AuthInfos[string(Admin)] = &clientcmdapi.AuthInfo{ClientCertificate: c.PKI.Admin.CertFile, ClientKey: c.PKI.Admin.KeyFile}
	cfg.AuthInfos[string(Unprivileged)] = &clientcmdapi.AuthInfo{ClientCertificate: c.PKI.User.CertFile, ClientKey: c.PKI.User.KeyFile}
	for _, s := range c.Servers {
		cluster := c.Name + "-" + s.Name
		cfg.Clusters[cluster] = &clientcmdapi.Cluster{Server: s.URL(), CertificateAuthority: c.PKI.CA.CertFile}
		for _, id := range []Identity{Admin, Unprivileged} {
			cfg.Contexts[c.ContextName(s, id)] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: string(id)}
		}
	}
	cfg.CurrentContext = c.ContextName(c.Servers[0], Admin)
	if err := clientcmd.WriteToFile(*cfg, c.Kubeconfig); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", c.Kubeconfig, err)
	}
	return nil
}

// RestConfig is a client config for one server as one identity.
func (c *Cluster) RestConfig(s *Server, id Identity) *rest.Config {
	pair := c.PKI.Admin
	if id == Unprivileged {
		pair = c.PKI.User
	}
	return &rest.Config{
		Host: s.URL(),
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: c.PKI.CA.CertFile, CertFile: pair.CertFile, KeyFile: pair.KeyFile,
		},
		QPS: 1000, Burst: 1000, // the suites measure servers, not client-side throttling
	}
}

// AsNodeProxier returns a copy of base (a config for any endpoint of this cluster, a
// server or a proxy in front of one) that authenticates as kube-proxy's own user,
// system:kube-proxy, which upstream's bootstrap RBAC binds to system:node-proxier: what a
// service dataplane may do and no more. The certificate is issued by the cluster CA.
func (c *Cluster) AsNodeProxier(base *rest.Config) (*rest.Config, error) {
	pair, err := c.PKI.ClientCert("kube-proxy", "system:kube-proxy", nil)
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(base)
	cfg.CertFile, cfg.KeyFile, cfg.CertData, cfg.KeyData = pair.CertFile, pair.KeyFile, nil, nil
	return cfg, nil
}

// httpClient is a plain HTTP client trusting the cluster CA, with a client cert if given.
// Keep-alives are off: these clients poll servers that restart, and must never wait on a
// connection to a process that is gone. Made once per cluster (see prepare).
func (c *Cluster) httpClient(pair pki.Pair) *http.Client {
	pool := x509.NewCertPool()
	if ca, err := os.ReadFile(c.PKI.CA.CertFile); err == nil {
		pool.AppendCertsFromPEM(ca)
	}
	tc := &tls.Config{RootCAs: pool}
	if pair.CertFile != "" {
		if cert, err := tls.LoadX509KeyPair(pair.CertFile, pair.KeyFile); err == nil {
			tc.Certificates = []tls.Certificate{cert}
		}
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tc, DisableKeepAlives: true}}
}
