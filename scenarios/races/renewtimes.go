package races

import (
	"context"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// IdentityLeases is upstream's registrar, kube-apiserver identity leases, read and written
// through e as its admin: for what acts on registrations outside the races (the lease time
// faults of the chaos table).
func IdentityLeases(e *framework.Endpoint) (framework.RenewTimes, error) {
	return identityLeasesVia(e)
}

// SkewRenewal rewrites an identity lease's renewTime (framework.RenewTimes). The lease
// controller (k8s.io/component-helpers apimachinery/lease controller.go) then fails its
// next update on the resourceVersion, reads the lease again and writes its own time: a
// skewed lease stays so for at most one renewal period (10 s) once nothing rewrites it.
func (r identityLeases) SkewRenewal(ctx context.Context, name string, skew time.Duration, done time.Time) (time.Time, error) {
	return framework.SkewLeaseRenewal(ctx, r.cs.CoordinationV1().Leases("kube-system"), name, skew, done)
}
