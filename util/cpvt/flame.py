# SPDX-License-Identifier: GPL-2.0+
"""Flame graphs of `perf script` output, written for this project (Debian
bookworm packages no flame graph tool).

fold() turns the samples of `perf script` (a header line per sample, then
its call chain innermost first, one frame a line) into folded stacks:
"comm;outermost;...;innermost" -> samples. Kernel frames end in " [k]",
frames of a kernel module in " [MODULE]" (e.g. " [homa]": perf may report
them as [kernel.kallsyms]; the module's symbols from /proc/kallsyms tell
them apart), user frames carry no tag. svg() draws them: one rectangle per
frame, as wide as its samples, the callers below their callees, siblings
in name order; each rectangle's tooltip gives the frame, its samples and
their share of the whole.

Also a command: flame.py fold [--kallsyms FILE] < perf-script-output
                 flame.py svg [--title T] < folded > graph.svg
"""

import argparse
import re
import sys
import zlib
from xml.sax.saxutils import escape

# A frame line of `perf script`: address, symbol[+offset], (dso).
_FRAME = re.compile(r'^\s+([0-9a-fA-F]+)\s+(.*?)\s+\((.*)\)\s*$')
# A sample's header: comm (may hold spaces), pid[/tid], [cpu].
_HEADER = re.compile(r'^(.*?)\s+(\d+)(?:/\d+)?\s+(?:\[\d+\]\s)?')
_OFFSET = re.compile(r'\+0x[0-9a-fA-F]+$')


def module_symbols(kallsyms_text):
    """{symbol: module} of the module symbols in a /proc/kallsyms text
    (lines "address type name [module]")."""
    out = {}
    for line in kallsyms_text.splitlines():
        f = line.split()
        if len(f) >= 4 and f[3].startswith('[') and f[3].endswith(']'):
            out.setdefault(f[2], f[3][1:-1])
    return out


def frame_name(sym, dso, modsyms=None):
    """The folded name of one frame: the symbol without its offset, tagged
    with where it lives (" [k]" kernel, " [MOD]" a module)."""
    sym = _OFFSET.sub('', sym.strip())
    base = dso.rsplit('/', 1)[-1]
    if not sym or sym == '[unknown]':
        sym = '[%s]' % base.strip('[]') if base not in ('', '[unknown]') \
            else '[unknown]'
    if modsyms and sym in modsyms:
        return '%s [%s]' % (sym, modsyms[sym])
    if dso == '[kernel.kallsyms]' or dso.startswith('[kernel'):
        return sym + ' [k]'
    if dso.startswith('[') and dso.endswith(']') and dso not in (
            '[unknown]', '[vdso]', '[vsyscall]', '[heap]', '[stack]'):
        return '%s [%s]' % (sym, dso[1:-1])
    return sym


def _clean(name):
    # ';' separates frames of a folded stack; a frame keeps none.
    return name.replace(';', ':')


def samples(lines, modsyms=None):
    """The samples of `perf script` output LINES: (comm, frames outermost
    first) each."""
    comm, frames = None, []
    for line in lines:
        line = line.rstrip('\n')
        if not line.strip():
            if comm is not None:
                yield comm, frames[::-1]
            comm, frames = None, []
            continue
        m = _FRAME.match(line) if line[0] in ' \t' else None
        if m:
            if comm is not None:
                frames.append(_clean(frame_name(m.group(2), m.group(3),
                                                modsyms)))
            continue
        if comm is not None:
            yield comm, frames[::-1]
        h = _HEADER.match(line)
        comm = _clean(h.group(1).strip() if h else line.split()[0])
        frames = []
    if comm is not None:
        yield comm, frames[::-1]


def fold(lines, modsyms=None):
    """{folded stack: samples} of `perf script` output LINES."""
    out = {}
    for comm, frames in samples(lines, modsyms):
        key = ';'.join([comm] + frames)
        out[key] = out.get(key, 0) + 1
    return out


def folded_text(counts):
    return ''.join('%s %d\n' % (k, v) for k, v in sorted(counts.items()))


def parse_folded(text):
    """{stack: samples} of folded text (lines "a;b;c COUNT")."""
    out = {}
    for line in text.splitlines():
        stack, _, n = line.rstrip().rpartition(' ')
        if stack and n.isdigit():
            out[stack] = out.get(stack, 0) + int(n)
    return out


class Node:
    """A frame of the merged call tree: its samples and its callees."""

    def __init__(self, name):
        self.name, self.count, self.children = name, 0, {}

    def child(self, name):
        if name not in self.children:
            self.children[name] = Node(name)
        return self.children[name]


