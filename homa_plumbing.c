// SPDX-License-Identifier: GPL-2.0+
/*
 * How Homa joins the kernel: module init and exit, the
 * IPv4 and IPv6 protocol handlers and socket switch entries, the
 * per-namespace setup of struct homa_net, and the socket operations that
 * user calls enter through (bind, close, shutdown, poll, socket options,
 * ioctls, sendmsg, recvmsg).
 */

#include <linux/module.h>
#include <linux/random.h>
#include <net/inet_common.h>
#include <net/ip.h>
#include <net/protocol.h>
#include <net/transp_v6.h>

#include "homa_impl.h"

unsigned int homa_net_id __read_mostly;

/* Packets were freed: wake writers once there is room again. */
static void homa_write_space(struct sock *sk)
{
	struct socket_wq *wq;

	if (!homa_sk(sk)->hnet || homa_sk(sk)->destroyed ||
	    !homa_sock_writeable(homa_sk(sk)))
		return;
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM |
					   EPOLLWRBAND);
	rcu_read_unlock();
}

static int homa_sk_init(struct sock *sk)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_net *hnet = homa_net(sock_net(sk));
	int err;

	/* Softirq lookups find sockets under RCU: free them after a grace. */
	sock_set_flag(sk, SOCK_RCU_FREE);
	sk->sk_write_space = homa_write_space;
	spin_lock_init(&hsk->lock);
	INIT_LIST_HEAD(&hsk->active_rpcs);
	hsk->rx_owed = 0;
	INIT_LIST_HEAD(&hsk->ready_rpcs);
	INIT_LIST_HEAD(&hsk->copy_rpcs);
	hsk->buf_waiters = RB_ROOT;
	INIT_LIST_HEAD(&hsk->dead_rpcs);
	skb_queue_head_init(&hsk->dead_skbs);
	hash_init(hsk->client_rpcs);
	hash_init(hsk->server_rpcs);
	hsk->rpc_hash_key = get_random_u32();
	hash_init(hsk->dedup_hash);
	INIT_LIST_HEAD(&hsk->dedup_list);
	err = homa_sock_init(hsk, hnet);
	if (err)
		return err;
	homa_metric_inc(hnet, HOMA_M_sockets_opened);
	homa_metric_inc(hnet, HOMA_M_sockets_live);
	return 0;
}

/* Refuse new work, end every RPC and wake every waiting thread. */
static void homa_sock_stop(struct homa_sock *hsk)
{
	struct sock *sk = &hsk->inet.sk;

	spin_lock_bh(&hsk->lock);
	WRITE_ONCE(hsk->shutdown, true);
	homa_rpc_end_all(hsk);
	homa_dedup_clear(hsk);
	WRITE_ONCE(hsk->ready_gen, hsk->ready_gen + 1);
	spin_unlock_bh(&hsk->lock);
	sk->sk_state_change(sk);
}

static void homa_sk_destroy(struct sock *sk)
{
	struct homa_sock *hsk = homa_sk(sk);

	if (!hsk->hnet || hsk->destroyed)
		return;
	homa_sock_unlink(hsk);
	homa_sock_stop(hsk);
	homa_rpc_reap(hsk, INT_MAX);
	homa_pool_free(hsk->pool);
	hsk->pool = NULL;
	/* A socket whose init failed never got a port nor was counted. */
	if (hsk->port)
		homa_metric_add(hsk->hnet, HOMA_M_sockets_live, -1);
	/* hsk->hnet stays: a GRANT in flight may still send through it. */
	hsk->destroyed = true;
}

static int homa_sk_hash(struct sock *sk)
{
	return 0;
}

static void homa_sk_unhash(struct sock *sk)
{
	if (homa_sk(sk)->hnet && !homa_sk(sk)->destroyed)
		homa_sock_unlink(homa_sk(sk));
}

static int homa_sk_get_port(struct sock *sk, unsigned short snum)
{
	return 0;
}

