package containers

import "os"

// RyukEnv is testcontainers-go's switch for its reaper container.
const RyukEnv = "TESTCONTAINERS_RYUK_DISABLED"

// disableRyukUnlessAsked turns Ryuk off unless the user said otherwise. Ryuk is the image
// testcontainers/ryuk, pulled on first use: with no registry that pull fails and every
// container start with it. testcontainers-go reads its configuration once per process, so
// this must run before its first call. Users with a registry set
// TESTCONTAINERS_RYUK_DISABLED=false to get Ryuk back; skewcheck's own cleanup runs either
// way.
func disableRyukUnlessAsked() {
	if _, set := os.LookupEnv(RyukEnv); !set {
		os.Setenv(RyukEnv, "true")
	}
}
