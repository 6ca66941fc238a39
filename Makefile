# pidvisor - one entry point.  `make help` lists the targets.

CC		?= gcc
CFLAGS		?= -O2 -g
WARN		 = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror
SAN		 = -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
B		 = build

DAEMON_SRC	 = main.c sup.c ctl.c pid1.c reload.c svclog.c cgroup.c \
		   pressure.c victim.c svc.c conf.c spawn.c notify.c proto.c \
		   util.c
CTL_SRC		 = pidvisorctl.c proto.c util.c
HDRS		 = $(wildcard supervisor/*.h)

# Debian packages: to build and test, and what the tests drive; the
# kernel, its build tools, busybox and QEMU for the guest.
DEPS_BUILD	 = gcc make libc6-dev libev-dev libinih-dev libcmocka-dev
DEPS_TEST	 = util-linux procps jq mandoc
DEPS_GUEST	 = linux-source-6.1 bc bison flex libelf-dev xz-utils patch \
		   busybox-static qemu-system-x86
DEPS		 = $(DEPS_BUILD) $(DEPS_TEST) $(DEPS_GUEST)

.PHONY: all deps test unit-test host-test guest-prereqs qemu-test run \
	kernel kernel-stock initramfs qemu-test-stock install uninstall \
	clean help

all: supervisor/pidvisor supervisor/pidvisorctl supervisor/pidvisor-notify

help:
	@echo "make            build supervisor/pidvisor, pidvisorctl, pidvisor-notify"
	@echo "make deps       install the Debian packages that are missing"
	@echo "make test       every test tier; ends with 'N passed, N failed'"
	@echo "make run        boot the patched kernel in QEMU, pidvisor as PID 1"
	@echo "make kernel     build/kernel/bzImage: linux-source-6.1 + kernel/patches"
	@echo "make qemu-test  the guest tier alone"
	@echo "make install    PREFIX=/usr/local DESTDIR=: binaries, manuals,"
	@echo "                an example configuration, bash completion"
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
$(B)/obj/%.o: supervisor/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -c $< -o $@

supervisor/pidvisor: $(DAEMON_SRC:%.c=$(B)/obj/%.o)
	$(CC) $(CFLAGS) -o $@ $^ -lev -linih

supervisor/pidvisor-notify: $(B)/obj/pidvisor-notify.o
	$(CC) $(CFLAGS) -o $@ $^

supervisor/pidvisorctl: $(CTL_SRC:%.c=$(B)/obj/%.o)
	$(CC) $(CFLAGS) -o $@ $^

# The same, with the sanitizers, for the tests.
$(B)/asan/%.o: supervisor/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN) -c $< -o $@

$(B)/asan/pidvisor: $(DAEMON_SRC:%.c=$(B)/asan/%.o)
	$(CC) $(SAN) -o $@ $^ -lev -linih

$(B)/asan/pidvisorctl: $(CTL_SRC:%.c=$(B)/asan/%.o)
	$(CC) $(SAN) -o $@ $^

# Unit tests: cmocka, against the sanitized objects.
UNIT		 = conf svc proto util svclog victim
UNIT_BIN	 = $(UNIT:%=$(B)/asan/test_%)

$(B)/asan/test_conf: tests/unit/test_conf.c $(B)/asan/conf.o $(B)/asan/util.o
$(B)/asan/test_svc: tests/unit/test_svc.c $(B)/asan/svc.o $(B)/asan/conf.o \
    $(B)/asan/util.o
$(B)/asan/test_proto: tests/unit/test_proto.c $(B)/asan/proto.o \
    $(B)/asan/notify.o $(B)/asan/util.o
$(B)/asan/test_util: tests/unit/test_util.c $(B)/asan/util.o
$(B)/asan/test_svclog: tests/unit/test_svclog.c $(B)/asan/svclog.o \
    $(B)/asan/util.o
$(B)/asan/test_victim: tests/unit/test_victim.c $(B)/asan/victim.o

$(UNIT_BIN):
	$(CC) $(WARN) -O1 -g $(SAN) -Isupervisor -o $@ $^ -lcmocka -linih -lev

# Helpers the host tests run as services or beside them.
HELPERS		 = $(B)/test/svc-helper $(B)/test/pidgrab $(B)/test/ctlraw
$(B)/test/%: tests/host/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $<

TEST_BINS	 = $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(UNIT_BIN) $(HELPERS)

test: deps
	@$(MAKE) --no-print-directory $(TEST_BINS) guest-prereqs
	@tests/run.sh

unit-test: $(UNIT_BIN)
	@tests/run.sh unit

host-test: $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(HELPERS)
	@tests/run.sh host

# The guest: kernel, static binaries, initramfs images, QEMU.
STATIC		 = $(B)/static/pidvisor $(B)/static/pidvisorctl \
		   $(B)/static/pidvisor-notify
$(B)/static/pidvisor: $(DAEMON_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^ -lev -linih -lm
$(B)/static/pidvisorctl: $(CTL_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^
$(B)/static/pidvisor-notify: $(B)/obj/pidvisor-notify.o
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^
$(B)/guest/svc-helper: tests/host/svc-helper.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -static -o $@ $<

kernel:
	@kernel/build.sh

kernel-stock:
	@kernel/build.sh --stock

GUEST_FILES	 = $(wildcard conf/*.ini conf/services/*.ini qemu/etc/* \
		   qemu/test/*.sh qemu/test/conf/*.ini qemu/test/conf/services/*.ini) \
		   qemu/mkinitramfs.sh

$(B)/qemu/initramfs.cpio.gz: $(STATIC) $(GUEST_FILES) $(B)/kernel/bzImage
	@qemu/mkinitramfs.sh run $@

$(B)/qemu/initramfs-test.cpio.gz: $(STATIC) $(GUEST_FILES) $(B)/guest/svc-helper \
    $(B)/kernel/bzImage
	@rm -f $(B)/guest/pidfd_*
	@cp $(B)/kernel/selftests/* $(B)/guest/
	@qemu/mkinitramfs.sh test $@

initramfs: kernel
	@$(MAKE) --no-print-directory $(B)/qemu/initramfs.cpio.gz

guest-prereqs: kernel
	@$(MAKE) --no-print-directory $(B)/qemu/initramfs-test.cpio.gz

qemu-test: guest-prereqs
	@tests/run.sh guest

qemu-test-stock: guest-prereqs kernel-stock
	@qemu/test.sh --stock

run: deps initramfs
	@qemu/boot.sh

# Installation.
PREFIX		?= /usr/local
SBINDIR		 = $(DESTDIR)$(PREFIX)/sbin
BINDIR		 = $(DESTDIR)$(PREFIX)/bin
MANDIR		 = $(DESTDIR)$(PREFIX)/share/man
DOCDIR		 = $(DESTDIR)$(PREFIX)/share/doc/pidvisor
COMPDIR		 = $(DESTDIR)$(PREFIX)/share/bash-completion/completions

install: all
	install -d $(SBINDIR) $(BINDIR) $(MANDIR)/man5 $(MANDIR)/man8 \
	    $(DOCDIR)/examples/services $(COMPDIR)
	install -m 755 supervisor/pidvisor $(SBINDIR)/pidvisor
	install -m 755 supervisor/pidvisorctl supervisor/pidvisor-notify \
	    $(BINDIR)/
	install -m 644 man/pidvisor.8 man/pidvisorctl.8 $(MANDIR)/man8/
	install -m 644 man/pidvisor.ini.5 $(MANDIR)/man5/
	install -m 644 conf/pidvisor.ini $(DOCDIR)/examples/
	install -m 644 conf/services/*.ini $(DOCDIR)/examples/services/
	install -m 644 completion/pidvisorctl.bash $(COMPDIR)/pidvisorctl

uninstall:
	rm -f $(SBINDIR)/pidvisor $(BINDIR)/pidvisorctl \
	    $(BINDIR)/pidvisor-notify $(MANDIR)/man8/pidvisor.8 \
	    $(MANDIR)/man8/pidvisorctl.8 $(MANDIR)/man5/pidvisor.ini.5 \
	    $(COMPDIR)/pidvisorctl
	rm -rf $(DOCDIR)

clean:
	rm -rf $(B)/obj $(B)/asan $(B)/test $(B)/run $(B)/static $(B)/guest \
	    $(B)/qemu supervisor/pidvisor supervisor/pidvisorctl \
	    supervisor/pidvisor-notify
