package gateway_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"testing"

	"github.com/skewcheck/skewcheck/reference/gateway"
)

// benchGatewayEnv names, for TestBenchGatewayProcess, the file where it writes the
// address of its debug server.
const benchGatewayEnv = "SKEWCHECK_BENCH_GATEWAY_DEBUG"

// TestBenchGatewayProcess is the gateway process of BenchmarkGateway: the reference
// gateway as `reference gateway` runs it (from the environment clusters/gateway gives its
// Shell, each variable to the Config field the CLI's Shell gives it as a flag), in this test binary rather than the CLI so the bench can read what the gateway
// alone does: /mallocs (runtime.MemStats.Mallocs, for allocations per proxied request)
// and net/http/pprof (CPU, heap, mutex and block profiles under the bench's load) on a
// debug server of its own, whose address it writes to $SKEWCHECK_BENCH_GATEWAY_DEBUG.
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
