# kbench: `make run` (set up, build, quick suite, report) and `make test`.
SHELL := /bin/bash
BUILD := build

# The Debian 12 packages `make run` needs: the build, libperf's source, the
# BPF toolchain, the workload tools, gnuplot and dygraphs (the site's
# interactive charts) for the report.
APT_PACKAGES := build-essential pkg-config xz-utils libsqlite3-dev libpq-dev libcjson-dev \
	libssl-dev zlib1g-dev libgsl-dev linux-source-6.12 \
	gnuplot-nox fonts-dejavu-core libjs-dygraphs clang llvm libbpf-dev bpftool \
	libmnl-dev iperf3 ethtool iproute2 hyperfine fio
# Booting kernels in VMs (kbench vm, kbench ab, make kernel-ab).
APT_VM_PACKAGES := qemu-system-x86 busybox
# `make test` adds: the test framework, a browser and its WebDriver (driven
# by Python's Selenium) for the dashboard tests,
# libFuzzer's runtime, perf (the kernel's own counts some tests check kbench
# against; perf bench output to import), what kbench kernel build needs to
# build a kernel, and the real readers of the export formats: Google
# Benchmark (a program to import, compare.py with scipy) and Python's
# OpenMetrics parser.
APT_TEST_PACKAGES := $(APT_VM_PACKAGES) libcriterion-dev chromium chromium-driver \
	python3-selenium libclang-rt-14-dev linux-perf \
	flex bison bc libelf-dev dwarves libbenchmark-dev libbenchmark-tools python3-scipy \
	python3-prometheus-client postgresql-15

# libperf is not packaged in Debian 12: build it once from linux-source-6.12.
LINUX_SRC_TAR := /usr/src/linux-source-6.12.tar.xz
LINUX_SRC_PARTS := tools/lib tools/include tools/arch tools/build tools/scripts \
	scripts include/uapi arch/x86/include/uapi
LIBPERF_DIR := $(BUILD)/libperf
LIBPERF := $(LIBPERF_DIR)/usr/lib/libperf.a
# libperf's evlist needs libapi's fdarray, built from the same tree.
LIBAPI := $(LIBPERF_DIR)/usr/lib/libapi.a

# The VM runner's test kernel: Debian's own cloud kernel (6.1, no guard pages),
# unpacked from its package, never installed into /boot.
DEBIAN_KERNEL := $(BUILD)/kernels/debian
# A 6.13+ guest kernel: Debian 13's newest cloud kernel from trixie-backports
# (net-shaper family, guard pages, the BPF private stack). apt fetches it
# through a source list of its own under build/, so the host's apt sources
# and lists stay as they are.
BPO_KERNEL := $(BUILD)/kernels/debian-backports
BPO_APT := $(BUILD)/apt-backports
BPO_APT_OPTS = -o Dir::Etc::SourceList=$(CURDIR)/$(BPO_APT)/sources.list \
	-o Dir::Etc::SourceParts=$(CURDIR)/$(BPO_APT)/empty -o Dir::State::Lists=$(CURDIR)/$(BPO_APT)/lists \
	-o Dir::Cache=$(CURDIR)/$(BPO_APT)/cache -o APT::Sandbox::User=root
# A kernel with netdevsim for the net-shaper tests (Debian builds none):
# trixie-backports' newest linux-source, kbench kernel build --tiny with the
# vm, net and shaper fragments (about 4 minutes on 2 cores); the tree goes after.
NSIM_KERNEL := $(BUILD)/kernels/netdevsim
NSIM_SRC := $(BUILD)/kernels/netdevsim-src
# The Kconfig part of linux-source-6.12: enough for defconfig/olddefconfig, so
# the tests can configure a real tree with the fragments (kbench kernel build).
KCONFIG_TREE := $(BUILD)/kernels/linux-6.12-kconfig
KCONFIG_PARTS := Makefile '*Kconfig*' '*/Makefile*' 'scripts/*' 'arch/x86/configs/*' 'kernel/configs/*' \
	'arch/x86/include/*' 'include/*'

