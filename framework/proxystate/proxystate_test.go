package proxystate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// The kubeadm case: both servers have the gate on (1.36, beta) and no peer CA, so neither
// built its proxy; cp-1, which lacks batch/v1 jobs, answers 404 for them, and its
// discovery is its nopeer view. The verdict names both, the cause and the GVR, the fix is
// kubeadm's, and no request carried the proxy's loop-guard header.
func TestInert(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), gate: "1", stage: "BETA", list: 404}
	cp2 := &fake{name: "cp-2", version: "v1.37.0", served: set(gvrPods, gvrJobs), gate: "1", stage: "BETA", list: 404}
	p := Read(context.Background(), target(t, cp1, cp2))
	s := p.Servers[0]
	if s.Gate.State != report.GateOn || s.Gate.Source != report.GateFromMetrics || s.Gate.Stage != "BETA" {
		t.Errorf("gate %+v, want on from metrics, BETA", s.Gate)
	}
	if s.PeerProxy.State != report.PeerProxyNotBuilt || s.Proxying.State != report.ProxyInert || s.Discovery.State != report.DiscoveryLocal {
		t.Errorf("cp-1: peer proxy %+v, proxying %+v, discovery %+v; want not built, inert, local", s.PeerProxy, s.Proxying, s.Discovery)
	}
	if !strings.Contains(s.Proxying.Evidence, "GET /apis/batch/v1/jobs?limit=1, which cp-2 serves: HTTP 404 text/plain: 404 page not found") {
		t.Errorf("proxying evidence %q", s.Proxying.Evidence)
	}
	if s.PeerAdvertiseAddress != "10.0.0.1:6443" || s.Lease != "apiserver-cp-1" || !slices.Equal(s.PeerOnly, []string{"batch/v1/jobs"}) {
		t.Errorf("cp-1 lease %q address %q (%s), peer-only %v", s.Lease, s.PeerAdvertiseAddress, s.LeaseNote, s.PeerOnly)
	}
	if got := p.Servers[1]; got.Proxying.State != report.CannotTell || got.Proxying.Evidence != "no GVR only a peer serves" {
		t.Errorf("cp-2 proxying %+v, want cannot tell: no GVR only a peer serves", got.Proxying)
	}
	want := "The Mixed Version Proxy is inert on cp-1, cp-2: the gate is on, but no --peer-ca-file; during an upgrade clients get 404 for batch/v1/jobs."
	if p.Verdict != want {
		t.Errorf("verdict\n %q\nwant\n %q", p.Verdict, want)
	}
	if !slices.Equal(p.Inert, []string{"cp-1", "cp-2"}) || p.Fix != fix(madeKubeadm, false) || p.Issue != Issue {
		t.Errorf("inert %v, issue %q, fix %q", p.Inert, p.Issue, p.Fix)
	}
	if cp1.sawPeerHeader.Load() || cp2.sawPeerHeader.Load() {
		t.Error("a request carried x-kubernetes-peer-proxied: the server would answer it locally and hide an active proxy")
	}
}

// An active proxy: built, the list proxied (200), and the merged discovery larger than the
// server's own. No cause, no fix; the server with nothing to ask cannot be told.
func TestActive(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), gate: "1", stage: "BETA", hook: true, list: 200, merged: set(gvrJobs)}
	cp2 := &fake{name: "cp-2", version: "v1.37.0", served: set(gvrPods, gvrJobs), gate: "1", stage: "BETA", hook: true}
	p := Read(context.Background(), target(t, cp1, cp2))
	s := p.Servers[0]
	if s.PeerProxy.State != report.PeerProxyBuilt || s.Proxying.State != report.ProxyActive || s.Discovery.State != report.DiscoveryMerged {
		t.Errorf("cp-1: peer proxy %+v, proxying %+v, discovery %+v; want built, active, peer-aggregated", s.PeerProxy, s.Proxying, s.Discovery)
	}
	want := "The Mixed Version Proxy is active on cp-1: it passed a request only a peer can serve on to the peer; cannot tell whether the Mixed Version Proxy on cp-2 proxies: no GVR only a peer serves."
	if p.Verdict != want || len(p.Inert) != 0 || p.Fix != "" || p.Issue != "" {
		t.Errorf("verdict %q (want %q), inert %v, fix %q, issue %q", p.Verdict, want, p.Inert, p.Fix, p.Issue)
	}
}

