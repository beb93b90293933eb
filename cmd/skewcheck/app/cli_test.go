//go:build !incluster

package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
)

// These tests run the command line in process, through Run with buffers: what fails or
// answers before any cluster exists. What starts clusters, leaves things behind or takes
// signals runs the built binary (package main's tests), as users and CI do.

// TestMain keeps this test binary from running its tests again when a command re-executes
// os.Executable(), as cluster create does for its supervisor: only commands that fail
// before that may run here (an unknown version fails in the supervisor: package main's
// TestUnknownVersion).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintf(os.Stderr, "the app tests' binary was re-executed as the CLI (%s): run that command through the built binary, in package main's tests\n", strings.Join(os.Args[1:], " "))
		os.Exit(3)
	}
	// A provider that can do nothing beyond clusters.Cluster: what every command must
	// refuse of it, before making anything, is what each capability asks.
	clusters.Register(clusters.Provider{Name: bareProvider, Description: "nothing beyond a cluster (a test's)",
		New: func(context.Context, clusters.Spec) (clusters.Cluster, error) {
			return nil, errors.New("the bare test provider makes no cluster")
		}})
	os.Exit(m.Run())
}

const bareProvider = "bare"

// runApp runs the command line args with its own state directory and returns what it wrote
// to both streams, interleaved as a terminal shows them, and its exit code.
func runApp(t *testing.T, state string, args ...string) (string, int) {
	t.Helper()
	t.Setenv("SKEWCHECK_STATE_DIR", state)
	var out bytes.Buffer
	code := Run(args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
	return out.String(), code
}

func TestListNeedsNoCluster(t *testing.T) {
	out, code := runApp(t, t.TempDir(), "conformance", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"MVP-010", "DISC-001", "1.35+", "mvp", "discovery", "IPM-101", "Dataplane", "CHAOS-001", "RACE-001", "Registration"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list output lacks %q:\n%s", want, out)
		}
	}
	if out, code := runApp(t, t.TempDir(), "conformance", "--list", "--profiles", "nosuch"); code == 0 || !strings.Contains(out, `unknown profile "nosuch"`) {
		t.Errorf("an unknown profile should fail clearly; exit %d: %s", code, out)
	}
}

func TestBadInput(t *testing.T) {
	state := t.TempDir()
	cases := []badInput{
		{"bad name", []string{"cluster", "create", "--name", "Bad_Name"}, "is not valid"},
		{"bad server ref", []string{"cluster", "create", "--name", "x", "--no-peer-proxy", "7"}, "names no server"},
		{"delete unknown", []string{"cluster", "delete", "--name", "nosuch"}, "there is no cluster named"},
		{"missing kubeconfig", []string{"conformance", "--kubeconfig", "/nonexistent/kubeconfig", "--contexts", "a"}, "/nonexistent/kubeconfig"},
		{"unknown dataplane", []string{"conformance", "--profiles", "ipmode", "--dataplane", "kube-proxy-ebpf"}, "the dataplanes are kube-proxy-nftables"},
		{"exec without command", []string{"conformance", "--profiles", "ipmode", "--dataplane", "exec"}, "needs --dataplane-command"},
		{"chaos with the reference on a provider without fronts", []string{"chaos", "--provider", bareProvider}, "give --targets upstream"},
		{"flaw without the reference", []string{"conformance", "--reference-flaw", "hedge-reads"}, "goes with --reference peerproxy"},
		{"chaos flaw without the reference", []string{"chaos", "--targets", "upstream", "--reference-flaw", "untrusted-peer-not-found"}, "it goes with --targets reference"},
		{"chaos unknown flaw", []string{"chaos", "--reference-flaw", "nosuch"}, "the flaws are forward-as-itself"},
		{"unknown flaw", []string{"conformance", "--reference", "peerproxy", "--reference-flaw", "nosuch"}, "the flaws are forward-as-itself"},
		{"upgrade path and from", []string{"upgrade", "--path", "v1.35.4,v1.36.3", "--from", "v1.35.4"}, "drop --from, --to and --round-trip, or drop --path"},
		{"upgrade path and round trip", []string{"upgrade", "--path", "v1.35.4,v1.36.3", "--round-trip"}, "or drop --path"},
		{"upgrade path of one version", []string{"upgrade", "--path", "v1.35.4"}, "name at least two versions"},
		{"upgrade hop to the same version", []string{"upgrade", "--path", "v1.35.4,v1.36.3,v1.36.3"}, "hop 2 goes from v1.36.3 to v1.36.3"},
		{"upgrade to the same version", []string{"upgrade", "--from", "v1.36.3", "--to", "v1.36.3"}, "the same version"},
		{"dataplane on an existing cluster", []string{"conformance", "--profiles", "ipmode", "--dataplane", "reference", "--kubeconfig", "/nonexistent/kubeconfig"}, "runs on a local cluster only"},
		// A shard of a night that would get no job of its own plan (exact versions, no
		// optional job): were it not refused, it would still build and start nothing.
		{"nightly shard without one plan", []string{"nightly", "--shard", "3/3", "--versions", "v1.35.4,v1.36.3", "--mutation=false", "--providers", "", "--emulation=false",
			"--report-dir", t.TempDir()}, "--shard 3/3 without --plan-file: every shard of a night must split the same plan"},
	}
	assertRefused(t, state, cases)
}

