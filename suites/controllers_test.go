package suites_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/suites"
	"github.com/skewcheck/skewcheck/suites/controllers"
)

// controllersCase is one run of the controllers profile: the apiservers' mixed version
// proxy active (the local provider's default) or inert as kubeadm leaves it (no
// --peer-ca-file), and the server the controller manager talks to.
type controllersCase struct {
	Proxy   bool   `json:"proxy"`
	Connect string `json:"connect"`
	// Three runs the three servers of an HA control plane mid-upgrade
	// (localtest.HighlyAvailable) instead of the skewed pair.
	Three bool `json:"three,omitempty"`
	// Focus, when set, runs only the tests it matches (framework.RunOptions.Focus).
	Focus string `json:"focus,omitempty"`
	Dir   string `json:"dir"`
}

func (c controllersCase) name() string {
	on := "proxy-on"
	if !c.Proxy {
		on = "proxy-off"
	}
	if c.Three {
		on += "/three-servers"
	}
	return on + "/" + c.Connect
}

// controllersCaseEnv hands a case to the child process that runs it: ginkgo runs one
// suite per process (framework.Run), and each case is a cluster and a run of its own.
const controllersCaseEnv = "SKEWCHECK_TEST_CONTROLLERS_CASE"

// TestControllersProfile runs the controllers profile against real upstream apiservers
// (integration.Versions, apiserver-1 at the older release with batch/v1 off: Jobs, and the
// newer release's MutatingAdmissionPolicies and their bindings, are the resources only
// apiserver-2 serves) and a real kube-controller-manager of the older release, connected
// to apiserver-1, the server lacking them (the worst case), or through a round-robin load
// balancer over both. With the proxy active every test must pass in both topologies; with
// it inert (kubeadm's servers) the tests the harm reaches in that topology must fail
// (mustFailWithoutProxy), and the harm is logged. Each case is a cluster of its own, all
// at once. make test keeps the proxy active on apiserver-1 and, with it inert there, one
// test of each controller (a failing wait runs to its bound, 40 s); make soak runs every
// test of both topologies both ways, and of three servers behind the balancer with the
// proxy active.
func TestControllersProfile(t *testing.T) {
	integration.Require(t)
	cases := []controllersCase{
		{Proxy: true, Connect: "apiserver-1"},
		{Proxy: false, Connect: "apiserver-1", Focus: `CTRL-002|CTRL-010`},
	}
	if integration.Soak() {
		cases = []controllersCase{
			{Proxy: true, Connect: "apiserver-1"}, {Proxy: false, Connect: "apiserver-1"},
			{Proxy: true, Connect: clusters.ConnectLoadBalancer}, {Proxy: false, Connect: clusters.ConnectLoadBalancer},
			{Proxy: true, Connect: clusters.ConnectLoadBalancer, Three: true},
		}
	}
	reports := make([]*report.Conformance, len(cases))
	var wg sync.WaitGroup
	for i := range cases {
		cases[i].Dir = t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i] = runControllersCase(t, cases[i])
		}()
	}
	wg.Wait()
	for i, c := range cases {
		rep := reports[i]
		if rep == nil {
			continue
		}
		for _, tc := range rep.Tests {
			if tc.SkipKind == report.Deselected {
				continue // outside the case's Focus
			}
			t.Logf("%s %s: %s in %v %v %.300s", c.name(), tc.ID, tc.Result, tc.Duration.Round(time.Second), measurements(tc), tc.Failure+tc.SkipReason)
			switch {
			case tc.Result == report.Skipped:
				t.Errorf("%s %s skipped: %s", c.name(), tc.ID, tc.SkipReason)
			case c.Proxy && tc.Result != report.Passed:
				t.Errorf("%s %s %s with the proxy active: %s", c.name(), tc.ID, tc.Result, tc.Failure)
			case !c.Proxy && mustFailWithoutProxy[c.Connect][tc.ID] && tc.Result != report.Failed:
				t.Errorf("%s %s %s with the proxy inert, want failed: the test does not tell the harm", c.name(), tc.ID, tc.Result)
			case !c.Proxy && c.Connect == "apiserver-1" && tc.Result == report.Failed:
				// The mutation matrix's claims of the inert proxy, held where make test sees them.
				if cl, ok := suites.MutantCatches["controllers/kubeadm-peer-proxy"][tc.ID]; ok {
					if _, why := cl.Match(tc.Failure); why != "" {
						t.Errorf("%s %s: want failed at %s (the matrix's claim); %s", c.name(), tc.ID, cl, why)
					}
				}
			}
		}
		// The controller's own view: with the proxy active its collector's discovery lists
		// every skewed resource (peer-aggregated discovery); through the server lacking
		// them without the proxy, it lacks them, which is how the harm there comes about.
		var missing []string
		if b, err := os.ReadFile(filepath.Join(c.Dir, viewMissing)); err != nil || json.Unmarshal(b, &missing) != nil {
			t.Errorf("%s: no record of the collector's discovery (%v)", c.name(), err)
		}
		switch {
		case c.Proxy && len(missing) > 0:
			t.Errorf("%s: the garbage collector's discovery (its log) does not list %v, which a server serves", c.name(), missing)
		case !c.Proxy && c.Connect == "apiserver-1" && len(missing) == 0:
			t.Errorf("%s: the garbage collector's discovery through apiserver-1 lists every skewed resource without the proxy: the skew does not reach it", c.name())
		}
		if b, err := os.ReadFile(filepath.Join(c.Dir, controllerView)); err == nil {
			t.Logf("%s: the controller manager's own view (its log, at -v=2):\n%s", c.name(), b)
		}
	}
}

