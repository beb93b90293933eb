package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// A slow body is the bandwidth fault (the server's answers to its peers trickle) with an
// answer long enough to outlast a front's timeouts: a list, through the entry, of objects
// only the faulted server serves, written there first until the list is longBody bytes.
// At 1 KB/s it takes longer than kube-apiserver's 60 s request timeout (a36
// pkg/server/config.go:453), which the upstream proxy's handler runs under (k36
// pkg/controlplane/apiserver/aggregator.go:84 wraps the API handler inside the chain of
// a36 pkg/server/config.go:1086-1088). Past that deadline a36
// pkg/server/filters/timeout.go:255-274 answers 504 if the status is not yet written and
// otherwise aborts the response: the client has a 200 whose body stops. What a front does
// is measured: keep streaming, time out (after how long, with what), or break the answer.

const (
	// longBody is how long the list is, in bytes: 75 s at 1 KB/s.
	longBody = 75_000
	// slowBodyLabel marks the objects the fault writes, to list and delete them.
	slowBodyLabel = "skewcheck.io/slow-body"
	// padding is how much each object carries in an annotation, so a few make the list long.
	padding = 3000
)

// SlowBody limits the server's answers to its peers to kbps KB/s (Bandwidth) and, while it
// lasts, lists route's long collection through route.Entry, waiting for the whole answer.
func SlowBody(p *node.PeerPath, route framework.Route, kbps int) Fault {
	return &slowBody{bandwidth: Bandwidth(p, kbps).(*toxic), route: route}
}

type slowBody struct {
	bandwidth *toxic
	route     framework.Route

	cancel  context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	began   time.Time
	written int // objects written to make the list long
	size    int // the list's length in bytes, read from the server itself
	read    longRead
}

// longRead is what the long list got through the entry.
type longRead struct {
	status  int
	headers time.Duration // from injection to the status
	ended   time.Duration // from injection to the body's end (0: not ended when healed)
	bytes   int
	err     string
	whole   bool // the body is a list of every object written
}

func (s *slowBody) Name() string { return "slow-body" }

func (s *slowBody) Description() string {
	entry := "the entry"
	if s.route.Entry != nil {
		entry = s.route.Entry.Name
	}
	return s.bandwidth.Description() + fmt.Sprintf(", and a list of about %d KB read through %s", longBody/1000, entry)
}

func (s *slowBody) Inject(ctx context.Context) error {
	if s.route.Entry == nil || s.route.Peer == nil {
		return fmt.Errorf("slow-body lists a resource through a front: it needs the load's route (chaos.NewRunner gives it)")
	}
	// A fault that fails to inject is never healed: what it wrote is deleted here.
	if err := s.fill(ctx); err != nil {
		s.unfill(ctx)
		return err
	}
	if err := s.bandwidth.Inject(ctx); err != nil {
		s.unfill(ctx)
		return err
	}
	read, cancel := context.WithCancel(context.Background())
	s.cancel, s.done, s.began = cancel, make(chan struct{}), time.Now()
	go func() {
		defer close(s.done)
		s.list(read)
	}()
	return nil
}

// fill writes padded objects to the serving server itself (not through the path the
// fault slows) until its list of them is longBody bytes.
func (s *slowBody) fill(ctx context.Context) error {
	path := s.route.GVR.CollectionPath(framework.TestNamespace())
	for size := 0; size < longBody; {
		name := fmt.Sprintf("slow-body-%d", s.written)
		obj, ok := fixtures.Object(s.route.GVR, name, framework.TestNamespace())
		if !ok {
			return fmt.Errorf("slow-body writes %s, which has no fixture", s.route.GVR.Key())
		}
		labels := framework.RunLabels() // the GVR may be cluster-scoped
		labels[slowBodyLabel] = "true"
		obj.SetLabels(labels)
		obj.SetAnnotations(map[string]string{slowBodyLabel + "-padding": strings.Repeat("x", padding)})
		body, _ := json.Marshal(obj.Object)
		if r := s.route.Peer.Do(ctx, framework.Request{Method: "POST", Path: path, Body: body}); r.Status != 201 {
			return fmt.Errorf("writing %s to %s for a long list: %s", name, s.route.Peer.Name, r.String())
		}
		s.written++
		r := s.route.Peer.Do(ctx, framework.Request{Path: s.listPath()})
		if r.Status != 200 {
			return fmt.Errorf("listing the long list at %s: %s", s.route.Peer.Name, r.String())
		}
		size, s.size = len(r.Body), len(r.Body)
	}
	return nil
}

