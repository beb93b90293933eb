package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
)

// writeVerbs are the audit verbs of requests that change what is stored: the verbs a
// framework.Write may name, but impersonation, which an audit event records as the
// impersonated request's own verb.
var writeVerbs = slices.DeleteFunc(slices.Clone(framework.WriteVerbs), func(v string) bool { return v == "impersonate" })

// auditedWrite is one write an apiserver's audit log records.
type auditedWrite struct {
	Verb, User, Resource, Namespace, Name string
}

func (w auditedWrite) String() string {
	where := "cluster-scoped"
	if w.Namespace != "" {
		where = "in namespace " + w.Namespace
	}
	return fmt.Sprintf("%s %s %s %s, as %s", w.Verb, w.Resource, w.Name, where, w.User)
}

// expectWritesPlanned runs `conformance --dry-run` with the flags of a run already made
// (args, less its report and audit-log flags) and fails on every write of that run, as the
// cluster's audit logs have them, that the plan does not list or that lands outside the
// run's footprint.
func expectWritesPlanned(t *testing.T, rec registry.Record, state string, args []string, from, to time.Time) {
	t.Helper()
	out, code := run(t, state, append([]string{"conformance", "--dry-run"}, args...)...)
	if code != 0 {
		t.Fatalf("conformance --dry-run %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	_, planned := parsePlan(t, out)
	ssr, err := kubernetes.NewForConfigOrDie(loadBalancerAdmin(t, rec)).AuthenticationV1().SelfSubjectReviews().Create(context.Background(),
		&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	audited := auditedWrites(t, rec, []string{ssr.Status.UserInfo.Username}, from, to)
	if len(audited) == 0 {
		t.Fatalf("the audit logs hold no write of the run between %s and %s: nothing to hold to its plan", from.Format(time.TimeOnly), to.Format(time.TimeOnly))
	}
	if bad := unplannedWrites(audited, planned); len(bad) > 0 {
		t.Errorf("%d of the run's %d audited writes are not in its --dry-run plan:\n%s\nthe plan:\n%s", len(bad), len(audited), strings.Join(bad, "\n"), out)
	} else {
		t.Logf("each of the run's %d audited writes is in its --dry-run plan and its footprint", len(audited))
	}
}

// auditedWrites reads from the cluster's audit logs the successful writes made between
// from and to by the users the run acts as: the kubeconfig's (users) and the run's
// ServiceAccounts (system:serviceaccount:skewcheck-...). A write that crossed a proxy is
// in two logs, once each.
func auditedWrites(t *testing.T, rec registry.Record, users []string, from, to time.Time) []auditedWrite {
	t.Helper()
	var out []auditedWrite
	for _, s := range rec.Servers {
		f, err := os.Open(s.AuditLog)
		if err != nil {
			t.Fatalf("reading %s's audit log: %v", s.Hostname, err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e struct {
				Stage string `json:"stage"`
				Verb  string `json:"verb"`
				User  struct {
					Username string `json:"username"`
				} `json:"user"`
				ObjectRef *struct {
					Resource, Namespace, Name, APIGroup, Subresource string
				} `json:"objectRef"`
				ResponseStatus struct {
					Code int `json:"code"`
				} `json:"responseStatus"`
				Received time.Time `json:"requestReceivedTimestamp"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.Stage != "ResponseComplete" || e.ObjectRef == nil || !slices.Contains(writeVerbs, e.Verb) {
				continue
			}
			if e.Received.Before(from) || e.Received.After(to) || e.ResponseStatus.Code >= 300 {
				continue
			}
			if !slices.Contains(users, e.User.Username) && !strings.HasPrefix(e.User.Username, "system:serviceaccount:skewcheck-") {
				continue
			}
			r := e.ObjectRef.Resource
			if e.ObjectRef.APIGroup != "" {
				r += "." + e.ObjectRef.APIGroup
			}
			if e.ObjectRef.Subresource != "" {
				r += "/" + e.ObjectRef.Subresource
			}
			out = append(out, auditedWrite{Verb: e.Verb, User: e.User.Username, Resource: r, Namespace: e.ObjectRef.Namespace, Name: e.ObjectRef.Name})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("reading %s's audit log: %v", s.Hostname, err)
		}
	}
	return out
}

// plannedWrite is one line of the plan `conformance --dry-run` prints under "writes, for
// the selected tests:", or what the run makes for itself.
type plannedWrite struct {
	verbs     []string
	resources []string // kubectl's names; the skewed resources' line names every candidate
	// namespaced and clusterScoped say where its objects may be: in the run's namespace,
	// cluster-wide (labelled with the run), or either (the skewed resources).
	namespaced, clusterScoped bool
}

var (
	planNamespace = regexp.MustCompile(`^namespace (skewcheck-\S+) `)
	planWrite     = regexp.MustCompile(`^((?:create|update|patch|delete|deletecollection|impersonate)(?:, [a-z]+)*) (\S+(?: of the skewed resources)?), (.+?) \([A-Z]+-[0-9]`)
	planSkewed    = regexp.MustCompile(`^the skewed resources are those of (.+?) that one apiserver`)
)

// parsePlan reads the run's namespace and its planned writes from a --dry-run's output.
func parsePlan(t *testing.T, out string) (namespace string, writes []plannedWrite) {
	t.Helper()
	var skewed []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		if m := planNamespace.FindStringSubmatch(line); m != nil && namespace == "" {
			namespace = m[1]
		}
		if m := planSkewed.FindStringSubmatch(line); m != nil {
			skewed = strings.Split(m[1], ", ")
		}
		if m := planWrite.FindStringSubmatch(line); m != nil {
			scope := m[3]
			writes = append(writes, plannedWrite{verbs: strings.Split(m[1], ", "), resources: []string{m[2]},
				namespaced: strings.HasPrefix(scope, "in namespace "),
				// A write that stores nothing (a review: SelfSubjectAccessReview) is of a cluster-scoped kind.
				clusterScoped: strings.Contains(scope, "cluster-scoped") || strings.HasPrefix(scope, "stores nothing")})
		}
	}
	if namespace == "" {
		t.Fatalf("the --dry-run output names no run namespace:\n%s", out)
	}
	for i, w := range writes {
		if w.resources[0] == "objects of the skewed resources" {
			writes[i].resources = skewed
		}
	}
	// A SelfSubjectReview is a create that stores nothing: the plan lists it among what the
	// run reads.
	if strings.Contains(out, "selfsubjectreviews: who each identity is") {
		writes = append(writes, plannedWrite{verbs: []string{"create"}, resources: []string{"selfsubjectreviews.authentication.k8s.io"}, clusterScoped: true})
	}
	// What the run makes for itself, and removes.
	return namespace, append(writes, plannedWrite{verbs: []string{"create", "delete"}, resources: []string{"namespaces"}, namespaced: true, clusterScoped: true},
		plannedWrite{verbs: []string{"create", "delete"}, resources: []string{"serviceaccounts", "serviceaccounts/token"}, namespaced: true})
}

// unplannedWrites are the audited writes no planned write covers, or that land outside the
// run's footprint. The plan is another run's, the --dry-run's (each run has a namespace of
// its own), so a write is in the audited run's namespace when that namespace has the
// shape of one: skewcheck-<run>. Deleting what it made is the run's clean-up, whatever the
// verbs a test declares; but an object it deletes, updates or patches by name must be one
// it created in the window (a plan names kinds, not objects: a test deleting a fixed name
// it had not made, or one whose create was refused, deleted someone else's).
func unplannedWrites(audited []auditedWrite, planned []plannedWrite) []string {
	made := map[string]bool{}
	for _, a := range audited {
		if a.Verb == "create" {
			made[objectKey(a)] = true
		}
	}
	var bad []string
	for _, a := range audited {
		if a.Namespace != "" && !strings.HasPrefix(a.Namespace, "skewcheck-") {
			bad = append(bad, a.String()+": outside the run's namespace")
			continue
		}
		if slices.Contains([]string{"update", "patch", "delete"}, a.Verb) && a.Name != "" && !made[objectKey(a)] {
			bad = append(bad, a.String()+": an object the run did not create")
			continue
		}
		covered := slices.ContainsFunc(planned, func(p plannedWrite) bool {
			verb := slices.Contains(p.verbs, a.Verb) || a.Verb == "delete" || a.Verb == "deletecollection"
			where := p.clusterScoped
			if a.Namespace != "" {
				where = p.namespaced
			}
			return verb && where && slices.ContainsFunc(p.resources, func(r string) bool { return sameResource(r, a.Resource) })
		})
		if !covered {
			bad = append(bad, a.String()+": not in the plan")
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// objectKey names the object a write is of: a subresource's write is of its object, and a
// namespace is its name alone (the audit log gives a namespace's own name as its
// namespace on some verbs and not on others).
func objectKey(a auditedWrite) string {
	resource, _, _ := strings.Cut(a.Resource, "/")
	if resource == "namespaces" {
		return resource + " " + a.Name
	}
	return resource + " " + a.Namespace + "/" + a.Name
}

// sameResource says whether a resource the audit log names is one the plan names: the same,
// or of the plan's placeholder for a name the run chooses ("widgets.<name>.crd.skewcheck.io",
// a CRD's group of its own per test).
func sameResource(planned, audited string) bool {
	before, after, placeholder := strings.Cut(planned, "<name>")
	if !placeholder {
		return planned == audited
	}
	middle, ok := strings.CutPrefix(audited, before)
	if !ok {
		return false
	}
	name, ok := strings.CutSuffix(middle, after)
	return ok && name != "" && !strings.ContainsAny(name, "./")
}
