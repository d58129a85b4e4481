#!/usr/bin/env python3
"""Report non-static functions that lack a kernel-doc comment.

Usage: kdoc_coverage.py FILE.c...
A definition at the start of a line, not static, must be directly preceded
by a comment that opens with '/**' and names the function. Prints one line
per missing comment; exits 1 if there is any.
"""
import re
import sys

DEF = re.compile(r'^(?!static\b)[a-z_][\w \*]*?\b(\w+)\(')


def missing(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    out = []
    for i, line in enumerate(lines):
        m = DEF.match(line)
        if not m or line.rstrip().endswith(';') or line.startswith('return'):
            continue
        # A definition: the line (or the next ones) reach '{' before ';'.
        rest = '\n'.join(lines[i:i + 6])
        if rest.find('{') < 0 or 0 <= rest.find(';') < rest.find('{'):
            continue
        j = i - 1
        if j < 0 or lines[j].strip() != '*/':
            out.append(f'{path}:{i + 1}: {m.group(1)}() has no kernel-doc')
            continue
        while j >= 0 and not lines[j].lstrip().startswith('/*'):
            j -= 1
        if j < 0 or not lines[j].startswith('/**') or \
                m.group(1) not in lines[j + 1]:
            out.append(f'{path}:{i + 1}: {m.group(1)}() has no kernel-doc')
    return out


def main():
    bad = [msg for path in sys.argv[1:] for msg in missing(path)]
    for msg in bad:
        print(msg)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
