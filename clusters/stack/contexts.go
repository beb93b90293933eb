package stack

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
)

// footprint gives a target of endpoints named by hand a namespace and a label of the
// run's own, as on a cluster whose apiservers are found: what the tests make is recorded
// as the server answers each create, and exactly that is removed on Close. Such endpoints
// reach a cluster the run did not make, which no test disturbs unless the caller says it
// is theirs to disturb (Owned); then, being a vendor's proxies in front of a cluster of
// its own, what cannot run on them is missing (the profile partial), not inapplicable.
func footprint(ctx context.Context, c Contexts, t *framework.Target, progress io.Writer, u *undo) error {
	t.Unowned = !c.Owned
	fp, admin := existing.NewFootprint(time.Now()), t.Endpoints[0].Admin
	if err := fp.MakeNamespace(ctx, admin); err != nil {
		return fmt.Errorf("through context %s: %w", c.Admin[0], err)
	}
	u.push(func() error {
		if err := fp.Remove(admin); err != nil {
			return fmt.Errorf("removing what the run made: %w", err)
		}
		return nil
	})
	fp.Recorder.WrapTarget(t)
	t.Namespace, t.Run = fp.Namespace(), fp.Run
	fmt.Fprintf(progress, "%s: made through context %s, removed at the end\n", fp, c.Admin[0])
	return nil
}
