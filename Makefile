# pidvisor - one entry point.  `make help` lists the targets.

CC		?= gcc
CFLAGS		?= -O2 -g
# The tree: one directory of supervisor/ per layer (docs/HACKING.md);
# a source is named by its file alone, a header included by its name.
SRCDIRS		 = lib conf machine spawn service io core ctl pressure
vpath %.c $(SRCDIRS:%=supervisor/%)
vpath %.h $(SRCDIRS:%=supervisor/%)
# -iquote, not -I: our spawn.h must not shadow <spawn.h>.
INC		 = $(SRCDIRS:%=-iquote supervisor/%)
WARN		 = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror $(INC)
SAN		 = -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
B		 = build

DAEMON_SRC	 = main.c sup.c sup_ops.c ctl.c cmd.c pid1.c confreload.c svclog.c cgroup.c mrelease.c \
		   output.c notifysock.c service.c service_env.c service_kill.c service_save.c forking.c hook.c health.c mainpid.c reaper.c env.c rawpath.c pidmap.c status.c conf_key.c \
		   pressure.c pressure_report.c decide.c lmkd.c reclaim.c victim.c svc.c svc_event.c svc_hook.c svc_set.c svc_text.c svc_save.c conf.c ready.c restart.c conf_tmpl.c conf_parse.c conf_ids.c conf_harden.c conf_listen.c conf_pressure.c listen.c spawn.c spawn_child.c notifymsg.c proto.c reexec.c snapshot.c st.c state6.c tz.c calendar.c timefmt.c \
		   metrics.c httpd.c syslogmsg.c sandbox.c sandbox_child.c security.c sandbox_filter.c socks.c timer.c conf_timer.c timers.c unit.c conf_unit.c conf_unit_map.c conf_unit_sock.c conf_protect.c unit_install.c unitwatch.c cond.c conf_start.c rmtree.c \
		   util.c
CTL_SRC		 = pidvisorctl.c calshow.c proto.c calendar.c timefmt.c tz.c util.c
# Each object's headers, as the compiler saw them (-MMD -MP): touching
# a header rebuilds only what includes it.  No built-in rules: a rule
# to make a .d file from a .o by linking it is not one we want.
DEP		 = -MMD -MP
MAKEFLAGS	+= --no-builtin-rules
.SUFFIXES:
# What the daemon links: libev, inih, and for sandbox.c libseccomp, libcap.
LIBS		 = -lev -linih -lseccomp -lcap

# Debian packages: to build and test, and what the tests drive; the
# kernel, its build tools, busybox and QEMU for the guest.
DEPS_BUILD	 = gcc make libc6-dev libev-dev libinih-dev libcmocka-dev \
		   libseccomp-dev libcap-dev libsystemd-dev
DEPS_TEST	 = util-linux procps jq mandoc zsh fish runc tini podman catatonit \
		   prometheus curl iproute2 \
		   mmdebstrap e2fsprogs openssh-client socat wrk
DEPS_GUEST	 = linux-source-6.1 bc bison flex libelf-dev xz-utils patch \
		   busybox-static qemu-system-x86
DEPS		 = $(DEPS_BUILD) $(DEPS_TEST) $(DEPS_GUEST)

.PHONY: all deps check test unit-test host-test guest-prereqs qemu-test run debian debian-test debian-bench run-debian \
	kernel kernel-stock kernel-test initramfs qemu-test-stock install uninstall \
	bench bench-deps bench-bins bench-sockets bench-pressure bench-timers fuzz fuzz-deps fuzz-replay storm torture \
	attack-test container-test container \
	lint lint-deps memcheck clean help

COMPLETION	 = $(B)/completion/pidvisorctl.bash \
		   $(B)/completion/_pidvisorctl $(B)/completion/pidvisorctl.fish

BIN		 = $(B)/bin/pidvisor $(B)/bin/pidvisorctl $(B)/bin/pidvisor-notify

all: $(BIN) $(COMPLETION)

# Completion for bash, zsh and fish, written from the verb table.
$(B)/completion/gen: completion/gen.c $(B)/obj/proto.o $(B)/obj/util.o
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -o $@ $^

$(B)/completion/pidvisorctl.bash: $(B)/completion/gen
	$< bash > $@
