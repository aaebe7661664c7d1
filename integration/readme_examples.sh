#!/usr/bin/env bash
# integration/readme_examples.sh — run every example of README.md as written,
# against the real servers, and fail on any that does not work.
#
# The examples are the command lines of README.md's indented code blocks and
# the `...` cells of its tables that run fetch (or are in the Quick start
# section); fenced blocks (```go) are code, not commands. Lines that drive the
# harness itself (integration/harness.sh ...) are left out: this script
# starts the servers (FETCH_SERVERS as for test.sh) and stops them however it
# ends, taking the harness lock as test.sh does. The Quick start runs first,
# all its lines in one shell, one after the other, from the repository root,
# as a user types them, so its `export PATH=...` holds after it; every other
# example then runs alone, with the PATH the Quick start sets. An example passes when it exits 0 and,
# when it ends in "# prints: TEXT", its standard output is TEXT.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
harness=$repo/integration/harness.sh
readme=$repo/README.md
cd "$repo" || exit 1

if [ -z "${FETCH_HARNESS_LOCKED:-}" ]; then
	lock=${FETCH_LOCK:-/tmp/fetch-harness.lock}
	exec 9>>"$lock"
	if ! flock -n 9; then
		echo "readme_examples.sh: waiting for another harness run to finish (lock $lock)" >&2
		flock -w "${FETCH_LOCK_TIMEOUT:-1800}" 9 || exit 1
	fi
	export FETCH_HARNESS_LOCKED=1
fi

work=$(mktemp -d)
trap '"$harness" stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$harness" install || exit 1
"$harness" start || exit 1

# A user's environment without a configuration file or a gateway (HOME is
# kept: go install uses the module and build caches under it).
export FETCH_CONFIG= XDG_CONFIG_HOME=$work/config
unset NNTPSERVER NNTPPORT http_proxy gopher_proxy ftp_proxy no_proxy

# extract prints one example a line as "BLOCK<tab>SECTION<tab>COMMAND":
# BLOCK numbers the code block, 0 for a table cell.
extract() {
	awk '
	BEGIN { block = 0; inblock = 0; fenced = 0 }
	/^```/ { fenced = !fenced; next }
	fenced { next }
	/^#+ / { section = $0; sub(/^#+ /, "", section) }
	/^    / {
		if (!inblock) { block++; inblock = 1 }
		line = substr($0, 5)
		if (line ~ /^integration\/harness\.sh/) next
		if (section == "Quick start" || line ~ /(^|[|;&] *|^[A-Z_]+=[^ ]+ +)fetch( |$)/)
			printf "%d\t%s\t%s\n", block, section, line
		next
	}
	/^[^ ]/ { inblock = 0 }
	/^\|/ {
		# the first `...` cell of a table row that runs fetch
		s = $0
		gsub(/\\\|/, "\001", s)
		if (match(s, /`[^`]*`/)) {
			cell = substr(s, RSTART + 1, RLENGTH - 2)
			gsub(/\001/, "|", cell)
			if (cell ~ /(^|[|;&] *|^[A-Z_]+=[^ ]+ +)fetch( |$)/)
				printf "0\t%s\t%s\n", section, cell
		}
	}
	' "$readme"
}

# script writes the shell script for a list of example lines (on stdin):
# each line runs in the same shell, its output and status in $work/<n>.*
script() {
	local n=0 line
	echo 'set -o pipefail'
	echo 'cd "$REPO"'
	while IFS= read -r line; do
		n=$((n + 1))
		printf '{ %s\n} </dev/null >"$OUT/%d.out" 2>"$OUT/%d.err"; echo $? >"$OUT/%d.rc"\n' "$line" "$n" "$n" "$n"
	done
}

examples=$(extract)
count=$(printf '%s\n' "$examples" | grep -c .)
if [ "$count" -lt 10 ]; then
	echo "readme_examples.sh: found only $count examples in README.md: the extraction is broken" >&2
	exit 1
fi

failed=0
ran=0
# check compares one example's result with what it should give.
check() { # check DIR N COMMAND
	local dir=$1 n=$2 cmd=$3 rc want got
	rc=$(cat "$dir/$n.rc" 2>/dev/null || echo missing)
	ran=$((ran + 1))
	if [ "$rc" != 0 ]; then
		echo "FAIL (exit $rc): $cmd" >&2
		sed 's/^/    /' "$dir/$n.err" >&2 2>/dev/null
		failed=$((failed + 1))
		return
	fi
	if [[ $cmd == *"# prints: "* ]]; then
		want=${cmd##*# prints: }
		got=$(cat "$dir/$n.out")
		if [ "$got" != "$want" ]; then
			echo "FAIL (output): $cmd" >&2
			echo "    got:  $got" >&2
			echo "    want: $want" >&2
			failed=$((failed + 1))
			return
		fi
	fi
	echo "ok: $cmd" >&2
}

# run_lines runs example lines (stdin) in one shell with a time limit.
run_lines() { # run_lines DIR < lines
	local dir=$1
	mkdir -p "$dir"
	script >"$dir/run.sh"
	REPO=$repo OUT=$dir timeout 300 bash "$dir/run.sh" >/dev/null 2>&1
}

# The Quick start first: it installs the command and puts it on PATH.
lines=$(printf '%s\n' "$examples" | awk -F'\t' '$2 == "Quick start"' | cut -f3-)
run_lines "$work/quick" <<<"$lines"
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	check "$work/quick" "$n" "$cmd"
done <<<"$lines"
export PATH="$PATH:$(go env GOPATH)/bin"
if [ "$(command -v fetch)" != "$(go env GOPATH)/bin/fetch" ]; then
	echo "FAIL: after the Quick start, fetch is $(command -v fetch || echo missing), not $(go env GOPATH)/bin/fetch" >&2
	failed=$((failed + 1))
fi

# Then every other example: a code block in one shell, a table cell alone.
rest=$(printf '%s\n' "$examples" | awk -F'\t' '$2 != "Quick start"')
i=0
while IFS=$'\t' read -r _ _ cmd; do
	[ -n "$cmd" ] || continue
	i=$((i + 1))
	run_lines "$work/e$i" <<<"$cmd"
	check "$work/e$i" 1 "$cmd"
done <<<"$rest"

echo "readme_examples.sh: $ran examples, $failed failed" >&2
[ "$failed" -eq 0 ]
