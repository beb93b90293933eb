package main

import (
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// column is one column of a profile's table: its header, and what a test shows in it. A
// column is one entry here.
type column struct {
	header string
	cell   func(framework.Test) string
}

var columns = []column{
	{"ID", func(t framework.Test) string { return t.ID }},
	{"Checks", func(t framework.Test) string { return t.Description }},
	{"Needs", func(t framework.Test) string {
		var needs []string
		for _, f := range t.Features {
			needs = append(needs, string(f))
		}
		return strings.Join(needs, ", ")
	}},
	{"Since", func(t framework.Test) string { return orOpen(t.Since) }},
	{"Until", func(t framework.Test) string { return orOpen(t.Until) }},
	{"Known upstream deviation", func(t framework.Test) string {
		if t.Deviation == nil {
			return ""
		}
		return versions(t.Deviation.Since, t.Deviation.Until) + ": " + t.Deviation.Summary
	}},
	{"Failed by (mutants)", func(t framework.Test) string {
		if why, ok := suites.MutationReasons.Tests[t.ID]; ok {
			return "none can be: " + why
		}
		return strings.Join(claimants(t.ID), ", ")
	}},
}

// claimants are the mutants whose claims (suites.MutantCatches) say they fail the test,
// which `skewcheck mutation` checks they do.
func claimants(id string) []string {
	var out []string
	for mutant, tests := range suites.MutantCatches {
		if _, ok := tests[id]; ok {
			out = append(out, mutant)
		}
	}
	slices.Sort(out)
	return out
}

// orOpen shows an open end of a range.
func orOpen(v string) string {
	if v == "" {
		return "open"
	}
	return v
}

// versions says a range of minor versions in words.
func versions(since, until string) string {
	switch {
	case since == "" && until == "":
		return "every version"
	case until == "":
		return since + " and later"
	case since == "":
		return "up to " + until
	case since == until:
		return since
	}
	return since + " to " + until
}