$(B)/completion/_pidvisorctl: $(B)/completion/gen
	$< zsh > $@
$(B)/completion/pidvisorctl.fish: $(B)/completion/gen
	$< fish > $@

help:
	@echo "make            build build/bin/pidvisor, pidvisorctl, pidvisor-notify"
	@echo "make deps       install the Debian packages that are missing"
	@echo "make check      the quick loop: unit, fuzz replay, host and attack"
	@echo "                tiers; no kernel, no image (a few minutes)"
	@echo "make test       every test tier; ends with 'N passed, N failed'"
	@echo "make run        boot the patched kernel in QEMU, pidvisor as PID 1"
	@echo "make kernel     build/kernel/bzImage: linux-source-6.1 + kernel/patches"
	@echo "make qemu-test  the guest tier alone"
	@echo "make kernel-test  the kernel series' selftests: patched, stock, broken"
	@echo "make debian     build/debian/rootfs.img: stock Debian 12, pidvisor as init"
	@echo "make debian-test  the Debian tier alone: 3 boots, ssh, clean fs"
	@echo "make debian-bench  pidvisor vs systemd booting that image"
	@echo "make run-debian boot the Debian image (ssh on 127.0.0.1:2222)"
	@echo "make attack-test  the attacks of SECURITY.md on the sanitized daemon"
	@echo "make container-test  pidvisor as the init of runc and podman containers"
	@echo "make container  the example image (container/) with podman"
	@echo "make install    PREFIX=/usr/local DESTDIR=: binaries, manuals,"
	@echo "                an example configuration, bash, zsh and fish completion"
	@echo "make bench      pidvisor against the limit, runit, s6, daemontools"
	@echo "make bench-sockets  a server's clients across 100 restarts (wrk)"
	@echo "make bench-pressure low-memory killers, 7 scenarios, in the guest"
	@echo "make bench-timers   timers: 10,000 idle, and 1,000 due at once against cron"
	@echo "make fuzz       each libFuzzer target for FUZZ_SECONDS (60), or FUZZ_RUNS runs"
	@echo "make storm      1,000 services crash-looping for 60 s, twice"
	@echo "make torture    PID-reuse torture in the guest: 100,000 restarts"
	@echo "make lint       cppcheck and clang-tidy, clean"
	@echo "make memcheck   the host tests with pidvisor under valgrind"
	@echo "make clean      remove build outputs (not the kernel tree)"

# Install what is missing, in one apt transaction; quick when all is there.
deps:
	@missing=$$(for p in $(DEPS); do \
	    dpkg-query -W -f='$${db:Status-Status}\n' $$p 2>/dev/null | \
	    grep -qx installed || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    echo "installing:" $$missing; \
	    apt-get update -q || true; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	        --no-install-recommends $$missing; \
	fi

# The daemon and the client.
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) $(CFLAGS) -c $< -o $@

$(B)/bin/pidvisor: $(DAEMON_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(B)/bin/pidvisor-notify: $(B)/obj/pidvisor-notify.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^

$(B)/bin/pidvisorctl: $(CTL_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^

# The same, with the sanitizers, for the tests; PV_STRICT: a bug the
# code sees (a state move outside svc_moves) aborts; PV_FAKE_PRESSURE:
# the killer's level can come from a file (t_timer_defer).
$(B)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) -O1 -g $(SAN) -DPV_STRICT -DPV_FAKE_PRESSURE -c $< -o $@

# The daemon of the tests can fail an allocation on purpose.
$(B)/asan/ctl.o: ctl.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) -O1 -g $(SAN) -DPV_STRICT -DPV_FAULT -c $< -o $@

$(B)/asan/fault.o: tests/helpers/fault.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) -O1 -g $(SAN) -DPV_FAULT -c $< -o $@

FAULT_WRAP	 = $(foreach f,malloc calloc realloc strdup strndup,-Wl,--wrap=$(f))

$(B)/asan/pidvisor: $(DAEMON_SRC:%.c=$(B)/asan/%.o) $(B)/asan/fault.o
	$(CC) $(SAN) $(FAULT_WRAP) -o $@ $^ $(LIBS)

