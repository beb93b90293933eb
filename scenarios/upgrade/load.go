package upgrade

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// load is the seeded traffic: through every server, reads of the tracked GVRs, writes of
// labelled configmaps, and a watch of them that reconnects whenever its server goes away.
type load struct {
	target *framework.Target
	o      Options
	t0     time.Time
	label  string
	// watchTimeout ends every watch stream, as clients' watches end, so that a server's
	// graceful stop never waits on them; each end is resumed from the last resourceVersion.
	watchTimeout time.Duration

	mu      sync.Mutex
	tracked []discovery.GVR // listable GVRs some live server serves; core ones always
	events  []Event
	lastRV  map[string]string // server -> last resourceVersion seen by its watch
	seen    map[string]map[string]bool
	// servedBy: for every GVR some server did not serve at some point, the versions seen
	// serving it (true) and not (false).
	servedBy map[string]map[string]bool
}

func newLoad(t *framework.Target, o Options, t0 time.Time) *load {
	return &load{target: t, o: o, t0: t0, label: fmt.Sprintf("skewcheck.io/upgrade=%d", o.Seed), watchTimeout: 5 * time.Second,
		lastRV: map[string]string{}, seen: map[string]map[string]bool{}, servedBy: map[string]map[string]bool{}}
}

// configmaps is the path of the load's configmaps, in its namespace.
func (l *load) configmaps() string {
	return "/api/v1/namespaces/" + cmp.Or(l.o.Namespace, metav1.NamespaceDefault) + "/configmaps"
}

func (l *load) since() float64 { return time.Since(l.t0).Seconds() }

