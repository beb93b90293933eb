package app

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkReportDir refuses a report directory that cannot be one: an existing file, or a path
// under a file. The report is written once the tests have run, so without this a run would
// learn it only then, its cluster made and its tests run for nothing. It makes nothing: a
// missing directory is made by whoever writes the report.
func checkReportDir(flag, dir string) error {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil {
			switch {
			case st.IsDir():
				return nil
			case d == filepath.Clean(dir):
				return fmt.Errorf("%s %s is a file: give a directory, or a path where one can be made", flag, dir)
			default:
				return fmt.Errorf("%s %s cannot be made, since %s is a file: give a directory, or a path where one can be made", flag, dir, d)
			}
		}
		if filepath.Dir(d) == d {
			return nil // nothing of the path exists: writing the report says why
		}
	}
}
