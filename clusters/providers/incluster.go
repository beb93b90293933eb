//go:build incluster

package providers

import (
	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/existing"
)

// Default, in the image that runs inside the cluster under test (the tag incluster), is
// the only provider it has: the cluster it runs in. The providers that make clusters
// (embedded etcd, kind, Docker) stay out of that binary.
const Default = existing.ProviderName

func init() {
	clusters.Register(existing.Registration())
}
