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
	cmd.Flags().StringVar(&r.name, "reference", "", "put skewcheck's reference implementation in front of every apiserver: "+referenceHelp())
	cmd.Flags().StringVar(&r.flaw, "reference-flaw", "", "with --reference: make every proxy deliberately wrong in one way, to see the suites fail (a mutant of skewcheck mutation): "+flawNames())
	cmd.Flags().DurationVar(&r.peerTimeout, "peer-timeout", peerproxy.DefaultPeerTimeout, "with --reference: the bound on reaching a peer, the time to 503 for a frozen one")
}

// referenceHelp lists the reference fronts with what each is.
func referenceHelp() string {
	var out []string
	for _, ref := range front.References() {
		out = append(out, ref.Name+" ("+ref.Description+")")
	}
	return strings.Join(out, "; ")
}

// validate checks the flags before anything is started for them: the reference exists,
// and so does the variant asked of it.
func (r *referenceFlags) validate() error {
	if r.name == "" {
		if r.flaw != "" {
			return fmt.Errorf("--reference-flaw %s makes a reference implementation wrong: it goes with --reference %s", r.flaw, strings.Join(front.ReferenceNames(), " or --reference "))
		}
		return nil
	}
	ref, err := front.LookupReference(r.name)
	if err != nil {
		return fmt.Errorf("--reference: %w", err)
	}
	if _, err := ref.Make(r.choice()); err != nil {
		return fmt.Errorf("--reference-flaw: %w", err)
	}
	return nil
}

func (r *referenceFlags) choice() front.ReferenceChoice {
	return front.ReferenceChoice{PeerTimeout: r.peerTimeout, Variant: r.flaw}
}

// apply checks the choice and turns upstream's proxy off where the reference does its job.
func (r *referenceFlags) apply(specs []clusters.ServerSpec) error {
	if err := r.validate(); err != nil || r.name == "" {
		return err
	}
	if ref, _ := front.LookupReference(r.name); ref.ReplacesPeerProxy {
		for i := range specs {
			specs[i].DisablePeerProxy = true
		}
	}
	return nil
}

// front is the chosen reference, with the variant asked for, in front of every
// apiserver (validate has checked both).
func (r *referenceFlags) front() front.Front {
	ref, _ := front.LookupReference(r.name)
	f, _ := ref.Make(r.choice())
	return f
}

// flawNames lists every reference's deliberate variants.
func flawNames() string {
	var names []string
	for _, ref := range front.References() {
		names = append(names, ref.Variants()...)
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
