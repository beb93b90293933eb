// Package sidecar puts a vendor's proxy, given as a shell command or a container image, in front of every
// apiserver of a local cluster, the way skewcheck's reference peer proxy is put there
// (clusters/front.PeerProxy). The proxies are the target's endpoints, and the suites keep
// everything a local cluster allows: stopping, killing and freezing servers (the sidecar
// shares its apiserver's fate), and reading their audit logs. So a sidecar can pass every
// profile, which against an existing cluster it cannot.
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
	"time"

	"github.com/skewcheck/skewcheck/internal/logtail"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/local"
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

// Front starts a sidecar in front of every server of c and returns the target of the
// sidecars; stop ends them. Each listens on its apiserver's address block at host 30+N.
func Front(ctx context.Context, c *local.Cluster, cfg Config) (*framework.Target, func(), error) {
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 60 * time.Second
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Dir == "" {
		cfg.Dir = c.Dir
	}
	direct, err := c.Target(ctx)
	if err != nil {
		return nil, nil, err
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
	for i, s := range c.Servers {
		listen, err := c.HarnessAddress(30 + i + 1)
		if err != nil {
			stop()
			return nil, nil, err
		}
		serving, err := c.PKI.ServingCert("sidecar-"+s.Name, nil, []net.IP{net.ParseIP(listen)})
		if err != nil {
			stop()
			return nil, nil, err
		}
		advertise := s.URL()
		if s.PeerPath != nil {
			advertise = "https://" + s.PeerPath.Address
		}
		admin, user := c.RestConfig(s, local.Admin), c.RestConfig(s, local.Unprivileged)
		url := fmt.Sprintf("https://%s:%d", listen, s.Port)
		admin.Host, user.Host = url, url
		n := &node{server: s, cfg: cfg, rt: rt, admin: admin, log: filepath.Join(cfg.Dir, "sidecar-"+s.Name+".log"), env: []string{
			"SKEWCHECK_ID=" + c.Name + "-" + s.Name,
			fmt.Sprintf("SKEWCHECK_LISTEN=%s:%d", listen, s.Port),
			"SKEWCHECK_SERVING_CERT=" + serving.CertFile, "SKEWCHECK_SERVING_KEY=" + serving.KeyFile,
			"SKEWCHECK_CLIENT_CA=" + c.PKI.CA.CertFile,
			"SKEWCHECK_APISERVER=" + s.URL(), "SKEWCHECK_APISERVER_CA=" + c.PKI.CA.CertFile,
			"SKEWCHECK_ADVERTISE_URL=" + advertise,
			"SKEWCHECK_FRONT_PROXY_CERT=" + c.PKI.FrontProxyClient.CertFile, "SKEWCHECK_FRONT_PROXY_KEY=" + c.PKI.FrontProxyClient.KeyFile,
			"SKEWCHECK_CONTROL_CERT=" + c.PKI.Admin.CertFile, "SKEWCHECK_CONTROL_KEY=" + c.PKI.Admin.KeyFile,
		}}
		fmt.Fprintf(cfg.Progress, "starting sidecar %s in front of %s at %s (log %s)\n", cfg.Name, s.Name, url, n.log)
		nodes = append(nodes, n) // before starting: stop also ends a sidecar that started but never served
		if err := n.StartSidecar(ctx); err != nil {
			stop()
			return nil, nil, err
		}
		d := direct.Endpoints[i]
		envs["sidecar-"+s.Name] = n.env
		t.Endpoints = append(t.Endpoints, &framework.Endpoint{
			Name: "sidecar-" + s.Name, URL: url, Admin: admin, User: user,
			AuditLog: s.AuditLog(), Log: n.log, Node: &local.Fronted{Server: s, Sidecar: n},
			UserName: d.UserName, UserGroups: d.UserGroups, UserUID: d.UserUID, UserExtra: d.UserExtra,
		})
	}
	if cfg.Leases != nil {
		t.Registrar = cfg.Leases.registrar(c, envs)
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

// node is the sidecar in front of one apiserver (local.Fronted makes them share a fate).
type node struct {
	server *local.Server
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
		return fmt.Errorf("starting sidecar %s for %s: %w", n.cfg.Name, n.server.Name, err)
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
			return fmt.Errorf("sidecar %s for %s exited (%s); its log %s ends with:\n%s", n.cfg.Name, n.server.Name, how, n.log, logtail.Tail(n.log, 15))
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
	return fmt.Errorf("sidecar %s for %s did not answer %s/version within %s; its log %s ends with:\n%s", n.cfg.Name, n.server.Name, url, n.cfg.ReadyTimeout, n.log, logtail.Tail(n.log, 15))
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
