package app

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// The environment of skewcheck's image is the contract of the tools that run conformance
// images, as hydrophone fills it (its pkg/conformance/deploy.go: E2E_FOCUS, E2E_SKIP,
// E2E_PROVIDER, E2E_VERBOSITY, E2E_USE_GO_RUNNER, E2E_EXTRA_ARGS, E2E_EXTRA_GINKGO_ARGS,
// E2E_DRYRUN, KUBE_TEST_REPO(_LIST)) and sonobuoy (SONOBUOY_RESULTS_DIR; E2E_PARALLEL, of
// the upstream image its e2e plugin runs), and skewcheck's own variables. Each variable
// set is mapped onto the run's flags and the mapping said in the log, or refused naming
// it: none is ignored in silence.

const (
	// hydrophoneResults is where hydrophone mounts the results volume, and where it copies
	// e2e.log and junit_01.xml from (pkg/conformance/client/download.go).
	hydrophoneResults = "/tmp/results"
	// hydrophoneFocus is hydrophone's E2E_FOCUS when not told one: upstream's conformance
	// tag, which no skewcheck test carries, so it would select none.
	hydrophoneFocus = `\[Conformance\]`
	// verboseFrom is the E2E_VERBOSITY from which hydrophone asks ginkgo for -v.
	verboseFrom = 6
)

// inClusterPlan is what the environment asks of the run.
type inClusterPlan struct {
	// args are the command run: conformance or observe, with its flags.
	args []string
	// results is the directory the results go to.
	results string
	// observe says the run watches an upgrade (SKEWCHECK_OBSERVE) and has no tests.
	observe bool
	// dryRun lists the tests that would run and runs nothing (E2E_DRYRUN).
	dryRun bool
	// notes say how each variable set was taken, for the log.
	notes []string
	// profiles are the run's profiles; selected their tests, and willRun those its focus
	// and skip leave, as the run chooses them (conformance only).
	profiles          []string
	selected, willRun []framework.Test
}

// planInCluster reads the environment into a plan. The plan's results directory is set
// even with an error, so the error can be written there.
func planInCluster(getenv func(string) string) (*inClusterPlan, error) {
	p := &inClusterPlan{results: hydrophoneResults}
	if d := getenv("SONOBUOY_RESULTS_DIR"); d != "" {
		p.results = d
	}
	errs := []error{checkRunID(getenv(existing.RunEnv))}
	if d := getenv("SKEWCHECK_OBSERVE"); d != "" {
		p.observe = true
		p.args = []string{"observe", "--in-cluster", "--for", d, "--report-dir", p.results}
		if v := getenv("SKEWCHECK_OBSERVE_UNTIL"); v != "" {
			p.args = append(p.args, "--until", v)
		}
		for _, k := range []string{"E2E_FOCUS", "E2E_SKIP", "E2E_DRYRUN", "SKEWCHECK_PROFILES"} {
			if v := getenv(k); v != "" && !(k == "E2E_FOCUS" && v == hydrophoneFocus) {
				errs = append(errs, fmt.Errorf("%s=%s chooses tests, and SKEWCHECK_OBSERVE=%s watches an upgrade, which has none: unset one of them", k, v, d))
			}
		}
		p.args = append(p.args, strings.Fields(getenv("E2E_EXTRA_ARGS"))...)
		return p, errors.Join(errs...)
	}
	extra := strings.Fields(getenv("E2E_EXTRA_ARGS"))
	profiles := getenv("SKEWCHECK_PROFILES")
	p.args = []string{"conformance", "--in-cluster", "--report-dir", p.results}
	switch {
	case hasFlag(extra, "--profiles") && profiles != "":
		errs = append(errs, fmt.Errorf("SKEWCHECK_PROFILES=%s and --profiles in E2E_EXTRA_ARGS both choose the profiles (conformance would run them all): keep one", profiles))
	case hasFlag(extra, "--profiles"):
		// conformance's --profiles adds to what is given before it: the default would
		// stay, so it is not given (hydrophone's --extra-args=--profiles=ipmode runs ipmode).
		profiles = "those E2E_EXTRA_ARGS names"
	default:
		profiles = cmp.Or(profiles, strings.Join(suites.DefaultProfiles, ","))
		p.args = append(p.args, "--profiles", profiles)
	}
	switch v := getenv("E2E_FOCUS"); v {
	case "", hydrophoneFocus:
		if v != "" {
			p.note("E2E_FOCUS=%s is hydrophone's default, upstream's conformance tag, which no skewcheck test carries: running the profiles %s whole", v, profiles)
		}
	default:
		p.args = append(p.args, "--focus", v)
	}
	if v := getenv("E2E_SKIP"); v != "" {
		p.args = append(p.args, "--skip", v)
	}
	verbose, err := p.verbosity(getenv)
	errs = append(errs, err, p.conformanceImageVariables(getenv))
	if verbose {
		p.args = append(p.args, fmt.Sprintf("-v=%d", everyTestFrom))
	}
	p.args = append(p.args, extra...)
	if err := errors.Join(errs...); err != nil {
		return p, err
	}
	return p, p.chooseTests()
}

// hasFlag says whether args give the flag name, as "--name v" or "--name=v".
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

func (p *inClusterPlan) note(format string, a ...any) {
	p.notes = append(p.notes, fmt.Sprintf(format, a...))
}

