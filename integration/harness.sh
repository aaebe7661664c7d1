#!/usr/bin/env bash
# harness.sh — install, start, stop and describe the real servers that fetch's
# integration tests talk to.
#
#   integration/harness.sh install   apt-get the Debian packages that are missing
#   integration/harness.sh start     generate content, write configs, start servers
#   integration/harness.sh stop      stop them (also any left by an earlier run)
#   integration/harness.sh env       print `export NAME=value` lines for the tests
#   integration/harness.sh status    show which servers answer
#
# FETCH_SERVERS=nginx,vsftpd restricts the servers (default: all of them).
# FETCH_RUN_DIR (default /tmp/fetch-harness) holds configs, content, logs, pids.
#
# The ports are fixed, so two harness runs on one machine would stop each
# other's servers: install, start and stop take an exclusive lock
# (FETCH_LOCK, default /tmp/fetch-harness.lock) and wait for it. test.sh holds
# it for its whole run, so concurrent test.sh runs take turns.
#
# Each server lives in integration/servers/<name>.sh and defines:
#   <name>_packages   print the Debian packages it needs
#   <name>_install    optional: set-up after the packages are installed (as root)
#   <name>_start      write its config under $RUN_DIR/<name> and launch it
#   <name>_ready      return 0 once it answers its protocol greeting
#   <name>_stop       stop it, including one left by an earlier run
#   <name>_env        print its `export NAME=value` lines
# Adding a server is adding a file.
set -euo pipefail

HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$HARNESS_DIR")
TESTDATA=$REPO_DIR/testdata/harness
RUN_DIR=${FETCH_RUN_DIR:-/tmp/fetch-harness}
# FETCH_CONTENT_DIR may put the content tree elsewhere (Docker shares one
# tree between containers); FETCH_CONTENT_PREBUILT=1 serves it as it is.
CONTENT_DIR=${FETCH_CONTENT_DIR:-$RUN_DIR/content}
# Debian's interpreter: the python3 first on PATH may be another one without
# Debian's modules.
# shellcheck disable=SC2034 # used by servers/*.sh
PY=/usr/bin/python3
READY_TIMEOUT=${FETCH_READY_TIMEOUT:-60}
LOCK_FILE=${FETCH_LOCK:-/tmp/fetch-harness.lock}
export DEBIAN_FRONTEND=noninteractive

