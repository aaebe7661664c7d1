# gophernicus: Gopher on FETCH_GOPHER_GOPHERNICUS_ADDR, serving
# testdata/harness/gopher/gophernicus (a gophermap root menu, a generated
# submenu listing, text, binary, a type 7 CGI search). gophernicus is an
# inetd-style server and refuses to run as root: socat listens and runs one
# gophernicus per connection as nobody.
#
# FETCH_GOPHERNICUS_BENCH=1 (integration/bench.sh) lifts the per-client
# throttling limits (-i hits, -k KiB; -nm would also avoid it but makes every
# request run lsb_release) and gives gophernicus the connection itself
# (socat nofork) instead of relaying it, so neither is what gets measured.
GOPHERNICUS_PORT=18071

gophernicus_packages() { echo gophernicus socat; }

gophernicus_start() {
	local d=$RUN_DIR/gophernicus
	rm -rf "$d/hole"
	mkdir -p "$d"
	cp -a "$TESTDATA/gopher/gophernicus" "$d/hole"
	cp "$CONTENT_DIR/1k.bin" "$d/hole/binary.bin"
	printf 'GIF89a\001\000\001\000\200\000\000\000\000\000\377\377\377!\371\004\001\000\000\000\000,\000\000\000\000\001\000\001\000\000\002\002D\001\000;' >"$d/hole/pixel.gif"
	find "$d/hole" -exec touch -h -d '2024-01-02 03:04:05 UTC' {} +
	chmod -R u=rwX,go=rX "$d/hole"
	free_port $GOPHERNICUS_PORT
	# -nv no virtual hosts, -nu no ~user spaces, -ns no syslog, -nt no
	# /server-status, -na no generated caps.txt
	local more= exec_opts=
	if [ "${FETCH_GOPHERNICUS_BENCH:-}" = 1 ]; then
		more=" -i 2000000000 -k 2000000000" exec_opts=,nofork
	fi
	spawn gophernicus socat "TCP-LISTEN:$GOPHERNICUS_PORT,bind=127.0.0.1,reuseaddr,fork" \
		"EXEC:/usr/sbin/gophernicus -h 127.0.0.1 -p $GOPHERNICUS_PORT -r $d/hole -nv -nu -ns -nt -na$more,su=nobody$exec_opts"
}

gophernicus_ready() {
	probe $GOPHERNICUS_PORT '\r\n' '^\.$'
}

gophernicus_stop() {
	stop_pidfile "$RUN_DIR/gophernicus/gophernicus.pid"
	free_port $GOPHERNICUS_PORT
}

gophernicus_env() {
	echo "export FETCH_GOPHER_GOPHERNICUS_ADDR=127.0.0.1:$GOPHERNICUS_PORT"
}
