package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/internal/logtail"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"
)

// waitServing waits until an apiserver answers /version through the gateway, as the
// admin, by the cluster's server name; it fails at once, with the end of the gateway's
// log, when the gateway exits first. Any 200 is not enough: a gateway that does not
// recognise the request's cluster may answer /version from its own handlers, and every
// test after would fail for a reason no test names. So the answer must be an apiserver's
// (its version and build information equal one of theirs) or the request's audit ID must
// be in an apiserver's audit log.
func (g *Gateway) waitServing(ctx context.Context) error {
	client, err := rest.HTTPClientFor(g.admin)
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(g.cfg.ReadyTimeout)
	last, own := "no answer yet", ""
	for time.Now().Before(deadline) {
		if exited, how := g.proc.Exited(); exited {
			return fmt.Errorf("gateway %s exited (%s); its log %s ends with:\n%s", g.cfg.Name, how, g.log, logtail.Tail(g.log, 15))
		}
		id := auditID()
		req, _ := http.NewRequestWithContext(ctx, "GET", g.url+"/version", nil)
		req.Header.Set("Audit-ID", id)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			switch {
			case resp.StatusCode != 200:
				last = resp.Status
			case g.fromAnApiserver(ctx, body, id):
				return nil
			default:
				if own == "" {
					fmt.Fprintf(g.cfg.Progress, "gateway %s answers /version, but not with an apiserver's answer (%s); waiting for it to proxy\n", g.cfg.Name, describeVersion(body))
				}
				own = describeVersion(body)
				last = "200, its own /version: " + own
			}
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if own != "" {
		return fmt.Errorf("the gateway answers but proxies nothing to the apiservers (its /version says %s; theirs: %s): gateway %s answered GET %s/version (dialing %s, server name %s as both TLS server name and Host) for %s, but no apiserver saw the request. Does it select the cluster by that name (secureServing.serverNames of %s)? Its log %s ends with:\n%s",
			own, strings.Join(g.apiserverVersions(ctx), ", "), g.cfg.Name, g.url, g.addr, ServerName, g.cfg.ReadyTimeout, ConfigFile, g.log, logtail.Tail(g.log, 15))
	}
	return fmt.Errorf("gateway %s did not answer %s/version (dialing %s, server name %s as both TLS server name and Host) within %s (last: %s); its log %s ends with:\n%s",
		g.cfg.Name, g.url, g.addr, ServerName, g.cfg.ReadyTimeout, last, g.log, logtail.Tail(g.log, 15))
}

// fromAnApiserver: body is an apiserver's /version, or one of their audit logs holds id.
func (g *Gateway) fromAnApiserver(ctx context.Context, body []byte, id string) bool {
	var got version.Info
	if json.Unmarshal(body, &got) == nil && got.GitVersion != "" {
		for _, e := range g.site.Direct.Endpoints {
			if want, err := apiserverVersion(ctx, e.Admin); err == nil && want == got {
				return true
			}
		}
	}
	for _, e := range g.site.Direct.Endpoints {
		if b, err := os.ReadFile(e.AuditLog); err == nil && bytes.Contains(b, []byte(`"auditID":"`+id+`"`)) {
			return true
		}
	}
	return false
}

// apiserverVersions are the running apiservers' gitVersions, for the message.
func (g *Gateway) apiserverVersions(ctx context.Context) []string {
	var out []string
	for _, e := range g.site.Direct.Endpoints {
		if v, err := apiserverVersion(ctx, e.Admin); err == nil {
			out = append(out, fmt.Sprintf("%s %s (built %s)", e.Name, v.GitVersion, v.BuildDate))
		}
	}
	return out
}

func apiserverVersion(ctx context.Context, cfg *rest.Config) (version.Info, error) {
	var v version.Info
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return v, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", cfg.Host+"/version", nil)
	resp, err := client.Do(req)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return v, fmt.Errorf("%s/version: %s", cfg.Host, resp.Status)
	}
	return v, json.NewDecoder(resp.Body).Decode(&v)
}

// describeVersion is what a /version answer says, in a line.
func describeVersion(body []byte) string {
	var v version.Info
	if json.Unmarshal(body, &v) == nil && v.GitVersion != "" {
		return fmt.Sprintf("%s (built %s)", v.GitVersion, v.BuildDate)
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return fmt.Sprintf("%q", s)
}

func auditID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "skewcheck-ready-" + hex.EncodeToString(b)
}
