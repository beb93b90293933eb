// Package ipmode is skewcheck's reference for the load-balancer-IP part of a service
// dataplane (KEP-1860). It watches Services and EndpointSlices and programs nftables (with
// sigs.k8s.io/knftables) on the node it runs on:
//
//   - a NodePort on the node's IP goes to a ready endpoint, as kube-proxy does;
//   - a load-balancer ingress IP whose ipMode is VIP (or unset) is short-circuited: traffic
//     from the node (and through it) to that IP goes straight to an endpoint;
//   - an ingress IP whose ipMode is Proxy, and a hostname-only ingress, are left alone, so
//     the traffic goes to the real load balancer, keeping its TLS termination, PROXY
//     protocol and health checks.
//
// IgnoreIPMode short-circuits every ingress IP, as dataplanes written before KEP-1860 do;
// it exists to show the ipmode suite failing against a dataplane that lacks the behaviour,
// as each Flaw (flaw.go) does for one other way of getting it wrong.
// Cluster IPs, session affinity and traffic policies are out of scope.
package ipmode
