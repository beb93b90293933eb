package cluster

import (
	"context"
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// Disconnect takes the server's pod off the cluster's network: its address is gone for
// everyone (peers, etcd, clients) while the apiserver runs on (local.Disconnector).
func (h *Hosts) Disconnect(ctx context.Context, s *local.Server) error {
	p, err := h.podOf(s)
	if err != nil {
		return err
	}
	return h.net.Disconnect(ctx, p)
}

// Reconnect puts it back at its address and hostname.
func (h *Hosts) Reconnect(ctx context.Context, s *local.Server) error {
	p, err := h.podOf(s)
	if err != nil {
		return err
	}
	return h.net.Connect(ctx, p, s.IP, []string{s.Hostname})
}

func (h *Hosts) podOf(s *local.Server) (*containers.Container, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.pods[s.Name]
	if p == nil {
		return nil, fmt.Errorf("%s has no pod", s.Name)
	}
	return p, nil
}