func (l *load) record(e Event) {
	e.T = l.since()
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// track reads the GVRs to load: configmaps, and every listable GVR that not all servers
// serve (the skew: what the proxy must route), from the endpoints' own discovery.
func (l *load) track(ctx context.Context) {
	var sets []discovery.Set
	for _, e := range l.target.Endpoints {
		sets = append(sets, e.Served)
	}
	tracked := []discovery.GVR{}
	if g, ok := discovery.Union(sets...)["core/v1/configmaps"]; ok {
		tracked = append(tracked, g)
	}
	skews := discovery.Compare(byName(l.target))
	for _, sk := range skews {
		if sk.GVR.Can("list") {
			tracked = append(tracked, sk.GVR)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tracked = tracked
	for _, sk := range skews {
		if !sk.GVR.Can("list") {
			continue
		}
		if l.servedBy[sk.GVR.Key()] == nil {
			l.servedBy[sk.GVR.Key()] = map[string]bool{}
		}
		for _, e := range l.target.Endpoints {
			l.servedBy[sk.GVR.Key()][e.Version] = e.Served.Has(sk.GVR.Key())
		}
	}
}

func byName(t *framework.Target) map[string]discovery.Set {
	m := map[string]discovery.Set{}
	for _, e := range t.Endpoints {
		m[e.Name] = e.Served
	}
	return m
}

func (l *load) start(ctx context.Context, wg *sync.WaitGroup) {
	for i, e := range l.target.Endpoints {
		wg.Add(2)
		go func() { defer wg.Done(); l.traffic(ctx, e, l.o.Seed+int64(i)) }()
		go func() { defer wg.Done(); l.watch(ctx, e) }()
	}
}

// traffic alternates reads of a tracked GVR (picked by the seeded generator) and writes.
func (l *load) traffic(ctx context.Context, e *framework.Endpoint, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	for n := 0; ctx.Err() == nil; n++ {
		l.mu.Lock()
		g := l.tracked[rng.Intn(len(l.tracked))]
		l.mu.Unlock()
		sent := l.since()
		r := do(ctx, e, framework.Request{Path: g.Path() + "?limit=1"})
		if ctx.Err() != nil {
			return
		}
		l.record(Event{Server: e.Name, Kind: "read", GVR: g.Key(), Status: r.Status, Sent: sent, Error: r.Err})
		name := fmt.Sprintf("upgrade-%d-%s-%d", l.o.Seed, e.Name, n)
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"skewcheck.io/upgrade":"%d"}}}`, name, l.o.Seed)
		sent = l.since()
		w := do(ctx, e, framework.Request{Method: "POST", Path: l.configmaps(), Body: []byte(body)})
		if ctx.Err() != nil {
			return
		}
		ev := Event{Server: e.Name, Kind: "write", GVR: "core/v1/configmaps", Status: w.Status, Sent: sent, Error: w.Err}
		if w.Status == 201 {
			ev.Name = name
		}
		l.record(ev)
		sleep(ctx, l.o.Interval)
	}
}

// watch keeps a watch of the load's configmaps open through e, resuming from the last
// resourceVersion it saw whenever the stream ends. A resume is recorded only after a
// break: a stream cut short, or a reconnect that got no stream (its server was out); a
// stream that ran to its own timeout broke nothing.
func (l *load) watch(ctx context.Context, e *framework.Endpoint) {
	broken := false
	for ctx.Err() == nil {
		l.mu.Lock()
		rv := l.lastRV[e.Name]
		l.mu.Unlock()
		path := fmt.Sprintf("%s?watch=true&timeoutSeconds=%d&labelSelector=%s", l.configmaps(), int(l.watchTimeout.Seconds()), url.QueryEscape(l.label))
		if rv != "" {
			path += "&resourceVersion=" + rv
		}
		sent := l.since()
		// The resume is recorded at the stream's first event, not at its end: a stream
		// that resumed and is still open when the run ends has resumed.
		var resumed func()
		if broken {
			resumed = func() { l.record(Event{Server: e.Name, Kind: "watch-resume", Status: 200}) }
		}
		s := l.stream(ctx, e, path, resumed)
		if ctx.Err() != nil {
			return
		}
		if s.expired {
			// 410 Gone: the restarted server's watch cache starts after our version. A
			// client relists; here, watching from the current state is the same.
			l.mu.Lock()
			l.lastRV[e.Name] = ""
			l.mu.Unlock()
			l.record(Event{Server: e.Name, Kind: "watch-relist", Status: 410})
		}
		broken = broken && s.events == 0 || s.status != 200 || s.early
		l.record(Event{Server: e.Name, Kind: "watch-end", Status: s.status, Sent: sent, Error: s.err, Early: s.early})
		sleep(ctx, 200*time.Millisecond)
	}
}

// streamEnd is how one watch ended: the watch request's status (0: no answer), how many
// events it delivered, whether the server said our resourceVersion is too old (410 Gone,
// or an ERROR event), whether the stream ended before its timeout, and the client's error.
type streamEnd struct {
	status, events int
	expired, early bool
	err            string
}

// stream reads one watch until it ends, calling first (when not nil) at its first event.
func (l *load) stream(ctx context.Context, e *framework.Endpoint, path string, first func()) streamEnd {
	start := time.Now()
	client, req, err := framework.StreamRequest(ctx, e, path)
	if err != nil {
		return streamEnd{err: err.Error()}
	}
	resp, err := client.Do(req)
	if err != nil {
		return streamEnd{err: err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return streamEnd{status: resp.StatusCode, expired: resp.StatusCode == 410}
	}
	end := streamEnd{status: 200}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					Name            string `json:"name"`
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Type == "ERROR" {
			end.expired, end.err = true, "an ERROR event: the resourceVersion is too old"
			continue
		}
		end.events++
		if end.events == 1 && first != nil {
			first()
		}
		l.mu.Lock()
		l.lastRV[e.Name] = ev.Object.Metadata.ResourceVersion
		if l.seen[e.Name] == nil {
			l.seen[e.Name] = map[string]bool{}
		}
		l.seen[e.Name][ev.Object.Metadata.Name] = true
		l.mu.Unlock()
	}
	if err := sc.Err(); err != nil {
		end.err = err.Error()
	}
	// The server counts the timeout from when it got the request, after start: a stream
	// that ended sooner, or on an error, was cut short.
	end.early = end.err != "" || time.Since(start) < l.watchTimeout
	return end
}

func do(ctx context.Context, e *framework.Endpoint, req framework.Request) framework.Response {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	return e.Do(ctx, req)
}

// doAny sends req to each of t's servers in turn and returns the first 200, or the last
// answer when none gave one: at the end of a watch, one server may be down.
func doAny(ctx context.Context, t *framework.Target, req framework.Request) framework.Response {
	var resp framework.Response
	for _, e := range t.Endpoints {
		if resp = do(ctx, e, req); resp.Status == 200 {
			break
		}
	}
	return resp
}

// check fills the result: every answer, the acknowledged writes missing at the end, and
// the verdict on them (Judge).
func (l *load) check(ctx context.Context, r *Result) {
	l.mu.Lock()
	r.Events = append([]Event(nil), l.events...)
	r.ServedBy = map[string][]string{}
	for gvr, byVersion := range l.servedBy {
		r.ServedBy[gvr] = []string{}
		for v, served := range byVersion {
			if served {
				r.ServedBy[gvr] = append(r.ServedBy[gvr], v)
			}
		}
		sort.Strings(r.ServedBy[gvr])
	}
	l.mu.Unlock()
	list := doAny(ctx, l.target, framework.Request{Path: l.configmaps() + "?labelSelector=" + url.QueryEscape(l.label)})
	have := map[string]bool{}
	var items struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if list.Status != 200 || json.Unmarshal(list.Body, &items) != nil {
		r.Violations = append(r.Violations, fmt.Sprintf("listing the load's configmaps at the end through every server: the last answered %d, so no acknowledged write could be found", list.Status))
	}
	for _, i := range items.Items {
		have[i.Metadata.Name] = true
	}
	for i, e := range r.Events {
		if e.Name != "" {
			r.Events[i].Lost = !have[e.Name]
		}
	}
	Judge(r)
	doAny(ctx, l.target, framework.Request{Method: "DELETE", Path: l.configmaps() + "?labelSelector=" + url.QueryEscape(l.label)})
}
