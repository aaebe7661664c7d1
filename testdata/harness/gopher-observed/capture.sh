#!/usr/bin/env bash
# capture.sh — record what the real gopher servers answer, byte for byte.
# Needs the harness running (integration/harness.sh start). Rewrites
# pygopherd/ and gophernicus/ beside this script: for each case NAME,
# NAME.request holds the bytes sent and NAME.response the bytes received
# until the server closed the connection.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# capture SERVER PORT NAME REQUEST(printf %b)
capture() {
	local dir=$here/$1 port=$2 name=$3
	mkdir -p "$dir"
	printf '%b' "$4" >"$dir/$name.request"
	socat -t5 -T10 - "TCP:127.0.0.1:$port" <"$dir/$name.request" >"$dir/$name.response"
}

p=${FETCH_GOPHER_PYGOPHERD_ADDR:-127.0.0.1:18070}
p=${p##*:}
capture pygopherd "$p" 01-root-menu '\r\n'
capture pygopherd "$p" 02-root-menu-gopherplus-dollar '\t$\r\n'
capture pygopherd "$p" 03-root-info-bang '\t!\r\n'
capture pygopherd "$p" 04-text-plain '/about.txt\r\n'
capture pygopherd "$p" 05-text-gopherplus-plus '/about.txt\t+\r\n'
capture pygopherd "$p" 06-text-attributes-bang '/about.txt\t!\r\n'
capture pygopherd "$p" 07-text-one-block '/about.txt\t!+ABSTRACT\r\n'
capture pygopherd "$p" 08-binary-gopherplus-plus '/binary.bin\t+\r\n'
capture pygopherd "$p" 09-submenu-plus '/menu\t+\r\n'
capture pygopherd "$p" 10-submenu-dollar '/menu\t$\r\n'
capture pygopherd "$p" 11-ask-attributes '/form\t!\r\n'
capture pygopherd "$p" 12-ask-submit '/form\t+\t1\r\n+-1\r\nGopher User\r\nsecret\r\ngreen\r\n.\r\n'
capture pygopherd "$p" 13-search '/search\tfetch query\r\n'
capture pygopherd "$p" 14-search-gopherplus '/search\tfetch query\t+\r\n'
capture pygopherd "$p" 15-view-html-of-txt '/doc.txt\t+text/html\r\n'
capture pygopherd "$p" 16-doc-txt-attributes '/doc.txt\t!\r\n'
capture pygopherd "$p" 17-doc-html-attributes '/doc.html\t!\r\n'
capture pygopherd "$p" 18-not-found '/nonexistent\r\n'
capture pygopherd "$p" 19-not-found-gopherplus '/nonexistent\t+\r\n'
capture pygopherd "$p" 20-selector-with-spaces '/menu/file with spaces.txt\r\n'
capture pygopherd "$p" 21-no-leading-slash 'about.txt\r\n'

g=${FETCH_GOPHER_GOPHERNICUS_ADDR:-127.0.0.1:18071}
g=${g##*:}
capture gophernicus "$g" 01-root-menu '\r\n'
capture gophernicus "$g" 02-root-menu-gopherplus-dollar '\t$\r\n'
capture gophernicus "$g" 03-root-info-bang '\t!\r\n'
capture gophernicus "$g" 04-text-plain '/about.txt\r\n'
capture gophernicus "$g" 05-text-gopherplus-plus '/about.txt\t+\r\n'
capture gophernicus "$g" 06-text-attributes-bang '/about.txt\t!\r\n'
capture gophernicus "$g" 08-binary-plain-head '/binary.bin\r\n'
capture gophernicus "$g" 09-generated-submenu '/menu\r\n'
capture gophernicus "$g" 10-generated-submenu-slash '/menu/\r\n'
capture gophernicus "$g" 13-search '/cgi-bin/search\tfetch query\r\n'
capture gophernicus "$g" 13b-search-query-string '/cgi-bin/search?fetch%20query\r\n'
capture gophernicus "$g" 18-not-found '/nonexistent\r\n'
capture gophernicus "$g" 20-selector-encoded-spaces '/menu/file#040with#040spaces.txt\r\n'
capture gophernicus "$g" 20b-selector-with-spaces '/menu/file with spaces.txt\r\n'
capture gophernicus "$g" 22-dotdot '/../../etc/passwd\r\n'
capture gophernicus "$g" 23-url-selector 'URL:http://127.0.0.1:18080/\r\n'
