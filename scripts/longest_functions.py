#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0+
"""The longest functions of some source files, longest first, from
universal-ctags' start and end lines (C, C++, Python; a file without an
extension is read as Python when its first line names python).

Usage: scripts/longest_functions.py [--top N] [--max L] PATH...
  PATH     files or directories (searched for *.c, *.h, *.cc, *.py and
           python scripts)
  --top N  print the N longest (default 10)
  --max L  exit 1 if any function is longer than L lines
"""

import argparse
import os
import subprocess
import sys

LANGS = {'.c': 'C', '.h': 'C++', '.cc': 'C++', '.py': 'Python'}
KINDS = {'C': 'f', 'C++': 'f', 'Python': 'fm'}


def language(path):
    """The ctags language of PATH, or None."""
    ext = os.path.splitext(path)[1]
    if ext in LANGS:
        return LANGS[ext]
    if ext:
        return None
    try:
        with open(path, errors='replace') as f:
            first = f.readline()
    except OSError:
        return None
    return 'Python' if first.startswith('#!') and 'python' in first else None


def sources(paths):
    """(path, language) of the source files under PATHS."""
    for p in paths:
        if os.path.isfile(p):
            names = [p]
        else:
            names = sorted(os.path.join(d, f) for d, _, fs in os.walk(p)
                           for f in fs if '/build' not in d)
        for name in names:
            lang = language(name)
            if lang:
                yield name, lang


def functions(path, lang):
    """(lines, name, path:line) of every function of PATH."""
    out = subprocess.run(
        ['ctags', '-f', '-', '--fields=+ne', '--language-force=' + lang,
         '--kinds-%s=%s' % (lang, KINDS[lang]), path],
        stdout=subprocess.PIPE, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split('\t')
        fields = dict(x.split(':', 1) for x in f[3:] if ':' in x)
        if 'line' in fields and 'end' in fields:
            start, end = int(fields['line']), int(fields['end'])
            yield end - start + 1, f[0], '%s:%d' % (path, start)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--top', type=int, default=10)
    ap.add_argument('--max', type=int)
    ap.add_argument('paths', nargs='+')
    a = ap.parse_args(argv)
    funcs = sorted((fn for p, lang in sources(a.paths)
                    for fn in functions(p, lang)), reverse=True)
    for n, name, where in funcs[:a.top]:
        print('%5d  %-28s %s' % (n, name, where))
    if a.max is not None:
        over = [fn for fn in funcs if fn[0] > a.max]
        print('%d function(s) over %d lines' % (len(over), a.max))
        return 1 if over else 0
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
