// SPDX-License-Identifier: GPL-2.0+
/*
 * Uses every name that the reference implementation's user header
 * (PlatformLab/HomaModule, homa.h on main) gives programs, the way such a
 * program would, and checks at compile time that each has the reference's
 * value, type and layout. scripts/check.sh compiles it as C and as C++
 * against our homa.h with warnings as errors, and runs it.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "homa.h"

#ifdef __cplusplus
#include <type_traits>
#define SAME(a, b) static_assert((a) == (b), #a " == " #b)
#define SAME_TYPE(expr, ty) \
	static_assert(std::is_same<std::decay<decltype(expr)>::type, \
				   ty>::value, #expr " is " #ty)
#else
#define SAME(a, b) _Static_assert((a) == (b), #a " == " #b)
#define SAME_TYPE(expr, ty) \
	_Static_assert(_Generic((expr), ty: 1, default: 0), #expr " is " #ty)
#endif

/* Constants, with the reference's values. */
SAME(IPPROTO_HOMA, 146);
SAME(HOMA_MAX_MESSAGE_LENGTH, 1000000);
SAME(HOMA_BPAGE_SHIFT, 16);
SAME(HOMA_BPAGE_SIZE, 1 << 16);
SAME(HOMA_MAX_BPAGES, 16);
SAME(HOMA_MIN_DEFAULT_PORT, 0x8000);
SAME(HOMA_SENDMSG_PRIVATE, 0x01);
SAME(HOMA_SENDMSG_VALID_FLAGS, 0x01);
SAME(SO_HOMA_RCVBUF, 10);
SAME(SO_HOMA_SERVER, 11);
SAME(HOMA_FLAG_DONT_THROTTLE, 2);
SAME(HOMA_RPC_BUF_STALL, 1);
SAME(HOMA_RPC_PRIVATE, 2);
SAME(HOMA_RPC_RX_READY, 4);
SAME(HOMA_RPC_RX_COPY, 8);
SAME(HOMA_ERROR_MSG_SIZE, 100);

/* Ioctls: type 'h', numbers 0x90-0x92, with the argument sizes. */
SAME(HOMAIOCINFO, _IOWR('h', 0x90, struct homa_info));
SAME(HOMAIOCABORT, _IOWR('h', 0x91, struct homa_abort_args));
SAME(HOMAIOCFREEZE, _IO('h', 0x92));

/* Layouts of the structures passed to the kernel (LP64). */
SAME(sizeof(struct homa_sendmsg_args), 24);
SAME(offsetof(struct homa_sendmsg_args, id), 0);
SAME(offsetof(struct homa_sendmsg_args, completion_cookie), 8);
SAME(offsetof(struct homa_sendmsg_args, flags), 16);
SAME(offsetof(struct homa_sendmsg_args, reserved), 20);

SAME(sizeof(struct homa_recvmsg_args), 88);
SAME(offsetof(struct homa_recvmsg_args, id), 0);
SAME(offsetof(struct homa_recvmsg_args, completion_cookie), 8);
SAME(offsetof(struct homa_recvmsg_args, num_bpages), 16);
SAME(offsetof(struct homa_recvmsg_args, reserved), 20);
SAME(offsetof(struct homa_recvmsg_args, bpage_offsets), 24);

SAME(sizeof(struct homa_abort_args), 32);
SAME(offsetof(struct homa_abort_args, id), 0);
SAME(offsetof(struct homa_abort_args, error), 8);
SAME(offsetof(struct homa_abort_args, _pad1), 12);
SAME(offsetof(struct homa_abort_args, _pad2), 16);

SAME(sizeof(struct homa_rcvbuf_args), 16);
SAME(offsetof(struct homa_rcvbuf_args, start), 0);
SAME(offsetof(struct homa_rcvbuf_args, length), 8);

SAME(offsetof(struct homa_rpc_info, id), 0);
SAME(offsetof(struct homa_rpc_info, peer), 8);
SAME(offsetof(struct homa_rpc_info, completion_cookie), 136);
SAME(offsetof(struct homa_rpc_info, tx_length), 144);
SAME(offsetof(struct homa_rpc_info, tx_sent), 148);
SAME(offsetof(struct homa_rpc_info, tx_granted), 152);
SAME(offsetof(struct homa_rpc_info, tx_prio), 156);
SAME(offsetof(struct homa_rpc_info, rx_length), 160);
SAME(offsetof(struct homa_rpc_info, rx_remaining), 164);
SAME(offsetof(struct homa_rpc_info, rx_gaps), 168);
SAME(offsetof(struct homa_rpc_info, rx_gap_bytes), 172);
SAME(offsetof(struct homa_rpc_info, rx_granted), 176);
SAME(offsetof(struct homa_rpc_info, flags), 180);
SAME(sizeof(struct homa_rpc_info), 184);

