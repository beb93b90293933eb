// Package netns makes test hosts out of Linux network namespaces. Each host is a named
// namespace (so `ip netns list` shows it while it lives), and hosts meet on a bridge that
// lives in a namespace of its own: no address a test uses ever exists in the machine's own
// network, and deleting the namespaces removes every interface, route and firewall rule a
// test or the dataplane under test made.
package netns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// Prefix starts the name of every namespace skewcheck makes, followed by the pid of the
// process that made it, so Sweep can tell a crashed run's leftovers from a live run's hosts.
const Prefix = "skewcheck-"

// Host is one network namespace used as a machine of a test topology.
type Host struct {
	Name string
	ns   netns.NsHandle
	nl   *netlink.Handle
	once sync.Once
	// adopted: the namespace is a container's (Adopt), not one this package named.
	adopted bool
	link    string // its interface on a switch (Attach)
}

var (
	hostSeq atomic.Int64
	// sweepOnce: leftovers of dead runs are looked for once per process, not per host.
	sweepOnce sync.Once
)

// NewHost makes the namespace <Prefix><pid>-<n>-<role> with its loopback up (n tells apart
// the hosts of two topologies of one process).
func NewHost(role string) (*Host, error) {
	sweepOnce.Do(Sweep)
	name := fmt.Sprintf("%s%d-%d-%s", Prefix, os.Getpid(), hostSeq.Add(1), role)
	var h *Host
	err := onLockedThread(func() error {
		ns, err := netns.NewNamed(name)
		if errors.Is(err, syscall.EPERM) {
			return fmt.Errorf("creating network namespace %s: %w: it needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN); run as root (sudo -E)", name, err)
		}
		if err != nil {
			return fmt.Errorf("creating network namespace %s: %w", name, err)
		}
		h = &Host{Name: name, ns: ns}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if h.nl, err = netlink.NewHandleAt(h.ns); err != nil {
		h.Close()
		return nil, fmt.Errorf("opening netlink in %s: %w", name, err)
	}
	if err := h.linkUp("lo"); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Close kills whatever still runs inside (a process that outlived its stop, a vendor
// command's children) and deletes the namespace.
func (h *Host) Close() error {
	var err error
	h.once.Do(func() {
		if h.adopted {
			err = h.release()
			return
		}
		killInside(h.Name)
		os.RemoveAll(filepath.Join(etcNetns, h.Name))
		if h.nl != nil {
			h.nl.Close()
		}
		h.ns.Close()
		if e := netns.DeleteNamed(h.Name); e != nil && !os.IsNotExist(e) {
			err = fmt.Errorf("deleting network namespace %s: %w", h.Name, e)
		}
	})
	return err
}

// onLockedThread runs f on an OS thread of its own and puts the thread back into the
// process's namespace afterwards. Namespaces belong to threads: if the way back fails, the
// thread stays locked and dies with the goroutine rather than serving other goroutines in
// the wrong network.
func onLockedThread(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			errc <- fmt.Errorf("reading this thread's network namespace: %w", err)
			return
		}
		defer orig.Close()
		ferr := f()
		if err := netns.Set(orig); err != nil {
			errc <- fmt.Errorf("returning to the original network namespace: %w", err)
			return // the thread stays locked and is discarded
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// Do runs f on an OS thread of its own inside the host's namespace, and waits for it.
// Sockets made inside stay in the namespace after f returns, which is how in-process
// servers and clients live on a host; a process started inside inherits the namespace.
// f must return (not call runtime.Goexit, as t.FailNow does).
func (h *Host) Do(f func() error) error {
	return onLockedThread(func() error {
		if err := netns.Set(h.ns); err != nil {
			return fmt.Errorf("entering network namespace %s: %w", h.Name, err)
		}
		return f()
	})
}

// Listen opens a listening socket inside the host.
func (h *Host) Listen(network, addr string) (net.Listener, error) {
	var l net.Listener
	err := h.Do(func() (err error) {
		l, err = net.Listen(network, addr)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listening on %s in %s: %w", addr, h.Name, err)
	}
	return l, nil
}

// DialContext connects from inside the host.
func (h *Host) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := h.Do(func() (err error) {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Command returns a command that runs inside the host (through `ip netns exec`, which also
// gives it the host's view of /sys).
func (h *Host) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", h.Name, name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// WriteEtc writes a file that processes started inside (Command) see as /etc/<name>, such
// as hosts: `ip netns exec` mounts /etc/netns/<namespace>/<name> over it. Close removes it.
func (h *Host) WriteEtc(name string, content []byte) error {
	dir := filepath.Join(etcNetns, h.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making %s: %w", dir, err)
	}
	return os.WriteFile(filepath.Join(dir, name), content, 0o644)
}

// Sysctl sets a network sysctl (net.ipv4.ip_forward) inside the host.
func (h *Host) Sysctl(key, value string) error {
	path := filepath.Join("/proc/sys", strings.ReplaceAll(key, ".", "/"))
	return h.Do(func() error {
		if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
			return fmt.Errorf("setting %s=%s in %s: %w", key, value, h.Name, err)
		}
		return nil
	})
}

// AddAddress puts an address (CIDR notation) on an interface of the host.
func (h *Host) AddAddress(ifname, cidr string) error {
	link, err := h.nl.LinkByName(ifname)
	if err != nil {
		return fmt.Errorf("%s: no interface %s: %w", h.Name, ifname, err)
	}
	addr, err := netlink.ParseAddr(cidr)
	if err != nil {
		return err
	}
	if err := h.nl.AddrAdd(link, addr); err != nil {
		return fmt.Errorf("%s: adding %s to %s: %w", h.Name, cidr, ifname, err)
	}
	return nil
}

// AddRoute routes dst (CIDR) via the gateway address.
func (h *Host) AddRoute(dst, via string) error {
	_, n, err := net.ParseCIDR(dst)
	if err != nil {
		return err
	}
	if err := h.nl.RouteAdd(&netlink.Route{Dst: n, Gw: net.ParseIP(via)}); err != nil {
		return fmt.Errorf("%s: route to %s via %s: %w", h.Name, dst, via, err)
	}
	return nil
}

func (h *Host) linkUp(ifname string) error {
	link, err := h.nl.LinkByName(ifname)
	if err != nil {
		return fmt.Errorf("%s: no interface %s: %w", h.Name, ifname, err)
	}
	if err := h.nl.LinkSetUp(link); err != nil {
		return fmt.Errorf("%s: bringing %s up: %w", h.Name, ifname, err)
	}
	return nil
}

// Sweep deletes the namespaces of skewcheck runs whose process is gone (a run killed with
// SIGKILL cannot clean up after itself), with what runs inside them and their
// /etc/netns/<name> files. Live runs' namespaces are left alone.
func Sweep() {
	for _, dir := range []string{runNetns, etcNetns} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if process.OwnerGone(e.Name(), adoptedPrefix, "-") {
				// A container's namespace: only skewcheck's name and files go.
				os.RemoveAll(filepath.Join(etcNetns, e.Name()))
				netns.DeleteNamed(e.Name())
				continue
			}
			if !orphaned(e.Name()) {
				continue
			}
			if dir == etcNetns {
				os.RemoveAll(filepath.Join(etcNetns, e.Name()))
				continue
			}
			killInside(e.Name())
			netns.DeleteNamed(e.Name())
		}
	}
}

// etcNetns holds per-namespace files that `ip netns exec` mounts over /etc (hosts).
const etcNetns = "/etc/netns"

// orphaned reports whether name is a skewcheck namespace whose process is gone.
func orphaned(name string) bool { return process.OwnerGone(name, Prefix, "-") }

// Orphaned reports whether name is a namespace a skewcheck run made or adopted and that run
// is gone: what it left behind. Another run's namespaces, alive, are not.
func Orphaned(name string) bool { return orphaned(name) || process.OwnerGone(name, adoptedPrefix, "-") }

// killInside SIGKILLs every process in the named namespace (as `ip netns pids` lists them).
func killInside(name string) {
	out, err := exec.Command("ip", "netns", "pids", name).Output()
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
