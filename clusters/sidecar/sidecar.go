// Package sidecar puts a vendor's proxy, given as a shell command or a container image, in
// front of every apiserver of a cluster (a front, clusters/front), the way skewcheck's
// reference peer proxy is put there (front.PeerProxy). The proxies are the target's
// endpoints, and the suites keep everything the cluster allows: stopping, killing and
// freezing servers (the sidecar shares its apiserver's fate), and reading their audit
// logs. So a sidecar can pass every profile, which against an existing cluster it cannot.
package sidecar

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/skewcheck/skewcheck/internal/logtail"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/framework"
)

// Config says what to run in front of each apiserver.
type Config struct {
	// Name is the sidecar's name in the report (target "sidecar:<Name>").
	Name string
	// Shell is run with sh -c, once per apiserver, with the environment Env describes.
	Shell string
	// Image, instead of Shell, is a container image in the local Docker engine, run once per
	// apiserver with the same environment (image.go).
	Image string
	// Dir keeps each sidecar's log; the cluster's directory when empty.
	Dir string
	// ReadyTimeout bounds the wait for a sidecar to answer /version (default 60s).
	ReadyTimeout time.Duration
	Progress     io.Writer
	// Leases, when set, is how the sidecars register with one another (leases.go).
	Leases *Leases
}

// Env is what each sidecar process finds in its environment.
const Env = `SKEWCHECK_ID               the sidecar's name among its peers (unique)
SKEWCHECK_LISTEN           ip:port to serve clients on (TLS)
SKEWCHECK_SERVING_CERT     serving certificate for SKEWCHECK_LISTEN, and its key in
SKEWCHECK_SERVING_KEY
SKEWCHECK_CLIENT_CA        CA of client certificates (as kube-apiserver's --client-ca-file)
SKEWCHECK_APISERVER        URL of the apiserver it fronts
SKEWCHECK_APISERVER_CA     CA of the apiservers' serving certificates
SKEWCHECK_ADVERTISE_URL    URL peers should use to reach that apiserver (its peer path)
SKEWCHECK_FRONT_PROXY_CERT client certificate the apiservers trust for X-Remote-* headers,
SKEWCHECK_FRONT_PROXY_KEY  and its key
SKEWCHECK_CONTROL_CERT     an admin identity for the sidecar's own calls, and its key
SKEWCHECK_CONTROL_KEY`

func (Config) Capability() clusters.Capability { return clusters.VendorFronts }

