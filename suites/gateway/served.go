package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// servedBy says, for each audit ID, which apiserver the gateway sent the request to (its
// entry server, see reachedBy); "" when no audit log shows it within wait.
func servedBy(ctx context.Context, env *framework.Env, ids []string, wait time.Duration) map[string]string {
	out := map[string]string{}
	for id, r := range reachedBy(ctx, env, ids, wait) {
		out[id] = r.entry
	}
	return out
}

// reach is where one request went: entry is the apiserver the gateway sent it to; peers
// are the other apiservers that recorded it, which the entry's own mixed version proxy
// passed it to (when the apiservers keep theirs on).
type reach struct {
	entry string
	peers []string
}

// reachedBy reads the apiservers' audit logs for each audit ID (the gateway passes the
// client's Audit-ID on; an apiserver keeps the one it is given, and its peer proxy passes
// it on too). With the peer proxy on, one request can be in two logs: the entry's event is
// the one whose user is the gateway's own identity (it impersonates the client there; the
// peer sees the client, as the entry forwards it), and when the gateway's identity is in
// both, or in neither (a gateway that does not use the identity it was given), the one
// received first. The entry's event is written last (it completes after its peer's), so
// an ID seen only in events of other users is waited for a moment longer.
func reachedBy(ctx context.Context, env *framework.Env, ids []string, wait time.Duration) map[string]reach {
	deadline := time.Now().Add(wait)
	var firstSeen map[string]time.Time
	for {
		events := map[string][]auditRecord{}
		for _, e := range env.Target.Endpoints {
			found, err := auditRecordsIn(e.AuditLog, ids)
			Expect(err).NotTo(HaveOccurred(), "reading the audit log of %s", e.Name)
			for id, rs := range found {
				for _, r := range rs {
					r.endpoint = e.Name
					events[id] = append(events[id], r)
				}
			}
		}
		if firstSeen == nil {
			firstSeen = map[string]time.Time{}
		}
		settled := true
		for _, id := range ids {
			rs := events[id]
			if len(rs) == 0 {
				settled = false
				continue
			}
			if _, ok := firstSeen[id]; !ok {
				firstSeen[id] = time.Now()
			}
			if !slices.ContainsFunc(rs, func(r auditRecord) bool { return r.user == env.Target.Gateway.Identity }) && time.Since(firstSeen[id]) < time.Second {
				settled = false
			}
		}
		if settled || time.Now().After(deadline) || ctx.Err() != nil {
			out := map[string]reach{}
			for id, rs := range events {
				out[id] = entryOf(rs, env.Target.Gateway.Identity)
			}
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// entryOf picks the entry among the events of one request (see reachedBy).
func entryOf(rs []auditRecord, identity string) reach {
	slices.SortStableFunc(rs, func(a, b auditRecord) int {
		ag, bg := a.user == identity, b.user == identity
		switch {
		case ag && !bg:
			return -1
		case bg && !ag:
			return 1
		}
		return a.received.Compare(b.received)
	})
	out := reach{entry: rs[0].endpoint}
	for _, r := range rs[1:] {
		if r.endpoint != out.entry {
			out.peers = append(out.peers, r.endpoint)
		}
	}
	return out
}

// auditRecord is what reachedBy needs of one ResponseComplete audit event.
type auditRecord struct {
	endpoint string
	user     string
	received time.Time
}

// auditRecordsIn returns the ResponseComplete events of ids the audit log holds.
func auditRecordsIn(path string, ids []string) (map[string][]auditRecord, error) {
	if path == "" {
		return nil, fmt.Errorf("no audit log")
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]auditRecord{}
	key := []byte(`"auditID":"`)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.Index(line, key)
		if i < 0 || !bytes.Contains(line, []byte(`"stage":"ResponseComplete"`)) {
			continue
		}
		rest := line[i+len(key):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 || !want[string(rest[:j])] {
			continue
		}
		var ev struct {
			AuditID string `json:"auditID"`
			User    struct {
				Username string `json:"username"`
			} `json:"user"`
			Received time.Time `json:"requestReceivedTimestamp"`
		}
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		out[ev.AuditID] = append(out[ev.AuditID], auditRecord{user: ev.User.Username, received: ev.Received})
	}
	return out, sc.Err()
}

// probe is a request through the gateway and where it must land.
type probe struct {
	what string
	req  framework.Request
	via  *framework.Endpoint // the gateway as some client; the gateway's own endpoint when nil
}

// landings sends each probe through the gateway and returns, per probe, the apiserver the
// gateway sent it to ("" when none). A probe the gateway answered itself (no upstream) is
// reported with its response.
func landings(ctx context.Context, env *framework.Env, probes []probe) ([]string, []framework.Response) {
	ids, resps := send(ctx, env, probes)
	where := servedBy(ctx, env, ids, 5*time.Second)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = where[id]
	}
	return out, resps
}

// send sends each probe through the gateway and returns their audit IDs and responses.
func send(ctx context.Context, env *framework.Env, probes []probe) ([]string, []framework.Response) {
	var ids []string
	var resps []framework.Response
	for _, p := range probes {
		via := p.via
		if via == nil {
			via = env.Target.Gateway.Endpoint
		}
		r := via.Do(ctx, p.req)
		Expect(r.Err).To(BeEmpty(), "%s: %s", p.what, r)
		ids = append(ids, r.AuditID)
		resps = append(resps, r)
	}
	return ids, resps
}
