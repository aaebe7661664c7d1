#!/usr/bin/env bash
# integration/test.sh [go test args...] — the project's test command.
#
# Installs and starts the real servers (integration/harness.sh), exports their
# addresses, and runs
#     go test -race -count=1 -tags integration [args] [packages]
# with ./... as the packages unless the arguments name some, e.g.
#     integration/test.sh -run TestFTP ./integration/...
# The servers are stopped when it ends, however it ends. FETCH_SERVERS=a,b
# starts only those servers. The exit status is go test's, or 1 when go test
# passed but a server failed to start.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
harness=$repo/integration/harness.sh
cd "$repo" || exit 1

# One run at a time per machine: the servers' ports are fixed.
lock=${FETCH_LOCK:-/tmp/fetch-harness.lock}
exec 9>>"$lock"
if ! flock -n 9; then
	echo "integration/test.sh: waiting for another harness run to finish (lock $lock)" >&2
	flock -w "${FETCH_LOCK_TIMEOUT:-1800}" 9 || {
		echo "integration/test.sh: gave up waiting for $lock" >&2
		exit 1
	}
fi
export FETCH_HARNESS_LOCKED=1

"$harness" install || exit $?

trap '"$harness" stop || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_rc=0
"$harness" start || start_rc=$?
eval "$("$harness" env)"

# Does an argument name packages? Flag values (the word after -run, -count,
# ...) do not.
takes_value=" -run -skip -bench -benchtime -count -cpu -timeout -p -parallel -tags -coverprofile -covermode -coverpkg -cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir -o -exec -list -shuffle -fuzz -fuzztime -fuzzminimizetime -vet -json-file "
have_pkgs=
prev=
for a in "$@"; do
	if [[ $prev == -* && $prev != *=* && $takes_value == *" $prev "* ]]; then
		prev=
		continue
	fi
	case $a in
	-*) ;;
	./* | ../* | . | .. | all | std | */... | github.com/* | */*) have_pkgs=1 ;;
	esac
	prev=$a
done

args=(-race -count=1 -tags integration "$@")
[ -n "$have_pkgs" ] || args+=(./...)

echo "integration/test.sh: go test ${args[*]}" >&2
go test "${args[@]}" 9>&-
rc=$?
if [ "$rc" -eq 0 ] && [ "$start_rc" -ne 0 ]; then
	echo "integration/test.sh: go test passed but a server failed to start" >&2
	rc=1
fi
exit $rc
