package upgrade

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// IdentityHolders is a cluster that reads its apiservers' identity leases. kube-apiserver
// holds its lease, kube-system/apiserver-<hash of its hostname>, as "<lease name>_<a UUID
// made at start>" (k8s.io/kubernetes pkg/controlplane/apiserver/server.go: holderIdentity
// := APIServerID + "_" + uuid.NewUUID()): the name outlives a restart, the holder does
// not, so a new holder is a new process.
type IdentityHolders interface {
	// Holders are the holderIdentity of each Target endpoint's identity lease now, by
	// endpoint name. A server whose lease is absent (1.35+ deletes it on a graceful stop,
	// its next start writes it again) or matched to no endpoint is left out.
	Holders(ctx context.Context) (map[string]string, error)
}

// Gap is a time a watched server stopped being ready (or listed) and came back without
// anything showing its process changed: not a restart, so no step, no window and never a
// hop, and what failed in it is judged as anywhere outside the windows.
type Gap struct {
	Server string  `json:"server"`
	Start  float64 `json:"start"` // its last good answer before
	End    float64 `json:"end"`   // ready again
	Why    string  `json:"why"`   // what was compared, and stayed
}

// process is what names one apiserver's process: its identity lease's holder and its
// process_start_time_seconds, each "" when unknown, and why they are.
type process struct {
	holder, started, unknown string
}

// restartShown says what shows q is another process than p, "" when nothing does.
func (p process) restartShown(q process) string {
	switch {
	case p.holder != "" && q.holder != "" && p.holder != q.holder:
		return fmt.Sprintf("its identity lease has a new holder (%s, was %s)", q.holder, p.holder)
	case p.started != "" && q.started != "" && p.started != q.started:
		return fmt.Sprintf("its process_start_time_seconds moved (%s, was %s)", q.started, p.started)
	}
	return ""
}

// sameShown says what was compared and stayed, for a gap.
func (p process) sameShown(q process) string {
	var same []string
	if p.holder != "" && p.holder == q.holder {
		same = append(same, "its identity lease's holder stayed "+p.holder)
	}
	if p.started != "" && p.started == q.started {
		same = append(same, "its process_start_time_seconds stayed "+p.started)
	}
	if len(same) == 0 {
		said := func(p process) string { return cmp.Or(strings.TrimPrefix(p.unknown, "; "), "each of them known") }
		return fmt.Sprintf("nothing names its process both before and now (before: %s; now: %s)", said(p), said(q))
	}
	return strings.Join(same, " and ")
}

// versionChanged is a step's evidence when its version changed: no process changes version.
func versionChanged(st Step) string {
	if st.Up == 0 || st.To == "" || st.From == st.To {
		return ""
	}
	return fmt.Sprintf("its version changed (%s, was %s)", st.To, st.From)
}

// processes reads what names each named server's process now.
func (w *watcher) processes(ctx context.Context, names ...string) map[string]process {
	holders, why := map[string]string{}, ""
	if w.holders == nil {
		why = "; the cluster reads no identity leases"
	} else if h, err := w.holders.Holders(ctx); err != nil {
		why = "; identity leases: " + err.Error()
	} else {
		holders = h
	}
	out := map[string]process{}
	for _, n := range names {
		p := process{holder: holders[n], unknown: why}
		if p.holder == "" && why == "" {
			p.unknown = "; no identity lease of " + n
		}
		var err string
		if p.started, err = startTime(ctx, w.target.Endpoint(n), w.bound()); err != "" {
			p.unknown += "; /metrics: " + err
		}
		out[n] = p
	}
	return out
}

// startTime is e's process_start_time_seconds, from its /metrics (component-base
// registers it in every kube-apiserver), or why it could not be read.
func startTime(ctx context.Context, e *framework.Endpoint, bound time.Duration) (string, string) {
	r := e.Do(ctx, framework.Request{Path: "/metrics", Timeout: bound})
	if r.Status != 200 {
		return "", cmp.Or(r.Err, fmt.Sprintf("answered %d", r.Status))
	}
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_start_time_seconds "); ok {
			return strings.TrimSpace(v), ""
		}
	}
	return "", "no process_start_time_seconds"
}
