package layers

import (
	"fmt"
	"sort"
	"strings"
)

// check returns every way pkgs break the rule: a package in no area, a wrong-way import
// that known does not list, and a listed one that is gone or no longer wrong.
func check(pkgs []pkg, known map[edge]string) []string {
	var problems []string
	name := map[string]string{}
	for _, p := range pkgs {
		name[p.rel] = p.name
		if areaOf(p.rel, p.name) == "" {
			problems = append(problems, fmt.Sprintf("package %s is in no layer: place its top-level directory in areaOf (internal/layers/areas_test.go) and say what it may import", p.rel))
		}
	}
	present := map[edge]bool{}
	for _, p := range pkgs {
		from := areaOf(p.rel, p.name)
		for _, imp := range p.imports {
			e := edge{p.rel, imp}
			present[e] = true
			to := areaOf(imp, name[imp])
			if from == "" || to == "" || allowed(from, to) {
				continue
			}
			if _, ok := known[e]; ok {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s imports %s, the wrong way: a package of %s may import only %s besides its own area. "+
				"Move what it needs into the layer it belongs to (internal/layers/doc.go draws the layers)", p.rel, imp, from, list(mayImport[from])))
		}
	}
	for e, why := range known {
		switch {
		case !present[e]:
			problems = append(problems, fmt.Sprintf("%s no longer imports %s (%s): delete its line from knownWrongWay (internal/layers/known_test.go), the list only shrinks", e.from, e.to, why))
		case allowed(areaOf(e.from, name[e.from]), areaOf(e.to, name[e.to])):
			problems = append(problems, fmt.Sprintf("%s imports %s, which the rule allows: delete its line from knownWrongWay (internal/layers/known_test.go)", e.from, e.to))
		}
	}
	sort.Strings(problems)
	return problems
}

func list(areas []area) string {
	if len(areas) == 0 {
		return "nothing else of the module"
	}
	var s []string
	for _, a := range areas {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}
