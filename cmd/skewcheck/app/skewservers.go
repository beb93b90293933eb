//go:build !incluster

package app

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
)

type skewFlags struct {
	name, kubeconfig, context string
	contexts                  []string
}

// skewServer is one server cluster skew asks, by the name it prints.
type skewServer struct {
	name   string
	config *rest.Config
}

// servers are the servers the flags name: the local cluster's, each --contexts, or every
// apiserver found behind --context, each dialled at its own address.
func (f skewFlags) servers(ctx context.Context, streams IOStreams) ([]skewServer, error) {
	if f.kubeconfig == "" && f.context == "" && len(f.contexts) == 0 {
		return f.localServers()
	}
	if f.context != "" && len(f.contexts) > 0 {
		return nil, fmt.Errorf("--context finds every apiserver behind one context, --contexts names one context per apiserver: give one of them")
	}
	src, err := findKubeconfig(f.kubeconfig)
	if err != nil {
		return nil, err
	}
	var out []skewServer
	for _, c := range f.contexts {
		cfg, err := src.restConfig(c)
		if err != nil {
			return nil, err
		}
		out = append(out, skewServer{c, cfg})
	}
	if len(out) > 0 {
		return out, nil
	}
	// As conformance --kubeconfig finds them, reading only: nothing is made in the cluster.
	base, err := src.restConfig(f.context)
	if err != nil {
		return nil, err
	}
	found, err := existing.Discover(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("finding the apiservers of %s (%s): %w", base.Host, src, err)
	}
	var addrs []string
	for _, s := range found.Servers {
		addrs = append(addrs, s.Address)
		out = append(out, skewServer{s.Name(), existing.Pinned(base, s.Address)})
	}
	fmt.Fprintf(streams.ErrOut, "found %d apiservers behind %s: %s\n", len(found.Servers), base.Host, strings.Join(addrs, ", "))
	return out, nil
}

// localServers are the servers of the local cluster f.name, by their admin contexts.
func (f skewFlags) localServers() ([]skewServer, error) {
	rec, err := registry.Read(f.name)
	if err != nil {
		return nil, fmt.Errorf("reading cluster %q: %v: is it running? (skewcheck cluster list); for a cluster that already runs, give --context or --kubeconfig", f.name, err)
	}
	var contexts []string
	for _, s := range rec.Servers {
		contexts = append(contexts, s.Admin)
	}
	// Loaded as every kubeconfig target is; no context is ErrNoContexts.
	cfgs, err := framework.RestConfigs(rec.Kubeconfig, contexts)
	if err != nil {
		return nil, err
	}
	out := make([]skewServer, len(cfgs))
	for i, cfg := range cfgs {
		out[i] = skewServer{contexts[i], cfg}
	}
	return out, nil
}
