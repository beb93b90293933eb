//go:build !incluster

package app

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// binding is a flag of a reference command and the variable of its contract that holds it.
type binding struct{ flag, env string }

// contractEnv maps the flags of the reference commands to the variables of the contract
// each plugs into: the sidecar's (clusters/sidecar.Env), the dataplane's
// (clusters/dataplane.Command) and the gateway's (clusters/gateway.Env).
var contractEnv = map[string][]binding{
	"reference peerproxy": {
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
	},
	"reference ipmode": {
		{"kubeconfig", "SKEWCHECK_KUBECONFIG"},
		{"node-name", "SKEWCHECK_NODE_NAME"},
	},
	"reference gateway": {
		{"listen", "SKEWCHECK_LISTEN"},
		{"config-dir", "SKEWCHECK_GATEWAY_CONFIG"},
		{"tls-cert", "SKEWCHECK_SERVING_CERT"},
		{"tls-key", "SKEWCHECK_SERVING_KEY"},
		{"client-ca", "SKEWCHECK_CLIENT_CA"},
		{"default-server-name", "SKEWCHECK_SERVER_NAME"},
	},
	"reference gateway wait": {
		{"config-dir", "SKEWCHECK_GATEWAY_CONFIG"},
	},
}

// flagsFromContractEnv lets each reference command take every flag it is not given from
// its contract's variable, so that it runs with no arguments where there is no shell to
// expand them: as the entrypoint of a FROM scratch image (`skewcheck images reference`,
// conformance --sidecar-image, --dataplane-image, --gateway-image).
func flagsFromContractEnv(root *cobra.Command) {
	for path, bindings := range contractEnv {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil || cmd.CommandPath() != "skewcheck "+path {
			panic("skewcheck " + path + " is missing: flagsFromContractEnv has nothing to bind")
		}
		for _, b := range bindings {
			cmd.Flags().Lookup(b.flag).Usage += " (default $" + b.env + ")"
		}
		next := cmd.PreRunE
		cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
			for _, b := range bindings {
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
}
