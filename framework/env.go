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
	// DiscoveryLeave bounds how long a server that left may stay in merged discovery.
	DiscoveryLeave time.Duration `json:"discoveryLeave"`
}

// DefaultTimeouts are generous for a 2-core machine and far below what a user would wait.
func DefaultTimeouts() Timeouts {
	return Timeouts{Request: 30 * time.Second, Converge: 90 * time.Second, Unavailable: 60 * time.Second, DiscoveryLeave: 60 * time.Second}
}

// Map renders the timeouts for the report.
func (t Timeouts) Map() map[string]string {
	return map[string]string{
		"request": t.Request.String(), "converge": t.Converge.String(),
		"unavailable": t.Unavailable.String(), "discoveryLeave": t.DiscoveryLeave.String(),
	}
}

// Env is what a running test gets: the target and the run's settings.
type Env struct {
	Target       *Target
	Timeouts     Timeouts
	ArtifactsDir string
}

// Measure records a figure the test took (seconds, counts) into the report.
func (e *Env) Measure(name string, value float64) {
	ginkgo.AddReportEntry(measurePrefix+name, value)
}

const (
	measurePrefix  = "measure:"
	deviationEntry = "known-deviation"
	artifactsEntry = "artifacts"
)
