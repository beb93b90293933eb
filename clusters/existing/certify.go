package existing

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Certify is a run of skewcheck's image inside the cluster under test, as a Job, the way
// hydrophone runs the conformance image: a namespace of its own, a ServiceAccount bound to
// a ClusterRole made for the run, and a Job whose one pod runs `skewcheck in-cluster`,
// which makes and removes a footprint of its own (InnerRun). Remove stops that pod and lets it
// clean up before anything of certify's goes (certifyremove.go). Make it with NewCertify.
type Certify struct {
	// Footprint names certify's own run (its namespace and objects carry Run), and records
	// what Make creates, by the UID the server gave each: all that Remove deletes of
	// certify's own, so an object someone else already had is never deleted.
	Footprint
	// Image is skewcheck's image, already on the nodes or pullable by them.
	Image string
	// Env is the in-cluster run's environment (SKEWCHECK_PROFILES, E2E_FOCUS, ...).
	Env map[string]string
	// HostNetwork runs the pod on its node's network, reaching the apiserver on its node
	// (status.hostIP) instead of the kubernetes Service: for a cluster with no pod network
	// or no Service proxy (kind without a CNI, as skewcheck makes it).
	HostNetwork bool
	// AuditLogDir, when set, is a directory of the nodes holding the apiservers' audit logs,
	// mounted read-only at the same path, for --audit-logs in the run's arguments.
	AuditLogDir string
	// MemoryLimit bounds the pod's memory (zero: no limit).
	MemoryLimit resource.Quantity
}

// NewCertify is a certify run starting now: its ID is "certify-" and a RunID, so its
// namespace is no in-cluster run's.
func NewCertify(now time.Time) *Certify {
	return &Certify{Footprint: Footprint{Run: "certify-" + RunID(now), Recorder: &Recorder{}}}
}

// RunEnv hands `skewcheck in-cluster` the ID its run takes (Footprint.Run): certify names
// the run inside, so that it can sweep what that run leaves and nothing else.
const RunEnv = "SKEWCHECK_RUN"

// InnerRun is the ID of the run inside the pod (its namespace is skewcheck-<ID>):
// certify's own with "-in", so no other run has it, and certify's own label never selects it.
func (c *Certify) InnerRun() string { return c.Run + "-in" }

// certifyName is the name of the run's ServiceAccount, ClusterRole(Binding), budget and
// Job, and of its namespace.
func (c *Certify) certifyName() string { return c.Namespace() }

// certifyRules are the ClusterRole's: a run writes fixtures of whichever GVR its cluster's skew
// leaves to one server, reads every GVR's discovery through each apiserver, makes a
// namespace, a ServiceAccount and its token, and grants that account read access to one
// resource (bind and escalate: a role it holds itself). Impersonation is asked only to see
// it refused for the powerless account; the run's own account needs it for the tests that
// send Impersonate-* headers as the admin.
func certifyRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles", "clusterrolebindings"}, Verbs: []string{"bind", "escalate"}},
		{APIGroups: []string{""}, Resources: []string{"users", "groups", "serviceaccounts"}, Verbs: []string{"impersonate"}},
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"userextras/*", "uids"}, Verbs: []string{"impersonate"}},
		{NonResourceURLs: []string{"*"}, Verbs: []string{"get"}},
	}
}

// Make creates the namespace, ServiceAccount, ClusterRole, binding, disruption budget and
// Job, recording each as the server answers it; what it made before an error is removed by
// Remove like the rest.
func (c *Certify) Make(ctx context.Context, admin *rest.Config) error {
	cs, err := kubernetes.NewForConfig(c.Recorder.Wrap(admin))
	if err != nil {
		return err
	}
	meta := c.meta
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.Namespace(), Labels: c.namespaceLabels()}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s is already there, so it is not this run's and certify leaves it (and makes nothing): run certify again, under a new run ID", c.Namespace())
	} else if err != nil {
		return c.wordForbidden(err, "create namespace "+c.Namespace())
	}
	if _, err := cs.CoreV1().ServiceAccounts(c.Namespace()).Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta(c.Namespace())}, metav1.CreateOptions{}); err != nil {
		return c.wordForbidden(err, "create its ServiceAccount")
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta(""), Rules: certifyRules()}, metav1.CreateOptions{}); err != nil {
		return c.wordForbidden(err, "create the run's ClusterRole")
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: meta(""),
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: c.certifyName()},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c.certifyName(), Namespace: c.Namespace()}}}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return c.wordForbidden(err, "bind the run's ClusterRole")
	}
	if _, err := cs.PolicyV1().PodDisruptionBudgets(c.Namespace()).Create(ctx, c.disruptionBudget(), metav1.CreateOptions{}); err != nil {
		return c.wordForbidden(err, "create the pod's PodDisruptionBudget")
	}
	if _, err := cs.BatchV1().Jobs(c.Namespace()).Create(ctx, c.job(), metav1.CreateOptions{}); err != nil {
		return c.wordForbidden(err, "create the Job")
	}
	return nil
}

// Made is what Make created, in creation order.
func (c *Certify) Made() []Made { return c.Recorder.Made() }

// madeNamespace says whether Make created certify's namespace: only then is the Job there
// this run's, to stop.
func (c *Certify) madeNamespace() bool {
	for _, m := range c.Recorder.Made() {
		if m.GVR == namespaces && m.Name == c.Namespace() {
			return true
		}
	}
	return false
}

// meta is the metadata of one of certify's objects in ns ("" for a cluster-scoped one).
func (c *Certify) meta(ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: c.certifyName(), Namespace: ns, Labels: c.runLabels()}
}
