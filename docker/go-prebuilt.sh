#!/bin/sh
# Installed as `go` in the harness image, which has no Go toolchain (Debian
# 12's is too old for this module). A harness server written in Go is built
# on the host into the image (docker/build/bin/<name>, see
# integration/containers.sh); its harness file's own `go build -o OUT PKG`
# or `go run PKG ARGS...` then gets that binary, found by the last element
# of PKG (./integration/waisd -> waisd).
set -eu
bin=${FETCH_GO_PREBUILT:-/opt/fetch/bin}
cmd=${1:-}
[ $# -gt 0 ] && shift
out=
pkg=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-o=*) out=${1#-o=}; shift ;;
	# build flags that take a value
	-C | -tags | -ldflags | -gcflags | -asmflags | -mod | -modfile | -p | -pgo | -buildmode | -overlay | -exec)
		shift 2 ;;
	-*) shift ;;
	*) pkg=$1; shift; break ;;
	esac
done
[ -n "$pkg" ] || pkg=.
case $pkg in
. | ./) name=$(basename "$PWD") ;;
*) name=$(basename "${pkg%/}") ;;
esac
prebuilt=$bin/$name
if [ ! -x "$prebuilt" ]; then
	echo "go (prebuilt stand-in): no binary $prebuilt for $pkg; integration/containers.sh builds every main package under integration/" >&2
	exit 1
fi
case $cmd in
build)
	case $out in
	'') out=./$name ;;
	*/) out=$out$name ;;
	esac
	[ -d "$out" ] && out=$out/$name
	cp "$prebuilt" "$out"
	chmod 755 "$out"
	;;
run) exec "$prebuilt" "$@" ;;
*)
	echo "go (prebuilt stand-in): only 'go build' and 'go run' of a prebuilt server work in this image" >&2
	exit 1
	;;
esac
