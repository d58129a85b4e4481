#!/usr/bin/env bash
# Build the Debian package homa-dkms: the module's sources for DKMS in
# /usr/src/homa-VERSION (with dkms.conf), the user header
# /usr/include/homa.h and the manual pages. Installing it builds homa.ko for
# every installed kernel with headers (pkg/postinst), and DKMS builds it
# again for each kernel installed later (AUTOINSTALL in dkms.conf).
# Usage: scripts/make_deb.sh [OUTDIR]   (make deb; OUTDIR defaults to
# build/deb; prints the path of the .deb on its last line)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$TOP/build/deb}
version=${HOMA_VERSION:-$(git -C "$TOP" log -1 --date=format:%Y%m%d \
	--format='0.1+git%cd.%h' 2>/dev/null || echo 0.1)}
stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT

src="$stage/usr/src/homa-$version"
doc="$stage/usr/share/doc/homa-dkms"
mkdir -p "$src" "$stage/DEBIAN" "$stage/usr/include" "$doc" \
	"$stage/usr/share/man/man2" "$stage/usr/share/man/man7" "$out"
cd "$TOP"
for f in homa*.c homa*.h Kbuild; do
	[ "$f" = homa.mod.c ] || cp "$f" "$src/"
done
sed "s/@VERSION@/$version/" dkms.conf > "$src/dkms.conf"
cp homa.h "$stage/usr/include/homa.h"
gzip -9n -c man/homa.7 > "$stage/usr/share/man/man7/homa.7.gz"
for m in sendmsg_homa recvmsg_homa; do
	gzip -9n -c "man/$m.2" > "$stage/usr/share/man/man2/$m.2.gz"
done
cp pkg/copyright "$doc/copyright"
gzip -9n -c README.md > "$doc/README.md.gz"
for f in control postinst prerm; do
	sed "s/@VERSION@/$version/" "pkg/$f" > "$stage/DEBIAN/$f"
done
chmod 755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm"
echo "Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)" \
	>> "$stage/DEBIAN/control"
deb="$out/homa-dkms_${version}_all.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
echo "$deb"
