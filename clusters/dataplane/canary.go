package dataplane

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// canaryName is the Service Start waits on: its NodePort answering from the client host
// says the dataplane has synced Services and EndpointSlices. This is the provider's
// readiness, so it is written here; what tests do to a dataplane is the ipmode suite's
// (suites/ipmode/dataplanetest).
const canaryName = "skewcheck-canary"

// createCanary writes the canary, a LoadBalancer Service on port 80, and its
// EndpointSlice listing both backends on the dataplane's node (what a controller-manager
// would have made for pods; none runs here), and returns its NodePort; delete removes
// both. When the EndpointSlice's create is refused, the Service alone is deleted: an
// EndpointSlice of the name that is already there (AlreadyExists) is someone else's, a
// concurrent or killed run's.
func createCanary(ctx context.Context, cs kubernetes.Interface, node string) (nodePort int, delete func(context.Context), err error) {
	const ns = "default"
	labels := map[string]string{fixtures.Label: "true"}
	s, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: canaryName, Labels: labels},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromInt32(backendPort), Protocol: corev1.ProtocolTCP,
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		return 0, nil, fmt.Errorf("creating Service %s/%s: %w", ns, canaryName, err)
	}
	deleteService := func(ctx context.Context) error {
		return cs.CoreV1().Services(ns).Delete(ctx, canaryName, metav1.DeleteOptions{})
	}
	ready, name, port, tcp := true, "http", int32(backendPort), corev1.ProtocolTCP
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: canaryName, Labels: map[string]string{
			discoveryv1.LabelServiceName: canaryName, discoveryv1.LabelManagedBy: "skewcheck.io", fixtures.Label: "true"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &tcp}},
	}
	for _, ip := range []string{backend1IP, backend2IP} {
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready}, NodeName: &node})
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		// With a bound of its own, since ctx may be what failed the create: a canary Service
		// left behind would fail every later canary with AlreadyExists.
		undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if derr := deleteService(undo); derr != nil {
			err = fmt.Errorf("%w; deleting Service %s/%s it had made: %v", err, ns, canaryName, derr)
		}
		return 0, nil, fmt.Errorf("creating EndpointSlice %s/%s: %w", ns, canaryName, err)
	}
	return int(s.Spec.Ports[0].NodePort), func(ctx context.Context) {
		deleteService(ctx)
		cs.DiscoveryV1().EndpointSlices(ns).Delete(ctx, canaryName, metav1.DeleteOptions{})
	}, nil
}

// canaryAnswers sends one request with c to the canary's NodePort on the node and says why
// no backend answered it (nil when one did).
func canaryAnswers(ctx context.Context, c *http.Client, nodePort int) error {
	url := "http://" + net.JoinHostPort(nodeIP, strconv.Itoa(nodePort)) + "/"
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var reply framework.BackendReply
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &reply); err != nil || reply.Backend == "" {
		return fmt.Errorf("GET %s: the answer is not a backend's reply: %q", url, body)
	}
	return nil
}
