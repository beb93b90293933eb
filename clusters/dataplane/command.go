package dataplane

import (
	"context"
	"errors"
	"os/exec"
)

// Command is a vendor's dataplane, as a shell command run on the node. It finds what it
// needs in the environment: SKEWCHECK_KUBECONFIG, SKEWCHECK_NODE_NAME, SKEWCHECK_NODE_IP,
// SKEWCHECK_DIR.
type Command struct {
	Label string // the name in reports; "exec" when empty
	Shell string
}

// ErrNoCommand: a Command needs its shell command.
var ErrNoCommand = errors.New("a dataplane run as a command needs its shell command")

func (c Command) Name() string {
	if c.Label != "" {
		return c.Label
	}
	return "exec"
}

func (c Command) Unsupported() string { return "" }
func (c Command) Release() string     { return "" }

func (c Command) Process(_ context.Context, n NodeInfo) (Process, error) {
	if c.Shell == "" {
		return Process{}, ErrNoCommand
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return Process{}, err
	}
	return Process{Argv: []string{sh, "-c", c.Shell}, Env: contractEnv(n)}, nil
}

// contractEnv is what a vendor's dataplane finds in its environment, as a command or as an
// image.
func contractEnv(n NodeInfo) []string {
	return []string{
		"SKEWCHECK_KUBECONFIG=" + n.Kubeconfig, "SKEWCHECK_NODE_NAME=" + n.Name,
		"SKEWCHECK_NODE_IP=" + n.IP, "SKEWCHECK_DIR=" + n.Dir,
	}
}
