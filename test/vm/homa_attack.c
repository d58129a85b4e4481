// SPDX-License-Identifier: GPL-2.0+
/*
 * The VM tests' attacker: crafts Homa packets from the wire format of
 * homa_wire.h and sends them through a raw socket (IPPROTO_HOMA, so the
 * source address is the attacker's own) at a victim's port.
 *
 * homa_attack crafted ADDR DPORT SPORT PARITY IDMAX COUNT SEED
 *	Every packet type (DATA, GRANT, RESEND, RPC_UNKNOWN, BUSY, CUTOFFS,
 *	NEED_ACK, ACK) cut at every length from 0 to its full size; every
 *	field of every type set to each of its boundary values (0, 1, max - 1,
 *	max; for lengths and offsets also the message length and 1 MB, +-1);
 *	then COUNT random mutations of valid packets. Ids are plausible: of
 *	the given PARITY (0: ids as a client sends them, aimed at a server;
 *	1: as a server sends them, aimed at a client) and at most 2 * IDMAX.
 *	DPORT may be a range LO-HI (a client's ports are not known in
 *	advance): each packet goes to one port of it. Prints "sent N".
 * homa_attack flood ADDR DPORT COUNT [PROTO]
 *	COUNT one-packet DATA requests, each a new RPC id, message length
 *	1 MB, 1 byte of payload. Prints "sent N". With PROTO (an IP
 *	protocol number with no handler, e.g. 253) the same packets carry
 *	that protocol instead: the victim's IP layer drops them, which
 *	measures what receiving the flood costs the test bed without Homa.
 * homa_attack stream ADDR DPORT TOS SECONDS PPS
 *	A steady stream of new bytes at IP TOS TOS: PPS DATA packets a
 *	second for SECONDS, 100 bytes each, for requests of 1 MB whose
 *	every byte is unscheduled (incoming is the length, so the victim
 *	grants none). Offsets go up; a request is left before its end and
 *	the next id taken, so none completes. At a rate above the victim's
 *	timer ticks (HZ), every tick sees data at that priority
 *	(resend_outranked). Prints "sent N"; exits 2 unless PPS > 0.
 *
 * Exits 0 once the packets are sent ("errors" counts those the kernel
 * refused, e.g. with a full queue), 1 if the socket could not be made.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "homa.h"

/* Type codes and header sizes of homa_wire.h. */
enum { DATA = 0x10, GRANT, RESEND, RPC_UNKNOWN, BUSY, CUTOFFS,
	NEED_ACK = 0x17, ACK };

#define DATA_HDR 56
#define PAYLOAD 200
#define MSG_LEN 3000
#define MB 1000000ULL
#define BATCH 64
#define MAX_PKT (DATA_HDR + 1400)

static const unsigned char types[] = {
	DATA, GRANT, RESEND, RPC_UNKNOWN, BUSY, CUTOFFS, NEED_ACK, ACK };

/* Full length of each type's packet as crafted here. */
static int full_length(int type)
{
	switch (type) {
	case DATA:
		return DATA_HDR + PAYLOAD;
	case GRANT:
		return 33;
	case RESEND:
		return 37;
	case CUTOFFS:
		return 62;
	case ACK:
		return 80;
	default:
		return 28;
	}
}

/* Kinds of field, for the boundary values each gets. */
enum kind { PLAIN, LENGTH, PRIORITY, COUNT };

/* A header field: the type it belongs to (0: every type), where, size. */
struct field {
	int type;
	int offset;
	int size;
	enum kind kind;
};

