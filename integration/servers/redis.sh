# redis: Debian's redis-server on FETCH_REDIS_ADDR, for the shared crawl
# frontier (--enqueue, --queue). Append-only file on, in $RUN_DIR/redis/data;
# the default user is off, so every client logs in as FETCH_REDIS_USER with
# FETCH_REDIS_PASSWORD. Tests that restart a server start their own
# redis-server (the same package) on a port of their own.
REDIS_PORT=18379
REDIS_USER=fetch
REDIS_PASSWORD=harness-redis-pw

redis_packages() { echo redis-server redis-tools; }

redis_start() {
	local d=$RUN_DIR/redis
	rm -rf "$d/data"
	mkdir -p "$d/data"
	render "$TESTDATA/conf/redis.conf" "$d/redis.conf" REDIS_PORT=$REDIS_PORT REDIS_USER=$REDIS_USER REDIS_PASSWORD=$REDIS_PASSWORD
	chmod 600 "$d/redis.conf"
	free_port $REDIS_PORT
	spawn redis /usr/bin/redis-server "$d/redis.conf"
}

redis_ready() {
	probe $REDIS_PORT "AUTH $REDIS_USER $REDIS_PASSWORD\r\nPING\r\n" '^\+PONG'
}

redis_stop() {
	stop_pidfile "$RUN_DIR/redis/redis.pid"
	free_port $REDIS_PORT
}

redis_env() {
	echo "export FETCH_REDIS_ADDR=127.0.0.1:$REDIS_PORT"
	echo "export FETCH_REDIS_USER=$REDIS_USER"
	echo "export FETCH_REDIS_PASSWORD=$REDIS_PASSWORD"
}