PKGS := libcjson sqlite3 libpq libcrypto zlib gsl libbpf libmnl
CPPFLAGS := -D_GNU_SOURCE -DKB_SRCDIR='"$(CURDIR)"' -I$(BUILD) -I$(BUILD)/bpf \
	-I$(LIBPERF_DIR)/usr/include \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
WARN := -Wall -Wextra -Werror
CFLAGS := -std=c11 -O2 -g $(WARN) -MMD -MP
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LDLIBS := $(LIBPERF) $(LIBAPI) $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

MAIN := cli/kbench.c
SRC := $(filter-out $(MAIN),$(sort $(shell find lib kernel results analysis bench workloads dashboards cli -name '*.c' ! -name '*.bpf.c' ! -path 'workloads/programs/*')))
# Workload programs: one binary each, run by the real tools (hyperfine).
PROGRAMS := $(patsubst workloads/programs/%.c,$(BUILD)/workloads/%,$(wildcard workloads/programs/*.c))
OBJ := $(SRC:%.c=$(BUILD)/obj/%.o)
SAN_OBJ := $(SRC:%.c=$(BUILD)/san/%.o)
TEST_SRC := $(sort $(wildcard tests/*.c))
# Programs the tests carry into a guest (kbench vm run --exec): static, so
# they need nothing of the guest but its kernel.
GUEST_PROGRAMS := $(patsubst tests/guest/%.c,$(BUILD)/tests/guest/%,$(wildcard tests/guest/*.c))

# BPF programs: bench/bpf/NAME.bpf.c -> clang (BTF, CO-RE against the running
# kernel's vmlinux.h) -> bpftool gen object -> build/bpf/NAME.skel.h.
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
BPF_SRC := $(sort $(wildcard bench/bpf/*.bpf.c))
BPF_SKELS := $(BPF_SRC:bench/bpf/%.bpf.c=$(BUILD)/bpf/%.skel.h)
VMLINUX_H := $(BUILD)/bpf/vmlinux.h
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(BUILD)/bpf -I/usr/include/$(shell uname -m)-linux-gnu
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/san/%.o)

.PHONY: all setup setup-vm setup-test install run test nightly kernel-ab clean FORCE fuzz fuzz-replay
all: $(BUILD)/kbench $(PROGRAMS)

# setup: what `make run` needs (packages, libperf); setup-vm adds qemu;
# setup-test also fetches the test kernels and the Kconfig tree.
setup: SETUP_PACKAGES = $(APT_PACKAGES)
setup-vm: SETUP_PACKAGES = $(APT_PACKAGES) $(APT_VM_PACKAGES)
setup-test: SETUP_PACKAGES = $(APT_PACKAGES) $(APT_TEST_PACKAGES)
setup setup-vm setup-test:
	@missing=$$(for p in $(SETUP_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "setup: installing" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
			{ echo "kbench: setup: apt-get install failed (run as root?)" >&2; exit 3; }; \
	fi
	@$(MAKE) -s --no-print-directory $(LIBPERF)
	@if [ $@ = setup-test ]; then $(MAKE) -s --no-print-directory $(DEBIAN_KERNEL)/modules \
		$(BPO_KERNEL)/modules $(KCONFIG_TREE)/kernel/configs/tiny.config; fi

$(LIBPERF):
	@test -f $(LINUX_SRC_TAR) || { echo "kbench: $(LINUX_SRC_TAR) missing: run make setup" >&2; exit 3; }
	@echo "setup: building libperf from $(LINUX_SRC_TAR)"
	@rm -rf $(BUILD)/linux-src && mkdir -p $(BUILD)/linux-src
	@tar -xJf $(LINUX_SRC_TAR) -C $(BUILD)/linux-src --strip-components=1 \
		$(addprefix linux-source-6.12/,$(LINUX_SRC_PARTS))
	@$(MAKE) -s -C $(BUILD)/linux-src/tools/lib/perf DESTDIR=$(CURDIR)/$(LIBPERF_DIR) \
		prefix=/usr libdir_relative=lib install_lib install_headers >$(BUILD)/libperf.log 2>&1 && \
	$(MAKE) -s -C $(BUILD)/linux-src/tools/lib/api DESTDIR=$(CURDIR)/$(LIBPERF_DIR) \
		prefix=/usr libdir_relative=lib install_lib >>$(BUILD)/libperf.log 2>&1 || \
		{ cat $(BUILD)/libperf.log >&2; exit 3; }
	@rm -rf $(BUILD)/linux-src

# The image, its config and its modules (veth, sch_htb ... are modules in Debian).
$(DEBIAN_KERNEL)/modules:
	@echo "setup: fetching Debian's cloud kernel image (the VM runner's test kernel)"
	@rm -rf $(DEBIAN_KERNEL) && mkdir -p $(DEBIAN_KERNEL)/pkg
	@pkg=$$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $$2; exit }'); \
	if [ -z "$$pkg" ]; then apt-get update -qq && \
		pkg=$$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-[0-9]/ { print $$2; exit }'); fi; \
	[ -n "$$pkg" ] || { echo "kbench: setup: apt knows no linux-image-cloud-amd64" >&2; exit 3; }; \
	cd $(DEBIAN_KERNEL)/pkg && apt-get download -qq -o APT::Sandbox::User=root $$pkg-unsigned && \
	dpkg-deb -x *.deb x && rel=$${pkg#linux-image-} && \
	mv x/boot/vmlinuz-$$rel x/boot/config-$$rel x/lib/modules/$$rel .. && cd .. && rm -rf pkg && \
	ln -s vmlinuz-$$rel vmlinuz && ln -s config-$$rel config && ln -s $$rel modules || \
	{ echo "kbench: setup: fetching $$pkg-unsigned failed" >&2; rm -rf $(CURDIR)/$(DEBIAN_KERNEL); exit 3; }

# Debian 13 splits the image: vmlinuz in linux-binary-REL, config in linux-base-REL,
# xz-compressed modules in linux-modules-REL, all under usr/lib/modules/REL.
$(BPO_KERNEL)/modules:
	@echo "setup: fetching Debian 13's cloud kernel from trixie-backports (the 6.13+ test guest)"
	@rm -rf $(BPO_KERNEL) $(BPO_APT) && mkdir -p $(BPO_KERNEL)/pkg $(BPO_APT)/lists/partial \
		$(BPO_APT)/cache/archives/partial $(BPO_APT)/empty
	@mirror=$$(. /etc/os-release && apt-get indextargets --format '$$(REPO_URI)' \
		"Release: $$VERSION_CODENAME" 'Origin: Debian' 'Target-Of: deb' | head -n 1); \
	[ -n "$$mirror" ] || { echo "kbench: setup: apt has no Debian $$(. /etc/os-release && echo $$VERSION_CODENAME) source to take the mirror from" >&2; exit 3; }; \
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $$mirror trixie-backports main" \
		> $(BPO_APT)/sources.list
	@apt-get $(BPO_APT_OPTS) update -qq && \
	img=$$(apt-cache $(BPO_APT_OPTS) depends linux-image-cloud-amd64 | awk '/Depends: linux-image-[0-9]/ { print $$2; exit }') && \
	rel=$${img#linux-image-} && [ -n "$$rel" ] && cd $(BPO_KERNEL)/pkg && \
	apt-get $(BPO_APT_OPTS) download -qq linux-binary-$$rel linux-base-$$rel linux-modules-$$rel && \
	for d in *.deb; do dpkg-deb -x $$d x || exit 1; done && m=x/usr/lib/modules/$$rel && \
	mv $$m/vmlinuz ../vmlinuz-$$rel && mv $$m/config ../config-$$rel && rm -f $$m/System.map && \
	mv $$m .. && cd .. && rm -rf pkg && \
	ln -s vmlinuz-$$rel vmlinuz && ln -s config-$$rel config && ln -s $$rel modules || \
	{ echo "kbench: setup: fetching the trixie-backports cloud kernel failed" >&2; \
	  rm -rf $(CURDIR)/$(BPO_KERNEL); exit 3; }

$(NSIM_KERNEL)/bzImage: | $(BUILD)/kbench $(BPO_KERNEL)/modules
	@echo "setup: building a tiny kernel with netdevsim from trixie-backports' linux-source (the net-shaper tests' guest, ~4 min)"
	@rm -rf $(NSIM_SRC) && mkdir -p $(NSIM_SRC)/pkg
	@apt-get $(BPO_APT_OPTS) update -qq && \
	src=$$(apt-cache $(BPO_APT_OPTS) depends linux-source | awk '/Depends: linux-source-[0-9]/ { print $$2; exit }') && \
	[ -n "$$src" ] && cd $(NSIM_SRC)/pkg && apt-get $(BPO_APT_OPTS) download -qq $$src && \
	dpkg-deb --fsys-tarfile $${src}_*.deb | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' | \
		tar -xJ -C .. --strip-components=1 && cd .. && rm -rf pkg && \
	$(CURDIR)/$(BUILD)/kbench kernel build . --tiny --features vm,net,shaper -o $(CURDIR)/$(NSIM_KERNEL) \
		>$(CURDIR)/$(BUILD)/kernels/netdevsim.log 2>&1 || \
	{ echo "kbench: setup: building the netdevsim kernel failed (see $(BUILD)/kernels/netdevsim.log)" >&2; \
	  rm -rf $(CURDIR)/$(NSIM_KERNEL) $(CURDIR)/$(NSIM_SRC); exit 3; }
	@rm -rf $(NSIM_SRC)

# Named by a file of its last-added part (tinyconfig's seed), so older unpacks are redone.
$(KCONFIG_TREE)/kernel/configs/tiny.config:
	@echo "setup: unpacking the Kconfig part of $(LINUX_SRC_TAR)"
	@rm -rf $(KCONFIG_TREE) $(KCONFIG_TREE).tmp && mkdir -p $(KCONFIG_TREE).tmp
	@tar -xJf $(LINUX_SRC_TAR) -C $(KCONFIG_TREE).tmp --strip-components=1 --wildcards \
		$(addprefix linux-source-6.12/,$(KCONFIG_PARTS)) && mv $(KCONFIG_TREE).tmp $(KCONFIG_TREE)

# The suite revision, rewritten only when it changes so it rebuilds what uses it.
$(BUILD)/revision.h: FORCE
	@mkdir -p $(BUILD)
	@rev=$$(git describe --always --dirty 2>/dev/null || echo unknown); \
	line="#define KB_REVISION \"$$rev\""; \
	[ "$$(cat $@ 2>/dev/null)" = "$$line" ] || echo "$$line" > $@

$(VMLINUX_H):
	@mkdir -p $(dir $@)
	@test -r /sys/kernel/btf/vmlinux || { echo "kbench: /sys/kernel/btf/vmlinux missing: the BPF programs need a kernel with BTF" >&2; exit 3; }
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bench/bpf/%.bpf.c $(VMLINUX_H)
	clang $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen object $(BUILD)/bpf/$*.linked.o $< && \
	$(BPFTOOL) gen skeleton $(BUILD)/bpf/$*.linked.o name $*_bpf > $@.tmp && mv $@.tmp $@
# Kept: make would delete them as intermediates, and rebuild every object after.
.SECONDARY: $(BPF_SKELS) $(BPF_SKELS:%.skel.h=%.bpf.o)

# revision.h and the skeletons are order-only: the .d files rebuild just the
# sources that include them.
$(BUILD)/obj/%.o: %.c | $(LIBPERF) $(BUILD)/revision.h $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/san/%.o: %.c | $(LIBPERF) $(BUILD)/revision.h $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O1 $(SAN_FLAGS) -c $< -o $@

$(BUILD)/kbench: $(OBJ) $(BUILD)/obj/cli/kbench.o
	$(CC) $^ $(LDLIBS) -o $@

$(BUILD)/workloads/%: workloads/programs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -lpthread -o $@

# The process mm/guard/fork forks holds the benchmark's own layout.
$(BUILD)/workloads/guard-fork: workloads/programs/guard-fork.c bench/mm/guard_layout.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $^ -o $@

# The test build: the CLI and the tests, under ASan and UBSan.
$(BUILD)/san/kbench: $(SAN_OBJ) $(BUILD)/san/cli/kbench.o
	$(CC) $(SAN_FLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/san/kbench-tests: $(SAN_OBJ) $(TEST_OBJ)
	$(CC) $(SAN_FLAGS) $^ $(LDLIBS) -lcriterion -o $@

$(BUILD)/tests/guest/%: tests/guest/%.c
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE $(CFLAGS) -static $< -o $@

run: setup
	@$(MAKE) --no-print-directory all
	$(BUILD)/kbench run --quick
	$(BUILD)/kbench report

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, its data under
# PREFIX/share/kbench and PREFIX/lib/kbench, the docs, bash completion. An installed kbench keeps its
# store and dashboard in /var/lib/kbench (KBENCH_STATE_DIR), not in PREFIX.
PREFIX ?= /usr/local
INSTALL_ROOT := $(DESTDIR)$(PREFIX)
install: all
	install -D -m 0755 $(BUILD)/kbench $(INSTALL_ROOT)/bin/kbench
	install -d $(INSTALL_ROOT)/share/kbench/config/tiny $(INSTALL_ROOT)/share/kbench/workloads \
		$(INSTALL_ROOT)/lib/kbench/workloads $(INSTALL_ROOT)/share/doc/kbench
	install -m 0644 kernel/config/*.config $(INSTALL_ROOT)/share/kbench/config/
	install -m 0644 kernel/config/tiny/*.config $(INSTALL_ROOT)/share/kbench/config/tiny/
	install -m 0644 $(wildcard workloads/*.hyperfine workloads/*.fio workloads/*.kbench) \
		$(INSTALL_ROOT)/share/kbench/workloads/
	install -m 0755 $(PROGRAMS) $(INSTALL_ROOT)/lib/kbench/workloads/
	install -m 0644 README.md LICENSE docs/*.md $(INSTALL_ROOT)/share/doc/kbench/
	install -d $(INSTALL_ROOT)/share/kbench/assets
	install -m 0644 dashboards/assets/* $(INSTALL_ROOT)/share/kbench/assets/
	install -m 0644 analysis/claims.txt $(INSTALL_ROOT)/share/kbench/claims.txt
	install -d $(INSTALL_ROOT)/share/bash-completion/completions
	$(BUILD)/kbench completion bash > $(INSTALL_ROOT)/share/bash-completion/completions/kbench

# Nightly CI: full suite, compare with the previous run, history, dashboard (.ci/nightly).
nightly: setup
	@$(MAKE) --no-print-directory all
	.ci/nightly

# A/B of two kernel images in VMs: make kernel-ab BASE=bzImage PATCHED=bzImage [ROUNDS=3] [RUN="-f 'mm/guard/*'"]
kernel-ab: setup-vm
	@$(MAKE) --no-print-directory all
	@test -n "$(BASE)" -a -n "$(PATCHED)" || { echo "kbench: make kernel-ab BASE=IMAGE PATCHED=IMAGE" >&2; exit 2; }
	$(BUILD)/kbench ab --base $(BASE) --patched $(PATCHED) -n $(or $(ROUNDS),3) -- $(or $(RUN),--quick)

# One job: several tests change system-wide state (vm.max_map_count).
test: setup-test
	@tools/check-layers.sh
	@$(MAKE) --no-print-directory all $(BUILD)/san/kbench $(BUILD)/san/kbench-tests $(GUEST_PROGRAMS)
	@$(MAKE) -s --no-print-directory $(NSIM_KERNEL)/bzImage
	@$(MAKE) -s --no-print-directory fuzz-replay
	KBENCH_BIN=$(CURDIR)/$(BUILD)/san/kbench KBENCH_RELEASE_BIN=$(CURDIR)/$(BUILD)/kbench \
	KBENCH_TEST_NSIM_KERNEL=$${KBENCH_TEST_NSIM_KERNEL:-$(CURDIR)/$(NSIM_KERNEL)/bzImage} \
	$(BUILD)/san/kbench-tests --jobs=1

# Fuzzing: libFuzzer targets (tests/fuzz/fuzz_*.c) for every reader of outside
# data, built with clang (libclang-rt-14-dev) into build/fuzz/ with the few
# sources they need. tests/fuzz/corpus/T is the seed corpus, tests/fuzz/crashes/T
# what was found (kept: make test replays both). `make fuzz [FUZZ_SECONDS=60]`
# runs each target that long; what it finds new stays in build/fuzz/corpus/T.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_LIB_SRC := results/codec.c results/json.c results/run.c results/store.c results/store_sqlite.c \
	results/store_pg.c results/summary.c lib/util.c lib/paths.c workloads/import.c \
	workloads/import_gbench.c workloads/import_perf_bench.c results/formats.c results/format_csv.c \
	results/format_openmetrics.c results/format_gbench.c \
	analysis/stats.c lib/escape.c analysis/report_text.c analysis/report_latency.c analysis/report_scaling.c \
	analysis/claims.c analysis/claims_print.c
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIBS := $(shell pkg-config --libs libcjson sqlite3 libpq gsl 2>/dev/null) -lm

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) -std=c11 -O1 -g $(WARN) -MMD -MP -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c $< -o $@

$(BUILD)/fuzz/%: $(BUILD)/fuzz/obj/tests/fuzz/%.o $(FUZZ_LIB_OBJ)
	clang -fsanitize=fuzzer $(FUZZ_SAN) $^ $(FUZZ_LIBS) -o $@

fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/fuzz/corpus/$$t tests/fuzz/crashes/$$t; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		$(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix=tests/fuzz/crashes/$$t/ $(BUILD)/fuzz/corpus/$$t tests/fuzz/corpus/$$t \
			2>$(BUILD)/fuzz/$$t.log || { tail -40 $(BUILD)/fuzz/$$t.log >&2; \
			echo "kbench: fuzz: $$t found a crash (kept in tests/fuzz/crashes/$$t)" >&2; exit 1; }; \
		grep -E '^(#[0-9]+|Done)' $(BUILD)/fuzz/$$t.log | tail -2; \
	done

# Every seed and every crash found so far, run once through its target.
fuzz-replay: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
	@for t in $(FUZZ_TARGETS); do \
		dirs=tests/fuzz/corpus/$$t; [ -d tests/fuzz/crashes/$$t ] && dirs="$$dirs tests/fuzz/crashes/$$t"; \
		$(BUILD)/fuzz/$$t -runs=0 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=$(BUILD)/fuzz/ \
			$$dirs >$(BUILD)/fuzz/$$t.replay.log 2>&1 || \
			{ tail -40 $(BUILD)/fuzz/$$t.replay.log >&2; \
			  echo "kbench: fuzz-replay: $$t fails on its corpus or a kept crash" >&2; exit 1; }; \
		echo "fuzz-replay: $$t: $$(find $$dirs -type f | wc -l) inputs pass"; \
	done

clean:
	rm -rf $(BUILD)/obj $(BUILD)/san $(BUILD)/bpf $(BUILD)/kbench $(BUILD)/revision.h $(BUILD)/fuzz $(BUILD)/tests

-include $(OBJ:.o=.d) $(SAN_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/fuzz/obj/*/*.d $(BUILD)/fuzz/obj/*/*/*.d)