// verbosity maps E2E_VERBOSITY and E2E_EXTRA_GINKGO_ARGS (hydrophone's --verbosity, whose
// values from 6 on add ginkgo's -v, and --parallel, which adds --procs=N) onto -v=1.
func (p *inClusterPlan) verbosity(getenv func(string) string) (verbose bool, err error) {
	var errs []error
	if v := getenv("E2E_VERBOSITY"); v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("E2E_VERBOSITY=%s is not a number: give the test framework's verbosity (hydrophone's --verbosity), %d or more for -v=%d", v, verboseFrom, everyTestFrom))
		case n >= verboseFrom:
			verbose = true
			p.note("E2E_VERBOSITY=%s: -v=%d, every test printed as it runs", v, everyTestFrom)
		default:
			p.note("E2E_VERBOSITY=%s: below %d, tests are printed as they end; %d or more is -v=%d", v, verboseFrom, verboseFrom, everyTestFrom)
		}
	}
	for _, a := range strings.Fields(getenv("E2E_EXTRA_GINKGO_ARGS")) {
		name, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case name == "v" || name == "ginkgo.v":
			verbose = true
			p.note("E2E_EXTRA_GINKGO_ARGS %s: -v=%d", a, everyTestFrom)
		case (name == "procs" || name == "nodes") && value == "1":
			p.note("E2E_EXTRA_GINKGO_ARGS %s: one test at a time, as skewcheck runs them", a)
		case name == "procs" || name == "nodes":
			errs = append(errs, fmt.Errorf("E2E_EXTRA_GINKGO_ARGS %s asks for tests in parallel, and skewcheck runs them one at a time (they fault and measure the same apiservers): drop it (hydrophone: --parallel 1)", a))
		default:
			errs = append(errs, fmt.Errorf("E2E_EXTRA_GINKGO_ARGS %s is a flag of ginkgo's, and skewcheck takes none (it runs ginkgo itself): give skewcheck conformance's flags in E2E_EXTRA_ARGS instead (hydrophone: --extra-args; see skewcheck conformance --help)", a))
		}
	}
	return verbose, errors.Join(errs...)
}

// conformanceImageVariables takes the upstream conformance image's variables that have no
// flag here: each means what skewcheck does anyway, or is refused.
func (p *inClusterPlan) conformanceImageVariables(getenv func(string) string) error {
	var errs []error
	switch v := strings.ToLower(getenv("E2E_PARALLEL")); v {
	case "":
	case "false", "n", "no", "1":
		p.note("E2E_PARALLEL=%s: one test at a time, as skewcheck runs them", v)
	default:
		errs = append(errs, fmt.Errorf("E2E_PARALLEL=%s asks for tests in parallel, and skewcheck runs them one at a time (they fault and measure the same apiservers): unset it", v))
	}
	switch v := getenv("E2E_PROVIDER"); v {
	case "":
	case "skeleton":
		p.note("E2E_PROVIDER=skeleton: no cloud provider, as skewcheck never has one (it tests the cluster it runs in)")
	default:
		errs = append(errs, fmt.Errorf("E2E_PROVIDER=%s names a cloud provider, and skewcheck uses none (it tests the cluster it runs in): unset it, or give skeleton", v))
	}
	if v := getenv("E2E_USE_GO_RUNNER"); v != "" {
		p.note("E2E_USE_GO_RUNNER=%s: the upstream image's choice of runner; skewcheck is its own", v)
	}
	switch v, err := strconv.ParseBool(cmp.Or(getenv("E2E_DRYRUN"), "false")); {
	case err != nil:
		errs = append(errs, fmt.Errorf("E2E_DRYRUN=%s is not true or false", getenv("E2E_DRYRUN")))
	case v:
		p.dryRun = true
		p.note("E2E_DRYRUN=%s: listing the tests that would run; nothing is made in the cluster", getenv("E2E_DRYRUN"))
	}
	for _, k := range []string{"KUBE_TEST_REPO", "KUBE_TEST_REPO_LIST"} {
		if v := getenv(k); v != "" {
			p.note("%s=%s: skewcheck runs no test image, so there is none to pull from elsewhere", k, v)
		}
	}
	return errors.Join(errs...)
}

// chooseTests reads the profiles, focus and skip as conformance will parse its arguments
// (E2E_EXTRA_ARGS may hold --profiles or --focus too), and picks the tests they leave as
// the run will (framework.Focus), for "Will run N of M specs" and the dry run.
func (p *inClusterPlan) chooseTests() error {
	c := underRoot(newConformanceCommand(IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}))
	if err := c.ParseFlags(p.args[1:]); err != nil {
		return fmt.Errorf("skewcheck %s: %w (E2E_EXTRA_ARGS holds flags of skewcheck conformance: see skewcheck conformance --help)", strings.Join(p.args, " "), err)
	}
	p.profiles, _ = c.Flags().GetStringSlice("profiles")
	focus, _ := c.Flags().GetString("focus")
	skip, _ := c.Flags().GetString("skip")
	var err error
	if p.selected, err = framework.Select(suites.All(), p.profiles); err != nil {
		return fmt.Errorf("SKEWCHECK_PROFILES (or --profiles in E2E_EXTRA_ARGS): %w", err)
	}
	if p.willRun, err = framework.Focus(p.selected, focus, skip); err != nil {
		return fmt.Errorf("E2E_FOCUS or E2E_SKIP (or --focus, --skip in E2E_EXTRA_ARGS): %w", err)
	}
	return nil
}

// checkRunID refuses a SKEWCHECK_RUN (existing.RunEnv: the ID certify gives the run
// inside, naming its namespace skewcheck-<ID> and its label) that cannot name them, before
// anything is made.
func checkRunID(id string) error {
	if id == "" {
		return nil
	}
	problems := append(validation.IsDNS1123Label("skewcheck-"+id), validation.IsValidLabelValue(id)...)
	if len(problems) > 0 {
		return fmt.Errorf("SKEWCHECK_RUN=%s cannot name the run's namespace skewcheck-%s and its label: %s; give lowercase letters, digits and '-', 53 at most (certify gives one)", id, id, strings.Join(problems, "; "))
	}
	return nil
}
