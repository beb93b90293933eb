package gateway

import (
	"context"
	"fmt"
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
	// Evicted: 10 requests in a row answer 200 within answerBound, all from the other.
	healthyRun, failures := 0, 0
	var evictedAt time.Duration
	var last framework.Response
	for healthyRun < 10 {
		Expect(time.Since(start)).To(BeNumerically("<", bound+10*answerBound),
			"%s %s %v ago: requests through the gateway still fail or are slow (%d failures; last %s)", how, victim.Name, time.Since(start).Round(time.Millisecond), failures, last)
		last = g.Do(ctx, framework.Request{Path: listConfigMaps.Path, Timeout: bound})
		if last.Status == 200 && last.Latency < answerBound {
			if healthyRun == 0 {
				evictedAt = time.Since(start)
			}
			healthyRun++
			continue
		}
		healthyRun, failures = 0, failures+1
	}
	env.Measure("evicted_after_seconds", evictedAt.Seconds())
	env.Measure("failed_requests", float64(failures))
	Expect(evictedAt).To(BeNumerically("<=", bound), "%s %s: requests answered 200 within %v only after %v (bound %v)", how, victim.Name, answerBound, evictedAt, bound)
	where, _ := landings(ctx, env, repeat(6, listConfigMaps))
	Expect(count(where)).To(Equal(map[string]int{other.Name: 6}), "with %s %s, requests must all go to %s", how, victim.Name, other.Name)

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