// mustFailWithoutProxy are the tests the inert proxy fails, by topology, as measured on
// v1.35.4 + v1.36.3 (docs/controllers.md):
//   - on apiserver-1, which lacks the owners' resources, the controller manager's
//     discovery does not list them, so the garbage collector cannot map the owner
//     references: it deletes nothing by mistake (CTRL-001 passes) and finishes no
//     deletion (CTRL-002 to CTRL-004: dependents and owners with their finalizers stay);
//     the namespace controller never lists them and leaves their objects in storage (CTRL-010);
//   - behind the load balancer the harm depends on which server each of its connections
//     reached, so nothing is required to fail there, and what happened is logged: in one
//     run its REST mapper had read apiserver-2's discovery while its reads of the owners
//     reached apiserver-1, which answered 404, and every dependent was deleted while its
//     owner stood (CTRL-001 failed, 6 of 6); in another its collector watched the owners
//     through apiserver-2 and deleted nothing by mistake (CTRL-001 passed).
var mustFailWithoutProxy = map[string]map[string]bool{
	"apiserver-1": {"CTRL-002": true, "CTRL-003": true, "CTRL-004": true, "CTRL-010": true},
}

// viewMissing is the file of a case's directory with the skewed resources the garbage
// collector's discovery did not list (missingFromView), as JSON.
const viewMissing = "view-missing.json"

// controllerView is the file of a case's directory with what the controller manager's
// log says it saw and did about the test's objects.
const controllerView = "controller-view.txt"

// viewLines are the log lines of kube-controller-manager (v=2) that tell its view: the
// collector's resources from discovery, and each deletion it decided.
var viewLines = []string{"syncing garbage collector with updated resources from discovery", `"Deleting item"`, "Unable to get all supported resources", "ctrl-ns-"}

// runControllersCase runs c in a child process of this test binary and returns its report.
func runControllersCase(t *testing.T, c controllersCase) *report.Conformance {
	spec, _ := json.Marshal(c)
	cmd := exec.Command(os.Args[0], "-test.run=^TestControllersProfileCase$", "-test.v", "-test.timeout=20m")
	cmd.Env = append(os.Environ(), controllersCaseEnv+"="+string(spec))
	// Dead with this test binary, however it ends: its clusters' processes die with it
	// (theirs is the child's parent-death signal), and the next run sweeps its directories.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	logPath := filepath.Join(c.Dir, "run.log")
	os.WriteFile(logPath, out, 0o644)
	b, rerr := os.ReadFile(filepath.Join(c.Dir, report.JSONFile))
	if rerr != nil {
		t.Errorf("%s: no report (%v); the run (%v) ends with:\n%s", c.name(), rerr, err, tail(string(out), 40))
		return nil
	}
	var rep report.Conformance
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Errorf("%s: decoding its report: %v", c.name(), err)
		return nil
	}
	return &rep
}

