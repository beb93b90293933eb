// Package cluster is the containers provider: a local.Cluster whose etcd and kube-apiservers
// each run in a container of their own on a user-defined Docker network, with their own
// address and hostname, through testcontainers-go. Images are built here, FROM scratch,
// from the cached static kube-apiserver binaries and from a static skewcheck (whose `etcd`
// command is the etcd), since nothing can be pulled.
//
// Everything but where the processes run is the local provider's (local.Hosts): the same
// certificates, flags, kubeconfig contexts, audit logs, convergence and Node operations, so
// the suites and scenarios run unchanged. Each apiserver is a pod: a holder container owns
// its address and hostname, and the apiserver's container joins it. The operations map to
// the runtime: a graceful stop is SIGTERM to the apiserver's container, a crash SIGKILL (the
// address stays, and refuses connections, as a live host's does), a freeze docker pause, a
// thaw unpause, a partition docker network disconnect of the pod; a restart at another
// version is a new container from that version's image in the same pod, on the same
// mounted data.
package cluster
