# pidvisor - one entry point.  `make help` lists the targets.

CC		?= gcc
CFLAGS		?= -O2 -g
WARN		 = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror
SAN		 = -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
B		 = build

DAEMON_SRC	 = main.c sup.c ctl.c pid1.c svc.c conf.c spawn.c notify.c \
		   proto.c util.c
CTL_SRC		 = pidvisorctl.c proto.c util.c
HDRS		 = $(wildcard supervisor/*.h)

# Debian packages: to build and test, and what the tests drive.
DEPS_BUILD	 = gcc make libc6-dev libev-dev libinih-dev libcmocka-dev
DEPS_TEST	 = util-linux procps jq
DEPS		 = $(DEPS_BUILD) $(DEPS_TEST)

.PHONY: all deps test unit-test host-test run clean help

all: supervisor/pidvisor supervisor/pidvisorctl supervisor/pidvisor-notify

help:
	@echo "make          build supervisor/pidvisor and supervisor/pidvisorctl"
	@echo "make deps     install the Debian packages that are missing"
	@echo "make test     every test tier, sanitized; ends with 'N passed, N failed'"
	@echo "make run      run pidvisor with the services in conf/ (Ctrl-C stops)"
	@echo "make clean    remove build outputs"

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
UNIT		 = conf svc proto util
UNIT_BIN	 = $(UNIT:%=$(B)/asan/test_%)

$(B)/asan/test_conf: tests/unit/test_conf.c $(B)/asan/conf.o $(B)/asan/util.o
$(B)/asan/test_svc: tests/unit/test_svc.c $(B)/asan/svc.o $(B)/asan/conf.o \
    $(B)/asan/util.o
$(B)/asan/test_proto: tests/unit/test_proto.c $(B)/asan/proto.o \
    $(B)/asan/notify.o $(B)/asan/util.o
$(B)/asan/test_util: tests/unit/test_util.c $(B)/asan/util.o

$(UNIT_BIN):
	$(CC) $(WARN) -O1 -g $(SAN) -Isupervisor -o $@ $^ -lcmocka -linih

# Helpers the host tests run as services or beside them.
HELPERS		 = $(B)/test/svc-helper $(B)/test/pidgrab $(B)/test/ctlraw
$(B)/test/%: tests/host/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $<

TEST_BINS	 = $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(UNIT_BIN) $(HELPERS)

test: deps
	@$(MAKE) --no-print-directory $(TEST_BINS)
	@tests/run.sh

unit-test: $(UNIT_BIN)
	@tests/run.sh unit

host-test: $(B)/asan/pidvisor $(B)/asan/pidvisorctl $(HELPERS)
	@tests/run.sh host

run: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(B)/run
	@echo "pidvisor with conf/; in another terminal:" \
	    "PIDVISOR_SOCKET=$(CURDIR)/$(B)/run/control.sock" \
	    "supervisor/pidvisorctl status"
	cd conf && PATH=$(CURDIR)/supervisor:$$PATH exec ../supervisor/pidvisor \
	    -c . -s $(CURDIR)/$(B)/run/control.sock

clean:
	rm -rf $(B)/obj $(B)/asan $(B)/test $(B)/run supervisor/pidvisor \
	    supervisor/pidvisorctl
