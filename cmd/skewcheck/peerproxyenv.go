package main

import (
	"os"

	"github.com/spf13/cobra"
)

// peerproxySidecarEnv maps flags of `skewcheck reference peerproxy` to the variables of the
// sidecar contract (clusters/sidecar.Env).
var peerproxySidecarEnv = []struct{ flag, env string }{
	{"id", "SKEWCHECK_ID"},
	{"listen", "SKEWCHECK_LISTEN"},
	{"apiserver", "SKEWCHECK_APISERVER"},
	{"apiserver-ca", "SKEWCHECK_APISERVER_CA"},
	{"advertise-url", "SKEWCHECK_ADVERTISE_URL"},
	{"tls-cert", "SKEWCHECK_SERVING_CERT"},
	{"tls-key", "SKEWCHECK_SERVING_KEY"},
	{"client-ca", "SKEWCHECK_CLIENT_CA"},
	{"front-proxy-cert", "SKEWCHECK_FRONT_PROXY_CERT"},
	{"front-proxy-key", "SKEWCHECK_FRONT_PROXY_KEY"},
	{"control-cert", "SKEWCHECK_CONTROL_CERT"},
	{"control-key", "SKEWCHECK_CONTROL_KEY"},
}

// peerproxyFromSidecarEnv lets `skewcheck reference peerproxy` take each flag it is not
// given from the sidecar contract's variable, so that the reference runs with no arguments
// where there is no shell to expand them: as the entrypoint of a FROM scratch image
// (`skewcheck images reference`, conformance --sidecar-image).
func peerproxyFromSidecarEnv(root *cobra.Command) {
	pp, _, err := root.Find([]string{"reference", "peerproxy"})
	if err != nil || pp.Name() != "peerproxy" {
		panic("skewcheck reference peerproxy is missing: peerproxyFromSidecarEnv has nothing to bind")
	}
	for _, b := range peerproxySidecarEnv {
		pp.Flags().Lookup(b.flag).Usage += " (default $" + b.env + ")"
	}
	next := pp.PreRunE
	pp.PreRunE = func(cmd *cobra.Command, args []string) error {
		for _, b := range peerproxySidecarEnv {
			if v, ok := os.LookupEnv(b.env); ok && !cmd.Flags().Changed(b.flag) {
				if err := cmd.Flags().Set(b.flag, v); err != nil {
					return err
				}
			}
		}
		if next != nil {
			return next(cmd, args)
		}
		return nil
	}
}
