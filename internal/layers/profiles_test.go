package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/suites"
)

// A profile is a value (framework.Profile) the CLI asks for what it needs, a gateway, a
// dataplane, peers, its far ends, the family that judges it: it never decides by which
// profile it is. So cmd/ names no profile's package's constant or value (gateway.Profile,
// mvp.Conformance), only the list in package suites, and passes no profile's name to
// slices.Contains or slices.Index, the other way to ask which it is besides `==` and
// `case` (TestCmdComparesNoRegisteredName). Adding a profile then touches no command.

// suitesPrefix is the import path under which each profile has its package.
const suitesPrefix = "github.com/skewcheck/skewcheck/suites/"

// profileDecisions are the places in src (a Go file named file) that decide by a
// profile: a selector of a profile package's Profile or Conformance, or a call of
// slices.Contains or slices.Index with one of names (the profiles' names).
func profileDecisions(file string, src any, names map[string]bool) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	suitePkgs := map[string]string{} // local name: import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !strings.HasPrefix(path, suitesPrefix) {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		suitePkgs[name] = path
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && suitePkgs[x.Name] != "" && (n.Sel.Name == "Profile" || n.Sel.Name == "Conformance") {
				out = append(out, fmt.Sprintf("%s: names %s.%s (%s), one profile", fset.Position(n.Pos()), x.Name, n.Sel.Name, suitePkgs[x.Name]))
			}
		case *ast.CallExpr:
			fn, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || !isIdent(fn.X, "slices") || (fn.Sel.Name != "Contains" && fn.Sel.Name != "Index") {
				return true
			}
			for _, arg := range n.Args {
				if b, ok := arg.(*ast.BasicLit); ok && b.Kind == token.STRING {
					if v, err := strconv.Unquote(b.Value); err == nil && names[v] {
						out = append(out, fmt.Sprintf("%s: looks for profile %q with slices.%s", fset.Position(b.Pos()), v, fn.Sel.Name))
					}
				}
			}
		}
		return true
	})
	return out, nil
}

// isIdent says whether e is the identifier name.
func isIdent(e ast.Expr, name string) bool {
	x, ok := e.(*ast.Ident)
	return ok && x.Name == name
}

func TestCmdDecidesNoProfileByName(t *testing.T) {
	names := map[string]bool{}
	for _, p := range suites.Profiles {
		names[p.Name] = true
	}
	for _, f := range inCmd(t, func(file string) ([]string, error) { return profileDecisions(file, nil, names) }) {
		t.Error(f + ": ask the profile's value instead (suites.Lookup, suites.Where, or a list suites derives)")
	}
}

func TestProfileDecisions(t *testing.T) {
	src := `package p
import (
	"slices"
	gw "github.com/skewcheck/skewcheck/suites/gateway"
	"github.com/skewcheck/skewcheck/suites/mvp"
	"github.com/skewcheck/skewcheck/suites"
)
func f(p []string) bool {
	_ = suites.DefaultProfiles
	_ = mvp.Conformance.Tests
	return slices.Contains(p, gw.Profile) || slices.Index(p, "mvp") > 0 || slices.Contains(p, "other")
}`
	got, err := profileDecisions("p.go", src, map[string]bool{"mvp": true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`p.go:10:6: names mvp.Conformance (github.com/skewcheck/skewcheck/suites/mvp), one profile`,
		`p.go:11:28: names gw.Profile (github.com/skewcheck/skewcheck/suites/gateway), one profile`,
		`p.go:11:59: looks for profile "mvp" with slices.Index`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
