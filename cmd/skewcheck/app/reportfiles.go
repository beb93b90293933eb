package app

import (
	"fmt"
	"os"
	"path/filepath"
)

// reportFile is one file of a command's report: its name under --report-dir and content.
type reportFile struct {
	name string
	data []byte
}

// writeReport writes files under dir (made if need be). A run's outcomes are printed
// before its report is written, so an error here says they are the only record left and
// what to change, instead of a run that looks recorded and is not.
func writeReport(dir string, files ...reportFile) error {
	err := os.MkdirAll(dir, 0o755)
	for _, f := range files {
		if err != nil {
			break
		}
		err = os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("writing the report under --report-dir %s (the outcomes printed above are all that is left of this run): %w; give a --report-dir this user can write", dir, err)
	}
	return nil
}
