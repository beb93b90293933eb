package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// WriteEmulation writes the comparison to dir as emulation.json and emulation.md (md, its
// Markdown, as printed).
func WriteEmulation(dir string, e matrix.Emulation, md string) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, matrix.EmulationJSONFile), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, matrix.EmulationFile), []byte(md), 0o644)
}

// EmulationVerdict is the comparison's outcome, as conformance's: a difference or a
// failure is Failed, an incomplete run Incomplete.
func EmulationVerdict(e matrix.Emulation, real, emulated *report.Conformance, seed int64) error {
	if d := e.Differing(); len(d) > 0 {
		return Failed{fmt.Errorf("emulation did not predict the real skew: %d of %d tests differ, %s (the table says why; replay with --seed %d)", len(d), len(e.Rows), strings.Join(d, ", "), seed)}
	}
	if real.Verdict() == report.VerdictFailed || emulated.Verdict() == report.VerdictFailed {
		return Failed{fmt.Errorf("both pairs agree, but a test failed on both: %s (emulation predicted the failure; see each run's report)", real.FailingProfiles())}
	}
	if real.Verdict() == report.VerdictIncomplete || emulated.Verdict() == report.VerdictIncomplete {
		return Incomplete{fmt.Errorf("incomplete: the pairs agree and nothing failed, but tests that apply could not run (NOT TESTED in each run's output)")}
	}
	return nil
}
