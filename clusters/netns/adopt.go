package netns

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// adoptedPrefix starts the names given to adopted namespaces, followed by the pid of the
// process that named them. It differs from Prefix so that Sweep never kills what runs in
// a dead run's adopted namespace: those processes are the container's, not skewcheck's.
const adoptedPrefix = Prefix + "adopted-"

// Adopt makes a Host of the network namespace process pid lives in: a container's (a
// dataplane's holder, a kind node), which the container engine made and will delete. The
// topology wires it like any host. It is given a name (bindName) so that Command
// and WriteEtc work in it as in a namespace of skewcheck's; Close removes the name and
// skewcheck's handles only: nothing inside is killed and the namespace lives on with its
// container.
func Adopt(name string, pid int) (*Host, error) {
	sweepOnce.Do(Sweep)
	ns, err := netns.GetFromPid(pid)
	if err != nil {
		return nil, fmt.Errorf("opening the network namespace of pid %d (%s): %w", pid, name, err)
	}
	h := &Host{Name: fmt.Sprintf("%s%d-%d-%s", adoptedPrefix, os.Getpid(), hostSeq.Add(1), name), ns: ns, adopted: true}
	if err := bindName(h.Name, pid); err != nil {
		ns.Close()
		return nil, fmt.Errorf("naming the network namespace of %s (pid %d): %w", name, pid, err)
	}
	if h.nl, err = netlink.NewHandleAt(ns); err != nil {
		h.Close()
		return nil, fmt.Errorf("opening netlink in the network namespace of %s: %w", name, err)
	}
	if err := h.linkUp("lo"); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// bindName names pid's network namespace as NewHost names its own: a file in /run/netns
// with the namespace bind-mounted on it. Not `ip netns attach`: that first bind-mounts
// /run/netns onto itself where it is not a mount yet, which hides the bind mounts of
// namespaces named before, so that they can no longer be deleted.
func bindName(name string, pid int) error {
	if err := os.MkdirAll(runNetns, 0o755); err != nil {
		return err
	}
	path := filepath.Join(runNetns, name)
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	f.Close()
	if err := unix.Mount(fmt.Sprintf("/proc/%d/ns/net", pid), path, "none", unix.MS_BIND, ""); err != nil {
		os.Remove(path)
		return fmt.Errorf("bind-mounting it on %s: %w", path, err)
	}
	return nil
}

// runNetns is where named network namespaces are, for `ip netns`.
const runNetns = "/run/netns"

// release removes what Adopt added: the name, and the files WriteEtc wrote.
func (h *Host) release() error {
	os.RemoveAll(filepath.Join(etcNetns, h.Name))
	if h.nl != nil {
		h.nl.Close()
	}
	h.ns.Close()
	if err := netns.DeleteNamed(h.Name); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing the name %s of an adopted network namespace: %w", h.Name, err)
	}
	return nil
}
