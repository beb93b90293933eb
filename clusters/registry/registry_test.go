package registry

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stateDir points the registry at a fresh directory for the test.
func stateDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	t.Setenv("SKEWCHECK_STATE_DIR", d)
	return d
}

// mkCluster makes the directory a supervisor would make before writing anything.
func mkCluster(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(ClusterDir(name), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("SKEWCHECK_STATE_DIR", "")
	t.Setenv("XDG_STATE_HOME", "/xdg")
	if got := Dir(); got != "/xdg/skewcheck/clusters" {
		t.Errorf("Dir with XDG_STATE_HOME = %q", got)
	}
	t.Setenv("SKEWCHECK_STATE_DIR", "/state")
	if got := Dir(); got != "/state" {
		t.Errorf("Dir with SKEWCHECK_STATE_DIR = %q", got)
	}
	if got := ClusterDir("skew"); got != "/state/skew" {
		t.Errorf("ClusterDir = %q", got)
	}
	if got := SupervisorLog("skew"); got != "/state/skew/supervisor.log" {
		t.Errorf("SupervisorLog = %q", got)
	}
}

func TestCheckName(t *testing.T) {
	cases := []struct {
		name  string
		valid bool
	}{
		{"skew", true},
		{"a", true},
		{"9", true},
		{"skew-1", true},
		{"a-b-c", true},
		{"1x", true},
		{strings.Repeat("a", 32), true},
		{strings.Repeat("a", 33), false},
		{"", false},
		{"Skew", false},
		{"SKEW", false},
		{"my_cluster", false},
		{"-skew", false},
		{"skew-", false},
		{"-", false},
		{"sk ew", false},
		{"skew.local", false},
		{"../etc", false},
		{"a/b", false},
		{"skew\n", false},
	}
	for _, tc := range cases {
		t.Run(strconv.Quote(tc.name), func(t *testing.T) {
			err := CheckName(tc.name)
			if tc.valid && err != nil {
				t.Errorf("CheckName(%q) = %v, want valid", tc.name, err)
			}
			if !tc.valid {
				if err == nil {
					t.Fatalf("CheckName(%q) accepted an invalid name", tc.name)
				}
				if !strings.Contains(err.Error(), strconv.Quote(tc.name)) || !strings.Contains(err.Error(), "1 to 32") {
					t.Errorf("error %q should name the name and the rule", err)
				}
			}
		})
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	stateDir(t)
	mkCluster(t, "skew")
	want := Record{
		Name:       "skew",
		Supervisor: 4242,
		Kubeconfig: "/state/skew/run/kubeconfig",
		Created:    time.Date(2026, 3, 1, 12, 30, 0, 123, time.UTC),
		Ready:      3 * time.Second,
		Converged:  7*time.Second + 250*time.Millisecond,
		Servers: []Server{
			{Name: "apiserver-1", Version: "v1.35.4", URL: "https://127.77.0.11:6443", Hostname: "skew-apiserver-1", Pid: 100, PeerProxy: true, Log: "/l1", AuditLog: "/a1", Admin: "skew-apiserver-1", User: "skew-apiserver-1-user"},
			{Name: "apiserver-2", Version: "v1.36.3", URL: "https://127.77.0.12:6443", Hostname: "skew-apiserver-2", Pid: 101, PeerProxy: false, Log: "/l2", AuditLog: "/a2", Admin: "skew-apiserver-2", User: "skew-apiserver-2-user"},
		},
	}
	if err := Write(want); err != nil {
		t.Fatal(err)
	}
	got, err := Read("skew")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Created.Equal(want.Created) {
		t.Errorf("Created = %v, want %v", got.Created, want.Created)
	}
	got.Created = want.Created
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read =\n%+v\nwant\n%+v", got, want)
	}
	// Written atomically: no temporary file is left behind.
	if _, err := os.Stat(filepath.Join(ClusterDir("skew"), "cluster.json.tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary record left behind: %v", err)
	}
	// A second write replaces the first.
	want.Supervisor = 7
	want.Servers = want.Servers[:1]
	if err := Write(want); err != nil {
		t.Fatal(err)
	}
	if got, err := Read("skew"); err != nil || got.Supervisor != 7 || len(got.Servers) != 1 {
		t.Errorf("after rewrite Read = %+v, %v", got, err)
	}
}

func TestReadErrors(t *testing.T) {
	stateDir(t)
	if _, err := Read("nosuch"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing cluster = %v, want os.ErrNotExist", err)
	}
	mkCluster(t, "young")
	if _, err := Read("young"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read before the record exists = %v, want os.ErrNotExist", err)
	}
	if err := Write(Record{Name: "nodir"}); err == nil {
		t.Error("Write without the cluster directory succeeded")
	}

	for _, damaged := range []string{"{", "", "not json", `{"servers": "nope"}`} {
		mkCluster(t, "broken")
		if err := os.WriteFile(filepath.Join(ClusterDir("broken"), "cluster.json"), []byte(damaged), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read("broken")
		if err == nil {
			t.Fatalf("Read of %q succeeded", damaged)
		}
		for _, w := range []string{"damaged", "skewcheck cluster delete --name broken", "cluster.json"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error for %q = %q, want it to mention %q", damaged, err, w)
			}
		}
	}
}

func TestSupervisor(t *testing.T) {
	stateDir(t)

	// A pid that surely no longer exists: a child we started and reaped.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("running true, to have the pid of a process that is gone: %v", err)
	}
	deadPid := cmd.ProcessState.Pid()
	self := fmt.Sprintf("%d %d", os.Getpid(), startTime(os.Getpid()))

	cases := []struct {
		name    string
		content *string // nil: no file
		want    int
	}{
		{"no file", nil, 0},
		{"alive (this process)", ptr(self), os.Getpid()},
		{"alive with newline", ptr(self + "\n"), os.Getpid()},
		// The pid exists but another process holds it now: never signal that one.
		{"pid reused by another process", ptr(fmt.Sprintf("%d %d", os.Getpid(), startTime(os.Getpid())+1)), 0},
		{"pid without start time (an older record)", ptr(strconv.Itoa(os.Getpid())), 0},
		{"dead", ptr(strconv.Itoa(deadPid)), 0},
		{"zero", ptr("0"), 0},
		{"negative", ptr("-1"), 0},
		{"garbage", ptr("abc"), 0},
		{"empty", ptr(""), 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "c" + strconv.Itoa(i)
			mkCluster(t, name)
			if tc.content != nil {
				if err := os.WriteFile(filepath.Join(ClusterDir(name), "supervisor.pid"), []byte(*tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := Supervisor(name); got != tc.want {
				t.Errorf("Supervisor = %d, want %d", got, tc.want)
			}
		})
	}
	if got := Supervisor("no-directory"); got != 0 {
		t.Errorf("Supervisor of a cluster without a directory = %d", got)
	}
}

func ptr(s string) *string { return &s }

func TestSetSupervisor(t *testing.T) {
	stateDir(t)
	mkCluster(t, "skew")
	if err := SetSupervisor("skew", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if got := Supervisor("skew"); got != os.Getpid() {
		t.Errorf("Supervisor after SetSupervisor = %d, want %d", got, os.Getpid())
	}
	if err := SetSupervisor("nodir", 1); err == nil {
		t.Error("SetSupervisor without the cluster directory succeeded")
	}
}

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("running true, to have the pid of a process that is gone: %v", err)
	}
	if Alive(cmd.ProcessState.Pid()) {
		t.Errorf("reaped child %d is alive", cmd.ProcessState.Pid())
	}
}

func TestNamesAndRemove(t *testing.T) {
	d := stateDir(t)
	if names, err := Names(); err != nil || len(names) != 0 {
		t.Errorf("Names of an empty dir = %v, %v", names, err)
	}
	for _, n := range []string{"zeta", "alpha", "mid-1", "mid-0"} {
		mkCluster(t, n)
	}
	// A plain file in the state directory is not a cluster.
	if err := os.WriteFile(filepath.Join(d, "stray.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := Names()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"alpha", "mid-0", "mid-1", "zeta"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Names = %v, want %v", names, want)
	}

	if err := Write(Record{Name: "mid-0"}); err != nil {
		t.Fatal(err)
	}
	if err := Remove("mid-0"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ClusterDir("mid-0")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster directory remains after Remove: %v", err)
	}
	if err := Remove("mid-0"); err != nil {
		t.Errorf("Remove of a removed cluster = %v, want nil", err)
	}
	names, _ = Names()
	if want := []string{"alpha", "mid-1", "zeta"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Names after Remove = %v, want %v", names, want)
	}

	// A state directory that does not exist yet lists nothing.
	t.Setenv("SKEWCHECK_STATE_DIR", filepath.Join(d, "not", "yet"))
	if names, err := Names(); err != nil || names != nil {
		t.Errorf("Names of a missing dir = %v, %v", names, err)
	}
}
