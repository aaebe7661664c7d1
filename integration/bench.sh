#!/usr/bin/env bash
# integration/bench.sh [--quick] [--runs N] — fetch against curl, one table.
#
# Builds fetch from this checkout, starts the harness servers (nginx, vsftpd,
# pyftpdlib, gophernicus, pygopherd; see harness.sh), generates the
# benchmark's content into the run directory (a 1 GiB file and 2,000 1 KiB
# documents, the same bytes every run), and prints one Markdown table of
# medians over pairs of runs, fetch and curl (each first in every other
# pair), with the ratio fetch/curl: single large transfers, per-call
# latency, batches in one process, parallel batches (when fetch has -j)
# and the parsers' go test benchmarks, with the machine and the date.
# The README's Performance section shows a run.
#
#   --quick    small sizes and one pair per row (CI): checks that every row
#              runs and that what fetch and curl wrote has the expected
#              SHA-256; fails otherwise
#   --runs N   rounds over the rows (default 5): one pair per row in the
#              first, then one per row, or three for a row whose pair took
#              under 1.5 s; rounds stop early so that the whole run stays
#              under ten minutes
#
# FETCH_BENCH_DIR (default /tmp/fetch-bench) holds the binaries, the servers'
# run directory and content, and the last table (table.md). The harness lock
# is held for the whole run, as integration/test.sh does. Needs root, like
# test.sh (apt-get installs what is missing, curl among it).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
harness=$repo/integration/harness.sh
cd "$repo"

quick=
runs=5
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--runs)
		runs=${2:?--runs needs a number}
		shift
		;;
	-h | --help)
		sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "bench.sh: unknown argument $1 (--quick, --runs N)" >&2
		exit 2
		;;
	esac
	shift
done

log() { printf 'bench.sh: %s\n' "$*" >&2; }

dir=${FETCH_BENCH_DIR:-/tmp/fetch-bench}
mkdir -p "$dir/bin" "$dir/work"
chmod 755 "$dir"
export FETCH_RUN_DIR=$dir/run
export FETCH_SERVERS=nginx,vsftpd,pyftpdlib,gophernicus,pygopherd
export FETCH_GOPHERNICUS_BENCH=1 # no throttling, no socat relay
unset FETCH_CONTENT_DIR FETCH_CONTENT_PREBUILT

if [ -n "$quick" ]; then
	big=$((8 << 20)) docs=50 latency=10 batch=20 parallel=50 runs=1
	benchflags=(-count 1 -benchtime 20x)
else
	big=$((1 << 30)) docs=2000 latency=200 batch=200 parallel=2000
	benchflags=(-count 3 -benchtime 0.5s)
fi

# One harness run at a time per machine (fixed ports): the lock test.sh takes.
lock=${FETCH_LOCK:-/tmp/fetch-harness.lock}
exec 9>>"$lock"
if ! flock -n 9; then
	log "waiting for another harness run to finish (lock $lock)"
	flock -w "${FETCH_LOCK_TIMEOUT:-1800}" 9 || {
		log "gave up waiting for $lock"
		exit 1
	}
fi
export FETCH_HARNESS_LOCKED=1
began=$SECONDS

# curl is the peer, GNU time reports peak RSS: Debian's packages when missing.
if ! command -v curl >/dev/null || ! command -v xargs >/dev/null || [ ! -x /usr/bin/time ]; then
	[ "$(id -u)" -eq 0 ] || { log "curl or GNU time is missing and only root can install them"; exit 1; }
	log "installing curl, findutils, time"
	pkgs=(curl findutils time)
	apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null ||
		{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null; }
fi
"$harness" install

log "building fetch and benchrun"
# As the README installs it: static, without cgo (see "Quick start").
CGO_ENABLED=0 go build -o "$dir/bin/fetch" ./cmd/fetch
go build -o "$dir/bin/benchrun" ./integration/benchrun
rev=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)

log "parser benchmarks (go test -bench)"
go test -run '^$' -bench '^Benchmark(ParseHTTP|NetURLParseHTTP|Menu|ParseList|ParseMLSD|Overview)$' \
	-benchmem "${benchflags[@]}" ./fetch/ ./schemes/gopher/ ./schemes/ftp/ ./schemes/nntp/ \
	9>&- >"$dir/gotest.txt" || { cat "$dir/gotest.txt" >&2; log "go test -bench failed"; }

# Stop the servers and drop the content (a GiB) however the run ends.
cleanup() {
	"$harness" stop || true
	rm -rf "$FETCH_RUN_DIR/content/bench" "$FETCH_RUN_DIR"/{gophernicus,pygopherd}/hole/bench
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"$harness" start
eval "$("$harness" env)"

# The content: into the tree nginx and both FTP servers serve, and linked
# into both gopher holes (harness start has just recreated all three).
log "generating the content ($big bytes, $docs documents)"
"$dir/bin/benchrun" gen -dir "$FETCH_CONTENT_DIR/bench" -big "$big" -docs "$docs"
chmod -R u=rwX,go=rX "$FETCH_CONTENT_DIR/bench"
for g in gophernicus pygopherd; do
	rm -rf "$FETCH_RUN_DIR/$g/hole/bench"
	cp -al "$FETCH_CONTENT_DIR/bench" "$FETCH_RUN_DIR/$g/hole/bench" 2>/dev/null ||
		cp -a "$FETCH_CONTENT_DIR/bench" "$FETCH_RUN_DIR/$g/hole/bench"
done

# The rows that write a file per document (the parallel ones) make their
# directories on a tmpfs where there is one. On a disk, creating thousands
# of files can cost more than fetching them: on this project's machines
# (ext4 without a journal) each new file is slowed by the thousands just
# removed by the previous run, by the peer's as much as by fetch's, and the
# row would compare the file system rather than the two tools.
files=
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then
	files=/dev/shm
fi

# What is left of ten minutes, less a margin for stopping the servers.
budget=$((570 - (SECONDS - began)))
[ "$budget" -ge 60 ] || budget=60
mode=full
[ -z "$quick" ] || mode=quick
rc=0
"$dir/bin/benchrun" run -fetch "$dir/bin/fetch" -curl "$(command -v curl)" \
	-content "$FETCH_CONTENT_DIR/bench" -work "$dir/work" ${files:+-files "$files"} \
	-http "$FETCH_HTTP_ADDR" -vsftpd "$FETCH_FTP_VSFTPD_ADDR" -pyftpdlib "$FETCH_FTP_PYFTPDLIB_ADDR" \
	-gophernicus "$FETCH_GOPHER_GOPHERNICUS_ADDR" -pygopherd "$FETCH_GOPHER_PYGOPHERD_ADDR" \
	-latency "$latency" -batch "$batch" -parallel "$parallel" -runs "$runs" -budget "${budget}s" \
	-time /usr/bin/time -gotest "$dir/gotest.txt" -label "$rev ($mode run)" 9>&- >"$dir/table.md" || rc=$?
cat "$dir/table.md"
log "done in $((SECONDS - began)) s; the table is in $dir/table.md"
exit $rc
