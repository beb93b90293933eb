package ipmode

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/knftables"
)

// Config is how the reference dataplane runs.
type Config struct {
	Kubeconfig string
	// NodeName is the Node the dataplane runs on; its InternalIP is where NodePorts listen.
	NodeName string
	// IgnoreIPMode short-circuits Proxy ingress IPs too (a dataplane without KEP-1860).
	IgnoreIPMode bool
	// Flaw makes the dataplane deliberately wrong, to show the suite catches it (flaw.go).
	Flaw Flaw
	// MinSyncPeriod batches bursts of changes into one rewrite (default 100ms).
	MinSyncPeriod time.Duration
	Log           io.Writer `json:"-"`
}

// Run programs the node until ctx ends; it removes its table on the way out.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.MinSyncPeriod == 0 {
		cfg.MinSyncPeriod = 100 * time.Millisecond
	}
	rc, err := clientcmd.BuildConfigFromFlags("", cfg.Kubeconfig)
	if err != nil {
		return fmt.Errorf("reading kubeconfig %q: %w", cfg.Kubeconfig, err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	nft, err := knftables.New(knftables.IPv4Family, Table)
	if err != nil {
		return fmt.Errorf("nftables is not usable here (the nft command and kernel nf_tables are needed): %w", err)
	}
	nodeIP, err := waitNodeIP(ctx, cs, cfg.NodeName)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Log, "reference ipmode dataplane on node %s (%s), ignore ipMode: %v, flaw: %q\n", cfg.NodeName, nodeIP, cfg.IgnoreIPMode, cfg.Flaw)

	factory := informers.NewSharedInformerFactory(cs, 0)
	services := factory.Core().V1().Services()
	slices := factory.Discovery().V1().EndpointSlices()
	changed := make(chan struct{}, 1)
	poke := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	handler := cache.ResourceEventHandlerFuncs{AddFunc: poke, DeleteFunc: poke, UpdateFunc: func(_, n any) { poke(n) }}
	services.Informer().AddEventHandler(handler)
	slices.Informer().AddEventHandler(handler)
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), services.Informer().HasSynced, slices.Informer().HasSynced) {
		return fmt.Errorf("the Service and EndpointSlice caches never synced: %w", ctx.Err())
	}
	defer func() {
		tx := nft.NewTransaction()
		tx.Add(&knftables.Table{})
		tx.Delete(&knftables.Table{})
		nft.Run(context.Background(), tx)
	}()
	poke(nil)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		ports, err := collect(services.Lister().List, slices.Lister().List, cfg.IgnoreIPMode, cfg.Flaw)
		if err != nil {
			return err
		}
		tx := nft.NewTransaction()
		Ruleset(tx, nodeIP, ports)
		if err := nft.Run(ctx, tx); err != nil {
			fmt.Fprintf(cfg.Log, "programming nftables: %v\n", err)
			poke(nil) // try again after the pause
		} else {
			fmt.Fprintf(cfg.Log, "synced %d service ports\n", len(ports))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(cfg.MinSyncPeriod):
		}
	}
}

func collect(listServices func(labels.Selector) ([]*corev1.Service, error),
	listSlices func(labels.Selector) ([]*discoveryv1.EndpointSlice, error), ignoreIPMode bool, flaw Flaw) ([]ServicePort, error) {
	svcs, err := listServices(labels.Everything())
	if err != nil {
		return nil, err
	}
	all, err := listSlices(labels.Everything())
	if err != nil {
		return nil, err
	}
	byService := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range all {
		if name := s.Labels[discoveryv1.LabelServiceName]; name != "" {
			byService[s.Namespace+"/"+name] = append(byService[s.Namespace+"/"+name], s)
		}
	}
	var ports []ServicePort
	for _, svc := range svcs {
		ports = append(ports, flaw.bend(svc, Resolve(svc, byService[svc.Namespace+"/"+svc.Name], ignoreIPMode), lookupIPv4)...)
	}
	return ports, nil
}

// waitNodeIP reads the node's InternalIP, waiting for the Node to be registered.
func waitNodeIP(ctx context.Context, cs kubernetes.Interface, name string) (string, error) {
	var lastErr error
	for i := 0; i < 120; i++ {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, a := range n.Status.Addresses {
				if a.Type == corev1.NodeInternalIP {
					return a.Address, nil
				}
			}
			err = fmt.Errorf("it has no InternalIP address")
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("Node %q: %w (give --node-name of a registered node)", name, lastErr)
}
