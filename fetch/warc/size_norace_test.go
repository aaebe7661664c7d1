//go:build !race

package warc_test

// largeSize is the document TestLargeDocumentBoundedMemory records.
const largeSize int64 = 256 << 20
