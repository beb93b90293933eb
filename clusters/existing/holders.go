package existing

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Holders are the holder identities of the found servers' identity leases now, by
// endpoint name (scenarios/upgrade.IdentityHolders): every kube-apiserver start writes a
// new holder into the same lease, so an observer tells a restart from a readiness gap by
// it. A server whose lease was not matched at the start, or is absent now (a graceful stop
// deletes it from 1.35), is left out.
func (c *cluster) Holders(ctx context.Context) (map[string]string, error) {
	leases, err := c.listing.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: identityLabel})
	if err != nil {
		return nil, err
	}
	byLease := map[string]string{}
	for _, l := range leases.Items {
		if l.Spec.HolderIdentity != nil {
			byLease[l.Name] = *l.Spec.HolderIdentity
		}
	}
	out := map[string]string{}
	for i, s := range c.found.Servers {
		if h, ok := byLease[s.Lease]; ok && s.Lease != "" {
			out[c.target.Endpoints[i].Name] = h
		}
	}
	return out, nil
}
