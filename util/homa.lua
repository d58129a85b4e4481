-- SPDX-License-Identifier: GPL-2.0+
--
-- A Wireshark dissector for Homa (IP protocol 146), for the packets of
-- this module as homa_wire.h lays them out: a 28-byte common header
-- shaped like TCP's, then one body per packet type. Every field is
-- big-endian.
--
--   tshark -X lua_script:util/homa.lua -r homa.pcap
--   wireshark -X lua_script:util/homa.lua homa.pcap
-- or copy this file into ~/.local/lib/wireshark/plugins/.
--
-- Filter fields all start with "homa."; "homa.type", "homa.sender_id",
-- "homa.data.offset" and "homa.grant.offset" are the most useful.

local homa = Proto("homa", "Homa transport")

local TYPES = {
	[0x10] = "DATA",
	[0x11] = "GRANT",
	[0x12] = "RESEND",
	[0x13] = "RPC_UNKNOWN",
	[0x14] = "BUSY",
	[0x15] = "CUTOFFS",
	[0x17] = "NEED_ACK",
	[0x18] = "ACK",
}

-- Bytes each type's header takes, the common header included.
local HEADER_LEN = {
	[0x10] = 56, [0x11] = 33, [0x12] = 37, [0x13] = 28,
	[0x14] = 28, [0x15] = 62, [0x17] = 28, [0x18] = 80,
}

local COMMON_LEN = 28
local MAX_ACKS = 5
local NUM_PRIORITIES = 8
local RESEND_ALL = 0xffffffff
local DATA_INCAST = 0x01
-- GRANT flag in the common flags byte: the receiver sees the data congested.
local GRANT_CONGESTED = 0x01

local f = homa.fields

-- The common header.
f.sport = ProtoField.uint16("homa.sport", "Source port")
f.dport = ProtoField.uint16("homa.dport", "Destination port")
f.port = ProtoField.uint16("homa.port", "Port (either)")
f.sequence = ProtoField.uint32("homa.sequence",
	"Sequence (DATA: offset of the first byte)")
f.unused1 = ProtoField.bytes("homa.unused1", "Unused")
f.type = ProtoField.uint8("homa.type", "Type", base.HEX, TYPES)
f.doff = ProtoField.uint8("homa.doff", "Data offset", base.HEX)
f.hdr_len = ProtoField.uint8("homa.hdr_len", "Header length (doff)")
f.cflags = ProtoField.uint8("homa.flags", "Common flags", base.HEX)
f.window = ProtoField.uint16("homa.window", "Window (unused)")
f.checksum = ProtoField.uint16("homa.checksum", "Checksum (unused)",
	base.HEX)
f.urgent = ProtoField.uint16("homa.urgent", "Urgent (unused)")
f.sender_id = ProtoField.uint64("homa.sender_id", "Sender's RPC id")
f.client_id = ProtoField.uint64("homa.rpc_id",
	"RPC id on the client (sender_id without its low bit)")
f.from_server = ProtoField.bool("homa.from_server",
	"Sent by the RPC's server")

-- DATA.
f.msg_len = ProtoField.uint32("homa.data.message_length", "Message length")
f.incoming = ProtoField.uint32("homa.data.incoming",
	"Incoming (sender may send below this offset)")
f.data_ack_id = ProtoField.uint64("homa.data.ack.client_id",
	"Piggybacked ack: client RPC id")
f.data_ack_port = ProtoField.uint16("homa.data.ack.server_port",
	"Piggybacked ack: server port")
f.data_cutoff_version = ProtoField.uint16("homa.data.cutoff_version",
	"Cutoff version")
f.retransmit = ProtoField.uint8("homa.data.retransmit", "Retransmit")
f.dflags = ProtoField.uint8("homa.data.flags", "Flags", base.HEX)
f.incast = ProtoField.bool("homa.data.flags.incast",
	"Incast (answer with few unscheduled bytes)", 8, nil, DATA_INCAST)
f.data_pad = ProtoField.bytes("homa.data.pad", "Padding")
f.offset = ProtoField.uint32("homa.data.offset", "Offset")
f.data_len = ProtoField.uint32("homa.data.length", "Payload bytes")
f.payload = ProtoField.bytes("homa.data.payload", "Payload")

