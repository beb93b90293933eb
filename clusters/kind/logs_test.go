package kind

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CopyLogs needs the nodes' containers alone: with no kubeconfig (and so no apiserver to
// reach), it copies every node's journals and pods' logs and every audit log; a server
// whose node is gone is an error naming it, and its audit log is copied still. kind's
// docker commands reach a fake docker here, which lists the nodes (one of two is gone)
// and answers each command in a node with the command line, so no Docker is needed.
func TestCopyLogsWithoutKubeconfig(t *testing.T) {
	dir := t.TempDir()
	c := &Cluster{Name: "logs", Kubeconfig: filepath.Join(dir, "no-such-kubeconfig")}
	for i := range 2 {
		audit := filepath.Join(dir, "audit", nodeContainer(c.Name, i)+".log")
		if err := os.MkdirAll(filepath.Dir(audit), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(audit, []byte("audit of "+nodeContainer(c.Name, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		c.Servers = append(c.Servers, Server{Name: fmt.Sprintf("apiserver-%d", i+1), Node: nodeContainer(c.Name, i), AuditLog: audit})
	}
	fakeDocker(t, nodeContainer(c.Name, 0), loadBalancerContainer(c.Name))

	dest := filepath.Join(dir, "logs")
	err := c.CopyLogs(dest)
	if err == nil || !strings.Contains(err.Error(), "no node "+nodeContainer(c.Name, 1)+" (apiserver-2's)") {
		t.Errorf("CopyLogs: %v, want an error naming the node that is gone", err)
	}
	first := nodeContainer(c.Name, 0)
	for file, want := range map[string]string{
		"journal.log":    first + " journalctl --no-pager\n",
		"kubelet.log":    first + " journalctl --no-pager -u kubelet\n",
		"containerd.log": first + " journalctl --no-pager -u containerd\n",
		"pods.tar":       first + " tar -C /var/log -cf - pods\n",
		"audit.log":      "audit of " + first,
	} {
		if b, err := os.ReadFile(filepath.Join(dest, first, file)); err != nil || string(b) != want {
			t.Errorf("%s/%s: %q, %v; want %q", first, file, b, err, want)
		}
	}
	gone := nodeContainer(c.Name, 1)
	if b, err := os.ReadFile(filepath.Join(dest, gone, "audit.log")); err != nil || string(b) != "audit of "+gone {
		t.Errorf("the audit log of the server whose node is gone: %q, %v", b, err)
	}
}

// fakeDocker puts a docker first on PATH that lists nodes (docker ps) and, in a node
// (docker exec [flags] NODE CMD...), prints "NODE CMD...".
func fakeDocker(t *testing.T, nodes ...string) {
	t.Helper()
	bin := t.TempDir()
	script := `#!/bin/sh
case "$1" in
ps) printf '%s\n' ` + strings.Join(nodes, " ") + ` ;;
exec)
	shift
	while [ "${1#-}" != "$1" ]; do shift; done
	echo "$@" ;;
*) echo "fake docker: unexpected docker $*" >&2; exit 1 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}
