// Command catalogue writes docs/tests.md, the catalogue of every conformance test, from the
// suites' own tables (suites.All()): the page can never disagree with what runs. `make docs`
// runs it; `make test` fails while the page is not current (TestCatalogueIsCurrent).
//
//	go run ./internal/catalogue [-o docs/tests.md]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/skewcheck/skewcheck/suites"
)

func main() {
	out := flag.String("o", "docs/tests.md", "the file to write, from the module's root")
	flag.Parse()
	if err := os.WriteFile(*out, render(suites.All(), suites.DefaultProfiles), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "catalogue: %v (run it from the module's root: make docs)\n", err)
		os.Exit(1)
	}
}
