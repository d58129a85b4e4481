# SPDX-License-Identifier: GPL-2.0+
"""Parsers of what the hosts print: cp_node's status and summary lines and
--output files, /proc/net/homa_metrics and homa_peers, `ss -ti`, `tc -s
qdisc show` and `tc -s filter show`, /proc/stat."""

import re


_NUM = re.compile(r'^-?\d+(\.\d+)?$')


def parse_kv_line(line, prefix):
    """The key=value fields of a cp_node line that starts with PREFIX
    ("status:" or "summary:"), numbers converted; None for other lines."""
    line = line.strip()
    if not line.startswith(prefix):
        return None
    out = {}
    for tok in line[len(prefix):].split():
        if '=' not in tok:
            continue
        k, v = tok.split('=', 1)
        if _NUM.match(v):
            out[k] = float(v) if '.' in v else int(v)
        else:
            out[k] = v
    return out


def parse_status(line):
    return parse_kv_line(line, 'status:')


def parse_summary(line):
    return parse_kv_line(line, 'summary:')


def parse_rtts(text):
    """(request_length, rtt_ns) pairs from a cp_node --output file."""
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 2 or line.lstrip().startswith('#'):
            continue
        try:
            out.append((int(f[0]), int(f[1])))
        except ValueError:
            continue
    return out


def read_rtts(path):
    try:
        with open(path) as f:
            return parse_rtts(f.read())
    except OSError:
        return []


def parse_homa_metrics(text):
    """{name: value} of a /proc/net/homa_metrics text (lines "name value
    description")."""
    out = {}
    for line in (text or '').splitlines():
        f = line.split()
        if len(f) >= 2 and re.match(r'^[a-z_0-9]+$', f[0]) and \
                f[1].isdigit():
            out[f[0]] = int(f[1])
    return out


# The columns of /proc/net/homa_peers when its text has no header line.
_PEERS_COLS = ('samples', 'rtt_min_ns', 'srtt_ns', 'rttvar_ns', 'sched_window',
               'resend_backoff', 'rx_samples', 'rx_rtt_min_ns',
               'rx_recent_ns', 'congested', 'grant_scale', 'tx_congested',
               'tx_scale', 'rx_srtt_ns', 'rx_rttvar_ns', 'rx_window',
               'window')


def parse_homa_peers(text):
    """{address: {column: value}} of a /proc/net/homa_peers text: a
    header line ("addr" and the column names), then per peer its address
    and one number per column. Without a header the columns are
    _PEERS_COLS; a line with another number of fields is skipped."""
    out = {}
    cols = _PEERS_COLS
    for line in (text or '').splitlines():
        f = line.split()
        if f and f[0] == 'addr':
            cols = tuple(f[1:])
            continue
        if len(f) != 1 + len(cols) or not f[1].isdigit():
            continue
        try:
            out[f[0]] = {k: int(v) for k, v in zip(cols, f[1:])}
        except ValueError:
            continue
    return out


def parse_ss_bytes_received(text):
    """The sum of the bytes_received of the sockets in an `ss -ti` text."""
    return sum(int(x) for x in re.findall(r'\bbytes_received:(\d+)',
                                          text or ''))


def metrics_delta(before, after):
    """AFTER - BEFORE per metric of AFTER (a metric missing before counts
    from 0; gauges come out as their change)."""
    return {k: v - before.get(k, 0) for k, v in after.items()}


_QDISC_HEAD = re.compile(r'^qdisc (\S+) (\S+)(?: dev (\S+))? '
                         r'(root|parent (\S+))')


_QDISC_SENT = re.compile(r'^\s*Sent (\d+) bytes (\d+) pkt \(dropped '
                         r'(\d+), overlimits (\d+)')


def parse_qdisc_stats(text, dev=None):
    """The qdiscs of a `tc -s qdisc show` text: dicts with kind, handle,
    dev (DEV when the text names none, as with `show dev X`), parent (None
    for the root), sent_bytes, sent_pkts, dropped, overlimits."""
    out, cur = [], None
    for line in (text or '').splitlines():
        m = _QDISC_HEAD.match(line)
        if m:
            cur = {'kind': m.group(1), 'handle': m.group(2),
                   'dev': m.group(3) or dev,
                   'parent': None if m.group(4) == 'root' else m.group(5),
                   'sent_bytes': 0, 'sent_pkts': 0, 'dropped': 0,
                   'overlimits': 0}
            out.append(cur)
            continue
        m = _QDISC_SENT.match(line)
        if m and cur is not None:
            cur['sent_bytes'], cur['sent_pkts'], cur['dropped'], \
                cur['overlimits'] = [int(x) for x in m.groups()]
    return out


