#!/usr/bin/env bash
# containers.sh — run the integration servers of docker/compose.yaml, under a
# Docker engine when one answers, else under rootful podman (Debian's podman
# 4.3 with Debian's docker-compose 1.29 talking to podman's Docker API).
# integration/test.sh --docker drives it; by hand:
#
#   integration/containers.sh build    stage docker/build/ (host-built Go servers
#                                      included) and build the image
#   integration/containers.sh up       start the stack, wait until every server
#                                      is healthy (fails naming the ones that are not)
#   integration/containers.sh env      print `export NAME=value` lines for the tests
#   integration/containers.sh run CMD  run CMD where the servers are (in the
#                                      network namespace, if any)
#   integration/containers.sh check    every server container still runs and is healthy
#   integration/containers.sh down     stop and remove everything up started
#
# FETCH_NETNS=NAME puts the podman path's whole stack (podman's API service,
# so the containers' "host" network, and the commands of `run`) into a private
# network namespace of that name with only a loopback interface: the servers'
# fixed 127.0.0.1 ports then never meet a native harness run on the same
# machine. Without it the containers use the host's loopback, and the caller
# must hold the harness lock (test.sh does).
#
# The podman path needs root. When missing it installs, from Debian's
# packages: podman, docker-compose, runc, debootstrap; and it builds the base
# image debian:12 itself (no registry is reachable here) with
# `debootstrap --variant=minbase bookworm` from the mirror apt already uses,
# imported with `podman import`. Images stay in podman's store
# (/var/lib/containers) between runs, so only the first run pays for them.
set -euo pipefail

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOCKER_DIR=$REPO_DIR/docker
COMPOSE_FILE=$DOCKER_DIR/compose.yaml
PROJECT=fetch-harness
IMAGE=fetch-harness
# podman's configuration, API socket, service pid and logs (not the images)
STATE=${FETCH_CONTAINERS_STATE:-/var/lib/fetch-containers}
NETNS=${FETCH_NETNS:-}
HEALTH_TIMEOUT=${FETCH_HEALTH_TIMEOUT:-240}

# log lines carry the seconds since this command started
log() { printf 'containers: [%3ds] %s\n' "$SECONDS" "$*" >&2; }
die() {
	log "$*"
	exit 1
}

# ---------------------------------------------------------------- engine

# engine: "docker" when a Docker engine answers, else "podman".
engine() {
	if [ -n "${FETCH_ENGINE:-}" ]; then
		echo "$FETCH_ENGINE"
	elif command -v docker >/dev/null && timeout 20 docker info >/dev/null 2>&1; then
		echo docker
	else
		echo podman
	fi
}
ENGINE=$(engine)

# compose ARGS...: the compose command for this engine.
compose() {
	if [ "$ENGINE" = docker ]; then
		if docker compose version >/dev/null 2>&1; then
			docker compose -p "$PROJECT" -f "$COMPOSE_FILE" "$@"
		else
			docker-compose -p "$PROJECT" -f "$COMPOSE_FILE" "$@"
		fi
	else
		DOCKER_HOST=unix://$STATE/podman.sock COMPOSE_DOCKER_CLI_BUILD=0 \
			docker-compose -p "$PROJECT" -f "$COMPOSE_FILE" "$@"
	fi
}

# in_ns CMD...: run CMD in the network namespace, if there is one. nsenter
# rather than `ip netns exec`, which remounts /sys and so hides the cgroup
# mounts that runc needs.
in_ns() {
	if [ -n "$NETNS" ]; then
		nsenter --net="/run/netns/$NETNS" "$@"
	else
		"$@"
	fi
}

# podman's settings for this machine, in a file of our own (CONTAINERS_CONF)
# rather than the system's /etc/containers:
# - default_ulimits: none, the containers keep the limits they inherit.
#   podman's defaults (nofile 1048576) exceed the hard limits here, and this
#   sandbox refuses runc's setrlimit in the container even at the hard
#   limit, so any ulimit makes every container fail to start;
# - runc: crun refuses this host's hybrid cgroup hierarchy;
# - cgroupfs and file events: there is no systemd.
podman_conf() {
	mkdir -p "$STATE"
	cat >"$STATE/containers.conf" <<EOF
# written by integration/containers.sh
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
	export CONTAINERS_CONF=$STATE/containers.conf
	# keep HEALTHCHECK in built images (the OCI format has no such field)
	export BUILDAH_FORMAT=docker
}

