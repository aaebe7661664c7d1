package gopher

import (
	"runtime"
	"strings"
	"testing"
)

// TestParseView reads a +VIEWS line's type, language and size, and a line
// of millions of words without splitting it into as many strings (4 MiB
// of one-letter words took 32 MiB to read).
func TestParseView(t *testing.T) {
	for _, tt := range []struct {
		line, typ, lang, size string
		ok                    bool
	}{
		{"Text/Plain: <10k>", "text/plain", "", "10k", true},
		{" text/plain  En_US   x : <1.5M>", "text/plain", "En_US x", "1.5M", true},
		{"plain: <1k>", "", "", "", false},
		{"  : <1k>", "", "", "", false},
	} {
		v, ok := parseView(tt.line)
		if ok != tt.ok || v.Type != tt.typ || v.Language != tt.lang || v.Size != tt.size {
			t.Errorf("parseView(%q) = %+v, %v", tt.line, v, ok)
		}
	}
	long := "text/plain " + strings.Repeat("a ", 2<<20) + ": <1k>"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v, ok := parseView(long)
	runtime.ReadMemStats(&after)
	if !ok || len(v.Language) != 4<<20-1 {
		t.Fatalf("a long language: %v, %d bytes", ok, len(v.Language))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("a %d-byte line took %d MiB to read", len(long), got>>20)
	}
}