// A 1.35 server says in /metrics that its gate is off (alpha): the proxy is off, not inert
// for want of a CA, and the fix turns the gate on too.
func TestGateOffFromMetrics(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.35.4", served: set(gvrPods), gate: "0", stage: "ALPHA", list: 404}
	cp2 := &fake{name: "cp-2", version: "v1.36.3", served: set(gvrPods, gvrJobs), gate: "1", stage: "BETA", hook: true}
	p := Read(context.Background(), target(t, cp1, cp2))
	if g := p.Servers[0].Gate; g.State != report.GateOff || g.Source != report.GateFromMetrics || g.Stage != "ALPHA" {
		t.Errorf("gate %+v, want off from metrics, ALPHA", g)
	}
	want := "The Mixed Version Proxy is off on cp-1: the gate UnknownVersionInteroperabilityProxy is off; clients get 404 for batch/v1/jobs; cannot tell whether the Mixed Version Proxy on cp-2 proxies: no GVR only a peer serves."
	if p.Verdict != want {
		t.Errorf("verdict\n %q\nwant\n %q", p.Verdict, want)
	}
	if !slices.Equal(p.Inert, []string{"cp-1"}) || !strings.Contains(p.Fix, "--feature-gates=UnknownVersionInteroperabilityProxy=true") {
		t.Errorf("inert %v, fix %q", p.Inert, p.Fix)
	}
}

// /metrics forbidden (a user without get on nonResourceURLs /metrics): the gate is the
// default of the release the server runs, or emulates, and says it was inferred and why.
func TestGateInferredWhenMetricsForbidden(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), list: 404}
	cp2 := &fake{name: "cp-2", version: "v1.36.3", served: set(gvrPods, gvrJobs)}
	tg := target(t, cp1, cp2)
	tg.Endpoints[1].EmulationVersion = "1.35"
	p := Read(context.Background(), tg)
	g := p.Servers[0].Gate
	if g.State != report.GateOn || g.Source != report.GateInferred || g.Stage != "BETA" || !strings.Contains(g.Evidence, "/metrics: HTTP 403") {
		t.Errorf("gate %+v, want on, inferred from 1.36's default, saying /metrics answered 403", g)
	}
	if g := p.Servers[1].Gate; g.State != report.GateOff || !strings.Contains(g.Evidence, "v1.36.3 emulating 1.35") {
		t.Errorf("emulating 1.35: gate %+v, want off, the emulated release's default", g)
	}
	want := "The Mixed Version Proxy is inert on cp-1: the gate is on (by its release's default: /metrics could not tell), but no --peer-ca-file; during an upgrade clients get 404 for batch/v1/jobs; the Mixed Version Proxy is off on cp-2: the gate UnknownVersionInteroperabilityProxy is off (by its release's default: /metrics could not tell); clients get 404 for what only a server of another version serves."
	if p.Verdict != want {
		t.Errorf("verdict\n %q\nwant\n %q", p.Verdict, want)
	}
}

// Servers that serve the same: nothing to ask, and the verdict says so, with why.
func TestNoSkew(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), gate: "1", hook: true}
	cp2 := &fake{name: "cp-2", version: "v1.36.3", served: set(gvrPods), gate: "1", hook: true}
	p := Read(context.Background(), target(t, cp1, cp2))
	want := "Cannot tell whether the Mixed Version Proxy on cp-1, cp-2 proxies: no GVR only a peer serves."
	if p.Verdict != want || len(p.Inert) != 0 {
		t.Errorf("verdict %q, want %q; inert %v", p.Verdict, want, p.Inert)
	}
	if d := p.Servers[0].Discovery; d.State != report.CannotTell {
		t.Errorf("discovery %+v, want cannot tell", d)
	}
}

// A cluster as kubeadm makes it, before its upgrade: every server at one version, so no
// request has a peer to go to, but none built a proxy (the gate off in /metrics on 1.35,
// or on with no peer CA on 1.36, and no proxy hook in /readyz): said as off or inert,
// with the fix, not as "cannot tell", since the upgrade about to come will show it.
func TestNoSkewNotBuilt(t *testing.T) {
	for _, tc := range []struct {
		version, gate, stage, want string
	}{
		{"v1.35.4", "0", "ALPHA", "The Mixed Version Proxy is off on cp-1, cp-2: the gate UnknownVersionInteroperabilityProxy is off; clients get 404 for what only a server of another version serves."},
		{"v1.36.3", "1", "BETA", "The Mixed Version Proxy is inert on cp-1, cp-2: the gate is on, but no --peer-ca-file; during an upgrade clients get 404 for what only a server of another version serves."},
	} {
		cp1 := &fake{name: "cp-1", version: tc.version, served: set(gvrPods), gate: tc.gate, stage: tc.stage}
		cp2 := &fake{name: "cp-2", version: tc.version, served: set(gvrPods), gate: tc.gate, stage: tc.stage}
		p := Read(context.Background(), target(t, cp1, cp2))
		if p.Verdict != tc.want || !slices.Equal(p.Inert, []string{"cp-1", "cp-2"}) || !strings.Contains(p.Fix, "--peer-ca-file") {
			t.Errorf("%s: verdict\n %q\nwant\n %q\ninert %v, fix %q", tc.version, p.Verdict, tc.want, p.Inert, p.Fix)
		}
	}
}

