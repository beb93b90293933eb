package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// TestKindClusterAsItRuns: a cluster skewcheck did not make, reached through one kubeconfig
// context that names its load balancer (a named kind cluster of two skewed nodes, used only
// through that context, as a user's real cluster would be). conformance --kubeconfig with
// no --contexts finds both apiservers itself, makes its own namespace and powerless
// ServiceAccount, runs mvp and discovery against upstream with the audit logs given, and
// exits 0: every test passes or does not apply (no node control, no faults, no
// registrations on a cluster skewcheck does not own), and the identity tests ran as the
// ServiceAccount. --dry-run makes nothing. certify runs the same inside, as a Job, and a
// run through one context per apiserver, with the same verdicts (make test compares the
// tests of reachFocus, make soak every test); certify --observe watches the kind
// provider's rolling upgrade from inside
// (watchAnUpgradeFromInside); once both servers run one version with one set of flags, a
// run says there is no skew and exits 2. After each run no namespace, CRD, ClusterRole or
// ClusterRoleBinding of it is left. Two runs from outside and a certify started in the same
// second all pass and leave nothing, and so does a certify interrupted mid-test and again
// during its clean-up (runsInTheSameSecond, certifyInterrupted: every namespace, CRD,
// ClusterRole(Binding) and APIService made since is listed, not only the labelled ones).
func TestKindClusterAsItRuns(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	requireKind(t)
	state := t.TempDir()
	oldV, newV := integration.Versions()
	// Made through the provider, not `cluster create`: the rolling upgrade below is the
	// kind provider's own, on the cluster's Members.
	// Named as a run's own (kind.RunPrefix and this pid): should this test be killed before
	// its cleanup, the next kind cluster made on this machine deletes it. No suffix: the
	// load balancer's hostname, skewcheck-kind-<name>-external-load-balancer, must stay
	// within DNS's 63 characters.
	name := fmt.Sprintf("%s%d", kind.RunPrefix, os.Getpid())
	// With a pod network, as every real cluster has: certify's pod runs off its node's
	// network, under Pod Security's restricted level, and so does hydrophone's.
	spec := clusters.Spec{Name: name, Dir: t.TempDir(), Progress: logWriter{t}, Servers: clusters.SpecsFor([]string{oldV, newV}), PodNetwork: true}
	spec.Servers[0].ExtraFlags = []string{"--runtime-config=batch/v1=false"}
	spec.Servers[1].ExtraFlags = []string{"--runtime-config=autoscaling/v2=false"}
	c, err := clusters.New(context.Background(), "kind", spec)
	if err != nil {
		t.Fatalf("creating the kind cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Delete(); err != nil {
			t.Errorf("deleting the kind cluster %s: %v", name, err)
		}
	})
	rec := c.(registry.Recorded).Record()
	if rec.LoadBalancer == nil {
		t.Fatalf("the kind cluster's record has no load balancer: %+v", rec)
	}
	lb := []string{"--kubeconfig", rec.Kubeconfig, "--context", rec.LoadBalancer.Admin}

	out, code := run(t, state, append([]string{"conformance", "--dry-run"}, lb...)...)
	if code != 0 || !strings.Contains(out, "found 2 apiservers") || !strings.Contains(out, "would, as the kubeconfig's user:") ||
		!strings.Contains(out, "customresourcedefinitions.apiextensions.k8s.io, cluster-scoped, labelled") {
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
	from := time.Now()
	out, code, rss := runMeasured(t, state, args...)
	expectWritesPlanned(t, rec, state, append([]string{"--upstream", "--profiles", "mvp,discovery"}, lb...), from, time.Now())
	t.Logf("conformance through the load balancer alone (peak memory %d MiB):\n%s", rss>>20, out)
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
	// Before any test, the proxy's state, read as on a cluster the user owns: active at
	// both servers, as skewcheck's kind provider starts them.
	expectProxyActive(t, rep, out)

	// The same from inside the cluster: skewcheck's image, loaded into the nodes, as a Job.
	rt := requireDocker(t)
	image := testImageTag(t, "skewcheck")
	removeImageWhenDone(t, rt, image)
	bin := inClusterCLI(t)
	if st, err := os.Stat(bin); err == nil {
		t.Logf("the in-cluster binary, the image's one file: %.1f MB", float64(st.Size())/1e6)
	}
	if out, code := run(t, state, "images", "skewcheck", "--binary", bin, "--tag", image); code != 0 {
		t.Fatalf("building skewcheck's image: exit %d\n%s", code, out)
	}
	if err := kind.LoadImage(context.Background(), rt, name, image); err != nil {
		t.Fatal(err)
	}
	hydrophoneRuns(t, rt, rec, name, image)
	runsInTheSameSecond(t, rec, state, image, lb)
	certifyInterrupted(t, rec, state, image, lb)
	inside := t.TempDir()
	certify := append([]string{"certify", "--image", image, "--profiles", "mvp,discovery", "--report-dir", inside,
		"--audit-log-dir", kind.NodeAuditDir, "--conformance-flag=--upstream"}, lb...)
	if focus := makeTestFocus(reachFocus); focus != "" {
		certify = append(certify, "--conformance-flag=--focus="+focus)
	}
	for i, s := range rec.Servers {
		certify = append(certify, "--conformance-flag=--audit-logs="+s.Hostname+"="+kind.NodeAuditLog(i))
	}
	out, code = run(t, state, certify...)
	t.Logf("certify, inside the cluster:\n%s", out)
	if code != 0 {
		t.Errorf("certify: exit %d, want 0 as from outside", code)
	}
	in := readReport(t, inside, out)
	// From inside, each apiserver's peer-advertise address is dialled as a peer dials it
	// (the cluster CA, kubernetes.default.svc): kind's kubeadm certificates pass.
	if in.ProxyState == nil || len(in.ProxyState.Servers) != 2 {
		t.Errorf("certify's report has no proxy state of both apiservers: %+v", in.ProxyState)
	} else {
		for _, s := range in.ProxyState.Servers {
			if tls := s.PeerAddressTLS; tls == nil || tls.State != report.PeerTLSVerified {
				t.Errorf("%s: the peer address %s, dialled from inside: %+v, want verified", s.Name, s.PeerAdvertiseAddress, tls)
			}
		}
	}

	// And through one context per apiserver, as before discovery: the endpoints named by
	// hand, the identity tests as their user contexts.
	perContext := t.TempDir()
	contexts := []string{"conformance", "--upstream", "--profiles", "mvp,discovery", "--report-dir", perContext, "--kubeconfig", rec.Kubeconfig}
	contexts = withFocus(contexts, makeTestFocus(reachFocus))
	var admins, users []string
	for _, s := range rec.Servers {
		admins, users = append(admins, s.Admin), append(users, s.User)
		contexts = append(contexts, "--audit-logs", s.Admin+"="+s.AuditLog)
	}
	// Beside it, from inside, a run that fails: MVP-045 without --upstream, where these
	// kube-apiservers show its known deviation (the peer sees no user on an upgrade), which
	// only a declared upstream allows. certify returns its reports intact, and its code.
	failed := t.TempDir()
	failedRun := runBeside(t, state, append([]string{"certify", "--image", image, "--profiles", "mvp", "--focus", "MVP-045", "--report-dir", failed}, lb...)...)
	out, _ = run(t, state, append(contexts, "--contexts", strings.Join(admins, ","), "--user-contexts", strings.Join(users, ","))...)
	byContext := readReport(t, perContext, out)
	failedOut, failedCode := failedRun()
	t.Logf("certify of a run that fails:\n%s", tail(failedOut, 15))
	if failedCode != 1 {
		t.Errorf("certify of a run that fails: exit %d, want the run's 1", failedCode)
	}
	if r := resultOf(readReport(t, failed, failedOut), "MVP-045"); r != report.Failed {
		t.Errorf("certify's report of the failed run: MVP-045 %s, want failed (its known deviation, not declared upstream)", r)
	}

	// One verdict per test, whichever way the cluster was reached (in make test, per test
	// of reachFocus: the others are left out of the two later runs).
	compared := regexp.MustCompile(makeTestFocus(reachFocus))
	for _, tc := range rep.Tests {
		if !compared.MatchString(tc.ID) {
			continue
		}
		if got, ctx := resultOf(in, tc.ID), resultOf(byContext, tc.ID); got != tc.Result || ctx != tc.Result {
			t.Errorf("%s: %s through the load balancer alone, %s from inside the cluster, %s through per-apiserver contexts", tc.ID, tc.Result, got, ctx)
		}
	}
	for _, f := range []string{"junit_01.xml", "e2e.log"} {
		if _, err := os.Stat(filepath.Join(inside, f)); err != nil {
			t.Errorf("hydrophone's %s is not among the results copied out: %v", f, err)
		}
	}
	expectNothingOfARunLeft(t, rec)

	watchAnUpgradeFromInside(t, c, rec, state, image, lb)

	// Every apiserver at one version now; with the runtime-config skew taken off both, each
	// serves what the other does: nothing to route.
	uniformControlPlane(t, rec)
	// One test of proxying is enough to be missing the skew. From inside too, beside it: a
	// run that ends incomplete (exit 2) gives certify its reports intact, and its code.
	incomplete := t.TempDir()
	incompleteRun := runBeside(t, state, append([]string{"certify", "--image", image, "--profiles", "mvp", "--focus", "MVP-010",
		"--report-dir", incomplete, "--conformance-flag=--upstream"}, lb...)...)
	out, code = run(t, state, append([]string{"conformance", "--upstream", "--profiles", "mvp,discovery", "--focus", "MVP-010|DISC-001", "--report-dir", t.TempDir()}, lb...)...)
	certifyOut, certifyCode := incompleteRun()
	t.Logf("conformance on the cluster without skew:\n%s", out)
	if code != 2 || !strings.Contains(out, "found 2 apiservers") || !strings.Contains(out, "no skew: the 2 apiservers") { // 2: incomplete, the tests of proxying missing Skew
		t.Errorf("a cluster whose apiservers share one version: exit %d, want 2, both apiservers found and the line that says there is no skew", code)
	}
	t.Logf("certify on the cluster without skew:\n%s", tail(certifyOut, 15))
	if certifyCode != 2 {
		t.Errorf("certify of a run that ends incomplete: exit %d, want the run's 2", certifyCode)
	}
	if r := resultOf(readReport(t, incomplete, certifyOut), "MVP-010"); r != report.Skipped {
		t.Errorf("certify's report of the incomplete run: MVP-010 %s, want skipped (missing Skew)", r)
	}
	expectNothingOfARunLeft(t, rec)
}

