package dataplanetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// BackedService is a Service of type LoadBalancer on port 80 whose EndpointSlice lists
// every backend of the dataplane's topology (framework.Dataplane.Backends): what a controller-manager would have made for
// pods, written by hand because no controller runs here.
type BackedService struct {
	Name, Namespace string
	Port, NodePort  int
	// Remote are the backends the EndpointSlice lists on another node than the dataplane's
	// (by name); every other backend is listed on the dataplane's node.
	Remote []string
}

// OnNode reports whether the EndpointSlice lists the named backend on the dataplane's node.
func (s *BackedService) OnNode(backend string) bool { return !slices.Contains(s.Remote, backend) }

// ServiceOption changes the Service and the backends' placement CreateService writes.
type ServiceOption func(*Dataplane, *corev1.Service, *BackedService)

// ExternalTrafficLocal makes the Service's externalTrafficPolicy Local, and lists the last
// backend on another node: which backends external traffic then reaches shows whether a
// dataplane applies the policy (kube-proxy sends it to the node's own endpoints only).
func ExternalTrafficLocal() ServiceOption {
	return func(d *Dataplane, s *corev1.Service, b *BackedService) {
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		b.Remote = []string{d.Backends[len(d.Backends)-1].Name}
	}
}

// otherNode is the node name remote backends are listed on. No Node object of that name
// exists: dataplanes compare an endpoint's nodeName with their own and need no more.
const otherNode = "skewcheck-other-node"

// CreateService makes a BackedService; delete removes the Service and its EndpointSlice.
func (d *Dataplane) CreateService(ctx context.Context, name string, opts ...ServiceOption) (svc *BackedService, delete func(context.Context), err error) {
	svc, delete, _, err = d.createService(ctx, name, opts...)
	return svc, delete, err
}

// createService is CreateService that also says whether an earlier Service had the
// NodePort the apiserver gave this one.
func (d *Dataplane) createService(ctx context.Context, name string, opts ...ServiceOption) (svc *BackedService, delete func(context.Context), reused bool, err error) {
	cs, err := d.clientset()
	if err != nil {
		return nil, nil, false, err
	}
	const ns = "default"
	labels := map[string]string{fixtures.Label: "true"}
	port := d.Backends[0].Port
	want := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromInt32(int32(port)), Protocol: corev1.ProtocolTCP,
		}}},
	}
	svc = &BackedService{Name: name, Namespace: ns, Port: 80}
	for _, o := range opts {
		o(d, want, svc)
	}
	s, err := cs.CoreV1().Services(ns).Create(ctx, want, metav1.CreateOptions{})
	if err != nil {
		return nil, nil, false, fmt.Errorf("creating Service %s/%s: %w", ns, name, err)
	}
	svc.NodePort = int(s.Spec.Ports[0].NodePort)
	reused = d.handOut(svc.NodePort)
	deleteService := func(ctx context.Context) error {
		return cs.CoreV1().Services(ns).Delete(ctx, name, metav1.DeleteOptions{})
	}
	delete = func(ctx context.Context) {
		deleteService(ctx)
		cs.DiscoveryV1().EndpointSlices(ns).Delete(ctx, name, metav1.DeleteOptions{})
	}
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "skewcheck.io", fixtures.Label: "true"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(port)), Protocol: ptr(corev1.ProtocolTCP)}},
	}
	for _, b := range d.Backends {
		node := &d.Node
		if !svc.OnNode(b.Name) {
			node = ptr(otherNode)
		}
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{b.IP},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready}, NodeName: node})
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		// The Service alone: an EndpointSlice of the name (AlreadyExists) is not this one's;
		// with a bound of its own, since ctx may be what failed the create.
		undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if derr := deleteService(undo); derr != nil {
			err = fmt.Errorf("%w; deleting Service %s/%s it had made: %v", err, ns, name, derr)
		}
		return nil, nil, false, fmt.Errorf("creating EndpointSlice %s/%s: %w", ns, name, err)
	}
	return svc, delete, reused, nil
}

// SetIngress writes status.loadBalancer.ingress of the Service, as a cloud provider's
// service controller does, and returns what the apiserver stored.
func (d *Dataplane) SetIngress(ctx context.Context, svc *BackedService, ingress ...corev1.LoadBalancerIngress) ([]corev1.LoadBalancerIngress, error) {
	cs, err := d.clientset()
	if err != nil {
		return nil, err
	}
	s, err := cs.CoreV1().Services(svc.Namespace).Get(ctx, svc.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	s.Status.LoadBalancer.Ingress = ingress
	s, err = cs.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, s, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("writing the load-balancer status of %s: %w", svc.Name, err)
	}
	return s.Status.LoadBalancer.Ingress, nil
}

// Hop is what became of one request sent into the topology.
type Hop struct {
	URL   string
	Probe string
	// Reply is the backend's answer; Backend is empty when no backend answered.
	Reply framework.BackendReply
	// ThroughLB: the load balancer recorded the probe.
	ThroughLB bool
	Err       error
}

func (h Hop) String() string {
	if h.Err != nil {
		return fmt.Sprintf("GET %s (probe %s): %v", h.URL, h.Probe, h.Err)
	}
	path := "directly, without the load balancer"
	if h.ThroughLB {
		path = "through the load balancer"
	}
	return fmt.Sprintf("GET %s (probe %s) reached %s %s", h.URL, h.Probe, h.Reply.Backend, path)
}

// Send makes one request with client to ip:port and finds out which way it went.
func (d *Dataplane) Send(ctx context.Context, client *http.Client, ip string, port int) Hop {
	h := Hop{URL: "http://" + net.JoinHostPort(ip, strconv.Itoa(port)) + "/", Probe: fmt.Sprintf("%016x", rand.Uint64())}
	req, err := http.NewRequestWithContext(ctx, "GET", h.URL, nil)
	if err != nil {
		h.Err = err
		return h
	}
	req.Header.Set(framework.ProbeHeader, h.Probe)
	resp, err := client.Do(req)
	if err != nil {
		h.Err = err
		return h
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		h.Err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
		return h
	}
	if err := json.Unmarshal(body, &h.Reply); err != nil || h.Reply.Probe != h.Probe {
		h.Err = fmt.Errorf("the answer is not a backend's reply to this probe: %q", body)
		return h
	}
	h.ThroughLB = d.LoadBalancer.Forwarded(h.Probe)
	return h
}

func ptr[T any](v T) *T { return &v }
