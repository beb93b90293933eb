package peerproxy

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

func TestFlawApply(t *testing.T) {
	bob := &authn.User{Name: "bob", Groups: []string{"devs"}}
	request := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		r.Header.Set("Impersonate-User", "alice")
		r.Header.Set("Impersonate-Extra-Scopes", "all")
		r.Header.Set("X-Remote-User", "mallory")
		r.Header.Add("X-Remote-Group", "system:masters")
		return r
	}
	tests := []struct {
		flaw            Flaw
		want            *authn.User
		wantImpersonate bool
	}{
		{NoFlaw, bob, true},
		{FlawForwardAsItself, nil, true},
		{FlawDropImpersonation, bob, false},
		{FlawTrustClientIdentity, &authn.User{Name: "mallory", Groups: []string{"system:masters"}}, true},
	}
	for _, tt := range tests {
		r := request()
		if got := tt.flaw.apply(r, bob); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: forwards as %+v, want %+v", tt.flaw, got, tt.want)
		}
		if kept := r.Header.Get("Impersonate-User") != "" && r.Header.Get("Impersonate-Extra-Scopes") != ""; kept != tt.wantImpersonate {
			t.Errorf("%q: Impersonate-* kept %v, want %v", tt.flaw, kept, tt.wantImpersonate)
		}
	}
}
