// Package local is skewcheck's embedded default: one embedded etcd and N real kube-apiserver
// processes of the versions asked for, each its own host (hostname and loopback address),
// with the mixed version proxy wired up between them. No Docker, nothing downloaded but Go
// modules, and bring-up in seconds once the binaries are cached.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/pki"
)

// Config says what cluster to make. Only Servers is required.
type Config struct {
	// Name labels the cluster in hostnames and kubeconfig contexts. Default "skewcheck".
	Name    string
	Servers []clusters.ServerSpec
	// Dir holds certificates, etcd data, logs and the kubeconfig. Default: a new temporary
	// directory, removed by Delete. A Dir given by the caller is left in place.
	Dir string
	// Port is every apiserver's secure port (each has its own address). Default 6443.
	Port int
	// Slot picks the loopback block 127.77.<Slot>.0/24; 0 takes the first free one.
	Slot     int
	Binaries binaries.Options
	// Progress receives one line per step of minutes-long work; nil discards it.
	Progress io.Writer
	// PeerPaths puts a forwarder on every server's peer path (see PeerPath), for faults
	// between apiservers. A server whose spec sets PeerAdvertise keeps its own.
	PeerPaths bool
	// StartTimeout bounds one server's wait for /readyz; ConvergeTimeout the proxy's
	// convergence; StopTimeout a graceful stop before SIGKILL.
	StartTimeout, ConvergeTimeout, StopTimeout time.Duration
	// Hosts is where etcd and the apiservers run; nil: processes of this machine, each
	// apiserver its own host (hostname and loopback address). New closes it.
	Hosts Hosts
	// ControllerManager, when set, runs a real kube-controller-manager once the
	// apiservers have converged (controllermanager.go); processes of this machine only.
	ControllerManager *clusters.ControllerManagerSpec
}

func (c *Config) setDefaults() {
	if c.Name == "" {
		c.Name = "skewcheck"
	}
	if c.Port == 0 {
		c.Port = 6443
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 90 * time.Second
	}
	if c.ConvergeTimeout == 0 {
		c.ConvergeTimeout = 90 * time.Second
	}
	if c.StopTimeout == 0 {
		c.StopTimeout = 20 * time.Second
	}
	if c.Binaries.Progress == nil {
		c.Binaries.Progress = c.Progress
	}
}

// Timings are how long bring-up took, reported because readiness is not convergence.
type Timings struct {
	Ready     time.Duration `json:"ready"`     // from first start to every /readyz 200
	Converged time.Duration `json:"converged"` // from first start to every proxy path live
}

// Cluster is a running local control plane.
type Cluster struct {
	Name       string
	Dir        string
	Servers    []*Server
	PKI        *pki.Bundle
	Kubeconfig string
	Timings    Timings
	// ControllerManager is the cluster's kube-controller-manager, nil unless asked for.
	ControllerManager *ControllerManager

	cfg         Config
	ownDir      bool
	hosts       Hosts
	etcdURL     string
	auditPolicy string
	deleteOnce  sync.Once
	untrack     func()
	// adminHTTP and anonHTTP probe the servers (convergence, /readyz).
	adminHTTP, anonHTTP *http.Client
}

