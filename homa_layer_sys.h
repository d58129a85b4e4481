/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The functions of the layer "system calls and registration"
 * (docs/DESIGN.md): the socket operations and the module's entry points call
 * these. homa_impl.h includes this header after the structs it needs;
 * include homa_impl.h, not this file.
 */

#ifndef _HOMA_LAYER_SYS_H
#define _HOMA_LAYER_SYS_H

/* homa_sendmsg.c: sendmsg */
int homa_sendmsg(struct sock *sk, struct msghdr *msg, size_t len);

/* homa_recvmsg.c: recvmsg */
int homa_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags,
		 int *addr_len);

/* homa_sysctl.c: net.homa.* sysctls */
int homa_sysctl_net_init(struct homa_net *hnet);
void homa_sysctl_net_exit(struct homa_net *hnet);

#endif /* _HOMA_LAYER_SYS_H */
