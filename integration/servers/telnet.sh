# telnet: inetutils telnetd on FETCH_TELNET_ADDR, one per connection under
# socat, running testdata/harness/telnet-login.sh instead of /bin/login:
# telnetuser/telnetpass logs in to a "$ " prompt that echoes commands until
# "exit".
TELNET_PORT=18023
TELNET_USER=telnetuser
TELNET_PASS=telnetpass

telnet_packages() { echo inetutils-telnetd socat; }

telnet_start() {
	local d=$RUN_DIR/telnet
	mkdir -p "$d"
	free_port $TELNET_PORT
	# the login program must be readable and executable by telnetd's user
	install -m 755 "$TESTDATA/telnet-login.sh" "$d/login.sh"
	# -h: no host information before login; nofork: telnetd talks to the
	# socket itself (it needs a socket, not a pipe)
	spawn telnet socat "TCP-LISTEN:$TELNET_PORT,bind=127.0.0.1,reuseaddr,fork" \
		"EXEC:/usr/sbin/telnetd -h -E $d/login.sh,nofork,su=nobody"
}

# telnetd opens with option negotiation: IAC (0xff) DO/WILL ...
telnet_ready() {
	# shellcheck disable=SC2016 # the inner script expands its own arguments
	timeout 3 bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		head -c 3 <&3 | od -An -tx1 | grep -Eq "^ *ff (fb|fc|fd|fe) "
	' probe $TELNET_PORT 2>/dev/null
}

telnet_stop() {
	stop_pidfile "$RUN_DIR/telnet/telnet.pid"
	free_port $TELNET_PORT
}

telnet_env() {
	echo "export FETCH_TELNET_ADDR=127.0.0.1:$TELNET_PORT"
	echo "export FETCH_TELNET_USER=$TELNET_USER"
	echo "export FETCH_TELNET_PASS=$TELNET_PASS"
}
