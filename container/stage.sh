#!/bin/sh
# container/stage.sh DIR - the build context of the example image in DIR:
# the Containerfile, the static binaries (make them first), busybox-static
# and a root with /tmp (1777), /run and /var/www, and conf/ as
# /etc/pidvisor.  Used by `make container` and the container tests.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=$1
rm -rf "$dir"
mkdir -p "$dir/rootfs/tmp" "$dir/rootfs/run" "$dir/rootfs/var/www"
chmod 1777 "$dir/rootfs/tmp"
cp "$here/Containerfile" "$dir/"
cp -r "$here/conf" "$dir/conf"
cp "$here/www/index.html" "$dir/rootfs/var/www/"
cp /bin/busybox "$root/build/static/pidvisor" \
    "$root/build/static/pidvisorctl" "$root/build/static/pidvisor-notify" \
    "$dir/"
