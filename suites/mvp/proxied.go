package mvp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// proxiedReads: an object made on the peer reads the same through the entry as directly.
func proxiedReads(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "create", "get", "list") {
		name := fixtures.UniqueName("read")
		createVia(ctx, r.Peer, r.Peer, r.GVR, name)
		path := objectPath(r.GVR, testNamespace(), name)
		via := r.Entry.Do(ctx, framework.Request{Path: path})
		direct := r.Peer.Do(ctx, framework.Request{Path: path})
		Expect(via).To(framework.HaveStatus(200), "get %s through %s, which does not serve it", r.GVR.Key(), r.Entry.Name)
		Expect(direct).To(framework.HaveStatus(200))
		Expect(decode(via)).To(Equal(decode(direct)), "the object read through %s differs from the one %s returns", r.Entry.Name, r.Peer.Name)

		list := r.GVR.CollectionPath(testNamespace()) + "?fieldSelector=" + url.QueryEscape("metadata.name="+name)
		viaList := r.Entry.Do(ctx, framework.Request{Path: list})
		directList := r.Peer.Do(ctx, framework.Request{Path: list})
		Expect(viaList).To(framework.HaveStatus(200), "list %s through %s", r.GVR.Key(), r.Entry.Name)
		Expect(names(viaList)).To(Equal(names(directList)))
		Expect(names(viaList)).To(ConsistOf(name))
	}
}

// proxiedWrites: every write verb through the entry takes effect on the peer.
func proxiedWrites(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "create", "update", "patch", "delete", "deletecollection", "get") {
		name := fixtures.UniqueName("write")
		created := createVia(ctx, r.Entry, r.Peer, r.GVR, name)
		path := objectPath(r.GVR, testNamespace(), name)
		onPeer := r.Peer.Do(ctx, framework.Request{Path: path})
		Expect(onPeer).To(framework.HaveStatus(200), "%s created through %s is not on %s", name, r.Entry.Name, r.Peer.Name)
		Expect(meta(decode(onPeer), "uid")).To(Equal(meta(created, "uid")))

		// update: PUT the object back with a new label
		obj := decode(onPeer)
		obj["metadata"].(map[string]any)["labels"].(map[string]any)["skewcheck.io/updated"] = "put"
		body, _ := json.Marshal(obj)
		Expect(r.Entry.Do(ctx, framework.Request{Method: "PUT", Path: path, Body: body})).To(framework.HaveStatus(200), "update through %s", r.Entry.Name)
		Expect(label(r.Peer.Do(ctx, framework.Request{Path: path}), "skewcheck.io/updated")).To(Equal("put"))

		// patch: a merge patch of one label
		patch := []byte(`{"metadata":{"labels":{"skewcheck.io/updated":"patch"}}}`)
		Expect(r.Entry.Do(ctx, framework.Request{Method: "PATCH", Path: path, Body: patch,
			Header: map[string][]string{"Content-Type": {"application/merge-patch+json"}}})).To(framework.HaveStatus(200), "patch through %s", r.Entry.Name)
		Expect(label(r.Peer.Do(ctx, framework.Request{Path: path}), "skewcheck.io/updated")).To(Equal("patch"))

		// delete
		Expect(r.Entry.Do(ctx, framework.Request{Method: "DELETE", Path: path, Body: background}).Status).To(BeElementOf(200, 202), "delete through %s", r.Entry.Name)
		Eventually(func() int { return r.Peer.Do(ctx, framework.Request{Path: path}).Status }).
			WithTimeout(env.Timeouts.Request).Should(Equal(404), "%s deleted through %s is still on %s", name, r.Entry.Name, r.Peer.Name)

		// deletecollection, by a label only this test's objects carry
		batch := fixtures.UniqueName("batch")
		for i := 0; i < 2; i++ {
			obj, _ := fixtures.Object(r.GVR, fmt.Sprintf("%s-%d", batch, i), testNamespace())
			labels := framework.RunLabels()
			labels["skewcheck.io/batch"] = batch
			obj.SetLabels(labels)
			body, _ := json.Marshal(obj.Object)
			Expect(r.Peer.Do(ctx, framework.Request{Method: "POST", Path: r.GVR.CollectionPath(testNamespace()), Body: body})).To(framework.HaveStatus(201))
			cleanupObject(r.Peer, r.GVR, obj.GetName())
		}
		selector := r.GVR.CollectionPath(testNamespace()) + "?labelSelector=" + url.QueryEscape("skewcheck.io/batch="+batch)
		Expect(r.Entry.Do(ctx, framework.Request{Method: "DELETE", Path: selector, Body: background})).To(framework.HaveStatus(200), "deletecollection through %s", r.Entry.Name)
		Eventually(func() []string { return names(r.Peer.Do(ctx, framework.Request{Path: selector})) }).
			WithTimeout(env.Timeouts.Request).Should(BeEmpty(), "deletecollection through %s left objects on %s", r.Entry.Name, r.Peer.Name)
	}
}

// background deletes at once whatever the resource's default propagation: batch/v1 Jobs
// default to orphaning, which leaves the object behind an "orphan" finalizer until a
// garbage collector (kube-controller-manager, which no local cluster runs) removes it. The
// body also has to survive the proxy: a DELETE with DeleteOptions is what kubectl sends.
var background = []byte(`{"apiVersion":"v1","kind":"DeleteOptions","propagationPolicy":"Background"}`)

