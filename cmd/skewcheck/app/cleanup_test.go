//go:build !incluster

package app

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
)

var cleanupNow = time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)

const (
	oldRun   = "20260102-060000-aaaaa"
	youngRun = "20260102-114000-bbbbb"
)

// labelledObject is an object of run, made ago before cleanupNow.
func labelledObject(apiVersion, kind, name, run string, ago time.Duration) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetName(name)
	o.SetUID(types.UID("uid-" + name))
	o.SetLabels(map[string]string{framework.RunLabel: run})
	o.SetCreationTimestamp(metav1.NewTime(cleanupNow.Add(-ago)))
	return o
}

// runsCluster is a cluster with a run six hours old (a namespace, a ClusterRole and its
// binding), a run twenty minutes old (a namespace), and two namespaces of no run, one of
// them six hours old with the run label empty.
func runsCluster() *dynamicfake.FakeDynamicClient {
	lists := map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "namespaces"}:                                               "NamespaceList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}:         "ClusterRoleList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}:  "ClusterRoleBindingList",
		{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}: "CustomResourceDefinitionList",
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}:             "APIServiceList",
	}
	theirs := labelledObject("v1", "Namespace", "production", "", 0)
	theirs.SetLabels(nil)
	// The run label with no value: no run names itself so (RunID), so it is no run's.
	unnamed := labelledObject("v1", "Namespace", "staging", "", 6*time.Hour)
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, unnamed,
		labelledObject("v1", "Namespace", "skewcheck-"+oldRun, oldRun, 6*time.Hour),
		labelledObject("rbac.authorization.k8s.io/v1", "ClusterRole", "skewcheck-reader-"+oldRun, oldRun, 6*time.Hour-time.Minute),
		labelledObject("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "skewcheck-reader-"+oldRun, oldRun, 6*time.Hour-time.Minute),
		labelledObject("v1", "Namespace", "skewcheck-"+youngRun, youngRun, 20*time.Minute),
		theirs)
}

// leftIn are the names of the namespaces, ClusterRoles and bindings in the cluster.
func leftIn(t *testing.T, dyn *dynamicfake.FakeDynamicClient) []string {
	t.Helper()
	var names []string
	for _, gvr := range []schema.GroupVersionResource{{Version: "v1", Resource: "namespaces"},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}} {
		l, err := dyn.Resource(gvr).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			names = append(names, gvr.Resource+"/"+o.GetName())
		}
	}
	slices.Sort(names)
	return names
}

func cleanupWith(t *testing.T, dyn *dynamicfake.FakeDynamicClient, f cleanupFlags) (string, error) {
	t.Helper()
	var out bytes.Buffer
	f.kubeconfig = "cluster.kubeconfig"
	if f.olderThan == 0 {
		f.olderThan = existing.SafeAge
	}
	err := runCleanup(context.Background(), IOStreams{Out: &out, ErrOut: &out}, f, dyn, "https://cluster", cleanupNow)
	return out.String(), err
}

// Without --yes, cleanup lists each run, its age and what it would delete, and deletes
// nothing; the young run is left, saying why and how to name it.
func TestCleanupListsAndDeletesNothing(t *testing.T) {
	dyn := runsCluster()
	before := leftIn(t, dyn)
	out, err := cleanupWith(t, dyn, cleanupFlags{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		oldRun + "  6h", youngRun + "  20m",
		"would delete run " + oldRun + " (6h old):", "namespaces/skewcheck-" + oldRun, "clusterroles.rbac.authorization.k8s.io/skewcheck-reader-" + oldRun,
		"left run " + youngRun + " (20m old): younger than 3h, it may still be going; name it with --run " + youngRun,
		"nothing deleted: add --yes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the listing does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "production") || strings.Contains(out, "staging") {
		t.Errorf("the listing names an object of no run:\n%s", out)
	}
	if after := leftIn(t, dyn); !slices.Equal(after, before) {
		t.Errorf("a listing deleted %v", slices.DeleteFunc(before, func(n string) bool { return slices.Contains(after, n) }))
	}
}

// With --yes, cleanup deletes the old run and nothing else: the young run, not named, is
// refused with its reason; named with --run, it goes too, whatever its age.
func TestCleanupDeletesOnlyTheSelectedRun(t *testing.T) {
	dyn := runsCluster()
	out, err := cleanupWith(t, dyn, cleanupFlags{yes: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"namespaces/production", "namespaces/skewcheck-" + youngRun, "namespaces/staging"}
	if got := leftIn(t, dyn); !slices.Equal(got, want) {
		t.Errorf("left %v, want %v:\n%s", got, want, out)
	}
	if !strings.Contains(out, "left run "+youngRun+" (20m old): younger than 3h") {
		t.Errorf("the young run's refusal does not say why:\n%s", out)
	}

	if out, err = cleanupWith(t, dyn, cleanupFlags{run: youngRun, yes: true}); err != nil {
		t.Fatal(err)
	}
	if got := leftIn(t, dyn); !slices.Equal(got, []string{"namespaces/production", "namespaces/staging"}) {
		t.Errorf("left %v after --run %s, want only the namespaces of no run:\n%s", got, youngRun, out)
	}

	if _, err := cleanupWith(t, dyn, cleanupFlags{run: youngRun}); err == nil || !strings.Contains(err.Error(), "nothing in https://cluster is labelled "+framework.RunLabel+"="+youngRun) {
		t.Errorf("--run of a run that left nothing: %v, want an error naming the label", err)
	}
}

// What needs no cluster to judge is refused before one is asked, naming the flag and the fix.
func TestCleanupFlagsRefused(t *testing.T) {
	noKubeconfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cleanup"}, "no kubeconfig: --kubeconfig unset, $KUBECONFIG unset, ~/.kube/config absent"},
		{[]string{"cleanup", "--kubeconfig", "k", "--run", oldRun, "--older-than", "5h"}, "give one of them"},
		{[]string{"cleanup", "--kubeconfig", "k", "--older-than", "1h"}, "--older-than 1h0m0s: a run younger than 3h may still be going"},
	} {
		var out bytes.Buffer
		if code := Run(tc.args, IOStreams{Out: &out, ErrOut: &out}); code != 1 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: exit %d, want 1 and %q:\n%s", tc.args, code, tc.want, out.String())
		}
	}
}

