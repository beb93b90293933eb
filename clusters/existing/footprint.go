package existing

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// A run on a cluster someone depends on keeps to what it can name and remove: one
// namespace of its own, a ServiceAccount there as the powerless user (RBAC grants it
// nothing; its token comes from the TokenRequest API, so no user context is needed), and
// the cluster-scoped objects its tests make, each labelled with the run's name
// (framework.RunLabel, for `skewcheck cleanup` after a run that was killed). Every object
// is recorded by name and UID as the server answers its create (Recorder), and
// Footprint.Remove deletes exactly those, on success, failure and interrupt alike: never an
// object of another run, even one of the same name.

// userAccount is the ServiceAccount that plays the unprivileged user.
const userAccount = "skewcheck-unprivileged"

// tokenLifetime is how long the user's token lasts: longer than any run.
const tokenLifetime = 2 * time.Hour

// Footprint is what one run makes in a cluster it does not own.
type Footprint struct {
	// Run names the run: its namespace is "skewcheck-" + Run, its objects carry it.
	Run string
	// Recorder records what the run makes, through every config it wrapped: Make's and
	// MakeNamespace's, and the target's (Recorder.WrapTarget) before any test runs.
	Recorder *Recorder
}

// NewFootprint is a run starting now, named by RunID, recording what it makes.
func NewFootprint(now time.Time) Footprint {
	return Footprint{Run: RunID(now), Recorder: &Recorder{}}
}

// Namespace is the run's own namespace.
func (f Footprint) Namespace() string { return "skewcheck-" + f.Run }

// Make creates the namespace and the unprivileged ServiceAccount, recorded, and returns a
// client configuration for that account (admin without its credentials, with the
// account's token). That config is not recorded (rest.AnonymousClientConfig drops every
// wrapper): wrap it, or the target made with it, before creating through it.
func (f Footprint) Make(ctx context.Context, admin *rest.Config) (*rest.Config, error) {
	cs, err := kubernetes.NewForConfig(f.Recorder.Wrap(admin))
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

// MakeNamespace creates the run's namespace alone, recorded: for endpoints named by hand
// (--contexts), whose users the caller brings, the tests need only a place of their own.
func (f Footprint) MakeNamespace(ctx context.Context, admin *rest.Config) error {
	cs, err := kubernetes.NewForConfig(f.Recorder.Wrap(admin))
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

// Remove deletes what the run recorded (Recorder.Remove) and says what it left and how to
// remove that. It runs with a deadline of its own, never the run's context: it runs on
// every exit, an interrupted one included, when the run's context is already cancelled.
// It does not wait for the namespace to finish terminating.
func (f Footprint) Remove(admin *rest.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	if err := f.Recorder.Remove(ctx, admin); err != nil {
		return fmt.Errorf("run %s could not remove all it made: %w; remove what is left with `skewcheck cleanup --kubeconfig <kubeconfig> --run %s --yes` (without --yes it lists what it would delete)",
			f.Run, err, f.Run)
	}
	return nil
}

// String is the run as a report names it.
func (f Footprint) String() string {
	return fmt.Sprintf("run %s (namespace %s, objects labelled %s)", f.Run, f.Namespace(), framework.RunLabel+"="+f.Run)
}