// reachFocus is what make test runs from inside the cluster and through per-apiserver
// contexts, after the whole of mvp and discovery through the load balancer: the tests whose
// verdict depends on how the cluster is reached. Who the run is (MVP-010, MVP-040, MVP-044),
// where the audit logs are read (MVP-001, MVP-043, MVP-046) and discovery through each
// server (DISC-001, DISC-005). make soak compares every test.
const reachFocus = `MVP-0(01|10|40|43|44|46)|DISC-00(1|5)`

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

// watchAnUpgradeFromInside: skewcheck observe runs as a Job (certify --observe) while the
// kind provider's own rolling upgrade moves the older apiserver to the newer version from
// outside, under its own load. The watcher inside sees the one step, loses no write,
// violates nothing, and its mixed window is the upgrade's within a second at both ends.
func watchAnUpgradeFromInside(t *testing.T, c clusters.Cluster, rec registry.Record, state, image string, lb []string) {
	oldV, newV := integration.Versions()
	inside := t.TempDir()
	certify := exec.Command(cli, append([]string{"certify", "--image", image, "--host-network", "--report-dir", inside,
		"--observe", "5m", "--observe-until", newV, "--start-timeout", "2m"}, lb...)...)
	certify.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+state)
	var certifyOut bytes.Buffer
	certify.Stdout, certify.Stderr = &certifyOut, &certifyOut
	if err := certify.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- certify.Wait() }()
	waitForLogLine(t, rec, "observing 2 apiservers", ended, &certifyOut)

	outside, err := upgrade.RunOn(context.Background(), c, upgrade.Options{Path: []string{oldV, newV}, Seed: 7,
		Interval: 100 * time.Millisecond, Settle: 8 * time.Second, Window: 5 * time.Second, Progress: logWriter{t}})
	if err != nil {
		certify.Process.Signal(os.Interrupt)
		<-ended
		t.Fatalf("the kind provider's rolling upgrade: %v\ncertify --observe:\n%s", err, certifyOut.String())
	}
	err = <-ended
	t.Logf("certify --observe, inside the cluster:\n%s", certifyOut.String())
	if err != nil {
		t.Errorf("certify --observe: %v, want exit 0", err)
	}
	var watched upgrade.Result
	if b, err := os.ReadFile(filepath.Join(inside, "upgrade.json")); err != nil || json.Unmarshal(b, &watched) != nil {
		t.Fatalf("the watcher's upgrade.json was not copied out: %v", err)
	}
	if !outside.Passed() || !watched.Passed() {
		t.Errorf("violations: driven from outside %v; watched from inside %v", outside.Violations, watched.Violations)
	}
	if watched.Counts.LostWrites != 0 || watched.Counts.AckedWrites == 0 {
		t.Errorf("the watcher's writes: %d acknowledged, %d lost; want some, none lost", watched.Counts.AckedWrites, watched.Counts.LostWrites)
	}
	if len(outside.Hops) != 1 || len(watched.Hops) != 1 || len(watched.Steps) != 1 {
		t.Fatalf("hops: %d driven, %d watched (steps watched: %+v); want one each, of one step", len(outside.Hops), len(watched.Hops), watched.Steps)
	}
	if h := watched.Hops[0]; h.From != oldV || h.To != newV {
		t.Errorf("the watched hop: %s -> %s, want %s -> %s", h.From, h.To, oldV, newV)
	}
	if got, want := watched.Steps[0].Server, rec.Servers[0].Hostname; got != want {
		t.Errorf("the watched step restarted %s, want %s (the node the upgrade moved)", got, want)
	}
	at := func(r upgrade.Result, s float64) time.Time {
		return r.Started.Add(time.Duration(s * float64(time.Second)))
	}
	// The driven step starts as skewcheck edits the node's manifest, the watched one at the
	// server's last good answer before the kubelet stopped it: later by the kubelet's
	// reaction (it sees the edit, then stops the container): +0.68 s and +1.10 s in two make
	// test runs on 2026-11-28, the second failing a one-second bound for the machine's load,
	// not the watcher; never earlier than the edit by more than the watcher's poll. Both end
	// at convergence, each seen by a loop of rounds that read every server's discovery
	// through its proxy, 250 ms apart: either may see it a round later than the other, and a
	// round takes up to about a second under make test's load (the watcher's end -1.20 s
	// off, with three cluster tests at a time, on 2026-11-29). A mixed window lasts tens of
	// seconds, so a watcher that missed an end is still seconds off.
	const kubeletReaction, round = 5 * time.Second, 2500 * time.Millisecond
	for _, end := range []struct {
		what             string
		driven, observed time.Time
		early, late      time.Duration // how much earlier or later the watcher may see it
	}{
		{"start", at(*outside, outside.Hops[0].Start), at(watched, watched.Hops[0].Start), time.Second, kubeletReaction},
		{"end", at(*outside, outside.Hops[0].End), at(watched, watched.Hops[0].End), round, round},
	} {
		d := end.observed.Sub(end.driven)
		t.Logf("mixed window %s: watched %+.2fs from the driven upgrade's", end.what, d.Seconds())
		if d < -end.early || d > end.late {
			t.Errorf("mixed window %s: the watcher's is %+.2fs off the upgrade's, want from %v to %+v", end.what, d.Seconds(), -end.early, end.late)
		}
	}
	expectNothingOfARunLeft(t, rec)
}

