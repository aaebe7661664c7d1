package gopher

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// Menu entries carry the gopher type character as Item, a MIME guess as
// Type, and the whole menu Item through As.
func TestEntryItemAndAs(t *testing.T) {
	const menu = "0About\t/about.txt\tgopher.example\t70\r\n" +
		"1Sub menu\t/sub\tgopher.example\t70\t+\r\n" +
		"IPicture\t/p.jpg\tgopher.example\t7070\r\n" +
		"iinfo line\t\terror.host\t1\r\n" +
		".\r\n"
	f := newFake(t, answerWith(menu))
	res, _, err := get(t, client(fetch.Options{}), f.url(""))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ item, mime, sel string }{
		{"0", "text/plain", "/about.txt"}, {"1", "", "/sub"}, {"I", "image/jpeg", "/p.jpg"},
	}
	if len(res.Listing.Entries) != len(want)+1 {
		t.Fatalf("entries %+v", res.Listing.Entries)
	}
	// An info line has its type, and no Item to reach.
	if e := res.Listing.Entries[3]; e.Item != "i" || e.As(new(Item)) {
		t.Errorf("info line: Item %q, Native %v", e.Item, e.Native)
	}
	for i, w := range want {
		e := res.Listing.Entries[i]
		var it Item
		if e.Item != w.item || !e.As(&it) || string(rune(it.Type)) != w.item || it.Selector != w.sel {
			t.Errorf("entry %d: Item %q, As gave %+v; want type %s selector %q", i, e.Item, it, w.item, w.sel)
		}
		if w.mime != "" && e.Type != w.mime {
			t.Errorf("entry %d: Type %q, want the MIME guess %q", i, e.Type, w.mime)
		}
	}
	if it := (Item{}); res.Listing.Entries[2].As(&it) && it.Port != 7070 {
		t.Errorf("port %d", it.Port)
	}
}
