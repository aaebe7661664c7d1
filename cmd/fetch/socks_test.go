package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// socks5Relay is a minimal RFC 1928 server (no authentication, CONNECT
// only) that counts the connections it relays.
func socks5Relay(t *testing.T) (addr string, relayed *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	relayed = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				hdr := make([]byte, 2)
				if _, err := io.ReadFull(c, hdr); err != nil || hdr[0] != 5 {
					return
				}
				io.ReadFull(c, make([]byte, hdr[1])) // offered methods
				c.Write([]byte{5, 0})                // no authentication
				req := make([]byte, 4)
				if _, err := io.ReadFull(c, req); err != nil || req[1] != 1 {
					return
				}
				var host string
				switch req[3] {
				case 1:
					ip := make([]byte, 4)
					io.ReadFull(c, ip)
					host = net.IP(ip).String()
				case 3:
					n := make([]byte, 1)
					io.ReadFull(c, n)
					name := make([]byte, n[0])
					io.ReadFull(c, name)
					host = string(name)
				default:
					return
				}
				pb := make([]byte, 2)
				io.ReadFull(c, pb)
				target := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(pb))))
				up, err := net.Dial("tcp", target)
				if err != nil {
					c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
					return
				}
				defer up.Close()
				relayed.Add(1)
				c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
				go io.Copy(up, c)
				io.Copy(c, up)
			}()
		}
	}()
	return ln.Addr().String(), relayed
}

func TestSOCKS5(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "through the proxy")
	}))
	defer srv.Close()
	proxy, relayed := socks5Relay(t)
	code, out, e := runFetch(t, "", "--socks5", proxy, srv.URL+"/x")
	if code != 0 || out != "through the proxy" {
		t.Fatalf("exit %d, out %q: %s", code, out, e)
	}
	if relayed.Load() != 1 {
		t.Fatalf("%d connections went through the SOCKS5 proxy, want 1", relayed.Load())
	}
	// The port policy still applies to the target, before the proxy is used.
	code, _, _ = runFetch(t, "", "--socks5", proxy, "http://127.0.0.1:25/")
	if code != 4 || relayed.Load() != 1 {
		t.Fatalf("port 25 through SOCKS5: exit %d, %d relayed", code, relayed.Load())
	}
}

// TestSOCKS5BadAddress: --socks5 takes HOST:PORT. Anything else is a
// usage error naming the flag, found before any connection, and a user
// and password in it are never echoed.
func TestSOCKS5BadAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	for _, addr := range []string{"127.0.0.1", "u:s3cret@127.0.0.1:1", "socks5://u:s3cret@127.0.0.1:1", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1:x"} {
		code, _, e := runFetch(t, "", "--socks5", addr, srv.URL+"/")
		if code != 2 || !strings.Contains(e, "--socks5") || strings.Contains(e, "s3cret") {
			t.Errorf("--socks5 %q: exit %d, %q", addr, code, e)
		}
	}
}
