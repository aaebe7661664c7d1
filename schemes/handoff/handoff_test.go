package handoff

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// standIn puts programs named names on a fresh PATH: each writes its
// argv, one argument a line, to the file $RECORD and reads one line of
// its standard input into the record too. It returns the record's path.
func standIn(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		script := "#!/bin/sh\nprintf '%s\\n' \"${0##*/}\" \"$@\" > \"$RECORD\"\nread line; echo \"stdin: $line\" >> \"$RECORD\"\necho hello from " + n + "\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	record := filepath.Join(t.TempDir(), "argv")
	t.Setenv("PATH", dir)
	t.Setenv("RECORD", record)
	return record
}

func client(cfg Config) *fetch.Client {
	c := fetch.NewClient(fetch.Options{})
	c.RegisterScheme(Schemes(cfg)...)
	return c
}

// run fetches raw and runs its session with "typed" as input; it returns
// the program's argv as recorded and its output.
func run(t *testing.T, c *fetch.Client, raw, record string) ([]string, string, error) {
	t.Helper()
	res, err := c.Fetch(context.Background(), raw)
	if err != nil {
		return nil, "", err
	}
	defer res.Close()
	if res.Kind != fetch.KindSession {
		t.Fatalf("%s: kind %s", raw, res.Kind)
	}
	var out bytes.Buffer
	if err := res.Session.Run(context.Background(), strings.NewReader("typed\n"), &out); err != nil {
		return nil, out.String(), err
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), out.String(), nil
}

func TestHandOff(t *testing.T) {
	tests := []struct {
		url      string
		programs []string
		cfg      Config
		want     string // the recorded argv, joined by "|"
	}{
		{"rlogin://guest@127.0.0.1:2513/", []string{"rlogin"}, Config{}, "rlogin|-l|guest|-p|2513|127.0.0.1|stdin: typed"},
		{"rlogin://guest@127.0.0.1/", []string{"rlogin"}, Config{}, "rlogin|-l|guest|127.0.0.1|stdin: typed"},
		{"rlogin://127.0.0.1:513/", []string{"rlogin"}, Config{}, "rlogin|127.0.0.1|stdin: typed"},
		{"rlogin://guest:secret@host.example/", []string{"myrlogin"}, Config{Rlogin: "myrlogin"}, "myrlogin|-l|guest|host.example|stdin: typed"},
		// No shell: metacharacters arrive as one literal argument.
		{"rlogin://a%3Btouch%20x%24(id)@127.0.0.1/", []string{"rlogin"}, Config{}, "rlogin|-l|a;touch x$(id)|127.0.0.1|stdin: typed"},
		{"tn3270://127.0.0.1:2323/", []string{"c3270", "x3270"}, Config{}, "c3270|127.0.0.1:2323|stdin: typed"},
		{"tn3270://ibm.example/", []string{"x3270"}, Config{}, "x3270|ibm.example:23|stdin: typed"},
		{"tn3270://[::1]:3270/", []string{"my3270"}, Config{TN3270: "my3270"}, "my3270|[::1]:3270|stdin: typed"},
		// Only a one-letter host reads as a 3270 connection option; rlogin
		// takes its host as a separate argument, one letter or not.
		{"tn3270://ly:2323/", []string{"c3270"}, Config{}, "c3270|ly:2323|stdin: typed"},
		{"rlogin://l/", []string{"rlogin"}, Config{}, "rlogin|l|stdin: typed"},
	}
	for _, tt := range tests {
		record := standIn(t, tt.programs...)
		argv, out, err := run(t, client(tt.cfg), tt.url, record)
		if err != nil {
			t.Errorf("%s: %v", tt.url, err)
			continue
		}
		if got := strings.Join(argv, "|"); got != tt.want {
			t.Errorf("%s: argv %q, want %q", tt.url, got, tt.want)
		}
		if strings.Contains(strings.Join(argv, " "), "secret") {
			t.Errorf("%s: the password reached the program's arguments: %q", tt.url, argv)
		}
		if !strings.HasPrefix(out, "hello from ") {
			t.Errorf("%s: program output %q did not reach the writer", tt.url, out)
		}
	}
}

func TestHandOffRefusals(t *testing.T) {
	record := standIn(t, "rlogin", "c3270")
	c := client(Config{})
	tests := []struct {
		url  string
		kind fetch.Kind
		is   error
	}{
		{"rlogin://-oProxyCommand=x@127.0.0.1/", fetch.KindPolicy, nil}, // would be an option
		{"rlogin://127.0.0.1:25/", fetch.KindPolicy, fetch.ErrPortRefused},
		{"tn3270://127.0.0.1:80/", fetch.KindPolicy, fetch.ErrPortRefused},
		{"rlogin://127.0.0.1/path", fetch.KindMalformed, nil},
		// c3270 would take "l:" for TLS, "p:" for passthru, "y:" for no
		// certificate check, and connect to a host named "2323".
		{"tn3270://l:2323/", fetch.KindPolicy, nil},
		{"tn3270://p:2323/", fetch.KindPolicy, nil},
		{"tn3270://Y/", fetch.KindPolicy, nil},
		{"tn3270://q:2323/", fetch.KindPolicy, nil},
	}
	for _, tt := range tests {
		_, err := c.Fetch(context.Background(), tt.url)
		if fetch.KindOf(err) != tt.kind || tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: %v, want kind %v", tt.url, err, tt.kind)
		}
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused URL ran the program")
	}
}

func TestMissingProgram(t *testing.T) {
	standIn(t) // an empty PATH
	for raw, name := range map[string]string{"rlogin://127.0.0.1/": "rlogin", "tn3270://127.0.0.1/": "c3270"} {
		_, err := client(Config{}).Fetch(context.Background(), raw)
		var fe *fetch.Error
		if !errors.Is(err, ErrNoProgram) || fetch.KindOf(err) != fetch.KindLocal || !strings.Contains(err.Error(), name) || !errors.As(err, &fe) || fe.Setting == "" {
			t.Errorf("%s: %v: want ErrNoProgram naming %s with the setting", raw, err, name)
		}
	}
}