$(B)/asan/pidvisorctl: $(CTL_SRC:%.c=$(B)/asan/%.o)
	$(CC) $(SAN) -o $@ $^

# The daemon for valgrind's memcheck: no sanitizers; the pidfd calls
# valgrind lacks are made natively (sys.h); allocation failures can be
# injected as in the sanitized one.
$(B)/memcheck/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) -O1 -g -DPV_MEMCHECK -DPV_STRICT -DPV_FAULT \
	    -DPV_FAKE_PRESSURE -c $< -o $@

$(B)/memcheck/fault.o: tests/helpers/fault.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) -O1 -g -DPV_FAULT -c $< -o $@

$(B)/memcheck/pidvisor: $(DAEMON_SRC:%.c=$(B)/memcheck/%.o) \
    $(B)/memcheck/fault.o
	$(CC) $(FAULT_WRAP) -o $@ $^ $(LIBS)

# Unit tests: cmocka, against the sanitized objects, linked from one
# library of them (the linker takes what a test needs).
UNIT		 = conf svc proto util svclog decide parts ctl calendar unit cond
UNIT_BIN	 = $(UNIT:%=$(B)/asan/test_%)
LIB_SRC		 = $(filter-out main.c,$(DAEMON_SRC))
LIB		 = $(B)/asan/libpidvisor.a

$(LIB): $(LIB_SRC:%.c=$(B)/asan/%.o)
	rm -f $@
	ar rcs $@ $^

$(B)/asan/test_%: tests/unit/test_%.c $(LIB)
	$(CC) $(WARN) -O1 -g $(SAN) -o $@ $^ -lcmocka $(LIBS)

# ctl.o of the tests brackets each request for fault.c.
$(B)/asan/test_ctl: tests/unit/test_ctl.c $(LIB) $(B)/asan/fault.o
	$(CC) $(WARN) -O1 -g $(SAN) $(FAULT_WRAP) -o $@ $^ \
	    -lcmocka $(LIBS)

# Daemons a re-exec must refuse or survive (tests/host/test_reexec.sh):
# another state version, one that crashes while reading the state, one
# that holds while reading it (PIDVISOR_TEST_HOLD).
REEXEC_TEST	 = $(B)/test/pidvisor-vx $(B)/test/pidvisor-crash \
		   $(B)/test/pidvisor-hold $(B)/test/pidvisor-prev \
		   $(B)/test/pidvisor-field
REEXEC_FLAGS_vx	 = -DSTATE_VERSION=99 -DSTATE_NAMED=99 -DSTATE_OLDEST=99
REEXEC_FLAGS_crash = -DPV_TEST_RESTORE_CRASH
REEXEC_FLAGS_hold = -DPV_TEST_RESTORE_HOLD
$(B)/asan/reexec-%.o: reexec.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) -O1 -g $(SAN) $(REEXEC_FLAGS_$*) -c $< -o $@
$(B)/asan/snapshot-%.o: snapshot.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) -O1 -g $(SAN) $(REEXEC_FLAGS_$*) -c $< -o $@
.SECONDARY: $(foreach v,vx crash hold,$(B)/asan/reexec-$(v).o \
    $(B)/asan/snapshot-$(v).o)
$(B)/test/pidvisor-%: $(filter-out %/reexec.o %/snapshot.o,$(DAEMON_SRC:%.c=$(B)/asan/%.o)) \
    $(B)/asan/fault.o $(B)/asan/reexec-%.o $(B)/asan/snapshot-%.o
	@mkdir -p $(@D)
	$(CC) $(SAN) $(FAULT_WRAP) -o $@ $^ $(LIBS)

# The landed release before this one (its state is version 6, read in
# order), built from git; and a release one ahead of this one (its state
# a version on, a field added and one dropped): what t_reexec_releases
# takes over from and goes to and back.
PREV_RELEASE	 = ba4044a
$(B)/test/pidvisor-prev:
	@rm -rf $(B)/prev && mkdir -p $(B)/prev $(@D)
	git archive $(PREV_RELEASE) | tar -x -C $(B)/prev
	$(MAKE) --no-print-directory -C $(B)/prev build/bin/pidvisor
	cp $(B)/prev/build/bin/pidvisor $@
