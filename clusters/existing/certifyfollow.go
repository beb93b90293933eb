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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// logBound bounds the wait for a started pod's log to be readable.
const logBound = 90 * time.Second

// podPoll is how often the pod's state is asked for while waiting on it.
var podPoll = time.Second

// ErrNoPod is a Job whose pod did not start: refused, or not started within the bound.
var ErrNoPod = errors.New("the Job's pod did not start")

// Follow waits for the Job's pod to run, copies its log to out as it comes, and returns
// the whole log and the container's exit code once it has ended. A followed log is relayed
// by an apiserver, and during an upgrade that apiserver may go away mid-stream: the stream
// is opened again (skipping what was shown) for as long as the container runs, and the
// log returned is read whole once it has ended.
func (c *Certify) Follow(ctx context.Context, admin *rest.Config, out io.Writer, startBound time.Duration) ([]byte, int, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, 0, err
	}
	pod, err := c.waitForPod(ctx, cs, startBound)
	if err != nil {
		return nil, 0, err
	}
	pods := cs.CoreV1().Pods(c.Namespace())
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
			return nil, 0, fmt.Errorf("following the log of pod %s/%s (asked for %s): %w (certify removes the pod as it exits: run it with --keep to read the log with kubectl logs -n %s %s)",
				c.Namespace(), pod.Name, logBound, err, c.Namespace(), pod.Name)
		}
		fmt.Fprintf(out, "the log of pod %s is not readable yet (%v): asking again\n", pod.Name, err)
		sleep(ctx, 5*time.Second)
	}
}

// followLog follows the pod's log from its start until the stream ends, handing show each
// line with its index, and returns what it read. An error is the stream's not opening; a
// stream cut short is an end like any other.
func followLog(ctx context.Context, pods typedcorev1.PodInterface, name string, show func(int, string)) ([]byte, error) {
	stream, err := pods.GetLogs(name, &corev1.PodLogOptions{Follow: true}).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	return readLines(stream, show), nil
}

// readLines hands show each line of r with its index, and returns all it read. A line is
// read whole however long it is (a report's can pass any buffer), so a line's index is the
// same in every stream and in the whole log read at the end; a last line without its
// newline is returned but not shown, since the next stream, or the whole log, has it whole.
func readLines(r io.Reader, show func(int, string)) []byte {
	var log bytes.Buffer
	br := bufio.NewReader(r)
	for i := 0; ; i++ {
		line, err := br.ReadString('\n')
		log.WriteString(line)
		if err != nil {
			return log.Bytes()
		}
		show(i, strings.TrimSuffix(line, "\n"))
	}
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
		sleep(ctx, podPoll)
	}
	return false, 0, ""
}
