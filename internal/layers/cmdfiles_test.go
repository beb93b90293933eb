package layers

import (
	"path/filepath"
	"sort"
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

// inCmd is what find finds in the files of cmdFiles, sorted.
func inCmd(t *testing.T, find func(file string) ([]string, error)) []string {
	t.Helper()
	var found []string
	for _, file := range cmdFiles(t) {
		got, err := find(file)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, got...)
	}
	sort.Strings(found)
	return found
}
