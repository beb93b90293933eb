//go:build !incluster

package app

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/images"
)

// DefaultReferenceImage is the tag `skewcheck images reference` gives the peer proxy by
// default; the other components' are alike (referenceImage).
const DefaultReferenceImage = "skewcheck/reference-peerproxy:dev"

// referenceImage is the default tag of a reference component's image.
func referenceImage(component string) string { return "skewcheck/reference-" + component + ":dev" }

func newImagesCommand(streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "images", Short: "Build images of skewcheck's own programs into the local Docker engine"}
	var binary, tag, component string
	ref := &cobra.Command{
		Use:   "reference",
		Short: "Build a reference implementation as a FROM scratch image, to certify with conformance --sidecar-image, --dataplane-image or --gateway-image",
		Long: `Builds an image holding only a static skewcheck binary, whose entrypoint runs one reference
implementation configured from its contract's environment (SKEWCHECK_*), and tags it in the
local Docker engine. Nothing is pulled: FROM scratch has no base image.

  --component peerproxy   "skewcheck reference peerproxy", for --sidecar-image
  --component dataplane   "skewcheck reference ipmode", for --dataplane-image; it runs nft,
                          which is copied in from this machine with its shared libraries
  --component gateway     "skewcheck reference gateway", for --gateway-image

A FROM scratch image has no C library, so the binary must be static: build it with
CGO_ENABLED=0. --binary defaults to this executable.`,
		Example: "  CGO_ENABLED=0 go build -o bin/skewcheck-static ./cmd/skewcheck\n" +
			"  bin/skewcheck-static images reference --tag " + DefaultReferenceImage + "\n" +
			"  bin/skewcheck conformance --sidecar-image " + DefaultReferenceImage + " --sidecar-name reference-image\n" +
			"  bin/skewcheck-static images reference --component dataplane\n" +
			"  bin/skewcheck conformance --versions v1.36.3 --profiles ipmode --dataplane-image " + referenceImage("dataplane"),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			binary, err := binaryOrSelf(binary)
			if err != nil {
				return err
			}
			if tag == "" {
				tag = referenceImage(component)
			}
			rt, err := containers.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer rt.Close()
			fmt.Fprintf(streams.ErrOut, "building %s (reference %s) from %s\n", tag, component, binary)
			if err := images.Reference(cmd.Context(), rt, component, binary, tag, streams.ErrOut); err != nil {
				return err
			}
			fmt.Fprintln(streams.Out, tag)
			return nil
		},
	}
	ref.Flags().StringVar(&binary, "binary", "", "a static (CGO_ENABLED=0) skewcheck executable (default: this one)")
	ref.Flags().StringVar(&component, "component", "peerproxy", "which reference: "+strings.Join(images.ReferenceNames(), ", "))
	ref.Flags().StringVar(&tag, "tag", "", "the image's name and tag (default skewcheck/reference-<component>:dev)")
	cmd.AddCommand(ref, newNodeImageCommand(streams), newSkewcheckImageCommand(streams))
	return cmd
}

// binaryOrSelf is the --binary an image is built from: the one named, else this executable.
func binaryOrSelf(binary string) (string, error) {
	if binary != "" {
		return binary, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this executable: %w; name the binary with --binary", err)
	}
	return exe, nil
}

// DefaultSkewcheckImage is the tag `skewcheck images skewcheck` gives skewcheck's own image.
const DefaultSkewcheckImage = "skewcheck/skewcheck:dev"

// newSkewcheckImageCommand builds the image that runs skewcheck inside a cluster (certify's
// Job, a sonobuoy plugin, hydrophone's --conformance-image): the static binary, its
// entrypoint `skewcheck in-cluster`, and busybox as sh and cat for hydrophone's exec.
func newSkewcheckImageCommand(streams IOStreams) *cobra.Command {
	var binary, tag string
	cmd := &cobra.Command{
		Use:   "skewcheck",
		Short: "Build skewcheck's own image, which runs the suites from inside a cluster (skewcheck certify, sonobuoy, hydrophone)",
		Long: `Builds a FROM scratch image holding a static skewcheck binary, whose entrypoint is
"skewcheck in-cluster" (see its help for the environment it reads), and this machine's static
busybox (/bin/busybox, Debian's busybox-static) as /bin/sh and /bin/cat: hydrophone reads the
run's progress by exec'ing sh -c "cat /tmp/results/e2e.log" in it. It is tagged in the local
Docker engine; nothing is pulled. The binary must be static (CGO_ENABLED=0); built with the
tag incluster it holds only what runs inside a cluster (conformance, observe, in-cluster),
and the image is about 62 MB stripped, 2 MB of it busybox (make skewcheck-image does both).`,
		Example: "  CGO_ENABLED=0 go build -tags incluster -trimpath -ldflags=\"-s -w\" -o bin/skewcheck-incluster ./cmd/skewcheck\n" +
			"  bin/skewcheck images skewcheck --binary bin/skewcheck-incluster --tag " + DefaultSkewcheckImage,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			binary, err := binaryOrSelf(binary)
			if err != nil {
				return err
			}
			rt, err := containers.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer rt.Close()
			fmt.Fprintf(streams.ErrOut, "building %s from %s\n", tag, binary)
			if err := images.Skewcheck(cmd.Context(), rt, binary, tag, streams.ErrOut); err != nil {
				return err
			}
			fmt.Fprintln(streams.Out, tag)
			return nil
		},
	}
	cmd.Flags().StringVar(&binary, "binary", "", "a static (CGO_ENABLED=0) skewcheck executable, best built with -tags incluster (default: this one)")
	cmd.Flags().StringVar(&tag, "tag", DefaultSkewcheckImage, "the image's name and tag")
	return cmd
}
