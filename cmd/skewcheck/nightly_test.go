package main

import (
	"bytes"
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
