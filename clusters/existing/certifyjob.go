package existing

import (
	"maps"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/skewcheck/skewcheck/framework"
)

// The pod is shaped as hydrophone runs the conformance image, so that it passes Pod
// Security's restricted level: uid and gid 65534, no privilege escalation, no capability,
// the runtime's seccomp profile, a read-only root, and only emptyDirs to write to.

const (
	// nobody is the uid and gid the pod runs as: no file of the image or the node is its.
	nobody = 65534
	// resultsDir is where `skewcheck in-cluster` writes its results (hydrophone's directory).
	resultsDir = "/tmp/results"
	// scratchDir is the run's HOME and TMPDIR: whatever it writes for itself stays out of
	// resultsDir, which hydrophone and sonobuoy copy out whole and the run packs into its log.
	scratchDir = "/tmp/skewcheck"
	// podGrace is the pod's terminationGracePeriodSeconds: on SIGTERM the run inside removes
	// its footprint, which Footprint.Remove bounds by removeTimeout, and writes its last lines.
	podGrace = removeTimeout + 30*time.Second
	// enforceLabel is the namespace label of the Pod Security level admission enforces.
	enforceLabel = "pod-security.kubernetes.io/enforce"
)

// runLabels are on every object of certify's and on the pod: its run, certify's own ID.
func (c *Certify) runLabels() map[string]string { return map[string]string{framework.RunLabel: c.Run} }

// podSelector selects the Job's pod in certify's namespace.
func (c *Certify) podSelector() string { return labels.SelectorFromSet(c.runLabels()).String() }

// Unrestricted says why the pod cannot meet Pod Security's restricted level, or "" when it
// does. Its node's network and a directory of its node (a hostPath) are outside baseline
// too, so no level admits such a pod: its namespace is left unlabelled, and a cluster whose
// default level refuses it is told from the Job's events (Follow).
func (c *Certify) Unrestricted() string {
	var why []string
	if c.HostNetwork {
		why = append(why, "it runs on its node's network (hostNetwork)")
	}
	if c.AuditLogDir != "" {
		why = append(why, "it mounts "+c.AuditLogDir+" of its node (hostPath) and reads the audit logs there as root")
	}
	return strings.Join(why, " and ")
}

// namespaceLabels are the namespace's: its run, and the restricted level enforced when the
// pod can meet it, so that the cluster checks the pod's shape, not certify alone.
func (c *Certify) namespaceLabels() map[string]string {
	l := c.runLabels()
	if c.Unrestricted() == "" {
		l[enforceLabel] = "restricted"
	}
	return l
}

// job is the Job whose one pod runs the run inside (certifyjob.go), never retried: a run
// that failed is a result.
func (c *Certify) job() *batchv1.Job {
	var noRetry int32
	return &batchv1.Job{ObjectMeta: c.meta(c.Namespace()), Spec: batchv1.JobSpec{BackoffLimit: &noRetry,
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: c.runLabels()}, Spec: c.podSpec()}}}
}

func (c *Certify) podSpec() corev1.PodSpec {
	mounts := []corev1.VolumeMount{{Name: "results", MountPath: resultsDir}, {Name: "scratch", MountPath: scratchDir}}
	volumes := []corev1.Volume{
		{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	if c.AuditLogDir != "" {
		mounts = append(mounts, corev1.VolumeMount{Name: "audit", MountPath: c.AuditLogDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: "audit", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: c.AuditLogDir}}})
	}
	grace := int64(podGrace.Seconds())
	no, yes := false, true
	return corev1.PodSpec{
		ServiceAccountName: c.certifyName(), RestartPolicy: corev1.RestartPolicyNever, HostNetwork: c.HostNetwork,
		TerminationGracePeriodSeconds: &grace, SecurityContext: c.podSecurity(),
		Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, // as hydrophone's: any node will do
		Containers: []corev1.Container{{Name: "skewcheck", Image: c.Image, ImagePullPolicy: corev1.PullIfNotPresent,
			Env: c.env(), VolumeMounts: mounts, Resources: c.resources(),
			SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
		Volumes: volumes,
	}
}

// podSecurity runs the pod as nobody, or, to read audit logs, as root: the apiservers
// write them 0600 as root (lumberjack's mode). Root with no capability reads only what root
// owns; the hostPath already puts such a pod outside every level but privileged.
func (c *Certify) podSecurity() *corev1.PodSecurityContext {
	seccomp := &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	if c.AuditLogDir != "" {
		var root int64
		return &corev1.PodSecurityContext{RunAsUser: &root, RunAsGroup: &root, SeccompProfile: seccomp}
	}
	id, yes := int64(nobody), true
	return &corev1.PodSecurityContext{RunAsUser: &id, RunAsGroup: &id, FSGroup: &id, RunAsNonRoot: &yes, SeccompProfile: seccomp}
}

// env is the run's environment (skewcheck in-cluster's contract), in a stable order, with
// the run's ID and its scratch directory over whatever Env says of them.
func (c *Certify) env() []corev1.EnvVar {
	vars := maps.Clone(c.Env)
	if vars == nil {
		vars = map[string]string{}
	}
	vars[RunEnv] = c.InnerRun()
	vars["HOME"], vars["TMPDIR"] = scratchDir, scratchDir
	var env []corev1.EnvVar
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, corev1.EnvVar{Name: k, Value: vars[k]})
	}
	if c.HostNetwork {
		// No Service proxy to reach the kubernetes Service by: the apiserver on the node.
		env = append(env, corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}},
			corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: "6443"})
	}
	return env
}

// resources are the run's: a little CPU asked for (the run mostly waits on the servers),
// its memory bounded by MemoryLimit (a run of mvp and discovery peaks well under 256 MiB:
// docs/measurements.md).
func (c *Certify) resources() corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}
	if !c.MemoryLimit.IsZero() {
		r.Limits = corev1.ResourceList{corev1.ResourceMemory: c.MemoryLimit}
	}
	return r
}

// disruptionBudget lets no eviction take the pod: a drain (an upgrade's, which certify
// --observe watches) waits for the run to end instead of cutting it short.
func (c *Certify) disruptionBudget() *policyv1.PodDisruptionBudget {
	none := intstr.FromInt32(0)
	return &policyv1.PodDisruptionBudget{ObjectMeta: c.meta(c.Namespace()), Spec: policyv1.PodDisruptionBudgetSpec{
		MaxUnavailable: &none, Selector: &metav1.LabelSelector{MatchLabels: c.runLabels()}}}
}
