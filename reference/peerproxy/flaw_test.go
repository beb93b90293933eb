package peerproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

func TestFlawApply(t *testing.T) {
	bob := &authn.User{Name: "bob", Groups: []string{"devs"}}
	request := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		r.Header.Set("Impersonate-User", "alice")
		r.Header.Set("Impersonate-Extra-Scopes", "all")
		r.Header.Set("X-Remote-User", "mallory")
		r.Header.Add("X-Remote-Group", "system:masters")
		return r
	}
	tests := []struct {
		flaw            Flaw
		want            *authn.User
		wantImpersonate bool
	}{
		{NoFlaw, bob, true},
		{FlawForwardAsItself, nil, true},
		{FlawDropImpersonation, bob, false},
		{FlawTrustClientIdentity, &authn.User{Name: "mallory", Groups: []string{"system:masters"}}, true},
	}
	for _, tt := range tests {
		r := request()
		if got := tt.flaw.apply(r, bob); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: forwards as %+v, want %+v", tt.flaw, got, tt.want)
		}
		if kept := r.Header.Get("Impersonate-User") != "" && r.Header.Get("Impersonate-Extra-Scopes") != ""; kept != tt.wantImpersonate {
			t.Errorf("%q: Impersonate-* kept %v, want %v", tt.flaw, kept, tt.wantImpersonate)
		}
	}
}

// Every Flaw constant declared in flaw.go is in the registry: a flaw left out would be
// neither selectable by --reference-flaw nor a mutant of `skewcheck mutation`.
func TestEveryFlawIsRegistered(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "flaw.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok || name.Name == "NoFlaw" {
					continue
				}
				declared++
				value, _ := strconv.Unquote(lit.Value)
				if got, err := ParseFlaw(value); err != nil || got != Flaw(value) {
					t.Errorf("%s (%q) is declared but not in the registry (flaws): ParseFlaw = %q, %v", name.Name, value, got, err)
				}
			}
		}
	}
	if declared != len(Flaws()) || declared == 0 {
		t.Errorf("flaw.go declares %d flaws, the registry lists %d", declared, len(Flaws()))
	}
	if _, err := ParseFlaw("nosuch"); err == nil || !strings.Contains(err.Error(), string(FlawHedgeReads)) {
		t.Errorf("an unknown flaw should be refused naming the flaws; got %v", err)
	}
}

// Only FlawForgetUnreachablePeer drops a peer it cannot read, and only once it has not read
// it for forgetAfter: the reference keeps a live lease's peer however long it is down.
func TestFlawForgets(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		flaw    Flaw
		fetched time.Time
		want    bool
	}{
		{NoFlaw, now.Add(-time.Hour), false},
		{FlawHedgeReads, now.Add(-time.Hour), false},
		{FlawForgetUnreachablePeer, now.Add(-time.Second), false},
		{FlawForgetUnreachablePeer, now.Add(-forgetAfter - time.Second), true},
	} {
		if got := tc.flaw.forgets(tc.fetched, now); got != tc.want {
			t.Errorf("%q, last read %v ago: forgets %v, want %v", tc.flaw, now.Sub(tc.fetched), got, tc.want)
		}
	}
}

// FlawPeersFirst sends what both servers serve to the peer, marked (MVP-001 must catch
// it); what only the local apiserver serves stays local.
func TestFlawPeersFirst(t *testing.T) {
	for _, tc := range []struct {
		flaw       Flaw
		path, want string
	}{
		{NoFlaw, "/api/v1/namespaces/ns/pods", "local"},
		{FlawPeersFirst, "/api/v1/namespaces/ns/pods", "peer"},
		{FlawPeersFirst, "/apis/apps/v1/namespaces/ns/deployments", "local"},
		{FlawPeersFirst, "/apis/batch/v1/namespaces/ns/jobs", "peer"},
	} {
		local, peer := newBackend(t, "local"), newBackend(t, "peer")
		p := testProxy(t, local.URL, peer.URL)
		p.cfg.Flaw = tc.flaw
		r := httptest.NewRequest(http.MethodGet, tc.path, nil)
		r.Header.Set("Authorization", "Bearer good")
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		if w.Body.String() != tc.want {
			t.Errorf("%q: %s answered by %q, want %s", tc.flaw, tc.path, w.Body, tc.want)
		}
		if tc.want == "peer" && peer.requests()[0].Header.Get(headerMarked) == "" {
			t.Errorf("%q: %s reached the peer unmarked", tc.flaw, tc.path)
		}
	}
}

