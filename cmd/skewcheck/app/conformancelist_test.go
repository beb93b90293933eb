//go:build !incluster

package app

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// listIDs runs conformance --list with args and returns the IDs it printed, and its
// output and exit code.
func listIDs(t *testing.T, args ...string) ([]string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(append([]string{"conformance", "--list"}, args...), IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	var ids []string
	for _, line := range strings.Split(out.String(), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			ids = append(ids, f[0])
		}
	}
	return ids, out.String() + errOut.String(), code
}

func idsOf(tests []framework.Test) []string {
	var out []string
	for _, t := range tests {
		out = append(out, t.ID)
	}
	return out
}

// TestListHonoursSelection: --list alone is every profile's tests; with --profiles,
// --focus, --skip or --gateway it is exactly what a run with them selects, and a selection
// of no test is refused as the run refuses it.
func TestListHonoursSelection(t *testing.T) {
	if ids, out, code := listIDs(t); code != 0 || !slices.Equal(ids, idsOf(suites.All())) {
		t.Errorf("--list alone: exit %d, %d tests, want all %d:\n%s", code, len(ids), len(suites.All()), out)
	}
	defaults, _ := framework.Select(suites.All(), suites.DefaultProfiles)
	mvp, _ := framework.Select(suites.All(), []string{"mvp"})
	chaos, _ := framework.Select(suites.All(), []string{"chaos"})
	gateway, _ := framework.Select(suites.All(), []string{"gateway"})
	focus := func(tests []framework.Test, focus, skip string) []string {
		left, err := framework.Focus(tests, focus, skip)
		if err != nil || len(left) == 0 {
			t.Fatalf("the test's own selection %q/%q: %d tests, %v", focus, skip, len(left), err)
		}
		return idsOf(left)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--focus", "MVP-01"}, focus(defaults, "MVP-01", "")},
		{[]string{"--skip", "MVP"}, focus(defaults, "", "MVP")},
		{[]string{"--profiles", "mvp", "--focus", "MVP-01", "--skip", "MVP-01[0-2]"}, focus(mvp, "MVP-01", "MVP-01[0-2]")},
		{[]string{"--profiles", "chaos"}, idsOf(chaos)},
		{[]string{"--gateway", "reference"}, idsOf(gateway)},
	} {
		ids, out, code := listIDs(t, c.args...)
		if code != 0 || !slices.Equal(ids, c.want) {
			t.Errorf("--list %s: exit %d, %v; want %v:\n%s", strings.Join(c.args, " "), code, ids, c.want, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--focus", "MVP-0O1"}, "the nearest IDs are MVP-001"},
		{[]string{"--focus", "CHAOS-001"}, "only tests of chaos: give --profiles chaos"},
		{[]string{"--profiles", "mvp", "--skip", "."}, "skips every test of --profiles mvp"},
	} {
		if _, out, code := listIDs(t, c.args...); code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("--list %s: exit %d, want 1 and %q:\n%s", strings.Join(c.args, " "), code, c.want, out)
		}
	}
}

// TestListOutput: --list -o json and -o yaml print the selected tests as objects with
// lowerCamel names, -o text (the default) the table; another -o, or -o without --list, is
// refused naming what to give.
func TestListOutput(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		out, code := runApp(t, t.TempDir(), "conformance", "--list", "--profiles", "mvp", "--focus", "MVP-01", "-o", format)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, out)
		}
		var got []map[string]any
		if err := yaml.Unmarshal([]byte(out), &got); err != nil || len(got) == 0 {
			t.Fatalf("-o %s: %v:\n%s", format, err, out)
		}
		for _, key := range []string{"id", "profile", "description", "since", "until", "needs"} {
			if _, ok := got[0][key]; !ok {
				t.Errorf("-o %s: no %q in %v", format, key, got[0])
			}
		}
		if got[0]["id"] != "MVP-010" || got[0]["profile"] != "mvp" {
			t.Errorf("-o %s: first %v, want MVP-010 of mvp", format, got[0])
		}
		if format == "json" && !json.Valid([]byte(out)) {
			t.Errorf("-o json is not JSON:\n%s", out)
		}
	}
	if out, code := runApp(t, t.TempDir(), "conformance", "--list", "-o", "text", "--focus", "MVP-010"); code != 0 || !strings.HasPrefix(out, "ID ") || !strings.Contains(out, "MVP-010") {
		t.Errorf("-o text: exit %d:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"conformance", "--list", "-o", "xml"}, `invalid argument "xml" for "-o, --output" flag: give text, json or yaml`},
		{[]string{"conformance", "-o", "json"}, "it goes with --list"},
		{[]string{"cluster", "list", "-o", "table"}, "give text, json or yaml"},
		{[]string{"cluster", "skew", "-o", "wide"}, "give text, json or yaml"},
	} {
		if out, code := runApp(t, t.TempDir(), c.args...); code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want 1 and %q:\n%s", strings.Join(c.args, " "), code, c.want, out)
		}
	}
}
