package local

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/skewcheck/skewcheck/clusters"
)

// Each cluster owns a /24 of loopback, 127.77.<slot>.0/24: etcd on .1, apiserver i on .(10+i).
// All of 127.0.0.0/8 reaches lo on Linux, so no setup is needed, and distinct addresses mean
// several clusters (a test's and a user's) never fight over a port. A slot is held with an
// flock for the cluster's lifetime, so concurrent test packages pick different slots, and a
// crashed process releases its slot automatically.
const (
	slotPrefix  = "127.77"
	maxSlots    = 250
	etcdHost    = 1
	etcdPort    = 2379
	serviceCIDR = "10.96.0.0/16" // only allocated from in etcd; no traffic is ever sent there
)

type slot struct {
	n    int
	lock *os.File
}

func (s *slot) ip(host int) string { return fmt.Sprintf("%s.%d.%d", slotPrefix, s.n, host) }

func (s *slot) release() {
	if s != nil && s.lock != nil {
		s.lock.Close()
		os.Remove(s.lock.Name())
		s.lock = nil
	}
}

// claimSlot takes the first free slot; want > 0 asks for exactly that one.
func claimSlot(want int) (*slot, error) {
	dir, err := slotDir()
	if err != nil {
		return nil, err
	}
	first, last := 1, maxSlots
	if want > 0 {
		first, last = want, want
	}
	for n := first; n <= last; n++ {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d.lock", n)), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening address slot lock: %w", err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		s := &slot{n: n, lock: f}
		// Something outside skewcheck's locks may hold the block (a cluster of a process
		// with another lock directory): then it is not free either.
		if want == 0 && checkPortFree("etcd", s.ip(etcdHost), etcdPort) != nil {
			f.Close()
			continue
		}
		return s, nil
	}
	if want > 0 {
		return nil, fmt.Errorf("address slot %d (%s.%d.0/24) is used by another running cluster: pick another or delete that cluster (skewcheck cluster list)", want, slotPrefix, want)
	}
	return nil, fmt.Errorf("all %d address slots are in use: delete clusters you no longer need (skewcheck cluster list)", maxSlots)
}

// slotDir is where the slot locks live: one place for every skewcheck process on the
// machine, whatever its TMPDIR (tests set their own), so two runs never share a block.
func slotDir() (string, error) {
	for _, dir := range []string{"/run/skewcheck/slots", filepath.Join(os.TempDir(), "skewcheck-slots")} {
		if err := os.MkdirAll(dir, 0o755); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("cannot make a directory for address slot locks (/run/skewcheck/slots or $TMPDIR/skewcheck-slots)")
}

// checkPortFree fails early, with what to do, when ip:port, needed for role, is taken
// (also by a wildcard listener on the port, which blocks every address).
func checkPortFree(role, ip string, port int) error {
	addr := net.JoinHostPort(ip, fmt.Sprint(port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return clusters.ErrPortInUse{Role: role, IP: ip, Port: port, Err: err}
	}
	return l.Close()
}

// AddressBlock is a /24 of loopback held as a local cluster holds its own (a slot), for
// a provider whose apiservers run elsewhere (kind's nodes) but whose fronts run here and
// need addresses no other cluster uses.
type AddressBlock struct{ s *slot }

// ClaimAddressBlock takes the first free block; Release gives it back.
func ClaimAddressBlock() (*AddressBlock, error) {
	s, err := claimSlot(0)
	if err != nil {
		return nil, err
	}
	return &AddressBlock{s}, nil
}

// IP is host's address in the block.
func (b *AddressBlock) IP(host int) (string, error) { return b.s.ip(host), nil }

func (b *AddressBlock) Release() { b.s.release() }
