package local

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/pkg/types"

	"github.com/skewcheck/skewcheck/clusters"
)

// Provider makes a local cluster available to sigs.k8s.io/e2e-framework users, as kind and
// kwok are: envfuncs.CreateClusterWithOpts(local.NewProvider(), "name", local.WithVersions(...)).
type Provider struct {
	cfg     Config
	cluster *Cluster
}

var _ types.E2EClusterProvider = (*Provider)(nil)

// NewProvider returns a provider for a two-server v1.35.4 + v1.36.3 cluster unless told otherwise.
func NewProvider() *Provider { return (&Provider{}).SetDefaults().(*Provider) }

// WithVersions is a ClusterOpts setting one server per version.
func WithVersions(versions ...string) types.ClusterOpts {
	return func(p types.E2EClusterProvider) {
		if lp, ok := p.(*Provider); ok {
			lp.cfg.Servers = clusters.SpecsFor(versions)
		}
	}
}

// WithProgress is a ClusterOpts sending bring-up progress to w.
func WithProgress(w io.Writer) types.ClusterOpts {
	return func(p types.E2EClusterProvider) {
		if lp, ok := p.(*Provider); ok {
			lp.cfg.Progress = w
		}
	}
}

func (p *Provider) SetDefaults() types.E2EClusterProvider {
	if len(p.cfg.Servers) == 0 {
		p.cfg.Servers = clusters.SpecsFor(clusters.DefaultVersions)
	}
	return p
}

func (p *Provider) WithName(name string) types.E2EClusterProvider { p.cfg.Name = name; return p }

// WithVersion takes a comma-separated list: every server of a skewed cluster has its own.
func (p *Provider) WithVersion(version string) types.E2EClusterProvider {
	p.cfg.Servers = clusters.SpecsFor(strings.Split(version, ","))
	return p
}

// WithPath sets an explicit kube-apiserver binary for every server.
func (p *Provider) WithPath(path string) types.E2EClusterProvider {
	if p.cfg.Binaries.Paths == nil {
		p.cfg.Binaries.Paths = map[string]string{}
	}
	for _, s := range p.cfg.Servers {
		p.cfg.Binaries.Paths["kube-apiserver@"+s.Version] = path
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
	c, err := New(ctx, p.cfg)
	if err != nil {
		return "", err
	}
	p.cluster = c
	return c.Kubeconfig, nil
}

// CreateWithConfig makes the cluster configFile describes (clusters.FileConfig): its name,
// port and servers replace the builder's where given.
func (p *Provider) CreateWithConfig(ctx context.Context, configFile string) (string, error) {
	fc, err := clusters.ReadFileConfig(configFile)
	if err != nil {
		return "", err
	}
	p.apply(fc)
	return p.Create(ctx)
}

// apply takes what fc gives.
func (p *Provider) apply(fc clusters.FileConfig) {
	if fc.Name != "" {
		p.cfg.Name = fc.Name
	}
	if fc.Port != 0 {
		p.cfg.Port = fc.Port
	}
	if len(fc.Servers) > 0 {
		p.cfg.Servers = fc.Servers
	}
}

func (p *Provider) GetKubeconfig() string {
	if p.cluster == nil {
		return ""
	}
	return p.cluster.Kubeconfig
}

func (p *Provider) GenerateKubeconfig(...string) (string, error) {
	if p.cluster == nil {
		return "", errors.New("no cluster: call Create first")
	}
	return p.cluster.Kubeconfig, p.cluster.writeKubeconfig()
}

func (p *Provider) GetKubectlContext() string {
	if p.cluster == nil {
		return ""
	}
	return p.cluster.ContextName(p.cluster.Servers[0], Admin)
}

// ExportLogs copies every server's log and audit log to dest/<server>/.
func (p *Provider) ExportLogs(_ context.Context, dest string) error {
	if p.cluster == nil {
		return errors.New("no cluster: call Create first")
	}
	return p.cluster.CopyLogs(dest)
}

func (p *Provider) Destroy(context.Context) error {
	if p.cluster == nil {
		return nil
	}
	err := p.cluster.Delete()
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
	return p.cluster.RestConfig(p.cluster.Servers[0], Admin)
}

// Cluster is the running cluster, for operations beyond the e2e-framework interface.
func (p *Provider) Cluster() *Cluster { return p.cluster }

// CopyLogs copies every server's log and audit log to dest/<server>/.
func (c *Cluster) CopyLogs(dest string) error {
	var errs []error
	for _, s := range c.Servers {
		dir := filepath.Join(dest, s.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, f := range []string{s.Log(), s.AuditLog()} {
			b, err := os.ReadFile(f)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644))
		}
	}
	return errors.Join(errs...)
}
