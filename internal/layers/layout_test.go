package layers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layoutPage is the page whose Layout section draws the module's tree.
const layoutPage = "docs/development.md"

// layoutEntries are the directories the Layout section of page names, each as its path in
// the module: the section's indented block, where an entry is a line indented by 4 spaces
// and 2 more per level below the top whose first word ends in "/" ("app/" under
// "cmd/skewcheck/" is cmd/skewcheck/app). The lines of an entry's description are indented
// to its column, further than any entry.
func layoutEntries(page string) ([]string, error) {
	_, rest, ok := strings.Cut(page, "\n## Layout\n")
	if !ok {
		return nil, fmt.Errorf("no section ## Layout")
	}
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	var parents, out []string
	for _, line := range strings.Split(rest, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		word, _, _ := strings.Cut(trimmed, " ")
		if indent < 4 || indent > 16 || (indent-4)%2 != 0 || !strings.HasSuffix(word, "/") {
			continue
		}
		level := (indent - 4) / 2
		if level > len(parents) {
			return nil, fmt.Errorf("%q is indented below no entry", line)
		}
		parents = append(parents[:level], strings.TrimSuffix(word, "/"))
		out = append(out, strings.Join(parents, "/"))
	}
	return out, nil
}

// layoutDrift says what the layout misses of packages (paths in the module) and what it
// names that is no directory (exists says whether one is).
func layoutDrift(entries, packages []string, exists func(string) bool) []string {
	var out []string
	for _, p := range packages {
		if !slices.Contains(entries, p) {
			out = append(out, fmt.Sprintf("package %s is not in the layout: add it, under its parent, with what it holds", p))
		}
	}
	for _, e := range entries {
		if !exists(e) {
			out = append(out, fmt.Sprintf("the layout names %s/, which is no directory of the module: remove it or name where it went", e))
		}
	}
	return out
}

// TestLayoutIsTheModulesPackages: the Layout of docs/development.md names every package
// `go list ./...` lists, and nothing that is gone, so the picture a newcomer reads first
// cannot drift from the code again (it named framework/discovery after the move to
// framework/apis/discovery, and left out a dozen packages).
func TestLayoutIsTheModulesPackages(t *testing.T) {
	root, prefix, err := module()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, layoutPage))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := layoutEntries(string(page))
	if err != nil {
		t.Fatalf("%s: %v", layoutPage, err)
	}
	out, err := run(root, "go", "list", "./...")
	if err != nil {
		t.Fatal(err)
	}
	var packages []string
	for _, p := range strings.Fields(out) {
		packages = append(packages, strings.TrimPrefix(p, prefix))
	}
	if len(entries) < 40 || len(packages) < 40 {
		t.Fatalf("%d entries in %s's layout, %d packages: the reading no longer finds them", len(entries), layoutPage, len(packages))
	}
	exists := func(rel string) bool {
		fi, err := os.Stat(filepath.Join(root, rel))
		return err == nil && fi.IsDir()
	}
	for _, d := range layoutDrift(entries, packages, exists) {
		t.Errorf("%s: %s", layoutPage, d)
	}
}

func TestLayoutDrift(t *testing.T) {
	page := "# P\n\n## Layout\n\n" +
		"    cmd/skewcheck/     the CLI\n" +
		"      app/             the commands, and a description that goes on\n" +
		"                       over/ lines of its own\n" +
		"    framework/         the core\n" +
		"      discovery/       moved away\n" +
		"      apis/            neutral\n" +
		"        gateway/v1alpha1/  documents\n" +
		"    docs/              pages\n\n## Next\n\n    other/   not the layout\n"
	entries, err := layoutEntries(page)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cmd/skewcheck", "cmd/skewcheck/app", "framework", "framework/discovery", "framework/apis", "framework/apis/gateway/v1alpha1", "docs"}
	if !slices.Equal(entries, want) {
		t.Fatalf("entries %q, want %q", entries, want)
	}
	dirs := map[string]bool{"cmd/skewcheck": true, "cmd/skewcheck/app": true, "framework": true, "framework/apis": true, "framework/apis/gateway/v1alpha1": true, "docs": true, "framework/apis/discovery": true}
	got := layoutDrift(entries, []string{"cmd/skewcheck", "cmd/skewcheck/app", "framework", "framework/apis/discovery", "framework/apis/gateway/v1alpha1"}, func(d string) bool { return dirs[d] })
	wantDrift := []string{
		"package framework/apis/discovery is not in the layout: add it, under its parent, with what it holds",
		"the layout names framework/discovery/, which is no directory of the module: remove it or name where it went",
	}
	if !slices.Equal(got, wantDrift) {
		t.Errorf("drift\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDrift, "\n"))
	}
	if _, err := layoutEntries("# no layout here\n"); err == nil {
		t.Error("a page without a Layout section: no error")
	}
}
