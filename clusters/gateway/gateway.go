// Package gateway puts an API gateway, given as shell commands or an image, in front of all
// the apiservers of a cluster (a front, clusters/front): one command starts it, another applies a new
// configuration. skewcheck's reference gateway and a vendor's go the same way. The
// configuration is a directory of UpstreamCluster documents (KubeGateway's API) that
// skewcheck writes; a gateway configured another way translates them in its apply command.
package gateway

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/framework"
)

// Config says how to run the gateway.
type Config struct {
	// Name is the gateway's name in the report (target "gateway:<Name>").
	Name string
	// Shell starts the gateway (sh -c), with the environment Env describes. It must
	// serve TLS on $SKEWCHECK_LISTEN and keep running.
	Shell string
	// Image, instead of Shell, is a container image in the local Docker engine run with
	// the same environment (image.go).
	Image string
	// ApplyShell is run (sh -c, same environment) after every change of the documents in
	// $SKEWCHECK_GATEWAY_CONFIG. It must exit 0 once the gateway serves by them, or
	// non-zero, saying why on its output, when the gateway refuses them.
	ApplyShell string
	// Dir keeps the documents and the logs; <cluster dir>/gateway when empty.
	Dir string
	// ReadyTimeout bounds the wait for the gateway to answer /version (default 60s);
	// ApplyTimeout bounds one apply command (default 60s).
	ReadyTimeout, ApplyTimeout time.Duration
	Progress                   io.Writer
}

// Env is what the gateway and apply commands find in their environment.
const Env = `SKEWCHECK_ID                 the gateway's name
SKEWCHECK_LISTEN             ip:port to serve clients on (TLS)
SKEWCHECK_SERVING_CERT       serving certificate (the server names below and the listen IP), and its key in
SKEWCHECK_SERVING_KEY
SKEWCHECK_CLIENT_CA          CA of client certificates (as kube-apiserver's --client-ca-file)
SKEWCHECK_SERVER_NAME        the server name of the cluster skewcheck's clients use: they send it both as
                             the TLS server name (SNI) and as the Host header (with the port), as kubectl
                             does; for clients that send no SNI too
SKEWCHECK_GATEWAY_CONFIG     directory of the UpstreamCluster documents (upstreamclusters.yaml)
SKEWCHECK_APISERVERS         the apiservers' URLs, comma-separated
SKEWCHECK_APISERVER_CA       CA of the apiservers' serving certificates
SKEWCHECK_APISERVER_SERVER_NAME
                             a DNS name every apiserver's serving certificate carries (kubernetes), for a
                             gateway that verifies upstreams by a name rather than by the URLs' IPs
SKEWCHECK_GATEWAY_CERT       the gateway's own client identity (may impersonate), and its key in
SKEWCHECK_GATEWAY_KEY`

// ServerDomain holds the server names the gateway's certificate covers (*.gateway.test);
// ServerName is the one of the cluster skewcheck configures first. Clients send it as both
// the TLS server name and the Host header and dial the listen address (no resolver knows
// the name): a gateway may select the cluster by either, as long as they agree.
// APIServerName is a name on every apiserver's serving certificate; Identity is who the
// gateway's client certificate is to the apiservers.
const (
	ServerDomain  = "gateway.test"
	ServerName    = "skewcheck." + ServerDomain
	APIServerName = "kubernetes"
	Identity      = "skewcheck:gateway"
)

// ConfigFile is the file in $SKEWCHECK_GATEWAY_CONFIG that holds every document.
const ConfigFile = "upstreamclusters.yaml"

// Gateway is a running gateway in front of a cluster.
type Gateway struct {
	cfg     Config
	site    *clusters.FrontSite
	env     []string
	confDir string
	log     string
	addr    string // ip:port the gateway listens on
	url     string // https://ServerName:port
	admin   *rest.Config
	proc    running
	pid     int
	rt      *containers.Runtime // with Config.Image
}

// running is a started gateway: a process (Config.Shell) or a container (Config.Image).
type running interface {
	Exited() (bool, string)
	Stop(grace time.Duration) error
}

func (Config) Capability() clusters.Capability { return clusters.VendorFronts }

// Put starts the gateway in front of every server of site, configured with one
// UpstreamCluster of all of them, and returns the target: the apiservers as endpoints,
// and the gateway. stop ends the gateway.
func (cfg Config) Put(ctx context.Context, site *clusters.FrontSite) (*framework.Target, func(), error) {
	if (cfg.Shell == "" && cfg.Image == "") || cfg.ApplyShell == "" {
		return nil, nil, fmt.Errorf("a gateway needs both a command or image that starts it and an apply command that returns once it serves by the documents written (Config.Shell or Config.Image, and Config.ApplyShell)")
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 60 * time.Second
	}
	if cfg.ApplyTimeout == 0 {
		cfg.ApplyTimeout = 60 * time.Second
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(site.Dir, "gateway")
	}
	g := &Gateway{cfg: cfg, site: site, confDir: filepath.Join(cfg.Dir, "config"), log: filepath.Join(cfg.Dir, "gateway.log")}
	if err := os.MkdirAll(g.confDir, 0o755); err != nil {
		return nil, nil, err
	}
	t := *site.Direct // the apiservers are the endpoints; the gateway is beside them
	t.Kind, t.Upstream = "gateway:"+cfg.Name, false
	template, err := g.prepare()
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(g.confDir, ConfigFile), template, 0o644); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(cfg.Progress, "starting gateway %s in front of %d apiservers at %s (log %s)\n", cfg.Name, len(site.Servers), g.url, g.log)
	if err := g.start(ctx); err != nil {
		g.stop()
		return nil, nil, err
	}
	if err := g.Apply(ctx, [][]byte{template}); err != nil {
		g.stop()
		return nil, nil, fmt.Errorf("gateway %s: applying the first configuration: %w", cfg.Name, err)
	}
	e := &framework.Endpoint{Name: "gateway", URL: g.url, Admin: g.admin, User: g.client(site.Direct.Endpoints[0].User), Log: g.log}
	t.Gateway = &framework.Gateway{Name: cfg.Name, Endpoint: e, ServerName: ServerName, ServerDomain: ServerDomain,
		Address: g.addr, Identity: Identity, Template: template, Apply: g.Apply, Connections: g.connections}
	serversConverged := t.Converge
	t.Converge = func(ctx context.Context) error {
		if err := serversConverged(ctx); err != nil {
			return err
		}
		return g.waitServing(ctx)
	}
	return &t, g.stop, nil
}

