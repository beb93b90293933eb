package ipmode

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func ingress(ip string, mode *corev1.LoadBalancerIPMode) corev1.LoadBalancerIngress {
	return corev1.LoadBalancerIngress{IP: ip, IPMode: mode}
}

var (
	vip   = ptr.To(corev1.LoadBalancerIPModeVIP)
	proxy = ptr.To(corev1.LoadBalancerIPModeProxy)
)

func service(typ corev1.ServiceType, ports []corev1.ServicePort, ing ...corev1.LoadBalancerIngress) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       corev1.ServiceSpec{Type: typ, Ports: ports},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ing}},
	}
}

func httpPort() []corev1.ServicePort {
	return []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 30080}}
}

func endpoint(ready *bool, addrs ...string) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: addrs, Conditions: discoveryv1.EndpointConditions{Ready: ready}}
}

func slice(family discoveryv1.AddressType, portName string, port int32, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		AddressType: family,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(portName), Port: ptr.To(port)}},
		Endpoints:   eps,
	}
}

func TestShortCircuits(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ing          corev1.LoadBalancerIngress
		ignoreIPMode bool
		want         bool
	}{
		{"VIP", ingress("203.0.113.1", vip), false, true},
		{"unset ipMode means VIP", ingress("203.0.113.1", nil), false, true},
		{"Proxy", ingress("203.0.113.1", proxy), false, false},
		{"hostname only", corev1.LoadBalancerIngress{Hostname: "lb.example.com"}, false, false},
		{"hostname only ignoring ipMode", corev1.LoadBalancerIngress{Hostname: "lb.example.com", IPMode: vip}, true, false},
		{"Proxy ignoring ipMode", ingress("203.0.113.1", proxy), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShortCircuits(tc.ing, tc.ignoreIPMode); got != tc.want {
				t.Errorf("ShortCircuits(%+v, ignore=%v) = %v, want %v", tc.ing, tc.ignoreIPMode, got, tc.want)
			}
		})
	}
}

func TestResolveIgnoresClusterIPService(t *testing.T) {
	s := slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1"))
	if got := Resolve(service(corev1.ServiceTypeClusterIP, httpPort()), []*discoveryv1.EndpointSlice{s}, false); got != nil {
		t.Errorf("Resolve(ClusterIP) = %+v, want nothing", got)
	}
}

