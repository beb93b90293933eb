package clusters

// The shapes of a skewed control plane, written once: the CLI's default skew, make
// conformance's two runs (the Makefile says the same in its flags, and a test of
// cmd/skewcheck/app holds it to these), the campaigns' runs and the integration tests
// all take their servers from here.
//
// Two releases alone may serve the same GVRs (1.34 and 1.35 do), and a test of a proxy
// needs a GVR one server lacks and another serves, so a shape switches group-versions off
// on some servers. Both group-versions it uses are served by every release the suites
// cover, so the same shape suits every pair.

// WithoutBatch turns batch/v1 off on a server, so that only its peers serve it: jobs have a
// status subresource (MVP-013), so the skew includes a resource with a subresource.
const WithoutBatch = "--runtime-config=batch/v1=false"

// WithoutAutoscalingV2 turns autoscaling/v2 off on a server, so that only the servers that
// keep it serve it: a resource proxied from the newer servers to the older, as for an API
// a newer release removed.
const WithoutAutoscalingV2 = "--runtime-config=autoscaling/v2=false"

// SkewedPair is the default skew (a cluster skewcheck makes for the suites, make
// conformance): apiserver-1 at the older version without batch/v1, apiserver-2 at the
// newer without autoscaling/v2, so each serves a GVR the other lacks and requests are
// proxied both ways.
func SkewedPair(older, newer string) []ServerSpec {
	return []ServerSpec{
		{Version: older, ExtraFlags: []string{WithoutBatch}},
		{Version: newer, ExtraFlags: []string{WithoutAutoscalingV2}},
	}
}

// OneWayPair is apiserver-1 at the older version without batch/v1 and apiserver-2 at the
// newer serving what its release serves: batch/v1 reaches apiserver-1's clients only
// through a peer proxy, and nothing is proxied the other way for a group-version switched
// off. Most integration tests route through it, and the ranges' far ends run on it.
func OneWayPair(older, newer string) []ServerSpec {
	return []ServerSpec{
		{Version: older, ExtraFlags: []string{WithoutBatch}},
		{Version: newer},
	}
}

// HighlyAvailable is the three servers of an HA control plane mid-upgrade, two of them at
// the newer version: apiserver-1 at the older without batch/v1, apiserver-2 and
// apiserver-3 at the newer without autoscaling/v2, so requests are proxied both ways.
// batch/v1 and what only the newer release serves have two peers, where a proxy may choose
// either and one that sends a request to both (hedge-reads) shows in MVP-014;
// autoscaling/v2 has one, the older, whose failure must be 503 (MVP-022, DISC-004). Two
// entries share each route's GVR. make conformance's three-server runs, the mutation
// matrix's peer proxy family and the nightly's pairs run on it.
func HighlyAvailable(older, newer string) []ServerSpec {
	return []ServerSpec{
		{Version: older, ExtraFlags: []string{WithoutBatch}},
		{Version: newer, ExtraFlags: []string{WithoutAutoscalingV2}},
		{Version: newer, ExtraFlags: []string{WithoutAutoscalingV2}},
	}
}
