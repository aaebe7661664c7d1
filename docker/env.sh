# . docker/env.sh — the FETCH_* variables for the servers of
# docker/compose.yaml (the same addresses as the native harness; the content
# tree and Maildir are the bind mounts under docker/run/).
_fetch_docker_dir=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export FETCH_CONTENT_DIR=$_fetch_docker_dir/run/content
export FETCH_MAILBOX=$_fetch_docker_dir/run/mail
export FETCH_SERVERS=nginx,vsftpd,pyftpdlib,pygopherd,gophernicus,inn,smtp,telnet
export FETCH_HTTP_ADDR=127.0.0.1:18080
export FETCH_FTP_VSFTPD_ADDR=127.0.0.1:18021
export FETCH_FTP_PYFTPDLIB_ADDR=127.0.0.1:18022
export FETCH_FTP_USER=fetchuser
export FETCH_FTP_PASS=fetchpass
export FETCH_GOPHER_PYGOPHERD_ADDR=127.0.0.1:18070
export FETCH_GOPHER_GOPHERNICUS_ADDR=127.0.0.1:18071
export FETCH_NNTP_ADDR=127.0.0.1:18119
export FETCH_NNTP_USER=newsuser
export FETCH_NNTP_PASS=newspass
export FETCH_NEWS_MSGIDS='<alpha-1@fetch.test> <alpha-2-dots@fetch.test> <alpha-3-large@fetch.test> <alpha-4-utf8@fetch.test> <beta-1@fetch.test> <cross-1@fetch.test>'
export FETCH_SMTP_ADDR=127.0.0.1:18025
export FETCH_TELNET_ADDR=127.0.0.1:18023
export FETCH_TELNET_USER=telnetuser
export FETCH_TELNET_PASS=telnetpass
unset _fetch_docker_dir
