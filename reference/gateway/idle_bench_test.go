package gateway_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/clusters/pki"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
	"github.com/skewcheck/skewcheck/reference/gateway"
)

// What a gateway holds for connections that do nothing (issue 57): idleConnections
// clients, each on a TLS connection of its own speaking HTTP/2 as client-go does, send
// one request (/healthz, which the gateway answers itself) and then stay idle. Reported,
// for the gateway process alone (it runs as a process of its own, this test binary
// again: TestIdleGatewayProcess): the file descriptors, live Go heap (after a GC) and
// goroutines per idle connection; then, once its idle timeout (kube-apiserver's 90 s,
// the default: opening 10 000 TLS connections takes tens of seconds on a small machine,
// so a shorter one would close the first before the last were open) has closed them, how
// long that took from the last one's opening and what it still holds beyond what it held
// before.
//
// 10 000 connections are 10 000 descriptors in each process (the clients' ends here,
// the gateway's in its own): both need RLIMIT_NOFILE above that. The bench raises its soft limit to the hard one (Go does so at start since
// 1.19; raising it here says so and lets the gateway process inherit it), and the hard
// one too when it is below what is needed and the bench may (root); else it fails saying
// what to raise.
//
// Measured (2026-12-02, 2 cores beside a make test, -benchtime 2x): 1 descriptor, 2
// goroutines, 14.5 KB of live heap and 42 KB resident per idle connection; 32 s to open
// them, 90 s to release them all; nothing left but 0.03 MB of heap (the first round
// leaves 10 MB: maps and pools grown once, not grown again).
//
// Run: go test -run '^$' -bench GatewayIdleConnections -benchtime 1x ./reference/gateway
const (
	idleConnections = 10_000
	idleTimeout     = 90 * time.Second
	idleDials       = 64 // connections opened at a time
	idleServerName  = "idle.gateway.test"
)

func BenchmarkGatewayIdleConnections(b *testing.B) {
	raiseFileLimit(b, idleConnections+1000) // each process holds one end of each connection
	dir := b.TempDir()
	bundle, err := pki.New(filepath.Join(dir, "pki"))
	if err != nil {
		b.Fatal(err)
	}
	serving, err := bundle.ServingCert("idle-gateway", []string{idleServerName}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		b.Fatal(err)
	}
	g := startIdleGateway(b, dir, bundle.CA.CertFile, serving)
	defer g.stop()
	caPEM, err := os.ReadFile(bundle.CA.CertFile)
	if err != nil {
		b.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	tc := &tls.Config{RootCAs: roots, ServerName: idleServerName, NextProtos: []string{"h2"}}

	var held, after, before stats
	var released, opening time.Duration
	var retries int64
	b.ResetTimer()
	for range b.N {
		before = g.stats(b)
		start := time.Now()
		conns, tried := openIdle(b, g.addr, tc)
		opening, retries = time.Since(start), tried
		held = g.stats(b)
		start = time.Now()
		after = g.waitReleased(b, before, 5*idleTimeout)
		released = time.Since(start)
		for _, c := range conns {
			c.Close()
		}
	}
	b.StopTimer()
	n := float64(idleConnections)
	b.ReportMetric(float64(held.fds-before.fds), "fds-held")
	b.ReportMetric(float64(held.fds-before.fds)/n, "fds/conn")
	b.ReportMetric(float64(held.heap-before.heap)/n, "heap-B/conn")
	b.ReportMetric(float64(held.rss-before.rss)/n, "rss-B/conn")
	b.ReportMetric(float64(held.goroutines-before.goroutines)/n, "goroutines/conn")
	b.ReportMetric(opening.Seconds(), "s-to-open")
	b.ReportMetric(float64(retries), "opens-retried")
	b.ReportMetric(released.Seconds(), "s-to-release")
	b.ReportMetric(float64(after.fds-before.fds), "fds-left")
	b.ReportMetric(float64(after.heap-before.heap)/(1<<20), "heap-MB-left")
	b.ReportMetric(float64(after.goroutines-before.goroutines), "goroutines-left")
}

// raiseFileLimit lets this process, and the gateway it starts, hold need descriptors.
func raiseFileLimit(b *testing.B, need uint64) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		b.Fatal(err)
	}
	if l.Max < need {
		l.Max = need
	}
	l.Cur = l.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		b.Fatalf("raising RLIMIT_NOFILE to %d for %d idle connections: %v; raise the hard limit (ulimit -Hn %d) or run as root", need, idleConnections, err, need)
	}
}

// idleGateway is the gateway process: where it listens, and the pipe it answers on.
type idleGateway struct {
	cmd  *exec.Cmd
	addr string
	in   io.WriteCloser
	out  *bufio.Reader
}

