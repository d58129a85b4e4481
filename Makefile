# SPDX-License-Identifier: GPL-2.0+
# Build and test entry points for homa.ko. See README.md.
#   make            build homa.ko against Debian's kernel headers
#   make check      W=1, sparse, kernel-doc, checkpatch, shellcheck
#   make unit       user-space unit tests (googletest, ASan/UBSan)
#   make fuzz       libFuzzer on the parser, gap tracker and pool for
#                   FUZZ_SECONDS (default 300) seconds each (make test: 10)
#   make vmtest     boot the Debian kernel in a VM and run test/vm
#   make test-kernels  build and run test/vm on every kernel (KVER=... picks
#                   one kernel for the other targets: 6.1, 6.12, newest)
#   make test       all of the above, ending in "N passed, N failed"
#   make vmtest-debug  test/vm on a debug kernel (KASAN, lockdep, kmemleak,
#                   ...) built once from linux-source-6.1 and cached
#   make demo       build, boot, load Homa, open sockets (the main job)
#   make rtt        small-RPC round trip, Homa vs TCP, in the VM (a figure)
#   make bench      Homa vs TCP vs DCTCP on the emulated datacenter, with
#                   tables and plots (util/README-bench.md; BENCH_ARGS=...)
#   make profile    cp_vs_tcp --mode throughput --profile: perf record in
#                   the VM, per protocol a report and a flame graph SVG
#                   (util/README-bench.md "Profiling"; PROFILE_ARGS=...)
#   make deb        the Debian package homa-dkms in build/deb (DKMS)

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TOOLS := $(TOP)/.tools

# The kernel to build for (scripts/kernels.sh): KVER=6.12, KVER=newest or a
# full version; by default the running kernel if it has a build tree, else
# bookworm's own (linux-headers-amd64). Each kernel builds in build/<KVER>/;
# `make` then copies its homa.ko here, which is what the VM tests load.
# Resolved in the recipes, after setup has installed the kernels.
KERNELS := $(TOP)/scripts/kernels.sh
K = $(or $(KVER),default)

.PHONY: all modules setup check unit fuzz vmtest vmtest-debug test \
	test-kernels demo rtt bench profile deb clean print-kdir

all: modules

modules: setup
	+$(KERNELS) make $(K) modules
	$(KERNELS) install $(K)

setup:
	@$(TOP)/scripts/setup.sh

check: setup
	@$(TOP)/scripts/check.sh

unit: setup
	@$(MAKE) --no-print-directory -C $(TOP)/test/unit

FUZZ_SECONDS ?= 300
fuzz: setup
	@$(MAKE) --no-print-directory -C $(TOP)/test/fuzz \
		FUZZ_SECONDS=$(FUZZ_SECONDS)

vmtest: modules
	@KVER=$$($(KERNELS) resolve $(K)) $(TOP)/test/vm/run.sh

# Build (W=1, sparse) and run the VM suite on every kernel installed.
test-kernels: setup
	@$(TOP)/scripts/test_kernels.sh

vmtest-debug: setup
	@$(TOP)/scripts/vmtest_debug.sh

test: setup
	@$(TOP)/scripts/test.sh

demo: modules
	@$(TOP)/scripts/demo.sh

print-kdir:
	@echo /usr/src/linux-headers-$$($(KERNELS) resolve $(K))

rtt: modules
	@$(TOP)/scripts/rtt_compare.sh

bench: modules
	$(MAKE) -C $(TOP)/util
	$(TOP)/util/cp_vs_tcp $(BENCH_ARGS)

PROFILE_ARGS ?= --mode throughput
profile: modules
	$(MAKE) -C $(TOP)/util
	$(TOP)/util/cp_vs_tcp --profile $(PROFILE_ARGS)

deb:
	@$(TOP)/scripts/make_deb.sh

clean:
	rm -rf $(TOP)/build $(TOP)/homa.ko
	-$(MAKE) -C $(TOP)/test/unit clean
	-$(MAKE) -C $(TOP)/test/fuzz clean
	rm -rf $(TOP)/test/vm/build $(TOP)/build
