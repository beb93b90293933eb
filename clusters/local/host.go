package local

import (
	"fmt"
	"github.com/skewcheck/skewcheck/clusters/node"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Every apiserver runs as its own host: a UTS namespace with its own hostname. This matters
// because kube-apiserver names its identity lease after a hash of os.Hostname(): two
// apiservers on one hostname share one lease, never see each other as peers, and the mixed
// version proxy never forwards anything between them.
//
// Setting the hostname has to happen inside the new namespace and before kube-apiserver
// starts, so the process re-executes itself (/proc/self/exe, whichever binary imports this
// package: the CLI or a test binary) with hostExecEnv set; init below sees it, sets the
// hostname and execs the real binary in place, keeping the pid.
const (
	hostExecEnv     = "SKEWCHECK_HOST_EXEC"
	hostHostnameEnv = "SKEWCHECK_HOST_HOSTNAME"
	hostCgroupEnv   = "SKEWCHECK_HOST_CGROUP"
)

func init() {
	if os.Getenv(hostExecEnv) == "" {
		return
	}
	hostname, cgroup := os.Getenv(hostHostnameEnv), os.Getenv(hostCgroupEnv)
	os.Unsetenv(hostExecEnv)
	os.Unsetenv(hostHostnameEnv)
	os.Unsetenv(hostCgroupEnv)
	// Join the server's cgroup before exec, so no socket of the apiserver is ever outside it.
	if cgroup != "" {
		if err := os.WriteFile(filepath.Join(cgroup, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "skewcheck: joining cgroup %s: %v\n", cgroup, err)
			os.Exit(126)
		}
	}
	if err := unix.Sethostname([]byte(hostname)); err != nil {
		fmt.Fprintf(os.Stderr, "skewcheck: setting hostname %q in the new UTS namespace: %v\n", hostname, err)
		os.Exit(126)
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "skewcheck: host re-exec without a command")
		os.Exit(126)
	}
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	fmt.Fprintf(os.Stderr, "skewcheck: exec %s: %v\n", os.Args[1], err)
	os.Exit(127)
}

// hostCommand returns a command that runs argv as a host named hostname. The child dies with
// its parent (Pdeathsig), so a test that panics or a CLI that is killed leaves nothing
// running; it gets its own process group so signals meant for us are not delivered to it twice.
func hostCommand(hostname string, cgroup *node.Cgroup, argv []string) *exec.Cmd {
	cmd := exec.Command("/proc/self/exe", argv...)
	cmd.Env = append(os.Environ(), hostExecEnv+"=1", hostHostnameEnv+"="+hostname)
	if cgroup != nil {
		cmd.Env = append(cmd.Env, hostCgroupEnv+"="+cgroup.Dir)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUTS,
		Pdeathsig:  syscall.SIGKILL,
		Setpgid:    true,
	}
	return cmd
}

// CheckPrivilege tells early and clearly when this process cannot create UTS namespaces,
// instead of failing later with EPERM from deep inside a start.
func CheckPrivilege() error {
	cmd := hostCommand("skewcheck-probe", nil, []string{"/bin/true"})
	if out, err := cmd.CombinedOutput(); err != nil {
		return ErrNoPrivilege{Err: err, Output: string(out)}
	}
	return nil
}

// ErrNoPrivilege says this process cannot create the namespaces a local cluster's servers
// run in.
type ErrNoPrivilege struct {
	Err    error
	Output string
}

func (e ErrNoPrivilege) Error() string {
	return fmt.Sprintf("cannot give an apiserver its own hostname (creating a UTS namespace failed: %v %s): "+
		"skewcheck's local cluster needs root or CAP_SYS_ADMIN; run it as root (sudo -E), or test a cluster that runs", e.Err, e.Output)
}

func (e ErrNoPrivilege) Unwrap() error { return e.Err }
