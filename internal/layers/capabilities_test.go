package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// One vocabulary of capabilities: what a test needs, what a fault acts on and what a
// provider can be asked for are values of one type, framework.Feature (scenarios/faults'
// and clusters' Capability are aliases of it), each declared once, where its meaning lives,
// with framework.DeclareFeature (a target can be checked for it) or DeclareCapability (a
// fault or a provider checks it), and everything else names that value.
//
// Two rules read every non-test file of the module. TestEveryCapabilityIsDeclaredOnce
// finds each capability's declaration (a constant or variable of a type named Capability
// or Feature given a string, a call of DeclareFeature or DeclareCapability with its Worded
// words, a string converted to a Feature or Capability) and fails when two name the same
// capability: the same identifier (without its Feature prefix) or the same string, both
// compared without case, spaces, articles or a plural's s, so FeaturePeerPath, "PeerPath"
// and "a peer path" are one capability, and ControllerManagers is "ControllerManager".
// TestOneCapabilityVocabulary fails a vocabulary of its own: a type named for
// capabilities or features that is not framework.Feature or an alias of it, or a
// capability made from a string (a typed constant, a conversion) instead of declared.

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
// digits, lower case, without articles and a plural's s ("a peer path" and "PeerPath" are
// "peerpath", "ControllerManagers" and "ControllerManager" "controllermanager").
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
	return strings.TrimSuffix(b.String(), "s")
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

// moduleSources are the module's non-test Go files, those of every build tag too.
func moduleSources(t *testing.T) []string {
	t.Helper()
	root, _, err := module()
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(root, "go", "list", "-f", `{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .IgnoredGoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}`, "./...")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, file := range strings.Fields(out) {
		if !strings.HasSuffix(file, "_test.go") {
			files = append(files, filepath.Clean(file))
		}
	}
	return files
}

func TestEveryCapabilityIsDeclaredOnce(t *testing.T) {
	var decls []capabilityDecl
	files := 0
	for _, file := range moduleSources(t) {
		files++
		got, err := capabilityDecls(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, got...)
	}
	// The vocabulary of today: framework's features, the faults' capabilities and the
	// providers'; far fewer means the reading no longer finds them.
	if len(decls) < 25 {
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
func f() { use(framework.Feature("Peer Sockets")) }
var FeatureControllerManager = framework.DeclareFeature("ControllerManager", nil)
var ControllerManagers = framework.DeclareCapability("ControllerManagers", "a real kube-controller-manager")`
	decls, err := capabilityDecls("p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(decls) != 8 {
		t.Errorf("found %d declarations, want 8 (all but the reference to a declared value): %+v", len(decls), decls)
	}
	got := declaredTwice(decls)
	want := []string{
		`p.go:10:16: capability "peersocket" is declared again (first at p.go:8:15)`,
		`p.go:12:26: capability "controllermanager" is declared again (first at p.go:11:32)`,
		`p.go:6:23: capability "peerpath" is declared again (first at p.go:3:24)`,
		`p.go:9:15: capability "somethingelse" is declared again (first at p.go:4:30)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// vocabularyHome is the file that defines the vocabulary's type (framework.Feature) and
// the only conversions of a string to it.
const vocabularyHome = "framework/feature.go"

// vocabularyName is a type name that says it lists capabilities or features.
var vocabularyName = regexp.MustCompile(`(?i)capabilit|feature`)

// ownVocabulary says where src (the Go file named file) starts a vocabulary of its own: a
// type named for capabilities or features that is not framework.Feature nor an alias of
// it, or a capability made from a string rather than declared (a constant or variable of
// such a type given a string, a string converted to one).
func ownVocabulary(file string, src any) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		return nil, err
	}
	home := filepath.ToSlash(file) == vocabularyHome || strings.HasSuffix(filepath.ToSlash(file), "/"+vocabularyHome)
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			if !vocabularyName.MatchString(n.Name.Name) {
				break
			}
			if home && n.Name.Name == "Feature" && !n.Assign.IsValid() {
				break // the vocabulary's own type
			}
			sel, ok := n.Type.(*ast.SelectorExpr)
			if n.Assign.IsValid() && ok && sel.Sel.Name == "Feature" && typeName(sel.X) == "framework" {
				break
			}
			out = append(out, fmt.Sprintf("%s: type %s is a vocabulary of its own: make it an alias (type %s = framework.Feature)",
				fset.Position(n.Pos()), n.Name.Name, n.Name.Name))
		case *ast.ValueSpec:
			if t := typeName(n.Type); t != "Capability" && t != "Feature" {
				break
			}
			for i, v := range n.Values {
				if _, ok := stringLit(v); ok && i < len(n.Names) {
					out = append(out, fmt.Sprintf("%s: capability %s is made from a string: declare it with framework.DeclareFeature or DeclareCapability",
						fset.Position(v.Pos()), n.Names[i].Name))
				}
			}
		case *ast.CallExpr:
			if t := typeName(n.Fun); (t == "Feature" || t == "Capability") && len(n.Args) == 1 && !home {
				if s, ok := stringLit(n.Args[0]); ok {
					out = append(out, fmt.Sprintf("%s: capability %q is made from a string: declare it with framework.DeclareFeature or DeclareCapability, or name the declared value",
						fset.Position(n.Pos()), s))
				}
			}
		}
		return true
	})
	return out, nil
}

func TestOneCapabilityVocabulary(t *testing.T) {
	for _, file := range moduleSources(t) {
		got, err := ownVocabulary(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			t.Error(g)
		}
	}
}

func TestThirdVocabularyRefused(t *testing.T) {
	src := `package p
type Capability = framework.Feature
type Feature string
type ProviderCapability string
type featureSet map[string]bool
const Fronts ProviderCapability = "fronts"
var Dataplane Capability = "a service dataplane"
var Named = framework.DeclareCapability("Named", "named clusters")
func f() { use(framework.Feature("Peer Sockets"), clusters.Capability(name)) }`
	got, err := ownVocabulary("clusters/p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`clusters/p.go:3:6: type Feature is a vocabulary of its own: make it an alias (type Feature = framework.Feature)`,
		`clusters/p.go:4:6: type ProviderCapability is a vocabulary of its own: make it an alias (type ProviderCapability = framework.Feature)`,
		`clusters/p.go:5:6: type featureSet is a vocabulary of its own: make it an alias (type featureSet = framework.Feature)`,
		`clusters/p.go:7:28: capability Dataplane is made from a string: declare it with framework.DeclareFeature or DeclareCapability`,
		`clusters/p.go:9:16: capability "Peer Sockets" is made from a string: declare it with framework.DeclareFeature or DeclareCapability, or name the declared value`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	home, err := ownVocabulary("/m/framework/feature.go", "package framework\ntype Feature string\nfunc declareName(name string) Feature { return Feature(name) }")
	if err != nil || len(home) != 0 {
		t.Errorf("framework's own type and conversion: %v %v, want nothing", home, err)
	}
}