func TestResolveNodePortServiceHasNodePortAndNoShortCircuit(t *testing.T) {
	s := slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1"))
	// An ingress on a NodePort Service (left over from a type change) must not be used.
	svc := service(corev1.ServiceTypeNodePort, httpPort(), ingress("203.0.113.1", vip))
	got := Resolve(svc, []*discoveryv1.EndpointSlice{s}, false)
	want := []ServicePort{{Namespace: "default", Name: "web", Port: "http", PortNumber: 80, NodePort: 30080,
		Endpoints: []Endpoint{{IP: "10.0.0.1", Port: 8080}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Resolve(NodePort) =\n %+v\nwant\n %+v", got, want)
	}
}

func TestResolveShortCircuitsOnlyVIPIngressIPs(t *testing.T) {
	svc := service(corev1.ServiceTypeLoadBalancer, httpPort(),
		ingress("203.0.113.1", vip),
		ingress("203.0.113.2", proxy),
		corev1.LoadBalancerIngress{Hostname: "lb.example.com"})
	got := Resolve(svc, nil, false)
	if len(got) != 1 {
		t.Fatalf("Resolve = %+v, want one port", got)
	}
	if want := []string{"203.0.113.1"}; !reflect.DeepEqual(got[0].ShortCircuit, want) {
		t.Errorf("ShortCircuit = %q, want %q", got[0].ShortCircuit, want)
	}
	if got[0].NodePort != 30080 {
		t.Errorf("NodePort = %d, want 30080", got[0].NodePort)
	}
}

func TestResolveIgnoringIPModeShortCircuitsProxyIPsButNotHostnames(t *testing.T) {
	svc := service(corev1.ServiceTypeLoadBalancer, httpPort(),
		ingress("203.0.113.1", vip),
		ingress("203.0.113.2", proxy),
		corev1.LoadBalancerIngress{Hostname: "lb.example.com"})
	got := Resolve(svc, nil, true)
	if want := []string{"203.0.113.1", "203.0.113.2"}; len(got) != 1 || !reflect.DeepEqual(got[0].ShortCircuit, want) {
		t.Errorf("Resolve = %+v, want one port short-circuiting %q", got, want)
	}
}

func TestResolveSkipsNonTCPPorts(t *testing.T) {
	svc := service(corev1.ServiceTypeNodePort, []corev1.ServicePort{
		{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53, NodePort: 30053},
		{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 30080},
		{Name: "sctp", Protocol: corev1.ProtocolSCTP, Port: 9, NodePort: 30009},
		{Name: "default", Port: 81, NodePort: 30081}, // unset protocol is TCP
	})
	var names []string
	for _, p := range Resolve(svc, nil, false) {
		names = append(names, p.Port)
	}
	if want := []string{"http", "default"}; !reflect.DeepEqual(names, want) {
		t.Errorf("resolved ports %q, want %q", names, want)
	}
}

func resolveEndpoints(t *testing.T, slices ...*discoveryv1.EndpointSlice) []Endpoint {
	t.Helper()
	got := Resolve(service(corev1.ServiceTypeNodePort, httpPort()), slices, false)
	if len(got) != 1 {
		t.Fatalf("Resolve = %+v, want one port", got)
	}
	return got[0].Endpoints
}

func TestResolveEndpointReadyUnsetCountsAsReady(t *testing.T) {
	got := resolveEndpoints(t, slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1")))
	if want := []Endpoint{{IP: "10.0.0.1", Port: 8080}}; !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints %+v, want %+v", got, want)
	}
}

func TestResolveExcludesNotReadyEndpoints(t *testing.T) {
	got := resolveEndpoints(t, slice(discoveryv1.AddressTypeIPv4, "http", 8080,
		endpoint(ptr.To(false), "10.0.0.1"),
		endpoint(ptr.To(true), "10.0.0.2")))
	if want := []Endpoint{{IP: "10.0.0.2", Port: 8080}}; !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints %+v, want %+v", got, want)
	}
}

func TestResolveListsEndpointInTwoSlicesOnce(t *testing.T) {
	got := resolveEndpoints(t,
		slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1"), endpoint(nil, "10.0.0.2")),
		slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.2"), endpoint(nil, "10.0.0.3")))
	want := []Endpoint{{IP: "10.0.0.1", Port: 8080}, {IP: "10.0.0.2", Port: 8080}, {IP: "10.0.0.3", Port: 8080}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints %+v, want %+v", got, want)
	}
}

func TestResolveIgnoresIPv6Slices(t *testing.T) {
	got := resolveEndpoints(t,
		slice(discoveryv1.AddressTypeIPv6, "http", 8080, endpoint(nil, "fd00::1")),
		slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1")))
	if want := []Endpoint{{IP: "10.0.0.1", Port: 8080}}; !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints %+v, want %+v", got, want)
	}
}

func TestResolveMatchesSlicePortsByName(t *testing.T) {
	got := resolveEndpoints(t,
		slice(discoveryv1.AddressTypeIPv4, "metrics", 9090, endpoint(nil, "10.0.0.9")),
		slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1")))
	if want := []Endpoint{{IP: "10.0.0.1", Port: 8080}}; !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints %+v, want %+v", got, want)
	}
}

func TestResolveSliceWithOtherPortNameContributesNothing(t *testing.T) {
	got := resolveEndpoints(t, slice(discoveryv1.AddressTypeIPv4, "metrics", 9090, endpoint(nil, "10.0.0.9")))
	if len(got) != 0 {
		t.Errorf("endpoints %+v, want none", got)
	}
}

func TestResolvePicksTheNamedPortFromAMultiPortSlice(t *testing.T) {
	s := &discoveryv1.EndpointSlice{
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{
			{Name: ptr.To("metrics"), Port: ptr.To[int32](9090)},
			{Name: ptr.To("http"), Port: ptr.To[int32](8080)},
		},
		Endpoints: []discoveryv1.Endpoint{endpoint(nil, "10.0.0.1")},
	}
	if got, want := resolveEndpoints(t, s), []Endpoint{{IP: "10.0.0.1", Port: 8080}}; !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints %+v, want %+v", got, want)
	}
}