// New makes the cluster, starts everything and waits until it has converged. On any error
// everything it started is stopped and removed again before it returns.
func New(ctx context.Context, cfg Config) (c *Cluster, err error) {
	cfg.setDefaults()
	if len(cfg.Servers) == 0 {
		return nil, clusters.ErrNoServers
	}
	c = &Cluster{Name: cfg.Name, cfg: cfg, hosts: cfg.Hosts}
	if c.hosts == nil {
		if err := CheckPrivilege(); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			c.Delete()
			c = nil
		}
	}()
	// Binaries first: a typo in a version should fail before anything starts.
	for i, spec := range cfg.Servers {
		version, binary, err := c.binaryFor(ctx, spec.Version)
		if err != nil {
			return c, err
		}
		if spec.EmulatedVersion != "" {
			if err := CheckEmulation(version, spec.EmulatedVersion); err != nil {
				return c, fmt.Errorf("apiserver-%d: %w", i+1, err)
			}
		}
		c.Servers = append(c.Servers, &Server{
			Name: fmt.Sprintf("apiserver-%d", i+1), Version: version, Binary: binary,
			Spec: spec, Port: cfg.Port, cluster: c, state: Stopped,
		})
		if !HasPeerProxy(version) {
			fmt.Fprintf(cfg.Progress, "apiserver-%d: kube-apiserver %s has no mixed version proxy (its feature gate arrived in 1.28): it runs without one, and the tests that need it skip by their version range\n", i+1, version)
		}
	}
	if cfg.ControllerManager != nil {
		if c.ControllerManager, err = c.newControllerManager(ctx, *cfg.ControllerManager); err != nil {
			return c, err
		}
	}
	track(c)
	if err := c.prepare(); err != nil {
		return c, err
	}
	start := time.Now()
	fmt.Fprintf(cfg.Progress, "starting etcd (%s)\n", c.hosts.Kind())
	if c.etcdURL, err = c.hosts.StartEtcd(ctx, c.Dir); err != nil {
		return c, err
	}
	if err := c.startServers(ctx); err != nil {
		return c, err
	}
	c.Timings.Ready = time.Since(start)
	fmt.Fprintf(cfg.Progress, "all %d apiservers ready in %v; waiting for the mixed version proxy to converge\n", len(c.Servers), c.Timings.Ready.Round(time.Millisecond))
	if knownIncompatibility(c.runningVersions()) != "" {
		fmt.Fprintf(cfg.Progress, "kube-apiserver 1.33 and 1.34 give up on peers that start after them: adding and deleting an identity lease so they look again\n")
		if err := c.NudgePeerDiscovery(ctx); err != nil {
			return c, err
		}
	}
	if err := c.WaitConverged(ctx); err != nil {
		return c, err
	}
	c.Timings.Converged = time.Since(start)
	fmt.Fprintf(cfg.Progress, "cluster %s converged in %v\n", c.Name, c.Timings.Converged.Round(time.Millisecond))
	if c.ControllerManager != nil {
		if err := c.ControllerManager.start(ctx); err != nil {
			return c, err
		}
	}
	return c, nil
}

// binaryFor resolves a version and finds or builds its kube-apiserver.
func (c *Cluster) binaryFor(ctx context.Context, version string) (string, string, error) {
	resolved, err := binaries.Resolve(ctx, version)
	if err != nil {
		return "", "", err
	}
	path, err := binaries.Ensure(ctx, binaries.KubeAPIServer, resolved, c.cfg.Binaries)
	if err != nil {
		return "", "", err
	}
	return resolved, path, nil
}

// prepare claims addresses and writes certificates, the audit policy and the kubeconfig.
func (c *Cluster) prepare() error {
	var err error
	if c.hosts == nil {
		h, err := newProcessHosts(c.cfg.Slot)
		if err != nil {
			return err
		}
		c.hosts = h
	}
	c.Dir = c.cfg.Dir
	if c.Dir == "" {
		dirSweepOnce.Do(sweepDirs)
		if c.Dir, err = os.MkdirTemp("", fmt.Sprintf("%s%d-%s-", dirPrefix, os.Getpid(), c.Name)); err != nil {
			return fmt.Errorf("making the cluster directory: %w", err)
		}
		c.ownDir = true
	} else if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("making the cluster directory %s: %w", c.Dir, err)
	}
	if c.PKI, err = pki.New(filepath.Join(c.Dir, "pki")); err != nil {
		return err
	}
	c.adminHTTP, c.anonHTTP = c.httpClient(c.PKI.Admin), c.httpClient(pki.Pair{})
	c.auditPolicy = filepath.Join(c.Dir, "audit-policy.yaml")
	if err := os.WriteFile(c.auditPolicy, []byte(AuditPolicy), 0o644); err != nil {
		return fmt.Errorf("writing the audit policy: %w", err)
	}
	_, onProcesses := c.hosts.(*processHosts)
	for i, s := range c.Servers {
		if err := c.hosts.Place(i, s); err != nil {
			return err
		}
		s.Dir = filepath.Join(c.Dir, s.Name)
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			return fmt.Errorf("making %s: %w", s.Dir, err)
		}
		if onProcesses {
			s.Cgroup = newCgroup(c.Name + "-" + s.Name)
		}
		if c.cfg.PeerPaths && s.Spec.PeerAdvertise == "" {
			ip, err := c.hosts.HarnessAddress(40 + i + 1)
			if err != nil {
				return err
			}
			listen := fmt.Sprintf("%s:%d", ip, s.Port)
			if s.PeerPath, err = startPeerPath(c.Name+"-"+s.Name, listen, fmt.Sprintf("%s:%d", s.IP, s.Port)); err != nil {
				return err
			}
			s.Spec.PeerAdvertise = listen
		}
		// Peers verify the address they dial, which may be the peer path's.
		ips := []net.IP{net.ParseIP(s.IP)}
		if host, _, err := net.SplitHostPort(s.Spec.PeerAdvertise); err == nil {
			ips = append(ips, net.ParseIP(host))
		}
		if s.Serving, err = c.PKI.ServingCert(s.Name, []string{s.Hostname}, ips); err != nil {
			return err
		}
		if err := c.certFiles(s); err != nil {
			return err
		}
	}
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	return c.writeKubeconfig()
}

