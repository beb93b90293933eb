package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// GroupVersionResources reads /apis/<group>/<version> (legacy discovery, an
// APIResourceList) through e and returns the resource names, subresources left out. The
// status is returned too: callers decide what a 404 means. With own, the request is
// marked x-kubernetes-peer-proxied, as a peer's is: the server's own document, which a
// proxy must neither forward nor merge.
func (e *Endpoint) GroupVersionResources(ctx context.Context, group, version string, own bool) (int, []string, error) {
	req := Request{Path: "/apis/" + group + "/" + version}
	if own {
		req.Header = map[string][]string{PeerProxiedHeader: {"true"}}
	}
	resp := e.Do(ctx, req)
	if resp.Err != "" || resp.Status != 200 {
		return resp.Status, nil, nil
	}
	var list struct {
		Resources []struct {
			Name string `json:"name"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(resp.Body, &list); err != nil {
		return resp.Status, nil, fmt.Errorf("%s: /apis/%s/%s is not an APIResourceList: %w", e.Name, group, version, err)
	}
	var names []string
	for _, r := range list.Resources {
		if !strings.Contains(r.Name, "/") {
			names = append(names, r.Name)
		}
	}
	return resp.Status, names, nil
}

// PeerProxiedHeader marks a request a peer proxy forwarded (upstream's loop guard): the
// server that gets it serves it itself.
const PeerProxiedHeader = "x-kubernetes-peer-proxied"

// RestartWhenDone starts e's server again when the running test ends (after a test stopped
// or killed it), and waits until every proxy path is live, so the next test starts from a
// converged target.
func (env *Env) RestartWhenDone(e *Endpoint) {
	ginkgo.DeferCleanup(func(ctx context.Context) {
		e.Node.Thaw()
		gomega.Expect(e.Node.Start(ctx)).To(gomega.Succeed(), "restarting %s after the test", e.Name)
		if env.Target.Converge != nil {
			gomega.Expect(env.Target.Converge(ctx)).To(gomega.Succeed(), "converging after restarting %s", e.Name)
		}
	})
}