def tree(counts):
    """The call tree of folded stacks COUNTS, under a root "all"."""
    root = Node('all')
    for stack, n in counts.items():
        node = root
        node.count += n
        for name in stack.split(';'):
            node = node.child(name)
            node.count += n
    return root


def layout(root, scale, min_width=0.0):
    """The rectangles of the tree ROOT: (depth, x, width, node), x and
    width in pixels (SCALE per sample); frames narrower than MIN_WIDTH are
    left out, with their callees."""
    out = []
    stack = [(root, 0, 0.0)]
    while stack:
        node, depth, x = stack.pop()
        w = node.count * scale
        if w < min_width or w <= 0:
            continue
        out.append((depth, x, w, node))
        cx = x
        for name in sorted(node.children):
            c = node.children[name]
            stack.append((c, depth + 1, cx))
            cx += c.count * scale
    return out


def color(name):
    """A fill color: warm for kernel frames, green-blue for a module's,
    red for user space, gray for the task name; steady per name."""
    h = zlib.crc32(name.encode()) & 0xffff
    v = h / 65535.0
    if name.endswith(' [k]'):
        return 'rgb(%d,%d,%d)' % (230, 120 + int(90 * v), 40 + int(30 * v))
    if name.endswith(']') and ' [' in name:
        return 'rgb(%d,%d,%d)' % (60 + int(60 * v), 170 + int(50 * v),
                                  150 + int(60 * v))
    return 'rgb(%d,%d,%d)' % (210 + int(40 * v), 70 + int(70 * v),
                              60 + int(40 * v))


def _label(name, width, char_px=6.5):
    n = int((width - 4) / char_px)
    if n < 3:
        return ''
    return name if len(name) <= n else name[:n - 2] + '..'


def _rect(depth, x, w, node, total, y, fh, task):
    pct = 100.0 * node.count / total
    fill = 'rgb(200,200,200)' if task else color(node.name)
    tip = '%s (%d samples, %.2f%%)' % (node.name, node.count, pct)
    label = _label(node.name, w)
    s = ('<g><title>%s</title><rect x="%.2f" y="%d" width="%.2f" '
         'height="%d" fill="%s" rx="1" data-samples="%d"/>' % (
             escape(tip), x, y, w, fh - 1, fill, node.count))
    if label:
        s += '<text x="%.2f" y="%d">%s</text>' % (x + 2, y + fh - 4,
                                                 escape(label))
    return s + '</g>\n'


def svg(counts, title='Flame graph', width=1200, frame_h=16,
        min_width=0.1):
    """An SVG flame graph (a string) of folded stacks COUNTS."""
    root = tree(counts)
    total = max(root.count, 1)
    pad, top = 10, 40
    scale = (width - 2 * pad) / float(total)
    rects = layout(root, scale, min_width)
    depth = max([d for d, _, _, _ in rects] or [0]) + 1
    height = top + depth * frame_h + 20
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n',
             '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" '
             'width="%d" height="%d" viewBox="0 0 %d %d" '
             'font-family="monospace" font-size="11">\n'
             % (width, height, width, height),
             '<rect width="100%" height="100%" fill="rgb(250,250,240)"/>\n',
             '<text x="%d" y="20" font-size="15" text-anchor="middle">%s'
             '</text>\n' % (width // 2, escape(title)),
             '<text x="%d" y="34" text-anchor="middle">%d samples; '
             'kernel [k] orange, modules [name] green, user red; hover a '
             'frame for its samples</text>\n' % (width // 2, root.count)]
    for d, x, w, node in rects:
        y = height - 20 - (d + 1) * frame_h
        parts.append(_rect(d, pad + x, w, node, total, y, frame_h, d == 1))
    parts.append('</svg>\n')
    return ''.join(parts)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    f = sub.add_parser('fold', help='perf script output -> folded stacks')
    f.add_argument('--kallsyms', help='/proc/kallsyms (module frames)')
    s = sub.add_parser('svg', help='folded stacks -> SVG')
    s.add_argument('--title', default='Flame graph')
    s.add_argument('--width', type=int, default=1200)
    a = ap.parse_args(argv)
    if a.cmd == 'fold':
        mods = None
        if a.kallsyms:
            with open(a.kallsyms) as k:
                mods = module_symbols(k.read())
        sys.stdout.write(folded_text(fold(sys.stdin, mods)))
    else:
        sys.stdout.write(svg(parse_folded(sys.stdin.read()), a.title,
                             a.width))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
