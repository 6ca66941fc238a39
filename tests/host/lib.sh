# tests/host/lib.sh - helpers for the host integration tests.
#
# Every test gets its own directory ($T) with a configuration, a control
# socket and a log, and its own pidvisor running as PID 1 of a fresh PID
# and mount namespace (unshare --kill-child: if the test dies, so does
# the namespace and every process in it).  Every wait has a deadline.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PV=$ROOT/build/asan/pidvisor
CTL=$ROOT/build/asan/pidvisorctl
H=${PV_HELPER:-$ROOT/build/test/svc-helper}
PIDGRAB=$ROOT/build/test/pidgrab
CTLRAW=$ROOT/build/test/ctlraw
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=print_stacktrace=1
# make memcheck: the daemon runs under valgrind (tests/host/memcheck.sh).
if [ -n "${PV_MEMCHECK:-}" ]; then
	PV=$ROOT/tests/host/memcheck.sh
fi

T=
UNSHARE_PID=
PV_PID=
BG_PIDS=

# bg PID: a process the test started in the background, killed when the
# test ends, passed or failed.
bg() {
	BG_PIDS="$BG_PIDS $1"
}

# scratch PATH: a path outside $T the test made, removed when it ends.
CLEAN_PATHS=
scratch() {
	CLEAN_PATHS="$CLEAN_PATHS $1"
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The test's directory, removed (with its namespace) when the test ends,
# or when the test makes a new one.
pv_dir() {
	if [ -n "$T" ]; then
		if [ -n "$UNSHARE_PID" ] && kill -0 "$UNSHARE_PID" 2>/dev/null; then
			kill -KILL "$UNSHARE_PID" 2>/dev/null
			wait "$UNSHARE_PID" 2>/dev/null
		fi
		UNSHARE_PID=
		rm -rf "$T"
	fi
	T=$(mktemp -d /tmp/pvtest.XXXXXX)
	mkdir -p "$T/conf/services"
	export PV_MEMCHECK_DIR=$T
	trap pv_cleanup EXIT
}

pv_cleanup() {
	local rc=$? p
	# What the test started outside the namespace (a FUSE server, an
	# attacker): it goes first, so that nothing stays held by it.
	for p in $BG_PIDS; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	BG_PIDS=
	for p in $CLEAN_PATHS; do
		rm -rf "$p"
	done
	CLEAN_PATHS=
	if [ -n "$UNSHARE_PID" ] && kill -0 "$UNSHARE_PID" 2>/dev/null; then
		kill -KILL "$UNSHARE_PID" 2>/dev/null
		wait "$UNSHARE_PID" 2>/dev/null
	fi
	# Every run of the daemon under memcheck, whether or not it was
	# stopped by pv_down: an error or a leak fails the test.
	if [ -n "$T" ] && [ -n "${PV_MEMCHECK:-}" ] &&
	    grep -qs VGERR-BEGIN "$T"/memcheck.*; then
		cat "$T"/memcheck.* >&2
		echo "FAIL: memcheck reported errors or leaks" >&2
		rc=1
	fi
	[ -n "$T" ] && rm -rf "$T"
	exit $rc
}

# svc NAME: the [service] body comes from stdin.
svc() {
	{ echo "[service]"; cat; } >"$T/conf/services/$1.ini"
}

# pidvisor.ini: the [supervisor] body comes from stdin.
sup_ini() {
	{ echo "[supervisor]"; cat; } >"$T/conf/pidvisor.ini"
}

ctl() {
	"$CTL" -s "$T/ctl.sock" "$@"
}

# wait_until MS CMD...: run CMD every 50 ms until it succeeds, for at
# most MS ms; fails after that.  For what no event tells (a line in a
# log, a count in /proc); where pidvisor tells, `ctl wait` waits.
wait_until() {
	local deadline=$((${EPOCHREALTIME/./} / 1000 + $1))
	shift
	until "$@"; do
		((${EPOCHREALTIME/./} / 1000 < deadline)) || return 1
		sleep 0.05
	done
}

# Does pidvisor answer?  It must not have exited meanwhile.
pv_answers() {
	ctl version >/dev/null 2>&1 && return 0
	kill -0 "$UNSHARE_PID" 2>/dev/null ||
	    fail "pidvisor exited: $(cat "$T/log")"
	return 1
}

# Start pidvisor as PID 1 of a new PID namespace; wait for its socket.
# On a host with cgroup v2 at /sys/fs/cgroup, services get no cgroups:
# tests never write into the host's cgroup tree.
pv_up() {
	if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
		[ -f "$T/conf/pidvisor.ini" ] || echo "[supervisor]" \
		    >"$T/conf/pidvisor.ini"
		echo "cgroup_root = none" >>"$T/conf/pidvisor.ini"
	fi
	# PV_BINDS: "SRC:DST ...", bound in its mount namespace (private:
	# the host sees none), as /run and /var/lib for runtime_directory.
	local pre=()
	[ -z "${PV_BINDS:-}" ] || pre=(/bin/sh -c 'for b in $PV_BINDS; do
		mount --bind "${b%%:*}" "${b#*:}" || exit 1; done; exec "$@"' sh)
	# PV_OUT: where pidvisor's stdout goes, apart from its stderr.
	# PV_UNSHARE: more namespaces of its own (--ipc).
	if [ -n "${PV_OUT:-}" ]; then
		PV_BINDS=${PV_BINDS:-} unshare --pid --fork --mount-proc \
		    ${PV_UNSHARE:-} \
		    --kill-child "${pre[@]}" \
		    "$PV" -v -c "$T/conf" -s "$T/ctl.sock" "$@" \
		    >"$PV_OUT" 2>"$T/log" &
	else
		PV_BINDS=${PV_BINDS:-} unshare --pid --fork --mount-proc \
		    ${PV_UNSHARE:-} --kill-child "${pre[@]}" \
		    "$PV" -v -c "$T/conf" -s "$T/ctl.sock" "$@" >"$T/log" 2>&1 &
	fi
	UNSHARE_PID=$!
	wait_until 10000 pv_answers || fail "pidvisor did not answer in 10 s"
	PV_PID=$(cat /proc/"$UNSHARE_PID"/task/"$UNSHARE_PID"/children)
	PV_PID=${PV_PID%% *}
	[ -n "$PV_PID" ] || fail "no pidvisor process"
}

# Wait (on its pidfd) for a host process to exit, at most ms.
waitpid_ms() {
	"$H" waitpid="$1:$2"
}

# Stop pidvisor the PID-1 way (SIGTERM: stop all; the init of a PID
# namespace that is not the first is a container's, and exits) and check
# its log for sanitizer reports; at exit (or, with mode = system, just
# before reboot(2)) the sanitized and the memcheck builds check for leaks.
pv_down() {
	kill -TERM "$PV_PID" 2>/dev/null
	waitpid_ms "$UNSHARE_PID" 20000 ||
	    fail "pidvisor did not stop within 20 s"
	wait "$UNSHARE_PID" 2>/dev/null
	UNSHARE_PID=
	sanitizer_clean
	# The leak check at the end of PID 1 ran, and found nothing (under
	# memcheck it logs its counts; pv_cleanup reads the report too).
	if [ -n "${PV_MEMCHECK:-}" ] && ! grep -q \
	    "memcheck: 0 errors, 0 bytes lost, 0 possibly lost" "$T/log"; then
		cat "$T/log" "$T"/memcheck.* >&2
		fail "no clean memcheck leak check in the pidvisor log"
	fi
}

sanitizer_clean() {
	if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$T/log"; then
		cat "$T/log" >&2
		fail "sanitizer report in the pidvisor log"
	fi
}

# Run a command inside the test's PID and mount namespace.
ns() {
	nsenter -t "$PV_PID" -p -m -- "$@"
}

# field NAME KEY: a field of `status NAME --json`.
field() {
	ctl status "$1" --json | jq -r ".[0].$2"
}

# field_is NAME KEY VALUE: is it so now?  (For wait_until.)
field_is() {
	[ "$(field "$1" "$2")" = "$3" ]
}

expect_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"
}

expect_match() {
	[[ "$1" =~ $2 ]] || fail "${3:-value}: '$1' does not match /$2/"
}

# expect_rc CODE CMD...: run, expect that exit code; output in $OUT.
expect_rc() {
	local want=$1 rc
	shift
	OUT=$("$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] ||
	    fail "'$*' exited $rc, expected $want; output: $OUT"
}
