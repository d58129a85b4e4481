// SPDX-License-Identifier: GPL-2.0+
/*
 * Parsing and building Homa packet headers. This is the only
 * code that reads packet bytes: every length is checked against the buffer
 * before a field is read, and values that would be dangerous later (lengths,
 * offsets, priorities, counts) are validated here, so the rest of Homa works
 * on a struct homa_pkt it can trust. Plain data only: it builds unchanged in
 * the kernel and in the unit tests.
 */

#include "homa_wire.h"

/**
 * homa_wire_header_length() - Size of the header of a packet type.
 * @type: a type code from the wire.
 *
 * Return: the number of bytes of the type's header (for DATA, the bytes
 * before the payload), or 0 if @type is not a Homa packet type.
 */
u32 homa_wire_header_length(u8 type)
{
	switch (type) {
	case DATA:
		return sizeof(struct homa_data_hdr);
	case GRANT:
		return sizeof(struct homa_grant_hdr);
	case RESEND:
		return sizeof(struct homa_resend_hdr);
	case RPC_UNKNOWN:
		return sizeof(struct homa_rpc_unknown_hdr);
	case BUSY:
		return sizeof(struct homa_busy_hdr);
	case CUTOFFS:
		return sizeof(struct homa_cutoffs_hdr);
	case NEED_ACK:
		return sizeof(struct homa_need_ack_hdr);
	case ACK:
		return sizeof(struct homa_ack_hdr);
	default:
		return 0;
	}
}

/**
 * homa_wire_type_name() - Printable name of a packet type.
 * @type: a type code from the wire.
 *
 * Return: a static string such as "DATA", or "UNKNOWN".
 */
const char *homa_wire_type_name(u8 type)
{
	switch (type) {
	case DATA:
		return "DATA";
	case GRANT:
		return "GRANT";
	case RESEND:
		return "RESEND";
	case RPC_UNKNOWN:
		return "RPC_UNKNOWN";
	case BUSY:
		return "BUSY";
	case CUTOFFS:
		return "CUTOFFS";
	case NEED_ACK:
		return "NEED_ACK";
	case ACK:
		return "ACK";
	default:
		return "UNKNOWN";
	}
}

static int homa_wire_parse_data(const struct homa_data_hdr *h, u32 len,
				struct homa_pkt *pkt)
{
	u32 msg_len = be32_to_cpu(h->message_length);
	u32 offset = be32_to_cpu(h->seg.offset);
	u32 bytes = len - sizeof(*h);

	/* Both sums below fit in u32: each term is at most 1 MB. */
	if (msg_len == 0 || msg_len > HOMA_MAX_MESSAGE_LENGTH)
		return -EINVAL;
	if (bytes == 0 || bytes > msg_len || offset > msg_len - bytes)
		return -EINVAL;
	pkt->data.message_length = msg_len;
	pkt->data.incoming = be32_to_cpu(h->incoming);
	pkt->data.offset = offset;
	pkt->data.length = bytes;
	pkt->data.ack_id = be64_to_cpu(h->ack.client_id);
	pkt->data.ack_port = be16_to_cpu(h->ack.server_port);
	pkt->data.cutoff_version = be16_to_cpu(h->cutoff_version);
	pkt->data.retransmit = h->retransmit;
	pkt->data.flags = h->flags;
	return 0;
}

static int homa_wire_parse_ack(const struct homa_ack_hdr *h, u32 len,
			       struct homa_pkt *pkt)
{
	u32 n, i;

	/* The ack array may be cut short after its last valid entry. */
	if (len < offsetof(struct homa_ack_hdr, acks))
		return -EINVAL;
	n = be16_to_cpu(h->num_acks);
	if (n > HOMA_MAX_ACKS_PER_PKT ||
	    len < offsetof(struct homa_ack_hdr, acks) + n * sizeof(h->acks[0]))
		return -EINVAL;
	pkt->ack.num_acks = n;
	for (i = 0; i < n; i++) {
		pkt->ack.client_ids[i] = be64_to_cpu(h->acks[i].client_id);
		pkt->ack.server_ports[i] = be16_to_cpu(h->acks[i].server_port);
	}
	return 0;
}

static int homa_wire_parse_body(const void *buf, u32 len, struct homa_pkt *pkt)
{
	const struct homa_grant_hdr *g = buf;
	const struct homa_resend_hdr *r = buf;
	const struct homa_cutoffs_hdr *c = buf;
	int i;

	switch (pkt->type) {
	case DATA:
		return homa_wire_parse_data(buf, len, pkt);
	case GRANT:
		if (g->priority >= HOMA_MAX_PRIORITIES)
			return -EINVAL;
		pkt->grant.offset = be32_to_cpu(g->offset);
		pkt->grant.priority = g->priority;
		pkt->grant.flags = g->common.flags;
		return 0;
	case RESEND:
		if (r->priority >= HOMA_MAX_PRIORITIES)
			return -EINVAL;
		pkt->resend.offset = be32_to_cpu(r->offset);
		pkt->resend.length = be32_to_cpu(r->length);
		pkt->resend.priority = r->priority;
		return 0;
	case CUTOFFS:
		for (i = 0; i < HOMA_MAX_PRIORITIES; i++)
			pkt->cutoffs.cutoffs[i] =
				be32_to_cpu(c->unsched_cutoffs[i]);
		pkt->cutoffs.version = be16_to_cpu(c->cutoff_version);
		return 0;
	case ACK:
		return homa_wire_parse_ack(buf, len, pkt);
	default:
		/* RPC_UNKNOWN, BUSY and NEED_ACK have no body. */
		return 0;
	}
}

