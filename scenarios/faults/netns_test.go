package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// scratchNetns is a network namespace of its own for the test (a sleeping process made by
// unshare), gone when the test ends.
func scratchNetns(t *testing.T) string {
	t.Helper()
	integration.Require(t)
	integration.RequireNft(t)
	for _, tool := range []string{"nsenter", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("needs %s: install util-linux (apt-get install util-linux)", tool)
		}
	}
	cmd := exec.Command("unshare", "--net", "sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	path := fmt.Sprintf("/proc/%d/ns/net", cmd.Process.Pid)
	own, _ := os.Readlink("/proc/self/ns/net")
	for { // unshare has made the namespace once the process's differs from ours
		if id, err := os.Readlink(path); err == nil && id != own {
			return path
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tablesIn lists the inet tables of the namespace at path ("" for this machine's).
func tablesIn(t *testing.T, path string) string {
	t.Helper()
	out, err := nftIn(context.Background(), path, "list", "tables", "inet").CombinedOutput()
	if err != nil {
		t.Fatalf("listing tables in %q: %v: %s", path, err, out)
	}
	return string(out)
}

// A packet fault on a peer path puts its table in this machine's namespace and in each
// server's own, and Heal deletes it from both.
func TestPacketFaultInServerNamespace(t *testing.T) {
	ns := scratchNetns(t)
	s := server("apiserver-1", "10.177.250.11", "", nil)
	s.NetNS = ns
	f := Loss(&node.PeerPath{Address: "10.177.250.42:6443"}, 30, s).(*packets)
	heal, err := Inject(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	defer heal(context.Background())
	for _, where := range []string{"", ns} {
		if !strings.Contains(tablesIn(t, where), f.table) {
			t.Errorf("table %s is not in namespace %q", f.table, where)
		}
	}
	out, _ := nftIn(context.Background(), ns, "list", "table", "inet", f.table).CombinedOutput()
	if !strings.Contains(string(out), "ip daddr 10.177.250.42 tcp dport 6443") || !strings.Contains(string(out), "hook output") {
		t.Errorf("the table in the server's namespace is not the fault's:\n%s", out)
	}
	if err := heal(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"", ns} {
		if strings.Contains(tablesIn(t, where), f.table) {
			t.Errorf("healed, table %s is still in namespace %q", f.table, where)
		}
	}
}

// When one namespace cannot take the table, the fault is not injected anywhere: the tables
// already added are deleted again.
func TestPacketFaultFailingHalfwayLeavesNothing(t *testing.T) {
	ns := scratchNetns(t)
	ok, gone := server("apiserver-1", "10.177.250.11", "", nil), server("apiserver-2", "10.177.250.12", "", nil)
	ok.NetNS, gone.NetNS = ns, "/proc/0/ns/net"
	f := Partition([]*node.PeerPath{{Address: "10.177.250.42:6443"}}, ok, gone).(*packets)
	err := f.Inject(context.Background())
	var u Unsupported
	if err == nil || errors.As(err, &u) || !strings.Contains(err.Error(), "/proc/0/ns/net") {
		t.Fatalf("want an error naming the namespace that could not be opened, got %v", err)
	}
	for _, where := range []string{"", ns} {
		if strings.Contains(tablesIn(t, where), f.table) {
			t.Errorf("after the failed injection, table %s is still in namespace %q", f.table, where)
		}
	}
}

// The sweep reaches into other namespaces, and there deletes only tables of dead runs that
// say their pid is in this pid namespace.
func TestSweepInOtherNamespaces(t *testing.T) {
	ns := scratchNetns(t)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.ProcessState.Pid()
	ours := fmt.Sprintf("skewcheck_%d_1", dead)        // dead owner, our pid namespace: swept
	foreign := fmt.Sprintf("skewcheck_%d_2", dead)     // dead-looking, no comment: a run elsewhere
	live := fmt.Sprintf("skewcheck_%d_3", os.Getpid()) // alive: kept
	script := fmt.Sprintf("add table inet %s { comment %q ; }\nadd table inet %s\nadd table inet %s { comment %q ; }\n",
		ours, tableComment(), foreign, live, tableComment())
	add := nftIn(context.Background(), ns, "-f", "-")
	add.Stdin = strings.NewReader(script)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sweepTables(context.Background())
	got := tablesIn(t, ns)
	if strings.Contains(got, ours) || !strings.Contains(got, foreign) || !strings.Contains(got, live) {
		t.Errorf("after the sweep the namespace has:\n%s\nwant %s gone, %s and %s kept", got, ours, foreign, live)
	}
}
