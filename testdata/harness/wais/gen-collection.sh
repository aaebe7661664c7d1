#!/usr/bin/env bash
# gen-collection.sh DIR — (re)create the collection the WAIS test server
# (integration/waisd) serves: one database per subdirectory of DIR. The
# fixed files come from this directory; the long document (many retrieval
# slices), a binary one and an empty one are generated, the same bytes
# every run. The integration test runs this script too, to know what the
# server must return.
set -euo pipefail
dir=${1:?usage: gen-collection.sh DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

rm -rf "$dir/fetch-test"
mkdir -p "$dir/fetch-test"
cp "$src"/fetch-test/* "$dir/fetch-test/"
# 4000 lines of 62 bytes: 248,000 bytes, 25 slices of 10,000
awk 'BEGIN { for (i = 1; i <= 4000; i++) printf "line %05d of the long document in the WAIS test collection..\n", i }' >"$dir/fetch-test/long.txt"
# every byte value, NUL included, forty times: 10,240 bytes
LC_ALL=C awk 'BEGIN { for (r = 0; r < 40; r++) for (i = 0; i < 256; i++) printf "%c", i }' >"$dir/fetch-test/bytes.bin"
: >"$dir/fetch-test/empty.txt"
