package dataplane

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"

	"github.com/skewcheck/skewcheck/clusters/netns"
	"github.com/skewcheck/skewcheck/framework"
)

// serveBackend answers every request with who the backend is and what it saw: the probe ID,
// whether the load balancer marked it, and the source address.
func serveBackend(h *netns.Host, name, ip string) (*http.Server, error) {
	l, err := h.Listen("tcp", net.JoinHostPort(ip, fmt.Sprint(backendPort)))
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(framework.BackendReply{
			Backend: name, Probe: r.Header.Get(framework.ProbeHeader),
			Via: r.Header.Get(framework.ViaHeader), Remote: r.RemoteAddr,
		})
	})}
	go srv.Serve(l)
	return srv, nil
}
