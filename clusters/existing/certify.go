package existing

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// Certify is a run of skewcheck's image inside the cluster under test, as a Job, the way
// hydrophone runs the conformance image: a namespace of its own, a ServiceAccount bound to
// a ClusterRole made for the run, and a Job whose one pod runs `skewcheck in-cluster`
// (which makes and removes a footprint of its own, Footprint). Remove deletes all of it.
type Certify struct {
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

// certifyName is the name of the run's ServiceAccount, ClusterRole(Binding) and Job, and of
// its namespace (its Run starts with "certify-", so no in-cluster run's namespace is it).
func (c Certify) certifyName() string { return "skewcheck-" + c.Run }

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

// Make creates the namespace, ServiceAccount, ClusterRole, binding and Job.
func (c Certify) Make(ctx context.Context, admin *rest.Config) error {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	labels := map[string]string{framework.RunLabel: c.Run}
	meta := func(ns string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: c.certifyName(), Namespace: ns, Labels: labels}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.Namespace(), Labels: labels}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
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
	if _, err := cs.BatchV1().Jobs(c.Namespace()).Create(ctx, c.job(meta(c.Namespace())), metav1.CreateOptions{}); err != nil {
		return c.wordForbidden(err, "create the Job")
	}
	return nil
}

func (c Certify) job(meta metav1.ObjectMeta) *batchv1.Job {
	var env []corev1.EnvVar
	for k, v := range c.Env {
		env = append(env, corev1.EnvVar{Name: k, Value: v})
	}
	if c.HostNetwork {
		// No Service proxy to reach the kubernetes Service by: the apiserver on the node.
		env = append(env, corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}},
			corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: "6443"})
	}
	mounts := []corev1.VolumeMount{{Name: "results", MountPath: "/tmp"}}
	volumes := []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if c.AuditLogDir != "" {
		mounts = append(mounts, corev1.VolumeMount{Name: "audit", MountPath: c.AuditLogDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: "audit", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: c.AuditLogDir}}})
	}
	var noRetry int32
	return &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{BackoffLimit: &noRetry,
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels}, Spec: corev1.PodSpec{
			ServiceAccountName: meta.Name, RestartPolicy: corev1.RestartPolicyNever, HostNetwork: c.HostNetwork,
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, // as hydrophone's: any node will do
			Containers: []corev1.Container{{Name: "skewcheck", Image: c.Image, ImagePullPolicy: corev1.PullIfNotPresent,
				Env: env, VolumeMounts: mounts, Resources: c.resources()}},
			Volumes: volumes,
		}}}}
}

// resources are the run's: a little CPU asked for (the run mostly waits on the servers),
// its memory bounded by MemoryLimit (a run of mvp and discovery peaks well under 256 MiB:
// docs/measurements.md).
func (c Certify) resources() corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}
	if !c.MemoryLimit.IsZero() {
		r.Limits = corev1.ResourceList{corev1.ResourceMemory: c.MemoryLimit}
	}
	return r
}

// logBound bounds the wait for a started pod's log to be readable.
const logBound = 90 * time.Second

// ErrNoPod is a Job whose pod never started within the bound.
var ErrNoPod = errors.New("the Job's pod did not start")

