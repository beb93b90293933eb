package campaign

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// A child's output is passed on behind its prefix, and the lines that say why it failed
// come back for the index: its error, and a known upstream defect it named.
func TestPrefixLinesKeepsWhy(t *testing.T) {
	child := "starting apiserver-1\nerror: upgrading apiserver-1: apiserver-1 (v1.34.4) exited before it was ready; its log ends with:\n    panic: ...\n" +
		"known upstream defect: kube-apiserver 1.33 and 1.34 crash (nil pointer)\n"
	var out bytes.Buffer
	why := prefixLines(&out, strings.NewReader(child), "[pair] ")
	want := []string{"upgrading apiserver-1: apiserver-1 (v1.34.4) exited before it was ready; its log ends with:",
		"known upstream defect: kube-apiserver 1.33 and 1.34 crash (nil pointer)"}
	if !slices.Equal(why, want) {
		t.Errorf("why = %q, want %q", why, want)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(line, "[pair] ") {
			t.Errorf("line without prefix: %q", line)
		}
	}
}

// A child that fails naming a known upstream defect hands the defect back for the index;
// one that succeeds hands back nothing, even if it printed such a line on the way. Only a
// line that is exactly a known defect, for a version of the pair, counts: a line that
// merely begins like one, or a defect of versions the pair does not have, leaves the
// failure a failure.
func TestRunChildReturnsTheKnownDefect(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	crash := local.KnownDefects[1]
	named := func(line string) string {
		return "echo 'error: upgrading apiserver-1: exited'\necho '" + line + "'\nexit 1\n"
	}
	failing := script("failing", named(crash.Line()))
	pair := []string{"v1.33.13", "v1.34.4"}
	defect, err := runChild(context.Background(), io.Discard, failing, "[pair] ", pair, []string{"upgrade"})
	if err == nil || defect != crash.Text {
		t.Errorf("runChild = %q, %v; want the defect and an error", defect, err)
	}
	for name, c := range map[string]struct {
		line     string
		versions []string
	}{
		"a line that begins like a defect": {local.KnownDefectPrefix + "1.33 and 1.34 crash", pair},
		"a defect with more after it":      {crash.Line() + " and something else", pair},
		"a defect the pair cannot have":    {crash.Line(), []string{"v1.35.4", "v1.36.3"}},
	} {
		if defect, err := runChild(context.Background(), io.Discard, script(strings.ReplaceAll(name, " ", "-"), named(c.line)), "[pair] ", c.versions, []string{"upgrade"}); err == nil || defect != "" {
			t.Errorf("%s: runChild = %q, %v; want a failure and no known defect", name, defect, err)
		}
	}
	passing := script("passing", "echo '"+crash.Line()+"'\nexit 0\n")
	if defect, err := runChild(context.Background(), io.Discard, passing, "[pair] ", pair, []string{"upgrade"}); err != nil || defect != "" {
		t.Errorf("runChild = %q, %v; want nothing from a child that succeeded", defect, err)
	}
}
