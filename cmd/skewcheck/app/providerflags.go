package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/clusters/providers"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
)

// providerFlags choose what a cluster is made of. The providers, and what each can do,
// come from package clusters: this file names none of them.
type providerFlags struct {
	name, binary string
	nodeImages   []string // node images to use instead of building skewcheck's
	podNetwork   bool     // pods off their node's network reach each other and the Services
	// controllerManager is where the cluster's kube-controller-manager connects ("" none;
	// own-node, load-balancer or a server's name): the controllers profile needs one.
	controllerManager string
	cmd               *cobra.Command
}

func (p *providerFlags) add(cmd *cobra.Command) {
	p.cmd = cmd
	var kinds []string
	for _, pr := range clusters.Providers() {
		kinds = append(kinds, fmt.Sprintf("%s (%s)", pr.Name, pr.Description))
	}
	cmd.Flags().StringVar(&p.name, "provider", providers.Default, "what the cluster is made of: "+strings.Join(kinds, "; "))
	cmd.Flags().StringSliceVar(&p.nodeImages, "node-image", nil, "with a provider of node images ("+supporting(clusters.NodeImages)+"): a node image to use instead of building skewcheck's, for the Kubernetes version it carries, "+
		"which --versions must name (kindest/node:v1.35.0; pulled when missing, so a registry must be reachable); repeat it or separate with commas, one per version")
	cmd.Flags().BoolVar(&p.podNetwork, "pod-network", false, "with a provider of pod networks ("+supporting(clusters.PodNetwork)+"): a subnet per node, routed between the nodes, and kube-proxy on each, "+
		"so pods off their node's network (hydrophone's, certify's without --host-network) reach each other and the kubernetes Service; without it only host-network pods do, and the nodes' netfilter is left to --dataplane")
	cmd.Flags().StringVar(&p.controllerManager, "controller-manager", "", "with a provider of controller managers ("+supporting(clusters.ControllerManagers)+"): run a real kube-controller-manager of the oldest version, connected to "+
		"own-node (as kubeadm: the first server of its release), load-balancer (round robin over every server) or a server's name (apiserver-N); the controllers profile needs one")
	cmd.Flags().StringVar(&p.binary, "static-binary", "", "with a provider that runs skewcheck in an image (containers, for its etcd): a static (CGO_ENABLED=0) skewcheck (default: this executable)")
}

// chosen says whether --provider was given on the command line.
func (p *providerFlags) chosen() bool { return p.cmd != nil && p.cmd.Flags().Changed("provider") }

// require checks, before anything starts, that the provider exists and has every
// capability the command's flags ask for, and words what it lacks with those flags.
func (p *providerFlags) require(caps ...clusters.Capability) error {
	if len(p.nodeImages) > 0 {
		caps = append(caps, clusters.NodeImages)
	}
	if p.podNetwork {
		caps = append(caps, clusters.PodNetwork)
	}
	if p.controllerManager != "" {
		caps = append(caps, clusters.ControllerManagers)
	}
	return wordError(clusters.Require(p.name, caps...))
}

// controllerManagerSpec is what --controller-manager asks for, nil for none.
func (p *providerFlags) controllerManagerSpec() *clusters.ControllerManagerSpec {
	switch p.controllerManager {
	case "":
		return nil
	case clusters.OwnNodeWord:
		return &clusters.ControllerManagerSpec{Connect: clusters.ConnectOwnNode}
	}
	return &clusters.ControllerManagerSpec{Connect: p.controllerManager}
}

// spec completes s with what the provider flags say.
func (p *providerFlags) spec(s clusters.Spec) clusters.Spec {
	s.NodeImages, s.StaticBinary, s.PodNetwork = p.nodeImages, p.binary, p.podNetwork
	s.ControllerManager = p.controllerManagerSpec()
	return s
}

// newCluster makes the cluster of s on the chosen provider.
func (p *providerFlags) newCluster(ctx context.Context, s clusters.Spec) (clusters.Cluster, error) {
	c, err := clusters.New(ctx, p.name, p.spec(s))
	return c, wordError(err)
}