func startIdleGateway(b *testing.B, dir, ca string, serving pki.Pair) *idleGateway {
	conf := filepath.Join(dir, "config")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		b.Fatal(err)
	}
	// One cluster under another name, with a server that refuses: the idle clients'
	// server name selects no cluster, so the gateway answers their /healthz itself.
	doc := gwapi.UpstreamCluster{Spec: gwapi.UpstreamClusterSpec{
		Servers:       []gwapi.UpstreamClusterServer{{Endpoint: "https://127.0.0.1:1"}},
		ClientConfig:  gwapi.ClientConfig{CAFile: ca, BearerToken: "unused"}, // never used: the server refuses
		SecureServing: gwapi.SecureServing{ServerNames: []string{"cluster.gateway.test"}},
		DispatchPolicies: []gwapi.DispatchPolicy{{Strategy: gwapi.RoundRobin,
			Rules: []gwapi.DispatchPolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, NonResourceURLs: []string{"*"}}}}},
	}}
	doc.APIVersion, doc.Kind, doc.Name = gwapi.APIVersion, gwapi.Kind, "idle"
	y, err := yaml.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conf, "clusters.yaml"), y, 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdleGatewayProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), idleGatewayEnv+"="+strings.Join([]string{conf, serving.CertFile, serving.KeyFile}, string(os.PathListSeparator)))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	g := &idleGateway{cmd: cmd, in: in, out: bufio.NewReader(outPipe)}
	line := g.line(b)
	if !strings.HasPrefix(line, "listening ") {
		g.stop()
		b.Fatalf("the gateway process said %q, want where it listens", line)
	}
	g.addr = strings.TrimPrefix(line, "listening ")
	return g
}

func (g *idleGateway) line(b *testing.B) string {
	s, err := g.out.ReadString('\n')
	if err != nil {
		b.Fatalf("reading the gateway process: %v (its errors are above)", err)
	}
	return strings.TrimSpace(s)
}

func (g *idleGateway) stats(b *testing.B) stats {
	fmt.Fprintln(g.in, "stats")
	s, err := parseStats(g.line(b))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// waitReleased waits until the gateway holds no more descriptors than before (a few
// more allowed: its health checks' connections come and go), within bound.
func (g *idleGateway) waitReleased(b *testing.B, before stats, bound time.Duration) stats {
	deadline := time.Now().Add(bound)
	for {
		s := g.stats(b)
		if s.fds <= before.fds+5 {
			return s
		}
		if time.Now().After(deadline) {
			b.Fatalf("the gateway still holds %d descriptors more than before the idle connections, %v after they went idle (its idle timeout is %v)", s.fds-before.fds, bound, idleTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (g *idleGateway) stop() {
	g.in.Close()
	g.cmd.Wait()
}

// openIdle opens the connections, each sending one request and reading its answer, and
// says how many it had to try again.
func openIdle(b *testing.B, addr string, tc *tls.Config) ([]net.Conn, int64) {
	var retries atomic.Int64
	conns := make([]net.Conn, idleConnections)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	turns := make(chan struct{}, idleDials)
	t := &http2.Transport{}
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			turns <- struct{}{}
			defer func() { <-turns }()
			conn, err := openOne(t, addr, tc)
			for try := 1; err != nil && try < 3; try++ { // a busy machine drops a handshake now and then: counted
				retries.Add(1)
				conn, err = openOne(t, addr, tc)
			}
			if err != nil {
				mu.Lock()
				failed = append(failed, err.Error())
				mu.Unlock()
				return
			}
			conns[i] = conn
		}()
	}
	wg.Wait()
	if len(failed) > 0 {
		b.Fatalf("%d of %d idle connections failed three times, the first: %s", len(failed), idleConnections, failed[0])
	}
	return conns, retries.Load()
}

func openOne(t *http2.Transport, addr string, tc *tls.Config) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := (&tls.Dialer{Config: tc}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cc, err := t.NewClientConn(conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+idleServerName+"/healthz", nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		conn.Close()
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		conn.Close()
		return nil, fmt.Errorf("GET /healthz: %s", resp.Status)
	}
	return conn, nil
}

// idleGatewayEnv, set, makes TestIdleGatewayProcess the bench's gateway: the config
// directory, serving certificate and key, separated by the path list separator.
const idleGatewayEnv = "SKEWCHECK_IDLE_GATEWAY"

// TestIdleGatewayProcess is BenchmarkGatewayIdleConnections' gateway process, and is
// skipped otherwise. It answers each "stats" line on stdin with what it holds, and ends
// when stdin does.
func TestIdleGatewayProcess(t *testing.T) {
	spec := os.Getenv(idleGatewayEnv)
	if spec == "" {
		t.Skip("the gateway process of BenchmarkGatewayIdleConnections only")
	}
	parts := strings.Split(spec, string(os.PathListSeparator))
	g, err := gateway.Start(gateway.Config{Listen: "127.0.0.1:0", ConfigDir: parts[0], ServingCert: parts[1], ServingKey: parts[2],
		IdleTimeout: idleTimeout, HealthEvery: time.Hour, DiscoveryEvery: time.Hour})
	if err != nil {
		fmt.Println("error " + strings.ReplaceAll(err.Error(), "\n", " ")) // the bench's answer, on one line
		return
	}
	defer g.Close()
	fmt.Println("listening " + strings.TrimPrefix(g.URL(), "https://"))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		fmt.Println(heldNow())
	}
}
