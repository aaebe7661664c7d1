package prospero

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// TestGopherGatewaySelector: dirsrv's Gopher gateway (goph_gw_dsdb.c)
// writes EXTERNAL links whose name is an item's raw selector, with a
// GOPHER method of four empty fields and TEXT or BINARY; Prospero's own
// client (vcache) sends that name whole, TEXT meaning type 0 and BINARY
// 9. A name that starts with a type character keeps the reading
// (<type><selector>).
func TestGopherGatewaySelector(t *testing.T) {
	o := origin{host: "g.example(70)", hsoname: "/doc.txt"}
	cases := []struct{ in, url string }{
		// the gateway's form: the selector is the link's name
		{"GOPHER '' '' '' '' TEXT", "gopher://g.example:70/0/doc.txt"},
		{"GOPHER '' '' '' '/pics/a.gif' BINARY", "gopher://g.example:70/9/pics/a.gif"},
		{"GOPHER INTERNET-D g.example(70) ASCII '/doc.txt'", "gopher://g.example:70/0/doc.txt"},
		// type and selector in one field
		{"GOPHER INTERNET-D g.example(70) ASCII 0'/doc.txt' TEXT", "gopher://g.example:70/0/doc.txt"},
		{"GOPHER INTERNET-D g.example(150) ASCII 1'/Fun Stuff/Pyro'", "gopher://g.example:150/1/Fun%20Stuff/Pyro"},
		// a one-character sixth field is the type, the name the selector
		{"GOPHER INTERNET-D g.example(150) ASCII '1/Fun Stuff/Pyro' 1", "gopher://g.example:150/11/Fun%20Stuff/Pyro"},
	}
	for _, c := range cases {
		lines, err := splitReply([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if m := mapMethod(lines[0], o, nil); m.URL != c.url {
			t.Errorf("%s:\n got %q %s\nwant %q", c.in, m.URL, m.Why, c.url)
		}
	}
}

// TestTaggedContents: archie's Prospero server answers
// GET-OBJECT-INFO CONTENTS with CONTENTS attributes of the TAGGED form
// (server/xyz in the archie 3.5 sources, a trace of a real exchange), and
// offers only PROSPERO-CONTENTS for such objects. Prospero's own client
// (vcache's prospero_contents_get) writes every CONTENTS attribute in
// order, DATA as its bytes and TAGGED as "tag: value". The driver read
// only a DATA attribute and failed on these objects.
func TestTaggedContents(t *testing.T) {
	f := newFake(t, tree(map[string]string{
		"/item": "ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n",
		"/item#CONTENTS": "VERSION 5 P53.11May94\n" +
			"ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE TAGGED title Alexander' the Great'\n" +
			"ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE TAGGED isbn 0415072549\n" +
			"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n",
	}, nil)).start()
	res, err := client(f, &stubs{}, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//item")
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, res); body != "title: Alexander the Great\nisbn: 0415072549" {
		t.Errorf("body %q", body)
	}
}

// TestResumeOffsetThroughMethod: a resumed fetch (Request.Offset) is passed to
// the access method's own fetch, which resumes (FTP REST); the document
// then starts at that offset, and Document.Offset must say so, as the
// command reads it before the body to decide whether to append (-C) or
// to write the file whole. It said 0 while the body started at the
// offset: "fetch -C N -o file prospero://..." replaced the partial file
// with its own tail.
func TestResumeOffsetThroughMethod(t *testing.T) {
	f := newFake(t, tree(map[string]string{"/pub/file one": objectReply}, nil)).start()
	const content = "0123456789abcdef"
	pol := &fetch.PortPolicy{}
	pol.Allow(f.Port())
	c := fetch.NewClient(fetch.Options{Policy: pol, IdleTimeout: 10 * time.Second})
	c.Register("prospero", New(Config{RetransmitInterval: 100 * time.Millisecond}))
	c.Register("ftp", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
		off := min(req.Offset, int64(len(content)))
		return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{
			Body: io.NopCloser(strings.NewReader(content[off:])), Size: int64(len(content)) - off, Offset: off}}, nil
	}))
	req, err := c.NewRequest("prospero://" + f.Addr + "//pub/file%20one")
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 10
	res, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	off := res.Document.Offset
	body := readAll(t, res)
	if got := strings.Repeat("?", int(off)) + body; len(got) != len(content) || body != content[off:] {
		t.Errorf("Document.Offset %d, body %q: the body does not start where Offset says (the document is %q)", off, body, content)
	}
}

// TestQueuedReplyAcknowledged: archie's server (server/xyz, a trace of a real
// exchange) first answers with a control packet asking the client to
// wait 900 s, with its queue position (option 254), then sends the
// reply, whose one packet then has the 12-octet header asking for an
// acknowledgement. The exchange completes and the last packet is
// acknowledged.
func TestQueuedReplyAcknowledged(t *testing.T) {
	fixedCID(t, 0x4444)
	f := newFake(t, nil)
	wait := []byte{16, 0x44, 0x44, 0, 0, 0, 0, 0, 0, 0x03, 0x84, 0, 254, 1, 0, 1}
	reply := append([]byte{12, 0x44, 0x44, 0, 1, 0, 1, 0, 1, 0, 0, 0x80}, "VERSION 5 P53.11May94\nNONE-FOUND\n"...)
	f.raw = [][]byte{wait, reply}
	f.start()
	got, err := testSession(t, f, 10*time.Second).do(context.Background(), []byte("X\n"))
	if err != nil || string(got) != "VERSION 5 P53.11May94\nNONE-FOUND\n" {
		t.Fatalf("reply %q, %v", got, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, d := range f.fromClient()[1:] {
			if bytes.Equal(d, EncodeAck(0x4444, 1)) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the final packet, which asked for it, was not acknowledged: %q", f.fromClient())
}

// TestQueuedTimeoutMessage: when a server has asked the client to
// wait (its request is queued) and nothing more comes within the idle
// timeout, the error must not say the server sent no reply: it did, and
// said it was busy; that is what the user needs to know to raise
// --idle-timeout or try later.
func TestQueuedTimeoutMessage(t *testing.T) {
	fixedCID(t, 0x4545)
	f := newFake(t, nil)
	f.raw = [][]byte{{16, 0x45, 0x45, 0, 0, 0, 0, 0, 0, 0x03, 0x84, 0, 254, 1, 0, 3}}
	f.start()
	const idle = 300 * time.Millisecond
	_, err := testSession(t, f, idle).do(context.Background(), []byte("X\n"))
	if !errors.Is(err, fetch.ErrTimeout) {
		t.Fatalf("error %v, want a timeout", err)
	}
	if msg := err.Error(); strings.Contains(msg, "no reply") || !strings.Contains(msg, "wait 900s") {
		t.Errorf("error %q: it should say that the server asked to wait 900s, not that it sent no reply", msg)
	}
	if msg := err.Error(); !strings.Contains(msg, "--timeout, over 900s") {
		t.Errorf("error %q: it should say how to wait that long", msg)
	}
}
