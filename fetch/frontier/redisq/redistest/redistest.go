// Package redistest starts a Redis server of a test's own: Debian's
// redis-server (which integration/harness.sh installs) on a free loopback
// port, in a temporary directory, with its append-only file synced on
// every write, for tests that stop and restart the server or give it TLS.
// Tests that only need a server use the harness's (FETCH_REDIS_ADDR).
package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Config is what the server is given besides the defaults.
type Config struct {
	Password        string // requirepass; "" for none
	TLSCert, TLSKey string // PEM files: the server speaks TLS only
}

// Server is a running (or stopped) redis-server.
type Server struct {
	Addr string // 127.0.0.1:port
	t    testing.TB
	conf string
	cmd  *exec.Cmd
}

// Start writes the server's configuration and starts it; the test's
// cleanup stops it.
func Start(t testing.TB, c Config) *Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	conf := fmt.Sprintf("bind 127.0.0.1\ndir %s\nsave \"\"\nappendonly yes\nappendfsync always\nlogfile %s\n",
		dir, filepath.Join(dir, "redis.log"))
	if c.TLSCert != "" {
		conf += fmt.Sprintf("port 0\ntls-port %s\ntls-cert-file %s\ntls-key-file %s\ntls-auth-clients no\n", port, c.TLSCert, c.TLSKey)
	} else {
		conf += "port " + port + "\n"
	}
	if c.Password != "" {
		conf += "requirepass " + c.Password + "\n"
	}
	s := &Server{Addr: addr, t: t, conf: filepath.Join(dir, "redis.conf")}
	if err := os.WriteFile(s.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server again after Stop, from its append-only file,
// and waits until it listens.
func (s *Server) Start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", s.conf)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server (installed by integration/harness.sh): %v", err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", s.Addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server did not listen on %s", s.Addr)
		}
	}
}

// Stop shuts the server down as SIGTERM does: it syncs its append-only
// file and exits.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
	s.cmd = nil
}