-- GRANT.
f.grant_offset = ProtoField.uint32("homa.grant.offset",
	"Granted offset (send every byte below it)")
f.grant_prio = ProtoField.uint8("homa.grant.priority", "Priority")
f.grant_congested = ProtoField.bool("homa.grant.congested",
	"Congested (the receiver sees this sender's data delayed)", 8, nil,
	GRANT_CONGESTED)

-- RESEND.
f.resend_offset = ProtoField.uint32("homa.resend.offset", "Offset")
f.resend_len = ProtoField.uint32("homa.resend.length", "Length", base.DEC,
	{ [RESEND_ALL] = "all sent so far" })
f.resend_prio = ProtoField.uint8("homa.resend.priority", "Priority")

-- CUTOFFS.
f.cutoff = ProtoField.uint32("homa.cutoffs.unsched",
	"Unscheduled cutoff (largest message for this priority)")
f.cutoffs_version = ProtoField.uint16("homa.cutoffs.version",
	"Cutoff version")

-- ACK.
f.num_acks = ProtoField.uint16("homa.ack.num_acks", "Acks")
f.ack_id = ProtoField.uint64("homa.ack.client_id", "Client RPC id")
f.ack_port = ProtoField.uint16("homa.ack.server_port", "Server port")

local ef_short = ProtoExpert.new("homa.short", "Packet too short",
	expert.group.MALFORMED, expert.severity.ERROR)
local ef_type = ProtoExpert.new("homa.unknown_type", "Unknown packet type",
	expert.group.UNDECODED, expert.severity.WARN)
local ef_acks = ProtoExpert.new("homa.bad_num_acks",
	"num_acks beyond the 5 an ACK holds", expert.group.MALFORMED,
	expert.severity.ERROR)
homa.experts = { ef_short, ef_type, ef_acks }

local function ack_entry(tree, buf, at, label)
	local sub = tree:add(homa, buf(at, 10), label)

	sub:add(f.ack_id, buf(at, 8))
	sub:add(f.ack_port, buf(at + 8, 2))
	return buf(at, 8):uint64(), buf(at + 8, 2):uint()
end

local function data_body(buf, tree, pinfo)
	local msg_len = buf(28, 4):uint()
	local offset = buf(52, 4):uint()
	-- The payload's length on the wire: a capture may keep less of it.
	local payload = buf:reported_length_remaining() - 56
	local kept = buf:len() - 56
	local flags = buf(49, 1):uint()

	tree:add(f.msg_len, buf(28, 4))
	tree:add(f.incoming, buf(32, 4))
	local ack = tree:add(homa, buf(36, 10), "Piggybacked ack")
	ack:add(f.data_ack_id, buf(36, 8))
	ack:add(f.data_ack_port, buf(44, 2))
	tree:add(f.data_cutoff_version, buf(46, 2))
	tree:add(f.retransmit, buf(48, 1))
	local fl = tree:add(f.dflags, buf(49, 1))
	fl:add(f.incast, buf(49, 1))
	tree:add(f.data_pad, buf(50, 2))
	tree:add(f.offset, buf(52, 4))
	tree:add(f.data_len, payload):set_generated()
	if kept > 0 then
		tree:add(f.payload, buf(56, kept))
	end
	local info = string.format(" msg %u bytes %u-%u", msg_len, offset,
		offset + payload)
	if buf(48, 1):uint() ~= 0 then
		info = info .. " retransmit"
	end
	if bit.band(flags, DATA_INCAST) ~= 0 then
		info = info .. " incast"
	end
	return info
end

local function grant_body(buf, tree)
	local info

	tree:add(f.grant_offset, buf(28, 4))
	tree:add(f.grant_prio, buf(32, 1))
	tree:add(f.grant_congested, buf(13, 1))
	info = string.format(" offset %u prio %u", buf(28, 4):uint(),
		buf(32, 1):uint())
	if bit.band(buf(13, 1):uint(), GRANT_CONGESTED) ~= 0 then
		info = info .. " congested"
	end
	return info
