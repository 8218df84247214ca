#!/usr/bin/env bash
# Builds tollgate with the Swift runtime linked in (--static-swift-stdlib) and wraps it in a
# Debian package: .build/package/tollgate_VERSION_ARCH.deb (.build/package-debug/ from a debug
# build). The binary needs only Debian's own libraries; the package depends on the ones it links
# (found with ldd and dpkg -S).
#   scripts/package.sh            build the package (release)
#   PACKAGE_CONFIGURATION=debug scripts/package.sh
#                                 the same package from a debug build: what `make test` installs.
#                                 The same sources, runtime linking and packaging, unoptimised: 120
#                                 core-seconds of compiling instead of 420, which on 2 cores were a
#                                 quarter of a test run's work.
set -euo pipefail
cd "$(dirname "$0")/.."
swift="${SWIFT:-swift}"
configuration=${PACKAGE_CONFIGURATION:-release}
case "$configuration" in
  release) scratch=.build/package-build out=.build/package ;;
  debug) scratch=.build/package-debug-build out=.build/package-debug ;; # never taken for the release one
  *) echo "error: PACKAGE_CONFIGURATION is release or debug, not '$configuration'" >&2; exit 2 ;;
esac

# Static FoundationNetworking links libcurl (libcurl4-openssl-dev), which stays a shared library.
# A build folder of its own: `make run` and `make bench` build release without the static runtime
# and the tests debug; a static build in their folders makes theirs fail to link (it compiles the
# modules against the static runtime's) and each would recompile what the other built.
# No debug information: the binary is stripped below, and generating it cost 15 % of the build.
build=(build -c "$configuration" --product tollgate --static-swift-stdlib -Xswiftc -gnone --scratch-path "$scratch")
"$swift" "${build[@]}"
binary=$("$swift" "${build[@]}" --show-bin-path)/tollgate

# Nothing may come from the toolchain: an operator's server has no Swift installed.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v "$swift")")")")
libraries=$(ldd "$binary" | awk '/=>/ { print $3 }' | grep -v '^$')
if ldd "$binary" | grep -q "$toolchain"; then
  echo "error: $binary still loads libraries from the toolchain ($toolchain):" >&2
  ldd "$binary" | grep "$toolchain" >&2
  exit 1
fi
if ldd "$binary" | grep -q "not found"; then
  echo "error: $binary needs libraries this machine lacks:" >&2
  ldd "$binary" | grep "not found" >&2
  exit 1
fi

# Depends: the Debian package of each library the binary names (NEEDED), at least the version
# built against; what those libraries need is their packages' business.
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
direct=$(for soname in $needed; do echo "$libraries" | grep "/$soname\$" || true; done)
depends="adduser"
for package in $(for library in $direct; do dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library"; done \
  | cut -d: -f1 | sort -u); do
  version=$(dpkg-query -W -f='${Version}' "$package")
  depends="$depends, $package (>= ${version%%-*})"
done

count=$(git rev-list --count HEAD 2>/dev/null || echo 0)
version="0.1.$count"
arch=$(dpkg --print-architecture)
root=$out/root
rm -rf "$root"
install -d "$root/DEBIAN" "$root/usr/bin" "$root/etc/tollgate" "$root/lib/systemd/system" \
  "$root/usr/share/doc/tollgate"
install -m 0755 "$binary" "$root/usr/bin/tollgate"
strip --strip-unneeded "$root/usr/bin/tollgate"
install -m 0640 packaging/tollgate.env "$root/etc/tollgate/tollgate.env"
install -m 0644 packaging/tollgate.service "$root/lib/systemd/system/tollgate.service"
install -m 0644 examples/sample-config.json "$root/usr/share/doc/tollgate/sample-config.json"
install -m 0644 docs/operations.md "$root/usr/share/doc/tollgate/operations.md"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
echo /etc/tollgate/tollgate.env > "$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: tollgate
Version: $version
Architecture: $arch
Maintainer: Tollgate developers <tollgate@example.com>
Depends: $depends
Installed-Size: $size
Section: net
Priority: optional
Homepage: https://github.com/tollgate/tollgate
Description: self-hosted paywall server for iOS apps
 Tollgate owns profiles, resolves Apple Ads attribution, evaluates audiences, picks A/B
 variations and serves paywall flows and fallback files to the Adapty-compatible SDK;
 it verifies App Store purchases and reports revenue per paywall and campaign.
 SQLite by default (/var/lib/tollgate), PostgreSQL for several instances.
CONTROL
package="$out/tollgate_${version}_${arch}.deb"
# zstd (level 9): 2 s and 22 MB, against xz's 23 s and 17 MB for the same tree; dpkg reads it since
# Debian 12, the oldest release whose libc the binary needs.
dpkg-deb -Zzstd -z9 --root-owner-group --build "$root" "$package" >/dev/null
echo "$package ($configuration build)"
echo "  depends: $depends"
echo "  size: $(du -h "$package" | cut -f1) (binary $(du -h "$root/usr/bin/tollgate" | cut -f1))"
