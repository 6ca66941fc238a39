#!/bin/bash
# tests/guest/kernel-matrix.sh - the kernel series' selftests, as TAP, on
# the kernels that tell whether they test anything:
#
#   patched           linux-source-6.1 + kernel/patches: every test passes
#   stock             without the series: upstream's tests pass, every
#                     case of 0002's and 0003's tests skips (they probe
#                     for their flags), every case of 0001's fails
#   reap-noop         kernel/broken/reap-noop.patch (the reap never
#                     happens): pidfd_reap_test fails where memory must
#                     come back, and nowhere else
#   thread-si-user    kernel/broken/thread-si-user.patch (the thread scope
#                     sends SI_USER): pidfd_pgrp_test fails in thread_scope
#
# Each kernel boots the same initramfs (the patched build's selftests)
# with pidvisor.only=selftests; the broken ones run only the test they
# break and the stock one all.  Prints the table of cases by kernel, then
# one TAP line per kernel.  Builds what is missing (kernel/build.sh: each
# variant is a few minutes the first time, seconds once cached).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/qemu
K=$top/build/kernel
n=0
nfail=0

tap() {	# tap OK NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - kernel: $2"
	else
		echo "not ok $n - kernel: $2"
		nfail=$((nfail + 1))
	fi
}

# Cheapest order: the broken ones differ from the patched tree by a .c
# file each; stock reverts headers that most of the kernel includes.
for v in "" "--broken reap-noop" "--broken thread-si-user" --stock; do
	# shellcheck disable=SC2086
	"$top/kernel/build.sh" $v >"$out/kernel-build.log" 2>&1 || {
		echo "not ok - kernel: kernel/build.sh $v failed"
		tail -20 "$out/kernel-build.log" | sed 's/^/# /'
		exit 0
	}
done
# The last build left the tree as stock; the patched image is cached,
# and make kernel puts the tree back when it has to build again.  The
# initramfs carries the patched build's selftests, as built now.
make -s -C "$top" build/qemu/initramfs-test.cpio.gz >/dev/null 2>&1 || {
	echo "not ok - kernel: the test initramfs did not build"
	exit 0
}

declare -A R	# R[kernel,test] and R[kernel,test.case]: ok, FAIL, skip
boot() {	# boot KERNEL IMAGE ONLY
	local k=$1 t='' run='' line name res
	"$top/tests/guest/run.sh" --kernel "$2" --only "$3" >"$out/matrix-$k.tap" 2>&1
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"ok "*" - selftest "*|"not ok "*" - selftest "*)
			t=${line#*selftest }
			t=${t%% *}
			run=
			res=ok
			case $line in
			"not ok"*) res=FAIL ;;
			*"# SKIP"*) res=skip ;;
			esac
			R[$k,$t]=$res
			;;
		"#"*"#  RUN "*)
			run=$(sed -E 's/.*#  RUN +([^ ]+).*/\1/' <<<"$line")
			;;
		"#"*"ok "[0-9]*)
			# a case of the test just reported (kselftest TAP); a
			# skipped one has no name there, but its RUN line
			name=$(sed -E 's/^#[[:space:]]*(not )?ok [0-9]+ ([^ ]+).*/\2/' <<<"$line")
			[ "$name" = "#" ] && name=$run
			res=ok
			case $line in
			*"not ok "*) res=FAIL ;;
			*"# SKIP"*) res=skip ;;
			esac
			[ -n "$t" ] && R[$k,$t.$name]=$res
			;;
		esac
	done <"$out/matrix-$k.tap"
	grep -q '^# guest: [0-9]* tests' "$out/results-only.tap" ||
	    R[$k,boot]=FAIL
}
boot patched "$K/bzImage" selftests
boot stock "$K/bzImage-stock" selftests
boot reap-noop "$K/bzImage-broken-reap-noop" selftest:pidfd_reap_test
boot thread-si-user "$K/bzImage-broken-thread-si-user" \
    selftest:pidfd_pgrp_test

kernels=(patched stock reap-noop thread-si-user)
printf '# %-52s' "test / case"
printf ' %-15s' "${kernels[@]}"
echo
for key in $(printf '%s\n' "${!R[@]}" | cut -d, -f2- | sort -u); do
	[ "$key" = boot ] && continue
	printf '# %-52s' "$key"
	for k in "${kernels[@]}"; do printf ' %-15s' "${R[$k,$key]:--}"; done
	echo
done

# results KERNEL PATTERN: the results of the keys matching PATTERN
results() {
	local key
	for key in "${!R[@]}"; do
		[[ ${key#*,} =~ $2 ]] && [ "${key%%,*}" = "$1" ] &&
		    echo "${key#*,} ${R[$key]}"
	done
}
series='^(pidfd_reaped_test|pidfd_pgrp_test|pidfd_reap_test)\.'
upstream='^(pidfd_test|pidfd_fdinfo_test|pidfd_open_test|pidfd_poll_test|pidfd_wait|pidfd_getfd_test|pidfd_setns_test|mrelease_test)$'

# patched: all 11 ran, none failed, no case of ours skipped
ok=1
[ "$(results patched '^[a-z_]+$' | grep -c ' ok$')" = 11 ] && ok=0
results patched "$series" | grep -q ' \(FAIL\|skip\)$' && ok=1
[ -n "${R[patched,boot]:-}" ] && ok=1
tap $ok "patched: every selftest passes, no case of the series skips"

# stock: upstream's pass; every case of 0002's and 0003's tests skips
# (they probe for their flags), every case of 0001's fails (EPOLLHUP
# cannot be probed for without the behaviour it tests)
# same_cases T RESULT: stock has every case patched has of T, each RESULT
same_cases() {
	local n
	n=$(results patched "^$1\\." | wc -l)
	[ "$n" -gt 0 ] &&
	    [ "$(results stock "^$1\\." | grep -c " $2\$")" = "$n" ] &&
	    [ "$(results stock "^$1\\." | wc -l)" = "$n" ]
}
ok=1
[ "$(results stock "$upstream" | grep -c ' ok$')" = 8 ] &&
    same_cases pidfd_pgrp_test skip && same_cases pidfd_reap_test skip &&
    same_cases pidfd_reaped_test FAIL && ok=0
tap $ok "stock: upstream's pass; 0002's and 0003's skip, 0001's fail"

# reap-noop: the memory cases fail, the refusals still pass
ok=1
fails=$(results reap-noop '^pidfd_reap_test\.' | sed -n 's/ FAIL$//p' |
    sort | tr '\n' ' ')
for c in kill_and_reap concurrent_callers_one_victim \
    concurrent_callers_many_victims zombie_leader; do
	[[ $fails == *"pidfd_reap_test.reap.$c "* ]] || { ok=1; break; }
	ok=0
done
results reap-noop '^pidfd_reap_test\.reap\.(needs_sigkill|unknown_flags|clone_vm|vfork|not_yourself|permission_first|needs_cap)' |
    grep -q ' FAIL$' && ok=1
tap $ok "reap-noop: pidfd_reap_test fails where memory must come back ($fails)"

# thread-si-user: thread_scope fails
ok=1
[ "${R[thread-si-user,pidfd_pgrp_test.global.thread_scope]:-}" = FAIL ] &&
    [ "${R[thread-si-user,pidfd_pgrp_test]:-}" = FAIL ] && ok=0
tap $ok "thread-si-user: pidfd_pgrp_test fails in thread_scope"
exit 0
