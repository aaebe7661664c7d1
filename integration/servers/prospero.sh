# prospero: the project's own Prospero directory server (integration/prosperod,
# built here with go build) on UDP FETCH_PROSPERO_ADDR. Its virtual directory
# points at vsftpd (AFTP methods, paths relative to the anonymous root, which
# is the content tree) and pygopherd (GOPHER methods); it reproduces the
# observed behaviours of Prospero's dirsrv P5.3 (see the command's doc).
PROSPERO_PORT=18525

prospero_packages() { :; }

prospero_start() {
	local d=$RUN_DIR/prospero
	mkdir -p "$d"
	(cd "$REPO_DIR" && go build -o "$d/prosperod" ./integration/prosperod) || {
		log "prospero: go build ./integration/prosperod failed (is Go on PATH?)"
		return 1
	}
	prospero_free_port
	spawn prospero "$d/prosperod" -listen "127.0.0.1:$PROSPERO_PORT" \
		-ftp 127.0.0.1:${VSFTPD_PORT:-18021} -gopher 127.0.0.1:${PYGOPHERD_PORT:-18070} \
		-content "$CONTENT_DIR"
}

# the ready probe speaks ARDP: the binary's -probe mode sends a request and
# waits for the reply's packet with the same connection id
prospero_ready() {
	[ -x "$RUN_DIR/prospero/prosperod" ] && timeout 3 "$RUN_DIR/prospero/prosperod" -probe "127.0.0.1:$PROSPERO_PORT" 2>/dev/null
}

# free_port only sees TCP listeners: stop a UDP server of an earlier run
prospero_free_port() {
	local i pids
	for i in $(seq 1 30); do
		pids=$(ss -Hlunp "sport = :$PROSPERO_PORT" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u)
		[ -z "$pids" ] && return 0
		# shellcheck disable=SC2086
		kill_pids TERM $pids
		sleep 0.1
	done
	log "UDP port $PROSPERO_PORT is still in use"
	return 1
}

prospero_stop() {
	stop_pidfile "$RUN_DIR/prospero/prospero.pid"
	prospero_free_port
}

prospero_env() {
	echo "export FETCH_PROSPERO_ADDR=127.0.0.1:$PROSPERO_PORT"
}
