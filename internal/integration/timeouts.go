package integration

import (
	"fmt"
	"os"
	"time"
)

// HoldEnv sets how long the integration tests hold a silent fault (and a stale lease) past
// its first 503: a Go duration. `make soak` sets it to the CLI's default, 60 s.
const HoldEnv = "SKEWCHECK_TEST_HOLD"

// testHold is make test's hold: 20 s outlasts every refresh a hold is there to outlast on
// both sides of the comparison (upstream's 15 s endpoint-lease TTL and 10 s identity-lease
// renewals; the reference's 1 s peer sync and 5 s lease renewals), so a proxy that turns
// 503 into 404 when one of them fires is still caught. The CLI's 60 s adds margin, not a
// refresh: it runs in make soak, make conformance and the nightly.
const testHold = 20 * time.Second

// Hold is the hold of a silent fault in this run: HoldEnv, else testHold. Tests run the
// suites with framework.DefaultTimeouts().WithHold(integration.Hold()). A value that does
// not parse stops the run: a soak that silently ran the short hold would pass for one.
func Hold() time.Duration {
	v := os.Getenv(HoldEnv)
	if v == "" {
		return testHold
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		panic(fmt.Sprintf("%s=%q: want a positive Go duration such as 60s", HoldEnv, v))
	}
	return d
}

// Soak reports whether this is `make soak` (HoldEnv set): the run that also takes the full
// tables make test keeps one instance of (each test says which instance guards it).
func Soak() bool { return os.Getenv(HoldEnv) != "" }
