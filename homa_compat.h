/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Differences between the kernels Homa builds for (Debian's 6.1, 6.12 and
 * trixie-backports' 7.3), gathered here so that the rest of the tree is
 * written for one API. This is the only file that tests LINUX_VERSION_CODE.
 * Each test was checked by building for 6.1, 6.12 and 7.3; where an API
 * changed between 6.12 and 7.3, the version given is where upstream made
 * the change, which those builds cannot confirm.
 */

#ifndef _HOMA_COMPAT_H
#define _HOMA_COMPAT_H

#include <linux/version.h>
#include <linux/timer.h>
#include <linux/uio.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/* 6.11 made sysctl handlers take a const table. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define HOMA_CTL_TABLE const struct ctl_table
#else
#define HOMA_CTL_TABLE struct ctl_table
#endif

/* 6.19 gave proto_ops' bind() a struct sockaddr_unsized. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
#define HOMA_BIND_SOCKADDR struct sockaddr_unsized
#else
#define HOMA_BIND_SOCKADDR struct sockaddr
#endif

/* 6.16 renamed from_timer() to timer_container_of(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define homa_timer_container_of(var, timer, field) \
	timer_container_of(var, timer, field)
#else
#define homa_timer_container_of(var, timer, field) \
	from_timer(var, timer, field)
#endif

/*
 * 6.6 let a protocol say where its ipv6_pinfo lies; before, it had to be
 * the last member of the socket.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define HOMA_HAVE_IPV6_PINFO_OFFSET 1
#else
#define HOMA_HAVE_IPV6_PINFO_OFFSET 0
#endif

/**
 * homa_register_net_sysctl() - Register a namespace's sysctl table.
 * @net: the namespace.
 * @path: where the entries go, e.g. "net/homa".
 * @table: @count entries, followed by one zeroed entry.
 * @count: number of entries in @table.
 *
 * Return: the registration, or NULL on failure.
 */
static inline struct ctl_table_header *
homa_register_net_sysctl(struct net *net, const char *path,
			 struct ctl_table *table, size_t count)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return register_net_sysctl_sz(net, path, table, count);
#else
	return register_net_sysctl(net, path, table);
#endif
}

/**
 * homa_import_ubuf() - Point an iov_iter at one user buffer.
 * @dir: ITER_DEST (the kernel writes the buffer) or ITER_SOURCE.
 * @buf: the user buffer.
 * @len: its length in bytes.
 * @iter: set up to cover @buf.
 *
 * import_ubuf() came in 6.2; import_single_range(), which needed an iovec
 * that outlives @iter, is gone by 6.12. Before 6.2, check the range and
 * build the same ITER_UBUF iterator by hand.
 *
 * Return: 0, or -EFAULT if @buf is not a user address range.
 */
static inline int homa_import_ubuf(int dir, void __user *buf, size_t len,
				   struct iov_iter *iter)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return import_ubuf(dir, buf, len, iter);
#else
	if (len > MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	if (unlikely(!access_ok(buf, len)))
		return -EFAULT;
	iov_iter_ubuf(iter, dir, buf, len);
	return 0;
#endif
}

int homa_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags,
		 int *addr_len);

/*
 * 7.0 dropped the addr_len argument of struct proto's recvmsg(): the
 * protocol sets msg_namelen itself. homa_proto_recvmsg() is what the proto
 * tables point to.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
/**
 * homa_proto_recvmsg() - recvmsg() of struct proto on kernels without its
 * addr_len argument.
 * @sk: the socket.
 * @msg: as for homa_recvmsg(); msg_namelen gets the address's length.
 * @len: as for homa_recvmsg().
 * @flags: as for homa_recvmsg().
 *
 * Return: as for homa_recvmsg().
 */
static inline int homa_proto_recvmsg(struct sock *sk, struct msghdr *msg,
				     size_t len, int flags)
{
	int addr_len = 0;
	int err = homa_recvmsg(sk, msg, len, flags, &addr_len);

	if (err >= 0)
		msg->msg_namelen = addr_len;
	return err;
}
#else
#define homa_proto_recvmsg homa_recvmsg
#endif

#endif /* _HOMA_COMPAT_H */
