# smtp: Exim (Debian's exim4-daemon-light) on FETCH_SMTP_ADDR with a private
# configuration (testdata/harness/conf/exim.conf, run with -C; spool, logs
# and mail under $RUN_DIR/smtp). Mail for any address at fetch.test or
# localhost is delivered at once into the Maildir FETCH_MAILBOX (one file per
# message in new/); RCPT TO:<nobody-here@fetch.test> is refused with 550.
SMTP_PORT=18025

smtp_packages() { echo exim4-daemon-light; }

# FETCH_MAILBOX may name another Maildir (Docker puts it on a shared mount)
smtp_maildir() { echo "${FETCH_MAILBOX:-$RUN_DIR/smtp/Maildir}"; }

smtp_start() {
	local d=$RUN_DIR/smtp mb
	mb=$(smtp_maildir)
	free_port $SMTP_PORT
	rm -rf "$d/spool" "$d/log"
	mkdir -p "$d/spool" "$d/log" "$mb"
	# empty the Maildir rather than remove it: it may be a mount point
	find "$mb" -mindepth 1 -delete
	mkdir -p "$mb"/{new,cur,tmp}
	render "$TESTDATA/conf/exim.conf" "$d/exim.conf" SMTP_PORT=$SMTP_PORT MAILDIR="$mb"
	chmod 644 "$d/exim.conf"
	chown -R Debian-exim:Debian-exim "$d/spool" "$d/log" "$mb"
	chmod 755 "$mb" "$mb"/*
	# -bdf: daemon in the foreground; -odi: deliver in the receiving process,
	# so the message is in the Maildir when the client has its 250
	spawn smtp /usr/sbin/exim4 -C "$d/exim.conf" -bdf -odi
}

smtp_ready() {
	probe $SMTP_PORT '' '^220 '
}

smtp_stop() {
	stop_pidfile "$RUN_DIR/smtp/smtp.pid"
	free_port $SMTP_PORT
}

smtp_env() {
	echo "export FETCH_SMTP_ADDR=127.0.0.1:$SMTP_PORT"
	echo "export FETCH_MAILBOX=$(smtp_maildir)"
}
