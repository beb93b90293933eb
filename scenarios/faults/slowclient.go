package faults

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// Entry is the front a load enters by, which a client can dial: a fault that acts on it
// is a client of the front's own (slow-client), not a change to any server.
var Entry = framework.DeclareCapability("Entry", "the entry of the load")

// A slow client is the slow-loris family: connections that hold a front's resources while
// sending or reading nothing useful. A front serves each connection on its own, so other
// clients must see nothing (faults.Unnoticed); what a front may do is cut the slow ones,
// and when it does so is measured. kube-apiserver's http.Server has ReadHeaderTimeout
// 32 s, IdleTimeout 90 s and no ReadTimeout or WriteTimeout (a36
// pkg/server/secure_serving.go:168-176), and a non-long-running request a 60 s deadline
// (a36 pkg/server/config.go:453, enforced by filters/timeout.go: 504 before the status is
// written); a watch is long-running and has none of it.

// slowKinds are the three ways a slow client holds a connection.
var slowKinds = []string{"headers", "body", "reader"}

// trickle is the pause between two bytes a slow client sends or reads.
const trickle = time.Second

// SlowClient holds perKind connections of each slow kind to entry while it lasts: request
// headers sent a byte a second and never finished; a create of the route's resource
// whose declared 1 MB body comes a byte a second; a watch of the route's resource read a
// byte a second through a small receive buffer. Healing closes them. Each speaks HTTP/1.1
// (one request per connection, as the attack needs), with the admin's credentials.
func SlowClient(entry *framework.Endpoint, route framework.Route, perKind int) Fault {
	return &slowClient{entry: entry, route: route, perKind: perKind}
}

type slowClient struct {
	entry   *framework.Endpoint
	route   framework.Route
	perKind int

	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	began  time.Time
	healed time.Time
	conns  []*slowConn
}

// slowConn is what happened to one slow connection.
type slowConn struct {
	kind string
	// dialErr is why it never opened; cut is when (from injection) the front closed or
	// answered it, zero while it held; answer is the status line it got, if any; read
	// is how many bytes a reader took.
	dialErr string
	cut     time.Duration
	answer  string
	read    int
}

func (s *slowClient) Name() string { return "slow-client" }

func (s *slowClient) Description() string {
	return fmt.Sprintf("%d slow-loris connections to %s (%d each: headers, a create's body, a watch read, a byte every %v)",
		s.perKind*len(slowKinds), s.entry.Name, s.perKind, trickle)
}

func (s *slowClient) Inject(ctx context.Context) error {
	cfg, err := rest.TLSConfigFor(s.entry.Admin)
	if err != nil {
		return fmt.Errorf("TLS configuration of %s's admin: %w", s.entry.Name, err)
	}
	u, err := url.Parse(s.entry.URL)
	if err != nil || u.Scheme != "https" {
		return fmt.Errorf("slow clients speak TLS to the entry, whose URL is %q", s.entry.URL)
	}
	run, cancel := context.WithCancel(context.Background())
	s.cancel, s.began = cancel, time.Now()
	for _, kind := range slowKinds {
		for range s.perKind {
			c := &slowConn{kind: kind}
			s.conns = append(s.conns, c)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.hold(run, c, u.Host, cfg)
			}()
		}
	}
	return nil
}

func (s *slowClient) Heal(context.Context) error {
	s.mu.Lock()
	s.healed = time.Now()
	s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	return nil
}

// hold opens one slow connection and keeps it slow until run ends or the front cuts it.
func (s *slowClient) hold(run context.Context, c *slowConn, host string, base *tls.Config) {
	conn, err := s.dial(run, host, base, c.kind == "reader")
	if err != nil {
		s.mu.Lock()
		c.dialErr = err.Error()
		s.mu.Unlock()
		return
	}
	context.AfterFunc(run, func() { conn.Close() })
	defer conn.Close()
	if c.kind == "reader" {
		s.readSlowly(run, c, conn, host)
		return
	}
	// The front's answer, or its closing the connection, ends the hold.
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		line, _ := bufio.NewReader(conn).ReadString('\n')
		s.cutAt(run, c, strings.TrimSpace(line))
	}()
	head, drip := s.request(c.kind, host)
	if _, err := conn.Write([]byte(head)); err != nil {
		s.cutAt(run, c, "")
		return
	}
	t := time.NewTicker(trickle)
	defer t.Stop()
	for {
		select {
		case <-run.Done():
			return
		case <-answered:
			return
		case <-t.C:
			if _, err := conn.Write([]byte{drip}); err != nil {
				s.cutAt(run, c, "")
				return
			}
		}
	}
}