// startServers starts all apiservers at once: they are independent until they find each
// other through their leases, and starting them together halves bring-up on 2 cores.
func (c *Cluster) startServers(ctx context.Context) error {
	for _, s := range c.Servers {
		fmt.Fprintf(c.cfg.Progress, "starting %s: kube-apiserver %s as host %s at %s (log %s)\n", s.Name, s.DescribeVersion(), s.Hostname, s.URL(), s.Log())
	}
	return c.eachServer(func(s *Server) error {
		sctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
		defer cancel()
		return s.Start(sctx)
	})
}

// eachServer runs f for every server at once and joins the errors: starting or stopping
// servers one by one would add their times up for no reason.
func (c *Cluster) eachServer(f func(*Server) error) error {
	errs := make([]error, len(c.Servers))
	var wg sync.WaitGroup
	for i, s := range c.Servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(s)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// HarnessAddress is address number host of the cluster's network where the harness may
// listen in front of or between the apiservers (Hosts.HarnessAddress).
func (c *Cluster) HarnessAddress(host int) (string, error) { return c.hosts.HarnessAddress(host) }

// Server returns the server with name (apiserver-1 ...), or nil.
func (c *Cluster) Server(name string) *Server {
	for _, s := range c.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Delete stops every apiserver (gracefully, then by force), then etcd — in that order, an
// apiserver whose etcd is gone hangs on shutdown — and removes what New created. Safe to
// call more than once and on a half-made cluster.
func (c *Cluster) Delete() error {
	var errs []error
	c.deleteOnce.Do(func() {
		// Still tracked while deleting: a Ctrl-C now makes the interrupt handler wait for
		// this Delete (deleteOnce) before the signal ends the process, rather than find
		// nothing to do and end it halfway (containers, unlike processes, outlive us).
		defer untrack(c)
		// The controller manager first: with its apiservers gone it would only log.
		if c.ControllerManager != nil {
			errs = append(errs, c.ControllerManager.Stop(c.cfg.StopTimeout))
		}
		errs = append(errs, c.eachServer(func(s *Server) error { return s.Stop(c.cfg.StopTimeout) }))
		if c.hosts != nil {
			errs = append(errs, c.hosts.Close())
		}
		for _, s := range c.Servers {
			if s.PeerPath != nil {
				s.PeerPath.Proxy.Stop()
			}
			if err := removeCgroup(s.Cgroup); err != nil {
				errs = append(errs, err)
			}
		}
		if c.ownDir && c.Dir != "" {
			if err := os.RemoveAll(c.Dir); err != nil {
				errs = append(errs, fmt.Errorf("removing %s: %w", c.Dir, err))
			}
		}
	})
	return errors.Join(errs...)
}
