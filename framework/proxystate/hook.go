package proxystate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/report"
)

// proxyHooks are the post-start hooks a kube-apiserver registers only when it built its
// peer proxy, that is with the gate on AND --peer-ca-file set: "mixed-version-proxy-handler"
// from 1.33 (k8s.io/kubernetes v1.36.3 pkg/controlplane/apiserver/server.go:206-212, under
// `if c.Extra.PeerProxy != nil`, which config.go:325 builds only `if opts.PeerCAFile != ""`),
// "unknown-version-proxy-filter" in 1.28 to 1.32 (v1.32.13 server.go:215, v1.28.15
// pkg/controlplane/instance.go:539). Every post-start hook is a readyz check named
// poststarthook/<name> (k8s.io/apiserver v0.36.3 pkg/server/hooks.go:109), so
// /readyz?verbose says whether the proxy exists: the one thing that tells "no peer CA" from
// "has not learned its peers yet".
var proxyHooks = []string{"poststarthook/mixed-version-proxy-handler", "poststarthook/unknown-version-proxy-filter"}

// readHook reads /readyz?verbose for the proxy's post-start hook. A server not ready
// answers 500 with the same list (k8s.io/apiserver v0.36.3 pkg/server/healthz/healthz.go:282-301).
func readHook(ctx context.Context, cfg *rest.Config) report.Finding {
	a := get(ctx, cfg, "/readyz?verbose", "text/plain", nil)
	if a.err != nil || (a.code != 200 && a.code != 500) {
		return report.Finding{State: report.CannotTell, Evidence: "/readyz?verbose: " + a.String()}
	}
	hooks, found := scanHooks(a.body)
	switch {
	case found != "":
		return report.Finding{State: report.PeerProxyBuilt, Evidence: "/readyz?verbose lists " + found}
	case hooks == 0:
		return report.Finding{State: report.CannotTell, Evidence: "/readyz?verbose lists no post-start hook: not a kube-apiserver's readyz"}
	}
	return report.Finding{State: report.PeerProxyNotBuilt,
		Evidence: fmt.Sprintf("/readyz?verbose lists %d post-start hooks, none of them %s", hooks, strings.Join(proxyHooks, " or "))}
}

// scanHooks counts the post-start hooks a verbose readyz lists ("[+]poststarthook/x ok",
// "[-]poststarthook/x failed: reason withheld") and returns the proxy's if it is one.
func scanHooks(body []byte) (count int, found string) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		name, _, _ := strings.Cut(strings.TrimLeft(sc.Text(), "[+-]"), " ")
		if !strings.HasPrefix(name, "poststarthook/") {
			continue
		}
		count++
		for _, h := range proxyHooks {
			if name == h {
				found = h
			}
		}
	}
	return count, found
}