// A front's 404 is the front's: its apiserver runs without the proxy on purpose, so the
// verdict names the front and gives no kubeadm fix.
func TestFrontInert(t *testing.T) {
	cp1 := &fake{name: "sidecar-apiserver-1", version: "v1.36.3", served: set(gvrPods), gate: "0", list: 404}
	cp2 := &fake{name: "sidecar-apiserver-2", version: "v1.36.3", served: set(gvrPods, gvrJobs), gate: "0"}
	tg := target(t, cp1, cp2)
	for i, e := range tg.Endpoints {
		e.Behind, e.ServedFrom = []string{"apiserver-1", "apiserver-2"}[i], e.Admin
	}
	p := Read(context.Background(), tg)
	if !strings.HasPrefix(p.Verdict, "The front sidecar-apiserver-1 answered 404 for batch/v1/jobs") || p.Fix != "" || p.Issue != "" {
		t.Errorf("verdict %q, fix %q, issue %q", p.Verdict, p.Fix, p.Issue)
	}
}

// A server that never answers costs Read its bound, not the caller's patience.
func TestBounded(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	tg := &framework.Target{Kind: "existing", Endpoints: []*framework.Endpoint{
		{Name: "cp-1", Version: "v1.36.3", Served: set(gvrPods), Admin: &rest.Config{Host: hang.URL}},
		{Name: "cp-2", Version: "v1.36.3", Served: set(gvrPods, gvrJobs), Admin: &rest.Config{Host: hang.URL}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	p := Read(ctx, tg)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Read took %v with a context of 300ms", took)
	}
	if s := p.Servers[0]; s.Proxying.State != report.CannotTell || s.PeerProxy.State != report.CannotTell || s.Gate.Source != report.GateInferred {
		t.Errorf("cp-1 %+v, want cannot tell and an inferred gate", s)
	}
}

// /metrics forbidden on a 1.35 server: its gate is off by its release's default, which is
// an inference (--feature-gates may have turned it on), and the verdict says so as it does
// of an inferred gate that is on.
func TestGateOffInferredSaysSo(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.35.4", served: set(gvrPods), list: 404}
	cp2 := &fake{name: "cp-2", version: "v1.36.3", served: set(gvrPods, gvrJobs), gate: "1", stage: "BETA", hook: true}
	p := Read(context.Background(), target(t, cp1, cp2))
	if g := p.Servers[0].Gate; g.State != report.GateOff || g.Source != report.GateInferred {
		t.Fatalf("gate %+v, want off, inferred", g)
	}
	if want := "The Mixed Version Proxy is off on cp-1: the gate UnknownVersionInteroperabilityProxy is off (by its release's default: /metrics could not tell); clients get 404 for batch/v1/jobs;"; !strings.HasPrefix(p.Verdict, want) {
		t.Errorf("verdict\n %q\nwant it to start\n %q", p.Verdict, want)
	}
}

// Behind a gateway, the apiservers run with the gate off on purpose: the gateway routes
// each request, so the state is read and said, but names no cause and no fix.
func TestGatewayNeedsNoProxy(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.35.4", served: set(gvrPods), gate: "0", stage: "ALPHA", list: 404}
	cp2 := &fake{name: "cp-2", version: "v1.36.3", served: set(gvrPods, gvrJobs), gate: "0", stage: "BETA"}
	tg := target(t, cp1, cp2)
	tg.Gateway = &framework.Gateway{}
	p := Read(context.Background(), tg)
	if len(p.Inert) > 0 || p.Fix != "" || !strings.HasPrefix(p.Verdict, "A gateway routes every request here") {
		t.Errorf("behind a gateway: inert %v, fix %q, verdict %q; want no cause, and the verdict to say the gateway routes", p.Inert, p.Fix, p.Verdict)
	}
}
