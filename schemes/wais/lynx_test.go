package wais_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/wais"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// TestLynxReservedInValue: Lynx writes a field's value with every
// byte outside [A-Za-z0-9./-_$] %-encoded, so a reserved character left
// as it is in a value is not Lynx's, and is refused as RFC 1738's form
// refuses it in a wpath: above all "?", which the generic syntax (and
// libwww, which splits the URL there) reads as the start of a search,
// not as a byte of the document id.
func TestLynxReservedInValue(t *testing.T) {
	schemes := wais.Schemes(wais.Config{})
	for _, c := range []struct {
		in string
		at int
	}{
		{"wais://h/db/TEXT/12/3=a?b;", 23},
		{"wais://h/db/TEXT/12/2=db;3=0%200%20/x?y;", 37},
		{"wais://h/db/TEXT/12/3=a=b;", 23},
		{"wais://h/db/TEXT/12/3=a:b;", 23},
		{"wais://h/db/TEXT/12/3=a@b;", 23},
		{"wais://h/db/TEXT/12/3=a&b;", 23},
	} {
		u := fetchtest.MustParse(t, c.in, schemes...)
		w, err := wais.ParseURL(u)
		if err == nil {
			t.Errorf("%q read as a document id %q", c.in, w.WPath)
			continue
		}
		fetchtest.WantViewError(t, c.in, err, "wpath", c.at)
	}
	// "/" is left as it is, as Lynx leaves it, and an encoded reserved
	// character is data.
	w, err := wais.ParseURL(fetchtest.MustParse(t, "wais://h/db/TEXT/12/3=0%200%20/x%3Fy;", schemes...))
	if err != nil || w.WPath != string(apdu.AppendDocIDField(nil, 3, []byte("0 0 /x?y"))) {
		t.Errorf("%+v, %v", w, err)
	}
}

// lynxAcceptable is what libwww's HTWAIS.c writes as it is in a document
// id's value; every other byte is %-encoded.
const lynxAcceptable = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./-_$"

// lynxForm writes fields as WWW_from_WAIS does: "type=value;" each.
func lynxForm(fields [][]byte) string {
	var b strings.Builder
	for _, f := range fields {
		b.WriteString(strconv.Itoa(int(f[0])))
		b.WriteByte('=')
		for _, c := range f[1:] {
			if strings.IndexByte(lynxAcceptable, c) >= 0 {
				b.WriteByte(c)
			} else {
				b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)>>4, 16)+strconv.FormatInt(int64(c)&15, 16)))
			}
		}
		b.WriteByte(';')
	}
	return b.String()
}

// FuzzLynxURL: a document id written field by field in Lynx's form reads
// back as the same binary id, byte for byte; and whatever follows a
// document URL's length, the view neither panics nor fails with anything
// but a Malformed error inside the URL.
func FuzzLynxURL(f *testing.F) {
	f.Add([]byte("\x02my db\xff\x030 1000 /srv/wais/my db/100%.txt\xff\x07\x00"), "2=my%20db;3=0%201000%20/srv/wais/x.txt;7=%00;")
	f.Add([]byte("\x03"+strings.Repeat("d", 200)), "3=a/b/../c;")
	f.Add([]byte("\x09x"), "9=x;;")
	f.Add([]byte{}, "2147483648=a;3=%zz;")
	reg := fetch.NewRegistry(wais.Schemes(wais.Config{})...)
	f.Fuzz(func(t *testing.T, id []byte, tail string) {
		// The round trip: fields cut at 0xff, the first byte the type.
		var fields [][]byte
		var want []byte
		for _, p := range strings.Split(string(id), "\xff") {
			if p == "" || p[0] >= 0x80 {
				continue
			}
			fields = append(fields, []byte(p))
			want = apdu.AppendDocIDField(want, int(p[0]), []byte(p[1:]))
		}
		if len(fields) > 0 {
			in := "wais://h/db/TEXT/12/" + lynxForm(fields)
			u, err := reg.Parse(in)
			if err == nil { // a URL past the length bound is refused as a whole
				w, err := wais.ParseURL(u)
				if err != nil || !w.Lynx || w.WPath != string(want) {
					t.Fatalf("%q: %+v, %v; want the id % x", in, w, err, want)
				}
			}
		}
		// Anything at all after the length.
		u, err := reg.Parse("wais://h/db/TEXT/12/" + tail)
		if err != nil {
			return
		}
		if _, err := wais.ParseURL(u); err != nil {
			var e *fetch.Error
			if !errors.As(err, &e) || e.Kind != fetch.KindMalformed || e.Offset < 0 || e.Offset > len(e.URL) {
				t.Fatalf("%q: %v is not a Malformed *Error inside the URL", tail, err)
			}
		}
	})
}
