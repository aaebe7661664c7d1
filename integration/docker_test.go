//go:build integration

package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeService is the part of a docker/compose.yaml service these checks read.
type composeService struct {
	Image string `yaml:"image"`
	Build struct {
		Context string `yaml:"context"`
	} `yaml:"build"`
	Command     []string          `yaml:"command"`
	NetworkMode string            `yaml:"network_mode"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

// TestComposeMatchesHarness checks docker/compose.yaml against the native
// harness: one service per server file in integration/servers and no other
// (besides the content generator), each running that server alone
// (FETCH_SERVERS) from the image integration/containers.sh builds, on the
// engine's network so that it listens on the same 127.0.0.1 port as
// natively, with the shared content tree, a health check that is the
// harness's own probe, and a start after the content tree exists.
// integration/test.sh --docker starts the stack itself.
func TestComposeMatchesHarness(t *testing.T) {
	b, err := os.ReadFile("../docker/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &compose); err != nil {
		t.Fatalf("docker/compose.yaml: %v", err)
	}
	files, err := filepath.Glob("servers/*.sh")
	if err != nil || len(files) < 8 {
		t.Fatalf("server files: %v %v", files, err)
	}
	content, ok := compose.Services["content"]
	if !ok {
		t.Fatal("docker/compose.yaml has no content service")
	}
	if content.Image == "" || content.Build.Context != "build" || !slices.Equal(content.Command, []string{"content"}) {
		t.Errorf("content service: image %q, build context %q, command %q", content.Image, content.Build.Context, content.Command)
	}
	if !slices.Contains(content.Volumes, "./run/content:/srv/fetch-content") {
		t.Errorf("content service does not write the content tree to docker/run/content: %q", content.Volumes)
	}
	servers := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sh")
		servers[name] = true
		svc, ok := compose.Services[name]
		if !ok {
			t.Errorf("server %s has no service in docker/compose.yaml", name)
			continue
		}
		if svc.Image != content.Image || svc.Build.Context != content.Build.Context {
			t.Errorf("service %s: image %q from %q, not the harness image %q from %q",
				name, svc.Image, svc.Build.Context, content.Image, content.Build.Context)
		}
		if got := svc.Environment["FETCH_SERVERS"]; got != name {
			t.Errorf("service %s runs FETCH_SERVERS=%q", name, got)
		}
		if svc.NetworkMode != "host" {
			t.Errorf("service %s uses network %q, not the engine's (its port would differ from the native one)", name, svc.NetworkMode)
		}
		if !slices.Contains(svc.Volumes, "./run/content:/srv/fetch-content:ro") {
			t.Errorf("service %s does not mount the content tree read-only: %q", name, svc.Volumes)
		}
		if !slices.Equal(svc.Healthcheck.Test, []string{"CMD", "/src/integration/harness.sh", "status"}) {
			t.Errorf("service %s health check is %q, not the harness's status probe", name, svc.Healthcheck.Test)
		}
		if svc.DependsOn["content"].Condition != "service_completed_successfully" {
			t.Errorf("service %s does not wait for the content tree", name)
		}
	}
	for name := range compose.Services {
		if name != "content" && !servers[name] {
			t.Errorf("service %s has no integration/servers/%s.sh", name, name)
		}
	}
	if svc := compose.Services["smtp"]; svc.Environment["FETCH_MAILBOX"] == "" ||
		!slices.Contains(svc.Volumes, "./run/mail:"+svc.Environment["FETCH_MAILBOX"]) {
		t.Errorf("smtp's Maildir %q is not the mount of docker/run/mail: %q", svc.Environment["FETCH_MAILBOX"], svc.Volumes)
	}
}

// TestGoPrebuiltStandIn runs docker/go-prebuilt.sh, the `go` of the harness
// image, the way a Go server's harness file would: `go build -o OUT PKG`
// must hand out the binary built on the host for PKG's last element, `go
// run PKG ARGS` must run it with ARGS, and a package with no such binary
// must fail.
func TestGoPrebuiltStandIn(t *testing.T) {
	shim, err := filepath.Abs("../docker/go-prebuilt.sh")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	prog := []byte("#!/bin/sh\necho \"waisd ran with: $*\"\n")
	if err := os.WriteFile(filepath.Join(bin, "waisd"), prog, 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	goCmd := func(args ...string) ([]byte, error) {
		cmd := exec.Command(shim, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "FETCH_GO_PREBUILT="+bin)
		return cmd.CombinedOutput()
	}

	for _, args := range [][]string{
		{"build", "-o", "out/waisd", "./integration/waisd"},
		{"build", "-trimpath", "-o=out/w2", "github.com/fetchproject/fetch/integration/waisd"},
		{"build", "-C", "/nonexistent", "-o", "out/", "./integration/waisd/"},
	} {
		if err := os.MkdirAll(filepath.Join(work, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := goCmd(args...); err != nil {
			t.Fatalf("go %q: %v\n%s", args, err, out)
		}
	}
	for _, f := range []string{"out/waisd", "out/w2"} {
		got, err := os.ReadFile(filepath.Join(work, f))
		if err != nil || !bytes.Equal(got, prog) {
			t.Errorf("%s: %q %v, want the prebuilt binary", f, got, err)
		}
		if fi, err := os.Stat(filepath.Join(work, f)); err != nil || fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable: %v", f, err)
		}
	}

	out, err := goCmd("run", "-race", "./integration/waisd", "-port", "18210")
	if err != nil || strings.TrimSpace(string(out)) != "waisd ran with: -port 18210" {
		t.Errorf("go run: %q %v", out, err)
	}

	out, err = goCmd("build", "-o", "out/x", "./integration/nosuchd")
	if err == nil || !strings.Contains(string(out), "nosuchd") {
		t.Errorf("go build of a package with no prebuilt binary: %q %v, want an error naming it", out, err)
	}
	if _, err := os.Stat(filepath.Join(work, "out/x")); err == nil {
		t.Error("a failed build left out/x")
	}
}