# apt_mirror: the Debian mirror apt on this machine uses for bookworm (read
# from its sources, never stored in the repository).
apt_mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# the URIs of the stanza whose Suites name plain bookworm
		uri=$(awk '
			/^[[:space:]]*$/ { if (suite && uris != "") { print uris; exit } uris = ""; suite = 0; next }
			tolower($1) == "uris:" { uris = $2 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
			END { if (suite && uris != "") print uris }
		' "$f" | head -n 1)
		if [ -n "$uri" ]; then
			echo "$uri"
			return
		fi
	done
	uri=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
	[ -n "$uri" ] || die "no bookworm mirror in apt's sources"
	echo "$uri"
}

# setup: the podman path's packages and base image, when missing.
setup() {
	[ "$ENGINE" = podman ] || return 0
	[ "$(id -u)" -eq 0 ] || die "the podman path needs root (rootful podman, apt-get, ip netns)"
	local p missing=()
	for p in podman docker-compose runc debootstrap iproute2; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		log "installing ${missing[*]}"
		if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
			apt-get update -q >&2 || die "apt-get update failed"
		fi
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}" conmon containernetworking-plugins >&2 ||
			die "apt-get install ${missing[*]} failed"
	fi
	podman_conf
	if ! podman image exists localhost/debian:12; then
		base_image
	fi
}

