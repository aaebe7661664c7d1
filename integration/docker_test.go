//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestComposeMatchesHarness checks docker/compose.yaml against the native
// harness (no Docker engine runs here, so the containers themselves are not
// started in CI): one service per server file in integration/servers, each
// built from docker/Dockerfile for that server, on the host's network so
// that it listens on the same 127.0.0.1 port as natively, with the shared
// content tree.
func TestComposeMatchesHarness(t *testing.T) {
	b, err := os.ReadFile("../docker/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Build struct {
				Context    string            `yaml:"context"`
				Dockerfile string            `yaml:"dockerfile"`
				Args       map[string]string `yaml:"args"`
			} `yaml:"build"`
			NetworkMode string   `yaml:"network_mode"`
			Volumes     []string `yaml:"volumes"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &compose); err != nil {
		t.Fatalf("docker/compose.yaml: %v", err)
	}
	files, err := filepath.Glob("servers/*.sh")
	if err != nil || len(files) < 8 {
		t.Fatalf("server files: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sh")
		svc, ok := compose.Services[name]
		if !ok {
			t.Errorf("server %s has no service in docker/compose.yaml", name)
			continue
		}
		if svc.Build.Dockerfile != "docker/Dockerfile" || svc.Build.Args["SERVER"] != name {
			t.Errorf("service %s is built from %s with SERVER=%q", name, svc.Build.Dockerfile, svc.Build.Args["SERVER"])
		}
		if svc.NetworkMode != "host" {
			t.Errorf("service %s uses network %q, not the host's (its port would differ from the native one)", name, svc.NetworkMode)
		}
		if !strings.Contains(strings.Join(svc.Volumes, " "), "content") {
			t.Errorf("service %s does not mount the content tree", name)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "docker", "Dockerfile")); err != nil {
		t.Fatal(err)
	}
}
