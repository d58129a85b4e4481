/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Homa's packets as they appear on the wire: the common
 * header, one header per packet type, their type codes and sizes (checked
 * at compile time), and the parser and builder of homa_wire.c, which turn
 * raw bytes into a validated host-order description and back. All wire
 * fields are big-endian and the structs are packed.
 */

#ifndef _HOMA_WIRE_H
#define _HOMA_WIRE_H

#include "homa_types.h"
#include "homa.h"

/**
 * enum homa_packet_type - the type codes carried in homa_common_hdr.type.
 * @DATA:        part of a message.
 * @GRANT:       the receiver allows the sender to send up to an offset.
 * @RESEND:      the receiver asks for a range again.
 * @RPC_UNKNOWN: the sender of a packet names an RPC this host doesn't know.
 * @BUSY:        the sender is alive but not sending this RPC now.
 * @CUTOFFS:     a receiver's unscheduled priority cutoffs.
 * @NEED_ACK:    a server asks the client to confirm its response arrived.
 * @ACK:         a client confirms responses arrived (server may free them).
 */
enum homa_packet_type {
	DATA		= 0x10,
	GRANT		= 0x11,
	RESEND		= 0x12,
	RPC_UNKNOWN	= 0x13,
	BUSY		= 0x14,
	CUTOFFS		= 0x15,
	NEED_ACK	= 0x17,
	ACK		= 0x18,
};

/* Shortest packet Homa ever sends; anything shorter is malformed. */
#define HOMA_MIN_PKT_LENGTH 26

/* Most acks an ACK packet carries. */
#define HOMA_MAX_ACKS_PER_PKT 5

/* RESEND length that means "everything sent so far". */
#define HOMA_RESEND_ALL 0xffffffffU

/**
 * struct homa_common_hdr - the first 28 bytes of every Homa packet, laid
 * out so that TSO and RSS hardware see something shaped like TCP.
 */
struct homa_common_hdr {
	/** @sport: sender's port. */
	__be16 sport;

	/** @dport: receiver's port. */
	__be16 dport;

	/** @sequence: for DATA, offset of the packet's first byte. */
	__be32 sequence;

	/** @unused1: zero; where TCP keeps its ack number. */
	u8 unused1[3];

	/** @type: one of enum homa_packet_type. */
	u8 type;

	/** @doff: high nibble is the header length in 4-byte words. */
	u8 doff;

	/** @flags: zero; where TCP keeps its flags. */
	u8 flags;

	/** @window: zero; where TCP keeps its window. */
	__be16 window;

	/** @checksum: zero; Homa relies on the link layer's checksums. */
	__be16 checksum;

	/** @urgent: zero; where TCP keeps its urgent pointer. */
	__be16 urgent;

	/** @sender_id: the RPC id as the packet's sender knows it. */
	__be64 sender_id;
} __packed;

/**
 * struct homa_ack - says that a client has received the response of an
 * RPC, so its server may free it.
 */
struct homa_ack {
	/** @client_id: the RPC's id on the client; 0 means no ack. */
	__be64 client_id;

	/** @server_port: the server port the RPC was sent to. */
	__be16 server_port;
} __packed;

/**
 * struct homa_seg_hdr - describes the bytes that follow a DATA header.
 */
struct homa_seg_hdr {
	/** @offset: offset within the message of the first byte. */
	__be32 offset;
} __packed;

/*
 * DATA flag: the client that sent this request has many RPCs outstanding
 * (incast): the response should be sent with few unscheduled bytes.
 */
#define HOMA_DATA_INCAST 0x01

/**
 * struct homa_data_hdr - header of a DATA packet; the message bytes follow.
 */
struct homa_data_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @message_length: total length of the message. */
	__be32 message_length;

	/** @incoming: the sender may send every byte below this offset. */
	__be32 incoming;

	/** @ack: an ack piggybacked for the receiver, if client_id != 0. */
	struct homa_ack ack;

	/** @cutoff_version: version of the receiver's cutoffs used. */
	__be16 cutoff_version;

	/** @retransmit: 1 when the packet answers a RESEND. */
	u8 retransmit;

	/**
	 * @flags: HOMA_DATA_* bits; the reference leaves this byte (its
	 * first pad byte) zero and ignores it.
	 */
	u8 flags;

	/** @pad: zero. */
	u8 pad[2];

	/** @seg: where the data of this packet goes. */
	struct homa_seg_hdr seg;
} __packed;

/*
 * GRANT flag, in the common header's @flags byte: the receiver sees the
 * data of this sender delayed well beyond its minimum (the peer is
 * congested, homa_peer_rx_sample()), an echo of the state as TCP's ECE
 * echoes an ECN mark. The reference leaves the byte zero and ignores it.
 */
#define HOMA_GRANT_CONGESTED 0x01

/**
 * struct homa_grant_hdr - header of a GRANT packet.
 */
struct homa_grant_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @offset: the sender may send every byte below this offset. */
	__be32 offset;

	/** @priority: priority for the granted bytes. */
	u8 priority;
} __packed;

/**
 * struct homa_resend_hdr - header of a RESEND packet.
 */
struct homa_resend_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @offset: first byte to send again. */
	__be32 offset;

	/** @length: bytes to send again; HOMA_RESEND_ALL means all sent. */
	__be32 length;

	/** @priority: priority for the retransmitted bytes. */
	u8 priority;
} __packed;

/**
 * struct homa_rpc_unknown_hdr - an RPC_UNKNOWN packet (no body).
 */
struct homa_rpc_unknown_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;
} __packed;

/**
 * struct homa_busy_hdr - a BUSY packet (no body).
 */
