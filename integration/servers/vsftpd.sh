# vsftpd: FTP on FETCH_FTP_VSFTPD_ADDR. Anonymous read-only and the local
# account fetchuser/fetchpass, both rooted at the content tree; passive ports
# 18100-18199 (testdata/harness/conf/vsftpd.conf).
VSFTPD_PORT=18021
FTP_USER=fetchuser
FTP_PASS=fetchpass

vsftpd_packages() { echo vsftpd; }

# the account and a PAM service of our own: Debian's vsftpd service also
# demands a login shell, which a test account should not have
vsftpd_install() {
	if ! getent passwd "$FTP_USER" >/dev/null; then
		useradd --system --no-create-home --home-dir / \
			--shell /usr/sbin/nologin "$FTP_USER"
	fi
	# vsftpd changes to the home directory before local_root: it must exist
	[ "$(getent passwd "$FTP_USER" | cut -d: -f6)" = / ] || usermod --home / "$FTP_USER"
	echo "$FTP_USER:$FTP_PASS" | chpasswd
	cat >/etc/pam.d/fetch-vsftpd <<'PAM'
# fetch integration tests: password check only (see integration/servers/vsftpd.sh)
auth	required	pam_unix.so
account	required	pam_unix.so
session	required	pam_permit.so
PAM
}

vsftpd_start() {
	local d=$RUN_DIR/vsftpd
	mkdir -p "$d/empty"
	chmod 755 "$d/empty"
	getent passwd "$FTP_USER" >/dev/null || { log "vsftpd: no user $FTP_USER: run harness.sh install"; return 1; }
	render "$TESTDATA/conf/vsftpd.conf" "$d/vsftpd.conf" FTP_PORT=$VSFTPD_PORT PASV_MIN=18100 PASV_MAX=18199
	free_port $VSFTPD_PORT
	spawn vsftpd /usr/sbin/vsftpd "$d/vsftpd.conf"
}

vsftpd_ready() {
	probe $VSFTPD_PORT '' '^220 '
}

vsftpd_stop() {
	stop_pidfile "$RUN_DIR/vsftpd/vsftpd.pid"
	free_port $VSFTPD_PORT
}

vsftpd_env() {
	echo "export FETCH_FTP_VSFTPD_ADDR=127.0.0.1:$VSFTPD_PORT"
	echo "export FETCH_FTP_USER=$FTP_USER"
	echo "export FETCH_FTP_PASS=$FTP_PASS"
}