// Follow waits for the Job's pod to run, copies its log to out as it comes, and returns
// the whole log and the container's exit code once it has ended. A followed log is relayed
// by an apiserver, and during an upgrade that apiserver may go away mid-stream: the stream
// is opened again (skipping what was shown) for as long as the container runs, and the
// log returned is read whole once it has ended.
func (c Certify) Follow(ctx context.Context, admin *rest.Config, out io.Writer, startBound time.Duration) ([]byte, int, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, 0, err
	}
	pods := cs.CoreV1().Pods(c.Namespace())
	sel := metav1.ListOptions{LabelSelector: "job-name=" + c.certifyName()}
	var pod corev1.Pod
	for deadline := time.Now().Add(startBound); ; {
		l, err := pods.List(ctx, sel)
		if err == nil && len(l.Items) > 0 && l.Items[0].Status.Phase != corev1.PodPending {
			pod = l.Items[0]
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			why := "no pod"
			if err == nil && len(l.Items) > 0 {
				why = podWaiting(l.Items[0])
			}
			return nil, 0, fmt.Errorf("%w within %s (%s): is the image %s on the nodes, or pullable by them?", ErrNoPod, startBound, why, c.Image)
		}
		time.Sleep(time.Second)
	}
	shown := 0
	var results resultsFilter
	show := func(i int, line string) { // the i-th line of the log, once
		if i < shown {
			return
		}
		shown = i + 1
		if results.shown(line) {
			fmt.Fprintln(out, line)
		}
	}
	// The log comes from the node's kubelet, which authorizes the apiserver's request with a
	// SubjectAccessReview and caches a denial for 30 s by default: on a cluster just made
	// (kubeadm's grant to the apiserver's kubelet client not yet seen) the first ask can be
	// refused. Failed asks are retried for up to logBound in a row.
	failing := time.Time{}
	for {
		log, err := followLog(ctx, pods, pod.Name, show)
		if ended, code, why := containerEnded(ctx, pods, pod.Name); ended {
			full, ferr := pods.GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
			if ferr != nil {
				full = log // the followed log, whole if the last stream lasted to the end
			}
			for i, line := range strings.Split(strings.TrimSuffix(string(full), "\n"), "\n") {
				show(i, line)
			}
			if why != "" {
				fmt.Fprintf(out, "the pod's container ended: %s\n", why)
			}
			return full, code, nil
		}
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if err == nil {
			failing = time.Time{}
			continue // the relaying apiserver went away: follow again
		}
		if failing.IsZero() {
			failing = time.Now()
		}
		if time.Since(failing) > logBound {
			return nil, 0, fmt.Errorf("following the log of pod %s (asked for %s): %w (read it with kubectl logs -n %s %s)", pod.Name, logBound, err, c.Namespace(), pod.Name)
		}
		fmt.Fprintf(out, "the log of pod %s is not readable yet (%v): asking again\n", pod.Name, err)
		time.Sleep(5 * time.Second)
	}
}

// followLog follows the pod's log from its start until the stream ends, handing show each
// line with its index, and returns it.
func followLog(ctx context.Context, pods typedcorev1.PodInterface, name string, show func(int, string)) ([]byte, error) {
	stream, err := pods.GetLogs(name, &corev1.PodLogOptions{Follow: true}).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	var log bytes.Buffer
	sc := bufio.NewScanner(stream)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; sc.Scan(); i++ {
		log.Write(sc.Bytes())
		log.WriteByte('\n')
		show(i, sc.Text())
	}
	return log.Bytes(), nil
}

// containerEnded says whether the pod's container has ended, its exit code, and what ended
// it when that is not its own exit (OOMKilled, Error with a message); the pod cannot be
// read counts as running.
func containerEnded(ctx context.Context, pods typedcorev1.PodInterface, name string) (bool, int, string) {
	// The stream ends as the container does; its status follows within the kubelet's sync.
	for range 10 {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, st := range p.Status.ContainerStatuses {
				if t := st.State.Terminated; t != nil {
					why := ""
					if t.Reason != "" && t.Reason != "Completed" && !(t.Reason == "Error" && t.Message == "") {
						why = fmt.Sprintf("exit code %d, %s %s", t.ExitCode, t.Reason, t.Message)
					}
					return true, int(t.ExitCode), strings.TrimSpace(why)
				}
			}
		}
		if ctx.Err() != nil {
			return false, 0, ""
		}
		time.Sleep(time.Second)
	}
	return false, 0, ""
}

func podWaiting(p corev1.Pod) string {
	for _, st := range p.Status.ContainerStatuses {
		if w := st.State.Waiting; w != nil {
			return w.Reason + ": " + w.Message
		}
	}
	for _, cond := range p.Status.Conditions {
		if cond.Status != corev1.ConditionTrue && cond.Message != "" {
			return cond.Message
		}
	}
	return string(p.Status.Phase)
}

// Remove deletes the run's namespace (its Job and pod with it), ClusterRole and binding.
func (c Certify) Remove(ctx context.Context, admin *rest.Config) error {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	var errs []error
	bg := metav1.DeletePropagationBackground
	// The binding first: the account loses its rights before anything else goes.
	for _, d := range []struct {
		what string
		del  func() error
	}{
		{"clusterrolebinding " + c.certifyName(), func() error {
			return cs.RbacV1().ClusterRoleBindings().Delete(ctx, c.certifyName(), metav1.DeleteOptions{})
		}},
		{"clusterrole " + c.certifyName(), func() error {
			return cs.RbacV1().ClusterRoles().Delete(ctx, c.certifyName(), metav1.DeleteOptions{})
		}},
		{"namespace " + c.Namespace(), func() error {
			return cs.CoreV1().Namespaces().Delete(ctx, c.Namespace(), metav1.DeleteOptions{PropagationPolicy: &bg})
		}},
	} {
		if err := d.del(); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s: %w", d.what, err))
		}
	}
	return errors.Join(errs...)
}