// proxiedWatch: a watch through the entry from a resourceVersion sees what the peer wrote
// after it, while the watch is still open. The watch is opened first and lasts
// watchOpenFor; the event must arrive within eventBound of the write, so a proxy that
// buffers the stream and delivers it only when the watch ends is caught.
func proxiedWatch(ctx context.Context, env *framework.Env) {
	const watchOpenFor, eventBound = 30 * time.Second, 10 * time.Second
	for _, r := range routesFor(env, "create", "list", "watch") {
		list := r.Peer.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()) + "?limit=1"})
		Expect(list).To(framework.HaveStatus(200))
		rv := meta(decode(list), "resourceVersion")
		name := fixtures.UniqueName("watch")
		wctx, cancel := context.WithTimeout(ctx, watchOpenFor+env.Timeouts.Request)
		defer cancel()
		client, req, err := framework.StreamRequest(wctx, r.Entry, fmt.Sprintf("%s?watch=true&timeoutSeconds=%d&resourceVersion=%v&fieldSelector=%s",
			r.GVR.CollectionPath(testNamespace()), int(watchOpenFor.Seconds()), rv, url.QueryEscape("metadata.name="+name)))
		Expect(err).NotTo(HaveOccurred())
		resp, err := client.Do(req)
		Expect(err).NotTo(HaveOccurred(), "watch %s through %s", r.GVR.Key(), r.Entry.Name)
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(200), "watch %s through %s", r.GVR.Key(), r.Entry.Name)
		createVia(ctx, r.Peer, r.Peer, r.GVR, name)
		written := time.Now()
		Expect(firstAdded(resp.Body, name)).To(Succeed(), "the watch through %s ended without the peer's ADDED event", r.Entry.Name)
		Expect(time.Since(written)).To(BeNumerically("<", eventBound),
			"the ADDED event came through %s only %v after the write, with the watch open for %v: the stream is buffered, not passed on as it comes", r.Entry.Name, time.Since(written).Round(time.Millisecond), watchOpenFor)
	}
}

// firstAdded reads watch events from a stream until the ADDED event of name.
func firstAdded(stream io.Reader, name string) error {
	dec := json.NewDecoder(stream)
	var seen []string
	for {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return fmt.Errorf("after events %v: %w", seen, err)
		}
		if ev.Type == "ADDED" && ev.Object.Metadata.Name == name {
			return nil
		}
		seen = append(seen, ev.Type+" "+ev.Object.Metadata.Name)
	}
}

// proxiedSubresource: the status subresource of an object on the peer reads through the entry.
func proxiedSubresource(ctx context.Context, env *framework.Env) {
	// The test's FeatureSkewedStatus made sure there is one.
	for _, r := range framework.StatusRoutes(env.Target)[:1] {
		name := fixtures.UniqueName("sub")
		created := createVia(ctx, r.Peer, r.Peer, r.GVR, name)
		via := r.Entry.Do(ctx, framework.Request{Path: objectPath(r.GVR, testNamespace(), name) + "/status"})
		Expect(via).To(framework.HaveStatus(200), "get %s/status through %s", r.GVR.Key(), r.Entry.Name)
		Expect(meta(decode(via), "uid")).To(Equal(meta(created, "uid")))
	}
}

// oneHop: the peer sees the proxied request exactly once.
func oneHop(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		resp := r.Entry.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()) + "?limit=1"})
		Expect(resp).To(framework.HaveStatus(200))
		// Every server but the entry is watched, not only the route's peer: where several
		// peers serve the GVR (three servers or more), a proxy that fans out, or retries a
		// request that succeeded on another peer, shows as a second hop.
		hops := func() []string { return hopsOf(ctx, env, r.Entry, resp.AuditID) }
		Eventually(hops).WithTimeout(5*time.Second).WithPolling(50*time.Millisecond).ShouldNot(BeEmpty(),
			"no server but the entry %s served request %s (served by %v)", r.Entry.Name, resp.AuditID, endpointNames(r.ServedBy(env.Target)))
		Consistently(hops).WithTimeout(time.Second).WithPolling(100*time.Millisecond).Should(HaveLen(1),
			"request %s entered at %s should reach exactly one other server, once; servers serving it: %v", resp.AuditID, r.Entry.Name, endpointNames(r.ServedBy(env.Target)))
		Expect(slices.Contains(r.ServedBy(env.Target), env.Target.Endpoint(hops()[0]))).To(BeTrue(),
			"request %s went to %s, which does not serve %s", resp.AuditID, hops()[0], r.GVR.Key())
	}
}

// hopsOf lists, once per audit event, the servers other than entry that completed the
// request with this audit ID: one name per time a server served it.
func hopsOf(ctx context.Context, env *framework.Env, entry *framework.Endpoint, auditID string) []string {
	var out []string
	for _, e := range env.Target.Endpoints {
		if e == entry {
			continue
		}
		events, _ := e.AuditEvents(ctx, auditID, 0)
		for range events {
			out = append(out, e.Name)
		}
	}
	return out
}

func endpointNames(es []*framework.Endpoint) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

// names lists metadata.name of the items of a list response.
func names(r framework.Response) []string {
	var l struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	json.Unmarshal(r.Body, &l)
	out := []string{}
	for _, i := range l.Items {
		out = append(out, i.Metadata.Name)
	}
	return out
}

func label(r framework.Response, key string) string {
	var o struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	json.Unmarshal(r.Body, &o)
	return o.Metadata.Labels[key]
}
