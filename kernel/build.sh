#!/bin/bash
# kernel/build.sh [--stock | --broken NAME | --series DIR] - build the
# guest kernel.
#
# Unpacks Debian's linux-source-6.1 into build/ (once per package
# version), applies kernel/patches/*.patch (not with --stock), configures
# tinyconfig + kernel/config/pidvisor.config, and builds bzImage into
# build/kernel/.  The image is cached under a hash of the package version,
# the fragment, the series and this script: a second run takes seconds.
# The same tree serves every variant; switching rebuilds only what the
# series touches (and what includes it).
#
# --broken NAME adds kernel/broken/NAME.patch, a deliberate bug that the
# selftests must catch, and builds bzImage-broken-NAME (the selftests
# are the patched build's).  --series DIR applies DIR/*.patch instead of
# kernel/patches (bzImage-series-DIRNAME): an earlier version of the
# series, to run today's selftests on it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tarball=/usr/src/linux-source-6.1.tar.xz
tree=$top/build/linux-source-6.1
out=$top/build/kernel
fragment=$top/kernel/config/pidvisor.config
stock=0
variant=
pdir=$top/kernel/patches
extra=()
case ${1:-} in
--stock) stock=1; variant=-stock ;;
--broken)
	[ -f "$top/kernel/broken/$2.patch" ] ||
	    { echo "kernel: no kernel/broken/$2.patch" >&2; exit 2; }
	extra=("$top/kernel/broken/$2.patch")
	variant=-broken-$2 ;;
--series)
	pdir=$(cd "$2" && pwd)
	variant=-series-$(basename "$pdir") ;;
"") ;;
*) echo "usage: kernel/build.sh [--stock | --broken NAME | --series DIR]" >&2
   exit 2 ;;
esac
mapfile -t series < <(ls "$pdir"/*.patch 2>/dev/null | sort)
series+=("${extra[@]}")
[ $stock = 1 ] && series=()

version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$({ echo "$version stock=$stock"; cat "$fragment" "$0";
    for p in "${series[@]}"; do cat "$p"; done; } | sha256sum | cut -c1-16)
image=$out/bzImage$variant
if [ -f "$image" ] && [ "$(cat "$image.key" 2>/dev/null)" = "$key" ]; then
	echo "kernel: $image is up to date"
	exit 0
fi
mkdir -p "$out"

if [ "$(cat "$tree/.pidvisor-version" 2>/dev/null)" != "$version" ]; then
	echo "kernel: unpacking linux-source $version"
	rm -rf "$tree"
	tar -C "$top/build" -xJf "$tarball"
	echo "$version" >"$tree/.pidvisor-version"
fi
cd "$tree"

# Put this series in the tree, touching only the files whose content
# changes, so that switching variants rebuilds what differs and no more.
# .pidvisor-orig/tree keeps the pristine copy of every file a series has
# ever touched; .pidvisor-orig/files lists those the tree has now as a
# series left them (those it created included).  The series is applied
# to pristine copies in a scratch directory, and the result synced in.
orig=$tree/.pidvisor-orig
mkdir -p "$orig/tree"
touch "$orig/files" "$orig/created"
want=$(cat "${series[@]}" /dev/null | sed -n 's|^+++ b/||p' | sort -u)
while read -r f; do
	[ -n "$f" ] || continue
	# First touched: the tree's copy is still the pristine one.
	if ! grep -qxF "$f" "$orig/files" "$orig/created" &&
	    [ ! -f "$orig/tree/$f" ]; then
		if [ -f "$f" ]; then
			mkdir -p "$orig/tree/$(dirname "$f")"
			cp -p "$f" "$orig/tree/$f"
		else
			echo "$f" >>"$orig/created"
		fi
	fi
done <<<"$want"
stage=$(mktemp -d "$top/build/.kstage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp -a "$orig/tree/." "$stage/"
for p in "${series[@]}"; do
	echo "kernel: applying $(basename "$p")"
	patch -d "$stage" -p1 --batch --forward --quiet <"$p"
done
# Every file a series may have touched: as the stage has it, or gone.
sort -u "$orig/files" - <<<"$want" | while read -r f; do
	[ -n "$f" ] || continue
	if [ -f "$stage/$f" ]; then
		if ! cmp -s "$stage/$f" "$f"; then
			mkdir -p "$(dirname "$f")"
			cp "$stage/$f" "$f"
		fi
	else
		rm -f "$f"	# created by a series, not by this one
	fi
done
grep -v '^$' <<<"$want" >"$orig/files" || true
rm -rf "$stage"
trap - EXIT

# Configure: tinyconfig plus our fragment; refuse options that did not stick.
make -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null
make -s olddefconfig >/dev/null
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qx "$line" .config ||
		    { echo "kernel: $line did not stick"; missing=1; }
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -q "^$opt=" .config &&
		    echo "kernel: warning: $opt is selected by something else"
		;;
	esac
done <"$fragment"
[ $missing = 0 ] || exit 1

echo "kernel: building bzImage with -j$(nproc)"
make -s -j"$(nproc)" bzImage
cp arch/x86/boot/bzImage "$image"

# The pidfd selftests of this tree (upstream's and the series'), static,
# for the guest; every other variant runs these.
if [ -z "$variant" ]; then
	make -s headers
	sdir=tools/testing/selftests/pidfd
	rm -rf "$out/selftests"
	mkdir -p "$out/selftests"
	for src in "$sdir"/*.c; do
		t=$(basename "$src" .c)
		gcc -static -O2 -g -pthread -Wall -isystem usr/include \
		    -I"$sdir" -o "$out/selftests/$t" "$src"
	done
	# upstream's process_mrelease() test, which the series must not break
	gcc -static -O2 -g -Wall -isystem usr/include -include sys/syscall.h \
	    -Itools/testing/selftests/vm -o "$out/selftests/mrelease_test" \
	    tools/testing/selftests/vm/mrelease_test.c
fi
echo "$key" >"$image.key"
echo "kernel: $image"
