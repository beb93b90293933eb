//go:build !incluster

package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// TestVerbosityLevels: -v is a level on every command, typed as kubectl users type it
// (-v=4, -v 4, --v=2); from 1 on conformance prints every test as it runs, as the
// deprecated --verbose still does (with a warning on ErrOut, never on Out).
func TestVerbosityLevels(t *testing.T) {
	for _, c := range []struct {
		args    []string
		level   int
		verbose bool
	}{
		{nil, 0, false},
		{[]string{"-v=4"}, 4, true},
		{[]string{"-v", "4"}, 4, true},
		{[]string{"--v=2"}, 2, true},
		{[]string{"-v=0"}, 0, false},
		{[]string{"--verbose"}, 0, true},
	} {
		f := &conformanceFlags{timeouts: framework.DefaultTimeouts()}
		var out, errOut bytes.Buffer
		cmd := underRoot(conformanceCommandWith(IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, f))
		cmd.Root().SetArgs(append([]string{"conformance", "--list"}, c.args...))
		if err := cmd.Root().Execute(); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := verbosityOf(cmd); got != c.level || f.run.Verbose != c.verbose {
			t.Errorf("%v: level %d, verbose %v; want %d, %v", c.args, got, f.run.Verbose, c.level, c.verbose)
		}
		if warned := strings.Contains(errOut.String(), "--verbose is deprecated: give -v=1"); warned != (c.args != nil && c.args[0] == "--verbose") || strings.Contains(out.String(), "deprecated") {
			t.Errorf("%v: ErrOut %q, Out has the warning: %v", c.args, errOut.String(), strings.Contains(out.String(), "deprecated"))
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"conformance", "--list", "-v"}, "-v takes a level, as kubectl's does: -v=1"},
		{[]string{"conformance", "-v", "--list"}, "-v takes a level, 0 or more"},
		{[]string{"version", "-v=-1"}, "-v takes a level, 0 or more"},
	} {
		if out, code := runApp(t, t.TempDir(), c.args...); code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want 1 and %q:\n%s", strings.Join(c.args, " "), code, c.want, out)
		}
	}
	// On every command, before or after it; --version, long only now, as it was.
	for _, args := range [][]string{{"-v=3", "version"}, {"version", "-v", "3"}, {"--version"}} {
		if out, code := runApp(t, t.TempDir(), args...); code != 0 || !strings.Contains(out, "skewcheck version") {
			t.Errorf("%v: exit %d:\n%s", args, code, out)
		}
	}
}

// TestVerbosityParsedApart: what parses conformance's flags apart from a run (certify's
// --conformance-flag, the in-cluster plan's E2E_EXTRA_ARGS) takes -v as the run will.
func TestVerbosityParsedApart(t *testing.T) {
	env := hydrophoneEnv(map[string]string{"E2E_EXTRA_ARGS": "--v=2"})
	if _, err := planInCluster(envOf(env)); err != nil {
		t.Errorf("E2E_EXTRA_ARGS=--v=2: %v", err)
	}
	if err := checkConformanceFlags([]string{"-v=4"}); err != nil {
		t.Errorf("certify --conformance-flag=-v=4: %v", err)
	}
}
