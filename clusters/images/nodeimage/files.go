package nodeimage

import "embed"

// files are the node's own files: its entrypoint, the units and configuration of the
// kubelet and containerd, the image preloader, and the load balancer's stand-in.
//
//go:embed files
var files embed.FS

func file(name string) []byte {
	b, err := files.ReadFile("files/" + name)
	if err != nil {
		panic("nodeimage: missing embedded file " + name) // a build mistake, not a runtime condition
	}
	return b
}
