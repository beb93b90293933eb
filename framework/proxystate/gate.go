package proxystate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// Gate is the feature gate of the Mixed Version Proxy.
const Gate = "UnknownVersionInteroperabilityProxy"

// featureLine is the gate's line in /metrics: component-base's kubernetes_feature_enabled
// gauge, labels name and stage (the gate's PreRelease: ALPHA, BETA, "" for GA), 1 when on
// (k8s.io/component-base v0.36.3 metrics/prometheus/feature/metrics.go:28-35,
// featuregate/feature_gate.go:1003).
var featureLine = regexp.MustCompile(`^kubernetes_feature_enabled\{(.*)\} ([0-9.eE+-]+)$`)

var stageLabel = regexp.MustCompile(`stage="([^"]*)"`)

// errGateLine is a /metrics with no line for the gate: a server before the gate existed,
// or something other than a kube-apiserver answering.
var errGateLine = errors.New("no kubernetes_feature_enabled line for " + Gate)

// readGate reads the gate at the server behind cfg from /metrics, or, where that cannot be
// read (a user who may not get /metrics is common), infers it from the release's default.
func readGate(ctx context.Context, cfg *rest.Config, e *framework.Endpoint) report.ProxyGate {
	var g report.ProxyGate
	a := get(ctx, cfg, "/metrics", "text/plain", func(r io.Reader) error {
		var err error
		g, err = gateFromMetrics(r)
		return err
	})
	if a.code == 200 && a.err == nil {
		return g
	}
	return inferGate(e, "/metrics: "+a.String())
}

// gateFromMetrics finds the gate's line in a /metrics exposition, reading no further.
func gateFromMetrics(r io.Reader) (report.ProxyGate, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m := featureLine.FindStringSubmatch(sc.Text())
		if m == nil || !strings.Contains(m[1], `name="`+Gate+`"`) {
			continue
		}
		g := report.ProxyGate{State: report.GateOff, Source: report.GateFromMetrics, Evidence: sc.Text()}
		if s := stageLabel.FindStringSubmatch(m[1]); s != nil {
			g.Stage = s[1]
		}
		if m[2] == "1" {
			g.State = report.GateOn
		}
		return g, nil
	}
	if err := sc.Err(); err != nil {
		return report.ProxyGate{}, fmt.Errorf("reading /metrics: %w", err)
	}
	return report.ProxyGate{}, errGateLine
}

// inferGate is the gate's default in the release the server emulates (its own, unless it
// runs with --emulated-version): a versioned gate takes the emulated release's default.
// Alpha and off in 1.28 to 1.35, beta and on from 1.36 (k8s.io/apiserver v0.36.3
// pkg/features/kube_features.go:526-529); 1.27 and older have no such gate.
func inferGate(e *framework.Endpoint, why string) report.ProxyGate {
	release, of := e.Version, e.Version
	if e.EmulationVersion != "" {
		release, of = e.EmulationVersion, e.Version+" emulating "+e.EmulationVersion
	}
	g := report.ProxyGate{Source: report.GateInferred}
	switch {
	case framework.CompareMinor(release, "1.28") < 0:
		g.State = report.GateAbsent
		g.Evidence = of + " has no Mixed Version Proxy (it came in 1.28)"
	case framework.CompareMinor(release, "1.36") < 0:
		g.State, g.Stage = report.GateOff, "ALPHA"
		g.Evidence = "off by default in " + of + " (alpha until 1.35), unless --feature-gates turns it on"
	default:
		g.State, g.Stage = report.GateOn, "BETA"
		g.Evidence = "on by default in " + of + " (beta from 1.36), unless --feature-gates turns it off"
	}
	g.Evidence += "; " + why
	return g
}
