package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// The fault table's place in docs/chaos.md: everything between the two markers is
// written from the fault registry (faults.Kinds()), the rest of the page is prose.
const (
	faultsBegin = "<!-- faults: written by `make docs` from scenarios/faults' registry; edit the registry, not this table -->"
	faultsEnd   = "<!-- end of faults -->"
)

// withFaults returns page with its fault table rewritten from kinds, or an error when the
// page lacks the markers.
func withFaults(page []byte, kinds []faults.Kind) ([]byte, error) {
	begin, end := bytes.Index(page, []byte(faultsBegin)), bytes.Index(page, []byte(faultsEnd))
	if begin < 0 || end < begin {
		return nil, fmt.Errorf("the page has no fault table between %q and %q", faultsBegin, faultsEnd)
	}
	var b bytes.Buffer
	b.Write(page[:begin+len(faultsBegin)])
	fmt.Fprintf(&b, "\n\n%d fault kinds.\n\n| `--fault` | acts on | clients must see | what it does |\n|---|---|---|---|\n", len(kinds))
	for _, k := range kinds {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Name, k.On.Words(), expectation(k), strings.ReplaceAll(k.Description, "|", `\|`))
	}
	b.WriteString("\n")
	b.Write(page[end:])
	return b.Bytes(), nil
}

// expectation says in words what clients must see while k lasts.
func expectation(k faults.Kind) string {
	switch {
	case k.Silent:
		return "503, never 404, past every timeout (silent)"
	case k.Expect == faults.Unavailable:
		return "503, never 404"
	case k.Expect == faults.Unnoticed:
		return "nothing (unnoticed)"
	}
	return "measured"
}
