package local

import (
	"context"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// FrontSite lends a front the cluster's own PKI and address block: fronts listen on
// addresses of the cluster's loopback block (or, on other hosts, addresses this machine
// reaches: the hosts say which).
func (c *Cluster) FrontSite(ctx context.Context) (*clusters.FrontSite, error) {
	direct, err := c.Target(ctx)
	if err != nil {
		return nil, err
	}
	site := &clusters.FrontSite{Name: c.Name, Dir: c.Dir, Kubeconfig: c.Kubeconfig, Direct: direct,
		CA: c.PKI.CA.CertFile, FrontProxyCert: c.PKI.FrontProxyClient.CertFile, FrontProxyKey: c.PKI.FrontProxyClient.KeyFile,
		AdminCert: c.PKI.Admin.CertFile, AdminKey: c.PKI.Admin.KeyFile, Address: c.HarnessAddress,
		ServingCert: c.PKI.ServingCertFiles, ClientCert: c.PKI.ClientCertFiles}
	for _, s := range c.Servers {
		advertise := s.URL()
		if s.PeerPath != nil {
			advertise = "https://" + s.PeerPath.Address
		}
		s := s
		site.Servers = append(site.Servers, clusters.FrontServer{Name: s.Name, URL: s.URL(), Advertise: advertise, Port: s.Port,
			AdminContext: c.ContextName(s, Admin), UserContext: c.ContextName(s, Unprivileged),
			Running: func() bool { return s.State() == Running },
			Fronted: func(sc clusters.Sidecar) framework.Node { return NewFronted(s, sc) }})
	}
	return site, nil
}
