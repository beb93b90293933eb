package campaign

import (
	"github.com/skewcheck/skewcheck/framework/report"
)

// kubeadmPeerProxy is the controllers family's mutant: every server's proxy as kubeadm
// leaves it (no --peer-ca-file; the gate at the release's default), so inert.
const kubeadmPeerProxy = "kubeadm-peer-proxy"

// controllersFamily is the controllers profile against real upstream with its
// kube-controller-manager on apiserver-1, the older server, which lacks batch/v1
// (turned off) and the newer release's resources: the worst case, where the inert proxy
// fails CTRL-002 to 004 and CTRL-010 every time (docs/controllers.md). Its baseline is
// the proxy active, the local provider's default; its one mutant the proxy inert. There
// is no reference here: the variant is upstream's own configuration, so the report's
// variant is the inert servers the run found (report.ProxyState), not a flag echoed.
var controllersFamily = mutantFamily{
	name: "controllers",
	cluster: func(older, newer string) []string {
		return []string{"--versions", older + "," + newer, "--server-flag", "1=--runtime-config=batch/v1=false", "--controller-manager", "apiserver-1"}
	},
	variants: func() []string { return []string{kubeadmPeerProxy} },
	front: func(v string) []string {
		if v == "" {
			return nil
		}
		return []string{"--kubeadm-peer-proxy", "1,2"}
	},
	ranWith: func(c *report.Conformance) string {
		if c.ProxyState != nil && len(c.ProxyState.Inert) > 0 {
			return kubeadmPeerProxy
		}
		return ""
	},
}
