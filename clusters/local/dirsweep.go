package local

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/skewcheck/skewcheck/clusters/process"
)

// dirPrefix names a cluster's own directory in the temporary directory:
// skewcheck-<pid>-<name>-<random>, so a directory whose run is gone can be told apart.
const dirPrefix = "skewcheck-"

var dirSweepOnce sync.Once

// sweepDirs removes the directories (certificates, etcd data, logs) of runs killed
// before they could delete their clusters; once per process, when it makes its first.
func sweepDirs() {
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		if e.IsDir() && process.OwnerGone(e.Name(), dirPrefix, "-") {
			os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}
