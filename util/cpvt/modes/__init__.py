# SPDX-License-Identifier: GPL-2.0+
"""The driver's modes (--mode NAME), one module each, all with:

  NAME                 the mode's name
  DEFAULTS             option defaults of the mode (over options.DEFAULTS)
  finish(cfg, error)   check the options of the mode (ERROR(message)
                       exits), after the common defaults are applied
  results_tag(cfg)     the results directory's suffix
  records(runner, cfg, outdir)
                       run the experiments on the hosts: yields one record
                       (a dict, saved in raw.json) per run
  analyze(raw, outdir) the report of raw.json: 'table' (lines), 'plots'
                       (paths) and what summary.json keeps
"""

from . import (calibrate, incast, latency, loss, rttwin, share,
               throughput)

MODES = {m.NAME: m for m in (latency, throughput, loss, calibrate, incast,
                             rttwin, share)}