FIELD_FLAGS	 = -O1 -g -DPV_TEST_FIELD -DSTATE_VERSION=12
$(B)/field/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) $(FIELD_FLAGS) -c $< -o $@
$(B)/test/pidvisor-field: $(DAEMON_SRC:%.c=$(B)/field/%.o)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LIBS)

# Helpers the host tests run as services or beside them.
HELPERS		 = $(B)/test/svc-helper $(B)/test/pidgrab $(B)/test/ctlraw \
		   $(B)/test/noclone3 $(B)/test/fuse-hang $(B)/test/sdlisten \
		   $(B)/test/preload.so $(B)/test/chownswap.so
$(B)/test/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $<
# An attacker's /etc/ld.so.preload (t_sec_hook_userns_setuid).
$(B)/test/preload.so: tests/helpers/preload.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -shared -fPIC -o $@ $<
# A race's attacker in its window (t_sec_listen_chown).
$(B)/test/chownswap.so: tests/helpers/chownswap.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -shared -fPIC -o $@ $< -ldl
# A daemon as systemd's are written: Debian's libsystemd takes its fds.
$(B)/test/sdlisten: tests/helpers/sdlisten.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $< -lsystemd

# Fuzzing: libFuzzer targets (clang) for make fuzz; the same targets with
# a plain driver (gcc, sanitized) replay the seeds and the saved crashes
# in make test.
FUZZ		 = service tree request reply notify notifymsg argv envfile \
		   template http machine calendar unit
# What the parsers of a service link, each once (the fuzz targets').
FUZZ_CONF	 = conf ready restart conf_tmpl conf_parse conf_ids conf_harden \
		   conf_listen conf_pressure conf_timer conf_start conf_protect \
		   cond unit conf_unit conf_unit_map conf_unit_sock calendar tz listen rawpath \
		   conf_key sandbox sandbox_filter security st util
FUZZ_SRC_service = $(FUZZ_CONF)
FUZZ_SRC_tree	 = $(FUZZ_CONF)
FUZZ_SRC_request = proto util
FUZZ_SRC_reply	 = proto util
FUZZ_SRC_notify	 = notifymsg
FUZZ_SRC_notifymsg = notifymsg
FUZZ_SRC_argv	 = util
FUZZ_SRC_envfile = env rawpath util
FUZZ_SRC_template = $(FUZZ_CONF)
FUZZ_SRC_http	 = httpd st util
FUZZ_SRC_machine = svc svc_event svc_hook svc_set svc_text svc_save $(FUZZ_SRC_tree)
FUZZ_SRC_calendar = calendar timefmt tz util
FUZZ_SRC_unit	 = unit util
FUZZ_SECONDS	?= 60
FUZZ_BIN	 = $(FUZZ:%=$(B)/fuzz/fuzz_%)
REPLAY_BIN	 = $(FUZZ:%=$(B)/asan/replay_%)
DEPS_FUZZ	 = clang libclang-rt-14-dev

.SECONDEXPANSION:
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c \
    $$(addsuffix .c,$$(FUZZ_SRC_$$*))
	@mkdir -p $(@D)
	clang -std=gnu11 -D_GNU_SOURCE -g -O1 -DPV_STRICT \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    $(INC) -Itests/fuzz \
	    -o $@ $^ $(LIBS)
$(B)/asan/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB)
	$(CC) $(WARN) -O1 -g $(SAN) -Itests/fuzz -o $@ $^ $(LIBS)

fuzz-deps: deps
	@$(MAKE) --no-print-directory deps DEPS="$(DEPS_FUZZ)"

# Each target for FUZZ_SECONDS; the growing corpus stays in build/, a
# crash is saved in tests/fuzz/corpus/TARGET/ to be replayed forever.
fuzz: fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@for t in $(FUZZ); do \
	    mkdir -p $(B)/fuzz/corpus/$$t tests/fuzz/corpus/$$t; \
	    echo "fuzz $$t: $(if $(FUZZ_RUNS),$(FUZZ_RUNS) runs,$(FUZZ_SECONDS) s)"; \
	    $(B)/fuzz/fuzz_$$t $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS)) \
	        -dict=tests/fuzz/dict/$$t.dict -print_final_stats=1 \
	        -artifact_prefix=tests/fuzz/corpus/$$t/ \
	        $(B)/fuzz/corpus/$$t tests/fuzz/seeds/$$t 2>&1 | \
	        grep -E "^stat::(number_of_executed_units|peak_rss)|cov:|ERROR|SUMMARY" | \
	        tail -4 || exit 1; \
	done

