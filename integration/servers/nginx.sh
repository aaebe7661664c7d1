# nginx: HTTP on FETCH_HTTP_ADDR, serving the content tree, plus redirect
# locations (see testdata/harness/conf/nginx.conf).
NGINX_PORT=18080

nginx_packages() { echo nginx; }

nginx_start() {
	local d=$RUN_DIR/nginx
	mkdir -p "$d/tmp"
	render "$TESTDATA/conf/nginx.conf" "$d/nginx.conf" HTTP_PORT=$NGINX_PORT
	free_port $NGINX_PORT
	# -e: nginx opens its error log before reading the config
	spawn nginx /usr/sbin/nginx -e "$d/error.log" -p "$d" -c "$d/nginx.conf"
}

nginx_ready() {
	probe $NGINX_PORT 'GET /index.html HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' '^HTTP/1\.1 200 '
}

nginx_stop() {
	stop_pidfile "$RUN_DIR/nginx/nginx.pid"
	free_port $NGINX_PORT
}

nginx_env() {
	echo "export FETCH_HTTP_ADDR=127.0.0.1:$NGINX_PORT"
}
