# wais: fetch's own WAIS server (integration/waisd, built here with the
# repository's Go) on FETCH_WAIS_ADDR, serving the collection that
# testdata/harness/wais/gen-collection.sh generates: database fetch-test
# with text, HTML, a long document of many retrieval slices, a binary and
# an empty one. It behaves as freeWAIS-sf's waisserver is observed to
# (see integration/waisd).
WAIS_PORT=18210

wais_packages() { :; }

wais_start() {
	local d=$RUN_DIR/wais
	mkdir -p "$d"
	free_port $WAIS_PORT
	(cd "$REPO_DIR" && "${GO:-go}" build -o "$d/waisd" ./integration/waisd) >"$d/build.log" 2>&1 || {
		log "building waisd failed:"
		cat "$d/build.log" >&2
		return 1
	}
	"$TESTDATA/wais/gen-collection.sh" "$d/data"
	spawn wais "$d/waisd" -addr "127.0.0.1:$WAIS_PORT" -dir "$d/data"
}

# A keyword search answers with a message header: ten digits and 'z'.
wais_ready() {
	# shellcheck disable=SC2016 # the inner script expands its own arguments
	timeout 3 bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		# a search for "x" in database "fetch-test" (integration/waisd):
		# header, then the APDU with its uncounted user information
		printf "0000000038z2wais\x00\x00\x00\x00\x00\x00  0\x00\x1c\x16\x00\x00\x1e\x00\x13\x88\x00\x00\x1e\x01\x11\x00\x12\x0afetch-test\x14\x013c\x06j\x01xr\x01\x01" >&3
		head -c 11 <&3 | grep -Eq "^[0-9]{10}z$"
	' probe $WAIS_PORT 2>/dev/null
}

wais_stop() {
	stop_pidfile "$RUN_DIR/wais/wais.pid"
	free_port $WAIS_PORT
}

wais_env() {
	echo "export FETCH_WAIS_ADDR=127.0.0.1:$WAIS_PORT"
}
