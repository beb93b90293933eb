package dataplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// KubeProxy is upstream's kube-proxy of a version, in one mode, built or found with the
// binaries mechanism like the apiservers.
type KubeProxy struct {
	Mode     string // nftables, iptables, ipvs
	Version  string
	Binaries binaries.Options
}

func (k KubeProxy) Name() string    { return "kube-proxy-" + k.Mode }
func (k KubeProxy) Release() string { return k.Version }

func (k KubeProxy) Unsupported() string {
	switch k.Mode {
	case "nftables":
		if _, err := exec.LookPath("nft"); err != nil {
			return "kube-proxy's nftables mode needs the nft command (Debian package nftables; `make deps` installs it)"
		}
	case "iptables":
		if _, err := exec.LookPath("iptables-restore"); err != nil {
			return "kube-proxy's iptables mode needs iptables and iptables-restore (Debian package iptables; `make deps` installs it)"
		}
	case "ipvs":
		if _, err := os.Stat("/proc/net/ip_vs"); err != nil {
			return "kube-proxy's ipvs mode needs IPVS in the kernel, and this kernel has none (/proc/net/ip_vs is missing; load the ip_vs module where the kernel has one)"
		}
		if _, err := exec.LookPath("iptables-restore"); err != nil {
			return "kube-proxy's ipvs mode also needs iptables-restore (Debian package iptables)"
		}
	default:
		return fmt.Sprintf("kube-proxy has no mode %q (nftables, iptables, ipvs)", k.Mode)
	}
	return ""
}

// Process leaves everything to kube-proxy's defaults but what a test node must change: the
// conntrack sysctls are the machine's, not the namespace's, so they are left alone (0).
func (k KubeProxy) Process(ctx context.Context, n NodeInfo) (Process, error) {
	path, err := binaries.Ensure(ctx, binaries.KubeProxy, k.Version, k.Binaries)
	if err != nil {
		return Process{}, err
	}
	return Process{Argv: []string{path,
		"--proxy-mode=" + k.Mode,
		"--kubeconfig=" + n.Kubeconfig,
		"--hostname-override=" + n.Name,
		"--nodeport-addresses=primary",
		"--conntrack-max-per-core=0",
		"--conntrack-tcp-timeout-established=0",
		"--conntrack-tcp-timeout-close-wait=0",
		"--v=2",
	}}, nil
}
