// Package images builds the container images skewcheck runs from its own binaries, through
// the Docker engine's build API (testcontainers-go): FROM scratch images of one static
// binary, which need no base image and so no registry.
package images
