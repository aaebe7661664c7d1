//go:build race

package warc_test

// largeSize is smaller under the race detector, which slows hashing and
// compression tenfold; still far above the allocation bound asserted.
const largeSize int64 = 96 << 20
