# SPDX-License-Identifier: GPL-2.0+
"""cpvt: the Homa vs TCP vs DCTCP benchmark driver behind util/cp_vs_tcp.

Modules, from the bottom up:
  common      paths, protocols and Homa variants, log()
  parse       cp_node's lines, /proc/net/homa_*, tc and ss statistics
  stats       percentiles, baselines and slowdowns (numpy)
  table       the one text-table helper and number formats
  runner      where commands run: Proc, Runner, NetnsRunner (the VM's
              test bed), HostsRunner (a hosts file, ssh)
  testbed     util/testbed's options, building and tearing down the bed
  experiment  what every mode does on the hosts: servers, clients, progress
  cross       TCP beside Homa into one host (rttwin, share): the TCP
              flows, the readings around a run, failed-run records
  modes/      one module per --mode behind a small registry (modes.MODES)
  plots       the PNGs (matplotlib)
  report      analyze(): a results directory to its table and summary.json
  options     the command line
  vm          booting the VM through scripts/vm.sh
  cli         main(): run in the VM, on a hosts file, or only analyze
See util/README-bench.md.
"""