static const struct field fields[] = {
	/* common header */
	{ 0, 0, 2, PLAIN }, { 0, 2, 2, PLAIN }, { 0, 4, 4, LENGTH },
	{ 0, 8, 3, PLAIN }, { 0, 11, 1, PLAIN }, { 0, 12, 1, PLAIN },
	{ 0, 13, 1, PLAIN }, { 0, 14, 2, PLAIN }, { 0, 16, 2, PLAIN },
	{ 0, 18, 2, PLAIN }, { 0, 20, 8, PLAIN },
	/* DATA */
	{ DATA, 28, 4, LENGTH }, { DATA, 32, 4, LENGTH },
	{ DATA, 36, 8, PLAIN }, { DATA, 44, 2, PLAIN },
	{ DATA, 46, 2, PLAIN }, { DATA, 48, 1, PLAIN },
	{ DATA, 49, 1, PLAIN }, { DATA, 50, 2, PLAIN },
	{ DATA, 52, 4, LENGTH },
	/* GRANT */
	{ GRANT, 28, 4, LENGTH }, { GRANT, 32, 1, PRIORITY },
	/* RESEND */
	{ RESEND, 28, 4, LENGTH }, { RESEND, 32, 4, LENGTH },
	{ RESEND, 36, 1, PRIORITY },
	/* CUTOFFS */
	{ CUTOFFS, 28, 4, LENGTH }, { CUTOFFS, 32, 4, LENGTH },
	{ CUTOFFS, 36, 4, LENGTH }, { CUTOFFS, 40, 4, LENGTH },
	{ CUTOFFS, 44, 4, LENGTH }, { CUTOFFS, 48, 4, LENGTH },
	{ CUTOFFS, 52, 4, LENGTH }, { CUTOFFS, 56, 4, LENGTH },
	{ CUTOFFS, 60, 2, PLAIN },
	/* ACK */
	{ ACK, 28, 2, COUNT },
	{ ACK, 30, 8, PLAIN }, { ACK, 38, 2, PLAIN },
	{ ACK, 40, 8, PLAIN }, { ACK, 48, 2, PLAIN },
	{ ACK, 50, 8, PLAIN }, { ACK, 58, 2, PLAIN },
	{ ACK, 60, 8, PLAIN }, { ACK, 68, 2, PLAIN },
	{ ACK, 70, 8, PLAIN }, { ACK, 78, 2, PLAIN },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NUM_FIELDS ((int)ARRAY_SIZE(fields))

/* Where the packets go and how they look. */
static struct {
	int family;
	struct sockaddr_storage to;
	socklen_t to_len;
	int port_lo, port_hi;
	int sport;
	int parity;
	unsigned long long idmax;
	int fd;
} tgt;

/* A batch of packets for one sendmmsg(). */
static unsigned char bufs[BATCH][MAX_PKT];
static struct sockaddr_storage dsts[BATCH];
static struct iovec iovs[BATCH];
static struct mmsghdr msgs[BATCH];
static int batched;
static unsigned long long sent, errors;

static unsigned long long rnd_state = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static unsigned long long rnd_below(unsigned long long n)
{
	return n ? rnd() % n : 0;
}

static void put_be(unsigned char *p, int n, unsigned long long v)
{
	while (n-- > 0) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

static void flush(void)
{
	int done = 0, n, retries = 0;

	while (done < batched) {
		n = sendmmsg(tgt.fd, msgs + done, batched - done, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* A full queue: wait for it to drain, try again. */
			if ((errno == ENOBUFS || errno == EAGAIN) &&
			    retries++ < 1000) {
				usleep(1000);
				continue;
			}
			/* Anything else (e.g. an ICMP error): count it. */
			errors++;
			done++;
			continue;
		}
		retries = 0;
		sent += n;
		done += n;
	}
	batched = 0;
}

/*
 * Queue the packet being built in bufs[batched], @len bytes, for DPORT
 * (already written into it). The raw socket's port field is unused.
 */
static void queue(int len)
{
	dsts[batched] = tgt.to;
	iovs[batched].iov_base = bufs[batched];
	iovs[batched].iov_len = len;
	memset(&msgs[batched], 0, sizeof(msgs[batched]));
	msgs[batched].msg_hdr.msg_name = &dsts[batched];
	msgs[batched].msg_hdr.msg_namelen = tgt.to_len;
	msgs[batched].msg_hdr.msg_iov = &iovs[batched];
	msgs[batched].msg_hdr.msg_iovlen = 1;
	if (++batched == BATCH)
		flush();
}

/* A plausible RPC id as the sender would write it. */
static unsigned long long plausible_id(void)
{
	return (2 + 2 * rnd_below(tgt.idmax)) ^ tgt.parity;
}

/*
 * Build a valid packet of @type at @p, for a random port of the range and
 * a plausible id; @rand_fields picks random (valid) offsets and lengths
 * instead of fixed ones. Returns its length.
 */
static int build(unsigned char *p, int type, int rand_fields)
{
	int len = full_length(type), dport, i, n;
	unsigned long long id = plausible_id();
	unsigned int ml = MSG_LEN, off = 0, pay = PAYLOAD;

	memset(p, 0, MAX_PKT);
	dport = tgt.port_lo + (int)rnd_below(tgt.port_hi - tgt.port_lo + 1);
	put_be(p, 2, tgt.sport);
	put_be(p + 2, 2, dport);
	p[11] = type;
	p[12] = ((len > 60 ? 60 : len) + 3) / 4 << 4;
	put_be(p + 20, 8, id);
	if (rand_fields) {
		ml = 1 + rnd_below(rnd() & 1 ? 5000 : MB);
		pay = 1 + rnd_below(ml < 1400 ? ml : 1400);
		off = rnd_below(ml - pay + 1);
	}
	switch (type) {
	case DATA:
		len = DATA_HDR + pay;
		put_be(p + 4, 4, off);
		put_be(p + 28, 4, ml);
		put_be(p + 32, 4, ml < 10000 ? ml : 10000);
		put_be(p + 52, 4, off);
		for (i = DATA_HDR; i < len; i++)
			p[i] = (unsigned char)rnd();
		break;
	case GRANT:
		put_be(p + 28, 4, off + pay);
		p[32] = rnd_below(8);
		break;
	case RESEND:
		put_be(p + 28, 4, off);
		put_be(p + 32, 4, rnd_below(4) ? pay : 0xffffffffU);
		p[36] = rnd_below(8);
		break;
	case CUTOFFS:
		for (i = 0; i < 8; i++)
			put_be(p + 28 + 4 * i, 4, i == 0 ? 0x7fffffff
						   : 1000 * (8 - i));
		put_be(p + 60, 2, 1 + rnd_below(3));
		break;
	case ACK:
		n = rand_fields ? (int)rnd_below(6) : 1;
		put_be(p + 28, 2, n);
		for (i = 0; i < 5; i++) {
			put_be(p + 30 + 10 * i, 8, plausible_id() & ~1ULL);
			put_be(p + 38 + 10 * i, 2, tgt.port_lo);
		}
		break;
	}
	return len;
}

/* Every type, cut at every length from 0 to its full length. */
static void truncations(void)
{
	unsigned int t;
	int len, cut;

	for (t = 0; t < sizeof(types); t++) {
		len = full_length(types[t]);
		for (cut = 0; cut <= len; cut++) {
			build(bufs[batched], types[t], 0);
			queue(cut);
		}
	}
}

/* Boundary values of a field of @size bytes and kind @kind. */
static int boundaries(int size, enum kind kind, unsigned long long *v)
{
	unsigned long long max = size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
	int n = 0;

	v[n++] = 0;
	v[n++] = 1;
	v[n++] = max - 1;
	v[n++] = max;
	if (kind == LENGTH && size >= 4) {
		v[n++] = MSG_LEN - 1;
		v[n++] = MSG_LEN;
		v[n++] = MSG_LEN + 1;
		v[n++] = MSG_LEN - PAYLOAD;
		v[n++] = MSG_LEN - PAYLOAD + 1;
		v[n++] = MB - 1;
		v[n++] = MB;
		v[n++] = MB + 1;
		v[n++] = (1ULL << 20) - 1;
		v[n++] = 1ULL << 20;
		v[n++] = (1ULL << 20) + 1;
		v[n++] = 0x7fffffff;
		v[n++] = 0x80000000ULL;
	}
	if (kind == PRIORITY) {
		v[n++] = 7;
		v[n++] = 8;
	}
	if (kind == COUNT) {
		v[n++] = 5;
		v[n++] = 6;
	}
	return n;
}

/* Every field of every type at each of its boundary values. */
static void boundary_values(void)
{
	unsigned long long v[32];
	unsigned int t;
	int f, i, n, len;

	for (t = 0; t < sizeof(types); t++) {
		for (f = 0; f < NUM_FIELDS; f++) {
			if (fields[f].type && fields[f].type != types[t])
				continue;
			n = boundaries(fields[f].size, fields[f].kind, v);
			for (i = 0; i < n; i++) {
				len = build(bufs[batched], types[t], 0);
				put_be(bufs[batched] + fields[f].offset,
				       fields[f].size, v[i]);
				queue(len);
			}
		}
	}
}

/* A valid packet of a random type, then 0 to 4 random mutations. */
static void mutation(void)
{
	unsigned char *p = bufs[batched];
	int type = types[rnd_below(sizeof(types))];
	int len = build(p, type, 1), m, k, pos;
	unsigned long long v[32];
	const struct field *f;

	m = (int)rnd_below(5);
	for (k = 0; k < m; k++) {
		switch (rnd_below(6)) {
		case 0:		/* flip a bit of the header */
			pos = (int)rnd_below(len < 80 ? len : 80);
			p[pos] ^= 1 << rnd_below(8);
			break;
		case 1:		/* any byte, any value */
			p[rnd_below(len)] = (unsigned char)rnd();
			break;
		case 2:		/* cut short */
			len = (int)rnd_below(len + 1);
			break;
		case 3:		/* longer, random bytes after */
			pos = len;
			len += (int)rnd_below(MAX_PKT - len + 1);
			while (pos < len)
				p[pos++] = (unsigned char)rnd();
			break;
		case 4:		/* a field of any type at a boundary */
			f = &fields[rnd_below(NUM_FIELDS)];
			put_be(p + f->offset, f->size,
			       v[rnd_below(boundaries(f->size, f->kind, v))]);
			if (len < f->offset + f->size)
				len = f->offset + f->size;
			break;
		default:	/* another type's code */
			p[11] = types[rnd_below(sizeof(types))];
			break;
		}
	}
	if (len == 0 && rnd_below(2))
		len = 1;
	queue(len);
}

static int set_target(const char *addr, const char *ports, int proto)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)&tgt.to;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&tgt.to;

	memset(&tgt.to, 0, sizeof(tgt.to));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		tgt.to_len = sizeof(*a4);
	} else if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		tgt.to_len = sizeof(*a6);
	} else {
		printf("# bad address %s\n", addr);
		return -1;
	}
	tgt.family = tgt.to.ss_family;
	if (sscanf(ports, "%d-%d", &tgt.port_lo, &tgt.port_hi) != 2) {
		tgt.port_lo = atoi(ports);
		tgt.port_hi = tgt.port_lo;
	}
	tgt.fd = socket(tgt.family, SOCK_RAW, proto);
	if (tgt.fd < 0) {
		printf("# raw socket: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* crafted ADDR DPORT SPORT PARITY IDMAX COUNT SEED */
static int cmd_crafted(char **argv)
{
	unsigned long long count, i;

	if (set_target(argv[0], argv[1], IPPROTO_HOMA) < 0)
		return 1;
	tgt.sport = atoi(argv[2]);
	tgt.parity = atoi(argv[3]) & 1;
	tgt.idmax = strtoull(argv[4], NULL, 0);
	count = strtoull(argv[5], NULL, 0);
	rnd_state ^= strtoull(argv[6], NULL, 0) * 0x9e3779b97f4a7c15ULL;
	if (rnd_state == 0)
		rnd_state = 1;
	truncations();
	boundary_values();
	for (i = 0; i < count; i++)
		mutation();
	flush();
	printf("sent %llu errors %llu\n", sent, errors);
	return 0;
}

/*
 * put_data_hdr: a DATA header of a request from SPORT to the target's first
 * port, id ID, message length MB with INCOMING bytes unscheduled, for a
 * payload of LEN bytes at OFFSET; the header and payload are zeroed first.
 */
static void put_data_hdr(unsigned char *p, int sport, unsigned long long id,
			 unsigned long long incoming,
			 unsigned long long offset, int len)
{
	memset(p, 0, DATA_HDR + len);
	put_be(p, 2, sport);
	put_be(p + 2, 2, tgt.port_lo);
	p[11] = DATA;
	p[12] = 14 << 4;
	put_be(p + 20, 8, id);
	put_be(p + 28, 4, MB);
	put_be(p + 32, 4, incoming);
	put_be(p + 52, 4, offset);
}

/* flood ADDR DPORT COUNT [PROTO]: one-packet 1 MB requests, new ids. */
static int cmd_flood(char **argv, int proto)
{
	unsigned long long count, i;
	unsigned char *p;

	if (set_target(argv[0], argv[1], proto) < 0)
		return 1;
	count = strtoull(argv[2], NULL, 0);
	for (i = 0; i < count; i++) {
		p = bufs[batched];
		put_data_hdr(p, 0x8000 + i % 16, 1000000 + 2 * i, 1, 0, 1);
		p[DATA_HDR] = 'f';
		queue(DATA_HDR + 1);
	}
	flush();
	printf("sent %llu errors %llu\n", sent, errors);
	return 0;
}

/* stream ADDR DPORT TOS SECONDS PPS: new bytes at TOS, PPS a second. */
static int cmd_stream(char **argv)
{
	int tos = (int)strtol(argv[2], NULL, 0), payload = 100;
	unsigned long long count, i, id = 1ULL << 40, offset = 0;
	long pps = atol(argv[4]), gap_ns;
	struct timespec next;
	unsigned char *p;

	if (pps <= 0) {
		printf("# PPS must be at least 1\n");
		return 2;
	}
	gap_ns = 1000000000L / pps;
	if (set_target(argv[0], argv[1], IPPROTO_HOMA) < 0)
		return 1;
	if (tgt.family == AF_INET ?
	    setsockopt(tgt.fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) :
	    setsockopt(tgt.fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos))) {
		printf("# TOS %d: %s\n", tos, strerror(errno));
		return 1;
	}
	count = strtoull(argv[3], NULL, 0) * (unsigned long long)pps;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < count; i++) {
		if (offset + 2 * payload > MB) {
			id += 2;
			offset = 0;
		}
		p = bufs[0];
		put_data_hdr(p, 0x9000, id, MB, offset, payload);
		offset += payload;
		queue(DATA_HDR + payload);
		flush();
		next.tv_nsec += gap_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	printf("sent %llu errors %llu\n", sent, errors);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 9 && !strcmp(argv[1], "crafted"))
		return cmd_crafted(argv + 2);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "flood"))
		return cmd_flood(argv + 2,
				 argc == 6 ? atoi(argv[5]) : IPPROTO_HOMA);
	if (argc == 7 && !strcmp(argv[1], "stream"))
		return cmd_stream(argv + 2);
	printf("Usage: homa_attack crafted ADDR DPORT[-HI] SPORT PARITY IDMAX\n"
	       "                          COUNT SEED |\n"
	       "       homa_attack flood ADDR DPORT COUNT [PROTO] |\n"
	       "       homa_attack stream ADDR DPORT TOS SECONDS PPS\n");
	return 2;
}
