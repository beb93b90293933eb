package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
// one that succeeds hands back nothing, even if it printed such a line on the way.
func TestRunChildReturnsTheKnownDefect(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	failing := script("failing", "echo 'error: upgrading apiserver-1: exited'\necho 'known upstream defect: 1.33 and 1.34 crash'\nexit 1\n")
	defect, err := runChild(context.Background(), failing, "[pair] ", []string{"upgrade"})
	if err == nil || defect != "1.33 and 1.34 crash" {
		t.Errorf("runChild = %q, %v; want the defect and an error", defect, err)
	}
	passing := script("passing", "echo 'known upstream defect: 1.33 and 1.34 crash'\nexit 0\n")
	if defect, err := runChild(context.Background(), passing, "[pair] ", []string{"upgrade"}); err != nil || defect != "" {
		t.Errorf("runChild = %q, %v; want nothing from a child that succeeded", defect, err)
	}
}
