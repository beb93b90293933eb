package layers

import "strings"

// area is one layer of the module.
type area string

const (
	areaCmd       area = "cmd"       // commands: cmd/..., and any package main (go run ./internal/catalogue)
	areaSuites    area = "suites"    // the profiles, as data and specs
	areaScenarios area = "scenarios" // faults, races, rolling upgrade, load
	areaClusters  area = "clusters"  // how a control plane under test comes to exist, and what stands in front of it
	areaReference area = "reference" // reference implementations: products in their own right
	areaFramework area = "framework" // the core: targets, tests as data, probes, reports
	areaInternal  area = "internal"  // harness-only helpers, below everything
	// Neutral API packages (framework/apis/...): documents a reference reads and a suite
	// writes, and how to read what a kube-apiserver serves (discovery). An area of its own,
	// though under framework/, so that a reference may import it and nothing else of the
	// framework.
	areaAPIs area = "framework/apis"
)

// mayImport says which other areas a package of an area may import (its own area it always
// may). Why each line is as it is:
//   - suites use scenarios (the chaos profile runs a fault under load) and may use clusters,
//     but never a reference: a suite that needs a reference's types is testing that
//     reference, not the contract; the contract's types are neutral API types;
//   - clusters may run a reference (a front in front of the apiservers, a dataplane), as they
//     run any product, but know nothing of suites or scenarios;
//   - references import nothing of the harness, so a vendor can read or vendor one alone,
//     except the neutral API packages (framework/apis/...), which everyone may import;
//   - neutral API packages import nothing of the module (only the standard library and
//     k8s.io's libraries, as the doc of each says), so importing them brings no harness;
//   - internal helpers (integration gating, interrupt, ...) import nothing of the module.
var mayImport = map[area][]area{
	areaCmd:       {areaSuites, areaScenarios, areaClusters, areaReference, areaFramework, areaInternal, areaAPIs},
	areaSuites:    {areaScenarios, areaClusters, areaFramework, areaInternal, areaAPIs},
	areaScenarios: {areaClusters, areaFramework, areaInternal, areaAPIs},
	areaClusters:  {areaReference, areaFramework, areaInternal, areaAPIs},
	areaReference: {areaAPIs},
	areaFramework: {areaInternal, areaAPIs},
	areaInternal:  {areaAPIs},
	areaAPIs:      {},
}

// areaOf places a package (its path inside the module, and its name) in an area, or says
// "" for a directory no area covers: a new top-level directory must be placed here first.
func areaOf(rel, name string) area {
	if name == "main" {
		return areaCmd
	}
	if rel == string(areaAPIs) || strings.HasPrefix(rel, string(areaAPIs)+"/") {
		return areaAPIs
	}
	top, _, _ := strings.Cut(rel, "/")
	switch a := area(top); a {
	case areaCmd, areaSuites, areaScenarios, areaClusters, areaReference, areaFramework, areaInternal:
		return a
	}
	return ""
}

// allowed reports whether a package of area from may import one of area to.
func allowed(from, to area) bool {
	if from == to {
		return true
	}
	for _, a := range mayImport[from] {
		if a == to {
			return true
		}
	}
	return false
}
