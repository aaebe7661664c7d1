# pygopherd: Gopher and Gopher+ on FETCH_GOPHER_PYGOPHERD_ADDR, serving
# testdata/harness/gopher/pygopherd (copied into the run directory, plus two
# binary files): menus, text, binary, Gopher+ attributes (.abstract,
# .keywords), an ASK form (form.ask) and a type 7 search (an executable run by
# pygopherd's ExecHandler, made type 7 by .cap/search).
PYGOPHERD_PORT=18070

pygopherd_packages() { echo pygopherd; }

pygopherd_start() {
	local d=$RUN_DIR/pygopherd
	rm -rf "$d/hole"
	mkdir -p "$d"
	cp -a "$TESTDATA/gopher/pygopherd" "$d/hole"
	cp "$CONTENT_DIR/1k.bin" "$d/hole/binary.bin"
	# a 1×1 GIF
	printf 'GIF89a\001\000\001\000\200\000\000\000\000\000\377\377\377!\371\004\001\000\000\000\000,\000\000\000\000\001\000\001\000\000\002\002D\001\000;' >"$d/hole/pixel.gif"
	find "$d/hole" -exec touch -h -d '2024-01-02 03:04:05 UTC' {} +
	chmod -R u=rwX,go=rX "$d/hole"
	render "$TESTDATA/conf/pygopherd.conf" "$d/pygopherd.conf" GOPHER_PORT=$PYGOPHERD_PORT
	free_port $PYGOPHERD_PORT
	spawn pygopherd env PYTHONDONTWRITEBYTECODE=1 LC_ALL=C.UTF-8 "$PY" /usr/sbin/pygopherd "$d/pygopherd.conf"
}

pygopherd_ready() {
	# pygopherd ends gopher0 menus without the "." line: look for an item
	probe $PYGOPHERD_PORT '\r\n' '^1menu	/menu	'
}

pygopherd_stop() {
	stop_pidfile "$RUN_DIR/pygopherd/pygopherd.pid"
	free_port $PYGOPHERD_PORT
}

pygopherd_env() {
	echo "export FETCH_GOPHER_PYGOPHERD_ADDR=127.0.0.1:$PYGOPHERD_PORT"
}
