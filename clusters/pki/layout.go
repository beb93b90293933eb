package pki

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The base names of the files New writes, as kubeadm names them. New and
// Load both derive paths from here, so the two can never disagree.
const (
	caName               = "ca"
	frontProxyCAName     = "front-proxy-ca"
	frontProxyClientFile = "front-proxy-client"
	adminName            = "admin"
	userName             = "user"
	serviceAccountName   = "sa"
)

// reservedNames are the base names ServingCert and ClientCert refuse, so a
// caller cannot overwrite the CA (or any other bundle file) by accident and
// silently break trust for every running apiserver.
var reservedNames = []string{
	caName, frontProxyCAName, frontProxyClientFile, adminName, userName, serviceAccountName,
}

// pairIn returns where the certificate and key called name live in dir.
func pairIn(dir, name string) Pair {
	return Pair{
		CertFile: filepath.Join(dir, name+".crt"),
		KeyFile:  filepath.Join(dir, name+".key"),
	}
}

// layout fills in every path of a bundle rooted at dir (which must already
// be absolute) without touching the disk.
func layout(dir string) *Bundle {
	return &Bundle{
		Dir:               dir,
		CA:                pairIn(dir, caName),
		FrontProxyCA:      pairIn(dir, frontProxyCAName),
		FrontProxyClient:  pairIn(dir, frontProxyClientFile),
		ServiceAccountKey: filepath.Join(dir, serviceAccountName+".key"),
		ServiceAccountPub: filepath.Join(dir, serviceAccountName+".pub"),
		Admin:             pairIn(dir, adminName),
		User:              pairIn(dir, userName),
	}
}

// checkName rejects names that would escape Dir or clobber a bundle file.
// Names become file names, so they are kept to one plain path element.
func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("certificate name %q is not usable as a file name; pass a plain name such as \"apiserver-1\"", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("certificate name %q contains a path separator; pass a plain name, the file is always written in the bundle directory", name)
	}
	for _, r := range reservedNames {
		if name == r {
			return fmt.Errorf("certificate name %q is reserved for the bundle's own files (%s); pick another name", name, strings.Join(reservedNames, ", "))
		}
	}
	return nil
}
