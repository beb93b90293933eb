package local

import (
	"fmt"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/skewcheck/skewcheck/clusters"
)

// controllerManagerUser is kube-controller-manager's own user, which upstream's bootstrap
// RBAC binds to system:kube-controller-manager (what kubeadm's controller-manager.conf
// authenticates as); each controller then acts as its own service account
// (--use-service-account-credentials), so the garbage collector has the rights of
// system:controller:generic-garbage-collector and no more.
const controllerManagerUser = "system:kube-controller-manager"

// writeKubeconfig writes its kubeconfig: its own client certificate, signed by the
// cluster CA, for the server it connects to. Behind the load balancer the certificate it
// meets is whichever server's its connection reached, so it verifies a name every
// server's certificate has (pki's in-cluster names) instead of the balancer's address.
func (m *ControllerManager) writeKubeconfig() error {
	c := m.cluster
	pair, err := c.PKI.ClientCert("kube-controller-manager", controllerManagerUser, nil)
	if err != nil {
		return err
	}
	cluster := &clientcmdapi.Cluster{Server: m.URL, CertificateAuthority: c.PKI.CA.CertFile}
	if m.Connect == clusters.ConnectLoadBalancer {
		cluster.TLSServerName = "kubernetes.default.svc"
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[c.Name] = cluster
	cfg.AuthInfos[controllerManagerUser] = &clientcmdapi.AuthInfo{ClientCertificate: pair.CertFile, ClientKey: pair.KeyFile}
	cfg.Contexts[controllerManagerUser+"@"+c.Name] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: controllerManagerUser}
	cfg.CurrentContext = controllerManagerUser + "@" + c.Name
	m.Kubeconfig = filepath.Join(m.Dir, "controller-manager.conf")
	if err := clientcmd.WriteToFile(*cfg, m.Kubeconfig); err != nil {
		return fmt.Errorf("writing the controller manager's kubeconfig %s: %w", m.Kubeconfig, err)
	}
	return nil
}
