package ftp_test

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/ftp"
)

// harness describes the ftp driver to the conformance suite.
func harness() *fetchtest.Harness {
	return &fetchtest.Harness{
		Scheme:      "ftp",
		DefaultPort: 21,
		NewClient: func(opts fetch.Options, _ string) *fetch.Client {
			c := fetch.NewClient(opts)
			c.Register("ftp", ftp.New(ftp.Config{AnonymousPassword: "fetch@example.org"}))
			return c
		},
		DocumentURL: func(addr string) string { return "ftp://" + addr + "/pub/doc.bin" },
		ListingURL:  func(addr string) string { return "ftp://" + addr + "/pub/" },
		Open:        open,
		ListingLine: func(name string) string {
			return "-rw-r--r--    1 owner    group        1234 Jan 02  2020 " + name + "\r\n"
		},
		// A transfer is whole only when the control connection says 226
		// (RFC 959 §4.2) and SIZE's count arrived.
		EndMarker:  true,
		LinePrefix: func(p *fetchtest.Peer) (string, error) { return "220 ", nil },
		// RFC 1738 §3.2: user and password go to USER and PASS, each
		// <cwd> to CWD, the name to SIZE, MDTM and RETR.
		Wire: []fetchtest.WirePart{
			{Name: "user", Example: "fetchuser",
				URL: func(addr, v string) string { return "ftp://" + fetch.Escape(v, "") + ":pw@" + addr + "/doc.bin" }},
			{Name: "password", Example: "secret",
				URL: func(addr, v string) string { return "ftp://user:" + fetch.Escape(v, "") + "@" + addr + "/doc.bin" }},
			{Name: "path", Example: "dir",
				URL: func(addr, v string) string { return "ftp://" + addr + "/" + fetch.Escape(v, "") + "/doc.bin" }},
			{Name: "name", Example: "doc.bin",
				URL: func(addr, v string) string { return "ftp://" + addr + "/dir/" + fetch.Escape(v, "") }},
			{Name: "name", Example: "sub", Listing: true,
				URL: func(addr, v string) string { return "ftp://" + addr + "/dir/" + fetch.Escape(v, "") + ";type=d" }},
		},
		Seeds: [][]byte{
			[]byte("220 hi\r\n331 pw\r\n230 ok\r\n200 type\r\n213 5\r\n213 20200102030405\r\n229 Entering Extended Passive Mode (|||7119|)\r\n150 go\r\n226 done\r\n221 bye\r\n"),
			[]byte("220-multi\r\n banner\r\n220 end\r\n230 ok\r\n250 cwd\r\n211-Features:\r\n MLST type*;size*;modify*;\r\n211 End\r\n200 A\r\n500 no epsv\r\n227 Entering Passive Mode (127,0,0,1,27,207)\r\n125 go\r\ntype=file;size=5;modify=20200102030405; a.txt\r\ntype=dir; sub\r\n226 ok\r\n"),
			[]byte("220 x\r\n331 x\r\n230 x\r\n250 x\r\n211 none\r\n200 A\r\n229 (|||7119|)\r\n150 x\r\n-rw-r--r-- 1 u g 5 Jan 02 2020 a b.txt\r\ndrwxr-xr-x 2 u g 4096 Jan 02 12:00 dir\r\n01-02-20  12:00PM       <DIR>          dos dir\r\n+i8388621.48594,m825718503,r,s280,\tdjb.html\r\n226 x\r\n"),
			[]byte("220 x\r\n331 x\r\n530 Login incorrect.\r\n"),
			[]byte("220 x\r\n230 x\r\n200 x\r\n213 99999999999999999999\r\n550 x\r\n227 (999,1,1,1,1,1)\r\n"),
		},
	}
}

// open is a fake FTP server: anonymous login, TYPE, SIZE (the announced
// length), MDTM refused, FEAT without MLST (so LIST), EPSV/PASV on a
// data listener; it returns at RETR, LIST or NLST with the data
// connection as the content.
func open(p *fetchtest.Peer, o fetchtest.Opening) (*fetchtest.Content, error) {
	if err := p.WriteLine("220 fake FTP server"); err != nil {
		return nil, err
	}
	var data *fetchtest.DataListener
	for {
		line, err := p.ReadLine()
		if err != nil {
			return nil, err
		}
		verb, _, _ := strings.Cut(line, " ")
		reply := "502 not implemented"
		switch strings.ToUpper(verb) {
		case "USER":
			reply = "331 password please"
		case "PASS":
			reply = "230 logged in"
		case "TYPE":
			reply = "200 type set"
		case "CWD":
			reply = "250 directory changed"
		case "SIZE":
			reply = "550 no size"
			if o.Length >= 0 && !o.Listing {
				reply = "213 " + strconv.FormatInt(o.Length, 10)
			}
		case "MDTM":
			reply = "550 no time"
		case "FEAT":
			reply = "211 no features"
		case "EPSV", "PASV":
			if data, err = p.Listen(); err != nil {
				return nil, err
			}
			reply = "229 Entering Extended Passive Mode (|||" + data.PortString() + "|)"
			if strings.EqualFold(verb, "PASV") {
				n := data.Port()
				reply = "227 Entering Passive Mode (127,0,0,1," + strconv.Itoa(n>>8) + "," + strconv.Itoa(n&255) + ")"
			}
		case "RETR", "LIST", "NLST":
			if data == nil {
				reply = "425 no data connection"
				break
			}
			if err := p.WriteLine("150 here it comes"); err != nil {
				return nil, err
			}
			dc, err := data.Accept()
			if err != nil {
				return nil, err
			}
			return &fetchtest.Content{
				W: dc,
				End: func() error {
					dc.Close()
					if err := p.WriteLine("226 transfer complete"); err != nil {
						return err
					}
					return serveRest(p)
				},
				Abort: func() { dc.Close(); p.Close() },
			}, nil
		case "QUIT":
			p.WriteLine("221 bye")
			return nil, io.EOF
		}
		if err := p.WriteLine(reply); err != nil {
			return nil, err
		}
	}
}

// serveRest answers what follows a transfer: QUIT, and 502 to the rest.
func serveRest(p *fetchtest.Peer) error {
	for {
		line, err := p.ReadLine()
		if err != nil {
			return err
		}
		if strings.EqualFold(line, "QUIT") {
			return p.WriteLine("221 bye")
		}
		if err := p.WriteLine("502 not now"); err != nil {
			return err
		}
	}
}

func TestConformance(t *testing.T) { fetchtest.Run(t, harness()) }

// FuzzServerBytes feeds arbitrary bytes to the driver as the server's
// whole reply, on the control and the data connection alike.
func FuzzServerBytes(f *testing.F) { fetchtest.FuzzServerBytes(f, harness()) }
