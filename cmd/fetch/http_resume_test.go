package main

import (
	nethttp "net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResumeCompleteHTTP: "-C - -o FILE" over HTTP when FILE is
// already whole (the server answers 416, "bytes */10") succeeds and
// leaves FILE as it was, as it does for file: and ftp: (and curl).
func TestResumeCompleteHTTP(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.ServeContent(w, r, "f", time.Time{}, strings.NewReader("0123456789"))
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "dst.txt")
	os.WriteFile(out, []byte("0123456789"), 0o644)
	if code, _, e := runFetch(t, "", "-C", "-", "-o", out, srv.URL+"/f"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(out); string(b) != "0123456789" {
		t.Fatalf("after resuming a whole copy: %q", b)
	}
}
