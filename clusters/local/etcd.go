package local

import (
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// StartEtcd runs one etcd member inside this process: no binary to build or fetch (etcd's
// server cannot be go-installed), and it dies with us. fsync is off: a test cluster's data
// need not survive a power cut, and fsync dominates write latency on small disks. `skewcheck
// etcd` runs it too, as the etcd container of the containers provider.
func StartEtcd(dir, ip string, timeout time.Duration) (*embed.Etcd, string, error) {
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("%s:%d", ip, etcdPort)}
	peer := url.URL{Scheme: "http", Host: ip + ":2380"}
	for _, u := range []url.URL{client, peer} {
		var port int
		fmt.Sscanf(u.Port(), "%d", &port)
		if err := checkPortFree("etcd", ip, port); err != nil {
			return nil, "", fmt.Errorf("embedded etcd: %w", err)
		}
	}
	cfg := embed.NewConfig()
	cfg.Name = "skewcheck"
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.LogOutputs = []string{"/dev/null"}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("starting embedded etcd on %s: %w", client.Host, err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, client.String(), nil
	case <-time.After(timeout):
		e.Close()
		return nil, "", fmt.Errorf("embedded etcd on %s was not ready within %v", client.Host, timeout)
	}
}
