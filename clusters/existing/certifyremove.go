package existing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// podStopBound bounds the wait for the stopped pod to end: its grace period, and the
// kubelet's time to notice the deletion and to report the container's end.
const podStopBound = podGrace + 30*time.Second

// Remove undoes Make in the order that lets the run inside clean up after itself, on
// every exit alike. First the pod is stopped: the Job goes, and its pod is deleted with its
// grace period, in which the run inside removes its footprint with the rights the binding
// still grants; Remove waits (podStopBound) for it to end. Then what that run left is swept
// by its label (its ID is certify's own with "-in": no other run's). Only then go certify's
// own objects, each by the UID Make got (the binding before the role, the namespace last):
// nothing when Make made nothing. It runs with deadlines of its own, never the run's
// context, which an interrupt has already cancelled. progress hears what it waits for.
func (c *Certify) Remove(admin *rest.Config, progress io.Writer) error {
	var errs []error
	if c.madeNamespace() {
		fmt.Fprintf(progress, "stopping the Job's pod (grace %s, for the run inside to remove run %s) and waiting up to %s for it to end\n",
			podGrace, c.InnerRun(), podStopBound)
		if err := c.stopPod(admin); err != nil {
			errs = append(errs, err)
		}
		if err := c.sweep(admin); err != nil {
			errs = append(errs, err)
		}
	}
	if made := c.Recorder.Made(); len(made) > 0 {
		var names []string
		for _, m := range made {
			names = append(names, m.String())
		}
		fmt.Fprintf(progress, "removing %s\n", strings.Join(names, ", "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	if err := c.Recorder.Remove(ctx, admin); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// stopPod deletes the Job (its pods in the background) and its pods with their grace
// period, and waits until none has a container running.
func (c *Certify) stopPod(admin *rest.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), podStopBound)
	defer cancel()
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	bg := metav1.DeletePropagationBackground
	var jobErr error
	if err := cs.BatchV1().Jobs(c.Namespace()).Delete(ctx, c.certifyName(), metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
		jobErr = fmt.Errorf("deleting job %s: %w", c.certifyName(), err)
	}
	pods := cs.CoreV1().Pods(c.Namespace())
	for {
		why := stopping(ctx, pods, c.podSelector())
		if why == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the Job's pod in %s had not ended %s after it was asked to stop (%w): what the run inside makes from now on is left",
				c.Namespace(), podStopBound, errors.Join(jobErr, why))
		case <-time.After(podPoll):
		}
	}
}

// stopping deletes, with their grace period, the pods of sel not yet being deleted (one
// made after the Job went is its controller's last), and says which still run: nil when
// none does.
func stopping(ctx context.Context, pods typedcorev1.PodInterface, sel string) error {
	l, err := pods.List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return err
	}
	grace := int64(podGrace.Seconds())
	var running []string
	var errs []error
	for _, p := range l.Items {
		if p.DeletionTimestamp == nil {
			if err := pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting pod %s: %w", p.Name, err))
			}
		}
		if !podEnded(p) {
			running = append(running, p.Name)
		}
	}
	if len(running) == 0 {
		return nil
	}
	return errors.Join(append(errs, fmt.Errorf("pod %s still runs", strings.Join(running, ", ")))...)
}

// podEnded says whether no container of p runs any more.
func podEnded(p corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	for _, st := range p.Status.ContainerStatuses {
		if st.State.Terminated == nil {
			return false
		}
	}
	return len(p.Status.ContainerStatuses) > 0
}

// sweep removes what the run inside left, should its own clean-up not have run (it was
// killed, its node went away, its grace ran out): the objects labelled with its ID.
func (c *Certify) sweep(admin *rest.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	dyn, err := dynamic.NewForConfig(admin)
	if err != nil {
		return err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(admin)
	if err != nil {
		return err
	}
	inner := c.InnerRun()
	// Without the cluster's discovery, the kinds every run labels are still swept, and the
	// error says what could not be looked in.
	more, discErr := ClusterScopedFixtures(disc)
	if discErr != nil {
		discErr = fmt.Errorf("finding what run %s left in the skewed resources' kinds: %w", inner, discErr)
	}
	runs, err := FindRuns(ctx, dyn, more...)
	if err != nil {
		return errors.Join(discErr, fmt.Errorf("finding what run %s left: %w", inner, err))
	}
	for _, r := range runs {
		if r.ID == inner {
			return errors.Join(discErr, r.Remove(ctx, dyn))
		}
	}
	return discErr
}