// waitForLogLine waits until the log of a pod of a run (labelled framework.RunLabel) holds
// line, failing if the command that made it ends first.
func waitForLogLine(t *testing.T, rec registry.Record, line string, ended <-chan error, out *bytes.Buffer) {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(loadBalancerAdmin(t, rec))
	ctx := context.Background()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		select {
		case err := <-ended:
			t.Fatalf("certify ended (%v) before its pod logged %q:\n%s", err, line, out.String())
		default:
		}
		pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: framework.RunLabel})
		if err != nil || len(pods.Items) == 0 {
			continue
		}
		p := pods.Items[0]
		log, err := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err == nil && strings.Contains(string(log), line) {
			return
		}
	}
	t.Fatalf("no pod of a run logged %q within 3 minutes:\n%s", line, out.String())
}

// uniformControlPlane takes the runtime-config skew off every node's apiserver manifest
// (the kubelet restarts each) and waits until each serves both group-versions it lacked.
func uniformControlPlane(t *testing.T, rec registry.Record) {
	t.Helper()
	for _, s := range rec.Servers {
		if out, err := exec.Command("docker", "exec", s.Hostname, "sed", "-i", "/--runtime-config=/d", "/etc/kubernetes/manifests/kube-apiserver.yaml").CombinedOutput(); err != nil {
			t.Fatalf("taking --runtime-config off %s: %v: %s", s.Hostname, err, out)
		}
	}
	for _, s := range rec.Servers {
		server, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: rec.Kubeconfig},
			&clientcmd.ConfigOverrides{CurrentContext: s.Admin}).ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
			served, err := discovery.Served(context.Background(), server)
			if err == nil && served.Has("batch/v1/jobs") && served.Has("autoscaling/v2/horizontalpodautoscalers") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s does not serve batch/v1 and autoscaling/v2 three minutes after --runtime-config came off (%v)", s.Name, err)
			}
		}
	}
	// Each restarted server puts its address back in default/kubernetes as it starts.
	slices := kubernetes.NewForConfigOrDie(loadBalancerAdmin(t, rec)).DiscoveryV1().EndpointSlices(metav1.NamespaceDefault)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		l, err := slices.List(context.Background(), metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=kubernetes"})
		n := 0
		if err == nil {
			for _, s := range l.Items {
				n += len(s.Endpoints)
			}
		}
		if n == len(rec.Servers) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("default/kubernetes lists %d apiservers a minute after their restart (%v), want %d", n, err, len(rec.Servers))
		}
	}
}

