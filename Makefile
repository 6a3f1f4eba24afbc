# homed — build, run, test, bench. Every target installs what it needs.
SHELL := /bin/bash
.DEFAULT_GOAL := build

PREFIX ?= /usr/local
BUN := node_modules/.bin/bun
CC ?= gcc
CC_ARM64 ?= aarch64-linux-gnu-gcc
CFLAGS_SHIM := -O2 -Wall -Wextra -Werror -fPIC -shared
SRC := $(shell find src plugins -name '*.ts' -not -path 'src/generated/*' -not -path 'plugins/web/generated/*' 2>/dev/null) package.json src/generated/builtin-plugins.ts src/generated/builtin-settings.ts plugins/web/generated/assets.ts src/generated/lexicon.txt.zst src/generated/jieba-dict.txt.zst src/generated/lemmas.txt src/generated/common.txt
UI := $(wildcard plugins/web/ui/*)
MANIFESTS := $(wildcard plugins/*/plugin.json plugins/*/tools.ts)

.PHONY: sdk build build-arm64 build-cross build-cli install run test test-tools bench bench-scale bench-reliability typecheck lint format clean deps dist dist-check

# Debian packages the suites need (cross compiler, qemu, chromium), installed when missing.
test-tools:
	@scripts/ensure-test-tools.sh

# npm ci when the lockfile changed or node_modules is missing; bun's own postinstall runs.
node_modules/.installed: package.json package-lock.json .npmrc
	npm ci --no-audit --no-fund
	@touch $@

deps: node_modules/.installed

dist/native/libhomed-shim-x64.so: native/shim.c native/shim.h
	@mkdir -p dist/native
	$(CC) $(CFLAGS_SHIM) -o $@ native/shim.c

dist/native/libhomed-shim-arm64.so: native/shim.c native/shim.h
	@mkdir -p dist/native
	@command -v $(CC_ARM64) >/dev/null || scripts/ensure-cross-gcc.sh
	$(CC_ARM64) $(CFLAGS_SHIM) -o $@ native/shim.c

# Start order of the built-in plugins (fails on a dependency cycle or a missing facility), and the
# config.toml sections they own (src/generated/builtin-settings.ts, from each plugins/*/settings.ts).
src/generated/builtin-plugins.ts src/generated/builtin-settings.ts &: node_modules/.installed scripts/gen-plugins.ts src/kernel/plugins/graph.ts src/protocol/manifest.ts src/protocol/plugin-settings.ts $(MANIFESTS) $(wildcard plugins/*/settings.ts)
	$(BUN) scripts/gen-plugins.ts

# Word → concepts from WordNet and CC-CEDICT, irregular verb forms → verb, and how common the most frequent words
# are, embedded for memory's lexical index and the recall note's gate.
src/generated/lexicon.txt src/generated/lemmas.txt src/generated/common.txt &: node_modules/.installed scripts/build-lexicon.ts
	$(BUN) scripts/build-lexicon.ts

# Text the binary embeds, zstd-compressed (jieba's dictionary 5.1 -> 1.6 MB, the lexicon 5.3 -> 1.0 MB);
# the tokenizer unpacks each on first use.
src/generated/lexicon.txt.zst: src/generated/lexicon.txt scripts/zstd-asset.ts
	$(BUN) scripts/zstd-asset.ts $< $@

src/generated/jieba-dict.txt.zst: node_modules/.installed scripts/zstd-asset.ts
	$(BUN) scripts/zstd-asset.ts node_modules/@node-rs/jieba/dict.txt $@

# The web UI bundled into strings the binary embeds.
plugins/web/generated/assets.ts: node_modules/.installed scripts/build-ui.ts $(UI)
	$(BUN) scripts/build-ui.ts

# The host's shim under the name src/ipc/shim.ts imports (bun run, bun test, x64 builds).
dist/native/libhomed-shim.so: dist/native/libhomed-shim-x64.so
	cp $< $@

# The plugin SDK as an npm package (dist/sdk/package) and the copy `homed plugin new` vendors
# into a new plugin (dist/sdk/vendor.bin, embedded in homed); scripts/build-sdk.ts.
SDK_SRC := $(shell find plugins/sdk src/protocol src/shared src/ipc -name '*.ts' 2>/dev/null) plugins/sdk/package.json docs/plugins.md LICENSE
dist/sdk/vendor.bin: node_modules/.installed dist/native/libhomed-shim.so scripts/build-sdk.ts $(SDK_SRC)
	$(BUN) scripts/build-sdk.ts

# The same with the arm64 shim, for the arm64 daemon.
dist/sdk/vendor-arm64.bin: dist/sdk/vendor.bin dist/native/libhomed-shim-arm64.so
	$(BUN) scripts/build-sdk.ts --vendor-arch arm64

# make sdk: the package's tarball, dist/sdk/homed-plugin-sdk-VERSION.tgz, to publish or install.
sdk: dist/sdk/vendor.bin
	cd dist/sdk && npm pack ./package --pack-destination . --silent

dist/homed: node_modules/.installed dist/native/libhomed-shim.so dist/sdk/vendor.bin $(SRC)
	$(BUN) scripts/build.ts homed x64

build: dist/homed dist/waiter

build-cli: dist/waiter

dist/waiter: node_modules/.installed dist/native/libhomed-shim.so $(SRC)
	$(BUN) scripts/build.ts waiter x64

build-arm64: dist/homed-linux-arm64 dist/waiter-linux-arm64

# The waiter for Windows and macOS, cross-compiled with the Bun runtimes of @oven/bun-windows-x64
# and @oven/bun-darwin-* (npm, the pinned bun's version); it embeds no native code.
CROSS_WAITERS := dist/waiter-windows-amd64.exe dist/waiter-darwin-arm64 dist/waiter-darwin-amd64
build-cross: $(CROSS_WAITERS)

dist/waiter-windows-amd64.exe: node_modules/.installed $(SRC)
	$(BUN) scripts/build.ts waiter windows-x64

dist/waiter-darwin-arm64: node_modules/.installed $(SRC)
	$(BUN) scripts/build.ts waiter darwin-arm64

dist/waiter-darwin-amd64: node_modules/.installed $(SRC)
	$(BUN) scripts/build.ts waiter darwin-x64

dist/homed-linux-arm64: node_modules/.installed dist/native/libhomed-shim.so dist/native/libhomed-shim-arm64.so dist/sdk/vendor-arm64.bin $(SRC)
	$(BUN) scripts/build.ts homed arm64

dist/waiter-linux-arm64: node_modules/.installed $(SRC)
	$(BUN) scripts/build.ts waiter arm64

# Release artefacts in dist/release/ (scripts/dist.ts): the .debs, the .rpms, the .tar.gz and SHA256SUMS,
# from the binaries above, signed (SHA256SUMS.asc, the rpms) with HOMED_SIGNING_KEY (an armored secret
# key) or HOMED_SIGNING_GNUPGHOME, else a throwaway key it says it made; the APT repository (apt/) and
# the dnf repository (rpm/) of the same packages; prints bench: dist.seconds and the sizes.
dist: dist/homed dist/waiter dist/homed-linux-arm64 dist/waiter-linux-arm64 $(CROSS_WAITERS)
	@for t in rpmbuild makensis rsvg-convert gpg apt-ftparchive createrepo_c; do command -v $$t >/dev/null || { scripts/ensure-test-tools.sh; break; }; done
	$(BUN) scripts/dist.ts

# The release as an administrator meets it, after make dist (not part of make test: debootstrap once,
# then minutes): lintian on every .deb, apt-get install homed-server from the signed APT repository in a
# Debian 12 minbase tree (refused without the key), the same under a booted systemd-nspawn, rpm -i and
# rpm -e into a root; prints bench: dist.lintian_errors and dist.install_mb_server (scripts/dist-check.sh).
dist-check:
	scripts/dist-check.sh

install: dist/homed dist/waiter
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 dist/homed dist/waiter $(DESTDIR)$(PREFIX)/bin/

# make run PORT=9000 DATA=/tmp/ha: another port or data dir than the defaults.
PORT ?= 8080
DATA ?= ./.homed
run: dist/homed
	@echo "starting dist/homed -data $(DATA) -listen 127.0.0.1:$(PORT) (Ctrl-C stops it)"
	@echo "  it prints the link that logs your browser in; another: dist/homed open -data $(DATA)"
	@echo "  status: dist/homed status -data $(DATA)"
	dist/homed -data $(DATA) -listen 127.0.0.1:$(PORT)

typecheck: node_modules/.installed src/generated/builtin-plugins.ts src/generated/builtin-settings.ts plugins/web/generated/assets.ts src/generated/lexicon.txt.zst src/generated/jieba-dict.txt.zst src/generated/lemmas.txt src/generated/common.txt dist/native/libhomed-shim.so
	node_modules/.bin/tsc --noEmit
	node_modules/.bin/tsc --noEmit -p plugins/web/ui

# Biome (format and lint, its recommended rules; biome.json): the check make test runs first.
lint: node_modules/.installed
	node_modules/.bin/biome check

# Rewrite what `make lint` would complain about that Biome can fix by itself.
format: node_modules/.installed
	node_modules/.bin/biome check --write

# Test files run TEST_JOBS at a time, each in a fresh global in one of bun's worker processes,
# the slowest first by test/timings.json (a stale entry only changes the order). One at a time
# by default: two at a time on a loaded 2-core machine still failed a timing-bound test
# (files_grep's stop after its time); `make test TEST_JOBS=2` runs two.
TEST_JOBS ?= 1
TEST_PARALLEL := $(if $(filter 1,$(TEST_JOBS)),,--parallel=$(TEST_JOBS) --timings=test/timings.json)

# bun test's summary goes to stderr as " N pass" / " N fail"; print the plain line CI reads too,
# and keep bun's exit status.
test: test-tools lint typecheck dist/homed dist/waiter build-arm64 build-cross
	@set -o pipefail; $(BUN) test $(TEST_PARALLEL) --timeout 60000 2>&1 | tee .test.log; rc=$${PIPESTATUS[0]}; \
	  pass=$$(grep -E '^ *[0-9]+ pass$$' .test.log | tail -1 | grep -oE '[0-9]+'); \
	  fail=$$(grep -E '^ *[0-9]+ fail$$' .test.log | tail -1 | grep -oE '[0-9]+'); \
	  echo "$${pass:-0} passed, $${fail:-0} failed"; exit $$rc

bench: test-tools dist/homed build-arm64
	$(BUN) bench/run.ts

# Ten years of one person's chats, about a million events (bench/scale/run.ts, issue 44): generated
# once into bench/out/scale/, imported with homed import, then start, first turn, recall, searches,
# the conversation list, export, the Knowledge page and memory; a target of its own, so that
# make bench stays within its 20 minutes. SCALE_EVENTS=100000 for a smaller history.
bench-scale: dist/homed
	$(BUN) bench/scale/run.ts

# kill -9 with turns in flight, fuzz of the control socket and the web port, a 10-minute soak.
bench-reliability: dist/homed
	$(BUN) bench/reliability/run.ts

clean:
	rm -rf dist .test.log src/generated plugins/web/generated
