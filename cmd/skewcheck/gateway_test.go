package main

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gatewaysuite "github.com/skewcheck/skewcheck/suites/gateway"

	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestGatewayProfile runs the gateway profile through the CLI on a local v1.35.4+v1.36.3
// cluster (the apiservers' own proxy off, so only the gateway keeps a skewed GVR from
// 404): the reference gateway passes every test (make test: gatewayProfileFocus, one test
// of each file of the profile; TestGatewayHostRouting runs every test against the same
// reference, through a vendor's command); the same reference given as a vendor's
// command with deliberate defects (negations OR-ed, forwarding as itself, routing without
// discovery) fails exactly the tests about them, and (in make soak) so does the reference
// with the defects of hop-by-hop identity, UIDs, upgrades, SNI, connections and refusals
// (impersonation set before the headers a client names in Connection are removed, a token
// user's UID dropped, upgrades forwarded as itself, the server name ignored, upstream
// connections per client, 500 for a request no policy matches) on the tests about those;
// every test expected to fail must have run and failed with its reason; with the
// apiservers' own proxy on, a gateway that ignores discovery is reported so, its requests
// credited to the servers it chose; a gateway command that dies fails the run with the end
// of its log. No gateway process outlives a run.
func TestGatewayProfile(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	versions := oldV + "," + newV
	start := time.Now()

	dir := t.TempDir()
	focus := makeTestFocus(gatewayProfileFocus)
	out, code := run(t, t.TempDir(), withFocus([]string{"conformance", "--versions", versions, "--gateway", "reference", "--report-dir", dir}, focus)...)
	assertNoGatewayLeft(t)
	rep := readReport(t, dir, out)
	if code != 0 || rep.Target != "gateway:reference" || len(rep.Tests) != gatewayTests {
		t.Errorf("reference gateway: exit %d, target %q, %d tests (want 0, gateway:reference, %d):\n%s", code, rep.Target, len(rep.Tests), gatewayTests, tail(out, 40))
	}
	expectSelectedPassed(t, "reference gateway", rep, focus)
	t.Logf("reference gateway: %s (%v)", report.ClosingLine(&rep), time.Since(start).Round(time.Second))

	// The vendor path, with the reference as the vendor's gateway, deliberately broken.
	command := "exec " + cli + ` reference gateway --listen "$SKEWCHECK_LISTEN" --config-dir "$SKEWCHECK_GATEWAY_CONFIG"` +
		` --tls-cert "$SKEWCHECK_SERVING_CERT" --tls-key "$SKEWCHECK_SERVING_KEY" --client-ca "$SKEWCHECK_CLIENT_CA"` +
		` --default-server-name "$SKEWCHECK_SERVER_NAME" --defect negation-or,no-impersonation,ignore-discovery`
	apply := "exec " + cli + ` reference gateway wait --config-dir "$SKEWCHECK_GATEWAY_CONFIG"`
	// Its tests, and one of rules every gateway passes: every other test ran above, and
	// each runs through a vendor command in TestGatewayHostRouting.
	dir = t.TempDir()
	out, code = run(t, t.TempDir(), "conformance", "--versions", versions, "--gateway-name", "broken",
		"--gateway-command", command, "--gateway-apply-command", apply, "--focus", `GW-0(01|10|15|30|31)`, "--report-dir", dir)
	assertNoGatewayLeft(t)
	rep = readReport(t, dir, out)
	mustFail := map[string]string{
		"GW-001": "never 404",                                      // ignore-discovery
		"GW-015": `["-pods","-deployments"] does not match pods`,   // negation-or
		"GW-030": "user name the upstream sees",                    // no-impersonation
		"GW-031": "sent by a client changed who the upstream sees", // no-impersonation
	}
	if code == 0 || rep.Target != "gateway:broken" {
		t.Errorf("broken gateway: exit %d, target %q: it must fail", code, rep.Target)
	}
	for _, missed := range report.MissedFailures(rep, mustFail) {
		t.Errorf("broken gateway: %s", missed)
	}
	var failed []string
	for _, r := range rep.Tests {
		if r.Result == report.Failed {
			failed = append(failed, r.ID)
		}
	}
	slices.Sort(failed)
	if want := slices.Sorted(maps.Keys(mustFail)); !slices.Equal(failed, want) {
		t.Errorf("broken gateway fails %v, want exactly %v", failed, want)
	}
	t.Logf("broken gateway fails %v (%v)", failed, time.Since(start).Round(time.Second))

	// The tests of hop-by-hop identity, UIDs, upgrades, SNI, connections and refusals,
	// each against the defect it is about: in make soak (each defect's claims are checked
	// by the mutation matrix too); make test keeps the broken vendor gateway above as the
	// guard of a defect failing its tests.
	if integration.Soak() {
		defectsFailTheirTests(t, versions)
		t.Logf("reference with its hop-by-hop, UID, upgrade, SNI, connection and refusal defects fails them all (%v)", time.Since(start).Round(time.Second))
	}

	// The apiservers' own proxy kept on behind a gateway that ignores discovery: GW-001
	// passes (the peer proxy rescues what the gateway sent to the wrong server), and each
	// request is credited to the server the gateway chose, so the report says it does not
	// route by discovery.
	dir = t.TempDir()
	out, _ = run(t, t.TempDir(), "conformance", "--versions", versions, "--gateway", "reference", "--gateway-defect", "ignore-discovery",
		"--gateway-keep-peer-proxy", "--focus", "GW-001", "--report-dir", dir)
	assertNoGatewayLeft(t)
	rep = readReport(t, dir, out)
	for _, r := range rep.Tests {
		if r.ID == "GW-001" && (r.Result != report.Passed || r.Measurements["rescued_by_peer_proxy"] == 0 || r.Measurements["routed_by_discovery"] != 0) {
			t.Errorf("a gateway ignoring discovery, the peer proxy on: GW-001 %s %s, measured %v; want passed, some requests rescued by the peer proxy, not routed by discovery", r.Result, r.Failure, r.Measurements)
		}
	}

	// A gateway that dies at once: the run fails with the end of its log.
	out, code = run(t, t.TempDir(), "conformance", "--versions", versions, "--gateway-name", "dies",
		"--gateway-command", "echo acme-gateway: cannot bind; exit 3", "--gateway-apply-command", "true", "--report-dir", t.TempDir())
	assertNoGatewayLeft(t)
	if code == 0 || !strings.Contains(out, "exited (exit status 3)") || !strings.Contains(out, "acme-gateway: cannot bind") {
		t.Errorf("a gateway that exits must fail the run with its log's end: exit %d\n%s", code, tail(out, 20))
	}
	if out, code := run(t, t.TempDir(), "conformance", "--gateway-command", "true"); code == 0 || !strings.Contains(out, "need --gateway-apply-command") {
		t.Errorf("--gateway-command without an apply command must be refused: exit %d\n%s", code, out)
	}
	t.Logf("wall time %v", time.Since(start).Round(time.Second))
}

