# SPDX-License-Identifier: GPL-2.0+
"""The text tables the driver prints: one helper for every table, and the
number formats they share."""

import math


def fmt_size(n):
    """A byte count in at most 4 characters: 999, 1.5K, 64K, 10M."""
    if n is None:
        return '-'
    for unit, div in (('M', 1000000), ('K', 1000)):
        if n >= div:
            v = n / float(div)
            return ('%.0f%s' if v >= 10 else '%.1f%s') % (v, unit)
    return str(n)


def fmt_num(x):
    """A slowdown or a time: one decimal below 100, none above; '-' for
    none."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return '-'
    return '%.1f' % x if x < 100 else '%.0f' % x


def cell(x, fmt='%d'):
    """X formatted with FMT, or '-' for None."""
    return '-' if x is None else fmt % x


class Table:
    """Lines of columns of fixed widths, separated by one space: a cell is
    right-aligned in its width, left-aligned when the width is negative
    (as in '%-6s'). Cells are strings (see cell()); a line may have fewer
    cells than columns (e.g. a name, then free text)."""

    def __init__(self, *widths):
        self.widths = widths

    def line(self, *cells):
        return ' '.join('%*s' % (w, c) for w, c in zip(self.widths, cells))
