# shellcheck shell=bash
# . docker/env.sh — the FETCH_* variables for the servers of
# docker/compose.yaml: the native harness's addresses (the same ports), with
# the content tree and Maildir at the bind mounts under docker/run/.
eval "$("$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)/../integration/containers.sh" env)"
