package clusters

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework"
)

// leaderLease is the Lease kube-controller-manager holds in kube-system while it leads
// (--leader-elect-resource-name's default): the one sign, on any cluster, that its
// controllers run now.
const leaderLease = "kube-controller-manager"

// leaseFresh is how recently the lease must have been renewed: the leader renews it every
// 2 s (--leader-elect-retry-period) and loses it after 15 s; a minute allows for clocks.
const leaseFresh = time.Minute

// ControllerManagers is a kube-controller-manager: what a run asks of a provider with
// Spec.ControllerManager (a provider that cannot run one does not declare it), and what the
// controllers profile needs of a target, one value. A target has it when a
// kube-controller-manager leads on it now, read from its leader lease, so it holds for
// every provider's controller manager (the local provider's when asked for, kubeadm's on
// kind, a real cluster's), whether or not the provider could have been asked for one.
var ControllerManagers = framework.DeclareFeature("ControllerManager", func(t *framework.Target) string {
	_, why := LeadingControllerManager(t)
	return why
}).Worded("a real kube-controller-manager")

// LeadingControllerManager is the holder of kube-system/kube-controller-manager, read
// through t's first endpoint, when a kube-controller-manager leads now; else why none does
// (holder ""). A run that needs the controllers to act throughout (the rolling upgrade's
// owners) asks it at the start and again at the end.
func LeadingControllerManager(t *framework.Target) (holder, why string) {
	if len(t.Endpoints) == 0 {
		return "", "the target has no endpoint to read kube-system/" + leaderLease + " from"
	}
	e := t.Endpoints[0]
	cs, err := kubernetes.NewForConfig(e.Admin)
	if err != nil {
		return "", fmt.Sprintf("reading kube-system/%s through %s: %v", leaderLease, e.Name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, leaderLease, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", "no kube-controller-manager runs against the target (no lease kube-system/" + leaderLease +
			"): a local cluster runs one when asked (clusters.Spec.ControllerManager)"
	case err != nil:
		return "", fmt.Sprintf("reading the lease kube-system/%s through %s: %v", leaderLease, e.Name, err)
	case l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || l.Spec.RenewTime == nil:
		return "", "no kube-controller-manager holds the lease kube-system/" + leaderLease
	case time.Since(l.Spec.RenewTime.Time) > leaseFresh:
		return "", fmt.Sprintf("kube-controller-manager %s last renewed kube-system/%s %v ago: it does not lead now",
			*l.Spec.HolderIdentity, leaderLease, time.Since(l.Spec.RenewTime.Time).Round(time.Second))
	}
	return *l.Spec.HolderIdentity, ""
}
