# Thin wrapper over Meson for the two commands the README promises.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 60
MESON_OPTS ?= -Dwerror=true

.PHONY: all deps deps-test build run test test-asan test-valgrind bench fuzz dist rpm bundle clean

all: build

# Build dependencies for build/run; the test targets add the suite's tools.
deps:
	@sh tools/install-deps.sh build

deps-test:
	@sh tools/install-deps.sh test

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# The main job: the readiness report of this machine. Only the tool is built
# (tests are built by `make test`), and its build log is shown only when it
# fails; one line per step on stderr says what it is doing meanwhile.
run:
	@echo "make run: 1/4 build dependencies (tools/install-deps.sh build)" >&2
	@sh tools/install-deps.sh build
	@log=$$(mktemp); \
	if [ -f $(BUILD)/build.ninja ]; then \
		echo "make run: 2/4 $(BUILD)/ is configured already" >&2; \
	else \
		echo "make run: 2/4 configuring $(BUILD)/ (meson setup)" >&2; \
		meson setup $(BUILD) $(MESON_OPTS) >$$log 2>&1 || { cat $$log; rm -f $$log; exit 1; }; \
	fi; \
	echo "make run: 3/4 building $(BUILD)/gdrcheck (ninja; under a minute the first time)" >&2; \
	ninja -C $(BUILD) gdrcheck >>$$log 2>&1 || { cat $$log; rm -f $$log; exit 1; }; \
	rm -f $$log
	@echo "make run: 4/4 the readiness report of this machine ($(BUILD)/gdrcheck check)" >&2
	@$(BUILD)/gdrcheck check; rc=$$?; [ $$rc -le 1 ] || exit $$rc

# The suite, and beside it the suite `release` (minutes: an RPM build and the
# image), each in its own meson test: meson starts a test that is not
# parallel (k8s-image, pictures-browser) only once every running test has
# ended, so in one run the release test would hold the rest back. Its log:
# $(BUILD)/meson-logs/testlog-release.*; its output is printed at the end.
test: deps-test build
	ninja -C $(BUILD) meson-test-prereq
	@meson test -C $(BUILD) --no-rebuild --suite release --logbase testlog-release --print-errorlogs \
		>$(BUILD)/meson-logs/release.out 2>&1 & rel=$$!; \
	meson test -C $(BUILD) --no-rebuild --no-suite release --print-errorlogs; rc=$$?; \
	wait $$rel; rrc=$$?; echo "=== suite release"; cat $(BUILD)/meson-logs/release.out; \
	[ $$rc -eq 0 ] && [ $$rrc -eq 0 ]

$(BUILD_ASAN)/build.ninja:
	meson setup $(BUILD_ASAN) $(MESON_OPTS) -Db_sanitize=address,undefined -Db_lundef=false

test-asan: deps-test $(BUILD_ASAN)/build.ninja
	ninja -C $(BUILD_ASAN)
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
		meson test -C $(BUILD_ASAN) --print-errorlogs

test-valgrind: deps-test build
	meson test -C $(BUILD) --setup valgrind --suite unit --print-errorlogs

bench: deps-test build
	ninja -C $(BUILD) fixtures
	sh bench/run.sh $(BUILD)

# libFuzzer targets (tests/fuzz): clang, ASan+UBSan, FUZZ_SECONDS each,
# one after the other; FUZZ_TARGETS="sysfs nl-dcb" runs only those. No
# -Werror there: the house warnings are checked with gcc; clang finds others.
$(BUILD_FUZZ)/build.ninja:
	CC=clang meson setup $(BUILD_FUZZ) -Dwerror=false -Dfuzz=true -Dtests=false \
		-Db_sanitize=address,undefined -Db_lundef=false

fuzz: deps-test $(BUILD_FUZZ)/build.ninja
	ninja -C $(BUILD_FUZZ)
	sh tests/fuzz/run.sh $(BUILD_FUZZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The release tarball: meson dist (git archive of HEAD, gdrcheck.spec filled
# in), the suite not rerun on it (DIST_TESTS=1 does).
VERSION = $(shell meson introspect --projectinfo meson.build | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
TARBALL = $(BUILD)/meson-dist/gdrcheck-$(VERSION).tar.xz

dist: build
	meson dist -C $(BUILD) --formats xztar $(if $(DIST_TESTS),,--no-tests)

# Binary and source RPMs from the tarball, with rpmbuild (Debian: package
# rpm), then rpmlint. RPM_OPTS="--without check" skips the spec's %check.
rpm: dist
	sh tools/rpm/build-rpm.sh $(TARBALL) $(abspath $(BUILD))/rpm $(RPM_OPTS)
	rpmlint -c tools/rpm/rpmlint.toml $(BUILD)/rpm/RPMS/*/gdrcheck-$(VERSION)-*.rpm $(BUILD)/rpm/SRPMS/gdrcheck-$(VERSION)-*.src.rpm

# The air-gapped bundle (deploy/bundle/build): the image (deploy/image/build,
# reused while the binary is unchanged), the chart, the rendered manifests,
# the RPMs and the tarball, SHA256SUMS and INSTALL.md, in $(BUILD)/bundle.
IMAGE = $(BUILD)/image/gdrcheck-$(VERSION).oci.tar

bundle: rpm
	[ $(IMAGE) -nt $(BUILD)/gdrcheck ] || deploy/image/build $(BUILD)/gdrcheck $(BUILD)/image
	deploy/bundle/build $(BUILD)/bundle --binary $(BUILD)/gdrcheck --tarball $(TARBALL) \
		--rpm "$$(ls $(BUILD)/rpm/RPMS/*/gdrcheck-$(VERSION)-*.rpm)" \
		--srpm "$$(ls $(BUILD)/rpm/SRPMS/gdrcheck-$(VERSION)-*.src.rpm)" --image $(IMAGE)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
