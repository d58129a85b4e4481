/* SPDX-License-Identifier: GPL-2.0+ WITH Linux-syscall-note */
/*
 * The user-space API of the Homa transport: the protocol number,
 * message and buffer limits, the control structures passed to sendmsg and
 * recvmsg, socket options and ioctls. Everything here is ABI: fields are
 * native-endian, sized with __u64-style types and padded explicitly so the
 * layout is the same for every compiler and for 32- and 64-bit callers.
 * A program written for the reference implementation's user header compiles
 * unchanged against this one: the few fields it declares as a pointer or
 * size_t keep that type, in a union with a __u64 that fixes the layout.
 */

#ifndef _UAPI_LINUX_HOMA_H
#define _UAPI_LINUX_HOMA_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stddef.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#else
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ioctl.h>
#include <linux/socket.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* IANA-assigned IP protocol number. */
#define IPPROTO_HOMA 146

/* Largest message, in bytes, that Homa carries; zero-length is invalid. */
#define HOMA_MAX_MESSAGE_LENGTH 1000000

/* Receive buffers are carved into bpages of this size. */
#define HOMA_BPAGE_SHIFT 16
#define HOMA_BPAGE_SIZE 65536	/* 1 << HOMA_BPAGE_SHIFT */

/* Most bpages one message can occupy. */
#define HOMA_MAX_BPAGES ((HOMA_MAX_MESSAGE_LENGTH + HOMA_BPAGE_SIZE - 1) >> \
			 HOMA_BPAGE_SHIFT)

/*
 * Ports below this value are server ports, chosen with bind(); ports at or
 * above it are assigned automatically to client sockets.
 */
#define HOMA_MIN_DEFAULT_PORT 0x8000

/* Number of packet priority levels Homa uses. */
#define HOMA_MAX_PRIORITIES 8

/**
 * struct homa_sendmsg_args - Homa's arguments to sendmsg, passed through
 * msg_control (with msg_controllen 0).
 */
struct homa_sendmsg_args {
	/**
	 * @id: (in/out) 0 sends a new request and returns its RPC id here;
	 * any other value sends the reply of that server RPC.
	 */
	__u64 id;

	/**
	 * @completion_cookie: (in) for requests, an opaque value handed back
	 * by recvmsg with the response; must be 0 for replies.
	 */
	__u64 completion_cookie;

	/** @flags: (in) HOMA_SENDMSG_* bits. */
	__u32 flags;

	/** @reserved: must be 0. */
	__u32 reserved;
};

/* The response can only be received by a recvmsg naming the RPC's id. */
#define HOMA_SENDMSG_PRIVATE		0x01
#define HOMA_SENDMSG_VALID_FLAGS	0x01

/**
 * struct homa_recvmsg_args - Homa's arguments to recvmsg, passed through
 * msg_control with msg_controllen equal to its size.
 */
struct homa_recvmsg_args {
	/**
	 * @id: (in/out) 0 waits for any message that is not private; any
	 * other value waits for that private client RPC. Returns the id of
	 * the RPC received.
	 */
	__u64 id;

	/**
	 * @completion_cookie: (out) the cookie given to sendmsg, for
	 * responses; 0 for requests.
	 */
	__u64 completion_cookie;

	/**
	 * @num_bpages: (in/out) on entry, the number of entries of
	 * @bpage_offsets to give back to the pool; on return, the number of
	 * entries that hold the new message.
	 */
	__u32 num_bpages;

	/** @reserved: must be 0. */
	__u32 reserved;

	/**
	 * @bpage_offsets: (in/out) offsets into the receive region. On
	 * return, where the message lies: every entry but the last is a
	 * whole, aligned bpage. The caller owns them until it returns them
	 * through a later recvmsg.
	 */
	__u32 bpage_offsets[HOMA_MAX_BPAGES];
};

/**
 * struct homa_abort_args - argument of the HOMAIOCABORT ioctl.
 */
struct homa_abort_args {
	/** @id: the client RPC to abort, or 0 for every client RPC. */
	__u64 id;

	/**
	 * @error: 0 discards the RPCs; any other value completes them with
	 * -@error, to be returned by recvmsg.
	 */
	__u32 error;

	/** @_pad1: must be 0. */
	__u32 _pad1;

	/** @_pad2: must be 0. */
	__u64 _pad2[2];
};

/* Socket options, at level IPPROTO_HOMA. */
#define SO_HOMA_RCVBUF 10
#define SO_HOMA_SERVER 11

/**
 * struct homa_rcvbuf_args - argument of SO_HOMA_RCVBUF: the user region
 * that receives incoming messages.
 */
