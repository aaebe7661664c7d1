//go:build unix && !aix

package fetch

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestReadable: a connection is readable once its peer has written to it
// or closed it, not before, and Readable reads nothing; a read deadline
// long past (a kept-alive connection idle past its last read's) changes
// none of that.
func TestReadable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c := NewDeadlineConn(context.Background(), raw, time.Minute)
	defer c.Close()
	raw.SetReadDeadline(time.Now().Add(-time.Second))
	if Readable(c) {
		t.Error("readable before the peer wrote")
	}
	peer.Write([]byte("x"))
	deadline := time.Now().Add(time.Minute)
	for !Readable(c) {
		if time.Now().After(deadline) {
			t.Fatal("never readable after the peer wrote")
		}
		time.Sleep(time.Millisecond)
	}
	b := make([]byte, 2)
	if n, err := c.Read(b); n != 1 || b[0] != 'x' {
		t.Errorf("read %q, %v after Readable: want the byte still there", b[:n], err)
	}
	peer.Close()
	for !Readable(c) {
		if time.Now().After(deadline) {
			t.Fatal("never readable after the peer closed")
		}
		time.Sleep(time.Millisecond)
	}
}
