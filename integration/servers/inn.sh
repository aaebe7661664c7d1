# INN (inn2): NNTP on FETCH_NNTP_ADDR. A private INN instance: all its files
# live under $RUN_DIR/inn (INNCONF points innd at testdata/harness/conf/inn/
# inn.conf rendered there), so every start is a fresh server with the groups
# fetch.test.alpha, .beta and .secret and the articles of
# testdata/harness/news/*.eml. fetch.test.secret is readable only after
# AUTHINFO USER newsuser / PASS newspass.
NNTP_PORT=18119
NNTP_USER=newsuser
NNTP_PASS=newspass

inn_packages() { echo inn2 openssl python3; }

# Debian's postinst fails while the host name does not resolve to a domain:
# give the system inn.conf one, then finish the configuration. Our instance
# does not use /etc/news beyond copying its defaults.
inn_install() {
	local conf=/etc/news/inn.conf
	if [ -f $conf ] && ! grep -Eq '^domain:[[:space:]]*[^[:space:]]' $conf; then
		if grep -q '^#domain:' $conf; then
			sed -i 's/^#domain:.*/domain:                      fetch.test/' $conf
		else
			echo 'domain:                      fetch.test' >>$conf
		fi
	fi
	if dpkg --audit inn2 2>/dev/null | grep -q inn2 ||
		! dpkg-query -W -f='${Status}' inn2 2>/dev/null | grep -q 'installed$'; then
		dpkg --configure -a >>"${TMPDIR:-/tmp}/fetch-harness-apt.log" 2>&1
	fi
}

inn_start() {
	local d=$RUN_DIR/inn f
	free_port $NNTP_PORT
	rm -rf "$d"
	mkdir -p "$d"/{etc,db,run,log,http,filter} "$d"/spool/{articles,overview,incoming/tmp,outgoing,archive}
	# INN's defaults for the files we do not write (control.ctl, expire.ctl, ...)
	cp -a /etc/news/. "$d/etc/"
	render "$TESTDATA/conf/inn/inn.conf" "$d/etc/inn.conf" NNTP_PORT=$NNTP_PORT
	for f in readers.conf newsfeeds incoming.conf storage.conf; do
		render "$TESTDATA/conf/inn/$f" "$d/etc/$f"
	done
	echo "$NNTP_USER:$(openssl passwd -6 -salt fetchtestsalt "$NNTP_PASS")" >"$d/etc/newsusers"
	{
		printf '%s 0000000000 0000000001 n\n' control control.cancel junk
		grep -v '^#' "$TESTDATA/conf/inn/groups" | cut -f1 | sed 's/$/ 0000000000 0000000001 y/'
	} >"$d/db/active"
	grep -v '^#' "$TESTDATA/conf/inn/groups" >"$d/db/newsgroups"
	: >"$d/db/active.times"
	: >"$d/db/history"
	chown -R news:news "$d"
	chmod 755 "$d"
	as_news "$d" /usr/lib/news/bin/makedbz -i -o >>"$d/inn.log" 2>&1 || return 1
	# -f: stay in the foreground, so spawn's process group holds innd and nnrpd
	spawn inn setpriv --reuid=news --regid=news --init-groups \
		env INNCONF="$d/etc/inn.conf" HOME="$d" /usr/lib/news/bin/innd -f
}

# as_news DIR CMD...: run CMD as news with our INNCONF, in DIR/db
as_news() {
	local d=$1
	shift
	(cd "$d/db" && setpriv --reuid=news --regid=news --init-groups \
		env INNCONF="$d/etc/inn.conf" HOME="$d" "$@")
}

# ready when innd hands a reader to nnrpd (200) and, once, every test article
# has been posted and answers STAT
inn_ready() {
	local d=$RUN_DIR/inn
	probe $NNTP_PORT '' '^200 ' || return 1
	[ -f "$d/posted" ] && return 0
	"$PY" "$TESTDATA/nntp-post.py" 127.0.0.1 $NNTP_PORT "$NNTP_USER" "$NNTP_PASS" \
		"$TESTDATA"/news/*.eml >"$d/posted.tmp" 2>>"$d/inn.log" || return 1
	mv "$d/posted.tmp" "$d/posted"
}

# innd acts on SIGTERM only when its main loop next wakes up, which may be
# minutes away: ask it through its control socket first.
inn_stop() {
	local d=$RUN_DIR/inn
	if [ -f "$d/inn.pid" ] && [ -f "$d/etc/inn.conf" ]; then
		as_news "$d" /usr/lib/news/bin/ctlinnd -s -t 10 shutdown "harness stop" >/dev/null 2>&1 || true
	fi
	stop_pidfile "$d/inn.pid"
	free_port $NNTP_PORT
}

inn_env() {
	local ids
	ids=$(grep -h -i -m1 '^Message-ID:' "$TESTDATA"/news/*.eml | grep -v 'secret' | awk '{print $2}' | paste -sd' ' -)
	echo "export FETCH_NNTP_ADDR=127.0.0.1:$NNTP_PORT"
	echo "export FETCH_NNTP_USER=$NNTP_USER"
	echo "export FETCH_NNTP_PASS=$NNTP_PASS"
	echo "export FETCH_NEWS_MSGIDS='$ids'"
}
