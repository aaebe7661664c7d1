//go:build unix

// Command benchrun is the measuring half of integration/bench.sh: it
// generates the benchmark's content and runs fetch and curl side by side
// against the harness servers, printing one Markdown table of medians.
//
//	benchrun gen -dir DIR -big BYTES -docs N
//	benchrun run -fetch BIN -content DIR -work DIR [flags]
//
// bench.sh starts the servers, builds fetch and runs the parser benchmarks;
// this program only measures, so that the timing (wall clock, the child's
// user+system CPU and peak RSS from wait4's rusage) has no shell around it.
package main

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchrun gen|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = genMain(os.Args[2:])
	case "run":
		err = runMain(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q (gen, run)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

// docName is the path, under the content directory, of small document i.
func docName(i int) string { return fmt.Sprintf("doc/d%04d.bin", i) }

const bigName = "big.bin"

// genMain writes the content: big.bin (an AES-256-CTR keystream of a fixed
// key: incompressible, the same bytes every run) and docs small documents
// of 1 KiB, each 16 lines unique to it, so that the output of a parallel
// batch can be checked whatever order the documents arrive in. The names
// end in .bin so that gophernicus serves them as they are (it rewrites the
// line ends of files it takes for text).
func genMain(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	dir := fs.String("dir", "", "output directory (emptied first)")
	big := fs.Int64("big", 1<<30, "size of big.bin in bytes")
	docs := fs.Int("docs", 2000, "number of small documents")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("gen: -dir is required")
	}
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(*dir, "doc"), 0o755); err != nil {
		return err
	}
	if err := writeBig(filepath.Join(*dir, bigName), *big); err != nil {
		return err
	}
	for i := 0; i < *docs; i++ {
		if err := os.WriteFile(filepath.Join(*dir, docName(i)), smallDoc(i), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeBig(name string, size int64) error {
	key := sha256.Sum256([]byte("fetch-bench:big"))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return err
	}
	stream := cipher.NewCTR(block, make([]byte, aes.BlockSize))
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	zero := make([]byte, len(buf))
	for left := size; left > 0; {
		n := int64(len(buf))
		if left < n {
			n = left
		}
		stream.XORKeyStream(buf[:n], zero[:n])
		if _, err := f.Write(buf[:n]); err != nil {
			f.Close()
			return err
		}
		left -= n
	}
	return f.Close()
}

// smallDoc is document i: 16 lines of 64 bytes.
func smallDoc(i int) []byte {
	var b strings.Builder
	for l := 0; l < 16; l++ {
		line := fmt.Sprintf("bench document %04d line %02d ", i, l)
		sum := sha256.Sum256([]byte(line))
		line += fmt.Sprintf("%x", sum[:])
		b.WriteString(line[:63])
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// hashFile is the SHA-256 of a file's bytes.
func hashFile(name string) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(name)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// withTimeout runs f under a context that ends after d.
func withTimeout(d time.Duration, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return f(ctx)
}
