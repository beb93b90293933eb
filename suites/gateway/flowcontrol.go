package gateway

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	gw "github.com/skewcheck/skewcheck/reference/gateway"
)

// withSchema is one catch-all policy limited by the schema.
func withSchema(env *framework.Env, s gw.FlowControlSchema) *gw.UpstreamCluster {
	c := base(env)
	c.Spec.FlowControl.Schemas = []gw.FlowControlSchema{s}
	c.Spec.DispatchPolicies = []gw.DispatchPolicy{policy(nil, s.Name, everything())}
	return c
}

// slowGet is a get kube-apiserver holds for about 3 s before answering 504: it asks for
// an object at a resource version far ahead, and the watch cache waits that long for it
// to arrive. Not a long-running request, so it holds a max-inflight slot all that time.
var slowGet = framework.Request{Path: "/api/v1/namespaces/default/configmaps/skewcheck-gw-slow?resourceVersion=999999999999"}

// maxInflight: beyond MaxRequestsInflight the gateway answers 429 with Retry-After; a
// slot frees when its request ends; watches do not hold slots.
func maxInflight(ctx context.Context, env *framework.Env) {
	apply(ctx, env, withSchema(env, gw.FlowControlSchema{Name: "two", MaxRequestsInflight: &gw.MaxRequestsInflightFlowControlSchema{Max: 2}}))
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

	var wg sync.WaitGroup
	slow := make([]framework.Response, 2)
	start := time.Now()
	for i := range slow {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { recover() }() // a gomega failure in a goroutine is reported below instead
			slow[i] = g.Do(ctx, slowGet)
		}()
	}
	time.Sleep(500 * time.Millisecond) // both slow requests are in flight by now (they take ~3 s)
	over := g.Do(ctx, listConfigMaps)
	overAt := time.Since(start)
	wg.Wait()
	held := time.Since(start)
	Expect(held).To(BeNumerically(">", overAt+500*time.Millisecond),
		"precondition: the slow requests (%s) must still be in flight when the third is sent; they took %v: %v", slowGet.Path, held, slow)
	Expect(over).To(framework.HaveStatus(http.StatusTooManyRequests), "a third request while 2 (the maximum) are in flight")
	secs, err := strconv.Atoi(over.Header.Get("Retry-After"))
	Expect(err).NotTo(HaveOccurred(), "429 without a Retry-After in whole seconds: %s", over)
	Expect(secs).To(BeNumerically(">=", 1))
	Expect(g.Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "a request after the slow ones ended: their slots must be free again")
}

// tokenBucket: requests sent back to back for 4 s through a TokenBucket{qps 5, burst 5}
// policy: about burst + qps × 4 s = 25 are admitted; the test allows ±30% of the rate
// (scheduling on a loaded machine), and refused ones are 429 with Retry-After.
func tokenBucket(ctx context.Context, env *framework.Env) {
	const qps, burst, window = 5, 5, 4 * time.Second
	apply(ctx, env, withSchema(env, gw.FlowControlSchema{Name: "bucket", TokenBucket: &gw.TokenBucketFlowControlSchema{QPS: qps, Burst: burst}}))
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
	apply(ctx, env, withSchema(env, gw.FlowControlSchema{Name: "free", Exempt: &gw.ExemptFlowControlSchema{}}))
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
