package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// withSchema is one catch-all policy limited by the schema.
func withSchema(env *framework.Env, s gwapi.FlowControlSchema) *gwapi.UpstreamCluster {
	c := base(env)
	c.Spec.FlowControl.Schemas = []gwapi.FlowControlSchema{s}
	c.Spec.DispatchPolicies = []gwapi.DispatchPolicy{policy(nil, s.Name, everything())}
	return c
}

// slowGet is a get kube-apiserver holds for about 3 s before answering 504: it asks for
// an object at a resource version far ahead, and the watch cache waits that long for it
// to arrive. Not a long-running request, so it holds a max-inflight slot all that time.
var slowGet = framework.Request{Path: "/api/v1/namespaces/default/configmaps/skewcheck-gw-slow?resourceVersion=999999999999"}

// maxInflight: beyond MaxRequestsInflight the gateway answers 429 with Retry-After; a
// slot frees when its request ends; watches do not hold slots.
func maxInflight(ctx context.Context, env *framework.Env) {
	apply(ctx, env, withSchema(env, gwapi.FlowControlSchema{Name: "two", MaxRequestsInflight: &gwapi.MaxRequestsInflightFlowControlSchema{Max: 2}}))
	g := env.Target.Gateway.Endpoint
	// Three watches, open for the whole test.
	wctx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	for range 3 {
		client, req, err := framework.StreamRequest(wctx, g, "/api/v1/namespaces/default/configmaps?watch=1")
		Expect(err).NotTo(HaveOccurred())
		resp, err := client.Do(req)
		Expect(err).NotTo(HaveOccurred(), "opening a watch through the gateway")
		Expect(resp.StatusCode).To(Equal(200), "a watch through the gateway: long-running requests are not limited by max-inflight")
		defer resp.Body.Close()
	}
	Expect(g.Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "a request with 3 watches open and max 2 in flight: watches must not hold slots")

	// Two slow requests fill both slots; a quick one polls until it is refused. A poll
	// admitted just before a slow request arrived took that request's slot (it is then
	// the slow one that is refused): the round proves nothing and runs again.
	var over framework.Response
	var slow []framework.Response
	Eventually(func() string {
		over, slow = overTheLimit(ctx, g)
		for _, r := range slow {
			if r.Status == http.StatusTooManyRequests {
				return fmt.Sprintf("a slow request was refused (a poll held a slot when it arrived, or the gateway admits fewer than 2): %s", r)
			}
		}
		return ""
	}).WithTimeout(env.Timeouts.Request).WithPolling(time.Millisecond).Should(BeEmpty(), "filling both slots with slow requests (%s)", slowGet.Path)
	Expect(over.Status).NotTo(Equal(200),
		"no request was refused while 2 slow requests (the maximum) were in flight; they answered %v, %v", slow[0], slow[1])
	Expect(over).To(framework.HaveStatus(http.StatusTooManyRequests), "a third request while 2 (the maximum) are in flight")
	secs, err := strconv.Atoi(over.Header.Get("Retry-After"))
	Expect(err).NotTo(HaveOccurred(), "429 without a Retry-After in whole seconds: %s", over)
	Expect(secs).To(BeNumerically(">=", 1))
	Expect(g.Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "a request after the slow ones ended: their slots must be free again")
}

// slowArrival is how long the slow requests get to reach the gateway before the polls.
const slowArrival = 300 * time.Millisecond

// overTheLimit sends two slow requests at once and, every 20 ms while either is in
// flight (from slowArrival on), a quick one, until one is not admitted (200). It returns that one, or the last
// admitted if none was refused, and the slow requests' answers once both have ended.
func overTheLimit(ctx context.Context, g *framework.Endpoint) (framework.Response, []framework.Response) {
	slow := make([]framework.Response, 2)
	var wg sync.WaitGroup
	for i := range slow {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slow[i] = g.Do(ctx, slowGet)
		}()
	}
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	// The first poll waits until the slow requests have surely arrived (they are held about
	// 3 s): polling from the start let a poll take a slot first in round after round on a
	// loaded machine (seen: 30 s of such rounds).
	select {
	case <-ended:
	case <-time.After(slowArrival):
	}
	var over framework.Response
	for {
		over = g.Do(ctx, listConfigMaps)
		if over.Status != 200 {
			break
		}
		select {
		case <-ended:
		case <-time.After(20 * time.Millisecond):
			continue
		}
		break
	}
	<-ended
	return over, slow
}

// tokenBucket: requests sent back to back for 4 s through a TokenBucket{qps 5, burst 5}
// policy: about burst + qps × 4 s = 25 are admitted; the test allows ±30% of the rate
// (scheduling on a loaded machine), and refused ones are 429 with Retry-After.
func tokenBucket(ctx context.Context, env *framework.Env) {
	const qps, burst, window = 5, 5, 4 * time.Second
	apply(ctx, env, withSchema(env, gwapi.FlowControlSchema{Name: "bucket", TokenBucket: &gwapi.TokenBucketFlowControlSchema{QPS: qps, Burst: burst}}))
	time.Sleep(time.Duration(burst) * time.Second / qps) // a full bucket: the apply's own requests may have taken tokens
	g := env.Target.Gateway.Endpoint
	admitted, refused := 0, 0
	start := time.Now()
	for time.Since(start) < window {
		r := g.Do(ctx, version)
		switch r.Status {
		case 200:
			admitted++
		case http.StatusTooManyRequests:
			refused++
			Expect(r.Header.Get("Retry-After")).NotTo(BeEmpty(), "429 without Retry-After: %s", r)
		default:
			Expect(r.Status).To(Equal(200), "through a token bucket: %s", r)
		}
	}
	elapsed := time.Since(start).Seconds()
	rate := float64(admitted-burst) / elapsed
	env.Measure("admitted", float64(admitted))
	env.Measure("rate_qps", rate)
	Expect(refused).To(BeNumerically(">", 0), "no request was refused in %0.1f s of back-to-back requests (%d admitted)", elapsed, admitted)
	Expect(rate).To(BeNumerically("~", qps, 0.3*qps), "admitted %d in %.1f s: %.2f qps beyond the burst, want %d±30%%", admitted, elapsed, rate, qps)
}

// exempt: an Exempt policy refuses nothing, even 50 requests at once.
func exempt(ctx context.Context, env *framework.Env) {
	apply(ctx, env, withSchema(env, gwapi.FlowControlSchema{Name: "free", Exempt: &gwapi.ExemptFlowControlSchema{}}))
	g := env.Target.Gateway.Endpoint
	var wg sync.WaitGroup
	codes := make([]int, 50)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { recover() }()
			codes[i] = g.Do(ctx, listConfigMaps).Status
		}()
	}
	wg.Wait()
	for i, c := range codes {
		Expect(c).To(Equal(200), "request %d of 50 at once through an Exempt policy", i+1)
	}
}
