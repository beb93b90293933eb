package kind

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// RestConfig is a client configuration for server (or "lb") as id, from the kubeconfig.
func (c *Cluster) RestConfig(endpoint string, id Identity) (*rest.Config, error) {
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: c.Kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: ContextName(c.Name, endpoint, id)}).ClientConfig()
}

// await waits until every apiserver answers /readyz, then until the cluster has converged:
// every apiserver reaches, through its proxy, every GVR a peer serves (readiness alone
// does not mean peer discovery has caught up). Times are recorded from start.
func (c *Cluster) await(ctx context.Context, timeout time.Duration, start time.Time, t *Timings) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, s := range c.Servers {
		cfg, err := c.RestConfig(s.Name, Admin)
		if err != nil {
			return err
		}
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			return err
		}
		if err := waitReadyz(ctx, hc, s.URL); err != nil {
			return fmt.Errorf("%s (%s, node %s) is not ready: %w", s.Name, s.Version, s.Node, err)
		}
	}
	t.Ready = time.Since(start)
	pending, err := discovery.AwaitReached(ctx, c.members)
	if len(pending) > 0 || err != nil {
		return fmt.Errorf("the kind cluster did not converge within %v: %v %s", timeout, err, strings.Join(pending, "; "))
	}
	t.Converged = time.Since(start)
	return nil
}

func waitReadyz(ctx context.Context, hc *http.Client, url string) error {
	for {
		code, err := status(ctx, hc, url+"/readyz")
		if code == http.StatusOK {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("/readyz: last answer %d, %v", code, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func status(ctx context.Context, hc *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
