#!/bin/bash
# tests/container/run.sh [TEST...] - pidvisor as the init of a container,
# run by Debian's runc (TAP).
#
# Each test builds an OCI bundle of its own: busybox-static, the static
# pidvisor, pidvisorctl and pidvisor-notify, and an /etc/pidvisor of test
# services, with runc's default configuration (`runc spec`: a read-only
# root, the default capabilities, which lack CAP_SYS_BOOT) changed only
# where the test says.  runc keeps its state in the test's directory; the
# container's cgroup is /pidvisor-test-ID, which `runc delete` removes.
# Every wait has a deadline; each test leaves nothing behind.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$here/../.." && pwd)

[ "$(id -u)" = 0 ] || { echo "not ok 1 - container tests need root"; exit 1; }
command -v runc >/dev/null || { echo "not ok 1 - runc is missing (make deps)"; exit 1; }

# ---- helpers, for each test's own shell ----------------------------------

# fail, wait_until, expect_eq and $H from the host tests; svc, sup_ini
# and ctl are redefined below for a bundle.
source "$ROOT/tests/host/lib.sh"
STATIC=$ROOT/build/static
ID=
RUN_PID=

R() {
	runc --root "$T/state" "$@"
}

cleanup() {
	local rc=$?
	if [ -n "$ID" ]; then
		R kill "$ID" KILL >/dev/null 2>&1
		[ -n "$RUN_PID" ] && "$H" waitpid="$RUN_PID:10000"
		R delete -f "$ID" >/dev/null 2>&1
	fi
	[ -n "$T" ] && rm -rf "$T"
	exit $rc
}

