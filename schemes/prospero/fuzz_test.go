package prospero

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// replySeeds are the reply texts in testdata/replies.
func replySeeds(t testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "replies", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no reply seeds: %v", err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// packetSeeds are datagrams: the golden request, and the packets of the
// golden multi-packet exchange rebuilt from their headers.
func packetSeeds(t testing.TB) [][]byte {
	req, err := os.ReadFile(filepath.Join("testdata", "request.golden"))
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{
		req,
		{3, 0xbe, 0xef, 'O', 'K', '\n'},
		{7, 0xbe, 0xef, 0, 1, 0, 0, 'a'},
		{12, 0xbe, 0xef, 0, 16, 0, 0, 0, 1, 0, 0, 0x80, 'b'},
		{7, 0xbe, 0xef, 0, 40, 0, 40, 'c'},
		{11, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 30},
		{19, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 127, 0, 0, 1, 5, 245},
	}
}

// FuzzARDPPacket decodes datagrams and feeds them, cut at 0xFF octets
// into several, to one reassembly: no panic, and a complete reply holds
// exactly the octets of its packets.
func FuzzARDPPacket(f *testing.F) {
	for _, s := range packetSeeds(f) {
		f.Add(s)
	}
	f.Add(bytes.Join(packetSeeds(f)[2:5], []byte{0xff}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newReassembly(1 << 16)
		for _, d := range bytes.Split(b, []byte{0xff}) {
			p, err := DecodePacket(d)
			if err != nil {
				continue
			}
			if p.HeaderLen > len(d) || len(p.Data) != len(d)-p.HeaderLen {
				t.Fatalf("header %d, data %d of %d", p.HeaderLen, len(p.Data), len(d))
			}
			if p.Seq == 0 {
				continue
			}
			if _, err := r.add(p); err != nil {
				return
			}
		}
		if r.complete() && len(r.bytes()) != r.size {
			t.Fatalf("reassembled %d octets, held %d", len(r.bytes()), r.size)
		}
	})
}

// FuzzReply reads reply text the way the driver does: lines, the reply
// grammar, access methods, listing entries (whose URLs must parse).
func FuzzReply(f *testing.F) {
	for _, s := range replySeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, err := splitReply(b)
		if err != nil {
			return
		}
		for _, l := range lines {
			if len(l) == 0 || len(l) > maxLineTokens {
				t.Fatalf("line of %d tokens", len(l))
			}
		}
		r, _ := parseReply(string(b)) // a FAILURE still yields what came before it
		if r == nil {
			return
		}
		for _, m := range resolveMethods(accessMethods(r.Attrs), origin{host: "pros.example", hsoname: "/x"}, nil) {
			if m.URL != "" {
				if _, err := fetch.Parse(m.URL); err != nil {
					t.Fatalf("method %v gave an unparsable URL: %v", m.Fields, err)
				}
			}
		}
		u, _ := fetch.Parse("prospero://pros.example//x")
		l := (&Driver{}).listing(&fetch.Request{URL: u}, target{hsoname: "/x"}, r)
		if err := l.ReadAll(); err != nil {
			t.Fatalf("listing: %v", err)
		}
		fetchtest.CheckEntryURLs(t, "fuzzed listing", l)
	})
}

// TestGarbageReplies serves whole replies of seeds, mutations and random
// bytes (each in one well-formed packet) to the driver: it never panics
// and every failure has a kind.
func TestGarbageReplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1525))
	inputs := replySeeds(t)
	for _, s := range replySeeds(t) {
		for range 20 {
			m := append([]byte(nil), s...)
			for range 1 + rng.IntN(4) {
				m[rng.IntN(len(m))] = byte(rng.UintN(256))
			}
			inputs = append(inputs, m)
		}
	}
	for range 20 {
		m := make([]byte, rng.IntN(300))
		for i := range m {
			m[i] = byte(rng.UintN(256))
		}
		inputs = append(inputs, m)
	}
	fixedCID(t, 0x0f0f)
	for _, in := range inputs {
		f := newFake(t, nil)
		f.raw = [][]byte{append([]byte{3, 0x0f, 0x0f}, in...)}
		f.start()
		c := client(f, &stubs{}, fetch.Options{IdleTimeout: 300 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := c.Fetch(ctx, "prospero://"+f.Addr+"//x")
		cancel()
		if err != nil {
			if fetch.KindOf(err) == fetch.KindUnknown {
				t.Errorf("reply %q: error of no kind: %v", in, err)
			}
		} else {
			if res.Listing != nil {
				if err := res.Listing.ReadAll(); err != nil {
					t.Errorf("reply %q: listing: %v", in, err)
				}
				fetchtest.CheckEntryURLs(t, "garbage listing", res.Listing)
			}
			res.Close()
		}
		f.Close()
	}
}
