package cluster

import (
	"context"
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// Disconnect takes the server's container off the cluster's network: its address is gone
// for everyone (peers, etcd, clients) while the process runs on (local.Disconnector).
func (h *Hosts) Disconnect(ctx context.Context, s *local.Server) error {
	p, err := h.running(s)
	if err != nil {
		return err
	}
	return h.net.Disconnect(ctx, p.c)
}

// Reconnect puts it back at its address and hostname.
func (h *Hosts) Reconnect(ctx context.Context, s *local.Server) error {
	p, err := h.running(s)
	if err != nil {
		return err
	}
	return h.net.Connect(ctx, p.c, s.IP, []string{s.Hostname})
}

func (h *Hosts) running(s *local.Server) (*proc, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.servers[s.Name]
	if p == nil {
		return nil, fmt.Errorf("%s has no container", s.Name)
	}
	return p, nil
}
