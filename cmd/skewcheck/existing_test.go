package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestKindClusterAsItRuns: a cluster skewcheck did not make, reached through one kubeconfig
// context that names its load balancer (a named kind cluster of two skewed nodes, used only
// through that context, as a user's real cluster would be). conformance --kubeconfig with
// no --contexts finds both apiservers itself, makes its own namespace and powerless
// ServiceAccount, runs mvp and discovery against upstream with the audit logs given, and
// exits 0: every test passes or does not apply (no node control, no faults, no
// registrations on a cluster skewcheck does not own), and the identity tests ran as the
// ServiceAccount. --dry-run makes nothing. Afterwards no namespace, CRD, ClusterRole or
// ClusterRoleBinding of either run is left.
func TestKindClusterAsItRuns(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	requireKind(t)
	state := t.TempDir()
	oldV, newV := integration.Versions()
	name := fmt.Sprintf("asitruns%d", os.Getpid()%10000)
	out, code := run(t, state, "cluster", "create", "--provider", "kind", "--name", name, "--versions", oldV+","+newV,
		"--server-flag", "1=--runtime-config=batch/v1=false", "--server-flag", "2=--runtime-config=autoscaling/v2=false")
	t.Cleanup(func() {
		if out, code := run(t, state, "cluster", "delete", "--name", name); code != 0 {
			t.Errorf("deleting the kind cluster %s: exit %d\n%s", name, code, out)
		}
	})
	if code != 0 {
		t.Fatalf("creating the kind cluster: exit %d\n%s", code, out)
	}
	var rec registry.Record
	b, err := os.ReadFile(filepath.Join(state, name, "cluster.json"))
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	if err != nil || rec.LoadBalancer == nil {
		t.Fatalf("reading the cluster's record (%v): want a load balancer, got %+v", err, rec.LoadBalancer)
	}
	lb := []string{"--kubeconfig", rec.Kubeconfig, "--context", rec.LoadBalancer.Admin}

	out, code = run(t, state, append([]string{"conformance", "--dry-run"}, lb...)...)
	if code != 0 || !strings.Contains(out, "found 2 apiservers") || !strings.Contains(out, "a run (run ") {
		t.Errorf("--dry-run: exit %d, want 0 listing both apiservers and what a run makes:\n%s", code, out)
	}

	// A user who may not read where the apiservers are: one clear message, exit 1, nothing made.
	out, code = run(t, state, "conformance", "--kubeconfig", powerlessKubeconfig(t, rec), "--upstream")
	if code != 1 || !strings.Contains(out, "may not list the EndpointSlices of the default/kubernetes Service") || strings.Contains(out, "making run") {
		t.Errorf("a user who cannot list EndpointSlices: exit %d, want 1 saying so before anything is made:\n%s", code, out)
	}

	reportDir := t.TempDir()
	args := append([]string{"conformance", "--upstream", "--profiles", "mvp,discovery", "--report-dir", reportDir}, lb...)
	for _, s := range rec.Servers {
		// The found apiservers are named by their identity leases' hostnames: the nodes'.
		args = append(args, "--audit-logs", s.Hostname+"="+s.AuditLog)
	}
	out, code = run(t, state, args...)
	t.Logf("conformance through the load balancer alone:\n%s", out)
	if code != 0 {
		t.Errorf("exit %d, want 0: every test passes or does not apply on a cluster skewcheck does not own", code)
	}
	for _, want := range []string{"found 2 apiservers", "skew across 2 apiservers", "system:serviceaccount:skewcheck-", "removing run"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's output lacks %q", want)
		}
	}
	rep := readReport(t, reportDir, out)
	for _, tc := range rep.Tests {
		if tc.Result == report.Skipped && !framework.IsNotApplicable(tc.SkipReason) && tc.SkipKind != report.Deselected {
			t.Errorf("%s skipped as missing on a cluster skewcheck does not own: %s", tc.ID, tc.SkipReason)
		}
	}
	for _, id := range []string{"MVP-010", "MVP-044"} { // identity, as the run's ServiceAccount
		if r := resultOf(rep, id); r != report.Passed {
			t.Errorf("%s: %s, want passed as the run's ServiceAccount", id, r)
		}
	}
	expectNothingOfARunLeft(t, rec)

	// The same from inside the cluster: skewcheck's image, loaded into the nodes, as a Job.
	rt := requireDocker(t)
	image := testImageTag(t, "skewcheck")
	removeImageWhenDone(t, rt, image)
	if out, code := run(t, state, "images", "skewcheck", "--binary", staticCLI(t), "--tag", image); code != 0 {
		t.Fatalf("building skewcheck's image: exit %d\n%s", code, out)
	}
	if err := kind.LoadImage(context.Background(), rt, name, image); err != nil {
		t.Fatal(err)
	}
	inside := t.TempDir()
	certify := append([]string{"certify", "--image", image, "--host-network", "--profiles", "mvp,discovery", "--report-dir", inside,
		"--audit-log-dir", kind.NodeAuditDir, "--conformance-flag=--upstream"}, lb...)
	for i, s := range rec.Servers {
		certify = append(certify, "--conformance-flag=--audit-logs="+s.Hostname+"="+kind.NodeAuditLog(i))
	}
	out, code = run(t, state, certify...)
	t.Logf("certify, inside the cluster:\n%s", out)
	if code != 0 {
		t.Errorf("certify: exit %d, want 0 as from outside", code)
	}
	in := readReport(t, inside, out)
	for _, tc := range rep.Tests {
		if got := resultOf(in, tc.ID); got != tc.Result {
			t.Errorf("%s: %s from inside the cluster, %s from outside", tc.ID, got, tc.Result)
		}
	}
	for _, f := range []string{"junit_01.xml", "e2e.log"} {
		if _, err := os.Stat(filepath.Join(inside, f)); err != nil {
			t.Errorf("hydrophone's %s is not among the results copied out: %v", f, err)
		}
	}
	expectNothingOfARunLeft(t, rec)
}