// request is what a slow connection sends at once, and the byte it then sends each tick.
func (s *slowClient) request(kind, host string) (head string, drip byte) {
	auth := s.authorization()
	if kind == "headers" {
		return fmt.Sprintf("GET %s?limit=1 HTTP/1.1\r\nHost: %s\r\n%sX-Slow-Loris: ", s.route.GVR.Path(), host, auth), 'a'
	}
	// A JSON object may hold any amount of white space: the body is valid as far as it goes.
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{",
		s.route.GVR.CollectionPath(framework.TestNamespace()), host, auth, 1<<20), ' '
}

// authorization is the admin's bearer token as a header line, "" when it has a
// certificate instead (given in the TLS handshake).
func (s *slowClient) authorization() string {
	if t := s.entry.Admin.BearerToken; t != "" {
		return "Authorization: Bearer " + t + "\r\n"
	}
	return ""
}

// readSlowly watches the route's resource and reads the stream a byte a tick: the load's
// writes make events the front must hold while the client does not take them.
func (s *slowClient) readSlowly(run context.Context, c *slowConn, conn net.Conn, host string) {
	req := fmt.Sprintf("GET %s?watch=true HTTP/1.1\r\nHost: %s\r\n%s\r\n", s.route.GVR.CollectionPath(framework.TestNamespace()), host, s.authorization())
	if _, err := conn.Write([]byte(req)); err != nil {
		s.cutAt(run, c, "")
		return
	}
	b := make([]byte, 1)
	t := time.NewTicker(trickle)
	defer t.Stop()
	for {
		select {
		case <-run.Done():
			return
		case <-t.C:
			if _, err := conn.Read(b); err != nil {
				s.cutAt(run, c, "")
				return
			}
			s.mu.Lock()
			c.read++
			s.mu.Unlock()
		}
	}
}

// cutAt records that the front ended c (answered with line, or closed it), unless the
// fault's own healing did.
func (s *slowClient) cutAt(run context.Context, c *slowConn, line string) {
	if run.Err() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.cut == 0 {
		c.cut, c.answer = time.Since(s.began), line
	}
}

// dial opens a TLS connection speaking HTTP/1.1 to host, as the admin; a reader asks for a
// small receive buffer, so the front's writes back up at once.
func (s *slowClient) dial(ctx context.Context, host string, base *tls.Config, smallBuffer bool) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var tune func(*net.TCPConn)
	if smallBuffer {
		tune = func(c *net.TCPConn) { c.SetReadBuffer(4096) }
	}
	return framework.DialHTTP1(ctx, s.entry.Admin.Dial, host, base, tune)
}

// Observed says, per kind, how many connections the front cut, after how long and with
// what answer, and how many it still held when the fault was healed.
func (s *slowClient) Observed() Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.healed.Sub(s.began)
	var notes []string
	for _, kind := range slowKinds {
		var cuts []time.Duration
		var answers, failed []string
		n, read := 0, 0
		for _, c := range s.conns {
			if c.kind != kind {
				continue
			}
			n++
			read += c.read
			switch {
			case c.dialErr != "":
				failed = append(failed, c.dialErr)
			case c.cut > 0:
				cuts = append(cuts, c.cut)
				if c.answer != "" && !slices.Contains(answers, c.answer) {
					answers = append(answers, c.answer)
				}
			}
		}
		notes = append(notes, slowNote(kind, n, held, cuts, answers, failed, read))
	}
	return Observation{Notes: notes}
}

// slowNote is one kind's line: "slow headers: 8 of 8 cut after 32.0-32.1 s (closed)".
func slowNote(kind string, n int, held time.Duration, cuts []time.Duration, answers, failed []string, read int) string {
	what := map[string]string{"headers": "slow headers", "body": "slow bodies", "reader": "slow readers"}[kind]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", what)
	if len(cuts) == 0 {
		fmt.Fprintf(&b, "%d of %d held %.0f s, none cut", n-len(failed), n, held.Seconds())
	} else {
		slices.Sort(cuts)
		how := "closed"
		if len(answers) > 0 {
			how = strings.Join(answers, ", ")
		}
		fmt.Fprintf(&b, "%d of %d cut after %.1f-%.1f s (%s)", len(cuts), n, cuts[0].Seconds(), cuts[len(cuts)-1].Seconds(), how)
	}
	if kind == "reader" {
		fmt.Fprintf(&b, ", %d bytes read", read)
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, ", %d never opened (%s)", len(failed), failed[0])
	}
	return b.String()
}
