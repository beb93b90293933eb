package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// APIVersion and Kind are KubeGateway's, so a document written for KubeGateway reads here
// (for the fields this gateway implements) and one written here reads there.
const (
	APIVersion = "proxy.kubegateway.io/v1alpha1"
	Kind       = "UpstreamCluster"
)

// UpstreamCluster is one set of apiservers behind the gateway, chosen by the TLS server
// name (SNI) a client asks for. Field names follow KubeGateway's v1alpha1 API; what this
// gateway adds is marked.
type UpstreamCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              UpstreamClusterSpec `json:"spec"`
}

// UpstreamClusterSpec is the servers, how to reach them, how clients reach the gateway,
// the flow-control schemas and the dispatch policies.
type UpstreamClusterSpec struct {
	Servers       []UpstreamClusterServer `json:"servers,omitempty"`
	ClientConfig  ClientConfig            `json:"clientConfig,omitempty"`
	SecureServing SecureServing           `json:"secureServing,omitempty"`
	FlowControl   FlowControl             `json:"flowControl,omitempty"`
	// DispatchPolicies are tried in order; the first whose rules match takes the request.
	DispatchPolicies []DispatchPolicy `json:"dispatchPolicies,omitempty"`
	// Anonymous, added here, forwards a request that presents no credentials as
	// system:anonymous (group system:unauthenticated), for the servers' authorizer to
	// decide, as kube-apiserver with --anonymous-auth=true does. Off by default: such a
	// request is answered 401 Unauthorized by the gateway and goes nowhere. The gateway
	// reaches the servers with its own credentials and impersonates, so forwarding
	// anonymous would let anonymous in behind servers that turned it off
	// (--anonymous-auth=false). Turn it on only for servers that allow anonymous requests
	// and clients that need them (unauthenticated health checks, /version).
	Anonymous bool `json:"anonymous,omitempty"`
}

// UpstreamClusterServer is one apiserver.
type UpstreamClusterServer struct {
	// Endpoint is its URL, https://host:port.
	Endpoint string `json:"endpoint,omitempty"`
	// Disabled takes it out of every policy without deleting it (a drain).
	Disabled *bool `json:"disabled,omitempty"`
}

// ClientConfig is how the gateway reaches the servers: as itself (a client certificate or
// a bearer token), impersonating the real client on every request, so the identity must
// be allowed to impersonate users, groups, uids, userextras and serviceaccounts, and to
// create tokenreviews and subjectaccessreviews.
//
// Each PEM may be given inline (…Data, base64 in YAML, as KubeGateway) or, added here, as
// a file path (…File), relative to the document's directory.
type ClientConfig struct {
	CAData   []byte `json:"caData,omitempty"`
	CAFile   string `json:"caFile,omitempty"`
	CertData []byte `json:"certData,omitempty"`
	CertFile string `json:"certFile,omitempty"`
	KeyData  []byte `json:"keyData,omitempty"`
	KeyFile  string `json:"keyFile,omitempty"`
	// BearerToken authenticates the gateway instead of a client certificate.
	BearerToken string `json:"bearerToken,omitempty"`
	// ServerName is what the servers' certificates are verified against (and the SNI sent
	// to them); default the endpoint's host.
	ServerName string `json:"serverName,omitempty"`
	// Insecure skips verifying the servers' certificates. For tests only.
	Insecure bool `json:"insecure,omitempty"`
}

// SecureServing is how clients of this cluster reach the gateway.
type SecureServing struct {
	// ServerNames are the TLS server names (SNI) that select this cluster.
	ServerNames []string `json:"serverNames,omitempty"`
	// The serving certificate for those names; default the gateway's own (Config).
	CertData []byte `json:"certData,omitempty"`
	CertFile string `json:"certFile,omitempty"`
	KeyData  []byte `json:"keyData,omitempty"`
	KeyFile  string `json:"keyFile,omitempty"`
	// ClientCAData verifies client certificates; default the gateway's ClientCA (Config).
	ClientCAData []byte `json:"clientCAData,omitempty"`
	ClientCAFile string `json:"clientCAFile,omitempty"`
}

// FlowControl holds the named schemas dispatch policies refer to.
type FlowControl struct {
	Schemas []FlowControlSchema `json:"flowControlSchemas,omitempty"`
}

// FlowControlSchema is a name and exactly one kind of limit.
type FlowControlSchema struct {
	Name                string                                `json:"name,omitempty"`
	Exempt              *ExemptFlowControlSchema              `json:"exempt,omitempty"`
	MaxRequestsInflight *MaxRequestsInflightFlowControlSchema `json:"maxRequestsInflight,omitempty"`
	TokenBucket         *TokenBucketFlowControlSchema         `json:"tokenBucket,omitempty"`
}

// ExemptFlowControlSchema is no limit.
type ExemptFlowControlSchema struct{}

// MaxRequestsInflightFlowControlSchema bounds concurrent requests; long-running ones
// (watches, exec, attach, port-forward, proxy, log) do not count, as in kube-apiserver.
type MaxRequestsInflightFlowControlSchema struct {
	Max int32 `json:"max,omitempty"`
}

// TokenBucketFlowControlSchema allows qps on average and bursts of up to burst.
type TokenBucketFlowControlSchema struct {
	QPS   int32 `json:"qps,omitempty"`
	Burst int32 `json:"burst,omitempty"`
}

// DispatchPolicy sends the requests its rules match to a subset of the servers.
type DispatchPolicy struct {
	// Strategy is how a server is picked: RoundRobin (the only one).
	Strategy Strategy `json:"strategy,omitempty"`
	// UpstreamSubset lists server endpoints (as in spec.servers); empty means all.
	UpstreamSubset []string `json:"upstreamSubset,omitempty"`
	// Rules are OR-ed: the policy matches when one rule does.
	Rules []DispatchPolicyRule `json:"rules,omitempty"`
	// FlowControlSchemaName names a schema of spec.flowControl; empty means no limit.
	FlowControlSchemaName string `json:"flowControlSchemaName,omitempty"`
}

// Strategy picks a server among the capable ones.
type Strategy string

// RoundRobin takes the healthy servers of the subset in turn.
const RoundRobin Strategy = "RoundRobin"

// DispatchPolicyRule matches a request when every field matches (AND). In each list, "*"
// matches everything; a "-" prefix negates an entry (reference/gateway/rules.go spells out the exact meaning).
type DispatchPolicyRule struct {
	Verbs           []string            `json:"verbs,omitempty"`
	APIGroups       []string            `json:"apiGroups,omitempty"`
	Resources       []string            `json:"resources,omitempty"`
	ResourceNames   []string            `json:"resourceNames,omitempty"`
	Users           []string            `json:"users,omitempty"`
	ServiceAccounts []ServiceAccountRef `json:"serviceAccounts,omitempty"`
	UserGroups      []string            `json:"userGroups,omitempty"`
	NonResourceURLs []string            `json:"nonResourceURLs,omitempty"`
}

// ServiceAccountRef names a service account; it matches the user
// system:serviceaccount:<namespace>:<name>.
type ServiceAccountRef struct {
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}
