package dataplane

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/netns"
	"github.com/skewcheck/skewcheck/framework/integration"
)

func startCluster(t *testing.T) *local.Cluster {
	t.Helper()
	integration.Require(t)
	_, newV := integration.Versions()
	c, err := local.New(context.Background(), local.Config{Name: "dataplane", Servers: []local.ServerSpec{{Version: newV}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Delete() })
	return c
}

// kube-proxy, started on the node, short-circuits a VIP and leaves a Proxy LB IP to the
// load balancer; Close leaves no namespace behind.
func TestKubeProxyNftablesOnTheNode(t *testing.T) {
	c := startCluster(t)
	_, newV := integration.Versions()
	ctx := context.Background()
	d, err := Start(ctx, Config{Spec: KubeProxy{Mode: "nftables", Version: newV},
		Admin: c.RestConfig(c.Servers[0], local.Admin), Dir: t.TempDir(), Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	fw := d.Framework()
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
	if _, err := fw.SetIngress(ctx, svc, corev1.LoadBalancerIngress{IP: fw.LBIPs[0]}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		h := fw.Send(ctx, fw.FromNode, fw.LBIPs[0], 80)
		t.Log(h)
		if h.Err == nil && !h.ThroughLB {
			break
		}
		if i == 39 {
			t.Fatalf("VIP never short-circuited: %v", h)
		}
		sleep()
	}
	t.Log(fw.Send(ctx, fw.FromClient, fw.LBIPs[0], 80))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		if m, _ := filepath.Match(netns.Prefix+"*", e.Name()); m {
			t.Errorf("namespace %s left after Close", e.Name())
		}
	}
}

func sleep() { <-time.After(250 * time.Millisecond) }