static void homa_sk_close(struct sock *sk, long timeout)
{
	homa_sock_stop(homa_sk(sk));
	sk_common_release(sk);
}

static int homa_bind(struct socket *sock, HOMA_BIND_SOCKADDR *addr,
		     int addr_len)
{
	struct homa_sock *hsk = homa_sk(sock->sk);
	int min_len, err;
	u16 port;

	if (addr_len < (int)offsetofend(struct sockaddr, sa_family))
		return -EINVAL;
	/* An IPv6 socket takes IPv6 addresses only, and IPv4 likewise. */
	if (addr->sa_family != sock->sk->sk_family) {
		err = -EAFNOSUPPORT;
		goto out;
	}
	min_len = addr->sa_family == AF_INET6 ? SIN6_LEN_RFC2133
					       : sizeof(struct sockaddr_in);
	if (addr_len < min_len) {
		err = -EINVAL;
		goto out;
	}
	/* sin_port and sin6_port lie at the same offset. */
	port = ntohs(((struct sockaddr_in *)addr)->sin_port);
	/* As for TCP and UDP, a low port needs CAP_NET_BIND_SERVICE. */
	if (port && inet_port_requires_bind_service(sock_net(sock->sk), port) &&
	    !ns_capable(sock_net(sock->sk)->user_ns, CAP_NET_BIND_SERVICE)) {
		err = -EACCES;
		goto out;
	}
	lock_sock(sock->sk);
	err = homa_sock_bind(hsk, port);
	release_sock(sock->sk);
out:
	if (err)
		homa_metric_inc(hsk->hnet, HOMA_M_bind_errors);
	return err;
}

static int homa_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;

	lock_sock(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	homa_sock_stop(homa_sk(sk));
	release_sock(sk);
	return 0;
}

