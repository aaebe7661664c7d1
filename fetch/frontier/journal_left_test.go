package frontier_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fetchproject/fetch/fetch/frontier"
)

// TestJournalLeftDamageNoOverflow: damaged "left" counts (huge, or
// negative) neither overflow the total into a negative number, which
// would make a resumed crawl think nothing was left out and exit 0, nor
// count for anything when negative.
func TestJournalLeftDamageNoOverflow(t *testing.T) {
	for _, c := range []struct {
		name, text string
	}{
		{"two huge", "{\"left\":9223372036854775807}\n{\"left\":9223372036854775807}\n"},
		{"half then more", "{\"left\":4611686018427387903}\n{\"left\":4611686018427387906}\n"},
		{"negative among", "{\"left\":3}\n{\"left\":-5}\n{\"left\":9223372036854775807}\n{\"left\":9223372036854775807}\n"},
	} {
		path := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		j, err := frontier.OpenJournal(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := j.LeftOut(); n <= 0 {
			t.Errorf("%s: LeftOut %d, want a positive count", c.name, n)
		}
		// one more, recorded in this run, must not wrap it either
		if err := j.Left(1 << 30); err != nil {
			t.Fatal(err)
		}
		if n := j.LeftOut(); n <= 0 {
			t.Errorf("%s: LeftOut %d after Left, want a positive count", c.name, n)
		}
		j.Close()
	}
	// a negative count alone is damage and counts for nothing
	path := filepath.Join(t.TempDir(), "j")
	os.WriteFile(path, []byte("{\"left\":-7}\n"), 0o600)
	j, err := frontier.OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if n := j.LeftOut(); n != 0 {
		t.Errorf("negative only: LeftOut %d, want 0", n)
	}
}
