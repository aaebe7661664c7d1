package prospero_test

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/prospero"
)

// TestConformance runs the checks of the shared suite that apply to a
// driver speaking UDP. The suite's fakes are TCP servers (fetchtest.Server,
// Peer, PipeDialer) and its dial checks count Options.Dialer calls, which
// a UDP driver never makes (it refuses a configured dialer instead, since
// SOCKS cannot carry its datagrams). So, of the suite:
//
//   - PortPolicy/Refused applies and runs: every bad or other scheme's port
//     is refused before any datagram (DefaultPort is left 0 so that the
//     Dialer-counting DefaultAllowed and AllowPort checks, which would
//     wait for a TCP dial, are not run).
//   - The default port, --allow-port, line safety, timeouts (silent server,
//     stalled window), cancellation, loss, duplication and garbage replies
//     are checked against the package's own UDP fake instead: TestDefaultPort,
//     TestVersionForms, TestLineSafety, TestSilentServer, TestStalledWindow,
//     TestCancel, TestLossAndDuplicates, TestGarbageReplies, FuzzARDPPacket,
//     FuzzReply.
//   - Truncation, MaxSize, LongLine and the 100,000-entry listing do not
//     apply as such: an ARDP reply is complete or the exchange times out
//     (no announced length can be cut short), a reply is bounded at 4 MiB
//     in memory and per line of tokens (4096), and documents come from the
//     access method's own driver, which runs the suite itself.
func TestConformance(t *testing.T) {
	fetchtest.Run(t, &fetchtest.Harness{
		Scheme: "prospero",
		NewClient: func(opts fetch.Options, _ string) *fetch.Client {
			c := fetch.NewClient(opts)
			c.Register("prospero", prospero.New(prospero.Config{}))
			return c
		},
		DocumentURL: func(addr string) string { return "prospero://" + addr + "//pub/file" },
		ListingURL:  func(addr string) string { return "prospero://" + addr + "//pub" },
	})
}
