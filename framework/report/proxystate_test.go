package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// inertState is the kubeadm case: the gate on, no peer proxy built, a 404.
func inertState() *ProxyState {
	return &ProxyState{
		Servers: []ProxyServer{{
			Name: "cp-1", Version: "v1.36.3",
			Gate:                 ProxyGate{State: GateOn, Stage: "BETA", Source: GateFromMetrics, Evidence: `kubernetes_feature_enabled{name="UnknownVersionInteroperabilityProxy",stage="BETA"} 1`},
			PeerProxy:            Finding{State: PeerProxyNotBuilt, Evidence: "/readyz?verbose lists 40 post-start hooks"},
			Proxying:             Finding{State: ProxyInert, Evidence: "GET /apis/batch/v1/jobs?limit=1, which cp-2 serves: HTTP 404 text/plain: 404 page not found"},
			Discovery:            Finding{State: DiscoveryLocal, Evidence: "/api and /apis list what it serves itself"},
			PeerOnly:             []string{"batch/v1/jobs"},
			PeerAdvertiseAddress: "10.0.0.1:6443", Lease: "apiserver-abc",
			PeerAddressTLS: &Finding{State: NotChecked, Evidence: NotCheckedOutside},
		}, {
			Name: "sidecar-cp-2", Version: "v1.37.0", Behind: "cp-2",
			Gate:      ProxyGate{State: GateOff, Stage: "ALPHA", Source: GateInferred, Evidence: "off by default; /metrics: HTTP 403"},
			PeerProxy: Finding{State: CannotTell, Evidence: "/readyz?verbose: HTTP 403"},
			Proxying:  Finding{State: CannotTell, Evidence: "no GVR only a peer serves"},
			Discovery: Finding{State: CannotTell, Evidence: "the peers serve no GVR under /apis that it lacks"},
			LeaseNote: "the identity leases in kube-system could not be read: forbidden",
		}},
		Verdict: "The Mixed Version Proxy is inert on cp-1: the gate is on, but no --peer-ca-file; during an upgrade clients get 404 for batch/v1/jobs.",
		Inert:   []string{"cp-1"},
		Fix:     "kubeadm sets no --peer-ca-file.\n  apiServer:\n    extraArgs:",
		Issue:   "https://github.com/kubernetes/kubeadm/issues/3301",
	}
}

// The report carries the state as read: the written JSON and YAML validate against the
// schema and read back equal; a report without it still validates (the field is optional).
func TestProxyStateRoundTrips(t *testing.T) {
	c := sample()
	c.ProxyState = inertState()
	Summarize(c)
	paths, err := Write(filepath.Join(t.TempDir(), "r"), c)
	if err != nil {
		t.Fatal(err)
	}
	jsonDoc := mustRead(t, paths[1])
	if err := Validate(jsonDoc); err != nil {
		t.Fatalf("JSON with a proxy state does not validate: %v", err)
	}
	var back Conformance
	if err := json.Unmarshal(jsonDoc, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.ProxyState, c.ProxyState) {
		t.Errorf("JSON round trip:\n got %+v\nwant %+v", back.ProxyState, c.ProxyState)
	}
	yamlJSON, err := yaml.YAMLToJSON(mustRead(t, paths[0]))
	if err != nil {
		t.Fatal(err)
	}
	var fromYAML Conformance
	if err := json.Unmarshal(yamlJSON, &fromYAML); err != nil || !reflect.DeepEqual(fromYAML.ProxyState, c.ProxyState) {
		t.Errorf("YAML round trip (%v): %+v", err, fromYAML.ProxyState)
	}
	bad := bytes.Replace(jsonDoc, []byte(`"state": "on"`), []byte(`"state": "maybe"`), 1)
	if err := Validate(bad); err == nil || !strings.Contains(err.Error(), "/proxyState/servers/0/gate/state") {
		t.Errorf("a gate state the schema does not know: %v", err)
	}
	c.ProxyState = nil
	if doc, _ := json.Marshal(c); bytes.Contains(doc, []byte("proxyState")) {
		t.Error("a report without a proxy state names the field")
	}
}

// The summary leads with the cause and its fix when a server is inert, and says nothing
// otherwise; the state before the tests is a line per server, the verdict and the fix.
func TestProxyStateText(t *testing.T) {
	var lead bytes.Buffer
	WriteProxyCause(&lead, inertState())
	want := "ONE CAUSE: The Mixed Version Proxy is inert on cp-1: the gate is on, but no --peer-ca-file; during an upgrade clients get 404 for batch/v1/jobs. The tests that need the proxy there fail below for that reason.\n" +
		"fix: kubeadm sets no --peer-ca-file.\n    apiServer:\n      extraArgs:\n" +
		"upstream: https://github.com/kubernetes/kubeadm/issues/3301\n\n"
	if lead.String() != want {
		t.Errorf("lead\n%s\nwant\n%s", lead.String(), want)
	}
	active := &ProxyState{Verdict: "The Mixed Version Proxy is active on cp-1."}
	lead.Reset()
	WriteProxyCause(&lead, active)
	WriteProxyCause(&lead, nil)
	if lead.Len() != 0 {
		t.Errorf("no inert server, yet the summary leads with %q", lead.String())
	}
	var all bytes.Buffer
	WriteProxyState(&all, inertState())
	lines := strings.Split(all.String(), "\n")
	if lines[1] != `  cp-1 v1.36.3: gate on (metrics, BETA: kubernetes_feature_enabled{name="UnknownVersionInteroperabilityProxy",stage="BETA"} 1); `+
		`peer proxy not built (/readyz?verbose lists 40 post-start hooks); `+
		`proxying inert (GET /apis/batch/v1/jobs?limit=1, which cp-2 serves: HTTP 404 text/plain: 404 page not found); `+
		`discovery local (/api and /apis list what it serves itself); peer address 10.0.0.1:6443 (lease apiserver-abc)` {
		t.Errorf("cp-1's line: %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "  sidecar-cp-2 v1.37.0 (in front of cp-2): gate off (inferred, ALPHA: ") ||
		!strings.HasSuffix(lines[2], "no peer address: the identity leases in kube-system could not be read: forbidden") {
		t.Errorf("the front's line: %q", lines[2])
	}
	if lines[3] != inertState().Verdict || !strings.HasPrefix(lines[4], "fix: ") {
		t.Errorf("after the lines: %q", lines[3:])
	}
}

// From inside the cluster the line ends with what the peer address answered; outside it,
// and with no address, the line says nothing of TLS (the report's data does).
func TestPeerAddressTLSInLine(t *testing.T) {
	s := inertState().Servers[0]
	s.PeerAddressTLS = &Finding{State: PeerTLSUnverified, Evidence: "TLS to 10.0.0.1:6443 as kubernetes.default.svc against ca.crt: tls: failed to verify certificate: x509: certificate signed by unknown authority"}
	if want := "; peer address 10.0.0.1:6443 (lease apiserver-abc); peer TLS unverified (TLS to 10.0.0.1:6443 as kubernetes.default.svc against ca.crt: tls: failed to verify certificate: x509: certificate signed by unknown authority)"; !strings.HasSuffix(s.Line(), want) {
		t.Errorf("line %q\nwant it to end %q", s.Line(), want)
	}
	s.PeerAdvertiseAddress, s.LeaseNote = "", "its identity lease apiserver-abc has no kubernetes.io/peer-advertise-address annotation"
	s.PeerAddressTLS = &Finding{State: NotChecked, Evidence: "its identity lease names no peer address"}
	if strings.Contains(s.Line(), "peer TLS") {
		t.Errorf("no address, yet the line says %q", s.Line())
	}
}
