package campaign

// highlyAvailable is the cluster of an HA control plane mid-upgrade, as conformance flags:
// the older server with batch/v1 off, then the newer twice with autoscaling/v2 off, so
// requests are proxied both ways. The GVRs only the newer serves (jobs among them, with a
// subresource) have two peers, where a proxy may choose either and one that sends a
// request to both (hedge-reads) shows in MVP-014; autoscaling/v2 has one, the older,
// whose failure must be 503 (MVP-022, DISC-004). The mutation matrix's peer proxy family
// and the nightly's pairs run on it, as make conformance's three-server runs do.
func highlyAvailable(older, newer string) []string {
	return []string{"--versions", older + "," + newer + "," + newer, "--server-flag", "1=--runtime-config=batch/v1=false",
		"--server-flag", "2=--runtime-config=autoscaling/v2=false", "--server-flag", "3=--runtime-config=autoscaling/v2=false"}
}
