package owners

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// AwaitCollectorCaughtUp returns once the garbage collector has seen every ConfigMap made
// in namespace before the call. An owner deleted with propagationPolicy Orphan loses its
// orphan finalizer once the collector has freed the dependents in its graph; a dependent it
// had not yet seen is then dangling, and collected: upstream's race, not the skew's harm.
// So the callers wait for it first, by an informer barrier: a probe ConfigMap is made
// through e owned by a ConfigMap that never existed, and the collector deletes it once it
// sees it. Its graph takes ConfigMap events one at a time in their order, so by then it
// holds every earlier one.
func AwaitCollectorCaughtUp(ctx context.Context, e *framework.Endpoint, namespace string, bound time.Duration) error {
	never := Ref{GVR: ConfigMaps, Namespace: namespace, Name: fixtures.UniqueName("ctrl-never-owner"), UID: string(uuid.NewUUID())}
	probe, err := CreateDependent(ctx, e, never, fixtures.UniqueName("ctrl-caught-up"), namespace)
	if err != nil {
		return err
	}
	status := 0
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, bound, true, func(ctx context.Context) (bool, error) {
		status, _ = Get(ctx, e, probe)
		return status == 404, nil
	})
	if err != nil {
		_ = Remove(context.WithoutCancel(ctx), e, probe)
		return fmt.Errorf("the garbage collector did not collect %s, owned by a ConfigMap that never existed, within %s (last read %d): is a kube-controller-manager running with its garbage collector?", probe, bound, status)
	}
	return nil
}
