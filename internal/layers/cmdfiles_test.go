package layers

import (
	"path/filepath"
	"strings"
	"testing"
)

// cmdFiles are the CLI's Go files, tests left out (a test may name what it tests): those
// of cmd/<command>/ and cmd/<command>/<package>/.
func cmdFiles(t *testing.T) []string {
	t.Helper()
	root, err := run(".", "go", "list", "-m", "-f", "{{.Dir}}")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(strings.TrimSpace(root), "cmd", "*", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(strings.TrimSpace(root), "cmd", "*", "*.go"))
	var out []string
	for _, file := range append(files, more...) {
		if !strings.HasSuffix(file, "_test.go") {
			out = append(out, file)
		}
	}
	if len(out) < 10 {
		t.Fatalf("read only %d files of cmd/: the glob no longer finds the CLI", len(out))
	}
	return out
}
