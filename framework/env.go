package framework

import (
	"time"

	"github.com/onsi/ginkgo/v2"
)

// Timeouts bound every wait in the suites. They are in the report, so a run can be
// reproduced with the same patience.
type Timeouts struct {
	// Request bounds one probe.
	Request time.Duration `json:"request"`
	// Converge bounds waiting for every proxy path to be live (after start or a node operation).
	Converge time.Duration `json:"converge"`
	// Unavailable bounds how long a proxy may take to answer 503 once its peer is gone.
	Unavailable time.Duration `json:"unavailable"`
	// Refused bounds the time to 503 once a peer refuses connections (it crashed): no
	// timeout has to expire first, so this bound is tight.
	Refused time.Duration `json:"refused"`
	// DiscoveryLeave bounds how long a server that left may stay in merged discovery.
	DiscoveryLeave time.Duration `json:"discoveryLeave"`
	// Hold is how long a fault that leaves the server registered but silent (freeze,
	// blackhole, half-open path, a crash with its lease left behind) is held: well past
	// every refresh, cache and timeout of the proxy under test, so a proxy that forgets a
	// silent peer after a while (and answers 404) is caught. Not a bound: the tests wait it
	// out in full.
	Hold time.Duration `json:"hold"`
	// Spec bounds one whole test; 0 derives it from the others (SpecBound). At the bound
	// ginkgo cancels the test's context, fails it, and moves on.
	Spec time.Duration `json:"spec"`
}

// SpecBound is how long one test may take: Spec, or enough for the slowest test's waits
// (a hold past the time to 503, a recovery and two convergences) with room to spare.
func (t Timeouts) SpecBound() time.Duration {
	if t.Spec > 0 {
		return t.Spec
	}
	return 2 * (t.Unavailable + t.Hold + 2*t.Converge + t.Request)
}

// DefaultTimeouts are generous for a 2-core machine and far below what a user would wait.
func DefaultTimeouts() Timeouts {
	return Timeouts{Request: 30 * time.Second, Converge: 90 * time.Second, Unavailable: 60 * time.Second, Refused: 5 * time.Second,
		DiscoveryLeave: 60 * time.Second, Hold: 60 * time.Second}
}

// WithHold is t with silent faults and stale leases held d past the first 503.
func (t Timeouts) WithHold(d time.Duration) Timeouts {
	t.Hold = d
	return t
}

// Map renders the timeouts for the report.
func (t Timeouts) Map() map[string]string {
	return map[string]string{
		"request": t.Request.String(), "converge": t.Converge.String(),
		"unavailable": t.Unavailable.String(), "discoveryLeave": t.DiscoveryLeave.String(),
		"refused": t.Refused.String(), "hold": t.Hold.String(), "spec": t.SpecBound().String(),
	}
}

// Env is what a running test gets: the target and the run's settings.
type Env struct {
	Target       *Target
	Timeouts     Timeouts
	ArtifactsDir string

	// current is the running test, for Deviation.
	current Test
	// evidence is what the running test's probes sent and received.
	evidence evidence
}

// Measure records a figure the test took (seconds, counts) into the report.
func (e *Env) Measure(name string, value float64) {
	ginkgo.AddReportEntry(measurePrefix+name, value)
}

const (
	measurePrefix       = "measure:"
	deviationEntry      = "known-deviation"
	deviationCheckEntry = "deviation-check"
	artifactsEntry      = "artifacts"
)
