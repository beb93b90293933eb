package framework

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	gtypes "github.com/onsi/ginkgo/v2/types"
)

// Progress, when set, is told of each test as it ends, in a line starting "•" (the mark
// ginkgo's console gives a spec that ran): "• [ID] description: passed in 1.2s". Ginkgo's
// console writes to the process's stdout alone; a run inside a cluster writes these lines
// to its e2e.log too, where hydrophone counts one "•" per finished spec after "Will run N
// of M specs" (its watchStatus). Ginkgo allows one run per process (Run), so there is one
// sink per process, as there is one footprint.
var Progress io.Writer

// reportProgress has ginkgo tell Progress of each test that ran as it ends; Run calls it
// while the spec tree is built. A test --focus or --skip left out never ran: ginkgo
// reports it skipped with no message, and it is not told, so the lines add up to the N of
// "Will run N of M specs".
func reportProgress() {
	w := Progress
	if w == nil {
		return
	}
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) {
		if r.State == gtypes.SpecStateSkipped && r.Failure.Message == "" {
			return
		}
		line := fmt.Sprintf("• %s: %s in %s", r.LeafNodeText, r.State, r.RunTime.Round(time.Millisecond))
		if why, _, _ := strings.Cut(r.Failure.Message, "\n"); why != "" {
			line += ": " + why
		}
		fmt.Fprintln(w, line)
	})
}
