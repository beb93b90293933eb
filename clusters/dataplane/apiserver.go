package dataplane

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/skewcheck/skewcheck/clusters/netns"
)

// apiBridge makes the apiserver reachable from inside the node at apiLocalAddr: the socket
// is opened in the node's namespace, each connection is spliced to the apiserver from the
// harness's own namespace. The node needs no route to the machine, and nothing is added to
// the machine's network.
type apiBridge struct {
	l  net.Listener
	wg sync.WaitGroup
}

func newAPIBridge(node *netns.Host, apiserver string) (*apiBridge, error) {
	u, err := url.Parse(apiserver)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("apiserver address %q is not a URL", apiserver)
	}
	l, err := node.Listen("tcp", apiLocalAddr)
	if err != nil {
		return nil, err
	}
	b := &apiBridge{l: l}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go splice(in, u.Host)
		}
	}()
	return b, nil
}

func splice(in net.Conn, addr string) {
	defer in.Close()
	out, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer out.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(out, in); done <- struct{}{} }()
	go func() { io.Copy(in, out); done <- struct{}{} }()
	<-done
}

func (b *apiBridge) close() {
	b.l.Close()
	b.wg.Wait()
}

// writeNodeKubeconfig writes the kubeconfig the dataplane uses: its credentials, the
// bridge's address, and the apiserver's own name for TLS, since the bridge address is not
// in its certificate.
func writeNodeKubeconfig(path string, admin *rest.Config) error {
	ca, err := fileOrData(admin.CAFile, admin.CAData)
	if err != nil {
		return fmt.Errorf("reading the apiserver CA: %w", err)
	}
	cert, err := fileOrData(admin.CertFile, admin.CertData)
	if err != nil {
		return fmt.Errorf("reading the dataplane's client certificate: %w", err)
	}
	key, err := fileOrData(admin.KeyFile, admin.KeyData)
	if err != nil {
		return fmt.Errorf("reading the dataplane's client key: %w", err)
	}
	serverName := admin.ServerName
	if serverName == "" {
		if u, err := url.Parse(admin.Host); err == nil {
			serverName = u.Hostname()
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["apiserver"] = &clientcmdapi.Cluster{Server: "https://" + apiLocalAddr,
		CertificateAuthorityData: ca, TLSServerName: serverName}
	cfg.AuthInfos["dataplane"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key, Token: admin.BearerToken}
	cfg.Contexts["dataplane"] = &clientcmdapi.Context{Cluster: "apiserver", AuthInfo: "dataplane"}
	cfg.CurrentContext = "dataplane"
	return clientcmd.WriteToFile(*cfg, path)
}

func fileOrData(file string, data []byte) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	return os.ReadFile(file)
}