# bundle [JQ-FILTER]: a bundle in $T/b from runc's defaults; the filter
# changes config.json.  Services come from svc, after this.
bundle() {
	local r a
	T=$(mktemp -d /tmp/pvct.XXXXXX)
	ID=pvct-$$-${T##*.}
	trap cleanup EXIT
	r=$T/b/rootfs
	mkdir -p "$r"/{bin,etc/pidvisor/services,proc,sys,dev,run,tmp} "$T/state"
	# As in any image; runc gives a tmpfs the mode of the directory.
	chmod 1777 "$r/tmp"
	cp /bin/busybox "$r/bin/"
	for a in sh sleep cat ps kill echo grep ls id true touch test; do
		ln -s busybox "$r/bin/$a"
	done
	cp "$STATIC"/pidvisor "$STATIC"/pidvisorctl "$STATIC"/pidvisor-notify \
	    "$r/bin/"
	echo "root:x:0:0:root:/:/bin/sh" >"$r/etc/passwd"
	echo "root:x:0:" >"$r/etc/group"
	(cd "$T/b" && runc spec) || fail "runc spec"
	jq --arg id "$ID" '.process.terminal = false |
	    .process.args = ["/bin/pidvisor"] |
	    .linux.cgroupsPath = "/pidvisor-test-" + $id | '"${1:-.}" \
	    "$T/b/config.json" >"$T/config.json" || fail "jq: $1"
	mv "$T/config.json" "$T/b/config.json"
}

# svc NAME: /etc/pidvisor/services/NAME.ini, its [service] body on stdin.
svc() {
	{ echo "[service]"; cat; } >"$T/b/rootfs/etc/pidvisor/services/$1.ini"
}

sup_ini() {
	{ echo "[supervisor]"; cat; } >"$T/b/rootfs/etc/pidvisor/pidvisor.ini"
}

# Run the container in the foreground of a background job: its output
# (pidvisor's stdout and stderr) in $T/out, its exit status in $T/rc.
up() {
	(R run -b "$T/b" "$ID" </dev/null >"$T/out" 2>"$T/err"
	    echo $? >"$T/rc") &
	RUN_PID=$!
}

# ctl [--user U] ARGS...: pidvisorctl inside the container.
ctl() {
	local user=()
	if [ "$1" = --user ]; then
		user=(--user "$2")
		shift 2
	fi
	R exec "${user[@]}" "$ID" /bin/pidvisorctl "$@"
}

# ready [--user U] NAME...: pidvisor answers, and the services are
# ready; the container must not have exited meanwhile.
answers() {
	ctl "${user[@]}" wait "$1" ready --timeout=20s >/dev/null 2>&1 &&
	    return 0
	[ ! -e "$T/rc" ] ||
	    fail "the container exited $(cat "$T/rc"): $(cat "$T/err")"
	return 1
}

ready() {
	local user=() name
	if [ "$1" = --user ]; then
		user=(--user "$2")
		shift 2
	fi
	for name in "$@"; do
		wait_until 30000 answers "$name" ||
		    fail "$name not ready in 30 s: $(cat "$T/err" "$T/out")"
	done
}

# ended MS: the container exits within MS ms; its status in $STATUS and
# the time from now in $MS.
ended() {
	local t0=${EPOCHREALTIME/./}
	"$H" waitpid="$RUN_PID:$1" ||
	    fail "the container did not exit in $1 ms: $(cat "$T/err")"
	MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
	wait "$RUN_PID" 2>/dev/null
	RUN_PID=
	STATUS=$(cat "$T/rc")
	R delete "$ID" >/dev/null 2>&1
	ID=
}

# Lines of the log in this order.
in_order() {
	local prev=0 n l
	for l in "$@"; do
		n=$(grep -n -F -- "$l" "$T/err" | head -1 | cut -d: -f1)
		[ -n "$n" ] || fail "no '$l' in: $(cat "$T/err")"
		[ "$n" -gt "$prev" ] || fail "'$l' out of order in: $(cat "$T/err")"
		prev=$n
	done
}

no_warnings() {
	! grep -E "warning:|error:" "$T/err" ||
	    fail "pidvisor warned: $(cat "$T/err")"
}

# ---- the tests ------------------------------------------------------------

# runc kill TERM: every service stops in reverse dependency order, then
# pidvisor exits 0, well inside stop_timeout (10 s here).
t_runc_term() {
	bundle '.root.readonly = false'
	svc db <<-EOF
	exec = /bin/sleep 1000
	stop_timeout = 10s
	EOF
	svc web <<-EOF
	exec = /bin/sh -c "trap 'echo web got TERM; exit 0' TERM; while :; do sleep 1; done"
	requires = db
	stop_timeout = 10s
	EOF
	up
	ready db web
	R kill "$ID" TERM || fail "runc kill"
	ended 20000
	expect_eq "$STATUS" 0 "exit status"
	((MS < 10000)) || fail "took $MS ms, stop_timeout is 10 s"
	in_order "PID 1 of a container" "web: stopped" "db: stopped" \
	    "pidvisor: exit status 0"
	grep -q "web got TERM" "$T/out" || fail "web's line: $(cat "$T/out")"
	echo "# runc kill TERM -> exit $STATUS in $MS ms"
}

# An essential service exits 7: everything stops, the container exits 7.
t_runc_essential() {
	bundle
	svc other <<-EOF
	exec = /bin/sleep 1000
	EOF
	svc job <<-EOF
	exec = /bin/sh -c "until test -e /run/go; do sleep 0.05; done; exit 7"
	restart = never
	essential = yes
	EOF
	bundle_tmpfs /run
	up
	ready other job
	R exec "$ID" /bin/sh -c 'echo >/run/go' || fail "runc exec"
	ended 20000
	expect_eq "$STATUS" 7 "exit status"
	in_order "job: failed (exited with code 7)" "job is essential" \
	    "other: stopped" "pidvisor: exit status 7"
	echo "# essential service exits 7 -> container exits $STATUS"
}

# A tmpfs at path (the root stays read-only); runc gives it the mode of
# the directory it covers.
bundle_tmpfs() {
	jq --arg p "$1" '.mounts += [{destination: $p, type: "tmpfs",
	    source: "tmpfs", options: ["nosuid", "nodev"]}]' \
	    "$T/b/config.json" >"$T/config.json" && mv "$T/config.json" \
	    "$T/b/config.json" || fail "tmpfs $1"
}

