#!/bin/sh
# meson dist script: write gdrcheck.spec into the release tarball, its
# version the project's (meson.build), so `rpmbuild -ta` takes the tarball
# as it is.
set -eu
sed "s/@VERSION@/$1/g" "$MESON_DIST_ROOT/gdrcheck.spec.in" >"$MESON_DIST_ROOT/gdrcheck.spec"
