// SPDX-License-Identifier: GPL-2.0+
/*
 * The socket table of a namespace: port assignment for new
 * sockets, bind to server ports, lookup by port for incoming packets, and
 * removal at close. Each namespace has its own port space.
 */

#include "homa_impl.h"

/**
 * homa_socktab_init() - Set up an empty socket table.
 * @tab: the table, part of a new homa_net.
 */
void homa_socktab_init(struct homa_socktab *tab)
{
	spin_lock_init(&tab->write_lock);
	hash_init(tab->buckets);
	INIT_LIST_HEAD(&tab->all);
	tab->next_default_port = HOMA_MIN_DEFAULT_PORT;
}

/**
 * homa_socktab_exit() - Tear down a socket table whose namespace is going.
 * @tab: the table. Every socket holds a reference on its namespace, so
 *       the table is empty by now; a socket left behind is a bug.
 */
void homa_socktab_exit(struct homa_socktab *tab)
{
	WARN_ON_ONCE(!hash_empty(tab->buckets) || !list_empty(&tab->all));
}

static struct homa_sock *__homa_sock_find(struct homa_socktab *tab, u16 port)
{
	struct homa_sock *hsk;

	hash_for_each_possible_rcu(tab->buckets, hsk, socktab_node, port,
				   lockdep_is_held(&tab->write_lock))
		if (READ_ONCE(hsk->port) == port)
			return hsk;
	return NULL;
}

/**
 * homa_sock_find() - Find the socket bound to a port.
 * @hnet: the namespace's Homa host.
 * @port: the port.
 *
 * Must be called under rcu_read_lock(); the socket stays valid until the
 * caller leaves the RCU read side (sockets are freed after a grace period,
 * SOCK_RCU_FREE).
 *
 * Return: the socket, or NULL if none has the port.
 */
struct homa_sock *homa_sock_find(struct homa_net *hnet, u16 port)
{
	return __homa_sock_find(&hnet->socktab, port);
}

/* Pick an unused client port; the caller holds the table's write_lock. */
static int homa_socktab_alloc_port(struct homa_socktab *tab)
{
	u32 tries = 0x10000 - HOMA_MIN_DEFAULT_PORT;
	u16 port;

	lockdep_assert_held(&tab->write_lock);
	while (tries--) {
		port = tab->next_default_port;
		tab->next_default_port = port == 0xffff ? HOMA_MIN_DEFAULT_PORT
							: port + 1;
		if (!__homa_sock_find(tab, port))
			return port;
	}
	return -EADDRNOTAVAIL;
}

/**
 * homa_sock_init() - Give a new socket a client port and enter it in its
 * namespace's table.
 * @hsk: the socket, whose generic parts are initialised.
 * @hnet: the namespace's Homa host.
 *
 * Return: 0, or -EADDRNOTAVAIL if every client port is in use.
 */
int homa_sock_init(struct homa_sock *hsk, struct homa_net *hnet)
{
	struct homa_socktab *tab = &hnet->socktab;
	int port;

	hsk->hnet = hnet;
	hsk->is_server = false;
	hsk->shutdown = false;
	spin_lock_bh(&tab->write_lock);
	port = homa_socktab_alloc_port(tab);
	if (port >= 0) {
		hsk->port = port;
		hsk->inet.inet_num = port;
		hsk->inet.inet_sport = htons(port);
		hash_add_rcu(tab->buckets, &hsk->socktab_node, port);
		list_add_tail_rcu(&hsk->socktab_links, &tab->all);
		hsk->in_socktab = true;
	}
	spin_unlock_bh(&tab->write_lock);
	return port < 0 ? port : 0;
}

/**
 * homa_sock_unlink() - Remove a socket from its namespace's table, so no
 * new packet finds it. Safe to call more than once.
 * @hsk: the socket.
 */
void homa_sock_unlink(struct homa_sock *hsk)
{
	struct homa_socktab *tab = &hsk->hnet->socktab;

	spin_lock_bh(&tab->write_lock);
	if (hsk->in_socktab) {
		hash_del_rcu(&hsk->socktab_node);
		list_del_rcu(&hsk->socktab_links);
		hsk->in_socktab = false;
	}
	spin_unlock_bh(&tab->write_lock);
}

/**
 * homa_sock_bind() - Move a socket to a server port.
 * @hsk: the socket; the caller holds its socket lock.
 * @port: the server port, below HOMA_MIN_DEFAULT_PORT.
 *
 * Return: 0; -EINVAL if @port is 0 or not a server port, or the socket is
 * already bound to a server port; -EADDRINUSE if another socket of the
 * namespace has @port; -ESHUTDOWN after shutdown().
 */
int homa_sock_bind(struct homa_sock *hsk, u16 port)
{
	struct homa_socktab *tab = &hsk->hnet->socktab;
	int err = 0;

	sock_owned_by_me(&hsk->inet.sk);
	if (port == 0 || port >= HOMA_MIN_DEFAULT_PORT)
		return -EINVAL;
	spin_lock_bh(&tab->write_lock);
	if (hsk->shutdown || !hsk->in_socktab)
		err = -ESHUTDOWN;
	else if (hsk->port < HOMA_MIN_DEFAULT_PORT)
		err = -EINVAL;
	else if (__homa_sock_find(tab, port))
		err = -EADDRINUSE;
	if (err) {
		spin_unlock_bh(&tab->write_lock);
		return err;
	}
	/*
	 * Readers under RCU may still walk the old chain; they compare the
	 * port with READ_ONCE and simply miss the socket while it moves.
	 */
	hash_del_rcu(&hsk->socktab_node);
	WRITE_ONCE(hsk->port, port);
	hsk->inet.inet_num = port;
	hsk->inet.inet_sport = htons(port);
	hsk->is_server = true;
	hash_add_rcu(tab->buckets, &hsk->socktab_node, port);
	spin_unlock_bh(&tab->write_lock);
	return 0;
}

/**
 * homa_sock_writeable() - May the socket queue another message?
 * @hsk: the socket.
 *
 * Return: true while the packets it holds use less than wmem_max bytes.
 */
bool homa_sock_writeable(struct homa_sock *hsk)
{
	/* sk_wmem_alloc starts at 1 for the socket itself. */
	return refcount_read(&hsk->inet.sk.sk_wmem_alloc) - 1 <
	       (unsigned int)homa_cfg(hsk->hnet, wmem_max);
}
