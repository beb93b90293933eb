// Package pki makes every certificate and key a local control plane needs,
// in Go, in a directory of PEM files.
//
// skewcheck starts several kube-apiserver processes of different versions on
// one machine. They must trust one another (peer proxying verifies serving
// certificates against a shared CA), trust the same clients (so a request
// means the same thing whichever apiserver serves it) and verify the same
// service-account tokens. Making the certificates here rather than with
// openssl or kubeadm keeps the harness free of external tools and lets tests
// create a fresh, throwaway bundle in milliseconds.
//
// The files are named as kubeadm names them (ca.crt, sa.key, ...) so that
// anyone who has looked inside /etc/kubernetes/pki finds their way around.
// Nothing here is meant for production: keys sit unencrypted on disk, in a
// directory only the current user can read.
package pki