/**
 * homa_wire_parse() - Validate a packet and decode its header.
 * @buf: the packet, starting at the Homa common header.
 * @len: bytes available at @buf; nothing beyond them is read.
 * @pkt: filled in with the header in host byte order. Fields of other
 *       types are zeroed.
 *
 * Return: 0 on success; -EINVAL if the packet is too short for its type
 * or a field holds an impossible value (a DATA range outside the message,
 * a priority out of range, too many acks); -EPROTONOSUPPORT if the type is
 * not one Homa knows.
 */
int homa_wire_parse(const void *buf, u32 len, struct homa_pkt *pkt)
{
	const struct homa_common_hdr *h = buf;
	u32 need;

	memset(pkt, 0, sizeof(*pkt));
	if (len < sizeof(*h))
		return -EINVAL;
	pkt->type = h->type;
	need = homa_wire_header_length(h->type);
	if (need == 0)
		return -EPROTONOSUPPORT;
	/* ACK checks its own, variable, length. */
	if (h->type != ACK && len < need)
		return -EINVAL;
	pkt->sport = be16_to_cpu(h->sport);
	pkt->dport = be16_to_cpu(h->dport);
	pkt->sender_id = be64_to_cpu(h->sender_id);
	return homa_wire_parse_body(buf, len, pkt);
}

static void homa_wire_build_data(struct homa_data_hdr *h,
				 const struct homa_pkt *pkt)
{
	h->common.sequence = cpu_to_be32(pkt->data.offset);
	h->message_length = cpu_to_be32(pkt->data.message_length);
	h->incoming = cpu_to_be32(pkt->data.incoming);
	h->ack.client_id = cpu_to_be64(pkt->data.ack_id);
	h->ack.server_port = cpu_to_be16(pkt->data.ack_port);
	h->cutoff_version = cpu_to_be16(pkt->data.cutoff_version);
	h->retransmit = pkt->data.retransmit;
	h->flags = pkt->data.flags;
	h->seg.offset = cpu_to_be32(pkt->data.offset);
}

static void homa_wire_build_body(void *buf, const struct homa_pkt *pkt)
{
	struct homa_grant_hdr *g = buf;
	struct homa_resend_hdr *r = buf;
	struct homa_cutoffs_hdr *c = buf;
	struct homa_ack_hdr *a = buf;
	int i;

	switch (pkt->type) {
	case DATA:
		homa_wire_build_data(buf, pkt);
		break;
	case GRANT:
		g->offset = cpu_to_be32(pkt->grant.offset);
		g->priority = pkt->grant.priority;
		g->common.flags = pkt->grant.flags;
		break;
	case RESEND:
		r->offset = cpu_to_be32(pkt->resend.offset);
		r->length = cpu_to_be32(pkt->resend.length);
		r->priority = pkt->resend.priority;
		break;
	case CUTOFFS:
		for (i = 0; i < HOMA_MAX_PRIORITIES; i++)
			c->unsched_cutoffs[i] =
				cpu_to_be32(pkt->cutoffs.cutoffs[i]);
		c->cutoff_version = cpu_to_be16(pkt->cutoffs.version);
		break;
	case ACK:
		a->num_acks = cpu_to_be16(pkt->ack.num_acks);
		for (i = 0; i < pkt->ack.num_acks; i++) {
			a->acks[i].client_id =
				cpu_to_be64(pkt->ack.client_ids[i]);
			a->acks[i].server_port =
				cpu_to_be16(pkt->ack.server_ports[i]);
		}
		break;
	}
}

/**
 * homa_wire_build() - Encode a packet header.
 * @buf: where to write the header.
 * @size: bytes available at @buf.
 * @pkt: the header fields in host byte order. For DATA, the payload (whose
 *       length is pkt->data.length) is not written: the caller appends it.
 *
 * Fields the wire format reserves are written as zero; the header length
 * in 4-byte words goes into doff's high nibble (15 at most) so that
 * segmentation hardware sees a TCP-like header.
 *
 * Return: the number of header bytes written, or 0 if @pkt's type is
 * unknown, an ACK claims more than HOMA_MAX_ACKS_PER_PKT acks, or @size is
 * too small (nothing is written then).
 */
u32 homa_wire_build(void *buf, u32 size, const struct homa_pkt *pkt)
{
	struct homa_common_hdr *h = buf;
	u32 len = homa_wire_header_length(pkt->type);

	if (len == 0 || size < len)
		return 0;
	if (pkt->type == ACK && pkt->ack.num_acks > HOMA_MAX_ACKS_PER_PKT)
		return 0;
	memset(buf, 0, len);
	h->sport = cpu_to_be16(pkt->sport);
	h->dport = cpu_to_be16(pkt->dport);
	h->type = pkt->type;
	/* The nibble holds 15 words at most; longer headers saturate. */
	h->doff = min_t(u32, (len + 3) / 4, 15) << 4;
	h->sender_id = cpu_to_be64(pkt->sender_id);
	homa_wire_build_body(buf, pkt);
	return len;
}
