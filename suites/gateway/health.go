package gateway

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// Bounds on a failed upstream leaving the rotation, and a recovered one coming back.
const (
	evictKilled  = 5 * time.Second  // connections are refused at once: no timeout to wait for
	evictFrozen  = 15 * time.Second // nothing answers: the gateway must time out (dial, TLS, ping, health check)
	restoreBound = 15 * time.Second
	// answerBound is how long one request may take once the failed server is evicted.
	answerBound = 2 * time.Second
)

// killedUpstream and frozenUpstream: with one of two servers dead, every request soon
// goes to the other and answers 200 promptly; once the server is back it takes requests
// again.
func killedUpstream(ctx context.Context, env *framework.Env) {
	unhealthy(ctx, env, "killed", evictKilled)
}
func frozenUpstream(ctx context.Context, env *framework.Env) {
	unhealthy(ctx, env, "frozen", evictFrozen)
}

func unhealthy(ctx context.Context, env *framework.Env, how string, bound time.Duration) {
	victim, other := env.Target.Endpoints[1], env.Target.Endpoints[0]
	restored := false
	ginkgo.DeferCleanup(func(ctx context.Context) {
		if !restored { // the test failed before bringing it back
			victim.Node.Thaw()
			if how == "killed" {
				Expect(victim.Node.Start(ctx)).To(Succeed(), "restarting %s after the test", victim.Name)
			}
		}
		Expect(env.Target.Converge(ctx)).To(Succeed(), "converging after %s was back", victim.Name)
	})
	g := env.Target.Gateway.Endpoint
	Expect(g.Do(ctx, listConfigMaps)).To(framework.HaveStatus(200))
	start := time.Now()
	if how == "killed" {
		Expect(victim.Node.Kill()).To(Succeed())
	} else {
		Expect(victim.Node.Freeze()).To(Succeed())
	}
	// Evicted: from some moment on, 10 requests in a row answer 200 within answerBound. A
	// request is sent every probeEvery, each on its own (a request that hangs does not hold
	// up the next), so the moment of eviction and requests that hang are measured apart.
	samples := probeUntilEvicted(ctx, g, start, bound)
	evictedAt, evicted := evictionIn(samples)
	var hung, failed []sample
	for _, s := range samples {
		switch {
		case s.resp.Err != "" && s.resp.Latency >= bound-probeEvery: // its own deadline ended it
			hung = append(hung, s)
		case !s.healthy():
			failed = append(failed, s)
		}
	}
	env.Measure("evicted_after_seconds", evictedAt.Seconds())
	env.Measure("failed_requests", float64(len(failed)))
	env.Measure("hung_requests", float64(len(hung)))
	var problems []string
	switch {
	case !evicted:
		problems = append(problems, fmt.Sprintf("%s %s: requests through the gateway never answered 200 within %v ten times in a row in the %v after (%d sent: %d failed or slow, %d hung; last %s)",
			how, victim.Name, answerBound, (bound+10*answerBound), len(samples), len(failed), len(hung), samples[len(samples)-1].resp))
	case evictedAt > bound:
		var before []sample
		for _, s := range samples {
			if s.sent < evictedAt && !s.healthy() {
				before = append(before, s)
			}
		}
		problems = append(problems, fmt.Sprintf("%s %s: the gateway evicted it only after %v (bound %v): requests sent from then on answered 200 within %v; %d sent before failed, were slow or hung (the last: %s)",
			how, victim.Name, evictedAt.Round(time.Millisecond), bound, answerBound, len(before), before[len(before)-1].resp))
	}
	if len(hung) > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d requests sent after %s was %s hung for the whole %v without an answer (the first sent %v after; eviction %s): a gateway must answer within the bound, from the other server or with an error (503), not hold a request on a dead upstream",
			len(hung), len(samples), victim.Name, how, bound, hung[0].sent.Round(time.Millisecond), describeEviction(evictedAt, evicted)))
	}
	Expect(problems).To(BeEmpty(), "%s", strings.Join(problems, "\n"))
	where, _ := landings(ctx, env, repeat(6, listConfigMaps))
	Expect(count(where)).To(Equal(map[string]int{other.Name: 6}), "with %s %s, requests must all go to %s", how, victim.Name, other.Name)
	// A gateway may retry a failed read on another server, never a create: only creates show
	// a dead server still in the rotation of a gateway that retries the reads above.
	for i := range 6 {
		Expect(g.Do(ctx, createCM)).To(framework.HaveStatus(201), "create %d of 6 (a dry run) through the gateway with %s %s: a create is not retried, so the server it goes to must be alive", i+1, how, victim.Name)
	}

	// Restored.
	if how == "frozen" {
		Expect(victim.Node.Thaw()).To(Succeed())
	} else {
		Expect(victim.Node.Start(ctx)).To(Succeed())
	}
	restored = true
	back := time.Now()
	for {
		where, _ := landings(ctx, env, repeat(4, listConfigMaps))
		if count(where)[victim.Name] > 0 {
			env.Measure("restored_after_seconds", time.Since(back).Seconds())
			return
		}
		Expect(time.Since(back)).To(BeNumerically("<", restoreBound), fmt.Sprintf("%s is back (ready) for %v, but the gateway sends it nothing", victim.Name, time.Since(back).Round(time.Millisecond)))
		time.Sleep(200 * time.Millisecond)
	}
}

// probeEvery is how often GW-050 and GW-051 send a request while the failed server is
// being evicted.
const probeEvery = 200 * time.Millisecond

// sample is one request sent while a server is being evicted: when, after the failure,
// and what came back.
type sample struct {
	sent time.Duration
	resp framework.Response
}

func (s sample) healthy() bool { return s.resp.Status == 200 && s.resp.Latency < answerBound }

// probeUntilEvicted sends a request every probeEvery, each bounded by bound, until ten in
// a row (by the time they were sent) have answered healthy, or until bound + 10 ×
// answerBound has passed; it returns every request once all have ended, in order sent.
func probeUntilEvicted(ctx context.Context, g *framework.Endpoint, start time.Time, bound time.Duration) []sample {
	var mu sync.Mutex
	var samples []*sample
	var done []bool
	var wg sync.WaitGroup
	for time.Since(start) < bound+10*answerBound {
		mu.Lock()
		i := len(samples)
		samples = append(samples, &sample{sent: time.Since(start)})
		done = append(done, false)
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := g.Do(ctx, framework.Request{Path: listConfigMaps.Path, Timeout: bound})
			mu.Lock()
			samples[i].resp, done[i] = r, true
			mu.Unlock()
		}()
		time.Sleep(probeEvery)
		mu.Lock()
		finished := make([]sample, 0, len(samples))
		for k, s := range samples {
			if !done[k] {
				break // a run must be of requests that have all ended
			}
			finished = append(finished, *s)
		}
		mu.Unlock()
		if _, ok := evictionIn(finished); ok {
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	wg.Wait()
	out := make([]sample, len(samples))
	for i, s := range samples {
		out[i] = *s
	}
	return out
}

// evictionIn is when the first run of ten healthy requests (in the order sent) began.
func evictionIn(samples []sample) (time.Duration, bool) {
	run := 0
	for i, s := range samples {
		if !s.healthy() {
			run = 0
			continue
		}
		if run++; run == 10 {
			return samples[i-9].sent, true
		}
	}
	return 0, false
}

func describeEviction(at time.Duration, evicted bool) string {
	if !evicted {
		return "never"
	}
	return fmt.Sprintf("after %v", at.Round(time.Millisecond))
}
