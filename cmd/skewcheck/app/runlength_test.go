//go:build !incluster

package app

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRunsLastNoLongerThanCleanupWaits: observe --for and certify --observe longer than a
// run may last (existing.MaxRunLength) are refused before the cluster is asked anything: a
// run going for longer than existing.SafeAge would have its namespace and rights deleted
// under it by a `skewcheck cleanup` without --run, as what a killed run left. One at the
// bound is let through to the cluster.
func TestRunsLastNoLongerThanCleanupWaits(t *testing.T) {
	noKubeconfig(t)
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Error(w, `{"kind":"Status","code":403,"reason":"Forbidden"}`, http.StatusForbidden)
	}))
	defer srv.Close()
	kubeconfig := writeKubeconfig(t, t.TempDir(), "cluster.kubeconfig", `clusters: [{name: c, cluster: {server: "`+srv.URL+`"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
current-context: a
`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"observe", "--for", "4h"}, "--for 4h0m0s: a run on a cluster skewcheck does not own lasts at most 1h30m0s"},
		{[]string{"observe", "--for", "1h31m"}, "give --for 1h30m0s or less"},
		{[]string{"certify", "--observe", "3h"}, "--observe 3h0m0s: a run on a cluster skewcheck does not own lasts at most 1h30m0s"},
	} {
		asked.Store(0)
		var out bytes.Buffer
		args := append(tc.args, "--kubeconfig", kubeconfig, "--report-dir", t.TempDir())
		if code := Run(args, IOStreams{Out: &out, ErrOut: &out}); code != 1 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: exit %d, want 1 and %q:\n%s", tc.args, code, tc.want, out.String())
		}
		if n := asked.Load(); n > 0 {
			t.Errorf("%v: the cluster was asked %d requests before the duration was refused", tc.args, n)
		}
	}
	// At the bound the run goes ahead, and meets the cluster (which refuses it here).
	asked.Store(0)
	var out bytes.Buffer
	Run([]string{"observe", "--for", "1h30m", "--kubeconfig", kubeconfig, "--report-dir", t.TempDir()}, IOStreams{Out: &out, ErrOut: &out})
	if asked.Load() == 0 || strings.Contains(out.String(), "lasts at most") {
		t.Errorf("observe --for 1h30m: refused before asking the cluster, want it let through:\n%s", out.String())
	}
}
