#!/bin/bash
# kernel/build.sh [--stock] - build the guest kernel.
#
# Unpacks Debian's linux-source-6.1 into build/ (once per package
# version), applies kernel/patches/*.patch (not with --stock), configures
# tinyconfig + kernel/config/pidvisor.config, and builds bzImage into
# build/kernel/.  The image is cached under a hash of the package version,
# the fragment, the series and this script: a second run takes seconds.
# The same tree serves both variants; switching rebuilds only the files
# the series touches.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tarball=/usr/src/linux-source-6.1.tar.xz
tree=$top/build/linux-source-6.1
out=$top/build/kernel
fragment=$top/kernel/config/pidvisor.config
stock=0
[ "${1:-}" = --stock ] && stock=1
mapfile -t series < <(ls "$top"/kernel/patches/*.patch 2>/dev/null | sort)
[ $stock = 1 ] && series=()

version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$({ echo "$version stock=$stock"; cat "$fragment" "$0";
    for p in "${series[@]}"; do cat "$p"; done; } | sha256sum | cut -c1-16)
image=$out/bzImage$([ $stock = 1 ] && echo -stock || true)
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

# Undo the series applied last time: restore the files it changed (with
# a new mtime, so that make rebuilds them), remove the files it created.
orig=$tree/.pidvisor-orig
if [ -f "$orig/files" ]; then
	while read -r f; do
		if [ -f "$orig/tree/$f" ]; then
			cmp -s "$orig/tree/$f" "$f" || cp "$orig/tree/$f" "$f"
		else
			rm -f "$f"
		fi
	done <"$orig/files"
	rm -rf "$orig"
fi

# Apply this series, keeping the originals of what it touches.
if [ ${#series[@]} -gt 0 ]; then
	mkdir -p "$orig/tree"
	cat "${series[@]}" | sed -n 's|^+++ b/||p' | sort -u >"$orig/files"
	while read -r f; do
		if [ -f "$f" ]; then
			mkdir -p "$orig/tree/$(dirname "$f")"
			cp -p "$f" "$orig/tree/$f"
		fi
	done <"$orig/files"
	for p in "${series[@]}"; do
		echo "kernel: applying $(basename "$p")"
		patch -p1 --batch --forward --quiet <"$p"
	done
fi

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
# for the guest; the stock kernel runs the series' tests too.
if [ $stock = 0 ]; then
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
