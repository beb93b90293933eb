package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/front"
	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// BenchmarkGateway measures, on one v1.35.4+v1.36.3 cluster, GET and LIST asking
// apiserver-1 directly and through the reference gateway (run as a process of its own, as
// `conformance --gateway reference` runs it, though from this test binary:
// TestBenchGatewayProcess; RoundRobin over both servers) with 1, 200 and 1000 clients at
// once (framework.BenchmarkGets, the load generator the peer proxy's bench shares): p50,
// p99, requests/s, the gateway's against direct's, and the gateway process's allocations
// per proxied request (its Go heap allocations over the run, divided by the requests; the
// health checks it runs meanwhile add a few). Then how many TCP connections the gateway
// holds to each upstream at the peak (over every iteration) while 200 clients, each on
// its own connection, send 10 LISTs each at once, as GW-080 does. The gateway process's
// debug server (printed at the start) serves net/http/pprof for profiling it under this
// load (docs/measurements.md says how).
// Run: go test -run '^$' -bench Gateway -benchtime 2s ./reference/gateway
func BenchmarkGateway(b *testing.B) {
	integration.Require(b)
	ctx := context.Background()
	cli := filepath.Join(b.TempDir(), "skewcheck")
	if out, err := exec.Command("go", "build", "-o", cli, "../../cmd/skewcheck").CombinedOutput(); err != nil {
		b.Fatalf("building the CLI: %v\n%s", err, out)
	}
	debugFile := filepath.Join(b.TempDir(), "debug-addr")
	c := localtest.Start(b, local.Config{Name: "gwbench", Servers: localtest.WithoutPeerProxy(localtest.Pair()...)})
	t, stop, err := front.On(ctx, c, clustersgateway.Config{Name: "reference",
		Shell:      benchGatewayEnv + "=" + debugFile + " exec " + os.Args[0] + " -test.run=^TestBenchGatewayProcess$ -test.v=false",
		ApplyShell: "exec " + cli + ` reference gateway wait --config-dir "$SKEWCHECK_GATEWAY_CONFIG"`})
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	entries := map[string]*framework.Endpoint{"direct": t.Endpoints[0], "gateway": t.Gateway.Endpoint}
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench"},"data":{"k":"v"}}`
	if r := entries["direct"].Do(ctx, framework.Request{Method: "POST", Path: "/api/v1/namespaces/default/configmaps", Body: []byte(cm)}); r.Status != 201 {
		b.Fatalf("creating the configmap: %s", r)
	}
	debug, err := os.ReadFile(debugFile)
	if err != nil {
		b.Fatalf("reading the gateway process's debug address: %v", err)
	}
	fmt.Fprintf(os.Stderr, "gateway debug server: http://%s/debug/pprof/\n", debug)
	for _, op := range []struct{ name, path string }{
		{"GET", "/api/v1/namespaces/default/configmaps/bench"},
		{"LIST", "/api/v1/namespaces/default/configmaps"},
	} {
		for _, clients := range []int{1, 200, 1000} {
			var direct framework.BenchFigures
			b.Run(fmt.Sprintf("%s/clients=%d/direct", op.name, clients), func(b *testing.B) {
				direct = framework.BenchmarkGets(ctx, b, entries["direct"], op.path, clients)
			})
			b.Run(fmt.Sprintf("%s/clients=%d/gateway", op.name, clients), func(b *testing.B) {
				before := gatewayMallocs(b, string(debug))
				f := framework.BenchmarkGets(ctx, b, entries["gateway"], op.path, clients)
				b.ReportMetric(float64(gatewayMallocs(b, string(debug))-before)/float64(b.N), "gateway-allocs/req")
				framework.BenchReportAgainst(b, f, direct)
			})
		}
	}
	// Watch: a stream's events through the gateway against direct, the same watch.
	framework.BenchWatches(ctx, b, entries, []string{"direct", "gateway"}, "/api/v1/namespaces/default/configmaps", func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched-%d","labels":{"bench":"watch"}}}`, i)
	})
	b.Run("Connections200Clients", func(b *testing.B) {
		var addrs []string
		for _, s := range c.Servers {
			addrs = append(addrs, strings.TrimPrefix(s.URL(), "https://"))
		}
		peak := map[string]int{} // over every iteration
		var mu sync.Mutex
		start := time.Now()
		for i := 0; i < b.N; i++ {
			var wg sync.WaitGroup
			done := make(chan struct{})
			go func() { // sample the gateway's upstream connections while the clients run
				for {
					select {
					case <-done:
						return
					case <-time.After(20 * time.Millisecond):
					}
					n, err := t.Gateway.Connections(addrs)
					if err != nil {
						continue
					}
					mu.Lock()
					for a, k := range n {
						peak[a] = max(peak[a], k)
					}
					mu.Unlock()
				}
			}()
			errs := make(chan error, 200)
			base, err := t.Gateway.Transport(t.Gateway.Endpoint.Admin)
			if err != nil {
				b.Fatal(err)
			}
			for range 200 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Each client its own transport (client-go would share one): 200
					// client connections to the gateway.
					tr := base.Clone()
					defer tr.CloseIdleConnections()
					client := &http.Client{Transport: tr}
					for range 10 {
						resp, err := client.Get(t.Gateway.Endpoint.URL + "/api/v1/namespaces/default/configmaps?limit=1")
						if err != nil {
							errs <- err
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}()
			}
			wg.Wait()
			close(done)
			close(errs)
			for err := range errs {
				b.Fatalf("a client failed: %v", err)
			}
		}
		b.ReportMetric(float64(2000*b.N)/time.Since(start).Seconds(), "req/s")
		for j, a := range addrs {
			b.ReportMetric(float64(peak[a]), fmt.Sprintf("conns-upstream%d", j+1))
		}
	})
	fmt.Fprintln(os.Stderr, "gateway log:", filepath.Join(c.Dir, "gateway", "gateway.log"))
}

// gatewayMallocs is how many heap allocations the gateway process has made so far
// (TestBenchGatewayProcess's /mallocs).
func gatewayMallocs(b *testing.B, debug string) uint64 {
	resp, err := http.Get("http://" + debug + "/mallocs")
	if err != nil {
		b.Fatalf("asking the gateway process for its allocations: %v", err)
	}
	defer resp.Body.Close()
	var n uint64
	if _, err := fmt.Fscan(resp.Body, &n); err != nil {
		b.Fatalf("reading the gateway process's allocations: %v", err)
	}
	return n
}