func (s *slowBody) listPath() string {
	return s.route.GVR.CollectionPath(framework.TestNamespace()) + "?labelSelector=" + slowBodyLabel + "%3Dtrue"
}

// list reads the long list through the entry, as a client would, until it ends or ctx does.
func (s *slowBody) list(ctx context.Context) {
	record := func(f func(r *longRead)) {
		s.mu.Lock()
		defer s.mu.Unlock()
		f(&s.read)
	}
	client, err := rest.HTTPClientFor(s.route.Entry.Admin)
	if err != nil {
		record(func(r *longRead) { r.err = err.Error() })
		return
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", s.route.Entry.URL+s.listPath(), nil)
	resp, err := client.Do(req)
	if err != nil {
		record(func(r *longRead) { r.err = err.Error() })
		return
	}
	defer resp.Body.Close()
	record(func(r *longRead) { r.status, r.headers = resp.StatusCode, time.Since(s.began) })
	b, err := io.ReadAll(resp.Body)
	if ctx.Err() != nil {
		record(func(r *longRead) { r.bytes = len(b) }) // still streaming when healed
		return
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	whole := err == nil && json.Unmarshal(b, &list) == nil && len(list.Items) == s.written
	record(func(r *longRead) {
		r.ended, r.bytes, r.whole = time.Since(s.began), len(b), whole
		if err != nil {
			r.err = err.Error()
		}
	})
}

// Heal stops waiting for the list (what had not come by then had not come while the fault
// lasted), lifts the limit, and deletes the objects written.
func (s *slowBody) Heal(ctx context.Context) error {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	if err := s.bandwidth.Heal(ctx); err != nil {
		return err
	}
	return s.unfill(ctx)
}

// unfill deletes the objects fill wrote, at the server itself.
func (s *slowBody) unfill(ctx context.Context) error {
	if s.written == 0 {
		return nil
	}
	if r := s.route.Peer.Do(ctx, framework.Request{Method: "DELETE", Path: s.listPath()}); r.Status != 200 {
		return fmt.Errorf("deleting the long list's objects at %s: %s", s.route.Peer.Name, r.String())
	}
	return nil
}

// Observed says what the long list got: its status, when, and whether its body came whole.
func (s *slowBody) Observed() Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.read
	what := fmt.Sprintf("a list of %d objects (%d KB) through %s: ", s.written, s.size/1000, s.route.Entry.Name)
	var o Observation
	switch {
	case r.status == 0 && r.err != "":
		what += "no answer: " + r.err
	case r.status == 0:
		what += "no status when healed"
	case r.ended == 0:
		what += fmt.Sprintf("%d after %.1f s, still streaming when healed (%d bytes came)", r.status, r.headers.Seconds(), r.bytes)
	case r.status == 200 && !r.whole:
		o.Broken200 = 1
		what += fmt.Sprintf("200 after %.1f s, then the body broke off at %.1f s after %d bytes (%s)", r.headers.Seconds(), r.ended.Seconds(), r.bytes, orNotAList(r.err))
	case r.status == 200:
		what += fmt.Sprintf("200 after %.1f s, whole at %.1f s (%d bytes)", r.headers.Seconds(), r.ended.Seconds(), r.bytes)
	default:
		what += fmt.Sprintf("%d after %.1f s", r.status, r.headers.Seconds())
	}
	o.Notes = []string{what}
	return o
}

func orNotAList(err string) string {
	if err == "" {
		return "it ended cleanly but is not the whole list"
	}
	return err
}
