package pki

// The identities the bundle's client certificates carry. Scenarios use them
// to tell apiserver authorization decisions apart: the admin is allowed
// everything through the built-in system:masters group, the unprivileged user
// authenticates successfully but has no RBAC grants, so every request it
// makes should be answered 403 Forbidden, never 401 Unauthorized.
const (
	// AdminUser is the CommonName of Bundle.Admin; its Organization is
	// system:masters.
	AdminUser = "skewcheck-admin"

	// UnprivilegedUser is the CommonName of Bundle.User.
	UnprivilegedUser = "skewcheck-user"

	// UnprivilegedGroup is the only group of Bundle.User. Nothing grants it
	// any permission; it exists so the certificate carries a group that is
	// not system:masters and so scenarios can bind roles to it on purpose.
	UnprivilegedGroup = "skewcheck:unprivileged"

	// FrontProxyClientName is the CommonName of Bundle.FrontProxyClient.
	// Apiservers should list it in --requestheader-allowed-names so that
	// only this certificate may assert identities through request headers.
	FrontProxyClientName = "front-proxy-client"
)

// mastersGroup is the group kube-apiserver's authorizer allows everything,
// regardless of RBAC.
const mastersGroup = "system:masters"
