package mailto

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// Once the message and its final dot are on the wire, the server may have
// queued it; a lost final reply must not be a failure a batch's --retry
// tries again, or the message is sent twice.
func TestLostDataReplyNotRetried(t *testing.T) {
	addr := rawServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		io.WriteString(c, "220 hi\r\n")
		for _, reply := range []string{"250 hi", "250 ok", "250 ok", "354 go"} {
			r.ReadString('\n')
			io.WriteString(c, reply+"\r\n")
		}
		for i := 0; i < 1000; i++ {
			l, err := r.ReadString('\n')
			if err != nil || l == ".\r\n" {
				break
			}
		}
		// queued, then the connection drops before "250 queued"
	})
	d := testDriver(Config{SMTPServer: addr, From: "me@fetch.test"})
	_, err := sendVia(t, d, fetch.Options{IdleTimeout: 2 * time.Second}, "mailto:a@fetch.test", "x\n")
	if err == nil {
		t.Fatal("no error")
	}
	if fetch.Temporary(err) {
		t.Errorf("err = %v is Temporary: a --retry would send the message again", err)
	}
}
