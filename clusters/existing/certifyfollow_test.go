package existing

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func runningPod(name string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
		ContainerStatuses: []corev1.ContainerStatus{{Name: "skewcheck", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
}

// A pod that will not start is told at once, in the words of the events that say why,
// not after the start bound as "no pod": the Job's FailedCreate (Pod Security refused
// the pod) and the pod's warnings (its image cannot be pulled).
func TestCertifyPodRefusedAtOnce(t *testing.T) {
	refusal := `Error creating: pods "skewcheck-x-abcde" is forbidden: violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true)`
	pull := `Failed to pull image "skewcheck:nosuch": not found`
	pending := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending,
		ContainerStatuses: []corev1.ContainerStatus{{Name: "skewcheck", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}}}
	for _, tc := range []struct {
		name   string
		pods   []corev1.Pod
		events []corev1.Event
		want   []string
	}{
		{"Pod Security", nil, []corev1.Event{{InvolvedObject: corev1.ObjectReference{Kind: "Job", Name: "skewcheck-certify-x"}, Type: "Warning", Reason: "FailedCreate", Message: refusal}},
			[]string{refusal, "run it without those"}},
		{"a bad image", []corev1.Pod{pending}, []corev1.Event{{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "pod-1"}, Type: "Warning", Reason: "Failed", Message: pull},
			{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "pod-1"}, Type: "Warning", Reason: "Failed", Message: pull}},
			[]string{"ImagePullBackOff (" + pull + ")"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fastPolls(t)
			c := &Certify{Footprint: Footprint{Run: "certify-x", Recorder: &Recorder{}}, Image: "skewcheck:nosuch", HostNetwork: true}
			_, admin := newFakeAPIServer(t, func(w http.ResponseWriter, r *http.Request) bool {
				switch r.URL.Path {
				case "/api/v1/namespaces/skewcheck-certify-x/pods":
					writeJSON(w, http.StatusOK, corev1.PodList{Items: tc.pods})
				case "/api/v1/namespaces/skewcheck-certify-x/events":
					writeJSON(w, http.StatusOK, corev1.EventList{Items: tc.events})
				default:
					return false
				}
				return true
			})
			start := time.Now()
			_, _, err := c.Follow(context.Background(), admin, io.Discard, time.Hour)
			if !errors.Is(err, ErrNoPod) {
				t.Fatalf("Follow: %v, want ErrNoPod", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Follow: %v\nwant it to say %q", err, w)
				}
			}
			if strings.Count(err.Error(), pull) > 1 {
				t.Errorf("Follow: %v\nsays the same warning twice", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("told after %s, want at once", d)
			}
		})
	}
}

// lockedBuffer is what Follow shows, read by the fake server as it is written.
type lockedBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	seen chan struct{} // closed once "after" is shown
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.b.Write(p)
	if strings.HasSuffix(l.b.String(), "after\n") {
		select {
		case <-l.seen:
		default:
			close(l.seen)
		}
	}
	return n, err
}

// A log line of 2 MiB (over any line buffer) does not stop the following: the lines after
// it are shown while the container still runs, from the one stream, each line once.
func TestCertifyFollowsALongLine(t *testing.T) {
	fastPolls(t)
	c := &Certify{Footprint: Footprint{Run: "certify-x", Recorder: &Recorder{}}, Image: "skewcheck:test"}
	long := strings.Repeat("x", 2<<20)
	log := "first\n" + long + "\nafter\n"
	out := &lockedBuffer{seen: make(chan struct{})}
	var mu sync.Mutex
	follows, ended, live := 0, false, false
	_, admin := newFakeAPIServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		ns := "/api/v1/namespaces/skewcheck-certify-x/"
		switch {
		case r.URL.Path == ns+"pods":
			writeJSON(w, http.StatusOK, corev1.PodList{Items: []corev1.Pod{runningPod("pod-1")}})
		case r.URL.Path == ns+"pods/pod-1":
			p := runningPod("pod-1")
			mu.Lock()
			if ended {
				p.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}
			}
			mu.Unlock()
			writeJSON(w, http.StatusOK, p)
		case r.URL.Path == ns+"pods/pod-1/log" && r.URL.Query().Get("follow") == "true":
			mu.Lock()
			follows++
			mu.Unlock()
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, log)
			w.(http.Flusher).Flush()
			// The container runs on until what followed the long line has been shown.
			select {
			case <-out.seen:
				mu.Lock()
				live = true
				mu.Unlock()
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
			mu.Lock()
			ended = true
			mu.Unlock()
		case r.URL.Path == ns+"pods/pod-1/log":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, log)
		default:
			return false
		}
		return true
	})
	got, code, err := c.Follow(context.Background(), admin, out, time.Minute)
	if err != nil || code != 0 {
		t.Fatalf("Follow: code %d, %v", code, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if follows != 1 || !live {
		t.Errorf("followed %d times, the line after the long one shown while it ran: %v; want once, shown", follows, live)
	}
	if string(got) != log {
		t.Errorf("the log returned is %d bytes, want the %d logged", len(got), len(log))
	}
	if out.b.String() != log {
		t.Errorf("shown %d bytes (%d long lines), want each of the log's %d once", out.b.Len(), strings.Count(out.b.String(), long), len(log))
	}
}
