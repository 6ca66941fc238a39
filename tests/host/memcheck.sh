#!/bin/sh
# tests/host/memcheck.sh ARG... - the memcheck build of pidvisor under
# valgrind, as `make memcheck` runs the host tests.  Its report goes to
# $PV_MEMCHECK_DIR/memcheck.PID; an error or a leak in it is marked with
# VGERR-BEGIN.  The services (after exec) and the children between clone
# and exec are not checked.
here=$(cd "$(dirname "$0")" && pwd)
exec valgrind -q --tool=memcheck --leak-check=full \
    --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible \
    --error-markers=VGERR-BEGIN,VGERR-END --child-silent-after-fork=yes \
    --log-file="${PV_MEMCHECK_DIR:-/tmp}/memcheck.%p" \
    "$here/../../build/memcheck/pidvisor" "$@"
