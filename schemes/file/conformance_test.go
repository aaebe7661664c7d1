package file_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/file"
)

// fileURL is the file: URL of the local path p.
func fileURL(p string) string { return "file://" + fetch.Escape(filepath.ToSlash(p), "/") }

// harness describes the file driver to the conformance suite. It opens
// no connection and puts nothing on a wire, so only these apply: a file
// URL naming a host and a refused port is refused by the policy, and
// listings carry absolute file: URLs.
func harness() *fetchtest.Harness {
	return &fetchtest.Harness{
		Scheme: "file",
		NewClient: func(opts fetch.Options, _ string) *fetch.Client {
			c := fetch.NewClient(opts)
			c.Register("file", file.New(file.Config{}))
			return c
		},
		DocumentURL: func(addr string) string { return "file://" + addr + "/etc/motd" },
		MakeListing: func(t testing.TB, names []string) string {
			d := t.TempDir()
			for _, n := range names {
				f, err := os.Create(filepath.Join(d, n))
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			return fileURL(d) + "/"
		},
	}
}

func TestConformance(t *testing.T) { fetchtest.Run(t, harness()) }