# base_image: debian:12 from debootstrap, apt set up like this machine's (the
# same sources and Acquire options, so that image builds reach the same
# mirror), imported into podman's store.
base_image() {
	local mirror root
	mirror=$(apt_mirror)
	root=$(mktemp -d "${TMPDIR:-/var/tmp}/fetch-debian12.XXXXXX")
	log "building the base image debian:12 (debootstrap minbase bookworm; a few minutes)"
	if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$STATE/debootstrap.log" 2>&1; then
		tail -n 20 "$STATE/debootstrap.log" >&2
		rm -rf "$root"
		die "debootstrap failed (log: $STATE/debootstrap.log)"
	fi
	rm -f "$root/etc/apt/sources.list"
	cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
		echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
	grep -h '^Acquire::' /etc/apt/apt.conf.d/* >"$root/etc/apt/apt.conf.d/90fetch-host" 2>/dev/null || true
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
	tar -C "$root" -c . | podman import -q --change 'CMD ["/bin/bash"]' - localhost/debian:12 >/dev/null ||
		{
			rm -rf "$root"
			die "podman import failed"
		}
	rm -rf "$root"
	log "base image localhost/debian:12 imported"
}

# ---------------------------------------------------------------- build

# servers: the harness's server names (integration/servers/*.sh).
servers() {
	local f
	for f in "$REPO_DIR"/integration/servers/*.sh; do basename "$f" .sh; done
}

# stage: fill docker/build/, the image's build context: the harness, its
# servers and testdata, the Debian packages they need, and the harness's Go
# servers (every main package under integration/) built here by the repo's
# own Go, since Debian 12's Go is too old for this module.
stage() {
	local b=$DOCKER_DIR/build pkg name
	rm -rf "$b"
	mkdir -p "$b/src/integration" "$b/bin"
	cp -a "$REPO_DIR/integration/harness.sh" "$REPO_DIR/integration/servers" "$b/src/integration/"
	cp -a "$REPO_DIR/testdata" "$b/src/"
	cp -a "$DOCKER_DIR/Dockerfile" "$DOCKER_DIR/entrypoint.sh" "$DOCKER_DIR/go-prebuilt.sh" "$b/"
	echo "Go servers built on the host by integration/containers.sh" >"$b/bin/README"
	# the packages every server needs, sorted: the image's slow apt layer is
	# rebuilt only when this list changes
	# shellcheck disable=SC2016 # expanded by the inner shell
	bash -c '
		PY=/usr/bin/python3
		for f in "$1"/integration/servers/*.sh; do . "$f"; done
		for f in "$1"/integration/servers/*.sh; do s=$(basename "$f" .sh); "${s}_packages"; done
		echo socat openssl iproute2 procps util-linux
	' packages "$REPO_DIR" | tr ' ' '\n' | grep . | sort -u >"$b/packages"
	while read -r pkg; do
		[ -n "$pkg" ] || continue
		name=$(basename "$pkg")
		log "building $pkg on the host (go build -o docker/build/bin/$name)"
		(cd "$REPO_DIR" && CGO_ENABLED=0 go build -trimpath -o "$b/bin/$name" "$pkg") ||
			die "go build $pkg failed"
	done < <(
		cd "$REPO_DIR" || exit 1
		go list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./integration/... 2> >(grep -v 'matched no packages' >&2) | grep . || true
	)
}

build() {
	setup
	stage
	log "building image $IMAGE ($ENGINE, log $STATE/build.log)"
	if [ "$ENGINE" = podman ]; then
		# host network: the build's apt-get reaches the mirror as the host does
		nice podman build --network host --layers -t "localhost/$IMAGE:latest" \
			"$DOCKER_DIR/build" >"$STATE/build.log" 2>&1 || {
			tail -n 30 "$STATE/build.log" >&2
			die "image build failed (log: $STATE/build.log)"
		}
	else
		compose build >&2
	fi
	log "image built"
}

# ---------------------------------------------------------------- up / down

start_service() {
	mkdir -p "$STATE"
	if [ -n "$NETNS" ]; then
		if ip netns list | grep -qw "$NETNS"; then
			[ -z "$(ip netns pids "$NETNS")" ] || die "network namespace $NETNS is in use (ip netns pids $NETNS)"
		else
			ip netns add "$NETNS"
		fi
		in_ns ip link set lo up
		echo "$NETNS" >"$STATE/netns"
	fi
	rm -f "$STATE/podman.sock"
	# setsid and nsenter exec, so $! is the service itself; 9>&-: the
	# service must not keep the harness lock
	local cmd=(podman system service --time=0 "unix://$STATE/podman.sock")
	[ -z "$NETNS" ] || cmd=(nsenter --net="/run/netns/$NETNS" "${cmd[@]}")
	setsid "${cmd[@]}" </dev/null >"$STATE/service.log" 2>&1 9>&- &
	echo $! >"$STATE/service.pid"
	for _ in $(seq 1 100); do
		[ -S "$STATE/podman.sock" ] && return 0
		sleep 0.2
	done
	die "podman's API service did not start (log: $STATE/service.log)"
}

stop_service() {
	local pid
	if [ -f "$STATE/service.pid" ]; then
		pid=$(cat "$STATE/service.pid")
		if kill -0 "$pid" 2>/dev/null; then
			# it leads its own session: its group goes with it
			kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
			for _ in $(seq 1 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			if kill -0 "$pid" 2>/dev/null; then
				log "podman's API service (pid $pid) ignored TERM: killing it"
				kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
			fi
		fi
		rm -f "$STATE/service.pid" "$STATE/podman.sock"
	fi
	if [ -f "$STATE/netns" ]; then
		local ns left
		ns=$(cat "$STATE/netns")
		left=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
		[ -z "$left" ] || die "processes left in network namespace $ns: $left"
		ip netns del "$ns"
		rm -f "$STATE/netns"
	fi
}

# project_containers: names of this project's containers, running or not.
project_containers() {
	"$ENGINE" ps -a --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Names}}'
}

# healthy NAME: the container's health check passes now. Podman 4.3 runs
# health checks from systemd timers, and there is no systemd here: run it,
# from inside the namespace (a container on the "host" network has no
# namespace of its own, so the check's process gets the one podman runs in).
healthy() {
	if [ "$ENGINE" = podman ]; then
		in_ns podman healthcheck run "$1" >/dev/null 2>&1
	else
		[ "$(docker inspect -f '{{.State.Health.Status}}' "$1" 2>/dev/null)" = healthy ]
	fi
}

# show_logs CONTAINER...: the last lines of each one's log, on stderr.
show_logs() {
	local c
	for c in "$@"; do
		[ -n "$c" ] || continue
		log "--- $c: last lines of its log"
		"$ENGINE" logs --tail 30 "$c" >&2 2>&1 || true
	done
}

# statuses: "NAME STATUS" lines for this project's containers, from one call
# (each podman command costs seconds on a busy machine): STATUS is running,
# created, or exited:CODE.
statuses() {
	"$ENGINE" ps -a --filter "label=com.docker.compose.project=$PROJECT" \
		--format '{{.Names}} {{.Status}}' | awk '
		$2 == "Up" { print $1, "running"; next }
		$2 == "Exited" { code = $3; gsub(/[()]/, "", code); print $1, "exited:" code; next }
		{ print $1, tolower($2) }'
}

# healthy_all NAME...: the names among them whose health check passes now,
# checked in parallel, each tried up to TRIES times (default 1) a few
# seconds apart.
healthy_all() {
	local tmp c
	tmp=$(mktemp -d)
	for c in "$@"; do
		(
			for t in $(seq 1 "${TRIES:-1}"); do
				[ "$t" -eq 1 ] || sleep 3
				if healthy "$c"; then
					: >"$tmp/$c"
					exit 0
				fi
			done
		) &
	done
	wait
	ls "$tmp"
	rm -rf "$tmp"
}

# wait_healthy: every server container healthy within HEALTH_TIMEOUT seconds;
# a container that exits (or a content generator that fails) fails it at
# once, with its log.
wait_healthy() {
	local deadline=$((SECONDS + HEALTH_TIMEOUT)) c st pending bad running last_pending=
	local -A ok=()
	while :; do
		pending=()
		bad=()
		running=()
		while read -r c st; do
			case $c:$st in
			*content*:exited:0) ;;
			*content*:running | *content*:created | *content*:configured) pending+=("$c") ;;
			*:running) [ -n "${ok[$c]:-}" ] || running+=("$c") ;;
			*) bad+=("$c ($st)") ;;
			esac
		done < <(statuses)
		if [ "${#bad[@]}" -gt 0 ]; then
			show_logs "${bad[@]%% *}"
			die "servers that failed: ${bad[*]}"
		fi
		if [ "${#running[@]}" -gt 0 ]; then
			for c in $(healthy_all "${running[@]}"); do ok[$c]=1; done
			for c in "${running[@]}"; do
				[ -n "${ok[$c]:-}" ] || pending+=("$c")
			done
		fi
		[ "${#pending[@]}" -gt 0 ] || break
		if [ "$SECONDS" -ge "$deadline" ]; then
			show_logs "${pending[@]}"
			die "servers not healthy within ${HEALTH_TIMEOUT}s: ${pending[*]}"
		fi
		if [ "${pending[*]}" != "$last_pending" ]; then
			log "waiting for ${pending[*]}"
			last_pending=${pending[*]}
		fi
		sleep 2
	done
	log "all servers healthy"
}

up() {
	setup
	if [ -n "$(project_containers)" ] || [ -f "$STATE/service.pid" ]; then
		log "taking down what an earlier run left"
		down
	fi
	mkdir -p "$DOCKER_DIR/run/content" "$DOCKER_DIR/run/mail"
	# FETCH_SERVERS=a,b: those servers' services only (and the content)
	local svcs=()
	if [ -n "${FETCH_SERVERS:-}" ] && [ "$FETCH_SERVERS" != all ]; then
		read -ra svcs <<<"${FETCH_SERVERS//,/ }"
	fi
	if [ "$ENGINE" = podman ]; then
		start_service
		compose up -d --no-build "${svcs[@]}" >&2 || {
			# shellcheck disable=SC2046 # one name a line
			show_logs $(project_containers)
			die "compose up failed"
		}
		wait_healthy
	else
		[ -z "$NETNS" ] || die "FETCH_NETNS works on the podman path only (a Docker engine's containers live in its daemon's namespace)"
		compose up -d --no-build --wait "${svcs[@]}" >&2 || {
			# shellcheck disable=SC2046 # one name a line
			show_logs $(project_containers)
			die "compose up failed"
		}
		wait_healthy
	fi
}

# check: after the tests, every server still runs and answers (one that died
# during the run fails it even when the tests did not notice); a check is
# tried three times before it counts as failed.
check() {
	local c st running=() bad=()
	local -A ok=()
	while read -r c st; do
		case $c:$st in
		*content*:*) ;;
		*:running) running+=("$c") ;;
		*) bad+=("$c ($st)") ;;
		esac
	done < <(statuses)
	if [ "${#running[@]}" -gt 0 ]; then
		for c in $(TRIES=3 healthy_all "${running[@]}"); do ok[$c]=1; done
		for c in "${running[@]}"; do
			[ -n "${ok[$c]:-}" ] || bad+=("$c (unhealthy)")
		done
	fi
	if [ "${#bad[@]}" -gt 0 ]; then
		show_logs "${bad[@]%% *}"
		die "servers no longer healthy after the tests: ${bad[*]}"
	fi
	log "every server still healthy"
}

down() {
	if [ "$ENGINE" = podman ]; then
		podman_conf
		if [ -S "$STATE/podman.sock" ]; then
			compose down --remove-orphans -t 10 >&2 || true
		fi
		# whatever compose could not remove (a service that died with the socket)
		local c
		for c in $(project_containers); do podman rm -f -t 5 "$c" >/dev/null 2>&1 || true; done
		stop_service
	else
		compose down --remove-orphans -t 10 >&2
	fi
	[ -z "$(project_containers)" ] || die "containers left: $(project_containers | tr '\n' ' ')"
}

# env: the tests' variables, from the harness's own env lines with the
# content tree and Maildir at the bind mounts under docker/run/.
env_lines() {
	local list=${FETCH_SERVERS:-all}
	[ "$list" != all ] || list=$(servers | paste -sd, -)
	FETCH_SERVERS=$list FETCH_RUN_DIR=$STATE/run \
		FETCH_CONTENT_DIR=$DOCKER_DIR/run/content FETCH_MAILBOX=$DOCKER_DIR/run/mail \
		"$REPO_DIR/integration/harness.sh" env
}

[ "$ENGINE" != podman ] || podman_conf
case "${1:-}" in
setup) setup ;;
build) build ;;
up) up ;;
down) down ;;
check) check ;;
env) env_lines ;;
run)
	shift
	in_ns "$@"
	;;
engine) echo "$ENGINE" ;;
*)
	echo "usage: $0 setup|build|up|down|check|env|run CMD...|engine" >&2
	exit 2
	;;
esac
