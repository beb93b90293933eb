package kind

import (
	"errors"
	"os"
	"path/filepath"
)

// CopyLogs writes every node's journal (all of it, and the kubelet's and containerd's
// alone), its pods' logs (/var/log/pods, as a tar) and its apiserver's audit log to
// dest/<node>/.
func (c *Cluster) CopyLogs(dest string) error {
	if err := c.attachNodes(); err != nil {
		return err
	}
	var errs []error
	for _, s := range c.Servers {
		n := c.control[s.Name].node
		dir := filepath.Join(dest, n.String())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
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
			errs = append(errs, cmd.Run(), f.Close())
		}
	}
	for _, s := range c.Servers {
		if b, err := os.ReadFile(s.AuditLog); err == nil {
			errs = append(errs, os.WriteFile(filepath.Join(dest, s.Node, "audit.log"), b, 0o644))
		}
	}
	return errors.Join(errs...)
}