static __poll_t homa_poll(struct file *file, struct socket *sock,
			  poll_table *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (homa_sock_writeable(homa_sk(sk)))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	if (READ_ONCE(homa_sk(sk)->shutdown) ||
	    !list_empty(&homa_sk(sk)->ready_rpcs))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static int homa_setsockopt(struct sock *sk, int level, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	struct homa_rcvbuf_args args;
	int val, err;

	if (level != IPPROTO_HOMA)
		return -ENOPROTOOPT;
	switch (optname) {
	case SO_HOMA_SERVER:
		if (optlen < sizeof(int))
			return -EINVAL;
		if (copy_from_sockptr(&val, optval, sizeof(val)))
			return -EFAULT;
		lock_sock(sk);
		homa_sk(sk)->is_server = val != 0;
		release_sock(sk);
		return 0;
	case SO_HOMA_RCVBUF:
		if (optlen != sizeof(args))
			return -EINVAL;
		if (copy_from_sockptr(&args, optval, sizeof(args)))
			return -EFAULT;
		err = homa_pool_setup(homa_sk(sk), &args);
		/* Messages that arrived before the pool get their space. */
		if (!err)
			homa_msgin_retry(homa_sk(sk));
		return err;
	default:
		return -ENOPROTOOPT;
	}
}

static int homa_getsockopt(struct sock *sk, int level, int optname,
			   char __user *optval, int __user *optlen)
{
	struct homa_rcvbuf_args rcvbuf = {};
	void *src = &rcvbuf;
	int len, val, size;

	if (level != IPPROTO_HOMA)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	switch (optname) {
	case SO_HOMA_SERVER:
		val = READ_ONCE(homa_sk(sk)->is_server);
		src = &val;
		size = sizeof(val);
		break;
	case SO_HOMA_RCVBUF:
		spin_lock_bh(&homa_sk(sk)->lock);
		if (homa_sk(sk)->pool) {
			rcvbuf.start = homa_sk(sk)->pool->start;
			rcvbuf.length = homa_sk(sk)->pool->length;
		}
		spin_unlock_bh(&homa_sk(sk)->lock);
		size = sizeof(rcvbuf);
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (len < size)
		return -EINVAL;
	if (copy_to_user(optval, src, size) || put_user(size, optlen))
		return -EFAULT;
	return 0;
}

/*
 * HOMAIOCINFO: the socket's state and, if the caller gave room, one
 * homa_rpc_info per RPC (as many as fit; num_rpcs says how many exist).
 */
static int homa_ioc_info(struct sock *sk, void __user *arg)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_rpc_info *ri = NULL;
	struct homa_info info;
	const char *msg;
	struct homa_rpc *rpc;
	u32 room, n = 0;
	int err = 0;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	/* Room for the RPCs that exist now, and a few more. */
	room = min_t(u64, info.rpc_info_length / sizeof(*ri),
		     READ_ONCE(hsk->num_rpcs) + 16);
	if (!info.rpc_info_addr)
		room = 0;
	if (room) {
		ri = kvcalloc(room, sizeof(*ri), GFP_KERNEL);
		if (!ri)
			return -ENOMEM;
	}
	spin_lock_bh(&hsk->lock);
	info.port = hsk->port;
	info.num_rpcs = hsk->num_rpcs;
	info.bpool_avail_bytes = hsk->pool ?
		homa_pool_avail_bytes(&hsk->pool->state) : 0;
	list_for_each_entry(rpc, &hsk->active_rpcs, active_links) {
		if (n >= room)
			break;
		homa_rpc_info_fill(rpc, &ri[n++]);
	}
	spin_unlock_bh(&hsk->lock);
	memset(info.error_msg, 0, sizeof(info.error_msg));
	msg = READ_ONCE(hsk->error_msg);
	if (msg)
		strscpy(info.error_msg, msg, sizeof(info.error_msg));
	info._pad = 0;
	if (n && copy_to_user(u64_to_user_ptr(info.rpc_info_addr), ri,
			      n * sizeof(*ri)))
		err = -EFAULT;
	kvfree(ri);
	if (!err && copy_to_user(arg, &info, sizeof(info)))
		err = -EFAULT;
	return err;
}

/* Abort one client RPC: discard it, or fail it with @error. */
static void homa_abort_rpc(struct homa_rpc *rpc, u32 error)
{
	if (error)
		homa_rpc_fail(rpc, -(int)error);
	else
		homa_rpc_end(rpc);
}

static int homa_ioc_abort(struct sock *sk, void __user *arg)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_abort_args args;
	struct homa_rpc *rpc, *tmp;
	int err = 0;

	if (copy_from_user(&args, arg, sizeof(args)))
		return -EFAULT;
	if (args._pad1 || args._pad2[0] || args._pad2[1] ||
	    args.error > MAX_ERRNO || !homa_is_client(args.id))
		return -EINVAL;
	spin_lock_bh(&hsk->lock);
	if (args.id) {
		rpc = homa_rpc_find_client(hsk, args.id);
		if (rpc)
			homa_abort_rpc(rpc, args.error);
		else
			err = -EINVAL;
	} else {
		list_for_each_entry_safe(rpc, tmp, &hsk->active_rpcs,
					 active_links)
			if (homa_is_client(rpc->id))
				homa_abort_rpc(rpc, args.error);
	}
	spin_unlock_bh(&hsk->lock);
	return err;
}

static int homa_socket_ioctl(struct socket *sock, unsigned int cmd,
			     unsigned long arg)
{
	switch (cmd) {
	case HOMAIOCINFO:
		return homa_ioc_info(sock->sk, (void __user *)arg);
	case HOMAIOCABORT:
		return homa_ioc_abort(sock->sk, (void __user *)arg);
	case HOMAIOCFREEZE:
		/* The reference's time trace; there is none here. */
		return -EOPNOTSUPP;
	default:
		return -ENOIOCTLCMD;
	}
}

