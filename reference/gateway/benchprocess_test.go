package gateway_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/front"
	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/gateway"
)

// benchGatewayEnv names, for TestBenchGatewayProcess, the file where it writes the
// address of its debug server.
const benchGatewayEnv = "SKEWCHECK_BENCH_GATEWAY_DEBUG"

// TestBenchGatewayProcess is the gateway process of BenchmarkGateway: the reference
// gateway as `reference gateway` runs it (from the environment clusters/gateway gives its
// Shell, each variable to the Config field the CLI's Shell gives it as a flag), in this test binary rather than the CLI so the bench can read what the gateway
// alone does: /mallocs (runtime.MemStats.Mallocs, for allocations per proxied request),
// /stats (what it holds now, one line of stats: open descriptors, live heap after a
// collection, resident memory, goroutines; for TestGatewaySoak's curve) and net/http/pprof
// (CPU, heap, mutex and block profiles under the bench's load) on a debug server of its
// own, whose address it writes to $SKEWCHECK_BENCH_GATEWAY_DEBUG.
func TestBenchGatewayProcess(t *testing.T) {
	addrFile := os.Getenv(benchGatewayEnv)
	if addrFile == "" {
		t.Skip("the gateway process of BenchmarkGateway only")
	}
	// Sampled, not every event: the profiles must not change what they measure much.
	runtime.SetMutexProfileFraction(100)
	runtime.SetBlockProfileRate(100_000) // one blocking event per 100 µs blocked
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening for the debug server: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/mallocs", func(w http.ResponseWriter, _ *http.Request) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintf(w, "%d\n", m.Mallocs)
	})
	mux.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, heldNow()) })
	go http.Serve(l, mux)
	// Written before the gateway starts, so the bench finds it once the gateway serves.
	if err := os.WriteFile(addrFile, []byte(l.Addr().String()), 0o644); err != nil {
		t.Fatalf("writing the debug address: %v", err)
	}
	g, err := gateway.Start(gateway.Config{Listen: os.Getenv("SKEWCHECK_LISTEN"), ConfigDir: os.Getenv("SKEWCHECK_GATEWAY_CONFIG"),
		ServingCert: os.Getenv("SKEWCHECK_SERVING_CERT"), ServingKey: os.Getenv("SKEWCHECK_SERVING_KEY"), ClientCA: os.Getenv("SKEWCHECK_CLIENT_CA"),
		DefaultServerName: os.Getenv("SKEWCHECK_SERVER_NAME"), Log: os.Stderr})
	if err != nil {
		t.Fatalf("starting the gateway: %v", err)
	}
	defer g.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}

// gatewayProcess puts the reference gateway in front of c as a process of its own
// (TestBenchGatewayProcess, RoundRobin over c's servers, applied by the CLI's `reference
// gateway wait`) and returns the target and the address of the process's debug server.
func gatewayProcess(tb testing.TB, c *local.Cluster) (*framework.Target, string) {
	cli := filepath.Join(tb.TempDir(), "skewcheck")
	if out, err := exec.Command("go", "build", "-o", cli, "../../cmd/skewcheck").CombinedOutput(); err != nil {
		tb.Fatalf("building the CLI: %v\n%s", err, out)
	}
	debugFile := filepath.Join(tb.TempDir(), "debug-addr")
	t, stop, err := front.On(context.Background(), c, clustersgateway.Config{Name: "reference",
		Shell:      benchGatewayEnv + "=" + debugFile + " exec " + os.Args[0] + " -test.run=^TestBenchGatewayProcess$ -test.v=false",
		ApplyShell: "exec " + cli + ` reference gateway wait --config-dir "$SKEWCHECK_GATEWAY_CONFIG"`})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	debug, err := os.ReadFile(debugFile)
	if err != nil {
		tb.Fatalf("reading the gateway process's debug address: %v", err)
	}
	return t, string(debug)
}