# A daemon that double-forks leaves an orphan, which pidvisor (PID 1)
# inherits; when it dies it is reaped: no zombie.
t_runc_zombie() {
	bundle
	bundle_tmpfs /run
	svc daemon <<-EOF
	exec = /bin/sh -c "(sleep 1000 & echo \$! >/run/orphan); exit 0"
	restart = never
	kill_mode = process
	EOF
	up
	wait_until 30000 R exec "$ID" /bin/sh -c 'test -s /run/orphan' \
	    2>/dev/null || fail "no orphan: $(cat "$T/err")"
	local pid
	pid=$(R exec "$ID" /bin/cat /run/orphan)
	# Its parent is PID 1: it is an orphan, and ours.
	R exec "$ID" /bin/sh -c "grep -q '^PPid:[[:space:]]*1\$' \
	    /proc/$pid/status" || fail "$pid is not an orphan of PID 1"
	R exec "$ID" /bin/kill "$pid" || fail "kill $pid"
	wait_until 10000 R exec "$ID" /bin/sh -c "! test -e /proc/$pid" ||
	    fail "orphan $pid not reaped: $(R exec "$ID" /bin/ps -o pid,stat,comm)"
	R exec "$ID" /bin/sh -c "ps -o stat | grep -q '^Z'" &&
	    fail "a zombie is left: $(R exec "$ID" /bin/ps -o pid,stat,comm)"
	R kill "$ID" TERM
	ended 20000
	expect_eq "$STATUS" 0 "exit status"
	echo "# double-forked orphan $pid reaped; exit $STATUS"
}

# runc's default capabilities (no CAP_SYS_BOOT) and its read-only root,
# with a tmpfs at /run: no warning, the socket in /run/pidvisor, a clean
# stop.  Then with only /tmp writable: the socket goes to
# /tmp/pidvisor-0, where pidvisorctl finds it.
t_runc_readonly() {
	bundle
	bundle_tmpfs /run
	svc a <<-EOF
	exec = /bin/sleep 1000
	EOF
	up
	ready a
	local caps
	caps=$(R exec "$ID" /bin/grep CapEff /proc/1/status | cut -f2)
	(((0x$caps >> 22) & 1)) && fail "CAP_SYS_BOOT in $caps"
	R exec "$ID" /bin/sh -c 'touch /x 2>/dev/null' &&
	    fail "the root is writable"
	R exec "$ID" /bin/sh -c 'test -S /run/pidvisor/control.sock' ||
	    fail "no socket in /run/pidvisor"
	R kill "$ID" TERM
	ended 20000
	expect_eq "$STATUS" 0 "exit status"
	no_warnings
	echo "# read-only root, /run tmpfs, CapEff $caps: exit $STATUS"

	rm -rf "$T"
	bundle
	bundle_tmpfs /tmp
	svc a <<-EOF
	exec = /bin/sleep 1000
	EOF
	up
	ready a
	R exec "$ID" /bin/sh -c 'test -S /tmp/pidvisor-0/control.sock' ||
	    fail "no socket in /tmp/pidvisor-0: $(cat "$T/err")"
	R kill "$ID" TERM
	ended 20000
	expect_eq "$STATUS" 0 "exit status"
	no_warnings
}