fuzz-replay: $(REPLAY_BIN)
	@tests/run.sh fuzz

TEST_BINS	 = $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(UNIT_BIN) $(HELPERS) \
		   $(REEXEC_TEST) \
		   $(REPLAY_BIN) $(STATIC) all

test: deps
	@$(MAKE) --no-print-directory $(TEST_BINS) guest-prereqs \
	    $(B)/debian/rootfs.img
	@tests/run.sh

# The quick loop, for every change: no apt, no kernel, no image.
check: $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(UNIT_BIN) $(HELPERS) \
    $(REEXEC_TEST) $(REPLAY_BIN) $(COMPLETION) all
	@tests/run.sh unit fuzz host attack

unit-test: $(UNIT_BIN)
	@tests/run.sh unit

host-test: $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(HELPERS) $(COMPLETION) all \
    $(REEXEC_TEST)
	@tests/run.sh host

attack-test: $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(HELPERS)
	@tests/run.sh attack

# The example image (container/): FROM scratch, pidvisor as its init,
# built with podman into its local storage; container/pod.yaml runs it.
CONTAINER_IMAGE	 = localhost/pidvisor-example:latest
container: deps
	@$(MAKE) --no-print-directory $(STATIC)
	container/stage.sh $(B)/container
	podman build --network none -t $(CONTAINER_IMAGE) $(B)/container

# pidvisor as the init of a container, under Debian's runc and podman.
container-test: deps
	@$(MAKE) --no-print-directory $(STATIC) $(B)/test/svc-helper
	@tests/run.sh container

# The host tests once more, with the daemon under valgrind's memcheck.
DEPS_MEMCHECK	 = valgrind
memcheck: deps
	@$(MAKE) --no-print-directory deps DEPS="$(DEPS_MEMCHECK)"
	@$(MAKE) --no-print-directory $(B)/memcheck/pidvisor \
	    $(B)/asan/pidvisorctl $(HELPERS)
	@PV_MEMCHECK=1 tests/run.sh host

# The guest: kernel, static binaries, initramfs images, QEMU.
STATIC		 = $(B)/static/pidvisor $(B)/static/pidvisorctl \
		   $(B)/static/pidvisor-notify
