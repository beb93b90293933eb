package framework

// unownedTarget stands for any cluster skewcheck does not own, for asking the features
// what such a cluster can never have: each feature says so first (NotHere), before it
// looks at what the target has.
var unownedTarget = &Target{Kind: "existing", Unowned: true}

// NeverOnUnowned are the features t needs that a cluster skewcheck does not own never has
// (NodeControl, OwnedCluster, Registration, ...): t runs on such a cluster only when there
// are none. A feature such a cluster may lack but a user can give it (an audit log, a
// skew) is not one of them: the test may run there, and its writes are the run's.
func (t Test) NeverOnUnowned() []Feature {
	var never []Feature
	for _, f := range t.Features {
		if missing, ok := features[f]; ok && IsNotApplicable(missing(unownedTarget)) {
			never = append(never, f)
		}
	}
	return never
}
