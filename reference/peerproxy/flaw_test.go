package peerproxy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

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

// Every Flaw constant declared in flaw.go is in the registry: a flaw left out would be
// neither selectable by --reference-flaw nor a mutant of `skewcheck mutation`.
func TestEveryFlawIsRegistered(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "flaw.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok || name.Name == "NoFlaw" {
					continue
				}
				declared++
				value, _ := strconv.Unquote(lit.Value)
				if got, err := ParseFlaw(value); err != nil || got != Flaw(value) {
					t.Errorf("%s (%q) is declared but not in the registry (flaws): ParseFlaw = %q, %v", name.Name, value, got, err)
				}
			}
		}
	}
	if declared != len(Flaws()) || declared == 0 {
		t.Errorf("flaw.go declares %d flaws, the registry lists %d", declared, len(Flaws()))
	}
	if _, err := ParseFlaw("nosuch"); err == nil || !strings.Contains(err.Error(), string(FlawHedgeReads)) {
		t.Errorf("an unknown flaw should be refused naming the flaws; got %v", err)
	}
}

// Only FlawForgetUnreachablePeer drops a peer it cannot read, and only once it has not read
// it for forgetAfter: the reference keeps a live lease's peer however long it is down.
func TestFlawForgets(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		flaw    Flaw
		fetched time.Time
		want    bool
	}{
		{NoFlaw, now.Add(-time.Hour), false},
		{FlawHedgeReads, now.Add(-time.Hour), false},
		{FlawForgetUnreachablePeer, now.Add(-time.Second), false},
		{FlawForgetUnreachablePeer, now.Add(-forgetAfter - time.Second), true},
	} {
		if got := tc.flaw.forgets(tc.fetched, now); got != tc.want {
			t.Errorf("%q, last read %v ago: forgets %v, want %v", tc.flaw, now.Sub(tc.fetched), got, tc.want)
		}
	}
}