func TestUnreachableTarget(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
current-context: a
`), 0o600)
	out, code := runApp(t, t.TempDir(), "conformance", "--kubeconfig", kc, "--contexts", "a")
	if code == 0 || !strings.Contains(out, "is the endpoint reachable") {
		t.Errorf("want a clear error for an unreachable endpoint; exit %d:\n%s", code, out)
	}
}

// TestKindBadInput: what --provider kind refuses, before any node is made (and before
// Docker is asked: package main's TestKindNoDockerEngine asks one that is not there).
func TestKindBadInput(t *testing.T) {
	state := t.TempDir()
	cases := []badInput{
		{"unknown provider", []string{"cluster", "create", "--name", "p", "--provider", "kvm"}, `unknown provider "kvm"`},
		{"unsupported flag", []string{"cluster", "create", "--provider", "kind", "--name", "np", "--peer-advertise", "1=127.0.0.9:6443"}, "not supported with --provider kind"},
		{"reference", []string{"cluster", "create", "--provider", "kind", "--name", "rf", "--reference", "peerproxy"}, "not supported with --provider kind"},
		{"conformance with a kubeconfig", []string{"conformance", "--provider", "kind", "--kubeconfig", "/nonexistent"}, "cannot go with --kubeconfig"},
		{"node image without version", []string{"images", "node"}, "--version is required"},
	}
	assertRefused(t, state, cases)
}

func TestMutationListNeedsNoCluster(t *testing.T) {
	out, code := runApp(t, t.TempDir(), "mutation", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"peerproxy (baseline)", "peerproxy/hedge-reads", "gateway/no-impersonation", "ipmode/reference-ignoring-ipmode", "--gateway-defect ignore-sni"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list output lacks %q:\n%s", want, out)
		}
	}
}

// TestStreams: results go to Out, errors to ErrOut, as the binary's stdout and stderr, and
// `help NOSUCH` is an error, as `NOSUCH` is.
func TestStreams(t *testing.T) {
	t.Setenv("SKEWCHECK_STATE_DIR", t.TempDir())
	for _, tc := range []struct {
		args          []string
		code          int
		out, errOut   string
		noOut, noErrs bool
	}{
		{args: []string{"conformance", "--list"}, out: "MVP-010", noErrs: true},
		{args: []string{"--version"}, out: "skewcheck version " + version, noErrs: true},
		{args: []string{"conformance", "--reference-flaw", "hedge-reads"}, code: 1, errOut: "error: ", noOut: true},
		{args: []string{"help", "nosuch"}, code: 1, errOut: `error: no help topic "nosuch": see skewcheck help`, noOut: true},
		{args: []string{"help", "cluster", "skew"}, out: "skewcheck cluster skew [flags]", noErrs: true},
	} {
		var out, errOut bytes.Buffer
		code := Run(tc.args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.errOut) ||
			(tc.noOut && out.Len() > 0) || (tc.noErrs && errOut.Len() > 0) {
			t.Errorf("%q: exit %d (want %d)\nout:\n%s\nerrOut:\n%s", tc.args, code, tc.code, out.String(), errOut.String())
		}
	}
}

// badInput is a command line that must fail with want in its output.
type badInput struct {
	name string
	args []string
	want string
}

// assertRefused runs each case with state as its state directory: each must exit non-zero
// saying what it wants, and together they must leave no cluster directory.
func assertRefused(t *testing.T, state string, cases []badInput) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runApp(t, state, tc.args...)
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Errorf("want a non-zero exit and %q; exit %d:\n%s", tc.want, code, out)
			}
		})
	}
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Errorf("failed commands left cluster directories: %v", entries)
	}
}

// What needs no cluster to judge is refused before one starts, naming the flag and the fix:
// conformance's flags, then observe's and certify's.
func TestRefusedBeforeBringUp(t *testing.T) {
	noKubeconfig(t)
	file := filepath.Join(t.TempDir(), "report")
	if err := os.WriteFile(file, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"contexts without a kubeconfig", []string{"--contexts", "a,b", "--upstream"}, "--contexts, --upstream describe(s) an existing target, which --kubeconfig names"},
		{"a focus that is no regular expression", []string{"--focus", "["}, `--focus "[" is not a regular expression`},
		{"a skip that is no regular expression", []string{"--skip", "(MVP"}, `--skip "(MVP" is not a regular expression`},
		{"one server for profiles that need a peer", []string{"--versions", "v1.36.3", "--profiles", "mvp,ipmode"}, "one apiserver, which has no peer, and mvp test(s) what servers do for one another"},
		{"user contexts without contexts", []string{"--kubeconfig", "x", "--user-contexts", "u"}, "--user-contexts names one context per endpoint of --contexts"},
		{"a dry run of a cluster skewcheck makes", []string{"--dry-run"}, "--dry-run lists what a run would make in a cluster whose apiservers it finds"},
		{"a dry run with contexts", []string{"--dry-run", "--kubeconfig", "x", "--contexts", "a"}, "it goes with --kubeconfig FILE and without --contexts"},
		{"a watch without a cluster", []string{"observe", "--for", "1m"}, "~/.kube/config absent: give --kubeconfig, or --in-cluster from a pod"},
		{"a watch of two clusters", []string{"observe", "--kubeconfig", "x", "--in-cluster"}, "--in-cluster reaches the cluster the pod runs in"},
		{"a watch without an end", []string{"observe", "--kubeconfig", "x", "--for", "0s"}, "--for 0s: say how long at most to watch"},
		{"a watch until a minor version", []string{"observe", "--kubeconfig", "x", "--until", "1.36"}, `--until "v1.36": the whole version`},
		{"a watch polling backwards", []string{"observe", "--kubeconfig", "x", "--poll", "-1s"}, "--poll -1s: give a positive duration"},
		{"a gateway whose requests never wait for a stream", []string{"reference", "gateway", "--listen", "127.0.0.1:1", "--config-dir", "x", "--stream-wait", "0s"}, "--stream-wait 0s, --idle-timeout 1m30s: give positive durations"},
		{"a controller manager on a provider without one", []string{"conformance", "--provider", "kind", "--controller-manager", "own-node", "--profiles", "controllers"}, "--controller-manager is not supported with --provider kind yet"},
		{"owners through an upgrade on a provider without a controller manager", []string{"upgrade", "--provider", "kind", "--owners"}, "--controller-manager is not supported with --provider kind yet"},
		{"a Job watching backwards", []string{"certify", "--kubeconfig", "x", "--observe", "-5m"}, "--observe -5m0s: say how long at most to watch"},
		{"a Job watching until without watching", []string{"certify", "--kubeconfig", "x", "--observe-until", "v1.36.3"}, "--observe-until goes with --observe"},
		{"a Job watching and testing", []string{"certify", "--kubeconfig", "x", "--observe", "5m", "--profiles", "mvp"}, "--observe watches an upgrade and runs no profile"},
		{"a Job with a memory limit that is no quantity", []string{"certify", "--kubeconfig", "x", "--memory-limit", "lots"}, `--memory-limit "lots": a Kubernetes quantity`},
		// Issue 58: each of these went on to build or start something.
		{"a report dir that is a file", []string{"--report-dir", file}, "--report-dir " + file + " is a file: give a directory"},
		{"a report dir under a file", []string{"--report-dir", filepath.Join(file, "sub")}, "cannot be made, since " + file + " is a file"},
		{"chaos's report dir under a file", []string{"chaos", "--report-dir", filepath.Join(file, "sub")}, "cannot be made, since " + file + " is a file"},
		{"races' report dir that is a file", []string{"races", "--report-dir", file}, "--report-dir " + file + " is a file"},
		{"a focus that matches no test", []string{"--focus", "NOMATCH-999"}, `--focus "NOMATCH-999" matches no test of --profiles mvp,discovery (it is matched against "[ID] description"); the nearest IDs are `},
		{"a focus of a test of another profile", []string{"--focus", `\[GW-080\]`}, "matches no test of --profiles mvp,discovery, only tests of gateway: give --profiles gateway"},
		{"a focus of a profile's test outside --profiles", []string{"--profiles", "mvp", "--focus", "DISC-001"}, "only tests of discovery: give --profiles discovery"},
		{"a skip of every test", []string{"--skip", "."}, `--skip "." skips every test of --profiles mvp,discovery: skip fewer, or drop --skip`},
		{"a skip of every focused test", []string{"--focus", "MVP-010", "--skip", "MVP"}, `--skip "MVP" skips every test --focus "MVP-010" leaves`},
		{"no profiles", []string{"--profiles", ""}, "--profiles is empty: name the profiles to run, e.g. --profiles mvp,discovery"},
		{"the gateway profile without a gateway", []string{"--profiles", "gateway"}, "--profiles gateway tests an API gateway in front of the apiservers, and none is given: give --gateway reference"},
		{"a port past 65535", []string{"--port", "70000"}, "--port 70000 is no TCP port: give one from 1 to 65535"},
		{"cluster create on a port past 65535", []string{"cluster", "create", "--name", "p", "--port", "70000"}, "--port 70000 is no TCP port"},
		{"chaos on port 0", []string{"chaos", "--port", "0"}, "--port 0 is no TCP port"},
		{"races on a port past 65535", []string{"races", "--port", "70000"}, "--port 70000 is no TCP port"},
		{"a request bound backwards", []string{"--timeout-request", "-5s"}, "--timeout-request -5s: give a duration of zero or more, e.g. --timeout-request "},
		{"a fault held backwards", []string{"--fault-hold", "-1s"}, "--fault-hold -1s: give a duration of zero or more"},
		{"a gateway ready bound backwards", []string{"--gateway", "reference", "--gateway-ready-timeout", "-1m"}, "--gateway-ready-timeout -1m0s: give a duration of zero or more"},
		{"a fault injected backwards", []string{"chaos", "--for", "-1s"}, "--for -1s: give a duration of zero or more, e.g. --for 15s (the default)"},
		{"races bound backwards", []string{"races", "--bound", "-1s"}, "--bound -1s: give a duration of zero or more"},
		{"races on one server", []string{"races", "--versions", "v1.36.3"}, "--versions v1.36.3 makes 1 apiserver(s), and every race is between peers: give two or more"},
		{"a dataplane name alone", []string{"--profiles", "ipmode", "--dataplane-name", "acme-lb"}, "--dataplane-name names your dataplane in the report: it goes with --dataplane-command or --dataplane-image"},
		{"a dataplane command without exec", []string{"--profiles", "ipmode", "--dataplane-command", "acme-dataplane"}, "--dataplane-command runs your dataplane: it goes with --dataplane exec"},
		{"a dataplane command for kube-proxy", []string{"--profiles", "ipmode", "--dataplane", "kube-proxy-nftables", "--dataplane-command", "acme-dataplane"}, "it goes with --dataplane exec"},
		{"an accepted feature no test needs", []string{"--accept-missing", "AuditLogs"}, `--accept-missing "AuditLogs" names no feature a test needs: the features are `},
		{"a pod network beside a dataplane", []string{"--provider", "kind", "--profiles", "ipmode", "--pod-network"}, "--pod-network runs kube-proxy on every node, and the dataplane under test"},
		{"a pod network on a provider without one", []string{"--pod-network"}, "--pod-network is not supported with --provider local yet (that provider lacks a pod network routed between nodes, with a Service proxy): use --provider kind"},
		{"a gateway name alone", []string{"--gateway-name", "acme"}, "--gateway-name names your gateway in the report: it goes with --gateway-command or --gateway-image"},
		{"a gateway name for the reference", []string{"--gateway", "reference", "--gateway-name", "acme"}, "(a reference gateway is named by --gateway)"},
		{"a sidecar name alone", []string{"--sidecar-name", "acme-proxy"}, "--sidecar-name names your proxy in the report: it goes with --sidecar-command or --sidecar-image"},
		{"stray arguments", []string{"--list", "foo", "bar"}, `unknown command "foo" for "skewcheck conformance"`},
		{"stray arguments of chaos", []string{"chaos", "freeze"}, `unknown command "freeze" for "skewcheck chaos"`},
		{"a Job with a misspelt conformance flag", []string{"certify", "--kubeconfig", "x", "--conformance-flag=--nosuch"}, "--conformance-flag: unknown flag: --nosuch: give flags of skewcheck conformance"},
		{"a plugin with a conformance flag of a bad value", []string{"certify", "--sonobuoy-plugin", "--conformance-flag=--timeout-request=soon"}, `--conformance-flag: invalid argument "soon" for "--timeout-request" flag`},
		{"a Job with a conformance argument", []string{"certify", "--kubeconfig", "x", "--conformance-flag=MVP-010"}, `--conformance-flag: "MVP-010" is no flag of skewcheck conformance`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if strings.HasPrefix(args[0], "-") {
				args = append([]string{"conformance"}, args...)
			}
			out, code := runApp(t, t.TempDir(), args...)
			if code != 1 || !strings.Contains(out, tc.want) || strings.Contains(out, "starting") {
				t.Errorf("exit %d, want 1 and %q before anything starts:\n%s", code, tc.want, out)
			}
		})
	}
	if st, err := os.Stat(file); err != nil || st.IsDir() {
		t.Errorf("the report dir given as a file was touched: %v", err)
	}
}
