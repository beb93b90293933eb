// Package chaos runs a fault against a target while a seeded load reads and writes a
// resource only the faulted server serves, and measures what clients saw: the time to
// the first 503, the time to recover after healing, spurious 404s, and lost writes.
package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Options of one measurement.
type Options struct {
	// For is how long the fault stays injected.
	For time.Duration
	// Interval is the pause between two requests of each kind (reads, writes).
	Interval time.Duration
	// Recover bounds the wait for the first 200 after healing (and, twice over, the wait
	// for the path to work before the fault).
	Recover time.Duration
	// Seed names the objects written and orders the load, so a run can be replayed.
	Seed int64
	// EndAfter503, when set, ends the fault that long after the first 503 instead of at
	// For: a suite that asserts the 503 need not wait longer.
	EndAfter503 time.Duration
	// Load says what the route's GVR is (LoadSole, LoadCRD: crdload.go), and so what
	// clients must see (Expected).
	Load string
}

// Outcome is what clients saw during one fault on one target.
type Outcome struct {
	Target string `json:"target"`
	Fault  string `json:"fault"`
	// Load is what was loaded (Options.Load): "" a GVR only the faulted server serves,
	// "crd" a CRD created through it.
	Load        string `json:"load,omitempty"`
	Description string `json:"description"`
	Skipped     string `json:"skipped,omitempty"`
	// TimeTo503 is seconds from injection to the first 503; -1 if none came.
	TimeTo503 float64 `json:"timeTo503Seconds"`
	// TimeToFirstError is seconds from injection to the first answer that was not a
	// success (a read not 200, a write not 201, or no answer); -1 if none came.
	TimeToFirstError float64 `json:"timeToFirstErrorSeconds"`
	// Errors counts those answers by kind while the fault lasted: the status ("503"), or
	// for no answer what the client saw ("no answer: tls", ErrorKind).
	Errors map[string]int `json:"errors,omitempty"`
	// TimeToRecover is seconds from healing to the first 200.
	TimeToRecover float64 `json:"timeToRecoverSeconds"`
	// Spurious404 counts 404s for a resource a live (crashed, frozen or cut off, but
	// registered) server serves. After a graceful stop the server has left, so its 404s
	// are what upstream promises, and they are counted as Left404 instead.
	Spurious404 int `json:"spurious404"`
	Left404     int `json:"left404"`
	// Window404 is seconds from the first 404 to the first 200 after it (past healing if
	// need be): how long clients were told the resource does not exist. 0 without a 404.
	Window404 float64 `json:"window404Seconds"`
	// Held503 is seconds from the first to the last 503 of the longest run of reads that
	// all answered 503: how long the proxy kept telling clients "unavailable" without a
	// 404 (or anything else) in between.
	Held503 float64 `json:"held503Seconds"`
	// FaultHeld is seconds from injection to healing: the window every other figure of
	// the fault speaks of, so a report says how long the outage lasted.
	FaultHeld float64 `json:"faultHeldSeconds"`
	// InjectTook and HealTook are seconds the fault's Inject and Heal took: for a
	// certificate fault, how long the server took to serve the certificate written to
	// disk, the replacement and then the original (scenarios/faults certs.go).
	InjectTook float64 `json:"injectTookSeconds"`
	HealTook   float64 `json:"healTookSeconds"`
	// Not503AfterFirst counts reads answered other than 503 after the first 503, while the
	// fault lasted: for a silent peer that stays registered, each is a break in the 503.
	Not503AfterFirst int `json:"not503AfterFirst503"`
	// AfterFirst503 counts the reads after the first 503, while the fault lasted, by status.
	AfterFirst503 map[int]int `json:"afterFirst503,omitempty"`
	// Statuses counts read answers by HTTP status (0: no answer: a client error, or a
	// body cut short, framework.Response.Status).
	Statuses    map[int]int `json:"statuses"`
	Reads       int         `json:"reads"`
	Writes      int         `json:"writes"`
	AckedWrites int         `json:"ackedWrites"`
	// LostWrites are writes acknowledged (201) that the serving peer does not have, or
	// cannot be shown to have within the recover bound.
	LostWrites int `json:"lostWrites"`
	// Unrecovered says, when no 200 came within the recover bound after healing, so.
	Unrecovered string `json:"unrecovered,omitempty"`
	// LastUnrecovered is the status of the last read before the recover bound ran out
	// (0 when it recovered, or the read got no answer): what clients were still told.
	LastUnrecovered int `json:"lastUnrecovered,omitempty"`
	// SlowestAnswer is seconds the slowest request of the load took while the fault
	// lasted: a fault that must go unnoticed may not stall anyone either.
	SlowestAnswer float64 `json:"slowestAnswerSeconds"`
	// Observed is what the fault itself saw, for faults that watch something of their
	// own (faults.Observer): the slow connections a front cut, a long answer's fate.
	Observed []string `json:"observed,omitempty"`
	// Broken200 counts answers the fault saw begin 200 and not end whole.
	Broken200 int    `json:"broken200,omitempty"`
	Seed      int64  `json:"seed"`
	Error     string `json:"error,omitempty"`
}

