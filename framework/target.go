// Package framework is what every suite uses: the target under test, probes that record
// what a request really did, gomega matchers for the outcomes the Mixed Version Proxy
// promises, tests as data, and the runner that turns a run into a report.
package framework

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authnv1beta1 "k8s.io/api/authentication/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// Endpoint is one apiserver, or one proxy in front of one, that clients can talk to.
type Endpoint struct {
	Name string
	URL  string
	// Version is what the endpoint's /version says (gitVersion): the binary's release,
	// also when it emulates an older one. Test and deviation ranges are judged by it,
	// because they are about code, and emulation keeps the binary's code.
	Version string
	// EmulationVersion is the release the server emulates (KEP-4330's --emulated-version:
	// the older release's APIs and feature-gate defaults), from /version's emulationMajor
	// and emulationMinor: "1.35", or "" when it emulates none (the binary's own minor).
	EmulationVersion string
	// Admin may do anything; User is an identity RBAC grants nothing, so that a 403 shows
	// authorization ran where the request landed.
	Admin, User *rest.Config
	// UserName, UserGroups, UserUID and UserExtra are who User is to the apiservers when it
	// asks them directly (SelfSubjectReview), for RBAC grants and to compare with what a peer
	// recorded of a proxied request. Refresh asks the endpoint when they are not set; a
	// target whose endpoints are proxies of skewcheck's own sets them from the apiservers.
	UserName   string
	UserGroups []string
	UserUID    string
	UserExtra  map[string][]string
	// Served is what the server itself serves (nopeer discovery), read by Refresh.
	Served discovery.Set
	// ServedFrom, when set, is where Refresh reads Served instead of at the endpoint: the
	// apiserver behind a front the harness put there. What a front's server serves itself
	// is its apiserver's; read through the front, a front that merges its peers into the
	// nopeer view would hide every skew, and every test of proxying would skip instead of
	// DISC-002 failing.
	ServedFrom *rest.Config
	// Behind is the name of the apiserver behind a front the harness put there ("" when
	// the endpoint is the apiserver itself): what runs on that server's machine (a
	// dataplane on its node) is found by it.
	Behind string
	// Hostname is the apiserver's hostname, when known: its identity lease carries it (label
	// kubernetes.io/hostname), for targets whose URL is not the address the server
	// advertises to its peers (kind nodes publish their port on the host).
	Hostname string
	// AuditLog is the path of the server's audit log, when the test can read it.
	AuditLog string
	// Log is the path of the server's own log, for evidence on failure.
	Log string
	// Node is nil unless the suite may stop, kill or freeze the server.
	Node Node
	// RequestTimeout bounds each probe (Do) that names no bound of its own; a run sets it
	// from --timeout-request, so a proxy that never answers cannot hang a test.
	RequestTimeout time.Duration
	// WrapAnonymous, when set, wraps the transport of the endpoint's anonymous requests
	// (AsAnonymous). Their config is Admin without its credentials, and
	// rest.AnonymousClientConfig drops Admin's WrapTransport with them: the recorder of a
	// run on a cluster skewcheck does not own wraps them again here, so that what an
	// anonymous request creates is the run's to remove too.
	WrapAnonymous func(http.RoundTripper) http.RoundTripper
}

// Target is what a suite runs against: named endpoints, one per apiserver or proxy.
type Target struct {
	// Kind says where the target came from: "local", "containers", "existing" or "reference:<name>".
	Kind      string
	Endpoints []*Endpoint
	// Upstream is true when the endpoints are real kube-apiservers answering for
	// themselves: then known upstream deviations are reported as such, not failed.
	Upstream bool
	// UpstreamDeclared is true when Upstream rests on the user's word (--upstream on an
	// existing target) rather than on skewcheck having started the apiservers itself; the
	// report says which.
	UpstreamDeclared bool
	// Converge waits until every proxy path is live again after a node operation; nil
	// for targets skewcheck does not run (the suite then polls what it needs).
	Converge func(ctx context.Context) error
	// RelearnPeers makes servers that gave up on a peer look at their peers again (for
	// kube-apiserver 1.33 and 1.34, see suites/chaos missedAfterStop); nil where no server
	// needs it. A test calls it only after reporting the known deviation it works around.
	RelearnPeers func(ctx context.Context) error
	// Dataplane is the service dataplane under test, when the run has one; NoDataplane
	// says why a run that asked for one has none (the machine cannot run it).
	Dataplane   *Dataplane
	NoDataplane string
	// Gateway is the API gateway under test in front of the Endpoints, when the run has one.
	Gateway *Gateway
	// Registrar is how the proxies register their servers with one another, for the races;
	// nil on upstream targets, whose kube-apiservers use identity leases (scenarios/races).
	Registrar Registrar
	// ExtensionHost is how the apiservers reach a server skewcheck runs on this machine (an
	// aggregated API's); nil when they cannot, NoExtensionHost then saying why when known.
	ExtensionHost   *ExtensionHost
	NoExtensionHost string
	// Namespace is where the tests make their namespaced objects ("" is default), and Run
	// the name every object a test makes is labelled with (RunLabel): set for a cluster
	// skewcheck does not own, so a run keeps to its own namespace and finds what it made.
	Namespace, Run string
	// Unowned is a cluster skewcheck did not make, reached through a kubeconfig: no test
	// disturbs its servers or touches its registrations (FeatureOwnedCluster).
	Unowned bool
}