// Put starts a sidecar in front of every server of site and returns the target of the
// sidecars; stop ends them. Each listens at its apiserver's front address
// (FrontSite.ServerFrontAddress), on its apiserver's port.
func (cfg Config) Put(ctx context.Context, site *clusters.FrontSite) (*framework.Target, func(), error) {
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 60 * time.Second
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Dir == "" {
		cfg.Dir = site.Dir
	}
	var nodes []*node
	rt, err := cfg.runtime(ctx)
	if err != nil {
		return nil, nil, err
	}
	stop := func() {
		for _, n := range nodes {
			n.StopSidecar(true)
		}
		if rt != nil {
			rt.Close()
		}
	}
	t := &framework.Target{Kind: "sidecar:" + cfg.Name}
	envs := map[string][]string{} // by endpoint, for the leases' names
	for i, s := range site.Servers {
		listen, err := site.ServerFrontAddress(i)
		if err != nil {
			stop()
			return nil, nil, err
		}
		cert, key, err := site.ServingCert("sidecar-"+s.Name, nil, []net.IP{net.ParseIP(listen)})
		if err != nil {
			stop()
			return nil, nil, err
		}
		addr := net.JoinHostPort(listen, strconv.Itoa(s.Port))
		e := front.Endpoint(site, i, "sidecar-"+s.Name, "https://"+addr, nil)
		n := &node{server: s.Name, cfg: cfg, rt: rt, admin: e.Admin, log: filepath.Join(cfg.Dir, "sidecar-"+s.Name+".log"), env: []string{
			"SKEWCHECK_ID=" + site.Name + "-" + s.Name,
			"SKEWCHECK_LISTEN=" + addr,
			"SKEWCHECK_SERVING_CERT=" + cert, "SKEWCHECK_SERVING_KEY=" + key,
			"SKEWCHECK_CLIENT_CA=" + site.CA,
			"SKEWCHECK_APISERVER=" + s.URL, "SKEWCHECK_APISERVER_CA=" + site.CA,
			"SKEWCHECK_ADVERTISE_URL=" + s.Advertise,
			"SKEWCHECK_FRONT_PROXY_CERT=" + site.FrontProxyCert, "SKEWCHECK_FRONT_PROXY_KEY=" + site.FrontProxyKey,
			"SKEWCHECK_CONTROL_CERT=" + site.AdminCert, "SKEWCHECK_CONTROL_KEY=" + site.AdminKey,
		}}
		fmt.Fprintf(cfg.Progress, "starting sidecar %s in front of %s at %s (log %s)\n", cfg.Name, s.Name, e.URL, n.log)
		nodes = append(nodes, n) // before starting: stop also ends a sidecar that started but never served
		if err := n.StartSidecar(ctx); err != nil {
			stop()
			return nil, nil, err
		}
		e.Log, e.Node = n.log, s.Fronted(n)
		envs[e.Name] = n.env
		t.Endpoints = append(t.Endpoints, e)
	}
	if cfg.Leases != nil {
		t.Registrar = cfg.Leases.registrar(site, envs)
	}
	t.Converge = func(ctx context.Context) error { return framework.WaitReachable(ctx, t, 90*time.Second) }
	if err := t.Converge(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("sidecars %s: %w", cfg.Name, err)
	}
	if err := t.Refresh(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return t, stop, nil
}

// node is the sidecar in front of one apiserver (FrontServer.Fronted makes them share a
// fate).
type node struct {
	server string // the apiserver's name
	cfg    Config
	admin  *rest.Config        // through the sidecar
	rt     *containers.Runtime // with Config.Image
	log    string
	env    []string
	proc   running
}

// running is a started sidecar: a process (Config.Shell) or a container (Config.Image).
type running interface {
	Exited() (bool, string)
	Stop(grace time.Duration) error
}

func (n *node) Running() bool { return n.proc != nil }

func (n *node) StartSidecar(ctx context.Context) error {
	if n.cfg.Image != "" {
		return n.startContainer(ctx)
	}
	cmd := exec.Command("sh", "-c", n.cfg.Shell)
	cmd.Env = append(os.Environ(), n.env...)
	p, err := process.Start(cmd, n.log)
	if err != nil {
		return fmt.Errorf("starting sidecar %s for %s: %w", n.cfg.Name, n.server, err)
	}
	n.proc = p
	return n.waitServing(ctx)
}

// waitServing waits until the sidecar answers /version, or fails at once with the end of
// its log when it exits first.
func (n *node) waitServing(ctx context.Context) error {
	url := n.admin.Host
	client, err := rest.HTTPClientFor(n.admin)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(n.cfg.ReadyTimeout)
	for time.Now().Before(deadline) {
		if exited, how := n.proc.Exited(); exited {
			return fmt.Errorf("sidecar %s for %s exited (%s); its log %s ends with:\n%s", n.cfg.Name, n.server, how, n.log, logtail.Tail(n.log, 15))
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", url+"/version", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("sidecar %s for %s did not answer %s/version within %s; its log %s ends with:\n%s", n.cfg.Name, n.server, url, n.cfg.ReadyTimeout, n.log, logtail.Tail(n.log, 15))
}

// StopSidecar sends SIGTERM and waits up to 10s before SIGKILL, or kills at once.
func (n *node) StopSidecar(graceful bool) {
	if n.proc == nil {
		return
	}
	grace := time.Duration(0)
	if graceful {
		grace = 10 * time.Second
	}
	n.proc.Stop(grace)
	n.proc = nil
}
