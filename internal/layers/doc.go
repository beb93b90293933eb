// Package layers holds the check, run by `make test` (and under -short: it only runs
// `go list`), that skewcheck's packages import one another one way:
//
//	cmd -> suites -> scenarios -> clusters -> framework -> internal
//	                                  |
//	                                  +-> reference   (imports nothing of the harness)
//
//	framework/apis/...   neutral API packages: everyone may import them, they import nothing
//
// A package may import its own area and the areas to its right on its line; cmd may import
// every area. So suites never import a reference, references never import the harness,
// nothing in clusters knows about suites or scenarios. The one exception is the neutral API
// packages under framework/apis (the gateway's documents, nopeer discovery), an area of
// their own that imports nothing of the module: a reference reads them and a suite writes
// them, so both import them and neither the other. The rule is mayImport in areas_test.go;
// the imports that still break it, each with the step of issue 26 that removes it, are
// knownWrongWay in known_test.go, which may only shrink. Only what ships counts: the
// packages' own imports, not their tests' (a reference's tests run the suites against it).
//
// Beside the imports it checks names: cmd compares with no registered name
// (names_test.go) and decides by no profile, neither its name nor its package's constant
// or value (profiles_test.go); every capability, a test's feature, a fault's or a provider's, is a
// value of framework's one vocabulary, declared once, and no package starts a vocabulary
// of its own (capabilities_test.go); and docs/development.md's Layout names every package
// the module has, and none it no longer has (layout_test.go).
package layers