struct homa_busy_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;
} __packed;

/**
 * struct homa_cutoffs_hdr - a CUTOFFS packet.
 */
struct homa_cutoffs_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/**
	 * @unsched_cutoffs: message lengths: a message of at most
	 * unsched_cutoffs[i] bytes may use unscheduled priority i.
	 */
	__be32 unsched_cutoffs[HOMA_MAX_PRIORITIES];

	/** @cutoff_version: identifies this set of cutoffs. */
	__be16 cutoff_version;
} __packed;

/**
 * struct homa_need_ack_hdr - a NEED_ACK packet (no body).
 */
struct homa_need_ack_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;
} __packed;

/**
 * struct homa_ack_hdr - an ACK packet.
 */
struct homa_ack_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @num_acks: valid entries in @acks. */
	__be16 num_acks;

	/** @acks: the RPCs acknowledged. */
	struct homa_ack acks[HOMA_MAX_ACKS_PER_PKT];
} __packed;

static_assert(sizeof(struct homa_common_hdr) == 28, "common header size");
static_assert(sizeof(struct homa_ack) == 10, "ack size");
static_assert(sizeof(struct homa_data_hdr) == 56, "DATA header size");
static_assert(sizeof(struct homa_grant_hdr) == 33, "GRANT header size");
static_assert(sizeof(struct homa_resend_hdr) == 37, "RESEND header size");
static_assert(sizeof(struct homa_rpc_unknown_hdr) == 28, "RPC_UNKNOWN size");
static_assert(sizeof(struct homa_busy_hdr) == 28, "BUSY header size");
static_assert(sizeof(struct homa_cutoffs_hdr) == 62, "CUTOFFS header size");
static_assert(sizeof(struct homa_need_ack_hdr) == 28, "NEED_ACK size");
static_assert(sizeof(struct homa_ack_hdr) == 80, "ACK header size");

/* Largest header of any type; room to reserve when building a packet. */
#define HOMA_MAX_HEADER 80

/**
 * struct homa_pkt - a packet's header fields in host byte order, as the
 * parser returns them and the builder takes them. Only the fields of
 * @type are meaningful.
 */
struct homa_pkt {
	/** @type: the packet's type. */
	u8 type;

	/** @sport: sender's port. */
	u16 sport;

	/** @dport: receiver's port. */
	u16 dport;

	/** @sender_id: the RPC id as the sender knows it. */
	u64 sender_id;

	/** @data: fields of a DATA packet. */
	struct {
		/** @data.message_length: total length of the message. */
		u32 message_length;
		/** @data.incoming: sender may send below this offset. */
		u32 incoming;
		/** @data.offset: offset of the first payload byte. */
		u32 offset;
		/** @data.length: payload bytes in this packet. */
		u32 length;
		/** @data.ack_id: piggybacked ack's client id (0: none). */
		u64 ack_id;
		/** @data.ack_port: piggybacked ack's server port. */
		u16 ack_port;
		/** @data.cutoff_version: cutoffs the sender used. */
		u16 cutoff_version;
		/** @data.retransmit: the packet answers a RESEND. */
		u8 retransmit;
		/** @data.flags: HOMA_DATA_* bits. */
		u8 flags;
	} data;

	/** @grant: fields of a GRANT packet. */
	struct {
		/** @grant.offset: sender may send below this offset. */
		u32 offset;
		/** @grant.priority: priority for the granted bytes. */
		u8 priority;
		/** @grant.flags: HOMA_GRANT_* bits (common header). */
		u8 flags;
	} grant;

	/** @resend: fields of a RESEND packet. */
	struct {
		/** @resend.offset: first byte to send again. */
		u32 offset;
		/** @resend.length: bytes, or HOMA_RESEND_ALL. */
		u32 length;
		/** @resend.priority: priority for those bytes. */
		u8 priority;
	} resend;

	/** @cutoffs: fields of a CUTOFFS packet. */
	struct {
		/** @cutoffs.cutoffs: unscheduled cutoffs by priority. */
		u32 cutoffs[HOMA_MAX_PRIORITIES];
		/** @cutoffs.version: the cutoffs' version. */
		u16 version;
	} cutoffs;

	/** @ack: fields of an ACK packet. */
	struct {
		/** @ack.num_acks: valid entries in the arrays below. */
		u16 num_acks;
		/** @ack.client_ids: client ids of the acked RPCs. */
		u64 client_ids[HOMA_MAX_ACKS_PER_PKT];
		/** @ack.server_ports: server ports of the acked RPCs. */
		u16 server_ports[HOMA_MAX_ACKS_PER_PKT];
	} ack;
};

/**
 * homa_is_client() - Is @id a client's id for its RPC?
 * @id: an RPC id as one side knows it. A client picks even ids; the
 *	server knows the same RPC as the id with the low bit set, and the
 *	packets each side sends carry its own id.
 *
 * Return: true for a client's id, false for a server's.
 */
static inline bool homa_is_client(u64 id)
{
	return (id & 1) == 0;
}

/**
 * homa_peer_id() - The id the other side of an RPC knows it by.
 * @id: the RPC's id on this side (or a packet's sender_id).
 *
 * Return: @id with its low bit flipped.
 */
static inline u64 homa_peer_id(u64 id)
{
	return id ^ 1;
}

u32 homa_wire_header_length(u8 type);
int homa_wire_parse(const void *buf, u32 len, struct homa_pkt *pkt);
u32 homa_wire_build(void *buf, u32 size, const struct homa_pkt *pkt);
const char *homa_wire_type_name(u8 type);

#endif /* _HOMA_WIRE_H */
