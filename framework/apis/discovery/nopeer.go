package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/client-go/rest"
)

// Media types of aggregated discovery v2. The nopeer profile (1.35+) asks a server for its
// own view only; without it a 1.35+ server with the mixed version proxy on merges its peers'.
const (
	AggregatedV2       = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	AggregatedV2NoPeer = AggregatedV2 + ";profile=nopeer"
	// AggregatedV2Beta1 is what 1.27 to 1.29 serve (v2 arrived in 1.30): the same
	// document under its beta name, so it decodes into the v2 types as it is.
	AggregatedV2Beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
)

// Served returns what the server behind cfg serves itself: /api and /apis read with the
// nopeer profile. A server older than 1.35 does not know the profile; its v2 document is
// already its local view, so the profile is dropped when the answer is not v2.
func Served(ctx context.Context, cfg *rest.Config) (Set, error) {
	set := Set{}
	for _, path := range []string{"/api", "/apis"} {
		list, err := Fetch(ctx, cfg, path, AggregatedV2NoPeer)
		if err != nil {
			return nil, err
		}
		for k, g := range FromList(list) {
			set[k] = g
		}
	}
	return set, nil
}

// Fetch reads one aggregated discovery document at path ("/api" or "/apis") with accept,
// falling back to plain v2 when the server answers the nopeer request with something else,
// and to v2beta1 when it has no v2 (before 1.30).
func Fetch(ctx context.Context, cfg *rest.Config, path, accept string) (*apidiscoveryv2.APIGroupDiscoveryList, error) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client for %s: %w", cfg.Host, err)
	}
	// A discovery document is never a redirect. Following one would read a document from
	// wherever the server points, http:// included, with none of cfg's verification: what
	// a server serves is what it answers itself. On a copy: for a config with nothing to
	// add to the transport, HTTPClientFor returns http.DefaultClient, which is everyone's.
	client = noRedirects(client)
	list, ok, err := get(ctx, client, cfg.Host+path, accept)
	if err == nil && !ok && accept == AggregatedV2NoPeer {
		list, ok, err = get(ctx, client, cfg.Host+path, AggregatedV2)
	}
	if err == nil && !ok {
		list, ok, err = get(ctx, client, cfg.Host+path, AggregatedV2Beta1)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("GET %s%s returned no aggregated discovery (APIGroupDiscoveryList, v2 or v2beta1): is this a kube-apiserver 1.27 or newer?", cfg.Host, path)
	}
	return list, nil
}

// noRedirects is a copy of client that follows no redirect.
func noRedirects(client *http.Client) *http.Client {
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

func get(ctx context.Context, client *http.Client, url, accept string) (*apidiscoveryv2.APIGroupDiscoveryList, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotAcceptable {
		return nil, false, nil
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, false, fmt.Errorf("GET %s: HTTP %d redirecting to %q: discovery is read from the server itself, redirects are not followed", url, resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	if !strings.Contains(resp.Header.Get("Content-Type"), "as=APIGroupDiscoveryList") {
		return nil, false, nil
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, false, fmt.Errorf("GET %s: decoding APIGroupDiscoveryList: %w", url, err)
	}
	return &list, true, nil
}

// FromList flattens a discovery document into a set. A group-version whose freshness is
// Stale (an aggregated API whose backend is down) is still listed: the server claims it.
func FromList(list *apidiscoveryv2.APIGroupDiscoveryList) Set {
	set := Set{}
	for _, group := range list.Items {
		for _, version := range group.Versions {
			for _, r := range version.Resources {
				g := GVR{
					Group:      group.Name,
					Version:    version.Version,
					Resource:   r.Resource,
					Namespaced: r.Scope == apidiscoveryv2.ScopeNamespace,
					Verbs:      r.Verbs,
				}
				if r.ResponseKind != nil {
					g.Kind = r.ResponseKind.Kind
				}
				for _, sub := range r.Subresources {
					g.Subresources = append(g.Subresources, sub.Subresource)
				}
				set[g.Key()] = g
			}
		}
	}
	return set
}