log() { printf 'harness: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# lock: take the harness lock on fd 9 (unless a parent, test.sh, holds it),
# waiting up to FETCH_LOCK_TIMEOUT seconds (default 1800).
lock() {
	[ -n "${FETCH_HARNESS_LOCKED:-}" ] && return 0
	exec 9>>"$LOCK_FILE"
	if ! flock -n 9; then
		log "waiting for another harness run to finish (lock $LOCK_FILE)"
		flock -w "${FETCH_LOCK_TIMEOUT:-1800}" 9 || die "gave up waiting for $LOCK_FILE"
	fi
	export FETCH_HARNESS_LOCKED=1
}

# ---------------------------------------------------------------- helpers used by servers/*.sh

# probe PORT SEND EXPECT [SECONDS]: connect to 127.0.0.1:PORT, send SEND
# (printf %b escapes; empty sends nothing), and succeed as soon as a line that
# comes back (CR removed) matches the extended regexp EXPECT, within SECONDS.
probe() {
	# shellcheck disable=SC2016 # the inner script expands its own arguments
	timeout "${4:-3}" bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		[ -n "$2" ] && printf "%b" "$2" >&3
		while IFS= read -r line <&3 || [ -n "$line" ]; do
			line=${line%$'"'"'\r'"'"'}
			[[ $line =~ $3 ]] && exit 0
			line=
		done
		exit 1
	' probe "$1" "$2" "$3" 2>/dev/null
}

# pids_on_port PORT: pids of processes listening on 127.0.0.1:PORT.
pids_on_port() {
	ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u
}

# kill_pids SIG PID...: signal the given pids (ignore ones already gone).
kill_pids() {
	local sig=$1
	shift
	local p
	for p in "$@"; do
		if [ -n "$p" ]; then kill "-$sig" "$p" 2>/dev/null || true; fi
	done
}

# stop_pidfile FILE: TERM the process group (or process) named in FILE.
stop_pidfile() {
	local f=$1 pid
	[ -f "$f" ] || return 0
	pid=$(cat "$f" 2>/dev/null || true)
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		# servers started by spawn() lead their own process group
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}

# free_port PORT: stop whatever still listens on PORT (a server left by an
# earlier run whose run directory is gone), waiting up to 5 s.
free_port() {
	local port=$1 i pids termed=
	for i in $(seq 1 50); do
		ss -Hltn "sport = :$port" 2>/dev/null | grep -q . || return 0
		pids=$(pids_on_port "$port")
		if [ -z "$pids" ]; then
			# a process exiting, or another user's or container's: not
			# ours to stop
			if [ "$i" -ge 20 ]; then
				log "port $port is in use by a process this harness cannot see"
				return 1
			fi
		elif [ -z "$termed" ]; then
			# shellcheck disable=SC2086
			kill_pids TERM $pids
			termed=1
		elif [ "$i" -ge 30 ]; then
			# shellcheck disable=SC2086
			kill_pids KILL $pids
		fi
		sleep 0.1
	done
	log "port $port is still in use: $(pids_on_port "$port" | tr '\n' ' ')"
	return 1
}

# spawn NAME CMD...: run CMD in the background in its own session (so stop can
# end it and its children together), logging to $RUN_DIR/NAME/NAME.log and
# recording its pid in $RUN_DIR/NAME/NAME.pid.
spawn() {
	local name=$1
	shift
	mkdir -p "$RUN_DIR/$name"
	# 9>&-: servers must not inherit (and so keep) the harness lock
	setsid "$@" </dev/null >>"$RUN_DIR/$name/$name.log" 2>&1 9>&- &
	echo $! >"$RUN_DIR/$name/$name.pid"
}

# render TEMPLATE OUT [KEY=VALUE...]: copy TEMPLATE to OUT replacing @RUN_DIR@,
# @CONTENT_DIR@, @TESTDATA@ and each @KEY@ by its value.
render() {
	local in=$1 out=$2 kv args=()
	shift 2
	args+=(-e "s|@RUN_DIR@|$RUN_DIR|g" -e "s|@CONTENT_DIR@|$CONTENT_DIR|g" -e "s|@TESTDATA@|$TESTDATA|g")
	for kv in "$@"; do
		args+=(-e "s|@${kv%%=*}@|${kv#*=}|g")
	done
	mkdir -p "$(dirname "$out")"
	sed "${args[@]}" "$in" >"$out"
}

# alive PID: the process exists and is not a zombie.
alive() {
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2>/dev/null
}

# wait_ready NAME: poll NAME_ready until it succeeds or READY_TIMEOUT passes.
wait_ready() {
	local name=$1 deadline
	deadline=$((SECONDS + READY_TIMEOUT))
	local pidfile=$RUN_DIR/$name/$name.pid why=
	while ! "${name}_ready"; do
		if [ -f "$pidfile" ] && ! alive "$(cat "$pidfile")"; then
			why="exited"
		elif [ "$SECONDS" -ge "$deadline" ]; then
			why="did not answer within ${READY_TIMEOUT}s"
		fi
		if [ -n "$why" ]; then
			log "$name $why; logs in $RUN_DIR/$name/:"
			tail -n 20 "$RUN_DIR/$name/"*.log >&2 2>/dev/null || true
			return 1
		fi
		sleep 0.2
	done
}

# ---------------------------------------------------------------- server selection

ALL_SERVERS=()
for f in "$HARNESS_DIR"/servers/*.sh; do
	# shellcheck source=/dev/null
	. "$f"
	ALL_SERVERS+=("$(basename "$f" .sh)")
done

# selected_servers: FETCH_SERVERS if set; else, for env/status, the servers
# the last start started; else all.
selected_servers() {
	local want=${FETCH_SERVERS:-} s found
	if [ -z "$want" ] && [ -n "${USE_STARTED:-}" ] && [ -f "$RUN_DIR/servers" ]; then
		want=$(cat "$RUN_DIR/servers")
	fi
	if [ -z "$want" ] || [ "$want" = all ]; then
		printf '%s\n' "${ALL_SERVERS[@]}"
		return
	fi
	for s in ${want//,/ }; do
		found=
		for a in "${ALL_SERVERS[@]}"; do
			[ "$a" = "$s" ] && found=1
		done
		[ -n "$found" ] || die "unknown server '$s' in FETCH_SERVERS (known: ${ALL_SERVERS[*]})"
		echo "$s"
	done
}

# ---------------------------------------------------------------- subcommands

cmd_install() {
	[ "$(id -u)" -eq 0 ] || die "install must run as root (it uses apt-get)"
	local s pkgs=() missing=() p
	for s in $(selected_servers); do
		# shellcheck disable=SC2207
		pkgs+=($("${s}_packages"))
	done
	pkgs+=(socat openssl iproute2 procps util-linux)
	for p in $(printf '%s\n' "${pkgs[@]}" | sort -u); do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
			missing+=("$p")
		fi
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		log "installing: ${missing[*]}"
		: >"${TMPDIR:-/tmp}/fetch-harness-apt.log"
		# Packages must not start their daemons on the system ports (no init
		# system here; in Docker there is none either): the usual policy-rc.d.
		local made_policy=
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
			chmod 755 /usr/sbin/policy-rc.d
			made_policy=1
		fi
		for s in $(selected_servers); do
			if declare -F "${s}_preseed" >/dev/null; then "${s}_preseed"; fi
		done
		if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
			log "no package lists yet: apt-get update"
			apt-get update -q >>"${TMPDIR:-/tmp}/fetch-harness-apt.log" 2>&1 || die "apt-get update failed"
		fi
		local rc=0
		apt-get install -y -q --no-install-recommends \
			-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
			"${missing[@]}" >>"${TMPDIR:-/tmp}/fetch-harness-apt.log" 2>&1 || rc=$?
		if [ "$rc" -ne 0 ]; then
			# some postinst scripts need a fix first (inn2); the server's
			# _install repairs and re-runs dpkg --configure
			log "apt-get returned $rc; the servers' install steps will try to finish configuration (log: ${TMPDIR:-/tmp}/fetch-harness-apt.log)"
		fi
		if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
	fi
	for s in $(selected_servers); do
		if declare -F "${s}_install" >/dev/null; then "${s}_install"; fi
	done
	for p in "${missing[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			die "package $p is not installed (see ${TMPDIR:-/tmp}/fetch-harness-apt.log)"
	done
	if dpkg --audit 2>/dev/null | grep -q .; then
		dpkg --audit >&2 || true
		die "some packages are not fully configured (see dpkg --audit)"
	fi
	log "install: done"
}

cmd_content() {
	mkdir -p "$RUN_DIR"
	chmod 755 "$RUN_DIR"
	if [ "${FETCH_CONTENT_PREBUILT:-}" = 1 ]; then
		[ -f "$CONTENT_DIR/SHA256SUMS" ] || die "FETCH_CONTENT_PREBUILT=1 but $CONTENT_DIR/SHA256SUMS is missing"
		return 0
	fi
	"$TESTDATA/gen-content.sh" "$CONTENT_DIR"
}

cmd_start() {
	local s failed=()
	mkdir -p "$RUN_DIR"
	chmod 755 "$RUN_DIR"
	# stop what the previous start started and what this one will start
	local previous=
	[ -f "$RUN_DIR/servers" ] && previous=$(cat "$RUN_DIR/servers")
	FETCH_SERVERS=$( { selected_servers; echo "${previous//,/$'\n'}"; } | grep . | sort -u | paste -sd, -) cmd_stop
	cmd_content
	selected_servers | paste -sd, - >"$RUN_DIR/servers"
	for s in $(selected_servers); do
		log "starting $s"
		if ! "${s}_start"; then
			log "$s failed to start"
			failed+=("$s")
		fi
	done
	for s in $(selected_servers); do
		case " ${failed[*]-} " in *" $s "*) continue ;; esac
		if wait_ready "$s"; then
			log "$s is ready"
		else
			failed+=("$s")
		fi
	done
	cmd_env >"$RUN_DIR/env.sh"
	if [ "${#failed[@]}" -gt 0 ]; then
		die "servers that failed: ${failed[*]}"
	fi
	log "all started; env in $RUN_DIR/env.sh"
}

cmd_stop() {
	local s
	for s in $(selected_servers); do
		"${s}_stop" || log "stopping $s reported an error"
	done
}

cmd_env() {
	local s
	echo "export FETCH_RUN_DIR=$RUN_DIR"
	echo "export FETCH_CONTENT_DIR=$CONTENT_DIR"
	echo "export FETCH_SERVERS=$(selected_servers | paste -sd, -)"
	for s in $(selected_servers); do
		"${s}_env"
	done
}

cmd_status() {
	local s rc=0
	for s in $(selected_servers); do
		if "${s}_ready"; then echo "$s: ready"; else echo "$s: down"; rc=1; fi
	done
	return $rc
}

case "${1:-}" in
install) lock && cmd_install ;;
start) lock && cmd_start ;;
stop) lock && cmd_stop ;;
env) USE_STARTED=1 cmd_env ;;
status) USE_STARTED=1 cmd_status ;;
content) lock && cmd_content ;;
*)
	echo "usage: $0 install|start|stop|env|status|content" >&2
	exit 2
	;;
esac
