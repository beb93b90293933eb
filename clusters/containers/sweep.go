package containers

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/skewcheck/skewcheck/clusters/process"
)

// sweep removes, with their anonymous volumes, the containers left by skewcheck runs on
// this machine whose process is gone, then their networks: a SIGKILLed run cannot remove
// its own, and with Ryuk off nothing else will.
func (r *Runtime) sweep(ctx context.Context) {
	host, _ := os.Hostname()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	list, err := r.client().ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", OwnerLabel).Add("label", HostLabel+"="+host)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "warning: listing leftover skewcheck containers: %v\n", err)
		return
	}
	for _, c := range list.Items {
		for _, name := range c.Names {
			if process.OwnerGone(strings.TrimPrefix(name, "/"), namePrefix, "-") {
				if err := r.remove(ctx, c.ID); err != nil {
					fmt.Fprintf(os.Stderr, "warning: removing %s, left by a skewcheck run that is gone: %v\n", name, err)
				}
				break
			}
		}
	}
	nets, err := r.client().NetworkList(ctx, client.NetworkListOptions{
		Filters: make(client.Filters).Add("label", OwnerLabel).Add("label", HostLabel+"="+host)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "warning: listing leftover skewcheck networks: %v\n", err)
		return
	}
	for _, n := range nets.Items {
		if process.OwnerGone(n.Name, namePrefix, "-") {
			if _, err := r.client().NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
				fmt.Fprintf(os.Stderr, "warning: removing network %s, left by a skewcheck run that is gone: %v\n", n.Name, err)
			}
		}
	}
}

// remove removes a container whatever its state, and its anonymous volumes.
func (r *Runtime) remove(ctx context.Context, id string) error {
	_, err := r.client().ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	return err
}
