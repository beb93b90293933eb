package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// Mutation runs every run PlanMutation plans, o.Jobs at a time, each a child `skewcheck
// conformance` on a cluster of its own (its own loopback block, namespaces and ports, as
// make conformance's runs side by side), then builds and writes the matrix and prints its
// closing lines to out; the runs' lines go to log. The matrix is written again after
// every run, so a killed matrix still has its table. A matrix with problems is Failed.
func Mutation(ctx context.Context, o MutationOptions, out, log io.Writer) error {
	runs, err := PlanMutation(o)
	if err != nil {
		return err
	}
	start := time.Now()
	o.Seed = framework.SeedOrClock(o.Seed)
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return err
	}
	m := &matrix.Mutation{Date: start, Versions: o.Versions, Seed: o.Seed, Focus: o.Focus, EveryTest: o.EveryTest, Runs: runs}
	log = &lineWriter{w: log} // the runs' lines, whole, one at a time
	var (
		mu       sync.Mutex // guards m and writeErr
		writeErr error
		wg       sync.WaitGroup
		slots    = make(chan struct{}, o.Jobs)
	)
	for i := range m.Runs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		mu.Lock()
		r := m.Runs[i]
		mu.Unlock()
		fmt.Fprintf(log, "== mutation: run %d of %d: %s\n", i+1, len(m.Runs), r.Name)
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			mutantRun(ctx, log, o, &r)
			mu.Lock()
			defer mu.Unlock()
			m.Runs[i] = r
			m.Duration = time.Since(start).Seconds()
			if err := writeMutation(o.ReportDir, m); err != nil && writeErr == nil {
				writeErr = err
			}
		}()
	}
	wg.Wait()
	if writeErr != nil {
		return writeErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return concludeMutation(out, o.ReportDir, m)
}

// lineWriter passes each Write on whole while writers of several goroutines share it.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// mutantRun runs r as a child `skewcheck conformance` and records its report, or why it
// left none.
func mutantRun(ctx context.Context, log io.Writer, o MutationOptions, r *matrix.MutationRun) {
	began := time.Now()
	dir := filepath.Join(o.ReportDir, r.Dir)
	os.RemoveAll(dir) // a report left by an earlier matrix must not stand in for this run's
	args := append([]string{"conformance"}, r.Args...)
	args = append(args, "--seed", strconv.FormatInt(o.Seed, 10), "--report-dir", dir)
	// The child fails whenever a test does, as a mutant's run is meant to: only a
	// missing report is an error of the run.
	_, runErr := runChild(ctx, log, o.Self, "["+r.Name+"] ", nil, append(args, childBinaryFlags(o.Binaries)...))
	r.Seconds = time.Since(began).Seconds()
	if ctx.Err() != nil {
		// An interrupted run's report has its tests failed as interrupted: no evidence.
		r.Error = "interrupted"
	} else if c, err := report.Read(filepath.Join(dir, report.JSONFile)); err != nil {
		r.Error = fmt.Sprintf("%v; %v", runErr, err)
	} else if why := foreignReport(r, c, o.Seed, o.Versions); why != "" {
		r.Error = why
	} else {
		r.Report = c
	}
}
