package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/semver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/internal/logtail"
)

// ControllerManager is a real kube-controller-manager running against the cluster, so
// that the controllers the mixed version proxy exists for (the garbage collector, the
// namespace controller: they map what they act on through discovery and then read it)
// act during the skew. It runs as kubeadm runs it (its flags, leader election, one
// controller identity per controller) as a host of its own, and is stopped before the
// apiservers.
type ControllerManager struct {
	Version, Binary string
	// Hostname is its own: its leader lease's holder is <Hostname>_<uuid>.
	Hostname string
	// IP is where it serves /healthz and /metrics (port 10257).
	IP string
	// Connect is the server it talks to (apiserver-1, ...) or clusters.ConnectLoadBalancer;
	// URL is that server's or the load balancer's.
	Connect, URL string
	Dir          string
	Kubeconfig   string

	spec    clusters.ControllerManagerSpec
	cluster *Cluster
	proc    *process.Process
	pid     int
	lb      *loadBalancer
}

// LeaderLease is the Lease in kube-system kube-controller-manager holds while it leads
// (its --leader-elect-resource-name default).
const LeaderLease = "kube-controller-manager"

// controllerManagerAddress and loadBalancerAddress are harness addresses (Hosts.HarnessAddress).
const controllerManagerAddress, loadBalancerAddress = 71, 70

// kubeadmControllers is kubeadm's --controllers (cmd/kubeadm/app/phases/controlplane/manifests.go).
var kubeadmControllers = []string{"*", "bootstrapsigner", "tokencleaner"}

// Log is the path of its stdout and stderr: the controllers' own account of what they did.
func (m *ControllerManager) Log() string { return filepath.Join(m.Dir, "kube-controller-manager.log") }

// newControllerManager resolves what spec asks for, before anything starts: its binary
// (built and cached like kube-apiserver's), and the server it connects to.
func (c *Cluster) newControllerManager(ctx context.Context, spec clusters.ControllerManagerSpec) (*ControllerManager, error) {
	if _, ok := c.hosts.(*processHosts); !ok && c.hosts != nil {
		return nil, clusters.ErrNotSupported{Provider: c.hosts.Kind(), Capability: clusters.ControllerManagers}
	}
	oldest := c.Servers[0].Version
	for _, s := range c.Servers[1:] {
		if semver.Compare(s.Version, oldest) < 0 {
			oldest = s.Version
		}
	}
	version := oldest
	if spec.Version != "" {
		resolved, err := binaries.Resolve(ctx, spec.Version)
		if err != nil {
			return nil, fmt.Errorf("the controller manager's version: %w", err)
		}
		version = resolved
	}
	if minor(version) > minor(oldest) {
		return nil, fmt.Errorf("kube-controller-manager %s is newer than the cluster's oldest apiserver (%s): its skew is not supported (it may be older than the apiservers, never newer); leave its version empty for %s", version, oldest, oldest)
	}
	// Its directory is known once the cluster's is (start).
	m := &ControllerManager{Version: version, spec: spec, cluster: c, Connect: spec.Connect,
		Hostname: c.Name + "-controller-manager"}
	switch spec.Connect {
	case clusters.ConnectOwnNode:
		for _, s := range c.Servers {
			if semver.MajorMinor(s.Version) == semver.MajorMinor(version) {
				m.Connect = s.Name
				break
			}
		}
		if m.Connect == "" {
			m.Connect = c.Servers[0].Name
		}
	case clusters.ConnectLoadBalancer:
	default:
		if c.Server(spec.Connect) == nil {
			var names []string
			for _, s := range c.Servers {
				names = append(names, s.Name)
			}
			return nil, fmt.Errorf("the controller manager connects to %q, which is no server of the cluster: name one of %s, or %q for all through a load balancer",
				spec.Connect, strings.Join(names, ", "), clusters.ConnectLoadBalancer)
		}
	}
	var err error
	if m.Binary, err = binaries.Ensure(ctx, binaries.KubeControllerManager, version, c.cfg.Binaries); err != nil {
		return nil, err
	}
	return m, nil
}