// Measure injects f, loads route (through route.Entry, a GVR route.Peer serves: alone, for
// a fault that must bring a 503, see Runner.Fault) for opts.For, heals f, and measures. The
// fault is healed whatever happens. Writes are read back at route.Peer; any server that
// serves the GVR would do, as they share etcd.
func Measure(ctx context.Context, target string, route framework.Route, f faults.Fault, opts Options) Outcome {
	o := Outcome{Target: target, Fault: f.Name(), Load: opts.Load, Description: f.Description(), Seed: opts.Seed, TimeTo503: -1, TimeToFirstError: -1,
		Statuses: map[int]int{}, AfterFirst503: map[int]int{}, Errors: map[string]int{}}
	list := route.GVR.Path() + "?limit=1"
	// The writes go where the run's tests write (the run's namespace on a cluster skewcheck
	// does not own), each labelled with the run: the GVR may be cluster-scoped.
	ns := framework.TestNamespace()
	collection := route.GVR.CollectionPath(ns)
	// Up to twice the recover bound: a proxy may still refuse the peer after an earlier
	// fault, or after failures while it started, for as long as it may take to recover
	// from a fault and again as long (a circuit breaker open 120 s past its last failure,
	// where the bound is 90 s); a proxy whose path works waits for nothing.
	if r, waited := pathWorks(ctx, route.Entry, list, 2*opts.Recover); r.Status != 200 {
		o.Error = fmt.Sprintf("before the fault the path did not work within %v: %s", waited.Round(time.Second), r.String())
		return o
	}
	injecting := time.Now()
	heal, err := faults.Inject(ctx, f)
	o.InjectTook = time.Since(injecting).Seconds()
	var unsupported faults.Unsupported
	if errors.As(err, &unsupported) {
		o.Skipped = unsupported.Reason
		return o
	}
	if err != nil {
		o.Error = err.Error()
		return o
	}
	injected := time.Now()
	deadline := injected.Add(opts.For)
	var first404 time.Time
	var run503 time.Time // when the current run of 503s began; zero outside a run
	var mu sync.Mutex
	over := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if opts.EndAfter503 > 0 && o.TimeTo503 >= 0 && time.Since(injected).Seconds() > o.TimeTo503+opts.EndAfter503.Seconds() {
			return true
		}
		return !time.Now().Before(deadline)
	}
	// failed records an answer that was not a success; mu is held.
	failed := func(r framework.Response, ok int) {
		if r.Status == ok {
			return
		}
		if o.TimeToFirstError < 0 {
			o.TimeToFirstError = time.Since(injected).Seconds()
		}
		o.Errors[ErrorKind(r)]++
	}
	var acked []string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // reads
		defer wg.Done()
		for !over() {
			start := time.Now()
			r := probe(ctx, route.Entry, framework.Request{Path: list})
			mu.Lock()
			o.SlowestAnswer = max(o.SlowestAnswer, time.Since(start).Seconds())
			o.Reads++
			o.Statuses[r.Status]++
			failed(r, 200)
			if o.TimeTo503 >= 0 {
				o.AfterFirst503[r.Status]++
				if r.Status != 503 {
					o.Not503AfterFirst++
				}
			}
			if r.Status == 503 && o.TimeTo503 < 0 {
				o.TimeTo503 = time.Since(injected).Seconds()
			}
			if r.Status != 503 {
				run503 = time.Time{}
			} else if run503.IsZero() {
				run503 = time.Now()
			} else if held := time.Since(run503).Seconds(); held > o.Held503 {
				o.Held503 = held
			}
			if r.Status == 404 && first404.IsZero() {
				first404 = time.Now()
			}
			if r.Status == 200 && !first404.IsZero() && o.Window404 == 0 {
				o.Window404 = time.Since(first404).Seconds()
			}
			if r.Status == 404 {
				if f.Name() == "stop" {
					o.Left404++
				} else {
					o.Spurious404++
				}
			}
			mu.Unlock()
			time.Sleep(opts.Interval)
		}
	}()
	go func() { // writes, named by the seed so a replay writes the same names
		defer wg.Done()
		rng := rand.New(rand.NewSource(opts.Seed))
		for n := 0; !over(); n++ {
			// The fault's name too: the cleanup below cannot always remove a fault's jobs
			// for good (batch/v1 deletes orphan their pods, and with no garbage collector
			// the orphan finalizer can keep a deleted job), and the next fault of the same
			// run and seed must not find its names taken (409).
			name := fmt.Sprintf("chaos-%d-%s-%d-%d", opts.Seed, f.Name(), n, rng.Intn(1000))
			obj, _ := fixtures.Object(route.GVR, name, ns)
			labels := framework.RunLabels()
			labels["skewcheck.io/chaos"] = fmt.Sprint(opts.Seed)
			obj.SetLabels(labels)
			body, _ := json.Marshal(obj.Object)
			start := time.Now()
			r := probe(ctx, route.Entry, framework.Request{Method: "POST", Path: collection, Body: body})
			mu.Lock()
			o.SlowestAnswer = max(o.SlowestAnswer, time.Since(start).Seconds())
			o.Writes++
			failed(r, 201)
			if r.Status == 201 {
				acked = append(acked, name)
			}
			mu.Unlock()
			time.Sleep(opts.Interval)
		}
	}()
	var healed time.Time
	var healErr error
	var healing sync.Once
	healNow := func() { healing.Do(func() { healed, healErr = time.Now(), heal(ctx) }) }
	if faults.Expected(f.Name()) == faults.Unnoticed {
		// A request stuck behind a fault that must go unnoticed is the finding, and must not
		// hold the fault in place until the probe's bound: it is healed on time.
		go func() {
			for !over() {
				time.Sleep(50 * time.Millisecond)
			}
			healNow()
		}()
	}
	wg.Wait()
	healNow()
	o.FaultHeld = healed.Sub(injected).Seconds()
	if healErr != nil {
		o.Error = healErr.Error()
	}
	if w, ok := f.(faults.Observer); ok {
		seen := w.Observed()
		o.Observed, o.Broken200 = seen.Notes, seen.Broken200
	}
	o.HealTook = time.Since(healed).Seconds()
	took, last, recovered := awaitRecovery(ctx, probing(route.Entry, framework.Request{Path: list}), healed, opts.Recover)
	if recovered {
		o.TimeToRecover = took.Seconds()
		if !first404.IsZero() && o.Window404 == 0 {
			o.Window404 = time.Since(first404).Seconds()
		}
	} else {
		o.Unrecovered = fmt.Sprintf("no 200 within %v of healing (the last answer: %d)", opts.Recover, last)
		o.LastUnrecovered = last
	}
	o.AckedWrites = len(acked)
	for _, name := range acked {
		if !readBack(ctx, probing(route.Peer, framework.Request{Path: collection + "/" + name}), opts.Recover) {
			o.LostWrites++
		}
	}
	probe(ctx, route.Peer, framework.Request{Method: "DELETE", Path: collection + "?labelSelector=skewcheck.io/chaos%3D" + fmt.Sprint(opts.Seed)})
	return o
}

// probe is one request, bounded so a hung connection cannot stall the measurement forever
// (upstream can take 45 s to fail on a frozen peer, which the bound must not hide).
func probe(ctx context.Context, e *framework.Endpoint, req framework.Request) framework.Response {
	req.Timeout = 90 * time.Second
	return e.Do(ctx, req)
}
