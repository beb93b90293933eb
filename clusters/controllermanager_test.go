package clusters

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// leaseServer answers the leader lease's GET as an apiserver would: 404 when renewed is
// zero, else a lease held by "kcm_1" renewed then.
func leaseServer(t *testing.T, renewed time.Time) *framework.Target {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"+leaderLease {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if renewed.IsZero() {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
			return
		}
		fmt.Fprintf(w, `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":%q,"namespace":"kube-system"},"spec":{"holderIdentity":"kcm_1","renewTime":%q}}`,
			leaderLease, renewed.UTC().Format("2006-01-02T15:04:05.000000Z07:00"))
	}))
	t.Cleanup(srv.Close)
	return &framework.Target{Endpoints: []*framework.Endpoint{{Name: "apiserver-1", Admin: &rest.Config{Host: srv.URL}}}}
}

// A target without a controller manager that leads now skips the profile, saying why:
// no lease (a local cluster made without one, most clusters seen from outside without
// read access to it), or a lease nobody renews.
func TestControllerManagersOfATarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		renewed time.Time
		want    string
	}{
		{"no lease", time.Time{}, "missing ControllerManager: no kube-controller-manager runs"},
		{"stale lease", time.Now().Add(-10 * time.Minute), "does not lead now"},
		{"leading", time.Now(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			test := framework.Test{ID: "CTRL-000", Features: []framework.Feature{ControllerManagers}}
			got := test.SkipReason(leaseServer(t, tc.renewed))
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("skip reason %q, want one containing %q", got, tc.want)
			}
		})
	}
}
