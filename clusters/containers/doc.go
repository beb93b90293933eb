// Package containers runs skewcheck's containers on the local Docker engine through
// testcontainers-go: today a vendor's proxy image in front of each apiserver of a local
// cluster (clusters/sidecar).
//
// Cleanup is skewcheck's own, not Ryuk's: Ryuk is an image, and where no registry is
// reachable it cannot be pulled, so it is off unless the user turns it on
// (TESTCONTAINERS_RYUK_DISABLED=false). Every container is named skewcheck-<pid>-... and
// labelled with the pid of the run that made it; that run removes it, also on failure and
// Ctrl-C, and a later run removes those of runs whose process is gone (SIGKILLed), as the
// local provider does with its namespaces, cgroups and directories.
package containers
