package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// PathBypassed checks that the target's peer traffic really passes where network faults
// are placed before placing them: with the path closed by closed (refused: open
// connections dropped too, new ones refused), a request that must reach the peer has to
// fail. If it still succeeds, the traffic goes around the path and every network fault
// would measure nothing; the reason is returned, "" when the path is used.
func PathBypassed(ctx context.Context, route framework.Route, closed faults.Fault) string {
	heal, err := faults.Inject(ctx, closed)
	if err != nil {
		return "could not check the peer path: " + err.Error()
	}
	defer heal(ctx)
	list := route.GVR.Path() + "?limit=1"
	deadline := time.Now().Add(5 * time.Second)
	var last framework.Response
	for time.Now().Before(deadline) {
		last = probe(ctx, route.Entry, framework.Request{Path: list})
		if last.Status != 200 {
			return ""
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Sprintf("%s still reaches %s (HTTP %d) with its peer traffic closed (%s): network faults there would not touch this target's traffic",
		route.Entry.Name, route.Peer.Name, last.Status, closed.Description())
}
