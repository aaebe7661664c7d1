//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClosedStdoutPipe: a reader that closes standard output early
// (fetch URL | head -c 10) ends the command as it ends any filter, by
// SIGPIPE and with nothing on standard error, whichever way the document
// reaches the pipe. An FTP binary transfer, which Linux splices from the
// data connection into the pipe, exited 7 with "write: broken pipe"
// instead. The built command runs as a child, since the signal ends it.
func TestClosedStdoutPipe(t *testing.T) {
	fetchBin := filepath.Join(binaries(t), "fetch")
	doc := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB: more than a pipe holds
	src := filepath.Join(t.TempDir(), "doc")
	if err := os.WriteFile(src, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(doc) }))
	defer web.Close()
	ftpAddr := serveTCP(t, func(c net.Conn) { serveFTPFile(c, doc) })
	_, ftpPort, _ := net.SplitHostPort(ftpAddr)
	// A batch's --json lines: 60 failures of 30 KB URLs make 3.6 MB.
	var list strings.Builder
	for i := range 60 {
		fmt.Fprintf(&list, "nosuch://h/%d/%s\n", i, strings.Repeat("a", 30000))
	}
	listFile := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(listFile, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"file", []string{"file://" + src}},
		{"http", []string{web.URL + "/doc"}},
		{"ftp binary", []string{"--allow-port", ftpPort, "ftp://" + ftpAddr + "/doc"}}, // spliced on Linux
		{"ftp binary, -o -", []string{"--allow-port", ftpPort, "-o", "-", "ftp://" + ftpAddr + "/doc"}},
		{"ftp ascii", []string{"--allow-port", ftpPort, "ftp://" + ftpAddr + "/doc;type=a"}},
		{"batch --json", []string{"-i", listFile, "--json", "-O", "--output-dir", t.TempDir(), "--log", os.DevNull}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd, out, stop := startChild(t, 2*time.Minute, &stderr, fetchBin, c.args...)
			defer stop()
			head := make([]byte, 10)
			_, rerr := io.ReadFull(out, head)
			out.Close() // the reader goes, as head(1) does
			err := cmd.Wait()
			if rerr != nil {
				t.Fatalf("reading the first bytes: %v (%v: %s)", rerr, err, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the command ended with %v, want SIGPIPE: %s", err, stderr.String())
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
				t.Errorf("the command ended with %v, want SIGPIPE", ee)
			}
			if stderr.Len() != 0 {
				t.Errorf("standard error: %s", stderr.String())
			}
		})
	}
}

// serveFTPFile answers an FTP session as a server holding one binary file,
// doc, under every name: passive (EPSV) transfers only.
func serveFTPFile(c net.Conn, doc []byte) {
	r := bufio.NewReader(c)
	reply := func(format string, args ...any) { fmt.Fprintf(c, format+"\r\n", args...) }
	reply("220 ready")
	var pasv net.Listener
	defer func() {
		if pasv != nil {
			pasv.Close()
		}
	}()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		switch strings.ToUpper(verb) {
		case "USER":
			reply("331 password")
		case "PASS":
			reply("230 logged in")
		case "FEAT":
			reply("211-Features:\r\n EPSV\r\n SIZE\r\n211 End")
		case "TYPE":
			reply("200 type set")
		case "PWD":
			reply(`257 "/"`)
		case "CWD":
			reply("250 changed")
		case "SIZE":
			reply("213 %d", len(doc))
		case "EPSV":
			if pasv != nil {
				pasv.Close()
			}
			if pasv, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				reply("425 %v", err)
				continue
			}
			reply("229 Entering Extended Passive Mode (|||%d|)", pasv.Addr().(*net.TCPAddr).Port)
		case "RETR":
			if pasv == nil {
				reply("425 no EPSV")
				continue
			}
			reply("150 sending")
			pasv.(*net.TCPListener).SetDeadline(time.Now().Add(time.Minute))
			d, err := pasv.Accept()
			pasv.Close()
			pasv = nil
			if err != nil {
				reply("425 %v", err)
				continue
			}
			d.SetDeadline(time.Now().Add(2 * time.Minute))
			_, err = d.Write(doc)
			d.Close()
			if err != nil {
				reply("426 transfer cut")
			} else {
				reply("226 sent")
			}
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("500 unknown")
		}
	}
}
