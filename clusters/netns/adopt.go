package netns

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// adoptedPrefix starts the names given to adopted namespaces, followed by the pid of the
// process that named them. It differs from Prefix so that Sweep never kills what runs in
// a dead run's adopted namespace: those processes are the container's, not skewcheck's.
const adoptedPrefix = Prefix + "adopted-"

// Adopt makes a Host of the network namespace process pid lives in: a container's (a
// dataplane's holder, a kind node), which the container engine made and will delete. The
// topology wires it like any host. It is given a name (`ip netns attach`) so that Command
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
	if out, err := exec.Command("ip", "netns", "attach", h.Name, fmt.Sprint(pid)).CombinedOutput(); err != nil {
		ns.Close()
		return nil, fmt.Errorf("naming the network namespace of %s (ip netns attach %s %d): %v: %s", name, h.Name, pid, err, strings.TrimSpace(string(out)))
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
