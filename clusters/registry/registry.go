// Package registry keeps track of the named local clusters on this machine that run
// detached from the command that created them, as kind's clusters do: each lives in a
// directory with a record of what runs where, owned by one supervisor process.
package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Dir is where named clusters live: $SKEWCHECK_STATE_DIR, else $XDG_STATE_HOME/skewcheck/clusters,
// else ~/.local/state/skewcheck/clusters.
func Dir() string {
	if d := os.Getenv("SKEWCHECK_STATE_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "skewcheck", "clusters")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "skewcheck-state", "clusters")
	}
	return filepath.Join(home, ".local", "state", "skewcheck", "clusters")
}

// Server is one apiserver as the record shows it.
type Server struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	URL       string `json:"url"`
	Hostname  string `json:"hostname"`
	Pid       int    `json:"pid"`
	PeerProxy bool   `json:"peerProxy"`
	Log       string `json:"log"`
	AuditLog  string `json:"auditLog"`
	Admin     string `json:"adminContext"`
	User      string `json:"userContext"`
	// Proxy is the reference proxy in front of this server, if the cluster wears one.
	Proxy *Endpoint `json:"proxy,omitempty"`
}

// Endpoint is somewhere clients connect, with its kubeconfig contexts.
type Endpoint struct {
	// Host is the machine or container serving it, where that is not a server's.
	Host  string `json:"host,omitempty"`
	URL   string `json:"url"`
	Admin string `json:"adminContext"`
	User  string `json:"userContext"`
}

// Record is what a supervisor writes once its cluster has converged.
type Record struct {
	Name string `json:"name"`
	// Provider is what made the cluster (clusters.Provider's Name). Whether a supervisor
	// process owns it or it lives on by itself is the provider's (clusters.Lasting).
	// Records written before providers were named say "" for the local provider.
	Provider   string        `json:"provider,omitempty"`
	Supervisor int           `json:"supervisorPid"`
	Kubeconfig string        `json:"kubeconfig"`
	Created    time.Time     `json:"created"`
	Ready      time.Duration `json:"readyNanos"`
	Converged  time.Duration `json:"convergedNanos"`
	Servers    []Server      `json:"servers"`
	// LoadBalancer is a load balancer in front of every server, if the provider runs one
	// (kind's).
	LoadBalancer *Endpoint `json:"loadBalancer,omitempty"`
}

var validName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$`)

// CheckName accepts names that fit in hostnames and kubeconfig contexts.
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("cluster name %q is not valid: use 1 to 32 lowercase letters, digits and '-', starting and ending with a letter or digit", name)
	}
	return nil
}

// ClusterDir is the directory of the named cluster.
func ClusterDir(name string) string { return filepath.Join(Dir(), name) }

func recordPath(name string) string     { return filepath.Join(ClusterDir(name), "cluster.json") }
func supervisorPath(name string) string { return filepath.Join(ClusterDir(name), "supervisor.pid") }

// SupervisorLog is where the supervisor writes its progress and errors.
func SupervisorLog(name string) string { return filepath.Join(ClusterDir(name), "supervisor.log") }

// Write stores the record atomically, so a reader never sees half of it.
func Write(r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := recordPath(r.Name) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("writing cluster record: %w", err)
	}
	return os.Rename(tmp, recordPath(r.Name))
}

// Read loads the named cluster's record; os.ErrNotExist until the cluster has converged.
func Read(name string) (Record, error) {
	var r Record
	b, err := os.ReadFile(recordPath(name))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("cluster record %s is damaged (%v): delete the cluster with skewcheck cluster delete --name %s", recordPath(name), err, name)
	}
	return r, nil
}

// SetSupervisor records which process owns the cluster, before it has converged, with
// the process's start time: a pid alone may be reused by an unrelated process after the
// supervisor died, which `cluster delete` would then signal.
func SetSupervisor(name string, pid int) error {
	return os.WriteFile(supervisorPath(name), []byte(fmt.Sprintf("%d %d", pid, startTime(pid))), 0o644)
}

// Supervisor is the pid owning the cluster, 0 if none is alive: the recorded process must
// exist and have the start time recorded with it.
func Supervisor(name string) int {
	b, err := os.ReadFile(supervisorPath(name))
	if err != nil {
		return 0
	}
	var pid int
	var started uint64
	fmt.Sscanf(string(b), "%d %d", &pid, &started)
	if pid <= 0 || !Alive(pid) || startTime(pid) != started {
		return 0
	}
	return pid
}

// startTime is when a process started, in clock ticks since boot (field 22 of
// /proc/<pid>/stat), or 0 when it cannot be read.
func startTime(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		return 0
	}
	t, _ := strconv.ParseUint(fields[19], 10, 64)
	return t
}

// Alive reports whether a process exists (signal 0 checks without disturbing it).
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Names lists the clusters that have a directory, alive or not.
func Names() ([]string, error) {
	entries, err := os.ReadDir(Dir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Remove deletes the cluster's directory (after its supervisor is gone).
func Remove(name string) error { return os.RemoveAll(ClusterDir(name)) }
