# SPDX-License-Identifier: GPL-2.0+
# Build and test entry points for homa.ko. See README.md.
#   make            build homa.ko against Debian's kernel headers
#   make check      W=1, sparse, kernel-doc, checkpatch, shellcheck
#   make unit       user-space unit tests (googletest, ASan/UBSan)
#   make fuzz       libFuzzer on the parser, gap tracker and pool for
#                   FUZZ_SECONDS (default 300) seconds each (make test: 10)
#   make vmtest     boot the Debian kernel in a VM and run test/vm
#   make test       all of the above, ending in "N passed, N failed"
#   make demo       build, boot, load Homa, open sockets (the main job)
#   make rtt        small-RPC round trip, Homa vs TCP, in the VM (a figure)
#   make bench      Homa vs TCP vs DCTCP on the emulated datacenter, with
#                   tables and plots (util/README-bench.md; BENCH_ARGS=...)

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TOOLS := $(TOP)/.tools

# The kernel to build against: the running kernel's build tree if it has
# one, else the newest Debian amd64 headers installed.
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then \
		echo /lib/modules/$$(uname -r)/build; else \
		ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | \
		tail -n 1; fi)
KVER = $(patsubst linux-headers-%,%,$(notdir $(realpath $(KDIR))))

.PHONY: all modules setup check unit fuzz vmtest test demo rtt bench clean print-kdir

all: modules

modules: setup
	$(MAKE) -C $(KDIR) M=$(TOP) modules

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
	@$(TOP)/test/vm/run.sh

test: setup
	@$(TOP)/scripts/test.sh

demo: modules
	@$(TOP)/scripts/demo.sh

print-kdir:
	@echo $(KDIR)

rtt: modules
	@$(TOP)/scripts/rtt_compare.sh

bench: modules
	$(MAKE) -C $(TOP)/util
	$(TOP)/util/cp_vs_tcp $(BENCH_ARGS)

clean:
	$(MAKE) -C $(KDIR) M=$(TOP) clean
	-$(MAKE) -C $(TOP)/test/unit clean
	-$(MAKE) -C $(TOP)/test/fuzz clean
	rm -rf $(TOP)/test/vm/build
