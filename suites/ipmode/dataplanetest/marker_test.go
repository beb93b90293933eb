package dataplanetest

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/skewcheck/skewcheck/framework"
)

// fakeDataplane is a Dataplane whose apiserver is a fake that gives each new Service the
// next of nodePorts, as the apiserver's random pick would.
func fakeDataplane(t *testing.T, nodePorts ...int32) (*Dataplane, *fake.Clientset) {
	cs := fake.NewSimpleClientset()
	cs.PrependReactor("create", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if len(nodePorts) == 0 {
			t.Fatal("the fake apiserver has no NodePort left to give")
		}
		a.(k8stesting.CreateAction).GetObject().(*corev1.Service).Spec.Ports[0].NodePort = nodePorts[0]
		nodePorts = nodePorts[1:]
		return false, nil, nil // the tracker stores it
	})
	d := For(&framework.Dataplane{Node: "node", Backends: []framework.Backend{{Name: "backend-1", IP: "198.18.0.3", Port: 8080}}})
	d.csOnce.Do(func() { d.cs = cs })
	return d, cs
}

func serviceNames(t *testing.T, cs *fake.Clientset) []string {
	l, err := cs.CoreV1().Services("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range l.Items {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names
}

// The apiserver hands a deleted Service's NodePort out again at once, and the dataplane may
// still have that Service's rule: a marker never takes such a port (its answer would not
// prove the dataplane had programmed it). It keeps the Service that got one until its
// delete, so the apiserver cannot give the port back, and delete removes both.
func TestMarkerNeverTakesAReusedNodePort(t *testing.T) {
	ctx := context.Background()
	d, cs := fakeDataplane(t, 30001, 30001, 30002)
	_, del, err := d.CreateService(ctx, "test-service")
	if err != nil {
		t.Fatal(err)
	}
	del(ctx)

	marker, delMarker, err := d.CreateMarker(ctx, "marker")
	if err != nil {
		t.Fatal(err)
	}
	if marker.NodePort != 30002 {
		t.Errorf("the marker has NodePort %d, want 30002: 30001 was the deleted test-service's", marker.NodePort)
	}
	if got := strings.Join(serviceNames(t, cs), " "); got != "marker marker-2" {
		t.Errorf("Services while the marker lives: %q, want the one with the reused port kept beside it", got)
	}
	delMarker(ctx)
	if got := serviceNames(t, cs); len(got) != 0 {
		t.Errorf("Services left after the marker's delete: %v", got)
	}
}

// When every try gets a reused port, CreateMarker fails saying why and leaves nothing.
func TestMarkerGivesUpAfterItsTries(t *testing.T) {
	ctx := context.Background()
	ports := []int32{30001, 30002}
	for i := 0; i < markerTries; i++ {
		ports = append(ports, 30001+int32(i%2))
	}
	d, cs := fakeDataplane(t, ports...)
	for _, name := range []string{"test-service-1", "test-service-2"} {
		_, del, err := d.CreateService(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		del(ctx)
	}
	_, _, err := d.CreateMarker(ctx, "marker")
	if err == nil || !strings.Contains(err.Error(), "nearly used up") {
		t.Fatalf("a marker whose every try got a reused port: %v, want the give-up error", err)
	}
	if got := serviceNames(t, cs); len(got) != 0 {
		t.Errorf("Services left after giving up: %v", got)
	}
}
