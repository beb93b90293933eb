package app

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
)

// serverFlags are the flags that describe the servers of a local cluster; create and
// conformance share them so a cluster can be described the same way everywhere.
type serverFlags struct {
	versions      []string
	noPeerProxy   []string
	kubeadmProxy  []string
	extra         []string
	peerAdvertise []string
	port          int
	// implied are server flags (SERVER=FLAG, as --server-flag takes them) that the command
	// chose, as its default, before the user's: set by the command, never by a flag, so
	// what the user typed stays as typed.
	implied []string
}

func (f *serverFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.versions, "versions", slices.Clone(clusters.DefaultVersions), "one kube-apiserver per version, in order apiserver-1, apiserver-2, ... (v1.35.4, 1.36 for the newest 1.36.x, latest)")
	cmd.Flags().StringSliceVar(&f.noPeerProxy, "no-peer-proxy", nil, "servers (apiserver-N or N) that run without the mixed version proxy: gate off, no peer CA")
	cmd.Flags().StringSliceVar(&f.kubeadmProxy, "kubeadm-peer-proxy", nil, "servers (apiserver-N or N) whose mixed version proxy is as kubeadm leaves it: the gate at the release's default, no --peer-ca-file, so inert from 1.36 though the gate is on (kubernetes/kubeadm#3301)")
	cmd.Flags().StringArrayVar(&f.extra, "server-flag", nil, "an extra kube-apiserver flag for one server, SERVER=FLAG, e.g. 2=--runtime-config=batch/v1=false (repeatable)")
	cmd.Flags().StringArrayVar(&f.peerAdvertise, "peer-advertise", nil, "the ip:port peers use to reach a server, SERVER=IP:PORT, e.g. to put a fault proxy on the peer path; PORT must be --port, because kube-apiserver 1.35 and 1.36 ignore --peer-advertise-port and peers dial the advertise address at the secure port")
	cmd.Flags().IntVar(&f.port, "port", 6443, "secure port of every apiserver (each has its own loopback address)")
}

// specs turns the flags into one ServerSpec per version, checking every server reference.
func (f *serverFlags) specs() ([]clusters.ServerSpec, error) {
	specs := clusters.SpecsFor(f.versions)
	index := func(ref string) (int, error) {
		n, err := strconv.Atoi(strings.TrimPrefix(ref, "apiserver-"))
		if err != nil || n < 1 || n > len(specs) {
			return 0, fmt.Errorf("%q names no server: use apiserver-1 to apiserver-%d (or 1 to %d), one per --versions entry", ref, len(specs), len(specs))
		}
		return n - 1, nil
	}
	for _, ref := range f.noPeerProxy {
		i, err := index(ref)
		if err != nil {
			return nil, err
		}
		specs[i].DisablePeerProxy = true
	}
	for _, ref := range f.kubeadmProxy {
		i, err := index(ref)
		if err != nil {
			return nil, err
		}
		if specs[i].DisablePeerProxy {
			return nil, fmt.Errorf("--kubeadm-peer-proxy %s and --no-peer-proxy %s: a server runs its proxy as kubeadm leaves it or without it, not both; name it in one", ref, ref)
		}
		specs[i].KubeadmPeerProxy = true
	}
	for _, kv := range append(slices.Clone(f.implied), f.extra...) {
		ref, flag, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(flag, "--") {
			return nil, fmt.Errorf("--server-flag %q: want SERVER=--flag=value, e.g. 2=--runtime-config=batch/v1=false", kv)
		}
		i, err := index(ref)
		if err != nil {
			return nil, err
		}
		if v, ok := emulatedVersionFlag(flag); ok {
			// The provider passes it on, and must know it: the server's feature gates
			// take the emulated release's defaults (the mixed version proxy's is off at 1.35).
			if v, err = emulatedVersion(v); err != nil {
				return nil, fmt.Errorf("--server-flag %q: %v", kv, err)
			}
			specs[i].EmulatedVersion = v
			continue
		}
		specs[i].ExtraFlags = append(specs[i].ExtraFlags, flag)
	}
	for _, kv := range f.peerAdvertise {
		ref, addr, _ := strings.Cut(kv, "=")
		if err := checkIPPort(addr); err != nil {
			return nil, fmt.Errorf("--peer-advertise %q: want SERVER=IP:PORT, e.g. 2=127.0.0.9:%d or 2=[::1]:%d: %v", kv, f.port, f.port, err)
		}
		if _, port, _ := net.SplitHostPort(addr); port != strconv.Itoa(f.port) {
			return nil, fmt.Errorf("--peer-advertise %q: the port must be the servers' --port (%d): kube-apiserver 1.35 and 1.36 ignore --peer-advertise-port, and peers dial the advertise address at the secure port", kv, f.port)
		}
		i, err := index(ref)
		if err != nil {
			return nil, err
		}
		specs[i].PeerAdvertise = addr
	}
	return specs, nil
}

func checkIPPort(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if net.ParseIP(host) == nil {
		return fmt.Errorf("%q is not an IP address", host)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q is not a port", port)
	}
	return nil
}

// emulatedVersionFlag returns the value of a kube-apiserver --emulated-version flag.
func emulatedVersionFlag(flag string) (string, bool) {
	return strings.CutPrefix(flag, "--emulated-version=")
}

// emulatedVersion is the release an --emulated-version value names for kube-apiserver:
// "1.35" or "kube=1.35" (the only component kube-apiserver registers); the provider
// checks it against the server's binary.
func emulatedVersion(value string) (string, error) {
	v := value
	if strings.Contains(value, ",") {
		return "", fmt.Errorf("--emulated-version=%s: want one minor version, e.g. --emulated-version=1.35", value)
	}
	if component, version, ok := strings.Cut(value, "="); ok {
		if strings.TrimSpace(component) != "kube" {
			return "", fmt.Errorf("--emulated-version=%s: kube-apiserver emulates releases of the kube component only, e.g. --emulated-version=1.35", value)
		}
		v = version
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("--emulated-version=%s: want one minor version, e.g. --emulated-version=1.35", value)
	}
	return v, nil
}
