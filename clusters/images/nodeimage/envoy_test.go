package nodeimage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEnvoyStandIn runs the load balancer's stand-in on the configuration kind v0.33 writes
// for envoy, with a haproxy that records the configuration it is given.
func TestEnvoyStandIn(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "envoy")
	if err := os.WriteFile(script, file("envoy"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dir, "haproxy-got.cfg")
	fake := "#!/bin/bash\n# the config file follows -f\nwhile [[ $# -gt 0 ]]; do [[ $1 == -f ]] && cp \"$2\" " + got + "; shift; done\nexec sleep 60\n"
	if err := os.WriteFile(filepath.Join(dir, "haproxy"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cds, lds := filepath.Join(dir, "cds.yaml"), filepath.Join(dir, "lds.yaml")
	bootstrap := "dynamic_resources:\n  cds_config:\n    path_config_source:\n      path: " + cds + "\n  lds_config:\n    path_config_source:\n      path: " + lds + "\n"
	// As kind's templates render them for two control-plane nodes.
	ldsYAML := "resources:\n- \"@type\": type.googleapis.com/envoy.config.listener.v3.Listener\n  name: listener_apiserver\n  address:\n    socket_address:\n      address: \"0.0.0.0\"\n      port_value: 6443\n"
	cdsYAML := "resources:\n- \"@type\": type.googleapis.com/envoy.config.cluster.v3.Cluster\n  name: kube_apiservers\n  connect_timeout: 0.25s\n" +
		"  load_assignment:\n    cluster_name: kube_apiservers\n    endpoints:\n    - lb_endpoints:\n" +
		"      - endpoint:\n          address:\n            socket_address:\n              address: skew-control-plane\n              port_value: 6443\n" +
		"      - endpoint:\n          address:\n            socket_address:\n              address: skew-control-plane2\n              port_value: 6443\n"
	for path, data := range map[string]string{filepath.Join(dir, "envoy.yaml"): bootstrap, lds: ldsYAML, cds: cdsYAML} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, "-c", filepath.Join(dir, "envoy.yaml"))
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	cmd.Dir = dir
	// the stand-in starts haproxy in the background: stop the whole group at the end
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	var cfg []byte
	for ctx.Err() == nil {
		if b, err := os.ReadFile(got); err == nil && len(b) > 0 {
			cfg = b
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{"bind *:6443", "option httpchk GET /healthz",
		"server skew-control-plane skew-control-plane:6443 check check-ssl verify none",
		"server skew-control-plane2 skew-control-plane2:6443 check check-ssl verify none"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("haproxy configuration lacks %q:\n%s", want, cfg)
		}
	}
}
