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
#
# integration/test.sh --docker [--netns] [go test args...] runs the same
# tests against the containers of docker/compose.yaml instead
# (integration/containers.sh: Docker when an engine answers, else rootful
# podman, installed when missing). --netns runs the podman stack and the
# tests in a private network namespace, so that they never meet a native
# run's servers on the same ports (without it, the run takes the harness
# lock like a native one). A server that fails to become healthy, or is no
# longer healthy when the tests end, fails the run.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
harness=$repo/integration/harness.sh
containers=$repo/integration/containers.sh
cd "$repo" || exit 1

docker=
while [ $# -gt 0 ]; do
	case $1 in
	--docker) docker=1 ;;
	--netns) export FETCH_NETNS=${FETCH_NETNS:-fetch-containers} ;;
	--netns=*) export FETCH_NETNS=${1#--netns=} ;;
	*) break ;;
	esac
	shift
done
if [ -n "${FETCH_NETNS:-}" ] && [ -z "$docker" ]; then
	echo "integration/test.sh: --netns goes with --docker" >&2
	exit 2
fi
# The image is built before the lock is taken: a build takes minutes and
# needs no ports.
if [ -n "$docker" ]; then
	"$containers" build || exit 1
fi

# One run at a time per machine: the servers' ports are fixed (not for
# containers in a namespace of their own).
lock=${FETCH_LOCK:-/tmp/fetch-harness.lock}
exec 9>>"$lock"
if [ -n "${FETCH_NETNS:-}" ]; then
	exec 9>&-
elif ! flock -n 9; then
	echo "integration/test.sh: waiting for another harness run to finish (lock $lock)" >&2
	flock -w "${FETCH_LOCK_TIMEOUT:-1800}" 9 || {
		echo "integration/test.sh: gave up waiting for $lock" >&2
		exit 1
	}
fi
export FETCH_HARNESS_LOCKED=1

trap 'exit 130' INT
trap 'exit 143' TERM
start_rc=0
run=()
if [ -n "$docker" ]; then
	trap '"$containers" down || true' EXIT
	# a server that does not come up fails the run before any test
	"$containers" up || exit 1
	eval "$("$containers" env)"
	run=("$containers" run)
else
	"$harness" install || exit $?
	trap '"$harness" stop || true' EXIT
	"$harness" start || start_rc=$?
	eval "$("$harness" env)"
fi

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

if [ -n "${FETCH_NETNS:-}" ]; then
	# the namespace has no route to the module proxy: fetch what the
	# tests need first
	go list -deps -test -tags integration ./... >/dev/null 9>&- || exit 1
fi
echo "integration/test.sh: go test ${args[*]}" >&2
${run[@]+"${run[@]}"} go test "${args[@]}" 9>&-
rc=$?
if [ -n "$docker" ] && ! "$containers" check 9>&-; then
	rc=1
fi
if [ "$rc" -eq 0 ] && [ "$start_rc" -ne 0 ]; then
	echo "integration/test.sh: go test passed but a server failed to start" >&2
	rc=1
fi
exit $rc
