package peerproxy

import (
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// clients are the proxy's own connections to its apiserver, one per job, each with a rate
// limit of its own. Any client can make the proxy review tokens (random ones, as fast as it
// likes): those reviews must never delay the peer syncs, and neither may delay the lease
// renewal that keeps this server a member.
type clients struct {
	reviews, sync, lease kubernetes.Interface
}

func newClients(cfg Config) (clients, error) {
	var c clients
	for _, cs := range []*kubernetes.Interface{&c.reviews, &c.sync, &c.lease} {
		client, err := kubernetes.NewForConfig(controlConfig(cfg, cfg.APIServer))
		if err != nil {
			return clients{}, fmt.Errorf("peerproxy %s: a client for %s with the control identity: %w", cfg.ID, cfg.APIServer, err)
		}
		*cs = client
	}
	return c, nil
}

// controlConfig is the proxy's own identity at the apiserver at url, verified as every
// apiserver is, by cfg.ServerName.
func controlConfig(cfg Config, url string) *rest.Config {
	return &rest.Config{Host: url, QPS: 100, Burst: 200, Timeout: 5 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{CAFile: cfg.ServerCA, CertFile: cfg.ControlCert, KeyFile: cfg.ControlKey, ServerName: cfg.ServerName}}
}
