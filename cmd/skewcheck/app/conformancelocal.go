package app

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
)

// localNotKubeconfig is the line conformance prints before it starts a local cluster while
// $KUBECONFIG is set, or "": a kubectl user would expect $KUBECONFIG's cluster to be the
// one tested, and conformance tests an existing cluster only when --kubeconfig names it
// (certify, observe and cleanup read $KUBECONFIG, having no cluster of their own to start).
func localNotKubeconfig() string {
	env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar)
	if env == "" {
		return ""
	}
	give := `--kubeconfig "$KUBECONFIG"`
	if len(filepath.SplitList(env)) > 1 {
		give = "--kubeconfig with the one of its files that reaches it" // --kubeconfig reads one file
	}
	return fmt.Sprintf("testing a local cluster skewcheck starts, not $KUBECONFIG's (%s): to test that one, give %s", env, give)
}
