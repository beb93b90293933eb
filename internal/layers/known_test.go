package layers

// edge is one package importing another, both as paths inside the module.
type edge struct{ from, to string }

// knownWrongWay are the imports that break the rule today, each with what removes it. The
// check fails on any wrong-way import not listed here, and on a listed one that is gone:
// the list only shrinks, and stays true. Delete a line in the commit that removes its import.
var knownWrongWay = map[edge]string{
	// kind's node asserts it is a faults.NetNode (target.go), so faults know kind's nodes.
	{"clusters/kind", "scenarios/faults"}: "issue 26 step 4: faults act on the capabilities a node declares",
}
