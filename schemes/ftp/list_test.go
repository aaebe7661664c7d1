package ftp

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

var listNow = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

func d(y int, m time.Month, day, h, min, s int) time.Time {
	return time.Date(y, m, day, h, min, s, 0, time.UTC)
}

func TestParseList(t *testing.T) {
	tests := []struct {
		line string
		want fetch.Entry // Raw is checked to be the line; skip when Name == "-"
		skip bool
	}{
		{line: "drwxr-xr-x    2 0        0            4096 Jan 02  2024 dir with spaces",
			want: fetch.Entry{Name: "dir with spaces", Kind: fetch.EntryDir, Size: 4096, Date: d(2024, 1, 2, 0, 0, 0)}},
		{line: "-rw-r--r--    1 0        0         1048576 Jan 02 03:04 1m.bin",
			want: fetch.Entry{Name: "1m.bin", Kind: fetch.EntryFile, Size: 1048576, Date: d(2024, 1, 2, 3, 4, 0)}},
		// a time in the future of now is last year's
		{line: "drwxr-xr-x 3 fetchuser nogroup 4096 Dec 31 23:59 d1",
			want: fetch.Entry{Name: "d1", Kind: fetch.EntryDir, Size: 4096, Date: d(2023, 12, 31, 23, 59, 0)}},
		{line: "lrwxrwxrwx    1 0        0              12 Jan 02  2024 hello-link.txt -> ../hello.txt",
			want: fetch.Entry{Name: "hello-link.txt", Kind: fetch.EntryLink, Size: 12, Date: d(2024, 1, 2, 0, 0, 0), Description: "-> ../hello.txt"}},
		{line: "-rw-r--r--   1 ftp ftp  10 Feb 29  2024  leading space",
			want: fetch.Entry{Name: " leading space", Kind: fetch.EntryFile, Size: 10, Date: d(2024, 2, 29, 0, 0, 0)}},
		{line: "-rw-r--r-- 1 owner 42 Mar  5  1999 no-group.txt",
			want: fetch.Entry{Name: "no-group.txt", Kind: fetch.EntryFile, Size: 42, Date: d(1999, 3, 5, 0, 0, 0)}},
		{line: "crw-rw-rw-   1 root     root       1,   3 Nov  8  2020 null",
			want: fetch.Entry{Name: "null", Kind: fetch.EntryOther, Size: -1, Date: d(2020, 11, 8, 0, 0, 0)}},
		{line: "-rw-r--r--+   1 0        0               3 Jan 02  2024 acl+name",
			want: fetch.Entry{Name: "acl+name", Kind: fetch.EntryFile, Size: 3, Date: d(2024, 1, 2, 0, 0, 0)}},
		{line: "drwxr-xr-x    2 0        0            4096 Jan 02  2024 .", skip: true},
		{line: "drwxr-xr-x    2 0        0            4096 Jan 02  2024 ..", skip: true},
		{line: "total 24", want: fetch.Entry{Name: "total 24", Kind: fetch.EntryText, Size: -1}},
		{line: "this line is not a listing line", want: fetch.Entry{Name: "this line is not a listing line", Kind: fetch.EntryRaw, Size: -1}},
		{line: "-rw-r--r--    1 0        0               3 Foo 02  2024 bad-month",
			want: fetch.Entry{Name: "-rw-r--r--    1 0        0               3 Foo 02  2024 bad-month", Kind: fetch.EntryRaw, Size: -1}},
		// MS-DOS / IIS
		{line: "01-02-24  03:04AM       <DIR>          pub", want: fetch.Entry{Name: "pub", Kind: fetch.EntryDir, Size: -1, Date: d(2024, 1, 2, 3, 4, 0)}},
		{line: "12-31-1999  11:59PM                 1234 report final.doc", want: fetch.Entry{Name: "report final.doc", Kind: fetch.EntryFile, Size: 1234, Date: d(1999, 12, 31, 23, 59, 0)}},
		{line: "07-04-20  14:30                     99 twentyfour.txt", want: fetch.Entry{Name: "twentyfour.txt", Kind: fetch.EntryFile, Size: 99, Date: d(2020, 7, 4, 14, 30, 0)}},
		{line: "13-40-24  03:04AM       <DIR>          bad date", want: fetch.Entry{Name: "13-40-24  03:04AM       <DIR>          bad date", Kind: fetch.EntryRaw, Size: -1}},
		// EPLF
		{line: "+i8388621.29609,m824255902,/,\tdeploy", want: fetch.Entry{Name: "deploy", Kind: fetch.EntryDir, Size: -1, Date: time.Unix(824255902, 0).UTC()}},
		{line: "+i8388621.44468,m839956783,r,s10376,\tRFC959.txt", want: fetch.Entry{Name: "RFC959.txt", Kind: fetch.EntryFile, Size: 10376, Date: time.Unix(839956783, 0).UTC()}},
		{line: "+broken line without tab", want: fetch.Entry{Name: "+broken line without tab", Kind: fetch.EntryRaw, Size: -1}},
	}
	for _, tt := range tests {
		e, ok := parseList(tt.line, listNow)
		if ok == tt.skip {
			t.Errorf("%q: ok = %v", tt.line, ok)
			continue
		}
		if tt.skip {
			continue
		}
		tt.want.Raw = tt.line
		// A LIST entry carries the MLSD type fact of its kind (RFC 3659 §7.5.1).
		tt.want.Item = map[fetch.EntryKind]string{fetch.EntryDir: "type=dir", fetch.EntryFile: "type=file", fetch.EntryLink: "type=os.unix=slink"}[tt.want.Kind]
		if !reflect.DeepEqual(e, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.line, e, tt.want)
		}
	}
}

