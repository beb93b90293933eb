package front

import (
	"context"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// SkewRenewal rewrites a proxy's lease's renewTime (framework.RenewTimes); the proxy's next
// renewal (every 5 s) writes its own again.
func (r *LeaseRegistrar) SkewRenewal(ctx context.Context, name string, skew time.Duration, done time.Time) (time.Time, error) {
	cs, err := r.Client()
	if err != nil {
		return time.Time{}, err
	}
	return framework.SkewLeaseRenewal(ctx, cs.CoordinationV1().Leases(r.Namespace), name, skew, done)
}
