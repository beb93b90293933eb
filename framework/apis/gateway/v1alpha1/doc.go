// Package v1alpha1 holds the gateway's document types: KubeGateway's UpstreamCluster
// (proxy.kubegateway.io/v1alpha1), for the fields the reference gateway implements plus what
// it adds. They are a contract, not an implementation, so they live here, apart from both
// sides: the reference gateway (reference/gateway) reads them and the gateway profile
// (suites/gateway) writes them, and neither imports the other.
//
// Like every package under framework/apis it imports nothing of the module, so a reference,
// or a vendor, can import it without the harness; this one imports only the standard
// library and k8s.io/apimachinery.
package v1alpha1