func resultOf(rep report.Conformance, id string) report.Result {
	for _, tc := range rep.Tests {
		if tc.ID == id {
			return tc.Result
		}
	}
	return "absent"
}

// loadBalancerAdmin is the cluster's admin through its load balancer.
func loadBalancerAdmin(t *testing.T, rec registry.Record) *rest.Config {
	t.Helper()
	cfg, err := framework.RestConfig(rec.Kubeconfig, rec.LoadBalancer.Admin)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// powerlessKubeconfig is a kubeconfig for the cluster's load balancer as a ServiceAccount
// RBAC grants nothing, in a namespace of the test's own, removed when the test ends.
func powerlessKubeconfig(t *testing.T, rec registry.Record) string {
	t.Helper()
	cfg := loadBalancerAdmin(t, rec)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "skewcheck-test-powerless-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{}) })
	if _, err := cs.CoreV1().ServiceAccounts(ns.Name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "powerless"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns.Name).CreateToken(ctx, "powerless", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos["powerless"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	kc.Contexts["powerless"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "powerless"}
	kc.CurrentContext = "powerless"
	path := filepath.Join(t.TempDir(), "powerless.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// expectNothingOfARunLeft fails when a namespace of a run, or a cluster-scoped object
// labelled with one, is still in the cluster (a namespace being deleted does not count).
func expectNothingOfARunLeft(t *testing.T, rec registry.Record) {
	t.Helper()
	cfg := loadBalancerAdmin(t, rec)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cfg)
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: framework.RunLabel})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		if ns.DeletionTimestamp == nil {
			t.Errorf("namespace %s of a run is left", ns.Name)
		}
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	for _, r := range []schema.GroupVersionResource{
		{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
	} {
		l, err := dyn.Resource(r).List(ctx, metav1.ListOptions{LabelSelector: framework.RunLabel})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			if o.GetDeletionTimestamp() == nil {
				t.Errorf("%s %s of a run is left", r.Resource, o.GetName())
			}
		}
	}
}