# pidvisor as an arbitrary UID (OpenShift's, group 0) with no
# capabilities: that UID controls it through runc exec; another UID
# cannot even connect.
t_runc_nonroot() {
	local uid=1000650000
	bundle ".process.user = {uid: $uid, gid: 0} |
	    .process.capabilities = {bounding: [], effective: [],
	    permitted: [], inheritable: [], ambient: []}"
	bundle_tmpfs /tmp
	svc a <<-EOF
	exec = /bin/sleep 1000
	EOF
	up
	ready --user $uid:0 a
	R exec "$ID" /bin/sh -c \
	    "test -S /tmp/pidvisor-$uid/control.sock" || fail "no socket"
	local pid1 pid2
	pid1=$(ctl --user $uid:0 status a --json | jq -r '.[0].pid')
	ctl --user $uid:0 restart a --wait --timeout=20s ||
	    fail "restart as $uid"
	pid2=$(ctl --user $uid:0 status a --json | jq -r '.[0].pid')
	[ "$pid1" != "$pid2" ] || fail "a did not restart ($pid1)"
	ctl --user 4242:4242 -s /tmp/pidvisor-$uid/control.sock status \
	    >/dev/null 2>&1 && fail "uid 4242 reached uid $uid's pidvisor"
	R kill "$ID" TERM
	ended 20000
	expect_eq "$STATUS" 0 "exit status"
	no_warnings
	echo "# uid $uid: restart by itself ok, uid 4242 refused; exit $STATUS"
}

# status --json from runc exec: every service, and the exit code of the
# run-once jobs.
t_runc_status_json() {
	bundle
	bundle_tmpfs /run
	svc web <<-EOF
	exec = /bin/sleep 1000
	EOF
	svc migrate <<-EOF
	exec = /bin/sh -c "exit 0"
	restart = never
	EOF
	svc check <<-EOF
	exec = /bin/sh -c "exit 3"
	restart = never
	EOF
	up
	ready web
	wait_until 10000 sh -c "runc --root '$T/state' exec '$ID' \
	    /bin/pidvisorctl status check --json | jq -e '.[0].state == \"failed\"'" \
	    >/dev/null || fail "check did not fail"
	local j
	j=$(ctl status --json) || fail "status --json"
	jq -e 'length == 3' <<<"$j" >/dev/null || fail "not 3 services: $j"
	expect_eq "$(jq -r '.[] | select(.name == "web") | .state' <<<"$j")" \
	    ready "web"
	expect_eq "$(jq -r '.[] | select(.name == "migrate") |
	    "\(.state) \(.exit_code)"' <<<"$j")" "stopped 0" "migrate"
	expect_eq "$(jq -r '.[] | select(.name == "check") |
	    "\(.state) \(.exit_code) \(.exit_signal)"' <<<"$j")" \
	    "failed 3 null" "check"
	local text
	text=$(ctl status) || fail "status"
	grep -q "check .*exited with code 3" <<<"$text" ||
	    fail "text status: $text"
	# A service left failed: the stop says so with status 1.
	R kill "$ID" TERM
	ended 20000
	expect_eq "$STATUS" 1 "exit status with a failed service"
	echo "# status --json: $(jq -c '[.[] | {name, state, exit_code}]' <<<"$j")"
}

