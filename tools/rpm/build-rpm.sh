#!/bin/sh
# Build the binary and source RPMs from a release tarball (meson dist output),
# with the spec the tarball carries.
#   tools/rpm/build-rpm.sh TARBALL TOPDIR [rpmbuild options, e.g. --without check]
# TOPDIR gets rpmbuild's tree: RPMS/<arch>/*.rpm and SRPMS/*.src.rpm.
# On an rpm-based system rpmbuild checks the BuildRequires; elsewhere (Debian's
# rpm package, whose database holds no package) it cannot and is told not to,
# and tools/rpm/macros.debian supplies what Debian's rpm lacks (the meson
# macros, man page compression, stripping).
set -eu
tarball=$1
top=$2
shift 2
command -v rpmbuild >/dev/null || { echo "build-rpm: rpmbuild is missing (Debian: apt-get install rpm)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
set -- --define "_topdir $top" "$@"
if [ "$(rpm --eval '%{?meson:yes}')" != yes ]; then
	set -- --load "$here/macros.debian" "$@"
fi
if ! rpm -q rpm >/dev/null 2>&1; then
	set -- --nodeps "$@"
fi
rm -rf "$top"
mkdir -p "$top"
rpmbuild -ta "$@" "$tarball"
