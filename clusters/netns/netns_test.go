package netns

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/internal/integration"
)

// Two hosts on a switch talk over their own addresses, and nothing of theirs is visible in
// the machine's own network or left after Close.
func TestHostsTalkOverTheSwitchAndLeaveNothing(t *testing.T) {
	integration.Require(t)
	sw, err := NewSwitch("sw")
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewHost("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewHost("b")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{sw.host.Name, a.Name, b.Name}
	t.Cleanup(func() {
		a.Close()
		b.Close()
		sw.Close()
		for _, n := range names {
			if _, err := os.Stat(filepath.Join("/run/netns", n)); err == nil {
				t.Errorf("namespace %s still exists after Close", n)
			}
		}
		if _, err := os.Stat(filepath.Join(etcNetns, a.Name)); err == nil {
			t.Errorf("%s/%s still exists after Close", etcNetns, a.Name)
		}
	})
	for h, cidr := range map[*Host]string{a: "198.18.200.1/24", b: "198.18.200.2/24"} {
		if err := sw.Attach(h, cidr); err != nil {
			t.Fatal(err)
		}
	}
	l, err := b.Listen("tcp", "198.18.200.2:9000")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			io.WriteString(c, "hello from b")
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := a.DialContext(ctx, "tcp", "198.18.200.2:9000")
	if err != nil {
		t.Fatalf("a could not reach b across the switch: %v", err)
	}
	got, _ := io.ReadAll(c)
	c.Close()
	if string(got) != "hello from b" {
		t.Fatalf("read %q", got)
	}
	// The machine's own network never has the addresses. (Dialing them from here would
	// prove nothing: the sandbox's default route may answer any address.)
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	_, bench, _ := net.ParseCIDR("198.18.0.0/15")
	for _, a := range addrs {
		if ip, _, _ := net.ParseCIDR(a.String()); bench.Contains(ip) {
			t.Fatalf("the machine's own namespace has %s: the topology leaked", a)
		}
	}
	out, err := a.Command(ctx, "cat", "/proc/sys/net/ipv4/ip_forward").Output()
	if err != nil || len(out) == 0 {
		t.Fatalf("running a command inside %s: %v", a.Name, err)
	}
	if err := a.WriteEtc("hosts", []byte("198.18.200.2 b.skewcheck.example\n")); err != nil {
		t.Fatal(err)
	}
	if out, _ := a.Command(ctx, "cat", "/etc/hosts").Output(); string(out) != "198.18.200.2 b.skewcheck.example\n" {
		t.Errorf("a process inside %s sees /etc/hosts as %q", a.Name, out)
	}
	if err := a.Sysctl("net.ipv4.ip_forward", "1"); err != nil {
		t.Fatal(err)
	}
	out, _ = a.Command(ctx, "cat", "/proc/sys/net/ipv4/ip_forward").Output()
	if string(out) != "1\n" {
		t.Fatalf("ip_forward in %s is %q after Sysctl", a.Name, out)
	}
}

// An adopted namespace (here: of a process started in a namespace of its own, as a
// container's) works like a host of skewcheck's: wired to a switch, commands run inside
// with its /etc files. Close removes skewcheck's name and files and leaves the process and
// its namespace alone.
func TestAdoptedNamespaceIsReleasedNotKilled(t *testing.T) {
	integration.Require(t)
	owner := exec.Command("unshare", "--net", "sleep", "120")
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { owner.Process.Kill(); owner.Wait() }()
	// Made before the adoption: naming the adopted namespace must not hide it (as `ip netns
	// attach` does, by mounting /run/netns over itself), or it could not be deleted.
	sw, err := NewSwitch("sw")
	if err != nil {
		t.Fatal(err)
	}
	swName := sw.host.Name
	defer sw.Close()
	var h *Host
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// unshare enters the new namespace before exec'ing sleep: wait until it differs.
		mine, _ := os.Readlink("/proc/self/ns/net")
		its, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", owner.Process.Pid))
		if its != "" && its != mine {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the process never entered a network namespace of its own")
		}
	}
	if h, err = Adopt("owner", owner.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if err := sw.Attach(h, "198.18.201.1/24"); err != nil {
		h.Close()
		t.Fatal(err)
	}
	if err := h.WriteEtc("hosts", []byte("198.18.201.9 adopted.skewcheck.example\n")); err != nil {
		t.Fatal(err)
	}
	out, err := h.Command(context.Background(), "sh", "-c", "ip -4 -o addr show; cat /etc/hosts").CombinedOutput()
	if err != nil {
		t.Fatalf("a command in the adopted namespace: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "198.18.201.1/24") || !strings.Contains(string(out), "adopted.skewcheck.example") {
		t.Errorf("inside the adopted namespace, a command saw:\n%s", out)
	}
	name := h.Name
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join("/run/netns", name), filepath.Join(etcNetns, name)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there after Close", p)
		}
	}
	if err := owner.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the namespace's own process is gone after Close: %v", err)
	}
	if err := sw.Close(); err != nil {
		t.Errorf("closing a namespace made before the adoption: %v", err)
	}
	if _, err := os.Stat(filepath.Join("/run/netns", swName)); err == nil {
		t.Errorf("namespace %s, made before the adoption, is still there after Close", swName)
	}
}
