package clusters

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// FileConfig is the YAML the providers' e2e-framework CreateWithConfig read: one schema for
// every provider, the fields of Spec a file can give. A provider refuses what it cannot
// honour, as New does.
//
//	name: e2e
//	servers:
//	- version: v1.35.4
//	  extraFlags: ["--runtime-config=batch/v1=false"]
//	- version: v1.36.3
type FileConfig struct {
	Name string `json:"name"`
	// Port is every apiserver's secure port, where the provider lets it be chosen.
	Port    int          `json:"port"`
	Servers []ServerSpec `json:"servers"`
}

// ReadFileConfig reads path, refusing a field FileConfig does not have.
func ReadFileConfig(path string) (FileConfig, error) {
	var fc FileConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return fc, fmt.Errorf("reading cluster config: %w", err)
	}
	if err := yaml.UnmarshalStrict(b, &fc); err != nil {
		return fc, fmt.Errorf("cluster config %s: %w", path, err)
	}
	return fc, nil
}
