package prospero

// ARDP, the Asynchronous Reliable Delivery Protocol that carries Prospero
// requests and replies over UDP (Prospero lib/ardp, version 0 of the
// header). Every packet starts with a binary header:
//
//	octet 0      version (top 2 bits, 0 here) and header length (low 6 bits)
//	octets 1-2   connection id (network order)
//	octets 3-4   packet sequence number; 0 is an unsequenced control packet
//	octets 5-6   total packets in the message; 0 while the sender does not know
//	octets 7-8   received through: the highest packet of the peer's message
//	             received with no gap (an acknowledgement)
//	octets 9-10  wait: seconds the server asks the client to hold off retrying
//	octet 11     flags: 0x80 acknowledge me, 0x40 sequenced control packet
//	octet 12     option: 1 refused, 2 reset received-through, 4 redirect,
//	             5 redirect and notify,
//	             254 queue information
//	octets 13-   the fields flags 0x01, 0x02 and 0x04 add, then the option's
//	             own (a redirect's address and port)
//
// A field is present only when the header is long enough to hold it: a
// one-packet reply from dirsrv has the 3-octet header (connection id only;
// sequence 1 of 1 implied), the packets of a longer one have 7 octets (total
// 0 until the last packet), or 12 when they ask for an acknowledgement at the
// end of the server's 16-packet window. Requests and acknowledgements from
// the client use 9 octets.

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Header flags (octet 11) and options (octet 12).
const (
	flagAckRequested = 0x80
	flagSeqControl   = 0x40
	// Flags that add fields after octet 12 (before an option's own).
	flagAddressInfo = 0x01 // a type, a length, that many octets
	flagPriority    = 0x02 // 2 octets
	flagProtocolID  = 0x04 // 2 octets

	optRefused  = 1
	optResetRcv = 2
	optRedirect = 4
	// Redirect and notify: a redirect whose new server also takes the
	// requests after this one.
	optRedirectNotify = 5
	optInfo           = 254
)

// Packet sizes: dirsrv sends at most 1250 octets of data per packet and
// reads requests of up to 1405; a request of ours must fit in one packet.
const (
	maxRequestData = 1250
	maxDatagram    = 65535
	clientHeader   = 9
)

// Packet is one decoded ARDP packet.
type Packet struct {
	HeaderLen int
	CID       uint16
	Seq       uint16 // 1 when the header is too short to carry it
	Total     uint16 // 0: not yet known; 1 when implied by a short header
	RcvdThru  uint16
	Wait      uint16 // seconds; meaningful when HasWait
	HasWait   bool
	Flags     byte
	Option    byte
	// Redirect is the IPv4 address and port of a redirect (option 4 or 5).
	Redirect []byte
	Data     []byte
}

// errPacket marks a datagram that is not a well-formed ARDP packet.
var errPacket = errors.New("malformed ARDP packet")

// errOversize is a reply that passes the bound its reassembly was given.
var errOversize = errors.New("reply past its bound")

// DecodePacket reads the header of b; Data aliases b. A packet whose
// header does not fit, or whose version is not 0, is an error.
func DecodePacket(b []byte) (Packet, error) {
	var p Packet
	if len(b) == 0 {
		return p, fmt.Errorf("%w: empty datagram", errPacket)
	}
	if v := b[0] >> 6; v != 0 {
		return p, fmt.Errorf("%w: ARDP version %d (only version 0 is spoken)", errPacket, v)
	}
	h := int(b[0] & 0x3f)
	if h < 1 || h > len(b) {
		return p, fmt.Errorf("%w: header length %d in a %d-octet datagram", errPacket, h, len(b))
	}
	p.HeaderLen = h
	u16 := func(off int) uint16 { return binary.BigEndian.Uint16(b[off:]) }
	if h >= 3 {
		p.CID = u16(1)
	}
	if h >= 5 {
		p.Seq = u16(3)
	} else {
		p.Seq, p.Total = 1, 1
	}
	if h >= 7 {
		p.Total = u16(5)
	}
	if h >= 9 {
		p.RcvdThru = u16(7)
	}
	if h >= 11 {
		p.Wait, p.HasWait = u16(9), true
	}
	if h >= 12 {
		p.Flags = b[11]
	}
	if h >= 13 {
		p.Option = b[12]
		if p.Option == optRedirect || p.Option == optRedirectNotify {
			// The option's address comes after the fields the flags
			// add, in the order of their bits ("Octets 13 and above").
			at := 13
			if p.Flags&flagAddressInfo != 0 {
				if at+2 > h {
					return p, fmt.Errorf("%w: additional address information past a %d-octet header", errPacket, h)
				}
				at += 2 + int(b[at+1]) // type, length, the information
			}
			if p.Flags&flagPriority != 0 {
				at += 2
			}
			if p.Flags&flagProtocolID != 0 {
				at += 2
			}
			if at+6 > h {
				return p, fmt.Errorf("%w: redirect in a %d-octet header", errPacket, h)
			}
			p.Redirect = b[at : at+6]
		}
	}
	if p.Total != 0 && p.Seq > p.Total {
		return p, fmt.Errorf("%w: packet %d of %d", errPacket, p.Seq, p.Total)
	}
	p.Data = b[h:]
	return p, nil
}