// capabilityFlags are the flags that ask a provider for each capability.
var capabilityFlags = map[clusters.Capability]string{
	clusters.NodeProxiers:            "--dataplane",
	clusters.Fronts:                  "--reference (and chaos --targets reference)",
	clusters.VendorFronts:            "--sidecar-command, --sidecar-image and --gateway*",
	clusters.ServersWithoutPeerProxy: "--no-peer-proxy (and --reference, --sidecar-*, --gateway*)",
	clusters.KubeadmPeerProxy:        "--kubeadm-peer-proxy",
	clusters.PeerAdvertise:           "--peer-advertise",
	clusters.EmulatedVersions:        "--server-flag N=--emulated-version=... (and skewcheck emulation)",
	clusters.NodeImages:              "--node-image",
	clusters.PodNetwork:              "--pod-network",
	clusters.ControllerManagers:      "--controller-manager",
	clusters.Named:                   "cluster create",
	clusters.NamedFronts:             "cluster create --reference",
}

// wordError turns the library's typed errors into the CLI's words: which flag asked for
// what, which providers have it, what to type next. main passes every error through it,
// so one that reaches the user from deep down is worded too; the commands call it where
// they add words of their own. An error it has worded once it leaves as it is, so that
// no advice is said twice.
func wordError(err error) error {
	var done wordedError
	if err == nil || errors.As(err, &done) {
		return err
	}
	if out := wordOnce(err); out != err {
		return wordedError{out}
	}
	return err
}

// wordedError is an error in the CLI's words already (wordError).
type wordedError struct{ error }

func (w wordedError) Unwrap() error { return w.error }

// wordOnce is wordError's one pass over err.
func wordOnce(err error) error {
	var port clusters.ErrPortInUse
	if errors.As(err, &port) && port.Role == clusters.ServerPort {
		return fmt.Errorf("%w, or choose another port with --port", err)
	}
	if errors.Is(err, clusters.ErrNoServers) {
		return fmt.Errorf("%w: give versions such as --versions v1.35.4,v1.36.3", err)
	}
	if errors.Is(err, framework.ErrNoContexts) {
		return fmt.Errorf("%w: give --contexts a,b", err)
	}
	var count framework.ErrContextCount
	if errors.As(err, &count) {
		return fmt.Errorf("--user-contexts has %d entries and --contexts %d: %w", count.User, count.Admin, err)
	}
	if errors.Is(err, existing.ErrNoKubeconfig) || errors.Is(err, existing.ErrServersChosen) {
		return fmt.Errorf("%w: to test a cluster that runs, give --kubeconfig FILE [--context C] and no --provider or --versions", err)
	}
	var exists registry.ErrExists
	if errors.As(err, &exists) {
		return fmt.Errorf("%w: delete it with `skewcheck cluster delete --name %s`, or choose another --name", err, exists.Name)
	}
	if worded, ok := wordBareV(err); ok {
		return worded
	}
	for _, word := range moreWordings {
		if worded, ok := word(err); ok {
			return worded
		}
	}
	var named binaries.ErrNamedBinary
	if errors.As(err, &named) && !named.FromEnv {
		// The entry in the flag's words, in place of the library's, keeping what the caller
		// said around it (which server was being started).
		return errors.New(strings.Replace(err.Error(), named.Error(), fmt.Sprintf("--binary %s=%s: %s", named.Key, named.Path, named.Problem), 1))
	}
	var unknown clusters.ErrUnknownProvider
	if errors.As(err, &unknown) {
		return fmt.Errorf("unknown provider %q: use --provider %s", unknown.Provider, strings.Join(unknown.Known, ", "))
	}
	var ns clusters.ErrNotSupported
	if errors.As(err, &ns) {
		flag := capabilityFlags[ns.Capability]
		if flag == "" {
			flag = ns.Capability.Words()
		}
		if others := supporting(ns.Capability); others != "" {
			return fmt.Errorf("%s is not supported with --provider %s yet (that provider lacks %s): use --provider %s, or leave it out", flag, ns.Provider, ns.Capability.Words(), others)
		}
		// the in-cluster build links only the providers that test a running cluster
		return fmt.Errorf("%s is not supported by this skewcheck (no provider it has offers %s): leave it out, or run the full skewcheck, which makes clusters", flag, ns.Capability.Words())
	}
	return err
}

// moreWordings word the typed errors of packages only the full CLI links (not the
// in-cluster build's): each returns the worded error and true when err is one of its own.
var moreWordings []func(err error) (error, bool)

// supporting lists the providers that have capability c.
func supporting(c clusters.Capability) string {
	var out []string
	for _, p := range clusters.Providers() {
		if p.Supports(c) {
			out = append(out, p.Name)
		}
	}
	return strings.Join(out, " or ")
}

// lacks says whether provider is a known one that lacks capability c (an unknown one is
// refused elsewhere, with the providers there are).
func lacks(provider string, c clusters.Capability) bool {
	p, err := clusters.Lookup(provider)
	return err == nil && !p.Supports(c)
}
