package clusters

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadFileConfig: the one schema every provider reads, strictly: a field it does not
// have is refused, naming the file.
func TestReadFileConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("name: e2e\nservers:\n- version: v1.35.4\n  extraFlags: [\"--runtime-config=batch/v1=false\"]\n- version: v1.36.3\n"), 0o644)
	fc, err := ReadFileConfig(good)
	want := FileConfig{Name: "e2e", Servers: []ServerSpec{{Version: "v1.35.4", ExtraFlags: []string{"--runtime-config=batch/v1=false"}}, {Version: "v1.36.3"}}}
	if err != nil || !reflect.DeepEqual(fc, want) {
		t.Errorf("ReadFileConfig = %+v, %v; want %+v", fc, err, want)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: e2e\nversions: [v1.35.4]\n"), 0o644)
	if _, err := ReadFileConfig(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "versions") {
		t.Errorf("an unknown field: %v, want it refused naming the file and the field", err)
	}
}
