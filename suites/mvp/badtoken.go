package mvp

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// badTokens are bearer tokens no apiserver accepts: one opaque, one shaped like a service
// account JWT that expired long ago (its signature is not valid either).
func badTokens() []string {
	enc := base64.RawURLEncoding.EncodeToString
	jwt := enc([]byte(`{"alg":"RS256","kid":"skewcheck"}`)) + "." +
		enc([]byte(fmt.Sprintf(`{"iss":"https://kubernetes.default.svc","sub":"system:serviceaccount:default:default","exp":%d}`, time.Now().Add(-24*time.Hour).Unix()))) +
		"." + enc([]byte("not-a-signature"))
	return []string{"skewcheck-invalid-token", jwt}
}

// badTokenUnauthorized: a request with a token the apiservers reject is answered 401
// Unauthorized through the proxy, as by the peer directly, and goes no further. Answering
// it as anonymous instead would keep client-go's credential plugins from refreshing.
func badTokenUnauthorized(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		for _, token := range badTokens() {
			paths := []string{r.GVR.CollectionPath(testNamespace()), "/api/v1/namespaces/" + testNamespace() + "/configmaps"}
			for _, path := range paths {
				req := framework.Request{Path: path, As: framework.AsAnonymous, Header: map[string][]string{"Authorization": {"Bearer " + token}}}
				Expect(r.Peer.Do(ctx, req)).To(framework.BeStatus(401, "Unauthorized"), "a rejected token directly at %s", r.Peer.Name)
				via := r.Entry.Do(ctx, req)
				Expect(via).To(framework.BeStatus(401, "Unauthorized"), "a rejected token through %s must be answered as %s answers it", r.Entry.Name, r.Peer.Name)
				if !r.PeerAuditLogs() {
					continue
				}
				events, err := r.PeerAuditEvents(ctx, via.AuditID, time.Second)
				Expect(err).NotTo(HaveOccurred())
				for _, ev := range events {
					Expect(ev.ResponseStatus.Code).To(Equal(401), "a request with a rejected token reached a server that serves %s (%s) as %s", r.GVR.Key(), r.PeerNames(), ev.User.Username)
				}
			}
		}
	}
}
