package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
)

// referenceFlags choose a reference implementation to put in front of a local cluster's
// apiservers; create and conformance share them.
type referenceFlags struct {
	name        string
	peerTimeout time.Duration
}

func (r *referenceFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.name, "reference", "", "put skewcheck's reference implementation in front of every apiserver: peerproxy (the apiservers then run with the gate off)")
	cmd.Flags().DurationVar(&r.peerTimeout, "peer-timeout", 2*time.Second, "with --reference peerproxy: the bound on reaching a peer, the time to 503 for a frozen one")
}

// apply checks the choice and turns upstream's proxy off where the reference does its job.
func (r *referenceFlags) apply(specs []local.ServerSpec) error {
	switch r.name {
	case "":
		return nil
	case "peerproxy":
		for i := range specs {
			specs[i].DisablePeerProxy = true
		}
		return nil
	}
	return fmt.Errorf("unknown --reference %q: the reference implementations are: peerproxy", r.name)
}

// addProxyContexts adds, for each proxy endpoint, an admin and a user context to the
// cluster's kubeconfig and to its record: "<cluster>-peerproxy-apiserver-N[-user]".
func addProxyContexts(c *local.Cluster, t *framework.Target, rec *registry.Record) error {
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		return err
	}
	for i, e := range t.Endpoints {
		s := c.Servers[i]
		name := c.Name + "-" + e.Name
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: e.URL, CertificateAuthority: c.PKI.CA.CertFile}
		admin, user := c.ContextName(s, local.Admin), c.ContextName(s, local.Unprivileged)
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: cfg.Contexts[admin].AuthInfo}
		cfg.Contexts[name+"-user"] = &clientcmdapi.Context{Cluster: name, AuthInfo: cfg.Contexts[user].AuthInfo}
		rec.Servers[i].Proxy = &registry.Endpoint{URL: e.URL, Admin: name, User: name + "-user"}
	}
	return clientcmd.WriteToFile(*cfg, c.Kubeconfig)
}