SAME(offsetof(struct homa_info, rpc_info), 0);
SAME(offsetof(struct homa_info, rpc_info_length), 8);
SAME(offsetof(struct homa_info, bpool_avail_bytes), 16);
SAME(offsetof(struct homa_info, port), 24);
SAME(offsetof(struct homa_info, num_rpcs), 28);
SAME(offsetof(struct homa_info, error_msg), 32);
SAME(sizeof(struct homa_info), 136);

/*
 * The fields' types, as a reference program relies on them; the
 * function below exercises each, as such a program would.
 */
static struct homa_sendmsg_args sa;
static struct homa_recvmsg_args ra;
static struct homa_abort_args aa;
static struct homa_rcvbuf_args rb;
static struct homa_rpc_info ri[4];
static struct homa_info info;

SAME_TYPE(sa.id, __u64);
SAME_TYPE(sa.completion_cookie, __u64);
SAME_TYPE(sa.flags, __u32);
SAME_TYPE(sa.reserved, __u32);
SAME_TYPE(ra.id, __u64);
SAME_TYPE(ra.completion_cookie, __u64);
SAME_TYPE(ra.num_bpages, __u32);
SAME_TYPE(ra.reserved, __u32);
SAME_TYPE(ra.bpage_offsets[0], __u32);
SAME_TYPE(aa.id, __u64);
SAME_TYPE(aa.error, __u32);
SAME_TYPE(aa._pad1, __u32);
SAME_TYPE(aa._pad2[0], __u64);
SAME_TYPE(rb.start, __u64);
SAME_TYPE(rb.length, size_t);
SAME_TYPE(ri[0].id, __u64);
SAME_TYPE(ri[0].completion_cookie, __u64);
SAME_TYPE(ri[0].tx_length, __s32);
SAME_TYPE(ri[0].tx_sent, __u32);
SAME_TYPE(ri[0].tx_granted, __u32);
SAME_TYPE(ri[0].tx_prio, __u32);
SAME_TYPE(ri[0].rx_length, __s32);
SAME_TYPE(ri[0].rx_remaining, __u32);
SAME_TYPE(ri[0].rx_gaps, __u32);
SAME_TYPE(ri[0].rx_gap_bytes, __u32);
SAME_TYPE(ri[0].rx_granted, __u32);
SAME_TYPE(ri[0].flags, __u16);
SAME_TYPE(info.rpc_info, struct homa_rpc_info *);
SAME_TYPE(info.rpc_info_length, size_t);
SAME_TYPE(info.bpool_avail_bytes, __u64);
SAME_TYPE(info.port, __u32);
SAME_TYPE(info.num_rpcs, __u32);

int main(void)
{
	static char region[2 * HOMA_BPAGE_SIZE];
	struct sockaddr_storage *st = &ri[0].peer.storage;
	struct sockaddr_in *in4 = &ri[0].peer.in4;
	struct sockaddr_in6 *in6 = &ri[0].peer.in6;
	unsigned long cmds[] = { HOMAIOCINFO, HOMAIOCABORT, HOMAIOCFREEZE };
	int levels[] = { IPPROTO_HOMA, SO_HOMA_RCVBUF, SO_HOMA_SERVER };

	sa.id = 0;
	sa.completion_cookie = 1;
	sa.flags = HOMA_SENDMSG_PRIVATE & HOMA_SENDMSG_VALID_FLAGS;
	sa.reserved = 0;
	ra.id = sa.id;
	ra.num_bpages = 1;
	ra.bpage_offsets[HOMA_MAX_BPAGES - 1] = HOMA_BPAGE_SIZE >>
						HOMA_BPAGE_SHIFT;
	aa.id = ra.id;
	aa.error = 0;
	aa._pad1 = 0;
	aa._pad2[1] = 0;
	rb.start = (uintptr_t)region;
	rb.length = sizeof(region);
	info.rpc_info = ri;
	info.rpc_info_length = sizeof(ri);
	info.error_msg[HOMA_ERROR_MSG_SIZE - 1] = 0;
	ri[0].flags = HOMA_RPC_BUF_STALL | HOMA_RPC_PRIVATE |
		      HOMA_RPC_RX_READY | HOMA_RPC_RX_COPY;
	printf("reference names: %zu bytes of rpc_info, port %u, %d ioctls, %d levels, max %d, flag %d, %p %p %p\n",
	       info.rpc_info_length, HOMA_MIN_DEFAULT_PORT,
	       (int)(sizeof(cmds) / sizeof(cmds[0])),
	       (int)(sizeof(levels) / sizeof(levels[0])),
	       HOMA_MAX_MESSAGE_LENGTH, HOMA_FLAG_DONT_THROTTLE,
	       (void *)st, (void *)in4, (void *)in6);
	return info.rpc_info == ri && rb.length == sizeof(region) ? 0 : 1;
}