// cleanup looks too in the cluster-scoped kinds of the skewed resources (the run's tests
// label what they make there, and a killed run leaves it): with --yes the old run's
// VolumeAttributesClass goes with its namespace, the young run's stays.
func TestCleanupFindsTheSkewedKindsLeft(t *testing.T) {
	vac := schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattributesclasses"}
	lists := map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "namespaces"}:                                               "NamespaceList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}:         "ClusterRoleList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}:  "ClusterRoleBindingList",
		{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}: "CustomResourceDefinitionList",
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}:             "APIServiceList",
		vac: "VolumeAttributesClassList",
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists,
		labelledObject("v1", "Namespace", "skewcheck-"+oldRun, oldRun, 6*time.Hour),
		labelledObject("storage.k8s.io/v1", "VolumeAttributesClass", "skewcheck-owner-old", oldRun, 6*time.Hour-time.Minute),
		labelledObject("storage.k8s.io/v1", "VolumeAttributesClass", "skewcheck-owner-young", youngRun, 20*time.Minute))
	var out bytes.Buffer
	f := cleanupFlags{kubeconfig: "cluster.kubeconfig", olderThan: existing.SafeAge, yes: true}
	if err := runCleanup(context.Background(), IOStreams{Out: &out, ErrOut: &out}, f, dyn, "https://cluster", cleanupNow, vac); err != nil {
		t.Fatal(err)
	}
	l, err := dyn.Resource(vac).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, o := range l.Items {
		left = append(left, o.GetName())
	}
	if !slices.Equal(left, []string{"skewcheck-owner-young"}) {
		t.Errorf("VolumeAttributesClasses left: %v, want only the young run's:\n%s", left, out.String())
	}
	if !strings.Contains(out.String(), "volumeattributesclasses.storage.k8s.io/skewcheck-owner-old") {
		t.Errorf("the listing does not name the old run's VolumeAttributesClass:\n%s", out.String())
	}
}

// When the cluster's discovery fails, cleanup still deletes the old run from the kinds
// every run labels (as certify's sweep does) and then fails, saying which kinds it could
// not look in; before, it deleted nothing and a user's cleanup left every killed run.
func TestCleanupWithoutDiscoveryCleansWhatItCanAndFails(t *testing.T) {
	dyn := runsCluster()
	disc := &discoveryfake.FakeDiscovery{Fake: &clienttesting.Fake{}}
	disc.AddReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("the server is currently unable to handle the request")
	})
	var out bytes.Buffer
	f := cleanupFlags{kubeconfig: "cluster.kubeconfig", olderThan: existing.SafeAge, yes: true}
	err := cleanupCluster(context.Background(), IOStreams{Out: &out, ErrOut: &out}, f, dyn, disc, "https://cluster", "kubeconfig cluster.kubeconfig", cleanupNow)
	if err == nil || !strings.Contains(err.Error(), "cluster-scoped kinds were not looked in") {
		t.Errorf("error %v, want one saying the skewed resources' kinds were not looked in", err)
	}
	want := []string{"namespaces/production", "namespaces/skewcheck-" + youngRun, "namespaces/staging"}
	if got := leftIn(t, dyn); !slices.Equal(got, want) {
		t.Errorf("left %v, want the old run deleted from the kinds every run labels, %v:\n%s", got, want, out.String())
	}
}
