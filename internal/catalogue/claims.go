package main

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// The claims table's place in docs/mutation.md: everything between the two markers is
// written from the mutants' claims (suites.MutantCatches), the rest of the page is prose.
const (
	claimsBegin = "<!-- claims: written by `make docs` from suites/mutation_*.go; edit the claims, not this table -->"
	claimsEnd   = "<!-- end of claims -->"
)

// withClaims returns page with its claims table rewritten from catches, one row per test
// and mutant: the assertion a catch must fail at and the value it must observe there, or
// "text only" where the claim names none (any failure of the assertion counts), so the
// weaker claims are seen. An error when the page lacks the markers.
func withClaims(page []byte, catches matrix.Catches) ([]byte, error) {
	begin, end := bytes.Index(page, []byte(claimsBegin)), bytes.Index(page, []byte(claimsEnd))
	if begin < 0 || end < begin {
		return nil, fmt.Errorf("the page has no claims table between %q and %q", claimsBegin, claimsEnd)
	}
	type row struct{ test, mutant string }
	var rows []row
	textOnly := 0
	for mutant, tests := range catches {
		for id, c := range tests {
			rows = append(rows, row{id, mutant})
			if c.TextOnly() {
				textOnly++
			}
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.test+" "+a.mutant, b.test+" "+b.mutant) })
	var b bytes.Buffer
	b.Write(page[:begin+len(claimsBegin)])
	fmt.Fprintf(&b, "\n\n%d claims of %d mutants: %d name the value the assertion must observe, %d are text only.\n\n| test | mutant | assertion | observed |\n|---|---|---|---|\n",
		len(rows), len(slices.Collect(maps.Keys(catches))), len(rows)-textOnly, textOnly)
	for _, r := range rows {
		c := catches[r.mutant][r.test]
		observed := "text only"
		if !c.TextOnly() {
			observed = cell(c.Value())
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.test, r.mutant, cell(c.Assertion), observed)
	}
	b.WriteString("\n")
	b.Write(page[end:])
	return b.Bytes(), nil
}

// cell is a value in a table cell: pipes escaped, inside backticks so markdown leaves it
// as the code has it.
func cell(s string) string {
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}
