package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// selfCallTimeout bounds one of the gateway's own calls (a review) on one upstream.
const selfCallTimeout = 5 * time.Second

// call sends one request as the gateway itself (no impersonation) to the cluster's
// healthy servers in turn until one answers 2xx: reviews may go to any of them.
func (c *cluster) call(ctx context.Context, method, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var errs []error
	healthy := c.healthyServers()
	if len(healthy) == 0 {
		return fmt.Errorf("no healthy server in %s to send %s %s to", c, method, path)
	}
	start := int(c.next.Add(1))
	for i := range healthy {
		u := healthy[(start+i)%len(healthy)]
		err := c.callOne(ctx, u, method, path, body, out)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return errors.Join(errs...)
}

func (c *cluster) callOne(ctx context.Context, u *upstream, method, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, selfCallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.endpoint+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := u.conn.rt.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("%s %s%s: %w", method, u.endpoint, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s%s: HTTP %d: %s (may the gateway's identity in spec.clientConfig create it?)", method, u.endpoint, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	return json.Unmarshal(b, out)
}

// healthyServers are the enabled servers that passed their last health check.
func (c *cluster) healthyServers() []*upstream {
	var out []*upstream
	for _, u := range c.servers {
		if !c.disabled[u] && u.healthy.Load() {
			out = append(out, u)
		}
	}
	return out
}

// reviewToken asks an upstream who a bearer token is (TokenReview); nil if nobody.
func (c *cluster) reviewToken(ctx context.Context, token string) (*authn.User, error) {
	in := &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}
	in.APIVersion, in.Kind = "authentication.k8s.io/v1", "TokenReview"
	var out authnv1.TokenReview
	if err := c.call(ctx, http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", in, &out); err != nil {
		return nil, fmt.Errorf("reviewing a bearer token: %w", err)
	}
	if !out.Status.Authenticated {
		return nil, nil
	}
	return authn.FromReview(out.Status.User), nil
}

// reviewAccess asks an upstream whether a SubjectAccessReview is allowed.
func (c *cluster) reviewAccess(ctx context.Context, sar *authzv1.SubjectAccessReview) (bool, error) {
	sar.APIVersion, sar.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
	var out authzv1.SubjectAccessReview
	if err := c.call(ctx, http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar, &out); err != nil {
		return false, fmt.Errorf("authorizing impersonation: %w", err)
	}
	return out.Status.Allowed, nil
}