// TestControllersProfileCase is one case of TestControllersProfile, run in its own process.
func TestControllersProfileCase(t *testing.T) {
	raw := os.Getenv(controllersCaseEnv)
	if raw == "" {
		t.Skip("one case of TestControllersProfile, which runs it in a process of its own")
	}
	var c controllersCase
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatalf("%s=%q: %v", controllersCaseEnv, raw, err)
	}
	servers := localtest.Skewed()
	if c.Three {
		servers = localtest.HighlyAvailable()
	}
	for i := range servers {
		servers[i].KubeadmPeerProxy = !c.Proxy
		if c.Connect == clusters.ConnectLoadBalancer {
			// As upstream asks of apiservers behind a load balancer (kube-apiserver
			// --goaway-chance): else a client's one HTTP/2 connection stays on the server
			// it first reached, and the balancer is one server by chance.
			servers[i].ExtraFlags = append(servers[i].ExtraFlags, "--goaway-chance=0.02")
		}
	}
	cl := localtest.Start(t, local.Config{Name: "ctrl", Servers: servers, Progress: os.Stderr,
		ControllerManager: &clusters.ControllerManagerSpec{Connect: c.Connect}})
	target := localtest.Upstream(t, cl)
	rep := framework.Run(t, &framework.Env{Target: target, Timeouts: framework.DefaultTimeouts().WithHold(integration.Hold())}, suites.All(),
		framework.RunOptions{Profiles: []string{controllers.Profile}, Focus: c.Focus, ReportDir: c.Dir, Seed: 1, SkewcheckVersion: "test"})
	if _, err := report.Write(c.Dir, rep); err != nil {
		t.Fatal(err)
	}
	// The controller's own account, beside the report: whether its collector's discovery
	// listed the skewed resources, and what it deleted.
	b, err := os.ReadFile(cl.ControllerManager.Log())
	if err != nil {
		t.Fatalf("reading the controller manager's log: %v", err)
	}
	// Its collector's discovery, set against what the control plane serves, for the
	// parent to judge (this process fails whenever a test of the run does).
	missing := missingFromView(target, string(b))
	rec, _ := json.Marshal(missing)
	os.WriteFile(filepath.Join(c.Dir, viewMissing), rec, 0o644)
	{
		view := []string{fmt.Sprintf("skewed resources the collector's discovery did not list: %v; owner references it could not map: %d", missing, noMappings(string(b)))}
		for _, l := range strings.Split(string(b), "\n") {
			for _, want := range viewLines {
				if strings.Contains(l, want) {
					view = append(view, skewedOnly(l))
					break
				}
			}
		}
		os.WriteFile(filepath.Join(c.Dir, controllerView), []byte(strings.Join(view, "\n")), 0o644)
	}
}

// skewedOnly shortens a collector's sync line to whether it names the skewed resources.
func skewedOnly(line string) string {
	if !strings.Contains(line, "syncing garbage collector") {
		return line
	}
	added, removed, _ := strings.Cut(line, "removed:")
	var out []string
	for _, r := range []string{"batch/v1, Resource=jobs", "Resource=mutatingadmissionpolicies"} {
		out = append(out, fmt.Sprintf("%s added %v removed %v", r, strings.Contains(added, r), strings.Contains(removed, r)))
	}
	return line[:min(len(line), 40)] + "... garbage collector sync from discovery: " + strings.Join(out, "; ")
}

func measurements(tc report.Test) string {
	var out []string
	for k, v := range tc.Measurements {
		out = append(out, fmt.Sprintf("%s=%g", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