// encodeClient builds a packet as the client sends it: the 9-octet header
// (connection id, sequence, total, received-through) and data. A request
// is packet 1 of 1; an acknowledgement is sequence 0, total 0, no data.
func encodeClient(cid, seq, total, rcvdThru uint16, data []byte) []byte {
	b := make([]byte, clientHeader, clientHeader+len(data))
	b[0] = clientHeader
	binary.BigEndian.PutUint16(b[1:], cid)
	binary.BigEndian.PutUint16(b[3:], seq)
	binary.BigEndian.PutUint16(b[5:], total)
	binary.BigEndian.PutUint16(b[7:], rcvdThru)
	return append(b, data...)
}

// EncodeRequest is the single packet carrying a request of connection cid;
// rcvdThru acknowledges reply packets already received (0 at first, more
// when the request is sent again).
func EncodeRequest(cid, rcvdThru uint16, data []byte) []byte {
	return encodeClient(cid, 1, 1, rcvdThru, data)
}

// EncodeAck is an unsequenced control packet acknowledging every reply
// packet through rcvdThru.
func EncodeAck(cid, rcvdThru uint16) []byte { return encodeClient(cid, 0, 0, rcvdThru, nil) }

// reassembly collects the packets of one reply: out of order, duplicated,
// with the total learnt from the last packet. It holds at most window
// packets beyond the first gap and at most max octets in all.
type reassembly struct {
	got   map[uint16][]byte
	thru  uint16 // every packet 1..thru is here
	total uint16 // 0 until a packet announces it
	size  int
	max   int
}

// maxAhead bounds the packets held beyond a gap: ARDP's largest window.
const maxAhead = 256

func newReassembly(max int) *reassembly {
	return &reassembly{got: map[uint16][]byte{}, max: max}
}

// add files a sequenced packet. It reports whether the packet was new
// (progress), and an error when the reply breaks a bound or contradicts
// itself.
func (r *reassembly) add(p Packet) (bool, error) {
	if p.Total != 0 {
		switch {
		case r.total == 0:
			if int(p.Total) < int(r.thru) || len(r.got) > 0 && r.highest() > p.Total {
				return false, fmt.Errorf("%w: total %d below packets already received", errPacket, p.Total)
			}
			r.total = p.Total
		case r.total != p.Total:
			return false, fmt.Errorf("%w: total changed from %d to %d", errPacket, r.total, p.Total)
		}
	}
	if r.total != 0 && p.Seq > r.total {
		return false, fmt.Errorf("%w: packet %d of %d", errPacket, p.Seq, r.total)
	}
	if p.Seq <= r.thru {
		return false, nil // a duplicate
	}
	if _, dup := r.got[p.Seq]; dup {
		return false, nil
	}
	if int(p.Seq) > int(r.thru)+maxAhead {
		return false, nil // beyond any window: the server will send it again
	}
	if r.size+len(p.Data) > r.max {
		return false, fmt.Errorf("%w: larger than %d octets", errOversize, r.max)
	}
	r.size += len(p.Data)
	r.got[p.Seq] = append([]byte(nil), p.Data...)
	for {
		if _, ok := r.got[r.thru+1]; !ok || r.thru == 0xffff {
			break
		}
		r.thru++
	}
	return true, nil
}

func (r *reassembly) highest() uint16 {
	var h uint16
	for s := range r.got {
		h = max(h, s)
	}
	return h
}

func (r *reassembly) complete() bool { return r.total != 0 && r.thru == r.total }

// bytes joins the packets' data in order and lets the packets go.
func (r *reassembly) bytes() []byte {
	out := make([]byte, 0, r.size)
	for s := uint16(1); s <= r.thru && s != 0; s++ {
		out = append(out, r.got[s]...)
		delete(r.got, s)
		if s == 0xffff {
			break
		}
	}
	return out
}
