package framework

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ErrNoContexts is a kubeconfig target asked for with no context in it.
var ErrNoContexts = errors.New("no contexts given: name one kubeconfig context per apiserver or proxy endpoint")

// ErrContextCount is a number of user contexts that is not one per endpoint.
type ErrContextCount struct{ Admin, User int }

func (e ErrContextCount) Error() string {
	return fmt.Sprintf("%d user contexts for %d endpoints: give one unprivileged context per endpoint, in the same order", e.User, e.Admin)
}

// FromKubeconfig makes a target of a cluster someone else runs: one kubeconfig context per
// apiserver or proxy endpoint, as the admin, and optionally one context per endpoint for an
// identity RBAC grants nothing (userContexts, same order). The suite can then not stop
// servers or read audit logs; tests that need that are skipped with the reason.
func FromKubeconfig(ctx context.Context, path string, contexts, userContexts []string) (*Target, error) {
	if len(contexts) == 0 {
		return nil, ErrNoContexts
	}
	if len(userContexts) > 0 && len(userContexts) != len(contexts) {
		return nil, ErrContextCount{Admin: len(contexts), User: len(userContexts)}
	}
	admins, err := RestConfigs(path, contexts)
	if err != nil {
		return nil, err
	}
	var users []*rest.Config
	if len(userContexts) > 0 {
		if users, err = RestConfigs(path, userContexts); err != nil {
			return nil, err
		}
	}
	t := &Target{Kind: "existing"}
	for i, admin := range admins {
		e := &Endpoint{Name: contexts[i], URL: admin.Host, Admin: admin}
		if users != nil {
			e.User = users[i]
		}
		t.Endpoints = append(t.Endpoints, e)
	}
	if err := t.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("%w: is the endpoint reachable and the kubeconfig %s right?", err, path)
	}
	return t, nil
}

// RestConfigs are the client configs of the named contexts of the kubeconfig at path, one
// per endpoint in the same order (RestConfig each); ErrNoContexts when none is named, since
// a command meant to reach endpoints would otherwise reach none and say nothing.
func RestConfigs(path string, contexts []string) ([]*rest.Config, error) {
	if len(contexts) == 0 {
		return nil, ErrNoContexts
	}
	out := make([]*rest.Config, len(contexts))
	for i, name := range contexts {
		cfg, err := RestConfig(path, name)
		if err != nil {
			return nil, err
		}
		out[i] = cfg
	}
	return out, nil
}

// RestConfig is the client config of one context of the kubeconfig at path (its current
// context when context is ""), with the rate limits lifted: the suites' requests are the
// measurement, and client-go's default 5 QPS would pace them instead. Every command that
// reads a kubeconfig loads it here.
func RestConfig(path, context string) (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: path},
		&clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %q: %w", path, context, err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	return cfg, nil
}
