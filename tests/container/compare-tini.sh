#!/bin/bash
# tests/container/compare-tini.sh - the container tier's cases with
# Debian's tini (tini-static) as the entrypoint instead of pidvisor, side
# by side: SIGTERM -> exit status and time, a program's exit code, an
# orphan reaped.  Prints a table; not a test (it measures tini).
set -u
PV_CONTAINER_TEST_INNER=1 source "$(dirname "$0")/run.sh"

row() {
	printf '| %-34s | %-22s | %-22s |\n' "$1" "$2" "$3"
}

term_case() {	# entrypoint args...; prints "exit S in MS ms"
	(
		bundle ".process.args = $(printf '%s\n' "$@" | jq -R . | jq -sc .)"
		bundle_tmpfs /run
		cp /usr/bin/tini-static "$T/b/rootfs/bin/tini"
		svc a <<-X
		exec = /bin/sleep 1000
		X
		up
		wait_until 20000 R exec "$ID" /bin/sh -c 'ps | grep -q "[s]leep 1000"' 2>/dev/null ||
		    fail "not up"
		R kill "$ID" TERM
		ended 20000
		echo "exit $STATUS in $MS ms"
	)
}

exit_case() {
	(
		bundle ".process.args = $(printf '%s\n' "$@" | jq -R . | jq -sc .)"
		cp /usr/bin/tini-static "$T/b/rootfs/bin/tini"
		svc job <<-X
		exec = /bin/sh -c "exit 7"
		restart = never
		essential = yes
		X
		up
		ended 20000
		echo "exit $STATUS"
	)
}

reap_case() {
	(
		bundle ".process.args = $(printf '%s\n' "$@" | jq -R . | jq -sc .)"
		bundle_tmpfs /run
		cp /usr/bin/tini-static "$T/b/rootfs/bin/tini"
		svc d <<-X
		exec = /bin/sh -c "(sleep 1000 & echo \$! >/run/orphan); exec sleep 999"
		kill_mode = process
		X
		up
		wait_until 20000 R exec "$ID" /bin/sh -c 'test -s /run/orphan' 2>/dev/null ||
		    fail "no orphan"
		pid=$(R exec "$ID" /bin/cat /run/orphan)
		R exec "$ID" /bin/kill "$pid"
		if wait_until 5000 R exec "$ID" /bin/sh -c "! test -e /proc/$pid"; then
			echo "reaped"
		else
			echo "zombie left"
		fi
		R kill "$ID" TERM
		ended 20000
	)
}

row case "tini (tini-static)" "pidvisor"
row "---" "---" "---"
row "runc kill TERM, the program dies of it" \
    "$(term_case /bin/tini -- /bin/sleep 1000)" "$(term_case /bin/pidvisor)"
row "runc kill TERM, sh traps it" \
    "$(term_case /bin/tini -- /bin/sh -c 'trap "exit 0" TERM; sleep 1000 & wait')" \
    "$(term_case /bin/pidvisor)"
row "the program exits 7" "$(exit_case /bin/tini -- /bin/sh -c 'exit 7')" \
    "$(exit_case /bin/pidvisor)"
row "double-forked orphan killed" \
    "$(reap_case /bin/tini -- /bin/sh -c '(sleep 1000 & echo $! >/run/orphan); exec sleep 999')" \
    "$(reap_case /bin/pidvisor)"
