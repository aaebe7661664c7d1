// Package apdu encodes and decodes the messages of the WAIS protocol: the
// Z39.50-1988 APDUs with the WAIS extensions that a URL client and a
// server exchange (WAIS Protocol Prototype Functional Specification,
// wais-protspec.txt; WAIS Protocol Users Manual, wais-waisprot.txt).
//
// The byte layout is the one freeWAIS-sf 2.2 puts on the wire, which is
// what surviving servers speak:
//
//   - every message is a 25-byte ASCII header (10 decimal digits of
//     length, 'z', the header version '2', a 10-byte server name,
//     compression, encoding, checksum) and then one APDU;
//   - an APDU opens with a two-byte big-endian length that covers the PDU
//     type, the fixed fields and the tagged fields, and nothing more: the
//     WAIS user-information part (tag 99) or a type-1 query (tag 21)
//     follows it uncounted;
//   - tags and lengths are "compressed integers": 7 bits a byte, most
//     significant first, the high bit set on every byte but the last;
//   - numbers are tag, compressed byte count, 1 to 4 big-endian bytes;
//   - a diagnostic record is tag 28, a two-byte length, the two-letter
//     code, the text, a surrogate flag and the byte 0x1D.
//
// Every decoder checks each length against the bytes that remain, so a
// hostile message can make it fail but never read out of bounds or
// allocate more than the message holds.
package apdu

import (
	"errors"
	"fmt"
)

// Unused marks an absent number, as in the protocol's C sources (UNUSED):
// such a field is not written.
const Unused = -1

// ErrMalformed is wrapped by every decoding failure.
var ErrMalformed = errors.New("malformed WAIS message")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// maxCompressed is the longest compressed integer read: four bytes carry
// 28 bits, more than any length a message can hold; a fifth is allowed
// for the padded form (leading 0x80 bytes).
const maxCompressed = 5

// appendCompressed writes n as a compressed integer, in as few bytes as
// it takes.
func appendCompressed(b []byte, n uint64) []byte {
	var tmp [10]byte
	i := len(tmp) - 1
	tmp[i] = byte(n & 0x7f)
	for n >>= 7; n > 0; n >>= 7 {
		i--
		tmp[i] = byte(n&0x7f) | 0x80
	}
	return append(b, tmp[i:]...)
}

// readCompressed reads a compressed integer from the front of b.
func readCompressed(b []byte) (uint64, []byte, error) {
	var n uint64
	for i := 0; i < len(b) && i < maxCompressed; i++ {
		n = n<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			if n > 1<<31-1 {
				return 0, nil, malformed("compressed integer %d out of range", n)
			}
			return n, b[i+1:], nil
		}
	}
	if len(b) < maxCompressed {
		return 0, nil, malformed("compressed integer cut short")
	}
	return 0, nil, malformed("compressed integer longer than %d bytes", maxCompressed)
}

// appendTLV writes a tag, the compressed length of v, and v.
func appendTLV(b []byte, tag int, v []byte) []byte {
	b = appendCompressed(b, uint64(tag))
	b = appendCompressed(b, uint64(len(v)))
	return append(b, v...)
}

// appendString writes s as a tagged string (the protocol's "any").
func appendString(b []byte, tag int, s string) []byte {
	b = appendCompressed(b, uint64(tag))
	b = appendCompressed(b, uint64(len(s)))
	return append(b, s...)
}

// appendNum writes n as a tagged number: the fewest big-endian bytes that
// hold it (1 to 3), four for a negative number or one of 2^24 or more.
// Unused is not written.
func appendNum(b []byte, tag int, n int64) []byte {
	if n == Unused {
		return b
	}
	size := 4
	switch {
	case n < 0:
	case n < 1<<8:
		size = 1
	case n < 1<<16:
		size = 2
	case n < 1<<24:
		size = 3
	}
	b = appendCompressed(b, uint64(tag))
	b = appendCompressed(b, uint64(size))
	return appendBinary(b, n, size)
}

// appendBinary writes the low size bytes of n, big-endian.
func appendBinary(b []byte, n int64, size int) []byte {
	for i := size - 1; i >= 0; i-- {
		b = append(b, byte(n>>(8*i)))
	}
	return b
}

// readTLV reads a tag and the value its compressed length announces.
func readTLV(b []byte) (tag int, v, rest []byte, err error) {
	t, b, err := readCompressed(b)
	if err != nil {
		return 0, nil, nil, err
	}
	n, b, err := readCompressed(b)
	if err != nil {
		return 0, nil, nil, err
	}
	if n > uint64(len(b)) {
		return 0, nil, nil, malformed("tag %d announces %d bytes, %d remain", t, n, len(b))
	}
	return int(t), b[:n], b[n:], nil
}

// peekTag is the tag at the front of b.
func peekTag(b []byte) (int, error) {
	t, _, err := readCompressed(b)
	return int(t), err
}

// num decodes a number's value bytes (1 to 8, big-endian, its value
// within 32 bits). Four bytes with
// the high bit set are a negative 32-bit number: that is how the protocol's
// writers send one.
func num(tag int, v []byte) (int64, error) {
	if len(v) < 1 || len(v) > 8 {
		return 0, malformed("number (tag %d) of %d bytes", tag, len(v))
	}
	if len(v) > 4 {
		// Past four bytes, only leading zeros keep the value in range
		// (and the shifts below inside int64).
		for _, c := range v[:len(v)-4] {
			if c != 0 {
				return 0, malformed("number (tag %d) out of range", tag)
			}
		}
	}
	var n int64
	for _, c := range v {
		n = n<<8 | int64(c)
	}
	if len(v) == 4 && v[0]&0x80 != 0 {
		n = int64(int32(uint32(n)))
	}
	if n < -1<<31 || n > 1<<31-1 {
		// The writers send 32-bit numbers; a longer one would not be
		// written back the same.
		return 0, malformed("number (tag %d) out of range", tag)
	}
	return n, nil
}
