package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/images"
)

// DefaultReferenceImage is the tag `skewcheck images reference` gives by default.
const DefaultReferenceImage = "skewcheck/reference-peerproxy:dev"

func imagesCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "images", Short: "Build images of skewcheck's own programs into the local Docker engine"}
	var binary, tag string
	ref := &cobra.Command{
		Use:   "reference",
		Short: "Build the reference peer proxy as a FROM scratch image, to certify with conformance --sidecar-image",
		Long: `Builds an image holding only a static skewcheck binary, whose entrypoint is
"skewcheck reference peerproxy" configured from the sidecar environment (SKEWCHECK_*), and
tags it in the local Docker engine. Nothing is pulled: FROM scratch has no base image.

A FROM scratch image has no C library, so the binary must be static: build it with
CGO_ENABLED=0. --binary defaults to this executable.`,
		Example: "  CGO_ENABLED=0 go build -o bin/skewcheck-static ./cmd/skewcheck\n" +
			"  bin/skewcheck-static images reference --tag " + DefaultReferenceImage + "\n" +
			"  bin/skewcheck conformance --sidecar-image " + DefaultReferenceImage + " --sidecar-name reference-image",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if binary == "" {
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("finding this executable: %w; name the binary with --binary", err)
				}
				binary = exe
			}
			rt, err := containers.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer rt.Close()
			fmt.Fprintf(os.Stderr, "building %s from %s\n", tag, binary)
			if err := images.Reference(cmd.Context(), rt, binary, tag, os.Stderr); err != nil {
				return err
			}
			fmt.Println(tag)
			return nil
		},
	}
	ref.Flags().StringVar(&binary, "binary", "", "a static (CGO_ENABLED=0) skewcheck executable (default: this one)")
	ref.Flags().StringVar(&tag, "tag", DefaultReferenceImage, "the image's name and tag")
	cmd.AddCommand(ref, nodeImageCommand())
	return cmd
}
