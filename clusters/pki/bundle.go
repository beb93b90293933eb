package pki

// Pair is a certificate and its private key as files on disk (PEM).
type Pair struct{ CertFile, KeyFile string }

// Bundle holds every certificate a local control plane needs, under Dir.
//
// All paths are absolute, because they are handed as flags to apiserver
// processes whose working directory is not ours.
//
// A Bundle keeps no keys in memory: ServingCert and ClientCert read the CA
// from disk each time, so they may be called concurrently (with different
// names) and work the same on a Bundle from New or from Load.
type Bundle struct {
	Dir               string
	CA                Pair   // cluster CA: signs serving certs (also the peer CA) and client certs
	FrontProxyCA      Pair   // signs the front-proxy client cert; apiservers trust it via --requestheader-client-ca-file
	FrontProxyClient  Pair   // CN "front-proxy-client": --proxy-client-cert-file/--proxy-client-key-file
	ServiceAccountKey string // RSA private key PEM file (--service-account-signing-key-file)
	ServiceAccountPub string // public key PEM file (--service-account-key-file)
	Admin             Pair   // CN "skewcheck-admin", O "system:masters"
	User              Pair   // CN "skewcheck-user", O "skewcheck:unprivileged": no RBAC grants, gets 403
}