end

local function resend_body(buf, tree)
	local len = buf(32, 4):uint()

	tree:add(f.resend_offset, buf(28, 4))
	tree:add(f.resend_len, buf(32, 4))
	tree:add(f.resend_prio, buf(36, 1))
	return string.format(" offset %u length %s prio %u", buf(28, 4):uint(),
		len == RESEND_ALL and "all" or tostring(len), buf(36, 1):uint())
end

local function cutoffs_body(buf, tree)
	local list = tree:add(homa, buf(28, 4 * NUM_PRIORITIES),
		"Unscheduled cutoffs, priority 0 to 7")
	local values = {}

	for i = 0, NUM_PRIORITIES - 1 do
		local r = buf(28 + 4 * i, 4)

		list:add(f.cutoff, r):prepend_text("Priority " .. i .. ": ")
		values[#values + 1] = tostring(r:uint())
	end
	tree:add(f.cutoffs_version, buf(60, 2))
	return string.format(" version %u [%s]", buf(60, 2):uint(),
		table.concat(values, " "))
end

local function ack_body(buf, tree, pinfo)
	local n = buf(28, 2):uint()
	local item = tree:add(f.num_acks, buf(28, 2))

	if n > MAX_ACKS then
		item:add_proto_expert_info(ef_acks)
		n = MAX_ACKS
	end
	for i = 0, n - 1 do
		ack_entry(tree, buf, 30 + 10 * i, "Ack " .. i)
	end
	return string.format(" %u acks", buf(28, 2):uint())
end

function homa.dissector(buf, pinfo, root)
	local len = buf:len()

	pinfo.cols.protocol = "Homa"
	local tree = root:add(homa, buf())
	if len < COMMON_LEN then
		tree:add_proto_expert_info(ef_short)
		pinfo.cols.info = "Homa (short)"
		return len
	end
	local type = buf(11, 1):uint()
	local id = buf(20, 8):uint64()
	local from_server = id:band(UInt64(1)) == UInt64(1)

	tree:add(f.sport, buf(0, 2))
	tree:add(f.dport, buf(2, 2))
	tree:add(f.port, buf(0, 2)):set_hidden()
	tree:add(f.port, buf(2, 2)):set_hidden()
	tree:add(f.sequence, buf(4, 4))
	tree:add(f.unused1, buf(8, 3))
	tree:add(f.type, buf(11, 1))
	local doff = tree:add(f.doff, buf(12, 1))
	doff:add(f.hdr_len, buf(12, 1):bitfield(0, 4) * 4):set_generated()
	tree:add(f.cflags, buf(13, 1))
	tree:add(f.window, buf(14, 2))
	tree:add(f.checksum, buf(16, 2))
	tree:add(f.urgent, buf(18, 2))
	tree:add(f.sender_id, buf(20, 8))
	tree:add(f.client_id, id:band(UInt64(0xfffffffe, 0xffffffff)))
		:set_generated()
	tree:add(f.from_server, from_server):set_generated()

	local name = TYPES[type]
	local info = string.format("%s %u > %u id %s", name or
		string.format("type 0x%02x", type), buf(0, 2):uint(),
		buf(2, 2):uint(), tostring(id))
	if not name then
		tree:add_proto_expert_info(ef_type)
		pinfo.cols.info = info
		return len
	end
	tree:append_text(", " .. name)
	if len < HEADER_LEN[type] then
		tree:add_proto_expert_info(ef_short)
		pinfo.cols.info = info .. " (short)"
		return len
	end
	if type == 0x10 then
		info = info .. data_body(buf, tree, pinfo)
	elseif type == 0x11 then
		info = info .. grant_body(buf, tree)
	elseif type == 0x12 then
		info = info .. resend_body(buf, tree)
	elseif type == 0x15 then
		info = info .. cutoffs_body(buf, tree)
	elseif type == 0x18 then
		info = info .. ack_body(buf, tree, pinfo)
	end
	pinfo.cols.info = info
	return len
end

DissectorTable.get("ip.proto"):add(146, homa)
