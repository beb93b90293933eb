//go:build !incluster

package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
)

type cleanupFlags struct {
	kubeconfig, context, run string
	olderThan                time.Duration
	yes                      bool
}

func newCleanupCommand(streams IOStreams) *cobra.Command {
	f := cleanupFlags{olderThan: existing.SafeAge}
	cmd := &cobra.Command{
		Use:   "cleanup",
		Short: "List, and with --yes delete, what runs of skewcheck left in a cluster it does not own",
		Long: `A run on a cluster skewcheck does not own (conformance --kubeconfig, certify,
observe) removes what it made as it ends. A run that was killed, or whose clean-up could
not reach the cluster, leaves its namespace and cluster-scoped objects behind, each
labelled ` + framework.RunLabel + `=<run>. cleanup lists them by run, with each run's age,
and what it would delete; it deletes only with --yes, each object only while it is the
one listed. Without --run it takes the runs older than --older-than (at least ` +
			duration.HumanDuration(existing.SafeAge) + `,
longer than any run lasts: its unprivileged user's token is made for 2h), so a run still
going is never touched; a younger run is deleted only when named with --run.`,
		Example: "  skewcheck cleanup --kubeconfig cluster.kubeconfig\n" +
			"  skewcheck cleanup --kubeconfig cluster.kubeconfig --yes\n" +
			"  skewcheck cleanup --kubeconfig cluster.kubeconfig --run 20260102-150405-x7k2q --yes",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.validate(cmd.Flags().Changed("older-than")); err != nil {
				return err
			}
			src, err := findKubeconfig(f.kubeconfig)
			if err != nil {
				return err
			}
			admin, err := src.restConfig(f.context)
			if err != nil {
				return err
			}
			dyn, err := dynamic.NewForConfig(admin)
			if err != nil {
				return fmt.Errorf("a client for %s (%s): %w", admin.Host, src, err)
			}
			disc, err := discovery.NewDiscoveryClientForConfig(admin)
			if err != nil {
				return fmt.Errorf("a client for %s (%s): %w", admin.Host, src, err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return cleanupCluster(ctx, streams, f, dyn, disc, admin.Host, fmt.Sprint(src), time.Now())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig that reaches the cluster (default: as kubectl finds it, $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.context, "context", "", "its context (default: the current one)")
	fl.StringVar(&f.run, "run", "", "the run to delete, whatever its age: its ID, as the run printed it and the listing shows it")
	fl.DurationVar(&f.olderThan, "older-than", f.olderThan, "without --run: delete the runs older than this (at least "+duration.HumanDuration(existing.SafeAge)+", so a run still going is left)")
	fl.BoolVar(&f.yes, "yes", false, "delete what is listed (without it, nothing is deleted)")
	return cmd
}

// validate judges the flags before the cluster is asked anything.
func (f cleanupFlags) validate(olderThanSet bool) error {
	if f.run != "" && olderThanSet {
		return fmt.Errorf("--run names one run to delete whatever its age, --older-than chooses runs by their age: give one of them")
	}
	if f.olderThan < existing.SafeAge {
		return fmt.Errorf("--older-than %s: a run younger than %s may still be going, and deleting what it made would fail its tests: give --older-than %s or more, or name the run with --run ID",
			f.olderThan, duration.HumanDuration(existing.SafeAge), duration.HumanDuration(existing.SafeAge))
	}
	return nil
}

// cleanupCluster is runCleanup, looking also in the cluster-scoped kinds of the skewed
// resources the cluster serves: a killed run's tests left objects there, labelled, in kinds
// only the cluster's discovery names. Without discovery the kinds every run labels are
// still cleaned up, as certify's sweep does, and the command fails saying which kinds it
// could not look in.
func cleanupCluster(ctx context.Context, streams IOStreams, f cleanupFlags, dyn dynamic.Interface, disc discovery.DiscoveryInterface, host, src string, now time.Time) error {
	more, discErr := existing.ClusterScopedFixtures(disc)
	if discErr != nil {
		discErr = fmt.Errorf("%s (%s): %w; the skewed resources' cluster-scoped kinds were not looked in: run the command again when the cluster's discovery answers", host, src, discErr)
	}
	return errors.Join(runCleanup(ctx, streams, f, dyn, host, now, more...), discErr)
}

// runCleanup lists the runs dyn's cluster (at host) holds, looking in more besides the
// kinds every run labels (existing.FindRuns), and deletes those f selects when f.yes.
func runCleanup(ctx context.Context, streams IOStreams, f cleanupFlags, dyn dynamic.Interface, host string, now time.Time, more ...schema.GroupVersionResource) error {
	runs, err := existing.FindRuns(ctx, dyn, more...)
	if err != nil {
		return fmt.Errorf("finding what runs of skewcheck left in %s: %w", host, err)
	}
	if len(runs) == 0 {
		fmt.Fprintf(streams.Out, "no run of skewcheck left anything in %s (nothing is labelled %s)\n", host, framework.RunLabel)
	} else {
		fmt.Fprintf(streams.Out, "runs of skewcheck in %s (objects labelled %s):\n", host, framework.RunLabel)
		printRuns(streams.Out, runs, now)
	}
	var chosen, young []existing.Run
	for _, r := range runs {
		switch {
		case f.run != "":
			if r.ID == f.run {
				chosen = append(chosen, r)
			}
		case r.Age(now) > f.olderThan:
			chosen = append(chosen, r)
		default:
			young = append(young, r)
		}
	}
	if f.run != "" && len(chosen) == 0 {
		return fmt.Errorf("nothing in %s is labelled %s=%s: the run removed what it made, or the ID is mistyped (the runs there, if any, are listed above)", host, framework.RunLabel, f.run)
	}
	var failed []string
	for _, r := range chosen {
		verb := "would delete"
		if f.yes {
			verb = "deleting"
		}
		fmt.Fprintf(streams.Out, "%s run %s (%s old):\n", verb, r.ID, duration.HumanDuration(r.Age(now)))
		for _, o := range r.Objects {
			fmt.Fprintf(streams.Out, "  %s\n", o)
		}
		if !f.yes {
			continue
		}
		if err := r.Remove(ctx, dyn); err != nil {
			fmt.Fprintf(streams.ErrOut, "warning: run %s: %v\n", r.ID, err)
			failed = append(failed, r.ID)
		}
	}
	for _, r := range young {
		fmt.Fprintf(streams.Out, "left run %s (%s old): younger than %s, it may still be going; name it with --run %s to delete it\n",
			r.ID, duration.HumanDuration(r.Age(now)), duration.HumanDuration(f.olderThan), r.ID)
	}
	switch {
	case len(failed) > 0:
		return fmt.Errorf("run(s) %s not deleted whole (the warnings above say what was left and why): give the kubeconfig's user delete on those objects, or run the command again",
			strings.Join(failed, ", "))
	case len(chosen) > 0 && !f.yes:
		fmt.Fprintln(streams.Out, "nothing deleted: add --yes to delete what is listed above")
	case len(chosen) == 0 && len(runs) > 0:
		fmt.Fprintln(streams.Out, "nothing to delete")
	}
	return nil
}

// printRuns is the table of runs: ID, age and how many objects each left.
func printRuns(out io.Writer, runs []existing.Run, now time.Time) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  RUN\tAGE\tOBJECTS")
	for _, r := range runs {
		fmt.Fprintf(w, "  %s\t%s\t%d\n", r.ID, duration.HumanDuration(r.Age(now)), len(r.Objects))
	}
	w.Flush()
}