static struct proto homa_prot = {
	.name		= "HOMA",
	.owner		= THIS_MODULE,
	.close		= homa_sk_close,
	.init		= homa_sk_init,
	.destroy	= homa_sk_destroy,
	.setsockopt	= homa_setsockopt,
	.getsockopt	= homa_getsockopt,
	.sendmsg	= homa_sendmsg,
	.recvmsg	= homa_proto_recvmsg,
	.hash		= homa_sk_hash,
	.unhash		= homa_sk_unhash,
	.get_port	= homa_sk_get_port,
	.obj_size	= sizeof(struct homa_sock),
	.no_autobind	= 1,
};

static struct proto homav6_prot = {
	.name		= "HOMAv6",
	.owner		= THIS_MODULE,
	.close		= homa_sk_close,
	.init		= homa_sk_init,
	.destroy	= homa_sk_destroy,
	.setsockopt	= homa_setsockopt,
	.getsockopt	= homa_getsockopt,
	.sendmsg	= homa_sendmsg,
	.recvmsg	= homa_proto_recvmsg,
	.hash		= homa_sk_hash,
	.unhash		= homa_sk_unhash,
	.get_port	= homa_sk_get_port,
	.obj_size	= sizeof(struct homa_v6_sock),
#if HOMA_HAVE_IPV6_PINFO_OFFSET
	.ipv6_pinfo_offset = offsetof(struct homa_v6_sock, inet6),
#endif
	.no_autobind	= 1,
};

static int homa_inet_ioctl(struct socket *sock, unsigned int cmd,
			   unsigned long arg)
{
	int err = homa_socket_ioctl(sock, cmd, arg);

	return err == -ENOIOCTLCMD ? inet_ioctl(sock, cmd, arg) : err;
}

static int homa_inet6_ioctl(struct socket *sock, unsigned int cmd,
			    unsigned long arg)
{
	int err = homa_socket_ioctl(sock, cmd, arg);

	return err == -ENOIOCTLCMD ? inet6_ioctl(sock, cmd, arg) : err;
}

static const struct proto_ops homa_proto_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= homa_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= inet_getname,
	.poll		= homa_poll,
	.ioctl		= homa_inet_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= homa_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= inet_recvmsg,
	.mmap		= sock_no_mmap,
};

static const struct proto_ops homav6_proto_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= homa_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= inet6_getname,
	.poll		= homa_poll,
	.ioctl		= homa_inet6_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= homa_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= inet_recvmsg,
	.mmap		= sock_no_mmap,
};

static struct inet_protosw homa_protosw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_HOMA,
	.prot		= &homa_prot,
	.ops		= &homa_proto_ops,
	.flags		= INET_PROTOSW_REUSE,
};

static struct inet_protosw homav6_protosw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_HOMA,
	.prot		= &homav6_prot,
	.ops		= &homav6_proto_ops,
	.flags		= INET_PROTOSW_REUSE,
};

static const struct net_protocol homa_protocol = {
	.handler	= homa_softirq,
	.err_handler	= homa_err_handler_v4,
	.no_policy	= 1,
};

static const struct inet6_protocol homav6_protocol = {
	.handler	= homa_softirq,
	.err_handler	= homa_err_handler_v6,
	.flags		= INET6_PROTO_NOPOLICY | INET6_PROTO_FINAL,
};