def qdisc_drops(text, dev):
    """Packets dropped by DEV's queues in a `tc -s qdisc show` text (of
    all devices, or of DEV alone): (the root qdisc's count, which includes
    its children's, or None if DEV has no root there; {handle: dropped} of
    the leaves that dropped any)."""
    qs = [q for q in parse_qdisc_stats(text, dev) if q['dev'] == dev]
    root = [q['dropped'] for q in qs if q['parent'] is None]
    # A qdisc is a leaf when no other names its handle's major as parent.
    inner = {q['parent'].split(':')[0] for q in qs if q['parent']}
    leaves = {q['handle']: q['dropped'] for q in qs
              if q['parent'] and q['dropped'] and
              q['handle'].split(':')[0] not in inner}
    return (root[0] if root else None), leaves


def qdisc_sent(text, dev):
    """Bytes sent by DEV's root qdisc in a `tc -s qdisc show` text, or
    None."""
    for q in parse_qdisc_stats(text, dev):
        if q['dev'] == dev and q['parent'] is None:
            return q['sent_bytes']
    return None


def band_drops(text, dev):
    """{band: dropped} of the bands of DEV's prio qdisc (the leaf under
    parent P:M is band M-1; M is hexadecimal) in a `tc -s qdisc show`
    text."""
    qs = [q for q in parse_qdisc_stats(text, dev) if q['dev'] == dev]
    prio = [q['handle'].split(':')[0] for q in qs if q['kind'] == 'prio']
    out = {}
    for q in qs:
        if prio and q['parent'] and q['parent'].split(':')[0] == prio[0]:
            out[int(q['parent'].split(':')[1], 16) - 1] = q['dropped']
    return out


def band_drops_between(before, after, dev):
    """{band: drops} of DEV's bands between two `tc -s qdisc show` texts
    (as drops_between; {} when either text lacks them)."""
    a, b = band_drops(before, dev), band_drops(after, dev)
    return {k: (v - a[k] if v >= a[k] else v) for k, v in b.items()
            if k in a}


def drops_between(before, after, dev):
    """DEV's root drops between two `tc -s qdisc show` texts (None when
    either lacks DEV; the count since creation when the qdisc was rebuilt
    in between)."""
    if before is None or after is None:
        return None
    a, _ = qdisc_drops(before, dev)
    b, _ = qdisc_drops(after, dev)
    if a is None or b is None:
        return None
    return b - a if b >= a else b


_FILTER_PREF = re.compile(r'^filter .*\bpref (\d+)\b')
_ACTION_SENT = re.compile(r'^\s*Sent (\d+) bytes (\d+) pkt')


def parse_filter_bytes(text):
    """{pref: bytes} of a `tc -s filter show` text: the bytes that the
    actions of the filters of each preference counted ("Sent N bytes" of
    their action statistics), summed per preference."""
    out, pref = {}, None
    for line in (text or '').splitlines():
        m = _FILTER_PREF.match(line)
        if m:
            pref = int(m.group(1))
            continue
        m = _ACTION_SENT.match(line)
        if m and pref is not None:
            out[pref] = out.get(pref, 0) + int(m.group(1))
    return out


def cpu_cores(stat):
    """The CPUs a /proc/stat text counts (its cpuN lines), or None."""
    n = sum(1 for line in (stat or '').splitlines()
            if line.startswith('cpu') and line[3:4].isdigit())
    return n or None


def cpu_busy(stat_before, stat_after):
    """Busy fraction of all CPUs between two /proc/stat texts."""
    def total(text):
        for line in text.splitlines():
            f = line.split()
            if f and f[0] == 'cpu':
                v = [int(x) for x in f[1:]]
                idle = v[3] + (v[4] if len(v) > 4 else 0)
                return sum(v[:8]), idle
        return None
    a, b = total(stat_before or ''), total(stat_after or '')
    if not a or not b or b[0] <= a[0]:
        return None
    return 1.0 - (b[1] - a[1]) / float(b[0] - a[0])
