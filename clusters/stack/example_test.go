package stack_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/sidecar"
	"github.com/skewcheck/skewcheck/clusters/stack"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// A vendor certifies its proxy and its service dataplane as
//
//	skewcheck conformance --sidecar-name acme-proxy --sidecar-command 'acme-proxy ...' \
//	    --profiles mvp,discovery,ipmode --dataplane exec --dataplane-name acme-lb --dataplane-command 'acme-dataplane ...'
//
// does: a local cluster of two skewed kube-apiservers with their own proxy off, the
// vendor's proxy in front of each, its dataplane on the newest one's node, the suites
// against what clients reach, and the report with its console summary.
func ExampleBuild() {
	ctx := context.Background()
	reportDir := "_reports"
	// Each serves a group-version the other lacks, so requests must cross to a peer; the
	// proxy under test does the apiservers' own proxy's job.
	servers := clusters.SkewedPair(clusters.DefaultVersions[0], clusters.DefaultVersions[1])
	for i := range servers {
		servers[i].DisablePeerProxy = true
	}
	run, err := stack.Build(ctx, stack.Spec{
		Provider: "local",
		Cluster:  clusters.Spec{Name: "acme", Servers: servers, Progress: os.Stderr},
		Front: sidecar.Config{Name: "acme-proxy", Progress: os.Stderr, Dir: filepath.Join(reportDir, "sidecar"),
			Shell: "acme-proxy --listen $SKEWCHECK_LISTEN --apiserver $SKEWCHECK_APISERVER --cert $SKEWCHECK_SERVING_CERT --key $SKEWCHECK_SERVING_KEY"},
		Dataplane: &stack.Dataplane{Name: "exec", Dir: filepath.Join(reportDir, "dataplane"),
			Choice: dataplane.Choice{Label: "acme-lb", Command: "acme-dataplane --kubeconfig $SKEWCHECK_KUBECONFIG --node $SKEWCHECK_NODE_NAME"}},
		ProxyState: true,
		Progress:   os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer run.Close()
	opts := framework.RunOptions{Profiles: []string{"mvp", "discovery", "ipmode"}, ReportDir: reportDir,
		Implementation: report.Implementation{Organization: "Acme", Project: "acme-proxy", Version: "1.2.0"}}
	rep := framework.Run(failures{}, &framework.Env{Target: run.Target, Timeouts: framework.DefaultTimeouts()}, suites.All(), opts)
	rep.ProxyState = run.ProxyState
	files, err := report.Write(reportDir, rep)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	report.WriteSummary(os.Stdout, rep, files)
}

// failures stands in for *testing.T outside go test: the report carries the outcome.
type failures struct{}

func (failures) Fail() {}