// gatewayProfileFocus is TestGatewayProfile's reference run in make test: one test of each
// part of the profile (suites/gateway: served, rules, balance, identity, flow control,
// health, configuration, SNI, connections, slow clients), each through `--gateway
// reference`'s own wiring; every test runs against the reference in TestGatewayHostRouting.
const gatewayProfileFocus = `GW-0(01|10|20|30|40|50|61|70|80|90)`

// defectsFailTheirTests runs the reference gateway with the defects of hop-by-hop
// identity, UIDs, upgrades, SNI, connections and refusals, focused on their tests: each
// must fail for its reason, every other test is left out.
func defectsFailTheirTests(t *testing.T, versions string) {
	t.Helper()
	const defects = "hop-by-hop, UID, upgrade, SNI, connection and refusal defects"
	dir := t.TempDir()
	out, code := run(t, t.TempDir(), "conformance", "--versions", versions, "--gateway", "reference",
		"--gateway-defect", "impersonation-before-hop-by-hop,drop-uid,upgrade-as-itself,ignore-sni,connection-per-client,no-policy-500",
		"--focus", `GW-0(30|31|32|60|70|71|72|80)`, "--report-dir", dir)
	assertNoGatewayLeft(t)
	rep := readReport(t, dir, out)
	mustFail := map[string]string{
		"GW-030": "UID the upstream sees through the gateway for the service account's token", // drop-uid
		"GW-031": "and the upstream ran the request as",                                       // impersonation-before-hop-by-hop
		"GW-032": "must authorize the user, not the gateway",                                  // upgrade-as-itself
		"GW-060": "answered with a server error",                                              // no-policy-500
		"GW-070": "selects the UpstreamCluster of",                                            // ignore-sni
		"GW-071": "which no UpstreamCluster lists",                                            // ignore-sni
		"GW-072": "routed by one name and authenticated by the other",                         // ignore-sni
		"GW-080": "converge on a few HTTP/2 connections",                                      // connection-per-client
	}
	if code == 0 {
		t.Errorf("reference with %s: exit 0, it must fail:\n%s", defects, tail(out, 40))
	}
	for _, missed := range report.MissedFailures(rep, mustFail) {
		t.Errorf("reference with %s: %s", defects, missed)
	}
	for _, r := range rep.Tests {
		if _, ok := mustFail[r.ID]; !ok && r.Result != report.Skipped {
			t.Errorf("reference with %s: %s %s, want skipped (not focused)", defects, r.ID, r.Result)
		}
	}
}