struct homa_rcvbuf_args {
	/** @start: page-aligned address of the region. */
	__u64 start;

	union {
		/**
		 * @length: size of the region in bytes (at most 4 GiB);
		 * size_t as in the reference's header.
		 */
		size_t length;

		/**
		 * @_length_pad: keeps the field 8 bytes wide for 32-bit
		 * callers, who must zero the structure first.
		 */
		__u64 _length_pad;
	};
};

/**
 * struct homa_rpc_info - state of one RPC, as returned by HOMAIOCINFO.
 */
struct homa_rpc_info {
	/** @id: the RPC's id; low bit 1 means this host is the server. */
	__u64 id;

	/** @peer: address of the peer socket. */
	union {
		/** @peer.storage: room for any address. */
		struct sockaddr_storage storage;
		/** @peer.in4: an IPv4 peer. */
		struct sockaddr_in in4;
		/** @peer.in6: an IPv6 peer. */
		struct sockaddr_in6 in6;
	} peer;

	/** @completion_cookie: the client's cookie; 0 on servers. */
	__u64 completion_cookie;

	/** @tx_length: outgoing message length, -1 before sendmsg. */
	__s32 tx_length;

	/** @tx_sent: outgoing bytes transmitted at least once. */
	__u32 tx_sent;

	/** @tx_granted: outgoing bytes the receiver allows, unscheduled too. */
	__u32 tx_granted;

	/** @tx_prio: priority the receiver asked for in its last grant. */
	__u32 tx_prio;

	/** @rx_length: incoming message length, -1 while unknown. */
	__s32 rx_length;

	/** @rx_remaining: incoming bytes not yet received. */
	__u32 rx_remaining;

	/** @rx_gaps: ranges missing below the highest byte received. */
	__u32 rx_gaps;

	/** @rx_gap_bytes: total bytes in those ranges. */
	__u32 rx_gap_bytes;

	/** @rx_granted: incoming bytes the peer may send, unscheduled too. */
	__u32 rx_granted;

	/** @flags: HOMA_RPC_* bits. */
	__u16 flags;

	/** @_pad: must be 0. */
	__u16 _pad;
};

#define HOMA_RPC_BUF_STALL	1	/* waiting for receive buffer space */
#define HOMA_RPC_PRIVATE	2	/* client RPC created private */
#define HOMA_RPC_RX_READY	4	/* message ready for recvmsg */
#define HOMA_RPC_RX_COPY	8	/* received data not yet copied out */

#define HOMA_ERROR_MSG_SIZE 100

/**
 * struct homa_info - argument of the HOMAIOCINFO ioctl. Fields marked (in)
 * are set by the caller; the kernel fills in the rest.
 */
struct homa_info {
	union {
		/**
		 * @rpc_info: (in) where to store one homa_rpc_info per
		 * RPC; NULL for none.
		 */
		struct homa_rpc_info *rpc_info;

		/** @rpc_info_addr: (in) the same address as an integer. */
		__u64 rpc_info_addr;
	};

	union {
		/** @rpc_info_length: (in) bytes available at @rpc_info. */
		size_t rpc_info_length;

		/**
		 * @_rpc_info_length_pad: keeps the field 8 bytes wide for
		 * 32-bit callers, who must zero the structure first.
		 */
		__u64 _rpc_info_length_pad;
	};

	/** @bpool_avail_bytes: free bytes in the socket's receive pool. */
	__u64 bpool_avail_bytes;

	/** @port: the socket's port. */
	__u32 port;

	/** @num_rpcs: RPCs of the socket (may exceed what fit in rpc_info). */
	__u32 num_rpcs;

	/** @error_msg: text describing the socket's last error. */
	char error_msg[HOMA_ERROR_MSG_SIZE];

	/** @_pad: must be 0. */
	__u32 _pad;
};

/*
 * Ioctls on Homa sockets. HOMAIOCFREEZE freezes the reference
 * implementation's time trace, which this module does not have: it fails
 * with EOPNOTSUPP.
 */
#define HOMAIOCINFO	_IOWR('h', 0x90, struct homa_info)
#define HOMAIOCABORT	_IOWR('h', 0x91, struct homa_abort_args)
#define HOMAIOCFREEZE	_IO('h', 0x92)

/*
 * A bit of the reference implementation's net.homa.flags sysctl: send
 * without pacing. This module has no such sysctl; net.homa.pacer_enable=0
 * does the same.
 */
#define HOMA_FLAG_DONT_THROTTLE 2

#ifdef __cplusplus
}
#endif

#endif /* _UAPI_LINUX_HOMA_H */
