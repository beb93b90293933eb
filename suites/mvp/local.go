package mvp

import (
	"context"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// servedLocally: every endpoint serves configmaps itself; the request must appear in its
// own audit log and in no other server's.
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
			events, err := other.AuditEvents(ctx, resp.AuditID, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(events).To(BeEmpty(), "%s served configmaps itself, yet %s also saw request %s", e.Name, other.Name, resp.AuditID)
		}
	}
}