func TestParseMLSD(t *testing.T) {
	tests := []struct {
		line string
		want fetch.Entry
		skip bool
	}{
		{line: "type=cdir;modify=20240102030405;perm=el; .", skip: true},
		{line: "type=pdir;modify=20240102030405;perm=el; ..", skip: true},
		{line: "type=dir;modify=20240102030405;perm=el; pub", want: fetch.Entry{Name: "pub", Kind: fetch.EntryDir, Size: -1, Date: d(2024, 1, 2, 3, 4, 5)}},
		{line: "type=file;size=7;modify=20240102030405.123;perm=r; name with spaces.txt", want: fetch.Entry{Name: "name with spaces.txt", Kind: fetch.EntryFile, Size: 7, Date: d(2024, 1, 2, 3, 4, 5)}},
		{line: "Type=File;Size=3;Modify=20240102030405; semi;colon.txt", want: fetch.Entry{Name: "semi;colon.txt", Kind: fetch.EntryFile, Size: 3, Date: d(2024, 1, 2, 3, 4, 5)}},
		{line: "type=OS.unix=slink:/etc/motd;modify=20240102030405; motd-link", want: fetch.Entry{Name: "motd-link", Kind: fetch.EntryLink, Size: -1, Date: d(2024, 1, 2, 3, 4, 5)}},
		{line: "size=5; no type", want: fetch.Entry{Name: "no type", Kind: fetch.EntryOther, Size: 5}},
		{line: "garbage", want: fetch.Entry{Name: "garbage", Kind: fetch.EntryRaw, Size: -1}},
	}
	for _, tt := range tests {
		e, ok := parseMLSD(tt.line)
		if ok == tt.skip {
			t.Errorf("%q: ok = %v", tt.line, ok)
			continue
		}
		if tt.skip {
			continue
		}
		tt.want.Raw = tt.line
		// The type fact is the entry's Item; every fact is reachable with As.
		var facts Facts
		if tt.want.Kind != fetch.EntryRaw {
			if !e.As(&facts) {
				t.Errorf("%q: As(*Facts) found none", tt.line)
			}
			if typ, ok := facts["type"]; ok {
				tt.want.Item = "type=" + strings.ToLower(typ)
			}
			if facts["size"] == "" && tt.want.Size >= 0 {
				t.Errorf("%q: facts %v lack the size", tt.line, facts)
			}
		}
		e.Native = nil
		if !reflect.DeepEqual(e, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.line, e, tt.want)
		}
	}
	// The facts are the server's, names in lower case.
	e, _ := parseMLSD("Type=OS.unix=slink:/etc/motd;UNIX.mode=0777;Size=12; motd-link")
	var facts Facts
	if !e.As(&facts) || facts["type"] != "OS.unix=slink:/etc/motd" || facts["unix.mode"] != "0777" || facts["size"] != "12" {
		t.Errorf("facts %v", facts)
	}
	if e.Item != "type=os.unix=slink:/etc/motd" {
		t.Errorf("Item %q", e.Item)
	}
}

