package telnet

import (
	"bytes"
	"io"
	"net"
	"testing"

	"github.com/ziutek/telnet"
)

// scriptConn is a connection whose server side is fixed in advance: reads
// give the script and then io.EOF, writes are recorded.
type scriptConn struct {
	net.Conn // not used: only Read and Write are
	r        *bytes.Reader
	w        bytes.Buffer
}

func (s *scriptConn) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s *scriptConn) Write(p []byte) (int, error) { return s.w.Write(p) }

// TestSGABothDirections: RFC 858's WILL SUPPRESS-GO-AHEAD and DO
// SUPPRESS-GO-AHEAD are about the two directions; each gets its answer,
// whatever came before about the other, and only when its state changes.
func TestSGABothDirections(t *testing.T) {
	iac := func(cmd byte) []byte { return []byte{cmdIAC, cmd, optSGA} }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name         string
		server, want []byte
	}{
		{"will then do", cat(iac(cmdWILL), iac(cmdDO)), cat(iac(cmdDO), iac(cmdWILL))},
		{"do then will", cat(iac(cmdDO), iac(cmdWILL)), cat(iac(cmdWILL), iac(cmdDO))},
		{"will twice", cat(iac(cmdWILL), iac(cmdWILL)), iac(cmdDO)},
		{"do twice", cat(iac(cmdDO), iac(cmdDO)), iac(cmdWILL)},
		{"will, do, wont", cat(iac(cmdWILL), iac(cmdDO), iac(cmdWONT)), cat(iac(cmdDO), iac(cmdWILL), iac(cmdDONT))},
		{"do, will, dont", cat(iac(cmdDO), iac(cmdWILL), iac(cmdDONT)), cat(iac(cmdWILL), iac(cmdDO), iac(cmdWONT))},
		{"off already", cat(iac(cmdWONT), iac(cmdDONT)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &scriptConn{r: bytes.NewReader(append(tt.server, "x"...))}
			tc, err := telnet.NewConn(newNVTConn(sc, nil))
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(tc)
			if err != nil || string(data) != "x" {
				t.Fatalf("read %q, %v; want \"x\"", data, err)
			}
			if got := sc.w.Bytes(); !bytes.Equal(got, tt.want) {
				t.Errorf("server sent % d, client answered % d, want % d", tt.server, got, tt.want)
			}
		})
	}
}
