package front

import (
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// Endpoint is the endpoint of a front of site's server i, reached at url and named name:
// the suites' admin and user reach it with the identities the apiserver knows them by (a
// front passes identities through), the apiserver's audit and log are its evidence, and
// node is the server and its front sharing a fate (FrontServer.Fronted). What the endpoint
// serves itself is read from the apiserver (ServedFrom), never through the front, and the
// apiserver is named (Behind). A front that keeps a log of its own sets Log after.
func Endpoint(site *clusters.FrontSite, i int, name, url string, node framework.Node) *framework.Endpoint {
	d := site.Direct.Endpoints[i]
	admin, user := rest.CopyConfig(d.Admin), rest.CopyConfig(d.User)
	admin.Host, user.Host = url, url
	return &framework.Endpoint{Name: name, URL: url, Admin: admin, User: user, ServedFrom: d.Admin, Behind: d.Name, AuditLog: d.AuditLog, Log: d.Log, Node: node,
		UserName: d.UserName, UserGroups: d.UserGroups, UserUID: d.UserUID, UserExtra: d.UserExtra}
}