// prepare issues the certificates, fills in the environment and writes nothing else; it
// returns the first configuration: every server, one catch-all policy.
func (g *Gateway) prepare() ([]byte, error) {
	site := g.site
	listen, err := site.Address(20)
	if err != nil {
		return nil, err
	}
	servingCert, servingKey, err := site.ServingCert("gateway", []string{ServerDomain, "*." + ServerDomain}, []net.IP{net.ParseIP(listen)})
	if err != nil {
		return nil, err
	}
	// The gateway's own identity: system:masters, so it may impersonate anyone and review
	// tokens and access; a gateway that forwarded as itself would grant everyone that.
	identityCert, identityKey, err := site.ClientCert("gateway-identity", Identity, []string{"system:masters"})
	if err != nil {
		return nil, err
	}
	var urls []string
	for _, s := range site.Servers {
		urls = append(urls, s.URL)
	}
	port := strconv.Itoa(site.Servers[0].Port)
	g.addr = net.JoinHostPort(listen, port)
	g.url = "https://" + net.JoinHostPort(ServerName, port)
	g.admin = g.client(site.Direct.Endpoints[0].Admin)
	g.env = []string{
		"SKEWCHECK_ID=" + g.cfg.Name, "SKEWCHECK_LISTEN=" + g.addr,
		"SKEWCHECK_SERVING_CERT=" + servingCert, "SKEWCHECK_SERVING_KEY=" + servingKey,
		"SKEWCHECK_CLIENT_CA=" + site.CA, "SKEWCHECK_SERVER_NAME=" + ServerName,
		"SKEWCHECK_GATEWAY_CONFIG=" + g.confDir,
		"SKEWCHECK_APISERVERS=" + strings.Join(urls, ","), "SKEWCHECK_APISERVER_CA=" + site.CA,
		"SKEWCHECK_APISERVER_SERVER_NAME=" + APIServerName,
		"SKEWCHECK_GATEWAY_CERT=" + identityCert, "SKEWCHECK_GATEWAY_KEY=" + identityKey,
	}
	return template(urls, site.CA, identityCert, identityKey, servingCert, servingKey), nil
}

// client is an apiserver's client config (an identity of the cluster) reaching the gateway
// as kubectl does with a kubeconfig whose server is https://ServerName:port: the name goes
// out as both SNI and Host, and the connection goes to the listen address.
func (g *Gateway) client(direct *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(direct)
	cfg.Host, cfg.TLSClientConfig.ServerName = g.url, ""
	cfg.Dial = framework.ConnectTo(g.addr)
	return cfg
}

// template is the first UpstreamCluster, written as YAML by hand: clusters/ knows the
// document's shape, not the reference's Go types.
func template(servers []string, ca, cert, key, servingCert, servingKey string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: proxy.kubegateway.io/v1alpha1\nkind: UpstreamCluster\nmetadata:\n  name: skewcheck\nspec:\n  servers:\n")
	for _, s := range servers {
		fmt.Fprintf(&b, "  - endpoint: %s\n", s)
	}
	fmt.Fprintf(&b, "  clientConfig:\n    caFile: %s\n    certFile: %s\n    keyFile: %s\n", ca, cert, key)
	fmt.Fprintf(&b, "  secureServing:\n    serverNames: [%s]\n    certFile: %s\n    keyFile: %s\n    clientCAFile: %s\n", ServerName, servingCert, servingKey, ca)
	b.WriteString("  dispatchPolicies:\n  - strategy: RoundRobin\n    rules:\n    - verbs: [\"*\"]\n      apiGroups: [\"*\"]\n      resources: [\"*\"]\n      nonResourceURLs: [\"*\"]\n")
	return []byte(b.String())
}

func (g *Gateway) start(ctx context.Context) error {
	if g.cfg.Image != "" {
		if err := g.startContainer(ctx); err != nil {
			return err
		}
		return g.waitServing(ctx)
	}
	cmd := exec.Command("sh", "-c", g.cfg.Shell)
	cmd.Env = append(os.Environ(), g.env...)
	p, err := process.Start(cmd, g.log)
	if err != nil {
		return fmt.Errorf("starting gateway %s: %w", g.cfg.Name, err)
	}
	g.proc, g.pid = p, cmd.Process.Pid
	return g.waitServing(ctx)
}

func (g *Gateway) stop() {
	if g.proc != nil {
		g.proc.Stop(10 * time.Second)
		g.proc = nil
	}
	if g.rt != nil {
		g.rt.Close()
		g.rt = nil
	}
}
