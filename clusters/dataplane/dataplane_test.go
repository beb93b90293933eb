package dataplane_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/clusters/netns"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/suites/ipmode/dataplanetest"
)

// kube-proxy, started on the node as system:kube-proxy, short-circuits a VIP and leaves a
// Proxy LB IP to the load balancer; the topology carries unmasqueraded traffic; Close
// leaves none of this process's namespaces, nor the node's /etc/netns entry.
func TestKubeProxyOnTheNode(t *testing.T) {
	integration.Require(t)
	_, newV := integration.Versions()
	ctx := context.Background()
	c := localtest.Start(t, local.Config{Name: "dataplane", Servers: []clusters.ServerSpec{localtest.Newer()}})
	admin := c.RestConfig(c.Servers[0], local.Admin)
	proxier, err := c.AsNodeProxier(admin)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dataplane.Start(ctx, dataplane.Config{Spec: dataplane.KubeProxy{Mode: "nftables", Version: newV}, Admin: admin, Identity: proxier,
		Dir: t.TempDir(), Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	fw := dataplanetest.For(d.Framework())
	svc, del, err := fw.CreateService(ctx, "smoke")
	if err != nil {
		t.Fatal(err)
	}
	defer del(ctx)
	stop, err := fw.LoadBalancer.Forward(fw.LBIPs[0], 80, svc.NodePort)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	proxy := corev1.LoadBalancerIPModeProxy
	for _, want := range []struct {
		ingress   corev1.LoadBalancerIngress
		throughLB bool
	}{{corev1.LoadBalancerIngress{IP: fw.LBIPs[0]}, false}, {corev1.LoadBalancerIngress{IP: fw.LBIPs[0], IPMode: &proxy}, true}} {
		if _, err := fw.SetIngress(ctx, svc, want.ingress); err != nil {
			t.Fatal(err)
		}
		var h dataplanetest.Hop
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if h = fw.Send(ctx, fw.FromNode, fw.LBIPs[0], 80); h.Err == nil && h.ThroughLB == want.throughLB {
				break
			}
		}
		if h.Err != nil || h.ThroughLB != want.throughLB {
			t.Errorf("ipMode %v: want through the load balancer %v, got: %s", want.ingress.IPMode, want.throughLB, h)
		}
	}
	localPolicyKeepsTheClient(t, fw)
	node := dataplane.NodeName(d)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	own := netns.Prefix + strconv.Itoa(os.Getpid()) + "-"
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), own) {
			t.Errorf("namespace %s left after Close", e.Name())
		}
	}
	if _, err := os.Stat("/etc/netns/" + node); !os.IsNotExist(err) {
		t.Errorf("/etc/netns/%s left after Close", node)
	}
}

// localPolicyKeepsTheClient: with externalTrafficPolicy Local, kube-proxy sends a client's
// NodePort connection to the node's own endpoint without masquerading it (upstream's e2e
// "should work for type=LoadBalancer" asserts the kept source), so the backend sees the
// client's address and answers it through the node. A topology whose backend answered the
// client directly would leave these requests hanging.
func localPolicyKeepsTheClient(t *testing.T, fw *dataplanetest.Dataplane) {
	ctx := context.Background()
	svc, del, err := fw.CreateService(ctx, "local", dataplanetest.ExternalTrafficLocal())
	if err != nil {
		t.Fatal(err)
	}
	defer del(ctx)
	var h dataplanetest.Hop
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if h = fw.Send(ctx, fw.FromClient, fw.NodeIP, svc.NodePort); h.Err == nil {
			break
		}
	}
	if h.Err != nil {
		t.Fatalf("externalTrafficPolicy Local: the NodePort never answered the client: %s", h)
	}
	for i := 0; i < 5; i++ {
		h = fw.Send(ctx, fw.FromClient, fw.NodeIP, svc.NodePort)
		if h.Err != nil || !svc.OnNode(h.Reply.Backend) || !strings.HasPrefix(h.Reply.Remote, dataplane.ClientIP+":") {
			t.Errorf("externalTrafficPolicy Local: want the endpoint on the node, reached from the client's address %s; got %s (from %q)", dataplane.ClientIP, h, h.Reply.Remote)
		}
	}
}
