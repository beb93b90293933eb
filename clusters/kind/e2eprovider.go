package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/pkg/types"

	"github.com/skewcheck/skewcheck/clusters"
)

// Provider makes a skewed kind cluster available to sigs.k8s.io/e2e-framework users, like
// local.Provider: envfuncs.CreateClusterWithOpts(kind.NewProvider(), "name", kind.WithVersions(...)).
type Provider struct {
	cfg     Config // its Dir is made by Create and removed by Destroy
	cluster *Cluster
}

var _ types.E2EClusterProvider = (*Provider)(nil)

// NewProvider returns a provider for a two-node v1.35.4 + v1.36.3 cluster unless told otherwise.
func NewProvider() *Provider { return (&Provider{}).SetDefaults().(*Provider) }

// WithVersions is a ClusterOpts setting one control-plane node per version, oldest first.
func WithVersions(versions ...string) types.ClusterOpts {
	return func(p types.E2EClusterProvider) {
		if kp, ok := p.(*Provider); ok {
			kp.cfg.Versions = versions
		}
	}
}

// WithNodeImages is a ClusterOpts naming kind node images (kindest/node:<version>, say) to
// use instead of building skewcheck's, each for the version it carries.
func WithNodeImages(refs ...string) types.ClusterOpts {
	return func(p types.E2EClusterProvider) {
		if kp, ok := p.(*Provider); ok {
			kp.cfg.NodeImages = refs
		}
	}
}

// WithProgress is a ClusterOpts sending bring-up progress to w.
func WithProgress(w io.Writer) types.ClusterOpts {
	return func(p types.E2EClusterProvider) {
		if kp, ok := p.(*Provider); ok {
			kp.cfg.Progress = w
		}
	}
}

func (p *Provider) SetDefaults() types.E2EClusterProvider {
	if len(p.cfg.Versions) == 0 {
		p.cfg.Versions = slices.Clone(clusters.DefaultVersions)
	}
	if p.cfg.Name == "" {
		p.cfg.Name = "e2e"
	}
	return p
}

func (p *Provider) WithName(name string) types.E2EClusterProvider { p.cfg.Name = name; return p }

// WithVersion takes a comma-separated list: every node of a skewed cluster has its own.
func (p *Provider) WithVersion(version string) types.E2EClusterProvider {
	p.cfg.Versions = nil
	for _, v := range strings.Split(version, ",") {
		p.cfg.Versions = append(p.cfg.Versions, strings.TrimSpace(v))
	}
	return p
}

// WithPath sets an explicit kube-apiserver binary for every version's node image.
func (p *Provider) WithPath(path string) types.E2EClusterProvider {
	if p.cfg.Binaries.Paths == nil {
		p.cfg.Binaries.Paths = map[string]string{}
	}
	for _, v := range p.cfg.Versions {
		p.cfg.Binaries.Paths["kube-apiserver@"+v] = path
	}
	return p
}

func (p *Provider) WithOpts(opts ...types.ClusterOpts) types.E2EClusterProvider {
	for _, o := range opts {
		o(p)
	}
	return p
}

func (p *Provider) Create(ctx context.Context, _ ...string) (string, error) {
	dir, err := os.MkdirTemp("", "skewcheck-kind-e2e-")
	if err != nil {
		return "", err
	}
	p.cfg.Dir = dir
	c, err := Create(ctx, p.cfg)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	p.cluster = c
	return c.Kubeconfig, nil
}

// CreateWithConfig makes the cluster configFile describes (clusters.FileConfig, the
// schema every provider reads): its name and servers replace the builder's where given.
func (p *Provider) CreateWithConfig(ctx context.Context, configFile string) (string, error) {
	fc, err := clusters.ReadFileConfig(configFile)
	if err != nil {
		return "", err
	}
	if err := p.apply(fc); err != nil {
		return "", fmt.Errorf("cluster config %s: %w", configFile, err)
	}
	return p.Create(ctx)
}

// apply takes what fc gives, refusing what a kind cluster cannot be given: its apiservers
// listen on the nodes' own port, and what its registration does not offer.
func (p *Provider) apply(fc clusters.FileConfig) error {
	if fc.Port != 0 {
		return fmt.Errorf("port %d: a kind cluster's apiservers listen on their nodes' own port 6443; leave port out of the file", fc.Port)
	}
	// What the servers ask of a provider, against what kind's registration offers: the
	// check clusters.New makes for every provider.
	kind := Registration()
	for _, c := range (clusters.Spec{Servers: fc.Servers}).Needs() {
		if !kind.Supports(c) {
			return clusters.ErrNotSupported{Provider: providerName, Capability: c}
		}
	}
	if fc.Name != "" {
		p.cfg.Name = fc.Name
	}
	if len(fc.Servers) > 0 {
		p.cfg.setServers(fc.Servers)
	}
	return nil
}

func (p *Provider) GetKubeconfig() string {
	if p.cluster == nil {
		return ""
	}
	return p.cluster.Kubeconfig
}

// GenerateKubeconfig returns the kubeconfig Create wrote (it does not change afterwards).
func (p *Provider) GenerateKubeconfig(...string) (string, error) {
	if p.cluster == nil {
		return "", errors.New("no cluster: call Create first")
	}
	return p.cluster.Kubeconfig, nil
}

func (p *Provider) GetKubectlContext() string {
	if p.cluster == nil {
		return ""
	}
	return ContextName(p.cluster.Name, p.cluster.Servers[0].Name, Admin)
}

// ExportLogs writes every node's journal, its kubelet's and containerd's, its pods' logs and
// its apiserver's audit log to dest/<node>/. (kind's own export runs crictl, which a
// skewcheck node does not have.)
func (p *Provider) ExportLogs(_ context.Context, dest string) error {
	if p.cluster == nil {
		return errors.New("no cluster: call Create first")
	}
	return p.cluster.CopyLogs(dest)
}

func (p *Provider) Destroy(ctx context.Context) error {
	if p.cluster == nil {
		return nil
	}
	err := Delete(ctx, p.cluster.Name, p.cfg.Dir)
	p.cluster = nil
	return err
}

func (p *Provider) WaitForControlPlane(ctx context.Context, _ klient.Client) error {
	if p.cluster == nil {
		return errors.New("no cluster: call Create first")
	}
	return p.cluster.WaitConverged(ctx)
}

func (p *Provider) KubernetesRestConfig() *rest.Config {
	if p.cluster == nil {
		return nil
	}
	cfg, err := p.cluster.RestConfig(p.cluster.Servers[0].Name, Admin)
	if err != nil {
		return nil
	}
	return cfg
}

// Cluster is the running cluster, for operations beyond the e2e-framework interface.
func (p *Provider) Cluster() *Cluster { return p.cluster }
