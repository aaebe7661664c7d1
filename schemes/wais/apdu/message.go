package apdu

import (
	"fmt"
	"io"
	"strconv"
)

// HeaderLen is the size of the ASCII header before every APDU
// (protspec "Transport": the wais_header of 25 bytes).
const HeaderLen = 25

// Header is a message's transport header.
type Header struct {
	Length      int      // bytes of APDU that follow
	Type        byte     // 'z' for a Z39.50 APDU
	Version     byte     // '2'
	Server      [10]byte // a name the server echoes back; not interpreted
	Compression byte     // ' ': none (the only one supported)
	Encoding    byte     // ' ': none (the only one supported)
	Checksum    byte     // not computed by the historical code ('0')
}

// AppendMessage writes a header for apdu and apdu itself. server is
// truncated to 10 bytes and padded with NULs, as the C writers leave it.
func AppendMessage(b []byte, server string, apdu []byte) []byte {
	b = append(b, fmt.Sprintf("%010d", len(apdu))...)
	b = append(b, 'z', '2')
	var name [10]byte
	copy(name[:], server)
	b = append(b, name[:]...)
	b = append(b, ' ', ' ', '0')
	return append(b, apdu...)
}

// ParseHeader decodes a 25-byte header. The length must be decimal
// digits (leading spaces allowed); only uncompressed, unencoded
// Z39.50 messages are accepted.
func ParseHeader(h []byte) (Header, error) {
	var hd Header
	if len(h) < HeaderLen {
		return hd, malformed("header of %d bytes, want %d", len(h), HeaderLen)
	}
	digits := h[:10]
	i := 0
	for i < len(digits) && digits[i] == ' ' {
		i++
	}
	if i == len(digits) {
		return hd, malformed("header length %q is not a number", digits)
	}
	n, err := strconv.Atoi(string(digits[i:]))
	if err != nil || n < 0 {
		return hd, malformed("header length %q is not a number", digits)
	}
	hd.Length = n
	hd.Type = lower(h[10])
	hd.Version = h[11]
	copy(hd.Server[:], h[12:22])
	hd.Compression = lower(h[22])
	hd.Encoding = lower(h[23])
	hd.Checksum = h[24]
	if hd.Type != 'z' {
		return hd, malformed("message type %q, want 'z' (a Z39.50 APDU)", hd.Type)
	}
	if hd.Compression != ' ' && hd.Compression != 0 {
		return hd, malformed("compression %q is not supported", hd.Compression)
	}
	if hd.Encoding != ' ' && hd.Encoding != 0 {
		return hd, malformed("transport encoding %q is not supported", hd.Encoding)
	}
	return hd, nil
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ErrTooLarge is returned by ReadMessage for a message over its bound.
type ErrTooLarge struct{ Length, Max int }

func (e *ErrTooLarge) Error() string {
	return fmt.Sprintf("WAIS message of %d bytes exceeds the limit of %d", e.Length, e.Max)
}

// ReadMessage reads one message and returns its APDU, refusing one whose
// header announces more than max bytes before reading it. An end of
// stream before the first byte is io.EOF; within the message,
// io.ErrUnexpectedEOF.
func ReadMessage(r io.Reader, max int) (Header, []byte, error) {
	var h [HeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Header{}, nil, err
	}
	hd, err := ParseHeader(h[:])
	if err != nil {
		return hd, nil, err
	}
	if hd.Length > max {
		return hd, nil, &ErrTooLarge{hd.Length, max}
	}
	// Memory grows with the bytes that arrive, not with what the header
	// claims: a peer announcing the bound and sending nothing costs little.
	b, err := io.ReadAll(io.LimitReader(r, int64(hd.Length)))
	if err != nil {
		return hd, nil, err
	}
	if len(b) < hd.Length {
		return hd, nil, io.ErrUnexpectedEOF
	}
	return hd, b, nil
}
