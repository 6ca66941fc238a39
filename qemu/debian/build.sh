#!/bin/bash
# qemu/debian/build.sh OUT - a Debian 12 root file system image, stock
# packages from Debian's mirror (mmdebstrap), with pidvisor as /sbin/init
# and qemu/debian/pidvisor as /etc/pidvisor: Debian's daemons (ssh,
# rsyslog, cron, a getty, nginx, redis, PostgreSQL) run from the units
# their packages ship.  systemd is installed too, unchanged, as the
# other init (init=/lib/systemd/systemd), with what a Debian system
# booted by systemd has: udev (its Recommends; without it no device unit
# appears and the serial getty waits 90 s for ttyS0) and the address
# QEMU's network expects, from systemd-networkd (whose unit pidvisor
# runs too).
#
# The package tarball is cached in build/debian/ by its package list: a
# second run only rebuilds the image (seconds).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
dir=$top/build/debian
pkgs=openssh-server,rsyslog,cron,util-linux,e2fsprogs,iproute2,procps,systemd,systemd-sysv,libpam-systemd,udev,hostname,findutils,logrotate,man-db,nginx-light,redis-server,postgresql-15,curl,redis-tools
mkdir -p "$dir"
tar=$dir/rootfs-$(echo "$pkgs" | md5sum | cut -c1-12).tar
if [ ! -s "$tar" ]; then
	echo "debian: mmdebstrap bookworm minbase + $pkgs" >&2
	mmdebstrap --quiet --format=tar --variant=minbase --include="$pkgs" bookworm \
	    "$tar.tmp"
	mv "$tar.tmp" "$tar"
	# one package list at a time: the older tarballs go
	find "$dir" -maxdepth 1 -name 'rootfs-*.tar' ! -path "$tar" -delete
fi
root=$dir/root
rm -rf "$root"
mkdir -p "$root"
tar -xf "$tar" -C "$root"

# pidvisor, static, and its configuration; /sbin/init is pidvisor.
install -m 0755 "$top"/build/static/pidvisor "$top"/build/static/pidvisorctl \
    "$top"/build/static/pidvisor-notify "$root/usr/sbin/"
rm -rf "$root/etc/pidvisor"
cp -r "$top/qemu/debian/pidvisor" "$root/etc/pidvisor"
ln -sf /usr/sbin/pidvisor "$root/sbin/init"

# sshd's options from /etc/default/ssh, as Debian's ssh.service passes
# them ($SSHD_OPTS): one the Debian tier looks for on the listener.
sed -i 's/^SSHD_OPTS=.*/SSHD_OPTS="-o LoginGraceTime=77"/' "$root/etc/default/ssh"
grep -q '^SSHD_OPTS="-o LoginGraceTime=77"' "$root/etc/default/ssh"

# The machine: its name, its root file system, root's login by key.
echo pvdebian >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tpvdebian\n' >"$root/etc/hosts"
printf '/dev/vda\t/\text4\terrors=remount-ro\t0\t1\n' >"$root/etc/fstab"
[ -f "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C pidvisor-test \
    -f "$dir/id_ed25519"
# For systemd: the same address, from its own network daemon.
install -d "$root/etc/systemd/network"
# IPv4 alone: under TCG networkd 252 may see QEMU's router advertisement
# before its link-local address and fail the link ("DHCPv6 client: No
# medium found"), whichever init started it.
printf '[Match]\nType=ether\n\n[Network]\nAddress=10.0.2.15/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' \
    >"$root/etc/systemd/network/20-qemu.network"
ln -sf /lib/systemd/system/systemd-networkd.service \
    "$root/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
install -d "$root/etc/systemd/system/sockets.target.wants"
ln -sf /lib/systemd/system/systemd-networkd.socket \
    "$root/etc/systemd/system/sockets.target.wants/systemd-networkd.socket"
# What systemd's generators would make at each boot, made once here,
# for both inits: the remount of / read-write (systemd-fstab-generator,
# from /etc/fstab), a getty on the serial console
# (systemd-getty-generator, from console=ttyS0) and the PostgreSQL
# cluster the package made (postgresql-generator, from /etc/postgresql).
install -d "$root/etc/systemd/system/getty.target.wants" \
    "$root/etc/systemd/system/postgresql.service.wants" \
    "$root/etc/systemd/system/local-fs.target.wants"
ln -sf /lib/systemd/system/systemd-remount-fs.service \
    "$root/etc/systemd/system/local-fs.target.wants/systemd-remount-fs.service"
ln -sf /lib/systemd/system/serial-getty@.service \
    "$root/etc/systemd/system/getty.target.wants/serial-getty@ttyS0.service"
[ -d "$root/etc/postgresql/15/main" ]
ln -sf /lib/systemd/system/postgresql@.service \
    "$root/etc/systemd/system/postgresql.service.wants/postgresql@15-main.service"
# The restart benchmark's services, units for both inits: Type=exec
# waits for the exec, as pidvisor's start does; no start limit (its
# default, 5 starts in 10 s, refuses the bench's sixth restart; pidvisor
# counts only the restarts of its policy).
cat >"$root/etc/systemd/system/demo-hardened.service" <<'UNIT'
[Unit]
StartLimitIntervalSec=0
[Service]
Type=exec
ExecStart=/bin/sleep infinity
User=nobody
NoNewPrivileges=yes
CapabilityBoundingSet=
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
PrivateNetwork=yes
SystemCallFilter=@system-service
LimitCORE=0
[Install]
WantedBy=multi-user.target
UNIT
printf '[Unit]\nStartLimitIntervalSec=0\n[Service]\nType=exec\nExecStart=/bin/sleep infinity\nUser=nobody\n[Install]\nWantedBy=multi-user.target\n' \
    >"$root/etc/systemd/system/demo-plain.service"
for u in demo-hardened demo-plain; do
	ln -sf "/etc/systemd/system/$u.service" \
	    "$root/etc/systemd/system/multi-user.target.wants/$u.service"
done
# A cron job each minute: the Debian tier's proof that cron runs its
# jobs.
printf '* * * * * root date +\\%%s >/run/cron-ran\n' \
    >"$root/etc/cron.d/pidvisor-test"
install -d -m 0700 "$root/root/.ssh"
install -m 0600 "$dir/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
# Checked as it will run: in the image, its users, its programs.
chroot "$root" /usr/sbin/pidvisor --check -c /etc/pidvisor >&2

rm -f "$out"
mkfs.ext4 -q -F -L pvroot -d "$root" "$out" 2G
echo "debian: $out" >&2
