package gateway

import (
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
)

// reload reads the configuration directory and, when it changed, applies it: every
// document valid, or nothing changes (the last good configuration keeps serving, and
// the status file and a metric say the new one was refused). At start an invalid
// configuration is an error.
func (g *Gateway) reload(initial bool) (applied bool, err error) {
	contents, sum, err := snapshotDir(g.cfg.ConfigDir)
	if err != nil {
		if !initial {
			g.errorLog.Printf("keeping the running configuration: %v", err)
		}
		return false, fmt.Errorf("gateway: %w", err)
	}
	cur := g.state.Load()
	if cur != nil && cur.fingerprint == sum {
		if g.pool.lastRefused != ([32]byte{}) {
			// Back to the running configuration after a refused one: say it is in effect.
			g.pool.lastRefused = [32]byte{}
			g.metrics.configBad.Set(0)
			g.writeApplyStatus(ApplyStatus{Fingerprint: hex.EncodeToString(sum[:]), Applied: true, Clusters: cur.names()})
		}
		return false, nil
	}
	if g.pool.lastRefused == sum {
		return false, nil // already said why; wait for the next edit
	}
	next, err := g.build(contents, sum, cur)
	if err != nil {
		g.pool.lastRefused = sum
		g.metrics.reloads.WithLabelValues("invalid").Inc()
		g.metrics.configBad.Set(1)
		g.writeApplyStatus(ApplyStatus{Fingerprint: hex.EncodeToString(sum[:]), Error: err.Error()})
		if !initial {
			g.errorLog.Printf("configuration refused, the previous one stays in effect: %v", err)
		}
		return false, err
	}
	g.state.Store(next)
	g.pool.lastRefused = [32]byte{}
	g.metrics.reloads.WithLabelValues("applied").Inc()
	g.metrics.configBad.Set(0)
	names := next.names()
	g.writeApplyStatus(ApplyStatus{Fingerprint: hex.EncodeToString(sum[:]), Applied: true, Clusters: names})
	g.errorLog.Printf("configuration applied: UpstreamClusters %s", strings.Join(names, ", "))
	return true, nil
}

func (s *state) names() []string {
	var out []string
	for _, c := range s.clusters {
		out = append(out, c.name)
	}
	return out
}

// build validates and compiles the documents into a state; new upstreams are checked
// once before it is returned, so a new server is not answered 503 for merely not having
// been looked at yet.
func (g *Gateway) build(contents map[string][]byte, sum [32]byte, cur *state) (*state, error) {
	docs, problems := parseDocuments(contents)
	if len(docs) == 0 && len(problems) == 0 {
		problems = append(problems, Problem{Document: g.cfg.ConfigDir, Message: "holds no UpstreamCluster document; write at least one (*.yaml)"})
	}
	if invalid := validateAll(docs); len(invalid) > 0 && g.cfg.Defects.ApplyInvalid { // the defect: GW-061 must catch it
		g.errorLog.Printf("applying an invalid configuration (the apply-invalid defect): %v", &ConfigError{Dir: g.cfg.ConfigDir, Problems: invalid})
	} else {
		problems = append(problems, invalid...)
	}
	if len(problems) > 0 {
		return nil, &ConfigError{Dir: g.cfg.ConfigDir, Problems: problems}
	}
	txn := g.pool.begin()
	next := &state{fingerprint: sum, bySNI: map[string]*cluster{}}
	for _, d := range docs {
		var prev *cluster
		if cur != nil {
			prev = cur.cluster(d.cluster.Name)
		}
		c, ps := compile(d, g.defaults, prev, txn, g.cfg.Defects)
		problems = append(problems, ps...)
		if c == nil {
			continue
		}
		next.clusters = append(next.clusters, c)
		for _, n := range c.serverNames {
			next.bySNI[n] = c
		}
	}
	if len(problems) > 0 {
		return nil, &ConfigError{Dir: g.cfg.ConfigDir, Problems: problems}
	}
	txn.commit()
	return next, nil
}

// pool keeps the connectors and upstreams across reloads: an upstream whose endpoint and
// client config stay keeps its health, its discovery and its connection.
type pool struct {
	timeout  time.Duration
	timings  timings
	onHealth func(*upstream, bool)
	onForget func(*upstream)

	connectors  map[string]*connector
	upstreams   map[string]*upstream
	lastRefused [32]byte // the fingerprint of the last configuration refused
}

func newPool(timeout time.Duration, t timings, onHealth func(*upstream, bool), onForget func(*upstream)) *pool {
	return &pool{timeout: timeout, timings: t, onHealth: onHealth, onForget: onForget,
		connectors: map[string]*connector{}, upstreams: map[string]*upstream{}}
}

// poolTxn collects what one configuration uses; commit starts what is new and stops what
// is no longer used.
type poolTxn struct {
	p     *pool
	conns map[string]*connector
	ups   map[string]*upstream
	fresh []*upstream
}

func (p *pool) begin() *poolTxn {
	return &poolTxn{p: p, conns: map[string]*connector{}, ups: map[string]*upstream{}}
}

func (t *poolTxn) connector(key string, c resolvedClientConfig) *connector {
	if conn, ok := t.conns[key]; ok {
		return conn
	}
	conn, ok := t.p.connectors[key]
	if !ok {
		conn = newConnector(key, c, t.p.timeout)
	}
	t.conns[key] = conn
	return conn
}

func (t *poolTxn) upstream(cluster string, conn *connector, endpoint string) *upstream {
	key := conn.key + " " + endpoint
	if u, ok := t.ups[key]; ok {
		return u
	}
	u, ok := t.p.upstreams[key]
	if !ok {
		u = newUpstream(cluster, conn, endpoint, t.p.onHealth)
		t.fresh = append(t.fresh, u)
	}
	t.ups[key] = u
	return u
}

func (t *poolTxn) commit() {
	var wg sync.WaitGroup
	for _, u := range t.fresh {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.start(t.p.timings)
		}()
	}
	wg.Wait()
	for key, u := range t.p.upstreams {
		if _, kept := t.ups[key]; !kept {
			u.stop()
			t.p.onForget(u)
		}
	}
	for key, c := range t.p.connectors {
		if _, kept := t.conns[key]; !kept {
			c.closeIdle()
		}
	}
	t.p.connectors, t.p.upstreams = t.conns, t.ups
}

func (p *pool) closeAll() {
	for _, u := range p.upstreams {
		u.stop()
	}
	for _, c := range p.connectors {
		c.closeIdle()
	}
	p.upstreams, p.connectors = map[string]*upstream{}, map[string]*connector{}
}
