package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/front"
	_ "github.com/skewcheck/skewcheck/clusters/providers" // registers the providers
	"github.com/skewcheck/skewcheck/scenarios/faults"
	"github.com/skewcheck/skewcheck/scenarios/races"
	"github.com/skewcheck/skewcheck/suites"
)

// The CLI binds flags and asks registries; it never decides by what a thing is called.
// A comparison with a registered name (a front, dataplane, race, fault, provider or
// profile) in cmd/ is a switch the registry should answer, and adding another of that
// kind would then mean editing the CLI. This rule reads cmd/'s code for `x == "name"`,
// `x != "name"` and `case "name":`.

// registeredNames are every name a registry knows, with what it names, plus the chaos
// table's target names (upstream, and reference for the peer proxy), which are not in a
// registry of their own.
func registeredNames() map[string]string {
	names := map[string]string{"upstream": "chaos target", "reference": "chaos target, gateway, dataplane"}
	add := func(kind string, ns []string) {
		for _, n := range ns {
			names[n] = kind
		}
	}
	add("front", front.ReferenceNames())
	add("dataplane", dataplane.Names())
	add("race", races.Names())
	add("fault", faults.Names())
	for _, p := range clusters.Providers() {
		names[p.Name] = "provider"
	}
	for _, t := range suites.All() {
		names[t.Profile] = "profile"
	}
	return names
}

// nameComparisons are the places in src (a Go file named file) that compare a value with
// one of names.
func nameComparisons(file string, src any, names map[string]string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	report := func(lit ast.Expr) {
		b, ok := lit.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return
		}
		v, err := strconv.Unquote(b.Value)
		if kind, known := names[v]; err == nil && known {
			out = append(out, fmt.Sprintf("%s: compares with %q (a %s name)", fset.Position(b.Pos()), v, kind))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				report(n.X)
				report(n.Y)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				report(e)
			}
		}
		return true
	})
	return out, nil
}

func TestCmdComparesNoRegisteredName(t *testing.T) {
	names := registeredNames()
	for _, f := range inCmd(t, func(file string) ([]string, error) { return nameComparisons(file, nil, names) }) {
		t.Error(f + ": ask the registry instead")
	}
}

func TestNameComparisons(t *testing.T) {
	names := map[string]string{"peerproxy": "front", "mvp": "profile"}
	src := `package p
func f(a, b string) bool {
	switch a {
	case "peerproxy", "other":
	}
	if a == "" || b == "x" {
		return false
	}
	return "mvp" != b
}`
	got, err := nameComparisons("p.go", src, names)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`p.go:4:7: compares with "peerproxy" (a front name)`, `p.go:9:9: compares with "mvp" (a profile name)`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
