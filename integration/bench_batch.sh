#!/usr/bin/env bash
# integration/bench_batch.sh [ROUNDS] — issue 13's benchmark: the 200 small
# files of the content tree's batch/ directory on one command line, fetch
# against curl given the same 200 URLs, over HTTP (nginx) and FTP (vsftpd,
# pyftpdlib) on loopback. Each round runs both commands back to back, in
# alternating order (fetch first in odd rounds, curl first in even ones), so
# that a busy machine slows both alike; the ratio printed is the median of
# the rounds' fetch/curl ratios (below 1: fetch is faster). Default 7 rounds.
#
# Like integration/test.sh it takes the harness lock, starts the servers it
# needs (FETCH_SERVERS, default nginx,vsftpd,pyftpdlib) and stops them when
# it ends. Both commands' output is checked once against the content first.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
harness=$repo/integration/harness.sh
rounds=${1:-7}
cd "$repo"

lock=${FETCH_LOCK:-/tmp/fetch-harness.lock}
exec 9>>"$lock"
if ! flock -n 9; then
	echo "bench_batch.sh: waiting for another harness run to finish (lock $lock)" >&2
	flock -w "${FETCH_LOCK_TIMEOUT:-1800}" 9 || { echo "bench_batch.sh: gave up waiting for $lock" >&2; exit 1; }
fi
export FETCH_HARNESS_LOCKED=1
export FETCH_SERVERS=${FETCH_SERVERS:-nginx,vsftpd,pyftpdlib}

"$harness" install >&2
work=$(mktemp -d)
trap '"$harness" stop >&2 || true; rm -rf "$work"' EXIT
"$harness" start >&2
eval "$("$harness" env)"

go build -o "$work/fetch" ./cmd/fetch
export FETCH_CONFIG=/dev/null

# urls BASE: the 200 URLs under BASE, one a line.
urls() {
	local i
	for i in $(seq -w 0 199); do echo "$1/batch/f$i.txt"; done
}

# ms CMD...: runs CMD with its output discarded and prints its wall time in
# milliseconds; a failure ends the benchmark.
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

run_fetch() { "$work/fetch" -q "$@"; }
run_curl() { curl -q -sS --fail "$@"; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-18s %10s %10s %12s   (%d paired rounds, 200 files each)\n' target 'fetch ms' 'curl ms' 'fetch/curl' "$rounds"
for target in "http nginx FETCH_HTTP_ADDR http" "ftp vsftpd FETCH_FTP_VSFTPD_ADDR ftp" "ftp pyftpdlib FETCH_FTP_PYFTPDLIB_ADDR ftp"; do
	read -r _ name var scheme <<<"$target"
	case ",$FETCH_SERVERS," in *",$name,"*) ;; *) continue ;; esac
	addr=${!var}
	mapfile -t list < <(urls "$scheme://$addr")
	want=$(cat "$FETCH_CONTENT_DIR"/batch/f*.txt | sha256sum)
	for cmd in run_fetch run_curl; do
		got=$("$cmd" "${list[@]}" | sha256sum)
		[ "$got" = "$want" ] || { echo "bench_batch.sh: $cmd gave other bytes for $name" >&2; exit 1; }
	done
	: >"$work/f" && : >"$work/c" && : >"$work/r"
	for r in $(seq 1 "$rounds"); do
		if ((r % 2)); then
			f=$(ms run_fetch "${list[@]}")
			c=$(ms run_curl "${list[@]}")
		else
			c=$(ms run_curl "${list[@]}")
			f=$(ms run_fetch "${list[@]}")
		fi
		echo "$f" >>"$work/f"
		echo "$c" >>"$work/c"
		awk -v f="$f" -v c="$c" 'BEGIN { printf "%.4f\n", f / (c > 0 ? c : 1) }' >>"$work/r"
	done
	printf '%-18s %10s %10s %12.2f\n' "$scheme $name" "$(median <"$work/f")" "$(median <"$work/c")" "$(median <"$work/r")"
done
