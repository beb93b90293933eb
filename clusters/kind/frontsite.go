package kind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kind/pkg/cluster"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/pki"
	"github.com/skewcheck/skewcheck/framework"
)

// kubeadm's front-proxy client identity, which every node's apiserver trusts for
// X-Remote-* headers (--requestheader-allowed-names=front-proxy-client): the nodes share
// the front-proxy CA, so the first node's pair serves for all.
const (
	frontProxyCert = "/etc/kubernetes/pki/front-proxy-client.crt"
	frontProxyKey  = "/etc/kubernetes/pki/front-proxy-client.key"
)

// FrontSite lends fronts on this machine what they need of the kind cluster: they dial each
// node's apiserver where the node publishes it on this machine, listen on a loopback block
// the cluster holds until Delete, and get certificates from the cluster's own CA (read
// from the first node, as kubeadm made it), so the suites' clients and the apiservers
// trust them as they trust each other. A front's node shares its apiserver's fate and
// nothing more: kind's network faults act between nodes, never on a front's traffic from
// this machine, so a fronted node declares no network capability.
func (a *adapter) FrontSite(ctx context.Context) (*clusters.FrontSite, error) {
	direct, err := a.Target(ctx)
	if err != nil {
		return nil, err
	}
	if a.fronts == nil {
		if a.fronts, err = a.frontFiles(); err != nil {
			return nil, err
		}
	}
	if a.addresses == nil {
		if a.addresses, err = local.ClaimAddressBlock(); err != nil {
			return nil, err
		}
	}
	b := a.fronts
	site := &clusters.FrontSite{Name: a.Name, Dir: b.Dir, Kubeconfig: a.Kubeconfig, Direct: direct,
		CA: b.CA.CertFile, FrontProxyCert: b.FrontProxyClient.CertFile, FrontProxyKey: b.FrontProxyClient.KeyFile,
		AdminCert: b.Admin.CertFile, AdminKey: b.Admin.KeyFile, Address: a.addresses.IP,
		ServingCert: b.ServingCertFiles, ClientCert: b.ClientCertFiles}
	for _, s := range a.Servers {
		n := a.control[s.Name]
		site.Servers = append(site.Servers, clusters.FrontServer{Name: s.Name, URL: s.URL, Advertise: s.URL, Port: apiserverPort,
			AdminContext: ContextName(a.Name, s.Name, Admin), UserContext: ContextName(a.Name, s.Name, Unprivileged),
			Running: n.running,
			Fronted: func(sc clusters.Sidecar) framework.Node {
				return &clusters.FrontedNode{Server: n, Sidecar: sc, Down: func() bool { return !n.running() }}
			}})
	}
	return site, nil
}

// frontFiles writes, under the cluster's directory, the certificates fronts are handed as
// files: the cluster CA and its key (to issue the fronts' own), kubeadm's front-proxy
// client pair, and a system:masters identity for the fronts' own calls.
func (a *adapter) frontFiles() (*pki.Bundle, error) {
	dir := filepath.Join(a.dir, "fronts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	b := &pki.Bundle{Dir: dir,
		CA:               pki.Pair{CertFile: filepath.Join(dir, "ca.crt"), KeyFile: filepath.Join(dir, "ca.key")},
		FrontProxyClient: pki.Pair{CertFile: filepath.Join(dir, "front-proxy-client.crt"), KeyFile: filepath.Join(dir, "front-proxy-client.key")}}
	p := cluster.NewProvider(cluster.ProviderWithDocker())
	files := map[string][]byte{b.CA.CertFile: a.ca, b.CA.KeyFile: a.caKey}
	for path, node := range map[string]string{b.FrontProxyClient.CertFile: frontProxyCert, b.FrontProxyClient.KeyFile: frontProxyKey} {
		data, err := readNodeFile(p, a.Name, node)
		if err != nil {
			return nil, fmt.Errorf("the fronts' front-proxy identity: %w", err)
		}
		files[path] = data
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	}
	admin, err := b.ClientCert("front-admin", "skewcheck:front-admin", []string{"system:masters"})
	if err != nil {
		return nil, err
	}
	b.Admin = admin
	return b, nil
}
