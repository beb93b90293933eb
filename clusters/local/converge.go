package local

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// WaitConverged waits until every running server with the proxy on can reach, through
// itself, every GVR that some running server serves and it does not (discovery.Unreached
// says why /readyz is not enough). Servers that are stopped or frozen do not count.
func (c *Cluster) WaitConverged(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConvergeTimeout)
	defer cancel()
	pending, err := discovery.AwaitReached(ctx, c.members)
	switch {
	case len(pending) > 0:
		why := ""
		if known := knownIncompatibility(c.runningVersions()); known != "" {
			why = "\n" + known // a line of its own, which is how a nightly run recognizes it
		}
		return fmt.Errorf("the cluster did not converge within %v: these servers still answer 404 for GVRs a peer serves: %s (server logs under %s)%s",
			c.cfg.ConvergeTimeout, strings.Join(pending, "; "), c.Dir, why)
	case err != nil:
		return fmt.Errorf("the cluster did not converge within %v: %w", c.cfg.ConvergeTimeout, err)
	}
	return nil
}

// runningVersions are the versions of the running servers with the proxy on.
func (c *Cluster) runningVersions() []string {
	var out []string
	for _, s := range c.Servers {
		if s.State() == Running && s.PeerProxy() {
			out = append(out, s.Version)
		}
	}
	return out
}

// members are the running servers, probed as the admin with the cluster's own client.
func (c *Cluster) members() []discovery.Member {
	var out []discovery.Member
	for _, s := range c.Servers {
		if s.State() != Running {
			continue
		}
		out = append(out, discovery.Member{Name: s.Name, MustReach: s.PeerProxy(),
			Served: func(ctx context.Context) (discovery.Set, error) {
				set, err := discovery.Served(ctx, c.RestConfig(s, Admin))
				if err != nil {
					return nil, fmt.Errorf("reading what %s serves: %w", s.Name, err)
				}
				return set, nil
			},
			List: func(ctx context.Context, path string) (int, error) { return getStatus(ctx, c.adminHTTP, s.URL()+path) }})
	}
	return out
}

func getStatus(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}