// gatewayTests is how many tests the gateway profile has, read from its table so a new
// test needs no change here.
var gatewayTests = len(gatewaysuite.Tests)

// TestGatewayHostRouting certifies a gateway the way a vendor does, through
// --gateway-command and --gateway-apply-command: docs/certify-gateway.md's example, run as
// the page gives it, from the checkout's root: the reference in --host-routing mode (it
// picks the UpstreamCluster by the Host header, as KubeGateway does), configured from a
// store of its own that docs/examples/gateway-adapter.sh translates skewcheck's documents
// into. It passes every test. The same gateway whose store lost the server name answers
// /version from its own handlers: the run stops at readiness saying so, not with 25
// failures.
func TestGatewayHostRouting(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	versions := oldV + "," + newV
	start := time.Now()
	gateway := "exec " + cli + ` reference gateway --host-routing --listen "$SKEWCHECK_LISTEN" --config-dir "$GATEWAY_STORE"` +
		` --tls-cert "$SKEWCHECK_SERVING_CERT" --tls-key "$SKEWCHECK_SERVING_KEY" --client-ca "$SKEWCHECK_CLIENT_CA"`

	// The page's example, pasted as a newcomer would, from the checkout's root: its
	// bin/skewcheck is this test's CLI, its versions this run's.
	dir := t.TempDir()
	example := strings.NewReplacer("bin/skewcheck", cli, "v1.35.4,v1.36.3", versions).Replace(docExample(t, "../../docs/certify-gateway.md", "export GATEWAY_RELOAD="))
	sh := exec.Command("sh", "-c", example+" --report-dir "+dir)
	sh.Dir = "../.."
	sh.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+t.TempDir())
	b, err := sh.CombinedOutput()
	out, code := string(b), sh.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("the page's example: %v", err)
	}
	assertNoGatewayLeft(t)
	rep := readReport(t, dir, out)
	if code != 0 || rep.Target != "gateway:host-routing" || len(rep.Tests) != gatewayTests {
		t.Errorf("host-routing gateway: exit %d, target %q, %d tests (want 0, gateway:host-routing, %d):\n%s", code, rep.Target, len(rep.Tests), gatewayTests, tail(out, 40))
	}
	for _, r := range rep.Tests {
		if r.Result != report.Passed {
			t.Errorf("host-routing gateway: %s %s: %s%s", r.ID, r.Result, r.Failure, r.SkipReason)
		}
	}
	t.Logf("host-routing gateway through the adapter: %s (%v)", report.ClosingLine(&rep), time.Since(start).Round(time.Second))

	// Its store lost the server name: every request selects no cluster, and /version is
	// the gateway's own.
	lost := `mkdir -p "$GATEWAY_STORE" && sed 's/` + clustersgateway.ServerName + `/lost.` + clustersgateway.ServerDomain + `/' "$SKEWCHECK_GATEWAY_CONFIG/upstreamclusters.yaml" > "$GATEWAY_STORE/lost.yaml" && ` + gateway
	out, code = run(t, t.TempDir(), "conformance", "--versions", versions, "--gateway-name", "lost", "--gateway-ready-timeout", "10s",
		"--gateway-command", `export GATEWAY_STORE="$SKEWCHECK_GATEWAY_CONFIG/../store"; `+lost, "--gateway-apply-command", "true", "--report-dir", t.TempDir())
	assertNoGatewayLeft(t)
	if want := "the gateway answers but proxies nothing to the apiservers (its /version says v0.0.0-skewcheck-reference-gateway"; code == 0 || !strings.Contains(out, want) {
		t.Errorf("a gateway answering /version itself must stop the run saying %q: exit %d\n%s", want, code, tail(out, 20))
	}
	t.Logf("wall time %v", time.Since(start).Round(time.Second))
}

// docExample is the indented code block of page that begins with a line starting with
// first (after its four spaces), as a newcomer would paste it: its lines, unindented.
func docExample(t *testing.T, page, first string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case block == nil && strings.HasPrefix(line, "    "+first):
			block = append(block, strings.TrimPrefix(line, "    "))
		case block != nil && strings.HasPrefix(line, "    "):
			block = append(block, strings.TrimPrefix(line, "    "))
		case block != nil:
			return strings.Join(block, "\n")
		}
	}
	if block == nil {
		t.Fatalf("%s has no example beginning %q", page, first)
	}
	return strings.Join(block, "\n")
}

func readReport(t *testing.T, dir, out string) report.Conformance {
	t.Helper()
	var rep report.Conformance
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, tail(out, 40))
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// assertNoGatewayLeft fails when a process of t's CLI runs (the gateway, its apply
// command, an apiserver) outlived them.
func assertNoGatewayLeft(t *testing.T) {
	t.Helper()
	for _, p := range markedProcesses(t) {
		t.Errorf("a process of the run is still running: %s", p)
	}
}
