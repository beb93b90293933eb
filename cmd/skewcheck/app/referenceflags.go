package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// referenceFlags choose a reference implementation to put in front of a local cluster's
// apiservers; create and conformance share them.
type referenceFlags struct {
	name        string
	flaw        string
	peerTimeout time.Duration
}

func (r *referenceFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.name, "reference", "", "put skewcheck's reference implementation in front of every apiserver: peerproxy (the apiservers then run with the gate off)")
	cmd.Flags().StringVar(&r.flaw, "reference-flaw", "", "with --reference peerproxy: make every proxy deliberately wrong in one way, to see the suites fail (a mutant of skewcheck mutation): "+flawNames())
	cmd.Flags().DurationVar(&r.peerTimeout, "peer-timeout", 2*time.Second, "with --reference peerproxy: the bound on reaching a peer, the time to 503 for a frozen one")
}

// validate checks the flags before anything is started for them.
func (r *referenceFlags) validate() error {
	if _, err := peerproxy.ParseFlaw(r.flaw); err != nil {
		return fmt.Errorf("--reference-flaw: %w", err)
	}
	if r.flaw != "" && r.name != "peerproxy" {
		return fmt.Errorf("--reference-flaw %s makes the reference peer proxy wrong: it goes with --reference peerproxy", r.flaw)
	}
	return nil
}

// apply checks the choice and turns upstream's proxy off where the reference does its job.
func (r *referenceFlags) apply(specs []clusters.ServerSpec) error {
	if err := r.validate(); err != nil {
		return err
	}
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

// front is the reference peer proxy, with the flaw asked for, in front of every apiserver.
func (r *referenceFlags) front() front.Front {
	return front.PeerProxy{PeerTimeout: r.peerTimeout, Flaw: peerproxy.Flaw(r.flaw)}
}

func flawNames() string {
	var names []string
	for _, f := range peerproxy.Flaws() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// addProxyContexts adds, for each proxy endpoint, an admin and a user context to the
// cluster's kubeconfig and to its record: "<cluster>-peerproxy-apiserver-N[-user]".
func addProxyContexts(site *clusters.FrontSite, t *framework.Target, rec *registry.Record) error {
	cfg, err := clientcmd.LoadFromFile(site.Kubeconfig)
	if err != nil {
		return err
	}
	for i, e := range t.Endpoints {
		s := site.Servers[i]
		name := site.Name + "-" + e.Name
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: e.URL, CertificateAuthority: site.CA}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: cfg.Contexts[s.AdminContext].AuthInfo}
		cfg.Contexts[name+"-user"] = &clientcmdapi.Context{Cluster: name, AuthInfo: cfg.Contexts[s.UserContext].AuthInfo}
		rec.Servers[i].Proxy = &registry.Endpoint{URL: e.URL, Admin: name, User: name + "-user"}
	}
	return clientcmd.WriteToFile(*cfg, site.Kubeconfig)
}
