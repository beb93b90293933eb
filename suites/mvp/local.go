package mvp

import (
	"context"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// servedLocally: every endpoint serves configmaps itself; the request must appear in its
// own audit log and in no other server's. An audit backend may batch (kube-apiserver's
// --audit-log-mode=batch holds events up to --audit-log-batch-max-wait), so another
// server's log is read only once it holds a request sent to that server after the one
// judged: a forwarded copy of the first would have completed, and been audited, before it.
func servedLocally(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		resp := e.Do(ctx, framework.Request{Path: "/api/v1/namespaces/" + testNamespace() + "/configmaps?limit=1"})
		Expect(resp).To(framework.HaveStatus(200))
		own, err := e.AuditEvents(ctx, resp.AuditID, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(own).To(HaveLen(1), "%s should have audited request %s once", e.Name, resp.AuditID)
		for _, other := range env.Target.Endpoints {
			if other == e {
				continue
			}
			after := other.Do(ctx, framework.Request{Path: "/api/v1/namespaces/" + testNamespace() + "/configmaps?limit=1"})
			Expect(after).To(framework.HaveStatus(200))
			flushed, err := other.AuditEvents(ctx, after.AuditID, 35*time.Second) // past the batch backend's default wait, 30 s (k8s.io/apiserver v0.36.3 pkg/server/options/audit.go:52)
			Expect(err).NotTo(HaveOccurred())
			Expect(flushed).To(HaveLen(1), "%s should have audited request %s, sent to it after %s's, once", other.Name, after.AuditID, e.Name)
			events, err := other.AuditEvents(ctx, resp.AuditID, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(events).To(BeEmpty(), "%s served configmaps itself, yet %s also saw request %s", e.Name, other.Name, resp.AuditID)
		}
	}
}
