package framework

// FeaturePeers: the target has at least two endpoints, each in front of its own server, so
// something made through one can be asked for through another.
var FeaturePeers = DeclareFeature("Peers", func(t *Target) string {
	if len(t.Endpoints) < 2 {
		return "one endpoint: a server needs a peer for anything to be made through one and asked for through another"
	}
	return ""
})
