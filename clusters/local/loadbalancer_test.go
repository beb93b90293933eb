package local

import (
	"io"
	"net"
	"testing"
)

// namedBackend answers every connection with its name and closes it.
func namedBackend(t *testing.T, name string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(name))
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return l
}

func answerOf(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, _ := io.ReadAll(c)
	return string(b)
}

// TestLoadBalancerRoundRobin: each new connection goes to the next server, and a server
// that refuses is passed over for the next.
func TestLoadBalancerRoundRobin(t *testing.T) {
	a, b := namedBackend(t, "a"), namedBackend(t, "b")
	lb, err := startLoadBalancer("127.0.0.1:0", []string{a.Addr().String(), b.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	var got string
	for range 4 {
		got += answerOf(t, lb.Address())
	}
	if got != "abab" {
		t.Errorf("four connections reached %q, want abab", got)
	}
	b.Close()
	got = ""
	for range 3 {
		got += answerOf(t, lb.Address())
	}
	if got != "aaa" {
		t.Errorf("with b refusing, three connections reached %q, want aaa", got)
	}
}
