package gateway

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// servedBy says which apiserver recorded each audit ID in its audit log: the gateway
// passes the client's Audit-ID on, and an apiserver keeps the one it is given. An ID no
// log shows within wait maps to "".
func servedBy(ctx context.Context, env *framework.Env, ids []string, wait time.Duration) map[string]string {
	out := map[string]string{}
	deadline := time.Now().Add(wait)
	for {
		for _, e := range env.Target.Endpoints {
			found, err := auditIDsIn(e.AuditLog, ids)
			Expect(err).NotTo(HaveOccurred(), "reading the audit log of %s", e.Name)
			for id := range found {
				out[id] = e.Name
			}
		}
		missing := 0
		for _, id := range ids {
			if out[id] == "" {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// auditIDsIn returns which of ids the audit log holds a ResponseComplete event for.
func auditIDsIn(path string, ids []string) (map[string]bool, error) {
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
	out := map[string]bool{}
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
		if j < 0 {
			continue
		}
		if id := string(rest[:j]); want[id] {
			out[id] = true
		}
	}
	return out, sc.Err()
}

// probe is a request through the gateway and where it must land.
type probe struct {
	what string
	req  framework.Request
	via  *framework.Endpoint // the gateway as some client; the gateway's own endpoint when nil
}

// landings sends each probe through the gateway and returns, per probe, the apiserver it
// reached ("" when none did). A probe the gateway answered itself (no upstream) is
// reported with its response.
func landings(ctx context.Context, env *framework.Env, probes []probe) ([]string, []framework.Response) {
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
	where := servedBy(ctx, env, ids, 5*time.Second)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = where[id]
	}
	return out, resps
}
