package containers

import (
	"os"
	"sync"
)

// RyukEnv is testcontainers-go's switch for its reaper container.
const RyukEnv = "TESTCONTAINERS_RYUK_DISABLED"

var ryukMu sync.Mutex

// withRyukOffUnlessAsked runs read, the first call that makes testcontainers-go read its
// configuration, with Ryuk off unless the user said otherwise, and then puts the
// environment back as it was.
//
// Ryuk is the image testcontainers/ryuk, pulled on first use: with no registry that pull
// fails, and every container start with it. Users with a registry set
// TESTCONTAINERS_RYUK_DISABLED=false to get Ryuk back; skewcheck's own cleanup (sweep)
// runs either way.
//
// Scoping the switch to skewcheck's own containers is not possible with testcontainers-go
// v0.45: it reads its configuration once per process (internal/config.Read, a sync.Once),
// every DockerProvider copies RyukDisabled from it, and ContainerRequest.SkipReaper is
// deprecated and ignored. So what this can scope is the environment: other code of the
// process, and child processes, see the user's setting; but testcontainers-go itself keeps
// the first value it read, so a program that embeds this provider and starts containers of
// its own gets Ryuk off for them too, unless it sets the variable itself (or reads
// testcontainers' configuration before skewcheck does).
func withRyukOffUnlessAsked(read func()) {
	ryukMu.Lock()
	defer ryukMu.Unlock()
	if _, set := os.LookupEnv(RyukEnv); set {
		read()
		return
	}
	os.Setenv(RyukEnv, "true")
	defer os.Unsetenv(RyukEnv)
	read()
}
