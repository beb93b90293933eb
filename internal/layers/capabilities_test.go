package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// One vocabulary of capabilities: what a test needs (framework.Feature), what a fault acts
// on (scenarios/faults' Capability, a name of framework's vocabulary) and what a provider
// offers (clusters.Capability) is declared once, where its meaning lives, and everything
// else names that value. This rule reads every non-test file of the module for a
// capability's declaration (a constant or variable of a type named Capability given a
// string, a call of DeclareFeature or DeclareCapability with its Worded words, a string
// converted to a Feature or Capability) and fails when two declarations name the same
// capability: the same identifier (without its Feature prefix) or the same string, both
// compared without case, spaces or articles, so FeaturePeerPath, "PeerPath" and "a peer
// path" are one capability.

// capabilityDecl is one declaration: where it is, its identifier, and the strings it gives.
type capabilityDecl struct {
	at, ident string
	strs      []string
}

// capabilityDecls are the capability declarations in src (a Go file named file).
func capabilityDecls(file string, src any) ([]capabilityDecl, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		return nil, err
	}
	var out []capabilityDecl
	inSpec := map[ast.Expr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i >= len(n.Values) {
					break
				}
				v := n.Values[i]
				if s, ok := stringLit(v); ok && typeName(n.Type) == "Capability" {
					out = append(out, capabilityDecl{fset.Position(v.Pos()).String(), name.Name, []string{s}})
					continue
				}
				if strs, ok := declareCall(v); ok {
					inSpec[v] = true
					out = append(out, capabilityDecl{fset.Position(v.Pos()).String(), name.Name, strs})
				}
			}
		case *ast.CallExpr:
			if inSpec[n] {
				return false // declared by the value spec above, with its identifier
			}
			if strs, ok := declareCall(n); ok {
				out = append(out, capabilityDecl{at: fset.Position(n.Pos()).String(), strs: strs})
				return false
			}
			if t := typeName(n.Fun); (t == "Feature" || t == "Capability") && len(n.Args) == 1 {
				if s, ok := stringLit(n.Args[0]); ok {
					out = append(out, capabilityDecl{at: fset.Position(n.Pos()).String(), strs: []string{s}})
				}
			}
		}
		return true
	})
	return out, nil
}

// declareCall is the strings of e when it declares a capability: DeclareFeature or
// DeclareCapability, each maybe chained to Worded.
func declareCall(e ast.Expr) ([]string, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return nil, false
	}
	var strs []string
	for _, a := range call.Args {
		if s, ok := stringLit(a); ok {
			strs = append(strs, s)
		}
	}
	switch typeName(call.Fun) {
	case "DeclareFeature", "DeclareCapability":
		return strs, true
	case "Worded":
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if inner, ok := declareCall(sel.X); ok {
				return append(inner, strs...), true
			}
		}
	}
	return nil, false
}

// typeName is the last name of e: Capability for clusters.Capability, Worded for x.Worded.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func stringLit(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// capabilityKey is what two names of one capability have in common: its letters and
// digits, lower case, without articles ("a peer path" and "PeerPath" are "peerpath").
func capabilityKey(s string) string {
	var b strings.Builder
	for _, w := range strings.Fields(s) {
		if w == "a" || w == "an" || w == "the" {
			continue
		}
		for _, r := range w {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b.WriteRune(unicode.ToLower(r))
			}
		}
	}
	return b.String()
}

// declaredTwice says, for every capability two declarations name, where both are.
func declaredTwice(decls []capabilityDecl) []string {
	first := map[string]capabilityDecl{}
	var out []string
	for _, d := range decls {
		keys := map[string]bool{}
		if d.ident != "" {
			keys[capabilityKey(strings.TrimPrefix(d.ident, "Feature"))] = true
		}
		for _, s := range d.strs {
			keys[capabilityKey(s)] = true
		}
		for k := range keys {
			if k == "" {
				continue
			}
			if f, seen := first[k]; seen && f.at != d.at {
				out = append(out, fmt.Sprintf("%s: capability %q is declared again (first at %s)", d.at, k, f.at))
				continue
			}
			first[k] = d
		}
	}
	sort.Strings(out)
	return out
}

func TestEveryCapabilityIsDeclaredOnce(t *testing.T) {
	root, _, err := module()
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(root, "go", "list", "-f", `{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .IgnoredGoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}`, "./...")
	if err != nil {
		t.Fatal(err)
	}
	var decls []capabilityDecl
	files := 0
	for _, file := range strings.Fields(out) {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		files++
		got, err := capabilityDecls(filepath.Clean(file), nil)
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, got...)
	}
	// The vocabularies of today: framework's features, the faults' capabilities and the
	// providers'; far fewer means the reading no longer finds them.
	if len(decls) < 30 {
		t.Fatalf("found %d capability declarations in %d files: the reading no longer finds them", len(decls), files)
	}
	for _, d := range declaredTwice(decls) {
		t.Error(d + ": declare it once, where its meaning lives, and name that value")
	}
}

func TestCapabilityDeclaredTwice(t *testing.T) {
	src := `package p
const (
	PeerPath Capability = "a peer path"
	Other clusters.Capability = "something else"
)
var FeaturePeerPath = framework.DeclareFeature("PeerPath", nil)
var Process = framework.FeatureNodeControl
var Sockets = framework.DeclareCapability("PeerSockets", "peer sockets")
var Renewal = framework.DeclareFeature("Renewal", nil).Worded("something else")
func f() { use(framework.Feature("Peer Sockets")) }`
	decls, err := capabilityDecls("p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(decls) != 6 {
		t.Errorf("found %d declarations, want 6 (all but the reference to a declared value): %+v", len(decls), decls)
	}
	got := declaredTwice(decls)
	want := []string{
		`p.go:10:16: capability "peersockets" is declared again (first at p.go:8:15)`,
		`p.go:6:23: capability "peerpath" is declared again (first at p.go:3:24)`,
		`p.go:9:15: capability "somethingelse" is declared again (first at p.go:4:30)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
