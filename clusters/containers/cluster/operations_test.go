package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestContainersNodeOperations: on the containers provider a frozen server (docker pause)
// answers nothing and a thawed one answers again; a restart at another version is a new
// container from that version's image at the same address and hostname.
func TestContainersNodeOperations(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	integration.RequireDocker(t, func() error {
		rt, err := containers.Connect(ctx)
		if err == nil {
			rt.Close()
		}
		return err
	})
	oldV, newV := integration.Versions()
	c, err := New(ctx, local.Config{Name: "ops", Servers: clusters.SpecsFor([]string{oldV})}, staticSkewcheck(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Delete()
	s := c.Servers[0]
	client, err := rest.HTTPClientFor(c.RestConfig(s, local.Admin))
	if err != nil {
		t.Fatal(err)
	}
	client.Timeout = 3 * time.Second
	version := func() (string, error) {
		resp, err := client.Get(s.URL() + "/version")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var v struct{ GitVersion string }
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
		}
		err = json.Unmarshal(b, &v)
		return v.GitVersion, err
	}
	if err := s.Freeze(); err != nil {
		t.Fatal(err)
	}
	if _, err := version(); err == nil {
		t.Error("a frozen (paused) server answered /version")
	}
	if err := s.Thaw(); err != nil {
		t.Fatal(err)
	}
	if _, err := version(); err != nil {
		t.Errorf("a thawed server does not answer /version: %v", err)
	}
	ip, host, pid := s.IP, s.Hostname, s.Pid()
	if err := s.Restart(ctx, newV); err != nil {
		t.Fatal(err)
	}
	got, err := version()
	if err != nil || !strings.HasPrefix(got, newV) {
		t.Errorf("after a restart at %s, /version says %q (%v)", newV, got, err)
	}
	if s.IP != ip || s.Hostname != host || s.Pid() == pid {
		t.Errorf("restart: address %s→%s, hostname %s→%s, pid %d→%d; want the same address and hostname in a new container", ip, s.IP, host, s.Hostname, pid, s.Pid())
	}
}
