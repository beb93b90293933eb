// Package dataplane runs a service dataplane under test (kube-proxy in a mode, skewcheck's
// reference, or a vendor's command) on a node made of a network namespace, in a topology
// built around it for the ipmode suite:
//
//	client 198.18.0.6 ─┐
//	node   198.18.0.2 ─┤  the dataplane under test runs here, against a real apiserver
//	backend 198.18.0.3, 198.18.0.4 ─┤  HTTP endpoints that say who they are
//	lb     198.18.0.5 ─┘  owns the load-balancer IPs 198.18.1.x; forwards to the node's
//	                      NodePort and records every request it forwarded
//
// All hosts meet on a bridge in a namespace of its own; the node and the client route
// 198.18.1.0/24 via the load balancer, as a cloud network would; the backend answers the
// load balancer and the client through the node, as pods do. Nothing is added to the
// machine's own network: the node reaches the apiserver through a socket the harness opens
// inside the node (127.0.0.1:6443) and splices to the apiserver's real address.
package dataplane