// logWriter is a test's log as an io.Writer, for progress.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// runMeasured is run, with the peak resident memory of the CLI's process in bytes.
func runMeasured(t *testing.T, state string, args ...string) (string, int, int64) {
	t.Helper()
	out, ps := runCLI(t, "", state, args...)
	var rss int64
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // KiB on Linux
	}
	return out, ps.ExitCode(), rss
}

// inClusterCLI builds the CLI as skewcheck's image holds it (make skewcheck-image): static,
// with the tag incluster, stripped; once per test binary.
func inClusterCLI(t *testing.T) string {
	t.Helper()
	inCluster.Do(func() {
		inCluster.path = filepath.Join(filepath.Dir(cli), "skewcheck-incluster")
		cmd := exec.Command("go", "build", "-tags", "incluster", "-trimpath", "-ldflags=-s -w", "-o", inCluster.path, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			inCluster.err = fmt.Errorf("building the in-cluster CLI: %v\n%s", err, out)
		}
	})
	if inCluster.err != nil {
		t.Fatal(inCluster.err)
	}
	return inCluster.path
}

var inCluster struct {
	sync.Once
	path string
	err  error
}

// TestInClusterBinary: the CLI built for skewcheck's image starts, has what runs inside a
// cluster and nothing that makes one.
func TestInClusterBinary(t *testing.T) {
	t.Parallel() // its static build takes minutes on a cold Go build cache: never alone
	bin := inClusterCLI(t)
	for _, args := range [][]string{{"--help"}, {"conformance", "--help"}, {"observe", "--help"}, {"in-cluster", "--help"}} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Errorf("skewcheck %s, as the image holds it: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command(bin, "cluster", "create").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "unknown command") {
		t.Errorf("skewcheck cluster create, as the image holds it: %v, want an unknown command\n%s", err, out)
	}
}
