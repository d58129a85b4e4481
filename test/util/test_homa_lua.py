# SPDX-License-Identifier: GPL-2.0+
"""util/homa.lua, the Wireshark dissector, on packets built here byte by
byte from homa_wire.h's layout: every field of every type decodes to the
value put there, and short or unknown packets are flagged, not misread.
(test/vm/t_dissector.sh checks it on real traffic in the VM.)"""

import os
import shutil
import struct
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LUA = os.path.join(TOP, "util", "homa.lua")


def common(sport, dport, typ, sender_id, hdr_len, sequence=0):
    """The 28-byte common header."""
    doff = min((hdr_len + 3) // 4, 15) << 4
    return struct.pack(">HHI3sBBBHHHQ", sport, dport, sequence, b"\0" * 3,
                       typ, doff, 0, 0, 0, 0, sender_id)


# (name, Homa bytes, {field: expected tshark value})
PACKETS = [
    ("data",
     common(0x8001, 80, 0x10, 1234, 56, 2800) +
     struct.pack(">IIQHHBB2sI", 500000, 60000, 1232, 80, 3, 1, 0x01,
                 b"\0\0", 2800) + b"z" * 1000,
     {"homa.type": "0x10", "homa.sport": "32769", "homa.dport": "80",
      "homa.sequence": "2800", "homa.sender_id": "1234",
      "homa.rpc_id": "1234", "homa.from_server": "0",
      "homa.data.message_length": "500000", "homa.data.incoming": "60000",
      "homa.data.ack.client_id": "1232", "homa.data.ack.server_port": "80",
      "homa.data.cutoff_version": "3", "homa.data.retransmit": "1",
      "homa.data.flags": "0x01", "homa.data.flags.incast": "1",
      "homa.data.offset": "2800", "homa.data.length": "1000",
      "homa.hdr_len": "56"}),
    ("data, no flags",
     common(0x8001, 80, 0x10, 1234, 56) +
     struct.pack(">IIQHHBB2sI", 10, 10, 0, 0, 1, 0, 0, b"\0\0", 0) +
     b"0123456789",
     {"homa.data.flags.incast": "0", "homa.data.retransmit": "0",
      "homa.data.length": "10", "homa.data.offset": "0"}),
    ("grant",
     common(80, 0x8001, 0x11, 1235, 33) + struct.pack(">IB", 123456, 6),
     {"homa.type": "0x11", "homa.sender_id": "1235", "homa.rpc_id": "1234",
      "homa.from_server": "1", "homa.grant.offset": "123456",
      "homa.grant.priority": "6"}),
    ("resend",
     common(80, 0x8001, 0x12, 1235, 37) +
     struct.pack(">IIB", 7000, 0xffffffff, 5),
     {"homa.type": "0x12", "homa.resend.offset": "7000",
      "homa.resend.length": "4294967295", "homa.resend.priority": "5"}),
    ("rpc_unknown", common(80, 0x8001, 0x13, 1235, 28),
     {"homa.type": "0x13", "homa.sport": "80", "homa.dport": "32769"}),
    ("busy", common(0x8001, 80, 0x14, 1234, 28),
     {"homa.type": "0x14", "homa.sender_id": "1234"}),
    ("cutoffs",
     common(80, 0x8001, 0x15, 1235, 62) +
     struct.pack(">8IH", 0, 0, 0, 0, 1000000, 15000, 2800, 200, 9),
     {"homa.type": "0x15",
      "homa.cutoffs.unsched": "0,0,0,0,1000000,15000,2800,200",
      "homa.cutoffs.version": "9"}),
    ("need_ack", common(80, 0x8001, 0x17, 1235, 28),
     {"homa.type": "0x17", "homa.from_server": "1"}),
    ("ack",
     common(0x8001, 80, 0x18, 1234, 80) + struct.pack(">H", 3) +
     struct.pack(">QHQHQH", 1234, 80, 1236, 80, 1238, 81) + b"\0" * 20,
     {"homa.type": "0x18", "homa.ack.num_acks": "3",
      "homa.ack.client_id": "1234,1236,1238",
      "homa.ack.server_port": "80,80,81"}),
    ("short grant", common(80, 0x8001, 0x11, 1235, 33) + b"\0\0",
     {"homa.type": "0x11", "homa.grant.offset": "",
      "_ws.expert.message": "Packet too short"}),
    ("short common header", b"\0" * 20,
     {"homa.type": "", "_ws.expert.message": "Packet too short"}),
    ("unknown type", common(80, 0x8001, 0x30, 1235, 28),
     {"homa.type": "0x30", "_ws.expert.message": "Unknown packet type"}),
    ("ack, num_acks too big",
     common(0x8001, 80, 0x18, 1234, 80) + struct.pack(">H", 9) +
     b"\0" * 50,
     {"homa.ack.num_acks": "9",
      "_ws.expert.message": "num_acks beyond the 5 an ACK holds"}),
]


def pcap(path, payloads):
    """Write raw IPv4 packets of protocol 146 (link type 101, raw IP)."""
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535,
                              101))
        for i, body in enumerate(payloads):
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(body), i, 0,
                             64, 146, 0, bytes([10, 0, 0, 1]),
                             bytes([10, 0, 0, 2]))
            pkt = ip + body
            out.write(struct.pack("<IIII", i, 0, len(pkt), len(pkt)) + pkt)


@unittest.skipUnless(shutil.which("tshark"), "tshark not installed")
class HomaLua(unittest.TestCase):
    def test_fields(self):
        fields = sorted({f for _, _, want in PACKETS for f in want})
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "homa.pcap")
            pcap(path, [body for _, body, _ in PACKETS])
            cmd = ["tshark", "-X", "lua_script:" + LUA, "-r", path,
                   "-T", "fields", "-E", "occurrence=a",
                   "-E", "aggregator=,"]
            for f in fields:
                cmd += ["-e", f]
            out = subprocess.run(cmd, capture_output=True, text=True,
                                 check=True).stdout
        rows = out.rstrip("\n").split("\n")
        self.assertEqual(len(rows), len(PACKETS))
        for (name, _, want), row in zip(PACKETS, rows):
            got = dict(zip(fields, row.split("\t")))
            for field, value in want.items():
                with self.subTest(packet=name, field=field):
                    self.assertEqual(got[field], value)


if __name__ == "__main__":
    unittest.main()
