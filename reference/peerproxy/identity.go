package peerproxy

import (
	"context"
	"encoding/json"
	"net/http"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// newAuthenticator decides who a client is the way kube-apiserver does (see authn), with
// bearer tokens reviewed by the local apiserver through reviews. A client without
// credentials is a nil user, forwarded with none, so the apiserver sees it anonymous.
func newAuthenticator(reviews kubernetes.Interface) *authn.Authenticator {
	return &authn.Authenticator{Review: func(ctx context.Context, token string) (*authn.User, error) {
		review, err := reviews.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		if !review.Status.Authenticated {
			return nil, nil
		}
		return authn.FromReview(review.Status.User), nil
	}}
}

// frontProxyHeaders are the front-proxy headers kube-apiserver trusts only from a client
// certificate signed by its --requestheader-client-ca-file with an allowed name.
var frontProxyHeaders = authn.Headers{User: "X-Remote-User", Group: "X-Remote-Group", UID: "X-Remote-Uid", ExtraPrefix: "X-Remote-Extra-"}

// headerMarked marks a request forwarded to a peer, which serves it locally: at most one hop.
const headerMarked = "X-Kubernetes-Peer-Proxied"

// stripIdentity removes every header that could claim an identity: a client never chooses
// who it is by sending headers, and its own credentials are not passed on.
func stripIdentity(h http.Header) {
	authn.StripIdentity(h, "X-Remote-")
}

// setIdentity writes u as front-proxy headers.
func setIdentity(h http.Header, u *authn.User) {
	frontProxyHeaders.Set(h, u)
}

// statusBody is a metav1.Status as JSON, for the proxy's own answers.
func statusBody(code int, reason, message string) []byte {
	b, _ := json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: int32(code), Reason: metav1.StatusReason(reason), Message: message})
	return b
}
