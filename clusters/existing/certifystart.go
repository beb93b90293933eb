package existing

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// cannotStart are the reasons a container waits in that no waiting ends: its image is not
// to be had, or its spec cannot be run. A pod in them is told at once, not at the bound.
var cannotStart = []string{"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError"}

// waitForPod waits for the Job's pod to leave Pending, for at most bound. A pod that will
// not start is told at once: one the Job could not create (Pod Security, a quota or a
// webhook refused it, as the Job's FailedCreate events say), or one whose container waits
// for what never comes (cannotStart, as the pod's warnings say).
func (c *Certify) waitForPod(ctx context.Context, cs kubernetes.Interface, bound time.Duration) (corev1.Pod, error) {
	pods := cs.CoreV1().Pods(c.Namespace())
	for deadline := time.Now().Add(bound); ; {
		l, err := pods.List(ctx, metav1.ListOptions{LabelSelector: c.podSelector()})
		switch {
		case err == nil && len(l.Items) > 0 && l.Items[0].Status.Phase != corev1.PodPending:
			return l.Items[0], nil
		case err == nil && len(l.Items) > 0:
			p := l.Items[0]
			if reason := waitingIn(p, cannotStart); reason != "" {
				return corev1.Pod{}, fmt.Errorf("%w: its container waits in %s (%s): is the image %s on the nodes, or pullable by them?",
					ErrNoPod, reason, c.warnings(ctx, cs, "Pod", p.Name, "", podWaiting(p)), c.Image)
			}
		case err == nil:
			if refused := c.warnings(ctx, cs, "Job", c.certifyName(), "FailedCreate", ""); refused != "" {
				return corev1.Pod{}, fmt.Errorf("%w: the Job could not create it: %s%s", ErrNoPod, refused, c.refusalRemedy(refused))
			}
		}
		if ctx.Err() != nil {
			return corev1.Pod{}, fmt.Errorf("waiting for the Job's pod: %w", ctx.Err())
		}
		if time.Now().After(deadline) {
			why := "no pod"
			if err == nil && len(l.Items) > 0 {
				why = podWaiting(l.Items[0])
			}
			return corev1.Pod{}, fmt.Errorf("%w within %s (%s): is the image %s on the nodes, or pullable by them?", ErrNoPod, bound, why, c.Image)
		}
		sleep(ctx, podPoll)
	}
}

// warnings are the distinct messages of the Warning events of certify's object kind/name
// (of that reason, when given), or otherwise when there are none or they
// cannot be read.
func (c *Certify) warnings(ctx context.Context, cs kubernetes.Interface, kind, name, reason, otherwise string) string {
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "type": corev1.EventTypeWarning}
	if reason != "" {
		sel["reason"] = reason
	}
	l, err := cs.CoreV1().Events(c.Namespace()).List(ctx, metav1.ListOptions{FieldSelector: sel.String()})
	if err != nil {
		return otherwise
	}
	var msgs []string
	for _, e := range l.Items {
		// The selector is the server's to apply; a server that ignores it is not believed.
		if e.InvolvedObject.Kind != kind || e.InvolvedObject.Name != name || e.Type != corev1.EventTypeWarning || (reason != "" && e.Reason != reason) {
			continue
		}
		if m := strings.TrimSpace(e.Message); m != "" && !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		return otherwise
	}
	return strings.Join(msgs, "; ")
}

// refusalRemedy says what to change when Pod Security refused a pod that cannot meet any
// level but privileged.
func (c *Certify) refusalRemedy(refused string) string {
	if why := c.Unrestricted(); why != "" && strings.Contains(refused, "PodSecurity") {
		return " (the cluster's default Pod Security level refuses the pod, since " + why + ": run it without those, or where the default admits privileged pods)"
	}
	return ""
}

// waitingIn is the reason the pod's container waits in, if it is one of reasons.
func waitingIn(p corev1.Pod, reasons []string) string {
	for _, st := range p.Status.ContainerStatuses {
		if w := st.State.Waiting; w != nil && slices.Contains(reasons, w.Reason) {
			return w.Reason
		}
	}
	return ""
}

// podWaiting says what a pending pod waits for.
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
