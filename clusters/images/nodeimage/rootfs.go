package nodeimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/moby/go-archive"
	"github.com/moby/go-archive/compression"
)

// Suite and Mirror are the Debian release and mirror the root filesystem comes from.
// bookworm, because its systemd (252) still boots on cgroup v1 hosts: trixie's 257 refuses
// cgroup v1 unless forced, and CI hosts with cgroup v1 are still common.
const (
	Suite  = "bookworm"
	Mirror = "http://deb.debian.org/debian"
)

// packages are what a node runs besides Kubernetes itself: systemd as init, containerd and
// runc, the CNI plugins, the netfilter tools kubelet and kube-proxy call, and what kind's
// create actions run in a node (sh, cat, cp, mv). haproxy serves the load-balancer image,
// which shares this filesystem.
var packages = []string{
	"systemd", "systemd-sysv", "dbus",
	"containerd", "runc", "containernetworking-plugins",
	"iptables", "nftables", "iproute2", "ethtool", "conntrack", "socat",
	"util-linux", "mount", "kmod", "libseccomp2", "ca-certificates", "procps", "e2fsprogs",
	"haproxy",
}

// rootfsCleanup runs in the new root: it drops what debootstrap leaves for apt and the
// services Debian enables on install (getty, timers, haproxy's own unit) that have no place
// in a node; the node layer enables what it needs.
const rootfsCleanup = `set -e
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/*.log /var/log/apt/*
rm -f /etc/systemd/system/*.wants/* /etc/systemd/system/*/*.wants/* 2>/dev/null || true
rm -f /lib/systemd/system/multi-user.target.wants/getty.target
echo "ReadKMsg=no" >> /etc/systemd/journald.conf
systemctl mask systemd-binfmt.service getty.target systemd-logind.service
truncate -s 0 /etc/machine-id
mkdir -p /etc/kubernetes/manifests /kind
`

// rootfsKey names a root filesystem by everything that shapes it.
func rootfsKey() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n", Suite, Mirror, strings.Join(packages, ","), rootfsCleanup)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// rootfsTar returns the cached tar of the Debian root filesystem, making it with
// debootstrap the first time (about 2 minutes; needs root and Debian's mirror).
func rootfsTar(ctx context.Context, cacheDir string, p *progress) (string, error) {
	dir := filepath.Join(cacheDir, "kind")
	out := filepath.Join(dir, "rootfs-"+Suite+"-"+rootfsKey()+".tar")
	if _, err := os.Stat(out); err == nil {
		p.printf("Debian %s root filesystem: cached (%s)", Suite, out)
		return out, nil
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("making the node's root filesystem needs root (debootstrap and chroot); run as root, once: the result is cached in %s", dir)
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return "", fmt.Errorf("debootstrap is not installed (%v); install it (apt-get install debootstrap) to build node images offline", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(ctx, out+".lock", p, "the root filesystem")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(out); err == nil {
		return out, nil // made while we waited
	}
	work, err := os.MkdirTemp(dir, "rootfs-work-")
	if err != nil {
		return "", err
	}
	defer removeTree(work)
	root := filepath.Join(work, "root")
	start := time.Now()
	p.printf("making a Debian %s root filesystem with debootstrap from %s (about 2 minutes, cached afterwards)", Suite, Mirror)
	log := filepath.Join(work, "debootstrap.log")
	if err := runLogged(ctx, p, "debootstrap", log, "debootstrap", "--variant=minbase",
		"--include="+strings.Join(packages, ","), Suite, root, Mirror); err != nil {
		return "", err
	}
	if err := runLogged(ctx, p, "cleaning the root filesystem", log, "chroot", root, "/bin/sh", "-c", rootfsCleanup); err != nil {
		return "", err
	}
	p.printf("debootstrap done in %s; writing %s", time.Since(start).Round(time.Second), out)
	if err := tarDir(root, out+".tmp"); err != nil {
		return "", err
	}
	return out, os.Rename(out+".tmp", out)
}

// tarDir writes dir as an uncompressed tar, keeping owners, modes, device nodes,
// hard links and extended attributes (go-archive, as Docker itself does).
func tarDir(dir, out string) error {
	r, err := archive.TarWithOptions(dir, &archive.TarOptions{Compression: compression.None})
	if err != nil {
		return fmt.Errorf("archiving %s: %w", dir, err)
	}
	defer r.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := f.ReadFrom(r); err != nil {
		f.Close()
		return fmt.Errorf("archiving %s into %s: %w", dir, out, err)
	}
	return f.Close()
}

// runLogged runs a command with its output in log, saying every 30 s that it still runs,
// and on failure returns the log's tail, which is where the cause is.
func runLogged(ctx context.Context, p *progress, what, log string, name string, args ...string) error {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	// debootstrap runs dpkg and maintainer scripts: on cancellation stop them all, not
	// only debootstrap itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stop := p.every(30*time.Second, "still "+what)
	err = cmd.Run()
	stop()
	if err != nil {
		return fmt.Errorf("%s failed (%s %s): %v\n--- last lines of %s ---\n%s", what, name, strings.Join(args, " "), err, log, tail(log, 20))
	}
	return nil
}

func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
