# pyftpdlib: FTP on FETCH_FTP_PYFTPDLIB_ADDR, anonymous and fetchuser/fetchpass,
# read-only, rooted at the content tree; passive ports 18200-18299.
# Runs testdata/harness/pyftpd-server.py as nobody with Debian's python.
PYFTPDLIB_PORT=18022

pyftpdlib_packages() { echo python3 python3-pyftpdlib; }

pyftpdlib_start() {
	mkdir -p "$RUN_DIR/pyftpdlib"
	free_port $PYFTPDLIB_PORT
	# the file system encoding must pass undecodable (Latin-1) names through
	spawn pyftpdlib env LC_ALL=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PY" "$TESTDATA/pyftpd-server.py" 127.0.0.1 $PYFTPDLIB_PORT "$CONTENT_DIR" \
		fetchuser fetchpass 18200 18299
}

pyftpdlib_ready() {
	probe $PYFTPDLIB_PORT '' '^220 '
}

pyftpdlib_stop() {
	stop_pidfile "$RUN_DIR/pyftpdlib/pyftpdlib.pid"
	free_port $PYFTPDLIB_PORT
}

pyftpdlib_env() {
	echo "export FETCH_FTP_PYFTPDLIB_ADDR=127.0.0.1:$PYFTPDLIB_PORT"
}
