package kind

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// kind runs every node with `docker run --privileged` and every command in a node with
// `docker exec --privileged`. Some hosts cannot: a VM whose capability bounding set lacks one
// that --privileged grants (seen: CAP_SYS_RESOURCE) makes runc fail with "unable to apply
// caps". On such hosts kind's docker commands go through this shim, which runs nodes with
// every capability the host has, device access, and unmasked /proc and /sys instead, and
// execs without --privileged (an exec gets the container's capabilities). The node's
// entrypoint does the rest (read-only cgroups, no /dev/kmsg, no negative OOM scores).
// Elsewhere kind calls docker directly and nothing changes.

// Environment of the shim, set by the provider for kind's docker commands.
const (
	envRealDocker = "SKEWCHECK_KIND_REAL_DOCKER" // the docker executable to run
	envDropCaps   = "SKEWCHECK_KIND_DROP_CAPS"   // capabilities the host lacks, comma-separated
)

// RunDockerShimIfCalled is the shim's entry point: when this executable was started as
// "docker" (through the provider's PATH), it rewrites kind's command and execs the real
// docker; otherwise it returns at once. It is registered with internal/reexec, whose
// RunIfCalled main (and TestMain) calls first thing.
func RunDockerShimIfCalled() {
	if filepath.Base(os.Args[0]) != "docker" || os.Getenv(envRealDocker) == "" {
		shimReady.Store(true)
		return
	}
	args := shimArgs(os.Args[1:], strings.Split(os.Getenv(envDropCaps), ","))
	real := os.Getenv(envRealDocker)
	err := syscall.Exec(real, append([]string{real}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "skewcheck docker shim: running %s: %v\n", real, err)
	os.Exit(127)
}

// shimReady says this program runs the shim when started as docker: the provider points
// kind's docker at this executable only then. A program that never called
// RunDockerShimIfCalled would, started as docker, run as itself (a test binary: every test
// again, each making clusters that start it again).
var shimReady atomic.Bool

// shimArgs rewrites the first --privileged of a run or exec (kind puts it among the flags,
// and never elsewhere).
func shimArgs(args, dropCaps []string) []string {
	if len(args) == 0 || (args[0] != "run" && args[0] != "exec") {
		return args
	}
	out := make([]string, 0, len(args)+8)
	replaced := false
	for _, a := range args {
		if a != "--privileged" || replaced {
			out = append(out, a)
			continue
		}
		replaced = true
		if args[0] == "exec" {
			continue
		}
		out = append(out, "--cap-add=ALL")
		for _, c := range dropCaps {
			if c != "" {
				out = append(out, "--cap-drop="+c)
			}
		}
		out = append(out, "--security-opt=systempaths=unconfined", "--device-cgroup-rule=a *:* rwm")
	}
	return out
}

var shimOnce struct {
	sync.Mutex
	done bool
}

// useShimIfNeeded decides, once per process, whether kind's docker commands need the shim
// (by asking the engine to start a privileged container from image) and if so points this
// process's docker at it. kind runs docker with this process's environment.
func useShimIfNeeded(ctx context.Context, image string) error {
	shimOnce.Lock()
	defer shimOnce.Unlock()
	if shimOnce.done {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(self))
	env, err := shimEnvironment(ctx, image, filepath.Join(binaries.DefaultCacheDir(), "kind", "docker-shim", hex.EncodeToString(sum[:6])))
	if err != nil {
		return err
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	shimOnce.done = true
	return nil
}

// shimEnvironment returns the environment that sends kind's docker commands through the
// shim, or nil when the engine runs privileged containers as it is.
func shimEnvironment(ctx context.Context, image, shimDir string) ([]string, error) {
	real, err := exec.LookPath("docker")
	if err != nil {
		return nil, fmt.Errorf("kind runs the docker command, which is not on PATH (%v): install Docker's CLI", err)
	}
	var out bytes.Buffer
	probe := exec.CommandContext(ctx, real, "run", "--rm", "--privileged", "--entrypoint", "/bin/true", image)
	probe.Stdout, probe.Stderr = &out, &out
	if probe.Run() == nil {
		return nil, nil
	}
	if !strings.Contains(out.String(), "apply caps") {
		return nil, fmt.Errorf("docker run --privileged %s failed: %s", image, strings.TrimSpace(out.String()))
	}
	if !shimReady.Load() {
		return nil, fmt.Errorf("this Docker engine refuses --privileged (%s), so kind's docker commands need skewcheck's shim, which this program does not run: call reexec.RunIfCalled() (internal/reexec) or kind.RunDockerShimIfCalled() first thing in its main (and TestMain)", strings.TrimSpace(out.String()))
	}
	missing, err := missingCaps()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(shimDir, 0o755); err != nil {
		return nil, err
	}
	link := filepath.Join(shimDir, "docker")
	os.Remove(link)
	if err := os.Symlink(self, link); err != nil {
		return nil, err
	}
	return []string{
		envRealDocker + "=" + real,
		envDropCaps + "=" + strings.Join(missing, ","),
		"PATH=" + shimDir + string(os.PathListSeparator) + os.Getenv("PATH"),
	}, nil
}

// capNames are Linux capabilities by number, as Docker names them.
var capNames = []string{"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
	"SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
	"SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
	"SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP",
	"MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE"}

// missingCaps are the capabilities this host's bounding set lacks (the engine is local:
// kind publishes node ports on 127.0.0.1 anyway).
func missingCaps() ([]string, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapBnd:"); ok {
			bnd, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return nil, err
			}
			var missing []string
			for i, name := range capNames {
				if bnd&(1<<i) == 0 {
					missing = append(missing, name)
				}
			}
			return missing, nil
		}
	}
	return nil, fmt.Errorf("no CapBnd in /proc/self/status")
}