// Refresh reads every endpoint's version and served GVRs.
func (t *Target) Refresh(ctx context.Context) error {
	for _, e := range t.Endpoints {
		v, err := serverVersion(ctx, e.Admin)
		if err != nil {
			return fmt.Errorf("endpoint %s (%s): reading /version: %w", e.Name, e.URL, err)
		}
		e.Version, e.EmulationVersion = v.GitVersion, v.emulation()
		if e.Served, err = discovery.Served(ctx, cmp.Or(e.ServedFrom, e.Admin)); err != nil {
			return fmt.Errorf("endpoint %s (%s): %w", e.Name, e.URL, err)
		}
		if e.User != nil && e.UserName == "" {
			ui, err := whoAmI(ctx, e.User)
			if err != nil {
				return fmt.Errorf("endpoint %s: who is the unprivileged identity? %w", e.Name, err)
			}
			e.UserName, e.UserGroups, e.UserUID = ui.Username, ui.Groups, ui.UID
			e.UserExtra = map[string][]string{}
			for k, v := range ui.Extra {
				e.UserExtra[k] = v
			}
		}
	}
	return nil
}

// Endpoint returns the endpoint named name, or nil.
func (t *Target) Endpoint(name string) *Endpoint {
	for _, e := range t.Endpoints {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// versionInfo is what skewcheck reads of /version (k8s.io/apimachinery pkg/version Info).
type versionInfo struct {
	GitVersion string `json:"gitVersion"`
	Major      string `json:"major"`
	Minor      string `json:"minor"`
	// EmulationMajor and EmulationMinor are there from 1.31 on, for every server: the
	// binary's own minor unless it was started with --emulated-version.
	EmulationMajor string `json:"emulationMajor"`
	EmulationMinor string `json:"emulationMinor"`
}

// emulation is the release the server emulates, "" when it is its own.
func (v versionInfo) emulation() string {
	if v.EmulationMajor == "" || (v.EmulationMajor == v.Major && v.EmulationMinor == v.Minor) {
		return ""
	}
	return v.EmulationMajor + "." + v.EmulationMinor
}

func serverVersion(ctx context.Context, cfg *rest.Config) (versionInfo, error) {
	var v versionInfo
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return v, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := newRequest(ctx, "GET", cfg.Host+"/version", nil)
	resp, err := client.Do(req)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return v, fmt.Errorf("decoding /version: %w", err)
	}
	return v, nil
}

// whoAmI asks the server who cfg authenticates as (SelfSubjectReview, GA since 1.28; a
// 1.27 server has it as v1beta1 only), so tests can grant that user exactly what they need.
func whoAmI(ctx context.Context, cfg *rest.Config) (authnv1.UserInfo, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return authnv1.UserInfo{}, err
	}
	r, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) {
		beta, berr := cs.AuthenticationV1beta1().SelfSubjectReviews().Create(ctx, &authnv1beta1.SelfSubjectReview{}, metav1.CreateOptions{})
		if berr != nil {
			return authnv1.UserInfo{}, fmt.Errorf("%w; authentication.k8s.io/v1beta1: %w", err, berr)
		}
		return beta.Status.UserInfo, nil
	}
	if err != nil {
		return authnv1.UserInfo{}, err
	}
	return r.Status.UserInfo, nil
}
