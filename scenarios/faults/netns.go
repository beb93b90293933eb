package faults

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"sigs.k8s.io/knftables"
)

// netns is a network namespace a fault's table goes into. Another namespace than this
// machine's is held open from Inject to Heal, so the table is deleted from the namespace it
// was added to even if the process its path named has gone and its pid been reused.
//
// nft enters it through nsenter rather than through setns(2) on a locked thread of
// skewcheck's own: the switch then lives and dies with a short child process, so no thread
// of skewcheck (the forwarders, the load, the Docker client) can ever be left in a
// container's namespace by an error or a cancelled context on the way back. It is this
// machine's nft, in this machine's mount namespace, so a container needs no nft of its own
// (a pod's holder is FROM scratch).
type netns struct {
	path string   // as given: a server's NetNS, or "" for this machine's
	f    *os.File // open while the table is there; nil for this machine's
}

func openNetns(path string) (*netns, error) {
	if path == "" {
		return &netns{}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening network namespace %s: %w (its container has gone: is the cluster still up?)", path, err)
	}
	return &netns{path: path, f: f}, nil
}

func (n *netns) String() string {
	if n.f == nil {
		return "this machine's network namespace"
	}
	return "network namespace " + n.path
}

// byHand is the command a user runs to do what nft does in the namespace.
func (n *netns) byHand(nftArgs string) string {
	if n.f == nil {
		return "nft " + nftArgs
	}
	return "nsenter --net=" + n.path + " nft " + nftArgs
}

// run runs tx in the namespace: through knftables in this machine's, else as knftables
// would (nft -f - with the transaction on stdin) under nsenter, with the held namespace
// as the child's fd 3.
func (n *netns) run(ctx context.Context, nft knftables.Interface, tx *knftables.Transaction) error {
	if n.f == nil {
		return nft.Run(ctx, tx)
	}
	cmd := nftIn(ctx, "/proc/self/fd/3", "-f", "-")
	cmd.ExtraFiles = []*os.File{n.f}
	cmd.Stdin = strings.NewReader(tx.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func (n *netns) close() {
	if n.f != nil {
		n.f.Close()
	}
}

// nftIn is the nft command with args in the network namespace at path, or in this
// process's own when path is empty.
func nftIn(ctx context.Context, path string, args ...string) *exec.Cmd {
	if path == "" {
		return exec.CommandContext(ctx, "nft", args...)
	}
	return exec.CommandContext(ctx, "nsenter", append([]string{"--net=" + path, "--", "nft"}, args...)...)
}
