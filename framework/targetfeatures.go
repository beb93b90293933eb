package framework

// Features of the target as a whole: its endpoints, their identities and the skew between
// them.
var (
	// FeatureSkew: at least one GVR is served by some endpoints and not by others.
	FeatureSkew = DeclareFeature("Skew", func(t *Target) string {
		if len(SkewedGVRs(t)) == 0 {
			return "every endpoint serves the same GVRs, so nothing is ever proxied"
		}
		return ""
	})
	// FeatureSkewedStatus: a GVR served by some endpoints and not by others has a status
	// subresource, and skewcheck can create an object of it.
	FeatureSkewedStatus = DeclareFeature("SkewedStatus", func(t *Target) string {
		if len(StatusRoutes(t)) == 0 {
			return "no GVR one endpoint lacks and another serves has a status subresource skewcheck can create an object of (" +
				describeSkew(t) + ")"
		}
		return ""
	})
	// FeatureNodeControl: the suite may stop, kill and freeze the servers: control of
	// each server's process (Node), which is also what a process fault acts on.
	FeatureNodeControl = DeclareFeature("NodeControl", func(t *Target) string {
		if t.Unowned {
			return NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: a run never stops, kills or freezes its servers")
		}
		for _, e := range t.Endpoints {
			if e.Node == nil {
				return "the suite cannot stop or kill " + e.Name + " (only clusters skewcheck makes allow it)"
			}
		}
		return ""
	}).Worded("process control")
	// FeatureAuditLog: the suite can read every server's audit log.
	FeatureAuditLog = DeclareFeature("AuditLog", func(t *Target) string {
		for _, e := range t.Endpoints {
			if e.AuditLog == "" {
				return "no readable audit log for " + e.Name
			}
		}
		return ""
	})
	// FeatureOwnedCluster: the cluster is skewcheck's own, or its user's to disturb, so a
	// test may load its servers past their use (slow clients) or touch the registrations
	// in kube-system. Never on a cluster found through --kubeconfig (Target.Unowned).
	FeatureOwnedCluster = DeclareFeature("OwnedCluster", func(t *Target) string {
		if t.Unowned {
			return NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: a run never disturbs its servers or touches its registrations")
		}
		return ""
	})
	// FeatureUnprivileged: every endpoint has a client identity that RBAC grants nothing.
	FeatureUnprivileged = DeclareFeature("Unprivileged", func(t *Target) string {
		for _, e := range t.Endpoints {
			if e.User == nil {
				return "no unprivileged identity for " + e.Name
			}
		}
		return ""
	})
)
