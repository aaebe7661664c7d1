//go:build integration

package integration

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// serverAddr returns the host:port the harness exported in the environment
// variable name (FETCH_HTTP_ADDR, FETCH_FTP_VSFTPD_ADDR, ...). A missing
// variable fails the test: integration tests never skip silently.
func serverAddr(t testing.TB, name string) string {
	t.Helper()
	return harnessEnv(t, name)
}

// harnessEnv returns the value of an environment variable that
// integration/harness.sh exports, failing the test when it is missing.
func harnessEnv(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run the integration tests with integration/test.sh "+
			"(or export the output of integration/harness.sh env after harness.sh start)", name)
	}
	return v
}

// wantServer skips the test when FETCH_SERVERS is set and does not name the
// server (nginx, vsftpd, pyftpdlib, pygopherd, gophernicus, inn, smtp,
// telnet), so that FETCH_SERVERS=vsftpd integration/test.sh runs one server's
// tests alone. With FETCH_SERVERS unset every server is wanted.
func wantServer(t testing.TB, name string) {
	t.Helper()
	list := os.Getenv("FETCH_SERVERS")
	if list == "" || list == "all" {
		return
	}
	if !slices.Contains(strings.Split(list, ","), name) {
		t.Skipf("server %s is not in FETCH_SERVERS=%s", name, list)
	}
}
