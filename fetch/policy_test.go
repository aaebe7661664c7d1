package fetch

import (
	"errors"
	"strings"
	"testing"
)

func TestPortPolicy(t *testing.T) {
	tests := []struct {
		scheme string
		port   int
		allow  []int
		ok     bool
	}{
		{"ftp", 21, nil, true},        // own default, though on the bad list
		{"telnet", 23, nil, true},     // likewise
		{"nntp", 119, nil, true},      // likewise
		{"news", 119, nil, true},      // news: reads from an NNTP server
		{"gopher", 70, nil, true},     // own default
		{"http", 80, nil, true},       // own default
		{"wais", 210, nil, true},      // own default
		{"prospero", 1525, nil, true}, // own default
		{"http", 8080, nil, true},
		{"gopher", 7070, nil, true},
		{"http", 25, nil, false},    // SMTP: RFC 1738 §6's example of abuse
		{"gopher", 25, nil, false},  //
		{"http", 6667, nil, false},  // IRC
		{"http", 10080, nil, false}, // the last bad port
		{"http", 21, nil, false},    // another scheme's port
		{"http", 70, nil, false},    // gopher's port, not on the bad list
		{"gopher", 80, nil, false},  // http's port
		{"ftp", 1525, nil, false},   // prospero's port, above 1024
		{"gopher", 443, nil, false}, // https's port
		{"gopher", 999, nil, false}, // below 1024, not ours
		{"http", 999, nil, true},    // http may use low ports off the bad list
		{"http", 0, nil, false},
		{"http", 65536, nil, false},
		{"http", -1, nil, false},
		{"http", 65536, []int{65536}, false}, // out of range even when allowed
		{"http", 25, []int{25}, true},        // --allow-port
		{"gopher", 999, []int{999}, true},
		{"x-foo", 4000, nil, true},
	}
	for _, tt := range tests {
		p := &PortPolicy{}
		p.Allow(tt.allow...)
		err := p.Check(testSchemes, tt.scheme, tt.port)
		if (err == nil) != tt.ok {
			t.Errorf("Check(%s, %d) allow %v = %v, want ok=%v", tt.scheme, tt.port, tt.allow, err, tt.ok)
			continue
		}
		if err != nil {
			if tt.port < 1 || tt.port > 65535 {
				// Not a port: malformed (exit 3), as the URL parser says.
				if !errors.Is(err, ErrPortRefused) || KindOf(err) != KindMalformed {
					t.Errorf("Check(%s, %d): %v is not a malformed port (exit 3)", tt.scheme, tt.port, err)
				}
				continue
			}
			if !errors.Is(err, ErrPortRefused) || KindOf(err) != KindPolicy || KindOf(err).ExitCode() != 4 {
				t.Errorf("Check(%s, %d): %v is not a policy refusal with exit 4", tt.scheme, tt.port, err)
			}
			// The library names the setting and the port, never a flag;
			// the command turns them into "--allow-port N".
			var pr *PortRefusal
			var fe *Error
			if !errors.As(err, &pr) || pr.Port != tt.port || pr.Scheme != tt.scheme || !errors.As(err, &fe) || fe.Setting != "PortPolicy.Allow" {
				t.Errorf("Check(%s, %d): %#v does not carry the refused port and the setting", tt.scheme, tt.port, err)
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("Check(%s, %d): library message %q names a flag", tt.scheme, tt.port, err)
			}
		}
	}
}

func TestNilPolicyIsDefault(t *testing.T) {
	var p *PortPolicy
	if err := p.Check(testSchemes, "http", 25); err == nil {
		t.Fatal("nil policy allowed port 25")
	}
	if err := p.Check(testSchemes, "http", 80); err != nil {
		t.Fatal(err)
	}
}

func TestPolicyDefaultsForRegisteredSchemes(t *testing.T) {
	p := &PortPolicy{Defaults: map[string]int{"x-finger": 79}}
	if err := p.Check(testSchemes, "x-finger", 79); err != nil {
		t.Fatalf("x-finger on its own port: %v", err)
	}
	if err := p.Check(testSchemes, "http", 79); err == nil {
		t.Fatal("http reached finger's port")
	}
}

func TestCheckLine(t *testing.T) {
	for _, v := range []string{"a\rb", "a\nb", "a\x00b", "\r\n", "x\n"} {
		err := CheckLine("selector", v)
		if !errors.Is(err, ErrUnsafeLine) || KindOf(err).ExitCode() != 4 {
			t.Errorf("CheckLine(%q) = %v, want an unsafe-line policy error", v, err)
			continue
		}
		if !strings.Contains(err.Error(), "selector") {
			t.Errorf("CheckLine(%q) error %q does not name the part", v, err)
		}
	}
	for _, v := range []string{"", "plain", "tab\tis fine", "ünïcode", "%0D%0A stays encoded"} {
		if err := CheckLine("selector", v); err != nil {
			t.Errorf("CheckLine(%q) = %v, want nil", v, err)
		}
	}
}

