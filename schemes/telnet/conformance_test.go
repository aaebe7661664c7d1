package telnet_test

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/telnet"
)

func newClient(opts fetch.Options, _ string) *fetch.Client {
	c := fetch.NewClient(opts)
	c.Register("telnet", telnet.New(telnet.Config{}))
	return c
}

// harness describes the driver to the conformance suite. A telnet URL is
// a session, not a document: Fetch connects and nothing more, so the
// suite's port policy and line-safety checks apply (RFC 1738 §6: the user
// and password are typed at the server's prompts), and its document,
// listing and timeout checks do not; session_test.go covers stalls,
// cancellation and floods for Run.
func harness() *fetchtest.Harness {
	return &fetchtest.Harness{
		Scheme:      "telnet",
		DefaultPort: 23,
		NewClient:   newClient,
		DocumentURL: func(addr string) string { return "telnet://" + addr + "/" },
		Wire: []fetchtest.WirePart{
			{Name: "user", Example: "guest",
				URL: func(addr, v string) string { return "telnet://" + fetch.Escape(v, "") + "@" + addr + "/" }},
			{Name: "password", Example: "secret",
				URL: func(addr, v string) string { return "telnet://guest:" + fetch.Escape(v, "") + "@" + addr + "/" }},
		},
		Seeds: [][]byte{
			[]byte("\xff\xfb\x01\xff\xfb\x03\xff\xfd\x1f\xff\xfd\x18\xff\xf1login: "),
			[]byte("\xff\xfa\x18\x01\xff\xf0Password: \xff\xf6\r\x00\xff\xff\r\n"),
		},
	}
}

func TestConformance(t *testing.T) {
	fetchtest.Run(t, harness())
}

// FuzzServerBytes feeds arbitrary bytes to the driver as the server's
// whole reply (Fetch only connects: see FuzzSession for Run).
func FuzzServerBytes(f *testing.F) {
	fetchtest.FuzzServerBytes(f, harness())
}
