package existing

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A wait on a pod that is cancelled ends at once, not a poll later: the poll here is 30 s
// long, so a wait that slept through it ends long after its context.
func TestCertifyWaitEndsWhenCancelled(t *testing.T) {
	was := podPoll
	podPoll = 30 * time.Second
	t.Cleanup(func() { podPoll = was })
	pending := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	c := &Certify{Footprint: Footprint{Run: "certify-x", Recorder: &Recorder{}}, Image: "skewcheck:test"}
	_, admin := newFakeAPIServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/api/v1/namespaces/skewcheck-certify-x/pods":
			writeJSON(w, http.StatusOK, corev1.PodList{Items: []corev1.Pod{pending}})
		case "/api/v1/namespaces/skewcheck-certify-x/events":
			writeJSON(w, http.StatusOK, corev1.EventList{})
		default:
			return false
		}
		return true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := c.Follow(ctx, admin, io.Discard, 2*time.Hour)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Follow: %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("ended %s after it started, want at its context's end", d)
	}
}