func TestParsePASV(t *testing.T) {
	for _, tt := range []struct {
		text string
		ip   string
		port int
		ok   bool
	}{
		{"Entering Passive Mode (127,0,0,1,78,32).", "127.0.0.1", 20000, true},
		{"Entering Passive Mode 10,1,2,3,4,1", "10.1.2.3", 1025, true},
		{"=127,0,0,9,255,255", "127.0.0.9", 65535, true},
		{"Entering Passive Mode (127,0,0,1,256,1)", "", 0, false},
		{"Entering Passive Mode (127,0,0,1,1)", "", 0, false},
		{"Entering Passive Mode", "", 0, false},
		{"(1234,0,0,1,1,1)", "", 0, false},
		{"(127,0,0,1,1,1,1)", "", 0, false},
	} {
		ip, port, err := parsePASV(tt.text)
		if (err == nil) != tt.ok || ip != tt.ip || port != tt.port {
			t.Errorf("parsePASV(%q) = %q, %d, %v", tt.text, ip, port, err)
		}
	}
}

func TestParseEPSV(t *testing.T) {
	for _, tt := range []struct {
		text string
		port int // -1: an error
	}{
		{"Entering Extended Passive Mode (|||6446|)", 6446},
		{"Entering Extended Passive Mode (!!!6446!)", 6446},
		{"(|||65535|)", 65535},
		{"(|||65536|)", 65536}, // for the port policy to refuse
		{"(|||0|)", 0},
		{"(|||123456|)", -1},
		{"(|||-1|)", -1},
		{"(||||)", -1},
		{"(|||12|", -1},
		{"(| | |12|)", -1},
		{"( 12 )", -1},
		{"", -1},
	} {
		port, err := parseEPSV(tt.text)
		if (err == nil) != (tt.port >= 0) || (err == nil && port != tt.port) {
			t.Errorf("parseEPSV(%q) = %d, %v", tt.text, port, err)
		}
	}
}

func TestReadReply(t *testing.T) {
	for _, tt := range []struct {
		in    string
		code  int
		lines int
		ok    bool
	}{
		{"220 hello\r\n", 220, 1, true},
		{"220\r\n", 220, 1, true},
		{"211-Features:\r\n SIZE\r\n MDTM\r\n211 End\r\n", 211, 4, true},
		// a line that merely starts with the code and "-" does not end it
		{"220-a\r\n220-b\r\n230 c\r\n220 d\r\n", 220, 4, true},
		{"220 no CR\n", 220, 1, true},
		{"22 short\r\n", 0, 0, false},
		{"abc\r\n", 0, 0, false},
		{"620 bad class\r\n", 0, 0, false},
		{"220x\r\n", 0, 0, false},
		{"220-unterminated\r\n", 0, 0, false},
		{"", 0, 0, false},
	} {
		r, err := readReply(wire.NewReader(strings.NewReader(tt.in), 0, nil), "test")
		if (err == nil) != tt.ok || r.Code != tt.code || len(r.Lines) != tt.lines {
			t.Errorf("readReply(%q) = %+v, %v", tt.in, r, err)
		}
	}
}

// listingSeeds are the lines of testdata/listings/*.txt.
func listingSeeds(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "listings", "*.txt"))
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
		}
	}
	return lines
}

// TestListingFiles: no line of the sample listings is lost.
func TestListingFiles(t *testing.T) {
	for _, line := range listingSeeds(t) {
		e, ok := parseList(line, listNow)
		m, okm := parseMLSD(line)
		if ok && e.Raw != line || okm && m.Raw != line {
			t.Errorf("%q: Raw not kept", line)
		}
	}
}
