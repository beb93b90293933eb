package existing

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/skewcheck/skewcheck/framework"
)

// podSecurityViolations checks a pod against Pod Security's baseline and restricted levels
// as https://kubernetes.io/docs/concepts/security/pod-security-standards/ lists them (the
// latest version's rules; pod-security-admission's own checks are not a dependency here).
func podSecurityViolations(spec corev1.PodSpec) []string {
	var v []string
	add := func(format string, a ...any) { v = append(v, fmt.Sprintf(format, a...)) }
	// baseline
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		add("baseline: host namespaces (hostNetwork=%v hostPID=%v hostIPC=%v)", spec.HostNetwork, spec.HostPID, spec.HostIPC)
	}
	baselineCaps := []corev1.Capability{"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
		"SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
	safeSysctls := []string{"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
		"net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time",
		"net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}
	allowedVolumes := func(vs corev1.VolumeSource) bool {
		return vs.ConfigMap != nil || vs.CSI != nil || vs.DownwardAPI != nil || vs.EmptyDir != nil || vs.Ephemeral != nil ||
			vs.PersistentVolumeClaim != nil || vs.Projected != nil || vs.Secret != nil
	}
	for _, vol := range spec.Volumes {
		if vol.HostPath != nil {
			add("baseline: hostPath volume %q", vol.Name)
		}
		if !allowedVolumes(vol.VolumeSource) {
			add("restricted: volume %q of a restricted type", vol.Name)
		}
	}
	pod := spec.SecurityContext
	if pod == nil {
		pod = &corev1.PodSecurityContext{}
	}
	if pod.WindowsOptions != nil && pod.WindowsOptions.HostProcess != nil && *pod.WindowsOptions.HostProcess {
		add("baseline: hostProcess")
	}
	if pod.SELinuxOptions != nil && (pod.SELinuxOptions.User != "" || pod.SELinuxOptions.Role != "") {
		add("baseline: seLinuxOptions user or role")
	}
	for _, s := range pod.Sysctls {
		if !slices.Contains(safeSysctls, s.Name) {
			add("baseline: unsafe sysctl %s", s.Name)
		}
	}
	if pod.AppArmorProfile != nil && pod.AppArmorProfile.Type == corev1.AppArmorProfileTypeUnconfined {
		add("baseline: AppArmor unconfined")
	}
	seccompOK := func(p *corev1.SeccompProfile) bool {
		return p != nil && (p.Type == corev1.SeccompProfileTypeRuntimeDefault || p.Type == corev1.SeccompProfileTypeLocalhost)
	}
	if pod.SeccompProfile != nil && pod.SeccompProfile.Type == corev1.SeccompProfileTypeUnconfined {
		add("baseline: pod seccomp Unconfined")
	}
	if pod.RunAsUser != nil && *pod.RunAsUser == 0 {
		add("restricted: pod runAsUser=0")
	}
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		sc := c.SecurityContext
		if sc == nil {
			sc = &corev1.SecurityContext{}
		}
		if sc.Privileged != nil && *sc.Privileged {
			add("baseline: container %s privileged", c.Name)
		}
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				add("baseline: container %s hostPort %d", c.Name, p.HostPort)
			}
		}
		if sc.ProcMount != nil && *sc.ProcMount != corev1.DefaultProcMount {
			add("baseline: container %s procMount", c.Name)
		}
		if sc.SeccompProfile != nil && sc.SeccompProfile.Type == corev1.SeccompProfileTypeUnconfined {
			add("baseline: container %s seccomp Unconfined", c.Name)
		}
		if sc.SELinuxOptions != nil && (sc.SELinuxOptions.User != "" || sc.SELinuxOptions.Role != "") {
			add("baseline: container %s seLinuxOptions user or role", c.Name)
		}
		if sc.AppArmorProfile != nil && sc.AppArmorProfile.Type == corev1.AppArmorProfileTypeUnconfined {
			add("baseline: container %s AppArmor unconfined", c.Name)
		}
		var caps corev1.Capabilities
		if sc.Capabilities != nil {
			caps = *sc.Capabilities
		}
		for _, a := range caps.Add {
			if !slices.Contains(baselineCaps, a) {
				add("baseline: container %s adds capability %s", c.Name, a)
			}
			if a != "NET_BIND_SERVICE" {
				add("restricted: container %s adds capability %s", c.Name, a)
			}
		}
		// restricted
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			add("restricted: container %s allowPrivilegeEscalation != false", c.Name)
		}
		if !slices.Contains(caps.Drop, "ALL") {
			add("restricted: container %s does not drop ALL capabilities", c.Name)
		}
		nonRoot := (pod.RunAsNonRoot != nil && *pod.RunAsNonRoot && sc.RunAsNonRoot == nil) || (sc.RunAsNonRoot != nil && *sc.RunAsNonRoot)
		if !nonRoot {
			add("restricted: container %s runAsNonRoot != true", c.Name)
		}
		if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			add("restricted: container %s runAsUser=0", c.Name)
		}
		if !seccompOK(sc.SeccompProfile) && (sc.SeccompProfile != nil || !seccompOK(pod.SeccompProfile)) {
			add("restricted: container %s seccompProfile not RuntimeDefault or Localhost", c.Name)
		}
	}
	return v
}