# The example image (container/) as the example Pod (container/pod.yaml,
# unchanged) under podman kube play: a random non-root UID, no
# capabilities, a read-only root.  podman keeps everything in the test's
# directory (its own storage, vfs).  pod stop -t 15 must end it with
# status 0, well inside web's stop_timeout (10 s); before pidvisor was a
# container's init it took the whole grace period and ended in 137.
t_podman_pod() {
	command -v podman >/dev/null || fail "podman is missing (make deps)"
	T=$(mktemp -d /tmp/pvct.XXXXXX)
	trap podman_cleanup EXIT
	mkdir -p "$T/tmp"
	# podman (cgroupfs) leaves libpod_parent in the host's cgroup tree:
	# if it was not there before, it goes after.
	CG_NEW=()
	for d in /sys/fs/cgroup/*/; do
		[ -e "$d/libpod_parent" ] || CG_NEW+=("$d/libpod_parent")
	done
	export CONTAINERS_CONF=$ROOT/container/containers.conf
	"$ROOT/container/stage.sh" "$T/ctx" || fail "stage"
	P build --network none -t localhost/pidvisor-example:latest \
	    "$T/ctx" >"$T/build.log" 2>&1 || fail "build: $(cat "$T/build.log")"
	P kube play --network none "$ROOT/container/pod.yaml" >"$T/play.log" \
	    2>&1 || fail "kube play: $(cat "$T/play.log")"
	POD=pidvisor-example
	local c=pidvisor-example-app j ms t0
	wait_until 30000 P exec "$c" /bin/pidvisorctl wait web ready \
	    --timeout=20s >/dev/null 2>&1 ||
	    fail "web not ready: $(P logs "$c" 2>&1)"
	expect_eq "$(P exec "$c" /bin/busybox id -u)" 1000650000 "uid"
	P exec "$c" /bin/busybox touch /x 2>/dev/null &&
	    fail "the root is writable"
	j=$(P exec "$c" /bin/pidvisorctl status --json) || fail "status"
	expect_eq "$(jq -r '[.[].state] | join(" ")' <<<"$j")" "ready ready" \
	    "states"
	# The readiness probe's question, and the metrics the annotations
	# point at, as a scraper in the pod's network would get them.
	P exec "$c" /bin/pidvisorctl is-ready || fail "is-ready"
	j=$(P exec "$c" /bin/busybox wget -q -O - \
	    http://127.0.0.1:9464/metrics) || fail "metrics: $j"
	grep -q '^pidvisor_service_state{service="web",state="ready"} 1$' \
	    <<<"$j" || fail "metrics: $j"
	t0=${EPOCHREALTIME/./}
	P pod stop -t 15 "$POD" >/dev/null 2>&1 || fail "pod stop"
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	expect_eq "$(P inspect --format '{{.State.ExitCode}}' "$c")" 0 \
	    "exit status"
	((ms < 10000)) || fail "pod stop took $ms ms"
	P logs "$c" 2>&1 | grep -q "exit status 0" ||
	    fail "logs: $(P logs "$c" 2>&1)"
	echo "# podman pod stop -t 15 -> exit 0 in $ms ms"
}

P() {
	podman --root "$T/root" --runroot "$T/runroot" --tmpdir "$T/tmp" \
	    --storage-driver vfs --events-backend none "$@"
}

podman_cleanup() {
	local rc=$? m
	if [ -n "${POD:-}" ]; then
		P pod rm -f -t 0 "$POD" >/dev/null 2>&1
	fi
	P rmi -a -f >/dev/null 2>&1
	# Nothing of the test's may stay mounted.
	while read -r m; do
		umount -l "$m" 2>/dev/null
	done < <(awk -v t="$T" 'index($2, t) == 1 { print $2 }' /proc/mounts |
	    sort -r)
	rm -rf "$T"
	for d in "${CG_NEW[@]}"; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + \
		    2>/dev/null
	done
	exit $rc
}

# ---- the runner -----------------------------------------------------------

if [ "${PV_CONTAINER_TEST_INNER:-}" = 1 ]; then
	return 0 2>/dev/null || exit 0
fi
tests=("$@")
[ ${#tests[@]} -eq 0 ] && mapfile -t tests < <(grep -o '^t_[a-z0-9_]*' "$0")
echo "1..${#tests[@]}"
n=0
failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	log=$(mktemp)
	start=${EPOCHREALTIME/./}
	PV_CONTAINER_TEST_INNER=1 timeout -k 5 120 bash -c "
		source '$here/run.sh'
		set -o pipefail
		$t
	" >"$log" 2>&1
	rc=$?
	ms=$(((${EPOCHREALTIME/./} - start) / 1000))
	if [ $rc -eq 0 ]; then
		echo "ok $n - $t (${ms} ms)"
		grep '^# ' "$log"
	else
		failed=$((failed + 1))
		echo "not ok $n - $t (exit $rc, ${ms} ms)"
		sed 's/^/# /' "$log"
	fi
	rm -f "$log"
done
[ $failed -eq 0 ]
