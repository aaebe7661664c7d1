package ftp

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// TestRestIgnoredNotComplete: a server that accepts REST (350) but
// sends the file from byte 0 delivers more bytes than SIZE leaves from
// the offset. The resumed document must not be reported complete: a
// caller would append the whole file to its partial copy.
func TestRestIgnoredNotComplete(t *testing.T) {
	s := rfcServer(t)
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb == "REST" {
			c.reply("350 Restart position accepted (%s).", arg)
			return true // c.rest stays 0: RETR sends from the start
		}
		return false
	}
	c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
	got, _, err := getAt(t, c, "ftp://"+s.addr()+"/etc/motd", 8)
	if err == nil {
		t.Fatalf("resume at 8 got %q with no error; the server sent %d bytes where %d remained", got, len(got), len("message of the day\n")-8)
	}
}

// TestRestWithoutSize: with no size from SIZE, a server that accepts
// REST but sends the whole file again cannot be told from one that
// sends the rest; the resume is refused before REST rather than a copy
// made of the partial one and then the whole file.
func TestRestWithoutSize(t *testing.T) {
	s := rfcServer(t)
	s.hook = func(c *fakeConn, verb, arg string) bool {
		switch verb {
		case "REST":
			c.reply("350 Restart position accepted (%s).", arg)
			return true // c.rest stays 0: RETR sends from the start
		case "SIZE":
			c.reply("500 SIZE not understood.")
			return true
		}
		return false
	}
	c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
	got, _, err := getAt(t, c, "ftp://"+s.addr()+"/etc/motd", 8)
	if err == nil {
		t.Fatalf("resume at 8 got %q with no error and no size to check it by", got)
	}
	if k := fetch.KindOf(err); k != fetch.KindServer || !strings.Contains(err.Error(), "SIZE") {
		t.Errorf("kind %v, want %v, naming SIZE: %v", k, fetch.KindServer, err)
	}
	if tr := s.transcript(); strings.Contains(tr, "RETR") {
		t.Errorf("RETR sent:\n%s", tr)
	}
}

// TestCountIn150WithoutSize: where SIZE gives no count, the byte count
// of RETR's 150 reply bounds the data: fewer bytes before 226 are a
// truncated document, not a whole one.
func TestCountIn150WithoutSize(t *testing.T) {
	s := rfcServer(t)
	s.opening = func(n int) string {
		return fmt.Sprintf("150 Opening BINARY mode data connection for motd (%d bytes).", n+100)
	}
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb == "SIZE" {
			c.reply("500 SIZE not understood.")
			return true
		}
		return false
	}
	c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
	got, _, err := get(t, c, "ftp://"+s.addr()+"/etc/motd")
	if !errors.Is(err, fetch.ErrTruncated) {
		t.Errorf("%d bytes where the 150 reply announced %d: error %v, want %v", len(got), len(got)+100, err, fetch.ErrTruncated)
	}
}

// TestSingleCWDRoot: with the singlecwd method, ftp://h//motd names
// /motd: the <cwd> parts [""] join to "/", the root, as they do for
// nocwd ("RETR /motd") and as curl sends it ("CWD /"). An empty CWD
// argument asks for something else (RFC 1738 §3.2.2 leaves it to the
// server).
func TestSingleCWDRoot(t *testing.T) {
	s := rfcServer(t)
	s.add("/motd", "root motd\n")
	c := client(Config{Method: MethodSingleCWD, AnonymousPassword: "a@b"}, fetch.Options{})
	got, _, err := get(t, c, "ftp://"+s.addr()+"//motd")
	if err != nil {
		t.Fatal(err)
	}
	if got != "root motd\n" {
		t.Errorf("got %q", got)
	}
	c.Close()
	tr := s.transcript()
	if !strings.Contains(tr, "CWD /\r\n") {
		t.Errorf("transcript has no \"CWD /\":\n%s", tr)
	}
}

// TestDeviceFileSize: a device file's "major, minor" column is no
// size; the minor number must not be reported as the size.
func TestDeviceFileSize(t *testing.T) {
	for _, line := range []string{
		"crw-rw-rw-   1 root     root       1,   3 Nov  8  2020 null",
		"brw-rw----   1 root     disk       8,   0 Nov  8  2020 sda",
		"crw-rw-rw-   1 root     root       1,3 Nov  8  2020 null2",
	} {
		e, ok := parseList(line, listNow)
		if !ok || e.Kind != fetch.EntryOther {
			t.Errorf("%q: ok %v kind %v", line, ok, e.Kind)
			continue
		}
		if e.Size != -1 {
			t.Errorf("%q: Size = %d, want -1 (unknown)", line, e.Size)
		}
	}
}

// TestNocwdTypeDTrailingSlash: with the nocwd method,
// ftp://h/pub/;type=d sends "NLST pub/". A server that names the entries
// "pub/x" (one slash, as most do when they prefix the argument) gives
// entries inside pub named "x", not one entry "pub/x" whose URL would
// read ftp://h/pub/pub%2Fx.
func TestNocwdTypeDTrailingSlash(t *testing.T) {
	s := rfcServer(t)
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb != "NLST" {
			return false
		}
		dc, err := c.dataConn()
		if err != nil {
			c.reply("425 no data connection")
			return true
		}
		c.reply("150 Here comes the directory listing.")
		dir := strings.TrimSuffix(arg, "/")
		io.WriteString(dc, dir+"/data.bin\r\n"+dir+"/file.txt\r\n")
		dc.Close()
		c.reply("226 Directory send OK.")
		return true
	}
	host := s.addr()
	c := client(Config{Method: MethodNoCWD, AnonymousPassword: "a@b"}, fetch.Options{})
	got, _, err := get(t, c, "ftp://"+host+"/pub/;type=d")
	if err != nil {
		t.Fatal(err)
	}
	want := "other data.bin ftp://" + host + "/pub/data.bin\nother file.txt ftp://" + host + "/pub/file.txt\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