$(B)/static/pidvisor: $(DAEMON_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^ $(LIBS) -lm
$(B)/static/pidvisorctl: $(CTL_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^
$(B)/static/pidvisor-notify: $(B)/obj/pidvisor-notify.o
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^
$(B)/guest/svc-helper: tests/helpers/svc-helper.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -o $@ $<
$(B)/guest/torture: tests/helpers/torture.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -o $@ $<
$(B)/guest/noclone3: tests/helpers/noclone3.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -o $@ $<
$(B)/guest/fuse-hang: tests/helpers/fuse-hang.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -o $@ $<

# A pidvisor of another build (-O0, a version of its own), and one that
# crashes while reading the state: what the guest's t_reexec goes to.
OTHER_CFLAGS	 = -O0 -g -DPIDVISOR_VERSION='"0.1.0+other"'
$(B)/other/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) $(OTHER_CFLAGS) -c $< -o $@
$(B)/other/snapshot-crash.o: snapshot.c
	@mkdir -p $(@D)
	$(CC) $(DEP) $(WARN) $(OTHER_CFLAGS) -DPV_TEST_RESTORE_CRASH -c $< -o $@
$(B)/guest/pidvisor-other: $(DAEMON_SRC:%.c=$(B)/other/%.o)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^ $(LIBS) -lm
$(B)/guest/pidvisor-crash: $(filter-out %/snapshot.o,$(DAEMON_SRC:%.c=$(B)/other/%.o)) \
    $(B)/other/snapshot-crash.o
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^ $(LIBS) -lm

kernel:
	@kernel/build.sh

kernel-stock:
	@kernel/build.sh --stock

GUEST_FILES	 = $(wildcard conf/*.ini conf/services/*.ini qemu/etc/* \
		   tests/guest/in-guest.sh tests/guest/conf/*.ini \
		   tests/guest/conf/services/*.ini) \
		   qemu/mkinitramfs.sh

$(B)/qemu/initramfs.cpio.gz: $(STATIC) $(GUEST_FILES) $(B)/kernel/bzImage
	@qemu/mkinitramfs.sh run $@

$(B)/qemu/initramfs-test.cpio.gz: $(STATIC) $(GUEST_FILES) $(B)/guest/svc-helper \
    $(B)/guest/torture $(B)/guest/noclone3 $(B)/guest/fuse-hang \
    $(B)/guest/pidvisor-other $(B)/guest/pidvisor-crash \
    $(B)/kernel/bzImage
	@rm -f $(B)/guest/pidfd_*
	@cp $(B)/kernel/selftests/* $(B)/guest/
	@qemu/mkinitramfs.sh test $@

initramfs: kernel
	@$(MAKE) --no-print-directory $(B)/qemu/initramfs.cpio.gz

guest-prereqs: kernel
	@$(MAKE) --no-print-directory $(B)/qemu/initramfs-test.cpio.gz \
	    $(BENCH_BINS)

qemu-test: guest-prereqs
	@tests/run.sh guest

qemu-test-stock: guest-prereqs kernel-stock
	@tests/guest/run.sh --stock

# The series' selftests on the patched, stock and broken kernels.
kernel-test: guest-prereqs
	@tests/run.sh kernel

run: deps initramfs
	@qemu/boot.sh

# A stock Debian 12 with pidvisor as init (qemu/debian/): the image, its
# test (two boots by pidvisor, one by systemd; part of make test), the
# head-to-head with systemd, and an interactive boot of it.
DEBIAN_FILES	 = qemu/debian/build.sh $(wildcard qemu/debian/pidvisor/*.ini \
		   qemu/debian/pidvisor/services/*.ini)

$(B)/debian/rootfs.img: $(STATIC) $(DEBIAN_FILES)
	@qemu/debian/build.sh $@

debian: deps
	@$(MAKE) --no-print-directory $(B)/debian/rootfs.img

debian-test: debian kernel
	@tests/run.sh debian

# pidvisor against systemd as the init of that image: boot timeline and
# power-off, median of 3 (6 measured boots, 2 warm-up; about 15 minutes),
# then 1,000 timers under each (up to 15 minutes each).
debian-bench: debian kernel $(B)/bench/bench-svc
	@qemu/debian/bench.sh 3

run-debian: debian kernel
	@qemu/debian/boot.sh

# Benchmarks: the limit, the harness, the service they all run; the
# peers from Debian (their supervisors only: never runit-init or
# daemontools-run, which would take over this machine's init).
DEPS_BENCH	 = runit s6 daemontools
BENCH_BINS	 = $(B)/bench/bench-svc $(B)/bench/limit $(B)/bench/harness \
		   $(B)/bench/bench-httpd \
		   $(B)/qemu/initramfs-bench.cpio.gz

$(B)/bench/bench-svc: bench/svc.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -o $@ $<
$(B)/bench/bench-httpd: bench/httpd.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $<
$(B)/bench/limit: bench/limit.c bench/bench.h $(B)/obj/spawn.o \
    $(B)/obj/spawn_child.o $(B)/obj/env.o \
    $(B)/obj/sandbox_child.o $(B)/obj/rawpath.o $(B)/obj/util.o
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $(filter-out %.h,$^)
$(B)/bench/harness: bench/harness.c bench/bench.h proto.h
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $<
$(B)/bench/reclaim: bench/reclaim.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -pthread -o $@ $<
$(B)/bench/hh: bench/hh.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -pthread -o $@ $<
$(B)/qemu/initramfs-bench.cpio.gz: $(STATIC) $(B)/bench/reclaim \
    $(B)/bench/hh $(B)/guest/svc-helper $(B)/guest/fuse-hang \
    $(wildcard qemu/bench/*.sh qemu/bench/conf/services/*.ini \
    qemu/bench/hh/*/*.ini qemu/bench/bp/*/*.ini) \
    qemu/mkinitramfs.sh $(B)/kernel/bzImage
	@qemu/mkinitramfs.sh bench $@

bench-deps: deps $(B)/earlyoom/usr/bin/earlyoom
	@$(MAKE) --no-print-directory deps DEPS="$(DEPS_BENCH)"

# Debian's earlyoom for the guest's head-to-head, unpacked, not installed:
# the package would start a killer on this machine.
$(B)/earlyoom/usr/bin/earlyoom:
	@mkdir -p $(B)/earlyoom
	cd $(B)/earlyoom && rm -f earlyoom_*.deb && \
	    (apt-get download earlyoom || \
	     (apt-get update -q && apt-get download earlyoom)) && \
	    dpkg-deb -x earlyoom_*.deb . && rm -f earlyoom_*.deb

# Debian's cron for bench/timers.sh, unpacked, not installed: the
# package would start a cron daemon on this machine.
$(B)/cron/usr/sbin/cron:
	@mkdir -p $(B)/cron
	cd $(B)/cron && rm -f cron_*.deb && \
	    (apt-get download cron || \
	     (apt-get update -q && apt-get download cron)) && \
	    dpkg-deb -x cron_*.deb . && rm -f cron_*.deb

# Timers: 10,000 armed and idle, and 1,000 due at once against cron.
bench-timers: deps
	bench/timers.sh

bench-bins: all kernel
	@$(MAKE) --no-print-directory $(BENCH_BINS)

bench: bench-deps
	@$(MAKE) --no-print-directory bench-bins
	@bench/run.sh

# Its last section alone: a server's clients across 100 restarts.
bench-sockets: deps
	@$(MAKE) --no-print-directory deps DEPS="$(DEPS_BENCH)"
	@$(MAKE) --no-print-directory $(B)/bench/bench-httpd all
	@bench/sockets.sh

# Low-memory killers in the guest, every scenario (qemu/bench-pressure.sh):
# BP_RUNS runs of BP_SECS each per contender and scenario.
BP_RUNS		?= 5
BP_SECS		?= 12
BP_CONTENDERS	?= kernel earlyoom earlyoom-m15s50 earlyoom-m20s100 \
		   earlyoom-prefer lmkd-thresholds lmkd-policy pidvisor-reap \
		   pidvisor-mrelease pidvisor-kill
bench-pressure: bench-deps
	@$(MAKE) --no-print-directory bench-bins
	@qemu/bench-pressure.sh $(BP_RUNS) $(BP_SECS) $(BP_CONTENDERS)

# Static analysis.  cppcheck gets a plain container_of (it misreads the
# typeof in ours); readdir() and fgetpwent() are fine single-threaded;
# an anonymous mmap() takes fd -1.  clang-tidy: the analyzer and the
# bugprone checks, less those that flag our idioms (sizeof(*p) of an
# array of pointers, !strcmp(), int * int widening) and clang 14's false
# valist.Uninitialized on every va_list.
DEPS_LINT	 = cppcheck clang-tidy
LINT_SRC	 = supervisor/*/*.c bench/*.c tests/helpers/*.c
TIDY_CHECKS	 = -*,clang-analyzer-*,bugprone-*,$\
		   -bugprone-easily-swappable-parameters,$\
		   -bugprone-reserved-identifier,-bugprone-narrowing-conversions,$\
		   -bugprone-implicit-widening-of-multiplication-result,$\
		   -bugprone-suspicious-string-compare,$\
		   -bugprone-sizeof-expression,$\
		   -clang-analyzer-valist.Uninitialized,$\
		   -clang-analyzer-security.insecureAPI.*

lint-deps: deps
	@$(MAKE) --no-print-directory deps DEPS="$(DEPS_LINT)"

# svc_save.c: cppcheck 2.10's preprocessor reads SVC_RELOADS(X) within
# SVC_STATE as a syntax error (gcc and clang do not); clang-tidy checks it.
lint: lint-deps
	cppcheck -q --error-exitcode=1 --inline-suppr --std=c11 \
	    --enable=warning,performance,portability --library=posix \
	    -D_GNU_SOURCE $(SRCDIRS:%=-Isupervisor/%) \
	    '-Dcontainer_of(p,t,m)=((t *)(void *)((char *)(p) - offsetof(t, m)))' \
	    --suppress=readdirCalled --suppress=fgetgrentCalled \
	    --suppress=fgetpwentCalled --suppress=invalidFunctionArg:bench/reclaim.c \
	    --suppress=invalidFunctionArg:tests/helpers/svc-helper.c \
	    --suppress=invalidFunctionArg:supervisor/pressure/reclaim.c \
	    --suppress=invalidFunctionArg:bench/hh.c \
	    --suppress=memleak:tests/helpers/svc-helper.c \
	    --suppress=syntaxError:supervisor/machine/svc_save.c $(LINT_SRC)
	clang-tidy -quiet --warnings-as-errors='*' -checks='$(TIDY_CHECKS)' \
	    supervisor/*/*.c -- -std=gnu11 -D_GNU_SOURCE $(INC)

# The PID-reuse torture in the guest, in full (make qemu-test runs a
# short one).
torture: guest-prereqs
	@tests/guest/torture.sh

# The crash storm, in full: 1,000 services for 60 s, crashing, then
# leaving orphans; the status p99 must stay under 10 ms.
storm: deps
	@$(MAKE) --no-print-directory all $(HELPERS) $(B)/bench/harness
	@tests/storm.sh --check-time crash 1000 60
	@tests/storm.sh --check-time orphans 1000 60

# Installation.
PREFIX		?= /usr/local
SBINDIR		 = $(DESTDIR)$(PREFIX)/sbin
BINDIR		 = $(DESTDIR)$(PREFIX)/bin
MANDIR		 = $(DESTDIR)$(PREFIX)/share/man
DOCDIR		 = $(DESTDIR)$(PREFIX)/share/doc/pidvisor
COMPDIR		 = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR		 = $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions
FISHDIR		 = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install: all
	install -d $(SBINDIR) $(BINDIR) $(MANDIR)/man5 $(MANDIR)/man8 \
	    $(DOCDIR)/examples/services $(COMPDIR) $(ZSHDIR) $(FISHDIR)
	install -m 755 $(B)/bin/pidvisor $(SBINDIR)/pidvisor
	install -m 755 $(B)/bin/pidvisorctl $(B)/bin/pidvisor-notify \
	    $(BINDIR)/
	install -m 644 man/pidvisor.8 man/pidvisorctl.8 $(MANDIR)/man8/
	install -m 644 man/pidvisor.ini.5 $(MANDIR)/man5/
	install -m 644 conf/pidvisor.ini $(DOCDIR)/examples/
	install -m 644 conf/services/*.ini $(DOCDIR)/examples/services/
	install -m 644 $(B)/completion/pidvisorctl.bash $(COMPDIR)/pidvisorctl
	install -m 644 $(B)/completion/_pidvisorctl $(ZSHDIR)/_pidvisorctl
	install -m 644 $(B)/completion/pidvisorctl.fish \
	    $(FISHDIR)/pidvisorctl.fish

uninstall:
	rm -f $(SBINDIR)/pidvisor $(BINDIR)/pidvisorctl \
	    $(BINDIR)/pidvisor-notify $(MANDIR)/man8/pidvisor.8 \
	    $(MANDIR)/man8/pidvisorctl.8 $(MANDIR)/man5/pidvisor.ini.5 \
	    $(COMPDIR)/pidvisorctl $(ZSHDIR)/_pidvisorctl \
	    $(FISHDIR)/pidvisorctl.fish
	rm -rf $(DOCDIR)

# Everything built, but the kernel tree, the kernel and the Debian
# image (minutes each to make again): make kernel and make debian check
# those are up to date themselves.
clean:
	find $(B) -mindepth 1 -maxdepth 1 ! -name linux-source-6.1 \
	    ! -name kernel ! -name debian -exec rm -rf {} + 2>/dev/null || :

$(B)/%.d: ;
# A source moved to another directory: a .d file that names its old path
# goes, with its object, which is made again (and its .d anew).
$(shell for d in $(B)/*/*.d; do [ -e "$$d" ] || continue; \
    read -r o s r <"$$d"; [ -e "$$s" ] || rm -f "$$d" "$${o%:}"; done)
-include $(wildcard $(B)/obj/*.d $(B)/asan/*.d $(B)/memcheck/*.d \
    $(B)/other/*.d $(B)/field/*.d)
