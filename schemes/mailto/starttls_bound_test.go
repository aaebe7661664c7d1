package mailto

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// TestStartTLSHandshakeBound: the TLS handshake after STARTTLS gets the
// idle timeout as a whole. Each read waits at most the idle timeout and
// each byte renews it, so a server that trickles its ServerHello one byte
// every idle/6 held the send until it stopped (15 s here against 300 ms)
// when the handshake ran on the request's context alone.
func TestStartTLSHandshakeBound(t *testing.T) {
	const idle = 300 * time.Millisecond
	const trickleFor = 15 * time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		io.WriteString(c, "220 slow ESMTP\r\n")
		r.ReadString('\n') // EHLO
		io.WriteString(c, "250-slow\r\n250 STARTTLS\r\n")
		r.ReadString('\n') // STARTTLS
		io.WriteString(c, "220 go ahead\r\n")
		// The ClientHello arrives; answer with a handshake record whose
		// header announces 16 KiB, then its bytes one at a time.
		buf := make([]byte, 4096)
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		r.Read(buf)
		if _, err := c.Write([]byte{0x16, 0x03, 0x03, 0x40, 0x00, 0x02}); err != nil {
			return
		}
		end := time.Now().Add(trickleFor)
		for time.Now().Before(end) {
			if _, err := c.Write([]byte{0}); err != nil {
				return // the client gave up
			}
			time.Sleep(idle / 6)
		}
	}()

	d := testDriver(Config{SMTPServer: l.Addr().String(), From: "me@fetch.test", StartTLS: true, TLSInsecure: true})
	c := fetch.NewClient(fetch.Options{IdleTimeout: idle})
	c.Register("mailto", d)
	req, err := fetch.NewRequest("mailto:a@fetch.test")
	if err != nil {
		t.Fatal(err)
	}
	req.Body = strings.NewReader("x\n")
	ctx, cancel := context.WithTimeout(context.Background(), trickleFor+5*time.Second)
	defer cancel()
	start := time.Now()
	_, err = c.Do(ctx, req)
	took := time.Since(start)
	l.Close()
	<-served
	t.Logf("err after %v: %v", took, err)
	if err == nil {
		t.Fatal("the send succeeded against a server that never finished its handshake")
	}
	if !errors.Is(err, fetch.ErrTimeout) {
		t.Errorf("the error does not say the handshake timed out: %v", err)
	}
	if took > 10*idle {
		t.Errorf("the STARTTLS handshake was given up after %v; the idle timeout is %v, and a trickling server held it until it stopped (want an error within %v)", took, idle, 10*idle)
	}
}
