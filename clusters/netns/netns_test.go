package netns

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework/integration"
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
