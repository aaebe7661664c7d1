#!/bin/bash
# Container entry point: `content` generates the shared content tree and
# exits; `serve` (the default) starts this image's server with
# integration/harness.sh and stays in the foreground until stopped.
set -euo pipefail
h=/src/integration/harness.sh

case "${1:-serve}" in
content)
	unset FETCH_CONTENT_PREBUILT
	exec "$h" content
	;;
serve)
	export FETCH_CONTENT_PREBUILT=1
	"$h" start
	"$h" env
	trap '"$h" stop; exit 0' TERM INT
	# wake every few seconds; leave when the server has not answered three
	# probes in a row (one slow answer on a busy machine is no death)
	failed=0
	while [ "$failed" -lt 3 ]; do
		sleep 5 &
		wait $! || true
		if "$h" status >/dev/null 2>&1; then failed=0; else failed=$((failed + 1)); fi
	done
	echo "entrypoint: $FETCH_SERVERS stopped answering" >&2
	"$h" stop || true
	exit 1
	;;
*)
	exec "$@"
	;;
esac
