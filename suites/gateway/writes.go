package gateway

import "github.com/skewcheck/skewcheck/framework"

// What the profile's tests write on the cluster behind the gateway (framework.Test.Makes).
// The gateway's configuration (Gateway.Apply) is the gateway's own, no write to the
// cluster; and the tests write in default, never on a cluster skewcheck does not own
// (FeatureGateway).
var (
	// dryRunCreate is createCM: a create the apiserver only validates.
	dryRunCreate = framework.Write{Resource: "configmaps", Verbs: []string{"create"}, Scope: framework.InNamespace("default"),
		Why: "a dry-run create (dryRun=All): nothing is stored"}
	// serviceAccount is serviceAccountToken's: an account to send a bearer token as, kept
	// for the next test of the same name.
	serviceAccount = []framework.Write{
		{Resource: "serviceaccounts", Verbs: []string{"create"}, Scope: framework.InNamespace("default"),
			Why: "a service account whose bearer token the gateway must review"},
		{Resource: "serviceaccounts/token", Verbs: []string{"create"}, Scope: framework.InNamespace("default"),
			Why: "that service account's token (TokenRequest)"},
	}
	// whoAmI is whoAmIThrough's review of who a request runs as upstream.
	whoAmI = framework.Write{Resource: "selfsubjectreviews.authentication.k8s.io", Verbs: []string{"create"}, Scope: framework.StoresNothing,
		Why: "who the request runs as upstream (SelfSubjectReview)"}
	// impersonates: the admin asks as the unprivileged user.
	impersonates = framework.Write{Resource: "users", Verbs: []string{"impersonate"}, Scope: framework.StoresNothing,
		Why: "the admin asking as the unprivileged user through the gateway (Impersonate-User)"}
	// execs: an exec into a pod that does not exist, answered 404 or 403: nothing runs.
	execs = framework.Write{Resource: "pods/exec", Verbs: []string{"create"}, Scope: framework.InNamespace("default"),
		Why: "an exec (SPDY and websocket) into a pod that does not exist: answered 404, or 403 to the unprivileged user"}
	// configMapGrant is grantConfigMapRead's: the user may get, list and watch configmaps.
	configMapGrant = framework.ReadGrant
	// greedyCreates is greedyClientContained's: dry-run creates whose body never ends.
	greedyCreates = framework.Write{Resource: "configmaps", Verbs: []string{"create"}, Scope: framework.InNamespace("default"),
		Why: "a greedy client's dry-run creates (dryRun=All) whose body comes a byte a second and never ends: nothing is stored"}
	// slowClientLoad is slowClientsUnnoticed's: the chaos load of configmaps, and the
	// slow-client fault's creates whose body never ends.
	slowClientLoad = framework.Write{Resource: "configmaps", Verbs: []string{"create", "deletecollection"}, Scope: framework.RunNamespace,
		Why: "the load's creates through the gateway, deleted by their label at the end, and slow-loris creates whose body never ends"}
)

// plus is writes and more.
func plus(writes []framework.Write, more ...framework.Write) []framework.Write {
	return append(append([]framework.Write{}, writes...), more...)
}
