package containers

import (
	"os"
	"testing"
)

// Ryuk is off while testcontainers-go reads its configuration, unless the user set the
// switch, and the environment is as it was afterwards: the rest of the process and its
// children see the user's setting.
func TestRyukOffOnlyWhileConfigIsRead(t *testing.T) {
	was, set := os.LookupEnv(RyukEnv)
	t.Cleanup(func() {
		if set {
			os.Setenv(RyukEnv, was)
		} else {
			os.Unsetenv(RyukEnv)
		}
	})
	os.Unsetenv(RyukEnv)
	var during string
	withRyukOffUnlessAsked(func() { during = os.Getenv(RyukEnv) })
	if during != "true" {
		t.Errorf("while the configuration is read, %s=%q, want true", RyukEnv, during)
	}
	if v, ok := os.LookupEnv(RyukEnv); ok {
		t.Errorf("afterwards %s=%q is left in the environment; want it unset, as the user left it", RyukEnv, v)
	}
	os.Setenv(RyukEnv, "false")
	withRyukOffUnlessAsked(func() { during = os.Getenv(RyukEnv) })
	if during != "false" || os.Getenv(RyukEnv) != "false" {
		t.Errorf("the user's %s=false was overridden: %q during, %q after", RyukEnv, during, os.Getenv(RyukEnv))
	}
}
