package local

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework/discovery"
)

// WaitConverged waits until every running server with the proxy on can reach, through
// itself, every GVR that some running server serves and it does not. /readyz alone is not
// enough: right after it a proxied request still gets 404 for a few seconds, until the
// server has seen its peers' identity leases and fetched their discovery.
//
// Each such GVR is probed with a list (limit=1) as the admin: any answer but 404 shows a
// live path. GVRs without the list verb are skipped.
func (c *Cluster) WaitConverged(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConvergeTimeout)
	defer cancel()
	var pending []string
	for {
		var err error
		pending, err = c.unconverged(ctx)
		if err == nil && len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("the cluster did not converge within %v: %w", c.cfg.ConvergeTimeout, err)
			}
			return fmt.Errorf("the cluster did not converge within %v: these servers still answer 404 for GVRs a peer serves: %s (server logs under %s)",
				c.cfg.ConvergeTimeout, strings.Join(pending, "; "), c.Dir)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// unconverged lists "server: gvr" pairs whose proxy path is not live yet.
func (c *Cluster) unconverged(ctx context.Context) ([]string, error) {
	served := map[*Server]discovery.Set{}
	for _, s := range c.Servers {
		if s.State() != Running {
			continue
		}
		set, err := discovery.Served(ctx, c.RestConfig(s, Admin))
		if err != nil {
			return nil, fmt.Errorf("reading what %s serves: %w", s.Name, err)
		}
		served[s] = set
	}
	var all []discovery.Set
	for _, set := range served {
		all = append(all, set)
	}
	union := discovery.Union(all...)
	client := c.adminHTTP
	var pending []string
	for s, set := range served {
		if !s.PeerProxy() {
			continue
		}
		for _, g := range set.Missing(union).Sorted() {
			if !g.Can("list") {
				continue
			}
			code, err := getStatus(ctx, client, s.URL()+g.Path()+"?limit=1")
			if err != nil || code == http.StatusNotFound {
				pending = append(pending, s.Name+": "+g.Key())
			}
		}
	}
	sort.Strings(pending)
	return pending, nil
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
