package app

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// TestMakefileShapesAreTheClustersShapes: make conformance spells its clusters out as
// conformance flags (CONFORMANCE_FLAGS, THREE_SERVERS), which the CLI must read as the
// shapes of package clusters the Go callers use, so the two cannot drift apart.
func TestMakefileShapesAreTheClustersShapes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	mk := makeVariables(string(b))
	versions := strings.Split(mk.expand("$(VERSIONS)"), ",")
	if len(versions) != 2 {
		t.Fatalf("the Makefile's VERSIONS is %q, want a pair", mk.expand("$(VERSIONS)"))
	}
	for _, c := range []struct {
		variable string
		want     []clusters.ServerSpec
	}{
		{"CONFORMANCE_FLAGS", clusters.SkewedPair(versions[0], versions[1])},
		{"THREE_SERVERS", clusters.HighlyAvailable(mk.expand("$(OLDEST)"), mk.expand("$(NEWEST)"))},
	} {
		flags := mk.expand("$(" + c.variable + ")")
		f := &conformanceFlags{timeouts: framework.DefaultTimeouts()}
		if err := conformanceCommandWith(IOStreams{}, f).ParseFlags(strings.Fields(flags)); err != nil {
			t.Fatalf("%s (%s): %v", c.variable, flags, err)
		}
		got, err := f.servers.specs()
		if err != nil {
			t.Fatalf("%s (%s): %v", c.variable, flags, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("the Makefile's %s (%s) makes %+v, want package clusters' shape %+v", c.variable, flags, got, c.want)
		}
	}
	if got, want := mk.expand("$(NIGHTLY_VERSIONS)"), strings.Join(clusters.NightlyVersions, ","); got != want {
		t.Errorf("the Makefile's NIGHTLY_VERSIONS is %s, want clusters.NightlyVersions, %s", got, want)
	}
}

// makefile holds a Makefile's variables, as written (continuation lines joined).
type makefile map[string]string

var makeAssignment = regexp.MustCompile(`(?m)^(?:export )?([A-Za-z_]+) *(?:\?=|:=|=) ?(.*)$`)

func makeVariables(text string) makefile {
	mk := makefile{}
	for _, m := range makeAssignment.FindAllStringSubmatch(strings.ReplaceAll(text, "\\\n", " "), -1) {
		mk[m[1]] = strings.TrimSpace(m[2])
	}
	return mk
}

// expand expands s as make would, for the little the shapes' variables use: variables and
// the functions subst, firstword and lastword.
func (mk makefile) expand(s string) string {
	var out strings.Builder
	for {
		start := strings.Index(s, "$(")
		if start < 0 {
			return out.String() + s
		}
		out.WriteString(s[:start])
		depth, end := 0, start+1
		for ; end < len(s); end++ {
			if s[end] == '(' {
				depth++
			} else if s[end] == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		out.WriteString(mk.reference(s[start+2 : end]))
		s = s[end+1:]
	}
}

// reference is the value of $(inner): a function's result or a variable's expanded value.
func (mk makefile) reference(inner string) string {
	name, args, isCall := strings.Cut(inner, " ")
	switch {
	case isCall && name == "subst":
		// make splits a call's arguments at its own commas, before expanding them
		a := splitArgs(args, 3)
		return strings.ReplaceAll(mk.expand(a[2]), mk.expand(a[0]), mk.expand(a[1]))
	case isCall && name == "firstword":
		return strings.Fields(mk.expand(args))[0]
	case isCall && name == "lastword":
		w := strings.Fields(mk.expand(args))
		return w[len(w)-1]
	}
	return mk.expand(mk[inner])
}

// splitArgs splits a call's arguments at the commas outside parentheses.
func splitArgs(s string, n int) []string {
	var args []string
	depth, from := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0 && len(args) < n-1:
			args = append(args, s[from:i])
			from = i + 1
		}
	}
	return append(args, s[from:])
}