func TestBadPortsSorted(t *testing.T) {
	b := BadPorts()
	if len(b) < 70 || b[0] != 0 || b[len(b)-1] != 10080 {
		t.Fatalf("BadPorts() = %v", b)
	}
}

func TestExitCodes(t *testing.T) {
	want := map[Kind]int{KindUnknown: 1, KindUsage: 2, KindMalformed: 3, KindPolicy: 4, KindNetwork: 5, KindServer: 6, KindLocal: 7}
	for k, code := range want {
		if k.ExitCode() != code {
			t.Errorf("%v.ExitCode() = %d, want %d", k, k.ExitCode(), code)
		}
	}
	if KindOf(ErrTruncated) != KindNetwork || KindOf(ErrNotFound) != KindServer || KindOf(ErrTooLarge) != KindPolicy {
		t.Error("sentinels map to the wrong kinds")
	}
}

// A parse error never shows the password, even when the password holds
// characters that end the authority ("/", "#") unencoded.
func TestParseErrorMasksUnencodedPassword(t *testing.T) {
	for _, raw := range []string{"ftp://alice:s3cret@host:99999/", "ftp://alice:s3/cret@host/", "ftp://u:s3cr#et/x@h", "ftp://u:s3cret@h/%zz"} {
		_, err := Parse(raw)
		if err == nil {
			t.Errorf("%s parsed", raw)
			continue
		}
		if strings.Contains(err.Error(), "cret") || strings.Contains(err.Error(), "s3") {
			t.Errorf("Parse(%q) error shows the password: %v", raw, err)
		}
	}
}

// TestPortPolicyNamesOwner: a refusal names the scheme whose port it is,
// the first by name where several share it.
func TestPortPolicyNamesOwner(t *testing.T) {
	reg := NewRegistry(
		Scheme{Name: "x-c", DefaultPort: 4000},
		Scheme{Name: "x-a", DefaultPort: 4000},
		Scheme{Name: "x-b", DefaultPort: 4000},
		Scheme{Name: "gopher", DefaultPort: 70},
		Scheme{Name: "http", DefaultPort: 80, LowPorts: true},
		Scheme{Name: "ftp", DefaultPort: 21},
		Scheme{Name: "telnet", DefaultPort: 23},
		Scheme{Name: "rlogin", DefaultPort: 513},
	)
	for _, tt := range []struct {
		scheme string
		port   int
		want   string
	}{
		// WHATWG bad ports that a scheme of the registry owns are named
		// as that scheme's, not as a protocol no URL may reach.
		{"rlogin", 23, "the telnet port"},
		{"http", 21, "the ftp port"},
		{"telnet", 513, "the rlogin port"},
		{"http", 25, "must not be reached by URL"},
		{"http", 4000, "the x-a port"},
		{"gopher", 4000, "the x-a port"},
		{"http", 70, "the gopher port"},
		{"gopher", 80, "the http port"},
	} {
		err := (*PortPolicy)(nil).Check(reg, tt.scheme, tt.port)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%s, %d) = %v, want it to say %q", tt.scheme, tt.port, err, tt.want)
		}
	}
	// Schemes that share a default port speak one protocol (news and
	// nntp): each may use it.
	for _, s := range []string{"x-a", "x-b", "x-c"} {
		if err := (*PortPolicy)(nil).Check(reg, s, 4000); err != nil {
			t.Errorf("Check(%s, 4000): %v", s, err)
		}
	}
}

// TestPolicyDefaultsProtected: a port PortPolicy.Defaults gives a scheme
// registered at run time is that scheme's alone (RFC 1738 §6), not only
// when it is also a WHATWG bad port (79, in
// TestPolicyDefaultsForRegisteredSchemes).
func TestPolicyDefaultsProtected(t *testing.T) {
	p := &PortPolicy{Defaults: map[string]int{"x-finger": 7079}}
	if err := p.Check(testSchemes, "x-finger", 7079); err != nil {
		t.Fatalf("x-finger on its own port: %v", err)
	}
	for _, s := range []string{"http", "gopher"} {
		if err := p.Check(testSchemes, s, 7079); err == nil {
			t.Errorf("%s reached x-finger's port 7079", s)
		}
	}
}
