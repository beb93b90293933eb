package kind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kind/pkg/cluster/nodes"
)

// CopyLogs writes every node's journal (all of it, and the kubelet's and containerd's
// alone), its pods' logs (/var/log/pods, as a tar) and its apiserver's audit log to
// dest/<node>/. It reaches the nodes through the container engine alone, as `kind export
// logs` does, never through the kubeconfig or an apiserver: logs matter most when the
// cluster is broken, its kubeconfig gone or its apiservers down. A server whose node is
// gone is an error, and everything else is still copied (its audit log is on the host).
func (c *Cluster) CopyLogs(dest string) error {
	all, err := provider().ListNodes(KindName(c.Name))
	if err != nil {
		return fmt.Errorf("listing the nodes of kind cluster %s to copy their logs: %w (is the Docker engine running? docker ps lists them)", KindName(c.Name), err)
	}
	byName := map[string]nodes.Node{}
	for _, n := range all {
		byName[n.String()] = n
	}
	var errs []error
	for _, s := range c.Servers {
		dir := filepath.Join(dest, s.Node)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if n, ok := byName[s.Node]; ok {
			errs = append(errs, copyNodeLogs(n, dir))
		} else {
			errs = append(errs, fmt.Errorf("kind cluster %s has no node %s (%s's) any more: its journal and pods' logs are gone with it", KindName(c.Name), s.Node, s.Name))
		}
		if b, err := os.ReadFile(s.AuditLog); err == nil {
			errs = append(errs, os.WriteFile(filepath.Join(dir, "audit.log"), b, 0o644))
		}
	}
	return errors.Join(errs...)
}

// copyNodeLogs writes n's journals and its pods' logs to dir, each command run in the node.
func copyNodeLogs(n nodes.Node, dir string) error {
	var errs []error
	for file, argv := range map[string][]string{
		"journal.log":    {"journalctl", "--no-pager"},
		"kubelet.log":    {"journalctl", "--no-pager", "-u", "kubelet"},
		"containerd.log": {"journalctl", "--no-pager", "-u", "containerd"},
		"pods.tar":       {"tar", "-C", "/var/log", "-cf", "-", "pods"},
	} {
		f, err := os.Create(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		cmd := n.Command(argv[0], argv[1:]...)
		cmd.SetStdout(f)
		if err := cmd.Run(); err != nil {
			errs = append(errs, fmt.Errorf("%s in node %s for %s: %w", argv[0], n, file, err))
		}
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
