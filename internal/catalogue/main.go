// Command catalogue writes docs/tests.md, the catalogue of every conformance test, from the
// suites' own tables (suites.All()), and docs/chaos.md's table of fault kinds from the fault
// registry (faults.Kinds()), and docs/mutation.md's table of the mutants' claims from
// suites.MutantCatches: the pages can never disagree with what runs. `make docs` runs it;
// `make test` fails while a page is not current (TestCatalogueIsCurrent,
// TestFaultTableIsCurrent, TestClaimsTableIsCurrent).
//
//	go run ./internal/catalogue [-o docs/tests.md] [-faults docs/chaos.md] [-claims docs/mutation.md]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/skewcheck/skewcheck/scenarios/faults"
	"github.com/skewcheck/skewcheck/suites"
)

func main() {
	out := flag.String("o", "docs/tests.md", "the file to write, from the module's root")
	chaos := flag.String("faults", "docs/chaos.md", "the page whose fault table to rewrite from the fault registry")
	mutation := flag.String("claims", "docs/mutation.md", "the page whose claims table to rewrite from the mutants' claims")
	flag.Parse()
	if err := os.WriteFile(*out, render(suites.All(), suites.DefaultProfiles), 0o644); err != nil {
		fail(err)
	}
	page, err := os.ReadFile(*chaos)
	if err == nil {
		page, err = withFaults(page, faults.Kinds())
	}
	if err == nil {
		err = os.WriteFile(*chaos, page, 0o644)
	}
	if err != nil {
		fail(fmt.Errorf("%s: %w", *chaos, err))
	}
	page, err = os.ReadFile(*mutation)
	if err == nil {
		page, err = withClaims(page, suites.MutantCatches)
	}
	if err == nil {
		err = os.WriteFile(*mutation, page, 0o644)
	}
	if err != nil {
		fail(fmt.Errorf("%s: %w", *mutation, err))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "catalogue: %v (run it from the module's root: make docs)\n", err)
	os.Exit(1)
}