// FlawNotFoundStatus and FlawNotFoundText answer a resource no live server serves with a
// 404 of their own, asking no apiserver: a Status (MVP-020 must catch it: an unknown
// group-version is plain text at an apiserver) or the mux's plain text (MVP-021 must catch
// it: an unknown resource is a Status). The reference, and a marked request, ask the
// local apiserver; what some server serves is untouched.
func TestFlawNotFound(t *testing.T) {
	for _, tc := range []struct {
		flaw        Flaw
		path        string
		marked      bool
		wantBackend string // "" when the proxy answers itself
		wantType    string
	}{
		{NoFlaw, "/apis/example.com/v1/widgets", false, "local", ""},
		{FlawNotFoundStatus, "/apis/example.com/v1/widgets", false, "", "application/json"},
		{FlawNotFoundStatus, "/apis/apps/v1/nosuchresources", false, "", "application/json"},
		{FlawNotFoundText, "/apis/example.com/v1/widgets", false, "", "text/plain; charset=utf-8"},
		{FlawNotFoundText, "/apis/apps/v1/namespaces/ns/nosuchresources", false, "", "text/plain; charset=utf-8"},
		{FlawNotFoundText, "/apis/example.com/v1/widgets", true, "local", ""},
		{FlawNotFoundText, "/apis/batch/v1/jobs", false, "peer", ""},
		{FlawNotFoundStatus, "/apis/apps/v1/deployments", false, "local", ""},
		{FlawNotFoundStatus, "/apis/example.com/v1", false, "local", ""},
	} {
		local, peer := newBackend(t, "local"), newBackend(t, "peer")
		p := testProxy(t, local.URL, peer.URL)
		p.cfg.Flaw = tc.flaw
		r := httptest.NewRequest(http.MethodGet, tc.path, nil)
		r.Header.Set("Authorization", "Bearer good")
		if tc.marked {
			r.Header.Set(headerMarked, "true")
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		what := fmt.Sprintf("%q: %s (marked %v)", tc.flaw, tc.path, tc.marked)
		if tc.wantBackend != "" {
			if w.Body.String() != tc.wantBackend {
				t.Errorf("%s: answered by %q, want %s", what, w.Body, tc.wantBackend)
			}
			continue
		}
		if n := len(local.requests()) + len(peer.requests()); w.Code != http.StatusNotFound || n != 0 {
			t.Errorf("%s: answer %d after %d requests to the apiservers, want the flaw's own 404", what, w.Code, n)
		}
		if ct := w.Header().Get("Content-Type"); ct != tc.wantType {
			t.Errorf("%s: Content-Type %q, want %q", what, ct, tc.wantType)
		}
		var s metav1.Status
		isStatus := json.Unmarshal(w.Body.Bytes(), &s) == nil && s.Kind == "Status" && s.Reason == metav1.StatusReasonNotFound && s.Code == 404
		if isStatus != (tc.flaw == FlawNotFoundStatus) || !isStatus && strings.TrimSpace(w.Body.String()) != "404 page not found" {
			t.Errorf("%s: body %q, want %s", what, w.Body, map[bool]string{true: "a NotFound Status", false: "404 page not found"}[tc.flaw == FlawNotFoundStatus])
		}
	}
}

// FlawSlowRelearnPeer keeps out a peer a sync dropped for relearnAfter from when it comes
// back, however long it was away (and from its latest return when it left again while kept
// out), and then takes it back; the peers it never dropped stay.
// Only it does: the reference takes a peer back at once.
func TestFlawSlowRelearnPeer(t *testing.T) {
	r := &registry{flaw: FlawSlowRelearnPeer}
	a, b := view{}, view{}
	now := time.Now()
	old := map[string]view{"a": a, "b": b}
	peers := map[string]view{"b": b} // a's lease is gone
	r.keepOutDropped(old, peers, now)
	if len(peers) != 1 {
		t.Fatalf("after a left: peers %v, dropped %v", peers, r.dropped)
	}
	// a registers again long after it left (past relearnAfter): kept out from its return
	returned := now.Add(2 * relearnAfter)
	back := map[string]view{"a": a, "b": b}
	r.keepOutDropped(peers, back, returned)
	if _, ok := back["a"]; ok || len(back) != 1 {
		t.Errorf("a was taken back when it returned: %v", back)
	}
	// a leaves again while kept out, and returns past relearnAfter from its first return:
	// kept out from this second return (the sync's old peers never held it).
	gone := map[string]view{"b": b}
	r.keepOutDropped(back, gone, returned.Add(time.Second))
	returned = returned.Add(relearnAfter + 10*time.Second)
	back = map[string]view{"a": a, "b": b}
	r.keepOutDropped(gone, back, returned)
	if _, ok := back["a"]; ok {
		t.Errorf("a, gone again while kept out, was taken back at its second return: %v", back)
	}
	still := map[string]view{"a": a, "b": b}
	r.keepOutDropped(back, still, returned.Add(relearnAfter-time.Second))
	if _, ok := still["a"]; ok {
		t.Errorf("a was taken back before relearnAfter from its return: %v", still)
	}
	later := map[string]view{"a": a, "b": b}
	r.keepOutDropped(still, later, returned.Add(relearnAfter+time.Second))
	if len(later) != 2 || len(r.dropped) != 0 {
		t.Errorf("a was not taken back after relearnAfter: %v (dropped %v)", later, r.dropped)
	}
	if !NoFlaw.relearnsAtOnce() || FlawSlowRelearnPeer.relearnsAtOnce() {
		t.Error("only FlawSlowRelearnPeer must relearn late")
	}
}

// FlawNoPeerTimeout forwards with no bound at all (the transport's zero timeouts); the
// reference keeps its own.
func TestFlawNoPeerTimeout(t *testing.T) {
	if got := FlawNoPeerTimeout.peerTimeout(2 * time.Second); got != 0 {
		t.Errorf("FlawNoPeerTimeout: %v, want no bound", got)
	}
	if got := NoFlaw.peerTimeout(2 * time.Second); got != 2*time.Second {
		t.Errorf("the reference: %v, want its 2 s", got)
	}
	tr := transport(nil, "x", nil, FlawNoPeerTimeout.peerTimeout(2*time.Second), false)
	if tr.TLSHandshakeTimeout != 0 || tr.HTTP2.PingTimeout != 0 || tr.HTTP2.SendPingTimeout != 0 {
		t.Errorf("a transport without a bound still has one: %+v %+v", tr, tr.HTTP2)
	}
}

// FlawAllOrNothingSync keeps no peer when one could not be read; the reference, and the
// flaw when every peer was read, keep them.
func TestFlawAllOrNothingSync(t *testing.T) {
	if !FlawAllOrNothingSync.keepsNone(true) || FlawAllOrNothingSync.keepsNone(false) || NoFlaw.keepsNone(true) {
		t.Error("only FlawAllOrNothingSync, and only after a peer it could not read, keeps none")
	}
}

// FlawCircuitBreaker leaves peers that failed alone for breakerOpen after their last
// failure, and only when every peer a request could go to failed; a failed probe opens it
// again. A peer that never failed, or failed long ago, is tried. Probes are due once per
// probeEvery.
func TestFlawCircuitBreaker(t *testing.T) {
	var b breaker
	a := []string{"https://a"}
	now := time.Now()
	if b.open(a, now) {
		t.Error("a peer that never failed is refused")
	}
	b.trip(a, now)
	if !b.open(a, now.Add(breakerOpen-time.Second)) {
		t.Error("a peer that just failed is tried")
	}
	if b.open([]string{"https://a", "https://b"}, now) {
		t.Error("a request with a peer that never failed is refused")
	}
	b.trip(a, now.Add(time.Minute)) // a probe failed
	if !b.open(a, now.Add(breakerOpen+time.Second)) {
		t.Error("a failed probe did not open the breaker again")
	}
	if b.open(a, now.Add(time.Minute+breakerOpen+time.Second)) {
		t.Error("a peer that failed long ago is still refused")
	}
	if !b.probeDue("https://a", now) || b.probeDue("https://a", now.Add(probeEvery-time.Millisecond)) || !b.probeDue("https://a", now.Add(probeEvery)) {
		t.Error("probes are not due once per probeEvery")
	}
	if !FlawCircuitBreaker.breaks() || NoFlaw.breaks() {
		t.Error("only FlawCircuitBreaker breaks")
	}
}

// FlawLingerInDiscovery lists a peer that left for lingerFor after the sync that dropped
// it, unless it is back; without the flaw nothing lingers.
func TestFlawLingerInDiscovery(t *testing.T) {
	now := time.Now()
	a := view{id: "a"}
	old, peers := map[string]view{"a": a, "b": {id: "b"}}, map[string]view{"b": {id: "b"}}
	if got := NoFlaw.stillListed(nil, old, peers, now); len(got) != 0 {
		t.Errorf("without the flaw, %v lingers", got)
	}
	got := FlawLingerInDiscovery.stillListed(nil, old, peers, now)
	if d, ok := got["a"]; !ok || d.id != "a" || len(got) != 1 {
		t.Fatalf("the peer that left is not listed alone: %v", got)
	}
	if kept := FlawLingerInDiscovery.stillListed(got, peers, peers, now.Add(lingerFor-time.Second)); len(kept) != 1 {
		t.Errorf("the peer that left is gone before lingerFor: %v", kept)
	}
	if kept := FlawLingerInDiscovery.stillListed(got, peers, peers, now.Add(lingerFor+time.Second)); len(kept) != 0 {
		t.Errorf("the peer that left is still listed past lingerFor: %v", kept)
	}
	if kept := FlawLingerInDiscovery.stillListed(got, peers, map[string]view{"a": a, "b": {id: "b"}}, now); len(kept) != 0 {
		t.Errorf("a peer that is back is listed as departed too: %v", kept)
	}
}

// FlawUnmergedDiscovery alone leaves the peers out of merged /apis.
func TestFlawUnmergedDiscovery(t *testing.T) {
	if FlawUnmergedDiscovery.mergesPeers() || !NoFlaw.mergesPeers() || !FlawMergeNopeer.mergesPeers() {
		t.Error("only FlawUnmergedDiscovery leaves the peers out of merged /apis")
	}
}

// FlawStalePeerDiscovery alone keeps a peer's first good read while its reads succeed,
// and takes a new one only after a failed read; other flaws keep nothing.
func TestFlawStalePeerDiscovery(t *testing.T) {
	leases := []peerLease{{name: "a"}, {name: "b"}}
	read := func(ids ...string) []view {
		var out []view
		for _, id := range ids {
			out = append(out, view{id: id})
		}
		return out
	}
	fetched := read("a-1", "b-1")
	if kept := NoFlaw.keptReads(nil, leases, fetched, make([]error, 2)); kept != nil || fetched[0].id != "a-1" {
		t.Fatalf("without the flaw, reads are kept (%v) or changed (%v)", kept, fetched)
	}
	kept := FlawStalePeerDiscovery.keptReads(nil, leases, fetched, make([]error, 2))
	if kept["a"].id != "a-1" || kept["b"].id != "b-1" {
		t.Fatalf("the first reads are not kept: %v", kept)
	}
	fetched = read("a-2", "b-2")
	kept = FlawStalePeerDiscovery.keptReads(kept, leases, fetched, []error{nil, errors.New("refused")})
	if fetched[0].id != "a-1" || kept["a"].id != "a-1" {
		t.Errorf("a peer read again is not answered from its first read: used %v, kept %v", fetched[0], kept["a"])
	}
	if _, ok := kept["b"]; ok {
		t.Errorf("a peer whose read failed is still kept: %v", kept)
	}
	fetched = read("a-3", "b-3")
	kept = FlawStalePeerDiscovery.keptReads(kept, leases, fetched, make([]error, 2))
	if fetched[1].id != "b-3" || kept["b"].id != "b-3" || kept["a"].id != "a-1" {
		t.Errorf("after its failed read, the peer's next read is not the one kept: used %v, kept %v", fetched, kept)
	}
	if kept = FlawStalePeerDiscovery.keptReads(kept, leases[:1], read("a-4"), make([]error, 1)); len(kept) != 1 {
		t.Errorf("a peer whose lease is gone is still kept: %v", kept)
	}
}