// The Job's pod passes Pod Security's restricted level, with a read-only root, only its
// two emptyDirs to write to, its scratch directory as HOME and TMPDIR, the inner run's ID,
// and a grace period that covers the run inside's own clean-up; its namespace enforces
// restricted.
func TestCertifyPodIsRestricted(t *testing.T) {
	c := &Certify{Footprint: Footprint{Run: "certify-20260102-030405-abcde", Recorder: &Recorder{}}, Image: "skewcheck:test",
		Env: map[string]string{"SKEWCHECK_PROFILES": "mvp", RunEnv: "not-certify's"}}
	spec := c.job().Spec.Template.Spec
	if v := podSecurityViolations(spec); len(v) > 0 {
		t.Errorf("the pod does not meet restricted:\n%s", strings.Join(v, "\n"))
	}
	if got := c.namespaceLabels()[enforceLabel]; got != "restricted" {
		t.Errorf("namespace %s label %s=%q, want restricted", c.Namespace(), enforceLabel, got)
	}
	if why := c.Unrestricted(); why != "" {
		t.Errorf("Unrestricted() = %q, want none", why)
	}
	ctr := spec.Containers[0]
	if ro := ctr.SecurityContext.ReadOnlyRootFilesystem; ro == nil || !*ro {
		t.Error("the root filesystem is writable")
	}
	var mounts []string
	for _, m := range ctr.VolumeMounts {
		mounts = append(mounts, m.MountPath)
	}
	if want := []string{resultsDir, scratchDir}; !slices.Equal(mounts, want) {
		t.Errorf("mounts %v, want only %v", mounts, want)
	}
	env := map[string]string{}
	for _, e := range ctr.Env {
		env[e.Name] = e.Value
	}
	for k, want := range map[string]string{"HOME": scratchDir, "TMPDIR": scratchDir, RunEnv: c.InnerRun(), "SKEWCHECK_PROFILES": "mvp"} {
		if env[k] != want {
			t.Errorf("env %s=%q, want %q", k, env[k], want)
		}
	}
	if g := spec.TerminationGracePeriodSeconds; g == nil || *g < int64(removeTimeout.Seconds()) {
		t.Errorf("terminationGracePeriodSeconds %v, want at least the run inside's clean-up bound %s", g, removeTimeout)
	}
	pdb := c.disruptionBudget()
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 0 || pdb.Spec.Selector.MatchLabels[framework.RunLabel] != c.Run ||
		c.job().Spec.Template.Labels[framework.RunLabel] != c.Run {
		t.Errorf("the PodDisruptionBudget %+v does not hold the Job's pod (labels %v)", pdb.Spec, c.job().Spec.Template.Labels)
	}
}

// A pod on its node's network or with a directory of its node meets no level but
// privileged: its namespace is not labelled for one, and Unrestricted says why.
func TestCertifyPodOutsideRestricted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		c         Certify
		violation string
	}{
		{"host network", Certify{HostNetwork: true}, "hostNetwork=true"},
		{"audit logs", Certify{AuditLogDir: "/kind/skewcheck/audit"}, `hostPath volume "audit"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &tc.c
			c.Run = "certify-x"
			if v := strings.Join(podSecurityViolations(c.job().Spec.Template.Spec), "\n"); !strings.Contains(v, tc.violation) {
				t.Errorf("violations:\n%s\nwant one of %q", v, tc.violation)
			}
			if l, ok := c.namespaceLabels()[enforceLabel]; ok {
				t.Errorf("namespace enforces %q, want no level", l)
			}
			if c.Unrestricted() == "" {
				t.Error("Unrestricted() says nothing")
			}
		})
	}
}