static int __net_init homa_net_init(struct net *net)
{
	struct homa_net *hnet = homa_net(net);
	int err;

	hnet->net = net;
	homa_config_init(&hnet->config);
	homa_socktab_init(&hnet->socktab);
	homa_peertab_init(hnet);
	homa_grant_init(&hnet->grant);
	homa_cutoffs_init(hnet);
	homa_txpages_init(&hnet->txpages);
	atomic64_set(&hnet->next_id, 0);
	err = homa_metrics_net_init(hnet);
	if (err)
		return err;
	err = homa_sysctl_net_init(hnet);
	if (err)
		goto err_metrics;
	err = homa_peer_rtt_net_init(hnet);
	if (err)
		goto err_sysctl;
	err = homa_rpc_show_net_init(hnet);
	if (err)
		goto err_peer_rtt;
	err = homa_pacer_net_init(hnet);
	if (err)
		goto err_rpc_show;
	homa_timer_start(hnet);
	return 0;

err_rpc_show:
	homa_rpc_show_net_exit(hnet);
err_peer_rtt:
	homa_peer_rtt_net_exit(hnet);
err_sysctl:
	homa_sysctl_net_exit(hnet);
err_metrics:
	homa_metrics_net_exit(hnet);
	return err;
}

static void __net_exit homa_net_exit(struct net *net)
{
	struct homa_net *hnet = homa_net(net);

	homa_timer_stop(hnet);
	homa_cutoffs_exit(hnet);
	/* Every socket is gone, so every message left the grant list. */
	WARN_ON_ONCE(!RB_EMPTY_ROOT(&hnet->grant.rpcs.rb_root));
	homa_pacer_net_exit(hnet);
	homa_txpages_exit(hnet);
	homa_rpc_show_net_exit(hnet);
	homa_peer_rtt_net_exit(hnet);
	homa_peertab_exit(hnet);
	homa_sysctl_net_exit(hnet);
	homa_metrics_net_exit(hnet);
	homa_socktab_exit(&hnet->socktab);
}

static struct pernet_operations homa_net_ops = {
	.init	= homa_net_init,
	.exit	= homa_net_exit,
	.id	= &homa_net_id,
	.size	= sizeof(struct homa_net),
};

static int __init homa_init(void)
{
	int err;

	err = proto_register(&homa_prot, 1);
	if (err)
		return err;
	err = proto_register(&homav6_prot, 1);
	if (err)
		goto err_proto;
	err = register_pernet_subsys(&homa_net_ops);
	if (err)
		goto err_proto6;
	if (inet_add_protocol(&homa_protocol, IPPROTO_HOMA)) {
		err = -EBUSY;
		goto err_pernet;
	}
	inet_register_protosw(&homa_protosw);
	if (inet6_add_protocol(&homav6_protocol, IPPROTO_HOMA)) {
		err = -EBUSY;
		goto err_inet;
	}
	err = inet6_register_protosw(&homav6_protosw);
	if (err)
		goto err_inet6;
	err = homa_offload_init();
	if (err)
		goto err_protosw6;
	return 0;

err_protosw6:
	inet6_unregister_protosw(&homav6_protosw);
err_inet6:
	inet6_del_protocol(&homav6_protocol, IPPROTO_HOMA);
err_inet:
	inet_unregister_protosw(&homa_protosw);
	inet_del_protocol(&homa_protocol, IPPROTO_HOMA);
err_pernet:
	unregister_pernet_subsys(&homa_net_ops);
err_proto6:
	proto_unregister(&homav6_prot);
err_proto:
	proto_unregister(&homa_prot);
	return err;
}

static void __exit homa_exit(void)
{
	homa_offload_exit();
	inet6_unregister_protosw(&homav6_protosw);
	inet6_del_protocol(&homav6_protocol, IPPROTO_HOMA);
	inet_unregister_protosw(&homa_protosw);
	inet_del_protocol(&homa_protocol, IPPROTO_HOMA);
	unregister_pernet_subsys(&homa_net_ops);
	/* Sent copies still in a queue call back into this module. */
	homa_txtrack_wait_all();
	proto_unregister(&homav6_prot);
	proto_unregister(&homa_prot);
}

module_init(homa_init);
module_exit(homa_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Homa: a receiver-driven, message-based RPC transport");
/* SOCK_DGRAM is an enum in the kernel, so its value (2) is spelt out. */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_HOMA, 2);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_HOMA, 2);
