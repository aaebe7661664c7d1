package mailto

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		In   string
		Want URL
	}{
		{"mailto:joe@example.com", URL{To: []string{"joe@example.com"}}},
		// RFC 1738 §3.5: "the percent sign ... must be encoded"
		{"mailto:joe%25relay@example.com", URL{To: []string{"joe%relay@example.com"}}},
		{"mailto:a@x.org,b@y.org", URL{To: []string{"a@x.org", "b@y.org"}}},
		{"mailto:%22not%40me%22@example.org", URL{To: []string{"\"not@me\"@example.org"}}},            // RFC 6068 §6.1
		{"mailto:%22a,b%22@example.org,c@d.org", URL{To: []string{"\"a,b\"@example.org", "c@d.org"}}}, // comma in quotes
		{"mailto:user@[10.0.0.1]", URL{To: []string{"user@[10.0.0.1]"}}},
		{"mailto:infobot@example.com?subject=current-issue", URL{To: []string{"infobot@example.com"}, Subject: "current-issue"}}, // RFC 6068
		{"mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index", // RFC 6068
			URL{To: []string{"infobot@example.com"}, Body: "send current-issue\r\nsend index"}},
		{"mailto:?to=joe@example.com&cc=bob@example.com&body=hello", // RFC 6068
			URL{To: []string{"joe@example.com"}, Cc: []string{"bob@example.com"}, Body: "hello"}},
		{"mailto:a@b.c?BCC=x@y.z,w@v.u&In-Reply-To=%3C3469A91.D10AF4C@example.com%3E&keywords=k&X-Mailer=fetch&subject=1&subject=2",
			URL{To: []string{"a@b.c"}, Bcc: []string{"x@y.z", "w@v.u"}, InReplyTo: "<3469A91.D10AF4C@example.com>", Keywords: "k",
				Subject: "1", Other: []fetch.HeaderField{{Name: "X-Mailer", Value: "fetch"}, {Name: "subject", Value: "2"}}}},
		{"mailto:a@b.c?subject=a+b", URL{To: []string{"a@b.c"}, Subject: "a+b"}},
		{"mailto:user@%E4%BE%8B.jp", URL{To: []string{"user@例.jp"}}},
	}
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"mailto:", "address", 7},
		{"mailto:joe", "address", 7},
		{"mailto:joe@", "address", 11},
		{"mailto:@example.com", "address", 7},
		{"mailto:a..b@example.com", "address", 9},
		{"mailto:a@b,,c@d", "address", 11},
		{"mailto:a(b)@c", "address", 8},
		{"mailto:%22abc@d", "address", 7},
		{"mailto:a@b?subject", "header", 11},
		{"mailto:a@b?=x", "header", 11},
		{"mailto:a@b?cc=bad", "address", 14},
		{"mailto:?subject=x", "address", 7},
		{"mailto://a@b", "address", 7},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}