// start starts it once the apiservers have converged, and waits until it leads: only
// then do its controllers run.
func (m *ControllerManager) start(ctx context.Context) error {
	c := m.cluster
	m.Dir = filepath.Join(c.Dir, "controller-manager")
	if err := os.MkdirAll(m.Dir, 0o755); err != nil {
		return fmt.Errorf("making %s: %w", m.Dir, err)
	}
	var err error
	if m.IP, err = c.hosts.HarnessAddress(controllerManagerAddress); err != nil {
		return err
	}
	if m.Connect == clusters.ConnectLoadBalancer {
		ip, err := c.hosts.HarnessAddress(loadBalancerAddress)
		if err != nil {
			return err
		}
		var backends []string
		for _, s := range c.Servers {
			backends = append(backends, fmt.Sprintf("%s:%d", s.IP, s.Port))
		}
		if m.lb, err = startLoadBalancer(fmt.Sprintf("%s:%d", ip, c.cfg.Port), backends); err != nil {
			return err
		}
		m.URL = "https://" + m.lb.Address()
	} else {
		m.URL = c.Server(m.Connect).URL()
	}
	if err := m.writeKubeconfig(); err != nil {
		return err
	}
	fmt.Fprintf(c.cfg.Progress, "starting kube-controller-manager %s as host %s, connected to %s (%s), log %s\n", m.Version, m.Hostname, m.Connect, m.URL, m.Log())
	cmd := hostCommand(m.Hostname, nil, append([]string{m.Binary}, m.flags()...))
	if m.proc, err = process.Start(cmd, m.Log()); err != nil {
		return fmt.Errorf("starting kube-controller-manager %s (%s): %w", m.Version, m.Binary, err)
	}
	m.pid = cmd.Process.Pid
	return m.waitLeading(ctx)
}

// flags are kubeadm's for kube-controller-manager, with this cluster's files.
func (m *ControllerManager) flags() []string {
	b := m.cluster.PKI
	controllers := m.spec.Controllers
	if len(controllers) == 0 {
		controllers = kubeadmControllers
	}
	return []string{
		"--kubeconfig=" + m.Kubeconfig,
		"--authentication-kubeconfig=" + m.Kubeconfig,
		"--authorization-kubeconfig=" + m.Kubeconfig,
		"--bind-address=" + m.IP,
		"--secure-port=10257",
		"--cert-dir=" + filepath.Join(m.Dir, "certs"),
		"--client-ca-file=" + b.CA.CertFile,
		"--requestheader-client-ca-file=" + b.FrontProxyCA.CertFile,
		"--cluster-name=" + m.cluster.Name,
		"--cluster-signing-cert-file=" + b.CA.CertFile,
		"--cluster-signing-key-file=" + b.CA.KeyFile,
		"--controllers=" + strings.Join(controllers, ","),
		"--leader-elect=true",
		"--root-ca-file=" + b.CA.CertFile,
		"--service-account-private-key-file=" + b.ServiceAccountKey,
		"--use-service-account-credentials=true",
		// Level 2 logs each garbage collector sync of resources from discovery and each
		// deletion it decides: the controllers' own account of what they saw.
		"--v=2",
	}
}

// waitLeading waits until its leader lease names its host, or it exits.
func (m *ControllerManager) waitLeading(ctx context.Context) error {
	c := m.cluster
	cs, err := kubernetes.NewForConfig(c.RestConfig(c.Servers[0], Admin))
	if err != nil {
		return err
	}
	const bound = 90 * time.Second
	deadline := time.Now().Add(bound)
	last := "no lease yet"
	for {
		if exited, how := m.proc.Exited(); exited {
			return fmt.Errorf("kube-controller-manager %s exited (%s) before it led; its log %s ends with:\n%s", m.Version, how, m.Log(), logtail.Tail(m.Log(), 15))
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		l, err := cs.CoordinationV1().Leases("kube-system").Get(rctx, LeaderLease, metav1.GetOptions{})
		cancel()
		switch {
		case err != nil:
			last = err.Error()
		case l.Spec.HolderIdentity != nil && strings.HasPrefix(*l.Spec.HolderIdentity, m.Hostname+"_"):
			fmt.Fprintf(c.cfg.Progress, "kube-controller-manager leads (lease kube-system/%s held by %s)\n", LeaderLease, *l.Spec.HolderIdentity)
			return nil
		case l.Spec.HolderIdentity != nil:
			last = "held by " + *l.Spec.HolderIdentity
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("kube-controller-manager %s did not take its leader lease kube-system/%s within %v (%s); its log %s ends with:\n%s",
				m.Version, LeaderLease, bound, last, m.Log(), logtail.Tail(m.Log(), 15))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Stop ends it (SIGTERM, then SIGKILL) and its load balancer. Safe on one never started.
func (m *ControllerManager) Stop(timeout time.Duration) error {
	var err error
	if m.proc != nil {
		err = m.proc.Stop(timeout)
	}
	if m.lb != nil {
		m.lb.Close()
	}
	return err
}
