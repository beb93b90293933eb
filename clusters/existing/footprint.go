package existing

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// A run on a cluster someone depends on keeps to what it can name and remove: one
// namespace of its own, a ServiceAccount there as the powerless user (RBAC grants it
// nothing; its token comes from the TokenRequest API, so no user context is needed), and
// the cluster-scoped objects its tests make, each labelled with the run's name
// (framework.RunLabel). Footprint.Remove deletes all of it, on success, failure and
// interrupt alike.

// userAccount is the ServiceAccount that plays the unprivileged user.
const userAccount = "skewcheck-unprivileged"

// tokenLifetime is how long the user's token lasts: longer than any run.
const tokenLifetime = 2 * time.Hour

// labelledClusterScoped are the cluster-scoped resources a test may make, removed by the
// run's label.
var labelledClusterScoped = []schema.GroupVersionResource{
	{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
	{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"},
}

// Footprint is what one run makes in a cluster it does not own.
type Footprint struct {
	// Run names the run: its namespace is "skewcheck-" + Run, its objects carry it.
	Run string
}

// NewFootprint names a run after the time it starts, unique enough for the runs of one
// cluster and readable in `kubectl get ns`.
func NewFootprint(now time.Time) Footprint {
	return Footprint{Run: now.UTC().Format("20060102-150405")}
}

// Namespace is the run's own namespace.
func (f Footprint) Namespace() string { return "skewcheck-" + f.Run }

// Plan lists, for --dry-run and the report, everything the run makes and the rights it
// needs to make it, in the words of kubectl.
func (f Footprint) Plan() []string {
	sel := framework.RunLabel + "=" + f.Run
	return []string{
		"namespace " + f.Namespace() + " (label " + sel + "), where every namespaced object of the tests is made",
		"serviceaccount " + f.Namespace() + "/" + userAccount + ", the unprivileged user (RBAC grants it nothing; its token from the TokenRequest API)",
		"clusterroles and clusterrolebindings labelled " + sel + " (the identity tests grant that user read access to one resource)",
		"customresourcedefinitions labelled " + sel + " (the custom resource and discovery tests)",
		"removed at the end, on failure and on interrupt: the namespace, then everything labelled " + sel,
		"it reads: endpointslices in default, leases in kube-system (identity leases, read only), /version and discovery of each apiserver",
		"it never writes to kube-system, stops a server, faults the network or touches a registration: those tests skip here, naming the capability",
	}
}

// Make creates the namespace and the unprivileged ServiceAccount, and returns a client
// configuration for that account (base without its credentials, with the account's token)
// and its user name.
func (f Footprint) Make(ctx context.Context, admin *rest.Config) (*rest.Config, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	if err := f.makeNamespace(ctx, cs); err != nil {
		return nil, err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: userAccount, Labels: map[string]string{framework.RunLabel: f.Run}}}
	if _, err := cs.CoreV1().ServiceAccounts(f.Namespace()).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return nil, f.wordForbidden(err, "create serviceaccount "+userAccount+" in "+f.Namespace())
	}
	seconds := int64(tokenLifetime.Seconds())
	tr, err := cs.CoreV1().ServiceAccounts(f.Namespace()).CreateToken(ctx, userAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return nil, f.wordForbidden(err, "create serviceaccounts/token for "+userAccount)
	}
	user := rest.AnonymousClientConfig(admin)
	user.BearerToken = tr.Status.Token
	return user, nil
}

// MakeNamespace creates the run's namespace alone: for endpoints named by hand
// (--contexts), whose users the caller brings, the tests need only a place of their own.
func (f Footprint) MakeNamespace(ctx context.Context, admin *rest.Config) error {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	return f.makeNamespace(ctx, cs)
}

func (f Footprint) makeNamespace(ctx context.Context, cs kubernetes.Interface) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.Namespace(), Labels: map[string]string{framework.RunLabel: f.Run}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return f.wordForbidden(err, "create namespace "+f.Namespace())
	}
	return nil
}

func (f Footprint) wordForbidden(err error, what string) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("the kubeconfig's user may not %s (%w): a run needs the rights `skewcheck conformance --dry-run` lists", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// removeTimeout bounds Remove: a cluster that stopped answering must not hold the exit.
const removeTimeout = time.Minute

// Remove deletes the namespace and every cluster-scoped object labelled with the run, and
// says what it could not delete and how to delete it by hand. It runs with a deadline of
// its own, never the run's context: it runs on every exit, an interrupted one included,
// when the run's context is already cancelled. It does not wait for the namespace to
// finish terminating.
func (f Footprint) Remove(admin *rest.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	if err := f.remove(ctx, admin); err != nil {
		return fmt.Errorf("%w (remove it with kubectl delete ns %s and kubectl delete crd,clusterrole,clusterrolebinding -l %s=%s)",
			err, f.Namespace(), framework.RunLabel, f.Run)
	}
	return nil
}

func (f Footprint) remove(ctx context.Context, admin *rest.Config) error {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(admin)
	if err != nil {
		return err
	}
	var errs []error
	if err := cs.CoreV1().Namespaces().Delete(ctx, f.Namespace(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("deleting namespace %s: %w", f.Namespace(), err))
	}
	sel := metav1.ListOptions{LabelSelector: framework.RunLabel + "=" + f.Run}
	for _, r := range labelledClusterScoped {
		if err := dyn.Resource(r).DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s labelled %s: %w", r.Resource, sel.LabelSelector, err))
		}
	}
	return errors.Join(errs...)
}

// String is the run as a report names it.
func (f Footprint) String() string {
	return fmt.Sprintf("run %s (namespace %s, objects labelled %s)", f.Run, f.Namespace(), framework.RunLabel+"="+f.Run)
}
