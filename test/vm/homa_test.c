// SPDX-License-Identifier: GPL-2.0+
/*
 * The VM tests' driver of real Homa sockets. Each subcommand checks one
 * area of the user API and exits 0 when every check passed, 1 otherwise,
 * printing one "# " line per failed check (KTAP diagnostics).
 *
 * Usage: homa_test <command> [args]; "homa_test help" lists the commands.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/socket.h>
#include <signal.h>
#include <pthread.h>

#include "homa.h"

static int failures;

/* Record a failed check. */
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# FAIL: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures++;
}

/* Check that a call returned -1 with errno @want (or 0 when @want is 0). */
static void expect_errno(const char *what, int ret, int want)
{
	int got = ret < 0 ? errno : 0;

	if (got != want)
		fail("%s: got %s (%d), want %s (%d)", what, strerror(got), got,
		     strerror(want), want);
}

static int homa_socket(int family)
{
	int fd = socket(family, SOCK_DGRAM, IPPROTO_HOMA);

	if (fd < 0) {
		printf("# socket(%d, SOCK_DGRAM, IPPROTO_HOMA): %s\n", family,
		       strerror(errno));
		exit(1);
	}
	return fd;
}

static int bind_port(int fd, int family, int port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };

	if (family == AF_INET6)
		return bind(fd, (struct sockaddr *)&a6, sizeof(a6));
	return bind(fd, (struct sockaddr *)&a4, sizeof(a4));
}

static int local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		fail("getsockname: %s", strerror(errno));
		return -1;
	}
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Sockets of both families open, get distinct client ports, and close. */
static void cmd_sockets(void)
{
	int fds[2 * 50], i, j, port;

	for (i = 0; i < 100; i++) {
		fds[i] = homa_socket(i % 2 ? AF_INET6 : AF_INET);
		port = local_port(fds[i]);
		if (port < HOMA_MIN_DEFAULT_PORT || port > 0xffff)
			fail("socket %d: client port %d out of range", i, port);
		for (j = 0; j < i; j++)
			if (local_port(fds[j]) == port)
				fail("sockets %d and %d share port %d", i, j,
				     port);
	}
	for (i = 0; i < 100; i++)
		if (close(fds[i]) < 0)
			fail("close: %s", strerror(errno));
	expect_errno("SOCK_STREAM with IPPROTO_HOMA",
		     socket(AF_INET, SOCK_STREAM, IPPROTO_HOMA),
		     EPROTONOSUPPORT);
}

static void check_bind_family(int family)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(600) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(600) };
	int fd = homa_socket(family), fd2 = homa_socket(family);
	int short_len = family == AF_INET6 ? 20 : 8;

	expect_errno("bind port 0", bind_port(fd, family, 0), EINVAL);
	expect_errno("bind port 0x8000", bind_port(fd, family, 0x8000), EINVAL);
	expect_errno("bind port 0xffff", bind_port(fd, family, 0xffff), EINVAL);
	if (family == AF_INET6) {
		expect_errno("bind IPv4 address to IPv6 socket",
			     bind(fd, (struct sockaddr *)&a4, sizeof(a4)),
			     EAFNOSUPPORT);
		expect_errno("bind short IPv6 address",
			     bind(fd, (struct sockaddr *)&a6, short_len),
			     EINVAL);
	} else {
		expect_errno("bind IPv6 address to IPv4 socket",
			     bind(fd, (struct sockaddr *)&a6, sizeof(a6)),
			     EAFNOSUPPORT);
		expect_errno("bind short IPv4 address",
			     bind(fd, (struct sockaddr *)&a4, short_len),
			     EINVAL);
	}
	expect_errno("bind length 1", bind(fd, (struct sockaddr *)&a4, 1),
		     EINVAL);
	expect_errno("bind port 600", bind_port(fd, family, 600), 0);
	if (local_port(fd) != 600)
		fail("getsockname after bind: %d, want 600", local_port(fd));
	expect_errno("bind port 600 again, other socket",
		     bind_port(fd2, family, 600), EADDRINUSE);
	expect_errno("second bind of a bound socket",
		     bind_port(fd, family, 601), EINVAL);
	expect_errno("bind port 0x7fff", bind_port(fd2, family, 0x7fff), 0);
	close(fd);
	fd = homa_socket(family);
	expect_errno("bind port 600 after close", bind_port(fd, family, 600),
		     0);
	close(fd);
	close(fd2);
}

/* bind(): server ports only, one socket per port, families kept apart. */
static void cmd_bind(void)
{
	int fd4, fd6;

	check_bind_family(AF_INET);
	check_bind_family(AF_INET6);
	/* IPv4 and IPv6 sockets share one port space. */
	fd4 = homa_socket(AF_INET);
	fd6 = homa_socket(AF_INET6);
	expect_errno("bind IPv4 700", bind_port(fd4, AF_INET, 700), 0);
	expect_errno("bind IPv6 700 (taken by IPv4)",
		     bind_port(fd6, AF_INET6, 700), EADDRINUSE);
	close(fd4);
	close(fd6);
}

/*
 * Bind a port and keep it until killed (cross-namespace tests); @how:
 * NULL (a server), "noserver" (SO_HOMA_SERVER 0) or "shutdown" (a server
 * shut down at once, its port still held).
 */
static void cmd_hold(int port, const char *how)
{
	int fd = homa_socket(AF_INET), off = 0;

	expect_errno("bind", bind_port(fd, AF_INET, port), 0);
	if (how && !strcmp(how, "noserver"))
		expect_errno("SO_HOMA_SERVER 0",
			     setsockopt(fd, IPPROTO_HOMA, SO_HOMA_SERVER, &off,
					sizeof(off)), 0);
	if (how && !strcmp(how, "shutdown"))
		expect_errno("shutdown", shutdown(fd, SHUT_RDWR), 0);
	if (failures)
		exit(1);
	printf("bound %d\n", port);
	fflush(stdout);
	for (;;)
		pause();
}

/* Try to bind a port once; exit status tells whether it worked. */
/* try_bind PORT [ERRNO]: bind must succeed, or fail with ERRNO. */
static void cmd_try_bind(int port, int want)
{
	int fd = homa_socket(AF_INET);

	expect_errno("bind", bind_port(fd, AF_INET, port), want);
	close(fd);
}

static void check_server_opt(int fd, int want)
{
	socklen_t len = sizeof(int);
	int val = -1;

	if (getsockopt(fd, IPPROTO_HOMA, SO_HOMA_SERVER, &val, &len) < 0)
		fail("getsockopt SO_HOMA_SERVER: %s", strerror(errno));
	else if (val != want || len != sizeof(int))
		fail("SO_HOMA_SERVER is %d (len %u), want %d", val, len, want);
}

/* Socket options: SO_HOMA_SERVER, bad levels, lengths and names. */
static void cmd_sockopt(void)
{
	int fd = homa_socket(AF_INET), one = 1, zero = 0;
	struct homa_rcvbuf_args rb;
	socklen_t len;
	char c = 0;

	check_server_opt(fd, 0);
	expect_errno("set SO_HOMA_SERVER 1",
		     setsockopt(fd, IPPROTO_HOMA, SO_HOMA_SERVER, &one, 4), 0);
	check_server_opt(fd, 1);
	expect_errno("set SO_HOMA_SERVER 0",
		     setsockopt(fd, IPPROTO_HOMA, SO_HOMA_SERVER, &zero, 4), 0);
	check_server_opt(fd, 0);
	expect_errno("set SO_HOMA_SERVER short",
		     setsockopt(fd, IPPROTO_HOMA, SO_HOMA_SERVER, &c, 1),
		     EINVAL);
	expect_errno("set unknown option",
		     setsockopt(fd, IPPROTO_HOMA, 99, &one, 4), ENOPROTOOPT);
	expect_errno("set at level IPPROTO_UDP",
		     setsockopt(fd, IPPROTO_UDP, SO_HOMA_SERVER, &one, 4),
		     ENOPROTOOPT);
	len = 1;
	expect_errno("get SO_HOMA_SERVER short",
		     getsockopt(fd, IPPROTO_HOMA, SO_HOMA_SERVER, &one, &len),
		     EINVAL);
	len = sizeof(rb);
	expect_errno("get SO_HOMA_RCVBUF",
		     getsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &rb, &len),
		     0);
	expect_errno("bind 800", bind_port(fd, AF_INET, 800), 0);
	check_server_opt(fd, 1);
	close(fd);
}

/* HOMAIOCINFO reports the port; HOMAIOCABORT validates its argument. */
static void cmd_ioctl(void)
{
	int fd = homa_socket(AF_INET6);
	struct homa_abort_args abort_args;
	struct homa_info info;

	expect_errno("bind 900", bind_port(fd, AF_INET6, 900), 0);
	memset(&info, 0xa5, sizeof(info));
	info.rpc_info = NULL;
	info.rpc_info_length = 0;
	expect_errno("HOMAIOCINFO", ioctl(fd, HOMAIOCINFO, &info), 0);
	if (info.port != 900 || info.num_rpcs != 0)
		fail("HOMAIOCINFO: port %u rpcs %u", info.port, info.num_rpcs);
	expect_errno("HOMAIOCFREEZE", ioctl(fd, HOMAIOCFREEZE), EOPNOTSUPP);
	if (info.error_msg[0] != 0 || info._pad != 0)
		fail("HOMAIOCINFO left stale bytes in its answer");
	memset(&abort_args, 0, sizeof(abort_args));
	expect_errno("HOMAIOCABORT all", ioctl(fd, HOMAIOCABORT, &abort_args),
		     0);
	abort_args._pad1 = 1;
	expect_errno("HOMAIOCABORT with padding set",
		     ioctl(fd, HOMAIOCABORT, &abort_args), EINVAL);
	expect_errno("HOMAIOCINFO bad pointer",
		     ioctl(fd, HOMAIOCINFO, (void *)16), EFAULT);
	expect_errno("unknown ioctl", ioctl(fd, _IO('h', 0x7f), 0), ENOTTY);
	close(fd);
}

static int send_raw(int family, const void *buf, size_t len)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(family, SOCK_RAW, IPPROTO_HOMA);
	ssize_t n;

	if (fd < 0) {
		fail("raw socket: %s", strerror(errno));
		return -1;
	}
	if (family == AF_INET6)
		n = sendto(fd, buf, len, 0, (struct sockaddr *)&a6, sizeof(a6));
	else
		n = sendto(fd, buf, len, 0, (struct sockaddr *)&a4, sizeof(a4));
	if (n != (ssize_t)len)
		fail("raw sendto %zu bytes: %s", len, strerror(errno));
	close(fd);
	return 0;
}

/* Build a common header: ports, type, RPC id 2. */
static void raw_header(unsigned char *p, int dport, int type)
{
	p[0] = 0x80;		/* sport 0x8000 */
	p[2] = dport >> 8;
	p[3] = dport & 0xff;
	p[11] = type;
	p[27] = 2;		/* sender_id, big-endian */
}

/*
 * Send bad packets to the loopback address of @family: 28 too short for
 * any header, 10 DATA packets whose lengths are impossible, 5 of an unknown
 * type, and 7 well-formed GRANTs to port 1234 (where no socket listens).
 * The test script checks that each group lands in its drop counter.
 */
static void cmd_inject(int family)
{
	unsigned char p[200];
	int i;

	for (i = 0; i < 28; i++) {
		memset(p, 0, sizeof(p));
		raw_header(p, 1234, 0x11);
		send_raw(family, p, i);
	}
	for (i = 0; i < 10; i++) {
		memset(p, 0, sizeof(p));
		raw_header(p, 1234, 0x10);
		/* message_length 0, or offset beyond the message. */
		p[31] = i % 2 ? 0 : 10;
		p[52] = i % 2 ? 0 : 0xff;
		send_raw(family, p, 56 + 20);
	}
	for (i = 0; i < 5; i++) {
		memset(p, 0, sizeof(p));
		raw_header(p, 1234, 0x20 + i);
		send_raw(family, p, 60);
	}
	for (i = 0; i < 7; i++) {
		memset(p, 0, sizeof(p));
		raw_header(p, 1234, 0x11);
		p[31] = 100;	/* grant offset */
		send_raw(family, p, 33);
	}
}

/* Put a big-endian value of @n bytes at @p. */
static void put_be(unsigned char *p, int n, unsigned long long v)
{
	while (n-- > 0) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

/*
 * replay PORT ID: play a client by hand, through a raw socket on the
 * loopback address: a one-packet request of 100 bytes (RPC id ID, client
 * port 0x8000) to the server at PORT, then, once the server has answered
 * (the answer finds no socket at port 0x8000), an ACK for it, which ends
 * the server's RPC, and then the very same request packet again: a late
 * copy, which the server must not execute a second time.
 */
static void cmd_replay(int port, unsigned long long id)
{
	unsigned char data[56 + 100], ack[80];

	memset(data, 0, sizeof(data));
	raw_header(data, port, 0x10);
	put_be(data + 20, 8, id);
	put_be(data + 28, 4, 100);	/* message_length */
	put_be(data + 32, 4, 100);	/* incoming */
	memset(data + 56, 'r', 100);
	memset(ack, 0, sizeof(ack));
	raw_header(ack, port, 0x18);
	put_be(ack + 20, 8, id);
	put_be(ack + 28, 2, 1);		/* num_acks */
	put_be(ack + 30, 8, id);	/* client_id */
	put_be(ack + 38, 2, port);	/* server_port */
	send_raw(AF_INET, data, sizeof(data));
	usleep(300000);
	send_raw(AF_INET, ack, sizeof(ack));
	usleep(300000);
	send_raw(AF_INET, data, sizeof(data));
}

#define REGION_SIZE (64 << 20)

/* Bytes of receive region servers register; "server" may lower it. */
static size_t region_size = REGION_SIZE;

union sockaddr_homa {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

/* Give a socket a receive region. */
static char *setup_pool(int fd)
{
	struct homa_rcvbuf_args args;
	char *region = mmap(NULL, region_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		exit(1);
	}
	args.start = (uintptr_t)region;
	args.length = region_size;
	if (setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
		       sizeof(args)) < 0) {
		printf("# SO_HOMA_RCVBUF: %s\n", strerror(errno));
		exit(1);
	}
	return region;
}

/* Gather a received message out of the pool into @buf. */
static void gather(const char *region, const struct homa_recvmsg_args *a,
		   int len, char *buf)
{
	int i, n, done = 0;

	for (i = 0; i < (int)a->num_bpages && done < len; i++) {
		n = len - done < HOMA_BPAGE_SIZE ? len - done : HOMA_BPAGE_SIZE;
		memcpy(buf + done, region + a->bpage_offsets[i], n);
		done += n;
	}
}

static int do_recv(int fd, struct homa_recvmsg_args *a,
		   union sockaddr_homa *from, int flags)
{
	struct msghdr h = { 0 };

	h.msg_name = from;
	h.msg_namelen = sizeof(*from);
	h.msg_control = a;
	h.msg_controllen = sizeof(*a);
	return recvmsg(fd, &h, flags);
}

static int do_send(int fd, union sockaddr_homa *to, const char *buf, int len,
		   struct homa_sendmsg_args *a)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr h = { 0 };

	h.msg_name = to;
	h.msg_namelen = to->sa.sa_family == AF_INET6 ? sizeof(to->in6)
						      : sizeof(to->in4);
	h.msg_iov = &iov;
	h.msg_iovlen = 1;
	h.msg_control = a;
	h.msg_controllen = 0;
	return sendmsg(fd, &h, 0);
}

/* Echo every request back as its response, until killed. */
/*
 * At-most-once check: every request the server executes is remembered by
 * (client address, port, id); seeing one again is a failure, printed as
 * "# duplicate request" (tests grep the server's output for it).
 */
#define SEEN_SLOTS 1048576
static __u64 seen[SEEN_SLOTS];

static void note_request(const union sockaddr_homa *from, __u64 id)
{
	__u64 key = id, h;
	const unsigned char *p = (const unsigned char *)from;
	size_t i;

	for (i = 0; i < sizeof(*from); i++)
		key = key * 1099511628211ULL + p[i];
	key |= 1;		/* 0 marks a free slot */
	for (h = key % SEEN_SLOTS;; h = (h + 1) % SEEN_SLOTS) {
		if (seen[h] == key) {
			printf("# duplicate request id %llu\n",
			       (unsigned long long)id);
			fflush(stdout);
			return;
		}
		if (seen[h] == 0) {
			seen[h] = key;
			return;
		}
	}
}

/*
 * Wait for the next request on server socket @fd (retrying after signals;
 * any other error ends the program, reported as from @who) and gather it
 * into @buf. Returns its length.
 */
static int recv_request(int fd, const char *region,
			struct homa_recvmsg_args *ra, union sockaddr_homa *from,
			char *buf, const char *who)
{
	int len;

	for (;;) {
		ra->id = 0;
		len = do_recv(fd, ra, from, 0);
		if (len >= 0)
			break;
		if (errno != EINTR) {
			printf("# %s recvmsg: %s\n", who, strerror(errno));
			exit(1);
		}
	}
	gather(region, ra, len, buf);
	return len;
}

/*
 * An echo server's socket, region and at-most-once record (@record false:
 * no record, as tcp_server keeps none, for the round trip's comparison).
 */
struct tserver {
	int fd;
	char *region;
	bool record;
	pthread_mutex_t seen_lock;
};

/* One thread of an echo server: answer requests on @arg's socket. */
static void *tserver_thread(void *arg)
{
	struct tserver *t = arg;
	char *buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	struct homa_recvmsg_args ra;
	struct homa_sendmsg_args sa;
	union sockaddr_homa from;
	int len;

	memset(&ra, 0, sizeof(ra));
	for (;;) {
		len = recv_request(t->fd, t->region, &ra, &from, buf,
				   "server");
		if (t->record) {
			pthread_mutex_lock(&t->seen_lock);
			note_request(&from, ra.id);
			pthread_mutex_unlock(&t->seen_lock);
		}
		memset(&sa, 0, sizeof(sa));
		sa.id = ra.id;
		if (do_send(t->fd, &from, buf, len, &sa) < 0)
			printf("# server sendmsg: %s\n", strerror(errno));
	}
	return NULL;
}

/*
 * The echo server (server, tserver, echo_server) with @threads threads,
 * each waiting in recvmsg for any request on the one socket, until killed;
 * @record: keep the at-most-once record (echo_server does not).
 */
static void cmd_tserver(int family, int port, int threads, bool record)
{
	struct tserver t = { .fd = homa_socket(family), .record = record };
	pthread_t tid;
	int i;

	expect_errno("bind", bind_port(t.fd, family, port), 0);
	t.region = setup_pool(t.fd);
	pthread_mutex_init(&t.seen_lock, NULL);
	for (i = 1; i < threads; i++)
		if (pthread_create(&tid, NULL, tserver_thread, &t) != 0) {
			printf("# pthread_create failed\n");
			exit(1);
		}
	if (threads > 1)
		printf("serving %d with %d threads\n", port, threads);
	else
		printf("serving %d\n", port);
	fflush(stdout);
	tserver_thread(&t);
}

/* server|echo_server 4|6 PORT [BPAGES] (echo_server: no at-most-once record) */
static void cmd_server_args(int argc, char **argv)
{
	if (argc == 5)
		region_size = (size_t)atoi(argv[4]) * HOMA_BPAGE_SIZE;
	cmd_tserver(atoi(argv[2]) == 6 ? AF_INET6 : AF_INET, atoi(argv[3]), 1,
		    strcmp(argv[1], "echo_server") != 0);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int parse_addr(const char *host, int port, union sockaddr_homa *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, host, &a->in4.sin_addr) == 1) {
		a->in4.sin_family = AF_INET;
		a->in4.sin_port = htons(port);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, host, &a->in6.sin6_addr) == 1) {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons(port);
		return AF_INET6;
	}
	printf("# bad address %s\n", host);
	exit(2);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Send @count echo RPCs of @size bytes (0: random sizes) with @window of
 * them outstanding; check every response byte for byte; print RTTs.
 */
static void cmd_client(const char *host, int port, int count, int size,
		       int window)
{
	union sockaddr_homa to, from;
	int family = parse_addr(host, port, &to);
	int fd = homa_socket(family), sent = 0, done = 0, i, len, max;
	char *region = setup_pool(fd), *buf, *got;
	struct homa_recvmsg_args ra;
	struct homa_sendmsg_args sa;
	double *rtt = calloc(count, sizeof(double));
	double *start = calloc(count, sizeof(double));
	int *lens = calloc(count, sizeof(int));

	max = size ? size : HOMA_MAX_MESSAGE_LENGTH;
	buf = malloc(max + 256);
	got = malloc(max + 256);
	for (i = 0; i < max + 256; i++)
		buf[i] = (char)(i * 7 + i / 251);
	srand(12345);
	memset(&ra, 0, sizeof(ra));
	while (done < count) {
		while (sent < count && sent - done < window) {
			lens[sent] = size ? size : 1 + rand() % max;
			memset(&sa, 0, sizeof(sa));
			sa.completion_cookie = sent;
			start[sent] = now_us();
			/* Shift the pattern per RPC so responses can't mix. */
			if (do_send(fd, &to, buf + sent % 256, lens[sent],
				    &sa) < 0) {
				fail("sendmsg %d: %s", sent, strerror(errno));
				exit(1);
			}
			sent++;
		}
		ra.id = 0;
		len = do_recv(fd, &ra, &from, 0);
		if (len < 0) {
			fail("recvmsg: %s (id %llu)", strerror(errno),
			     (unsigned long long)ra.id);
			exit(1);
		}
		i = (int)ra.completion_cookie;
		if (i < 0 || i >= sent || len != lens[i]) {
			fail("response cookie %d length %d", i, len);
			exit(1);
		}
		rtt[i] = now_us() - start[i];
		gather(region, &ra, len, got);
		if (memcmp(got, buf + i % 256, len) != 0)
			fail("RPC %d: response differs from request", i);
		done++;
	}
	qsort(rtt, count, sizeof(double), cmp_double);
	printf("rpcs %d size %d p50_us %.0f p99_us %.0f\n", count, size,
	       rtt[count / 2], rtt[count * 99 / 100]);
}

/*
 * pclient ADDR PORT COUNT SIZE: @count private echo RPCs of @size bytes,
 * one at a time, each received by a recvmsg that names its id (so a
 * private RPC's response is the one copied while it arrives); check every
 * response byte for byte.
 */
static void cmd_pclient(const char *host, int port, int count, int size)
{
	union sockaddr_homa to, from;
	int fd = homa_socket(parse_addr(host, port, &to)), i, j, len;
	char *region = setup_pool(fd), *buf = malloc(size + 256);
	char *got = malloc(size);
	struct homa_recvmsg_args ra;
	struct homa_sendmsg_args sa;

	for (i = 0; i < size + 256; i++)
		buf[i] = (char)(i * 13 + i / 253);
	memset(&ra, 0, sizeof(ra));
	for (i = 0; i < count; i++) {
		memset(&sa, 0, sizeof(sa));
		sa.flags = HOMA_SENDMSG_PRIVATE;
		if (do_send(fd, &to, buf + i % 256, size, &sa) < 0) {
			fail("private sendmsg %d: %s", i, strerror(errno));
			exit(1);
		}
		ra.id = sa.id;
		len = do_recv(fd, &ra, &from, 0);
		if (len != size || ra.id != sa.id) {
			fail("private RPC %d: length %d (%s), id %llu", i, len,
			     len < 0 ? strerror(errno) : "",
			     (unsigned long long)ra.id);
			exit(1);
		}
		gather(region, &ra, len, got);
		for (j = 0; j < len && got[j] == buf[i % 256 + j]; j++)
			;
		if (j < len)
			fail("private RPC %d: byte %d differs", i, j);
	}
	printf("private rpcs %d size %d\n", count, size);
}

/* The byte at @i of the messages that send and sink exchange. */
static char sink_byte(int i)
{
	return (char)(i * 7 + i / 251);
}

/*
 * timeline ADDR PORT MS SIZE: echo RPCs of @size bytes, one at a time, for
 * @ms milliseconds from one socket (no process start-up in the figure);
 * check every response; print "slot T N" for each 100 ms of wall-clock
 * time (T in ms since the epoch, CLOCK_REALTIME, so that a script can
 * compare it with `date +%s%3N`), N the RPCs that completed in it.
 */
static void cmd_timeline(const char *host, int port, int ms, int size)
{
	union sockaddr_homa to, from;
	int fd = homa_socket(parse_addr(host, port, &to)), len, i;
	char *region = setup_pool(fd), *buf = malloc(size), *got = malloc(size);
	int nslots = ms / 100 + 2, *slots = calloc(nslots, sizeof(int));
	struct homa_recvmsg_args ra;
	struct homa_sendmsg_args sa;
	struct timespec ts;
	long long t0, t;

	for (i = 0; i < size; i++)
		buf[i] = sink_byte(i);
	clock_gettime(CLOCK_REALTIME, &ts);
	t0 = ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
	t0 -= t0 % 100;
	for (t = t0; t - t0 < ms;) {
		memset(&sa, 0, sizeof(sa));
		memset(&ra, 0, sizeof(ra));
		if (do_send(fd, &to, buf, size, &sa) < 0) {
			fail("sendmsg: %s", strerror(errno));
			exit(1);
		}
		len = do_recv(fd, &ra, &from, 0);
		if (len != size) {
			fail("recvmsg: %d %s", len, strerror(errno));
			exit(1);
		}
		gather(region, &ra, len, got);
		if (memcmp(got, buf, size) != 0)
			fail("response differs from request");
		clock_gettime(CLOCK_REALTIME, &ts);
		t = ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
		if ((t - t0) / 100 < nslots)
			slots[(t - t0) / 100]++;
	}
	for (i = 0; i < nslots; i++)
		printf("slot %lld %d\n", t0 + 100LL * i, slots[i]);
}

/*
 * sink PORT [6]: receive requests on PORT (an IPv6 socket with 6), check
 * every byte, print "got LEN" for each in the order they complete, and
 * answer each with one byte.
 */
static void cmd_sink(int port, int family)
{
	int fd = homa_socket(family), len, i;
	struct homa_recvmsg_args ra;
	struct homa_sendmsg_args sa;
	union sockaddr_homa from;
	char *region, *buf;

	expect_errno("bind", bind_port(fd, family, port), 0);
	region = setup_pool(fd);
	buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	printf("serving %d\n", port);
	memset(&ra, 0, sizeof(ra));
	for (;;) {
		len = recv_request(fd, region, &ra, &from, buf, "sink");
		for (i = 0; i < len; i++)
			if (buf[i] != sink_byte(i))
				break;
		printf("got %d%s\n", len, i < len ? " corrupt" : "");
		memset(&sa, 0, sizeof(sa));
		sa.id = ra.id;
		if (do_send(fd, &from, buf, 1, &sa) < 0)
			printf("# sink sendmsg: %s\n", strerror(errno));
	}
}

/*
 * A new socket with a buffer pool, and one request of @size bytes of
 * sink_byte() on it to @host's @port; the socket, or -1 (failure
 * recorded).
 */
static int send_sink_request(const char *host, int port, int size)
{
	union sockaddr_homa to;
	int fd = homa_socket(parse_addr(host, port, &to)), i, err;
	struct homa_sendmsg_args sa;
	char *buf = malloc(size);

	setup_pool(fd);
	for (i = 0; i < size; i++)
		buf[i] = sink_byte(i);
	memset(&sa, 0, sizeof(sa));
	err = do_send(fd, &to, buf, size, &sa) < 0 ? errno : 0;
	free(buf);
	if (err) {
		fail("sendmsg %d: %s", size, strerror(err));
		return -1;
	}
	return fd;
}

/*
 * send ADDR PORT SIZE [LINGER_MS]: one request of SIZE bytes; wait for its
 * answer and print "done SIZE id ID port PORT" (the RPC id and the client
 * port); then keep the socket open LINGER_MS more milliseconds (so that it
 * can still answer its server's NEED_ACK).
 */
static void cmd_send(const char *host, int port, int size, int linger_ms)
{
	union sockaddr_homa from;
	int fd = send_sink_request(host, port, size), len;
	struct homa_recvmsg_args ra;

	if (fd < 0)
		return;
	memset(&ra, 0, sizeof(ra));
	do {
		ra.id = 0;
		len = do_recv(fd, &ra, &from, 0);
	} while (len < 0 && errno == EINTR);
	if (len != 1)
		fail("answer to %d bytes: %d (%s)", size, len,
		     len < 0 ? strerror(errno) : "length");
	else
		printf("done %d id %llu port %d\n", size,
		       (unsigned long long)ra.id, local_port(fd));
	usleep(linger_ms * 1000);
}

/*
 * abandon ADDR PORT SIZE [shutdown]: send one request of SIZE bytes and
 * close the socket at once, without waiting for an answer; print "sent
 * SIZE port PORT". A request longer than the unscheduled bytes is left
 * unfinished at its server, whose GRANTs and RESENDs then find no socket.
 * With "shutdown" the socket is shut down instead and kept (with its
 * port) until the process is killed.
 */
static void cmd_abandon(const char *host, int port, int size, bool stop)
{
	int fd = send_sink_request(host, port, size);

	if (fd < 0)
		return;
	if (stop)
		expect_errno("shutdown", shutdown(fd, SHUT_RDWR), 0);
	printf("sent %d port %d\n", size, local_port(fd));
	if (stop)	/* the port stays this socket's until killed */
		for (;;)
			pause();
	close(fd);
}

/* A request and its recvmsg on one loopback socket pair. */
struct api_env {
	int srv, cli;
	char *srv_region, *cli_region;
	union sockaddr_homa srv_addr;
};

static void api_setup(struct api_env *e)
{
	e->srv = homa_socket(AF_INET);
	e->cli = homa_socket(AF_INET);
	expect_errno("bind 60", bind_port(e->srv, AF_INET, 60), 0);
	e->srv_region = setup_pool(e->srv);
	e->cli_region = setup_pool(e->cli);
	parse_addr("127.0.0.1", 60, &e->srv_addr);
}

static void api_send_errors(struct api_env *e)
{
	struct homa_sendmsg_args sa = { 0 };
	union sockaddr_homa a6 = { 0 };
	char buf[16] = "hello";

	sa.flags = 2;
	expect_errno("sendmsg unknown flag",
		     do_send(e->cli, &e->srv_addr, buf, 5, &sa), EINVAL);
	sa.flags = 0;
	sa.reserved = 1;
	expect_errno("sendmsg reserved set",
		     do_send(e->cli, &e->srv_addr, buf, 5, &sa), EINVAL);
	sa.reserved = 0;
	expect_errno("sendmsg zero length",
		     do_send(e->cli, &e->srv_addr, buf, 0, &sa), EINVAL);
	expect_errno("sendmsg too long",
		     do_send(e->cli, &e->srv_addr, buf,
			     HOMA_MAX_MESSAGE_LENGTH + 1, &sa), EINVAL);
	a6.in6.sin6_family = AF_INET6;
	a6.in6.sin6_port = htons(60);
	expect_errno("sendmsg IPv6 address on IPv4 socket",
		     do_send(e->cli, &a6, buf, 5, &sa), EAFNOSUPPORT);
	sa.id = 12345;
	expect_errno("reply to an RPC that is not ours",
		     do_send(e->srv, &e->srv_addr, buf, 5, &sa), EINVAL);
	sa.id = 0;
	sa.completion_cookie = 0;
}

static void api_recv_errors(struct api_env *e)
{
	struct homa_recvmsg_args ra = { 0 };
	union sockaddr_homa from;
	struct msghdr h = { 0 };
	int fd = homa_socket(AF_INET);

	expect_errno("recvmsg without a pool", do_recv(fd, &ra, &from,
						       MSG_DONTWAIT), EINVAL);
	close(fd);
	expect_errno("recvmsg nothing ready, DONTWAIT",
		     do_recv(e->cli, &ra, &from, MSG_DONTWAIT), EAGAIN);
	h.msg_control = &ra;
	h.msg_controllen = sizeof(ra) - 1;
	expect_errno("recvmsg short controllen", recvmsg(e->cli, &h, 0),
		     EINVAL);
	ra.reserved = 1;
	expect_errno("recvmsg reserved set",
		     do_recv(e->cli, &ra, &from, MSG_DONTWAIT), EINVAL);
	ra.reserved = 0;
	ra.num_bpages = HOMA_MAX_BPAGES + 1;
	expect_errno("recvmsg too many bpages",
		     do_recv(e->cli, &ra, &from, MSG_DONTWAIT), EINVAL);
	ra.num_bpages = 1;
	ra.bpage_offsets[0] = 3 * HOMA_BPAGE_SIZE;
	expect_errno("recvmsg return a bpage that is not ours",
		     do_recv(e->cli, &ra, &from, MSG_DONTWAIT), EINVAL);
}

/* One request/response; returns the client's recvmsg result. */
static int api_rpc(struct api_env *e, int flags, __u64 *id)
{
	struct homa_sendmsg_args sa = { .flags = flags };
	struct homa_recvmsg_args ra = { 0 }, again;
	union sockaddr_homa from;
	char buf[100];
	int len;

	memset(buf, 'x', sizeof(buf));
	expect_errno("sendmsg request",
		     do_send(e->cli, &e->srv_addr, buf, 100, &sa), 0);
	*id = sa.id;
	if (sa.id == 0 || sa.id & 1)
		fail("request id %llu not even", (unsigned long long)sa.id);
	len = do_recv(e->srv, &ra, &from, 0);
	if (len != 100 || ra.id != (sa.id | 1))
		fail("server got len %d id %llu", len,
		     (unsigned long long)ra.id);
	memset(&sa, 0, sizeof(sa));
	sa.id = ra.id;
	expect_errno("reply", do_send(e->srv, &from, buf, 50, &sa), 0);
	expect_errno("second reply to the same RPC",
		     do_send(e->srv, &from, buf, 50, &sa), EINVAL);
	/* Hand the request's buffers back. */
	ra.id = 0;
	expect_errno("return server bpages",
		     do_recv(e->srv, &ra, &from, MSG_DONTWAIT), EAGAIN);
	if (ra.num_bpages != 0)
		fail("num_bpages not cleared after the bpages went back");
	expect_errno("retry with the same arguments",
		     do_recv(e->srv, &ra, &from, MSG_DONTWAIT), EAGAIN);
	memset(&ra, 0, sizeof(ra));
	ra.id = flags & HOMA_SENDMSG_PRIVATE ? *id : 0;
	len = do_recv(e->cli, &ra, &from, 0);
	if (len >= 0) {
		if (ra.id != *id)
			fail("response id %llu, want %llu",
			     (unsigned long long)ra.id,
			     (unsigned long long)*id);
		ra.id = 0;
		again = ra;
		expect_errno("return the response's bpages",
			     do_recv(e->cli, &ra, &from, MSG_DONTWAIT), EAGAIN);
		expect_errno("bpages returned twice",
			     do_recv(e->cli, &again, &from, MSG_DONTWAIT),
			     EINVAL);
	}
	return len;
}

static void api_private_abort(struct api_env *e)
{
	struct homa_sendmsg_args sa = { .flags = HOMA_SENDMSG_PRIVATE };
	struct homa_abort_args ab = { 0 };
	struct homa_recvmsg_args ra = { 0 };
	union sockaddr_homa from;
	struct pollfd pfd;
	char buf[8] = "abc";
	__u64 id;

	if (api_rpc(e, HOMA_SENDMSG_PRIVATE, &id) != 50)
		fail("private RPC");
	if (api_rpc(e, 0, &id) != 50)
		fail("shared RPC");
	/* A private response is not given to a shared recvmsg. */
	expect_errno("private request",
		     do_send(e->cli, &e->srv_addr, buf, 3, &sa), 0);
	ab.id = sa.id;
	ab.error = ECANCELED;
	expect_errno("HOMAIOCABORT one RPC with an error",
		     ioctl(e->cli, HOMAIOCABORT, &ab), 0);
	expect_errno("shared recvmsg skips the private RPC",
		     do_recv(e->cli, &ra, &from, MSG_DONTWAIT), EAGAIN);
	pfd.fd = e->cli;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN))
		fail("poll: aborted RPC not readable");
	ra.id = sa.id;
	expect_errno("aborted RPC completes with its error",
		     do_recv(e->cli, &ra, &from, 0), ECANCELED);
	if (ra.id != sa.id)
		fail("failed RPC's id not returned");
	ab.id = 2;
	expect_errno("HOMAIOCABORT unknown RPC",
		     ioctl(e->cli, HOMAIOCABORT, &ab), EINVAL);
}

/*
 * The user API over loopback: errno of every bad argument, private and
 * shared RPCs, abort, poll, and shutdown waking a blocked recvmsg.
 */
static void cmd_api(void)
{
	struct homa_recvmsg_args ra = { 0 };
	union sockaddr_homa from;
	struct api_env e;
	pid_t pid;

	api_setup(&e);
	api_send_errors(&e);
	api_recv_errors(&e);
	api_private_abort(&e);
	close(e.srv);
	close(e.cli);
	/* A fresh socket with nothing to receive: recvmsg blocks. */
	e.srv = homa_socket(AF_INET);
	setup_pool(e.srv);
	pid = fork();
	if (pid == 0) {
		usleep(200000);
		shutdown(e.srv, SHUT_RDWR);
		_exit(0);
	}
	expect_errno("shutdown wakes a blocked recvmsg",
		     do_recv(e.srv, &ra, &from, 0), ESHUTDOWN);
	waitpid(pid, NULL, 0);
	close(e.srv);
}

/*
 * Transmit memory (run with net.homa.wmem_max at 10000 against a server
 * that never answers): requests pile up until sendmsg says EAGAIN and
 * POLLOUT clears; aborting them frees the memory and POLLOUT returns.
 */
static void cmd_wmem(const char *host, int port)
{
	struct homa_abort_args ab = { 0 };
	struct homa_sendmsg_args sa;
	struct pollfd pfd = { .events = POLLOUT };
	union sockaddr_homa to;
	int fd, i, sent = 0, err = 0;
	struct iovec iov;
	struct msghdr h;
	char buf[5000];

	parse_addr(host, port, &to);
	fd = homa_socket(AF_INET);
	pfd.fd = fd;
	memset(buf, 2, sizeof(buf));
	for (i = 0; i < 20 && !err; i++) {
		memset(&sa, 0, sizeof(sa));
		memset(&h, 0, sizeof(h));
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		h.msg_name = &to;
		h.msg_namelen = sizeof(to.in4);
		h.msg_iov = &iov;
		h.msg_iovlen = 1;
		h.msg_control = &sa;
		if (sendmsg(fd, &h, MSG_DONTWAIT) < 0)
			err = errno;
		else
			sent++;
	}
	if (err != EAGAIN || sent < 1)
		fail("wmem: %d sent, then %s; want EAGAIN", sent,
		     strerror(err));
	if (poll(&pfd, 1, 0) != 0)
		fail("POLLOUT set with transmit memory full");
	expect_errno("abort all", ioctl(fd, HOMAIOCABORT, &ab), 0);
	if (poll(&pfd, 1, 1000) != 1 || !(pfd.revents & POLLOUT))
		fail("POLLOUT not back after the abort");
	memset(&sa, 0, sizeof(sa));
	expect_errno("sendmsg after the abort",
		     do_send(fd, &to, buf, sizeof(buf), &sa), 0);
	printf("# %d requests fit in transmit memory\n", sent);
	close(fd);
}

/*
 * One request that must fail with @want: a server that will vanish gives
 * ETIMEDOUT, a host that does not exist EHOSTUNREACH (ICMP).
 */
static void cmd_expect_error(const char *host, int port, int want)
{
	union sockaddr_homa to, from;
	int family = parse_addr(host, port, &to);
	int fd = homa_socket(family);
	struct homa_recvmsg_args ra = { 0 };
	struct homa_sendmsg_args sa = { 0 };
	char buf[3000];

	setup_pool(fd);
	memset(buf, 1, sizeof(buf));
	expect_errno("sendmsg", do_send(fd, &to, buf, sizeof(buf), &sa), 0);
	printf("sent\n");
	fflush(stdout);
	expect_errno("recvmsg of the failed RPC", do_recv(fd, &ra, &from, 0),
		     want);
	if (ra.id != sa.id)
		fail("failed RPC's id not returned");
}

/* Find the entry of RPC @id among @n; NULL if absent. */
static struct homa_rpc_info *find_info(struct homa_rpc_info *ri, int n,
				       __u64 id)
{
	for (int i = 0; i < n; i++)
		if (ri[i].id == id)
			return &ri[i];
	return NULL;
}

/*
 * HOMAIOCINFO's per-RPC entries: a socket sends a 5000-byte request to
 * itself and never answers it, so it holds a client RPC (all sent, no
 * response) and a server RPC (request complete, ready).
 */
static void cmd_info(void)
{
	struct homa_rpc_info ri[4], *c, *s;
	struct homa_sendmsg_args sa = { .completion_cookie = 77 };
	int fd = homa_socket(AF_INET6), i;
	union sockaddr_homa to;
	struct homa_info info;
	char buf[5000];

	expect_errno("bind 902", bind_port(fd, AF_INET6, 902), 0);
	setup_pool(fd);
	parse_addr("::1", 902, &to);
	memset(buf, 3, sizeof(buf));
	/* error_msg explains the last failure. */
	expect_errno("sendmsg of 0 bytes", do_send(fd, &to, buf, 0, &sa),
		     EINVAL);
	memset(&info, 0, sizeof(info));
	expect_errno("HOMAIOCINFO", ioctl(fd, HOMAIOCINFO, &info), 0);
	if (!strstr(info.error_msg, "length"))
		fail("error_msg after a 0-byte sendmsg: '%.*s'",
		     HOMA_ERROR_MSG_SIZE, info.error_msg);
	expect_errno("sendmsg", do_send(fd, &to, buf, sizeof(buf), &sa), 0);
	for (i = 0; i < 200; i++) {
		memset(&info, 0, sizeof(info));
		memset(ri, 0xa5, sizeof(ri));
		info.rpc_info = ri;
		info.rpc_info_length = sizeof(ri);
		expect_errno("HOMAIOCINFO", ioctl(fd, HOMAIOCINFO, &info), 0);
		s = find_info(ri, info.num_rpcs, sa.id | 1);
		if (info.num_rpcs == 2 && s && s->flags & HOMA_RPC_RX_READY)
			break;
		usleep(10000);
	}
	if (info.num_rpcs != 2)
		fail("HOMAIOCINFO: %u RPCs, want 2", info.num_rpcs);
	c = find_info(ri, 2, sa.id);
	s = find_info(ri, 2, sa.id | 1);
	if (!c || !s) {
		fail("HOMAIOCINFO: the client or server RPC is missing");
		return;
	}
	if (c->completion_cookie != 77 || c->tx_length != 5000 ||
	    c->tx_sent != 5000 || c->tx_granted != 5000 ||
	    c->rx_length != -1 || c->flags != 0)
		fail("client entry: cookie %llu tx %d/%u/%u rx %d flags %#x",
		     (unsigned long long)c->completion_cookie, c->tx_length,
		     c->tx_sent, c->tx_granted, c->rx_length, c->flags);
	if (c->peer.in6.sin6_family != AF_INET6 ||
	    ntohs(c->peer.in6.sin6_port) != 902)
		fail("client entry: peer family %d port %d",
		     c->peer.in6.sin6_family, ntohs(c->peer.in6.sin6_port));
	if (s->completion_cookie != 0 || s->rx_length != 5000 ||
	    s->rx_remaining != 0 || s->rx_gaps != 0 || s->tx_length != -1 ||
	    !(s->flags & HOMA_RPC_RX_READY) || s->flags & HOMA_RPC_BUF_STALL)
		fail("server: cookie %llu rx %d/%u gaps %u tx %d flags %#x",
		     (unsigned long long)s->completion_cookie, s->rx_length,
		     s->rx_remaining, s->rx_gaps, s->tx_length, s->flags);
	/* Room for one entry: one is written, num_rpcs still says 2. */
	memset(&info, 0, sizeof(info));
	memset(ri, 0xa5, sizeof(ri));
	info.rpc_info = ri;
	info.rpc_info_length = sizeof(ri[0]);
	expect_errno("HOMAIOCINFO, room for 1", ioctl(fd, HOMAIOCINFO, &info),
		     0);
	if (info.num_rpcs != 2 ||
	    (ri[0].id != sa.id && ri[0].id != (sa.id | 1)))
		fail("room for 1: num_rpcs %u, first id %llu", info.num_rpcs,
		     (unsigned long long)ri[0].id);
	if (ri[1].id != 0xa5a5a5a5a5a5a5a5ULL)
		fail("room for 1: a second entry was written");
	info.rpc_info_addr = 8;
	info.rpc_info_length = sizeof(ri);
	expect_errno("HOMAIOCINFO, bad rpc_info pointer",
		     ioctl(fd, HOMAIOCINFO, &info), EFAULT);
	close(fd);
}

/* Read or write exactly @len bytes of a stream; false at EOF or error. */
static bool tcp_io(int fd, char *buf, size_t len, bool rd)
{
	ssize_t n;

	while (len) {
		n = rd ? read(fd, buf, len) : write(fd, buf, len);
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/* TCP echo server for comparisons: 4-byte length, then the message. */
static void cmd_tcp_server(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int lfd = socket(AF_INET, SOCK_STREAM, 0), fd, one = 1;
	char *buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	__u32 len;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 16) < 0) {
		printf("# tcp server: %s\n", strerror(errno));
		exit(1);
	}
	printf("serving %d\n", port);
	fflush(stdout);
	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while (tcp_io(fd, (char *)&len, 4, true) &&
		       len <= HOMA_MAX_MESSAGE_LENGTH &&
		       tcp_io(fd, buf, len, true) &&
		       tcp_io(fd, (char *)&len, 4, false) &&
		       tcp_io(fd, buf, len, false))
			;
		close(fd);
	}
}

/* Sequential TCP echo RPCs of @size bytes; prints RTTs like "client". */
static void cmd_tcp_client(const char *host, int port, int count, int size)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, i;
	double *rtt = calloc(count, sizeof(double)), start;
	char *buf = calloc(1, size), *got = malloc(size);
	__u32 len = size;

	inet_pton(AF_INET, host, &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fail("tcp connect: %s", strerror(errno));
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; i < count; i++) {
		start = now_us();
		if (!tcp_io(fd, (char *)&len, 4, false) ||
		    !tcp_io(fd, buf, size, false) ||
		    !tcp_io(fd, (char *)&len, 4, true) ||
		    !tcp_io(fd, got, size, true)) {
			fail("tcp echo %d", i);
			exit(1);
		}
		rtt[i] = now_us() - start;
	}
	qsort(rtt, count, sizeof(double), cmp_double);
	printf("rpcs %d size %d p50_us %.0f p99_us %.0f\n", count, size,
	       rtt[count / 2], rtt[count * 99 / 100]);
}

/*
 * unknown_ready PORT: a client RPC whose response is complete but not yet
 * received must ignore an RPC_UNKNOWN (a late answer to an earlier
 * RESEND): recvmsg returns the response, not an error. A server socket
 * at PORT takes the request and never answers; the response and the
 * RPC_UNKNOWN come from a raw socket.
 */
static void cmd_unknown_ready(int port)
{
	unsigned char data[56 + 100], unknown[28];
	struct homa_sendmsg_args sa = { 0 };
	struct homa_recvmsg_args ra;
	union sockaddr_homa to = { 0 }, from;
	int srv = homa_socket(AF_INET), fd = homa_socket(AF_INET);
	char msg[100] = "request", *region;
	int n;

	expect_errno("bind server", bind_port(srv, AF_INET, port), 0);
	region = setup_pool(fd);
	to.in4.sin_family = AF_INET;
	to.in4.sin_port = htons(port);
	to.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	expect_errno("send request", do_send(fd, &to, msg, 100, &sa) < 0, 0);
	usleep(100000);

	/* The whole response (one packet), then RPC_UNKNOWN. */
	memset(data, 0, sizeof(data));
	raw_header(data, local_port(fd), 0x10);
	put_be(data, 2, port);			/* sport */
	put_be(data + 20, 8, sa.id | 1);	/* sender_id: the server's */
	put_be(data + 28, 4, 100);
	put_be(data + 32, 4, 100);
	memset(data + 56, 's', 100);
	send_raw(AF_INET, data, sizeof(data));
	memset(unknown, 0, sizeof(unknown));
	raw_header(unknown, local_port(fd), 0x13);
	put_be(unknown, 2, port);
	put_be(unknown + 20, 8, sa.id | 1);
	send_raw(AF_INET, unknown, sizeof(unknown));
	usleep(100000);

	memset(&ra, 0, sizeof(ra));
	n = do_recv(fd, &ra, &from, MSG_DONTWAIT);
	if (n != 100)
		fail("recvmsg after RPC_UNKNOWN: %d (%s), want 100", n,
		     n < 0 ? strerror(errno) : "short");
	else if (ra.id != sa.id || region[ra.bpage_offsets[0]] != 's')
		fail("recvmsg after RPC_UNKNOWN: wrong RPC or bytes");
	close(fd);
	close(srv);
}

/*
 * tagged ADDR PORT TAG: one request of 1000 bytes, each the character TAG,
 * to an echo server; the response must be the same 1000 bytes (a response
 * meant for another client would carry that client's tag). Prints the
 * RPC's id.
 */
static void cmd_tagged(const char *host, int port, char tag)
{
	union sockaddr_homa to, from;
	int family = parse_addr(host, port, &to);
	int fd = homa_socket(family), n, i;
	struct homa_recvmsg_args ra = { 0 };
	struct homa_sendmsg_args sa = { 0 };
	char buf[1000], *region;

	region = setup_pool(fd);
	memset(buf, tag, sizeof(buf));
	expect_errno("sendmsg", do_send(fd, &to, buf, sizeof(buf), &sa), 0);
	printf("id %llu\n", (unsigned long long)sa.id);
	n = do_recv(fd, &ra, &from, 0);
	if (n != (int)sizeof(buf)) {
		fail("response: %d bytes (%s), want %zu", n,
		     n < 0 ? strerror(errno) : "", sizeof(buf));
		return;
	}
	gather(region, &ra, n, buf);
	for (i = 0; i < n; i++)
		if (buf[i] != tag) {
			fail("response byte %d is '%c', want '%c'", i, buf[i],
			     tag);
			return;
		}
	printf("got own response\n");
}

/* Send a response with id @id to @to; the return value of sendmsg. */
static int send_reply(int fd, union sockaddr_homa *to, __u64 id,
		      const char *buf, int len)
{
	struct homa_sendmsg_args sa = { .id = id };

	return do_send(fd, to, buf, len, &sa);
}

/*
 * swap_server PORT fwd|rev: an IPv4 echo server that first receives two
 * requests, then answers them in arrival order (fwd) or the other way
 * round (rev). The clients are expected to use the same id, so only their
 * addresses tell the RPCs apart. Before answering, replies that name an
 * RPC's id with the wrong port, or an address no client used, must fail
 * with EINVAL. Prints "ids A B": the clients' ids of the two RPCs.
 */
static void cmd_swap_server(int port, bool reverse)
{
	int fd = homa_socket(AF_INET), len[2], i, k;
	struct homa_recvmsg_args ra;
	union sockaddr_homa from[2], wrong;
	char *region, *buf[2];
	__u64 id[2];

	expect_errno("bind", bind_port(fd, AF_INET, port), 0);
	region = setup_pool(fd);
	printf("serving %d\n", port);
	for (i = 0; i < 2; i++) {
		buf[i] = malloc(HOMA_MAX_MESSAGE_LENGTH);
		memset(&ra, 0, sizeof(ra));
		len[i] = recv_request(fd, region, &ra, &from[i], buf[i],
				      "swap_server");
		id[i] = ra.id;
		/* Keep the bpages: the region is not reused here. */
	}
	printf("ids %llu %llu\n", (unsigned long long)(id[0] ^ 1),
	       (unsigned long long)(id[1] ^ 1));
	wrong = from[0];
	wrong.in4.sin_port = htons(ntohs(from[0].in4.sin_port) ^ 1);
	expect_errno("reply to the right id at the wrong port",
		     send_reply(fd, &wrong, id[0], buf[0], len[0]), EINVAL);
	wrong = from[0];
	inet_pton(AF_INET, "10.99.99.99", &wrong.in4.sin_addr);
	expect_errno("reply to the right id at an address no client used",
		     send_reply(fd, &wrong, id[0], buf[0], len[0]), EINVAL);
	for (i = 0; i < 2; i++) {
		k = reverse ? 1 - i : i;
		expect_errno("reply", send_reply(fd, &from[k], id[k], buf[k],
						 len[k]), 0);
	}
	expect_errno("second reply to the same RPC",
		     send_reply(fd, &from[0], id[0], buf[0], len[0]), EINVAL);
	sleep(2);
}

/* Send a raw Homa packet to @host (IPv4) from this namespace's address. */
static void send_raw_to(const char *host, const unsigned char *buf,
			size_t len)
{
	union sockaddr_homa to;
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_HOMA);

	parse_addr(host, 0, &to);
	if (fd < 0) {
		fail("raw socket: %s", strerror(errno));
		return;
	}
	if (sendto(fd, buf, len, 0, &to.sa, sizeof(to.in4)) != (ssize_t)len)
		fail("raw sendto %zu bytes: %s", len, strerror(errno));
	close(fd);
}

/*
 * forge HOST DPORT SPORT ID: act on the client RPC ID of port DPORT at HOST
 * from a host or port that is not its server, with every packet type
 * that can act on a client RPC, each claiming to come from port SPORT: a
 * whole 100-byte response (DATA), a GRANT, a RESEND for everything, a
 * BUSY, an RPC_UNKNOWN and a NEED_ACK (6 packets). The client must drop
 * them all (drop_wrong_source).
 */
static void cmd_forge(const char *host, int dport, int sport,
		      unsigned long long id)
{
	static const int types[] = { 0x10, 0x11, 0x12, 0x14, 0x13, 0x17 };
	unsigned char p[56 + 100];
	size_t len;
	int i;

	for (i = 0; i < 6; i++) {
		memset(p, 0, sizeof(p));
		raw_header(p, dport, types[i]);
		put_be(p, 2, sport);
		put_be(p + 20, 8, id | 1);
		len = 28;
		if (types[i] == 0x10) {
			put_be(p + 28, 4, 100);	/* message_length */
			put_be(p + 32, 4, 100);	/* incoming */
			memset(p + 56, 'f', 100);
			len = sizeof(p);
		} else if (types[i] == 0x11) {
			put_be(p + 28, 4, 1000000);	/* grant offset */
			len = 33;
		} else if (types[i] == 0x12) {
			put_be(p + 32, 4, 0xffffffff);	/* length: all */
			len = 37;
		}
		send_raw_to(host, p, len);
	}
}

/* Set by SIGUSR1; read and written with atomics (no volatile). */
static sig_atomic_t pending_done;

static void pending_stop(int sig)
{
	(void)sig;
	__atomic_store_n(&pending_done, 1, __ATOMIC_RELAXED);
}

static bool pending_stopped(void)
{
	return __atomic_load_n(&pending_done, __ATOMIC_RELAXED);
}

/*
 * pending ADDR PORT MS: send a 1000-byte request to a server that never
 * answers, print "sent PORT ID" (our port and the RPC's id), then watch
 * the socket until SIGUSR1 comes (at most MS milliseconds) and for 200 ms
 * more: nothing may complete the RPC.
 */
static void cmd_pending(const char *host, int port, int ms)
{
	union sockaddr_homa to, from;
	int family = parse_addr(host, port, &to);
	int fd = homa_socket(family), n, ready = 0;
	struct homa_recvmsg_args ra = { 0 };
	struct homa_sendmsg_args sa = { 0 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[1000];

	signal(SIGUSR1, pending_stop);
	setup_pool(fd);
	memset(buf, 'p', sizeof(buf));
	expect_errno("sendmsg", do_send(fd, &to, buf, sizeof(buf), &sa), 0);
	printf("sent %d %llu\n", local_port(fd), (unsigned long long)sa.id);
	for (; !pending_stopped() && ms > 0 && !ready; ms -= 100)
		ready = poll(&pfd, 1, 100) > 0;
	if (!pending_stopped() && !ready)
		fail("no SIGUSR1 within the time given");
	if (ready || poll(&pfd, 1, 200) > 0) {
		n = do_recv(fd, &ra, &from, MSG_DONTWAIT);
		fail("the RPC ended early: recvmsg %d (%s)", n,
		     n < 0 ? strerror(errno) : "a response");
	}
	close(fd);
}

/*
 * stall_fail ADDR PORT: a client whose receive region is 2 bpages asks an
 * echo server for 300000 bytes, so the response's first packets arrive
 * but it can never get its buffers; then it aborts the RPC with ECANCELED.
 * recvmsg must return ECANCELED for it and leave the region untouched:
 * the packets that arrived have nowhere to go.
 */
static void cmd_stall_fail(const char *host, int port)
{
	union sockaddr_homa to, from;
	int family = parse_addr(host, port, &to);
	int fd = homa_socket(family), n;
	struct homa_abort_args ab = { 0 };
	struct homa_recvmsg_args ra = { 0 };
	struct homa_sendmsg_args sa = { 0 };
	size_t i, len = 300000;
	char *region, *buf;

	region_size = 2 * HOMA_BPAGE_SIZE;
	region = setup_pool(fd);
	memset(region, 'z', region_size);
	buf = malloc(len);
	memset(buf, 'q', len);
	expect_errno("sendmsg", do_send(fd, &to, buf, len, &sa), 0);
	/* Long enough for the request to go and the response to start. */
	sleep(2);
	ab.id = sa.id;
	ab.error = ECANCELED;
	expect_errno("abort with ECANCELED", ioctl(fd, HOMAIOCABORT, &ab), 0);
	n = do_recv(fd, &ra, &from, 0);
	expect_errno("recvmsg of the failed RPC", n, ECANCELED);
	if (ra.num_bpages)
		fail("failed RPC returned %u bpages", ra.num_bpages);
	for (i = 0; i < region_size; i++)
		if (region[i] != 'z') {
			fail("region byte %zu overwritten with '%c'", i,
			     region[i]);
			break;
		}
	free(buf);
	close(fd);
}

/*
 * bcast ADDR DPORT: a RESEND for an RPC nobody has, sent through a raw
 * socket to the broadcast address ADDR: a host must not answer a packet
 * that every host on the link received (drop_not_host).
 */
static void cmd_bcast(const char *host, int dport)
{
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_HOMA), one = 1;
	union sockaddr_homa to;
	unsigned char p[37];

	parse_addr(host, 0, &to);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one,
				 sizeof(one)) < 0) {
		fail("raw broadcast socket: %s", strerror(errno));
		return;
	}
	memset(p, 0, sizeof(p));
	raw_header(p, dport, 0x12);
	put_be(p + 32, 4, 100);		/* length */
	if (sendto(fd, p, sizeof(p), 0, &to.sa, sizeof(to.in4)) != sizeof(p))
		fail("broadcast sendto: %s", strerror(errno));
	close(fd);
}

static void recv_intr_alarm(int sig)
{
	(void)sig;
}

/*
 * A blocking recvmsg with nothing to receive, interrupted by SIGALRM
 * after MS milliseconds (no SA_RESTART): it must fail with EINTR, whether
 * the thread was sleeping or spinning (poll_usecs).
 */
static void cmd_recv_intr(int ms)
{
	struct sigaction act = { 0 };
	struct homa_recvmsg_args ra;
	struct itimerval it = { 0 };
	union sockaddr_homa from;
	int fd = homa_socket(AF_INET);
	int n;

	setup_pool(fd);
	act.sa_handler = recv_intr_alarm;
	sigemptyset(&act.sa_mask);
	if (sigaction(SIGALRM, &act, NULL) != 0)
		fail("sigaction: %s", strerror(errno));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		fail("setitimer: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	n = do_recv(fd, &ra, &from, 0);
	if (n >= 0 || errno != EINTR)
		fail("recvmsg interrupted by a signal: %d (%s), want EINTR", n,
		     n < 0 ? strerror(errno) : "a message");
	else
		printf("recvmsg: EINTR\n");
	close(fd);
}

static void print_usage(void)
{
	printf("Usage: %s sockets | bind | hold PORT [noserver|shutdown] |\n"
	       "       try_bind PORT [ERRNO] |\n"
	       "       sockopt | ioctl | info | inject4 | inject6 |\n"
	       "       server 4|6 PORT [BPAGES] | tserver 4|6 PORT THREADS |\n"
	       "       echo_server 4|6 PORT [BPAGES] |\n"
	       "       api |\n"
	       "       expect_timeout ADDR PORT | expect_unreach ADDR PORT |\n"
	       "       expect_noport ADDR PORT |\n"
	       "       client ADDR PORT COUNT SIZE WINDOW |\n"
	       "       pclient ADDR PORT COUNT SIZE |\n"
	       "       timeline ADDR PORT MS SIZE |\n"
	       "       tcp_server PORT | tcp_client ADDR PORT COUNT SIZE |\n"
	       "       wmem ADDR PORT | replay PORT ID | unknown_ready PORT |\n"
	       "       sink PORT [6] | send ADDR PORT SIZE [LINGER_MS] |\n"
	       "       abandon ADDR PORT SIZE [shutdown] |\n"
	       "       tagged ADDR PORT TAG | swap_server PORT fwd|rev |\n"
	       "       forge HOST DPORT SPORT ID | pending ADDR PORT MS |\n"
	       "       stall_fail ADDR PORT | bcast ADDR DPORT |\n"
	       "       recv_intr MS\n",
	       "homa_test");
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		print_usage();
	if (!strcmp(argv[1], "sockets"))
		cmd_sockets();
	else if (!strcmp(argv[1], "bind"))
		cmd_bind();
	else if (!strcmp(argv[1], "hold") && argc == 3)
		cmd_hold(atoi(argv[2]), NULL);
	else if (!strcmp(argv[1], "hold") && argc == 4 &&
		 (!strcmp(argv[3], "noserver") || !strcmp(argv[3], "shutdown")))
		cmd_hold(atoi(argv[2]), argv[3]);
	else if (!strcmp(argv[1], "try_bind") && argc == 3)
		cmd_try_bind(atoi(argv[2]), 0);
	else if (!strcmp(argv[1], "try_bind") && argc == 4)
		cmd_try_bind(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(argv[1], "sockopt"))
		cmd_sockopt();
	else if (!strcmp(argv[1], "ioctl"))
		cmd_ioctl();
	else if (!strcmp(argv[1], "inject4"))
		cmd_inject(AF_INET);
	else if (!strcmp(argv[1], "inject6"))
		cmd_inject(AF_INET6);
	else if ((!strcmp(argv[1], "server") ||
		  !strcmp(argv[1], "echo_server")) && (argc == 4 || argc == 5))
		cmd_server_args(argc, argv);
	else if (!strcmp(argv[1], "tserver") && argc == 5 && atoi(argv[4]) > 0)
		cmd_tserver(atoi(argv[2]) == 6 ? AF_INET6 : AF_INET,
			    atoi(argv[3]), atoi(argv[4]), true);
	else if (!strcmp(argv[1], "api"))
		cmd_api();
	else if (!strcmp(argv[1], "info"))
		cmd_info();
	else if (!strcmp(argv[1], "expect_timeout") && argc == 4)
		cmd_expect_error(argv[2], atoi(argv[3]), ETIMEDOUT);
	else if (!strcmp(argv[1], "expect_unreach") && argc == 4)
		cmd_expect_error(argv[2], atoi(argv[3]), EHOSTUNREACH);
	else if (!strcmp(argv[1], "expect_noport") && argc == 4)
		cmd_expect_error(argv[2], atoi(argv[3]), ENOTCONN);
	else if (!strcmp(argv[1], "recv_intr") && argc == 3 &&
		 atoi(argv[2]) > 0)
		cmd_recv_intr(atoi(argv[2]));
	else if (!strcmp(argv[1], "unknown_ready") && argc == 3)
		cmd_unknown_ready(atoi(argv[2]));
	else if (!strcmp(argv[1], "replay") && argc == 4)
		cmd_replay(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "wmem") && argc == 4)
		cmd_wmem(argv[2], atoi(argv[3]));
	else if (!strcmp(argv[1], "tcp_server") && argc == 3)
		cmd_tcp_server(atoi(argv[2]));
	else if (!strcmp(argv[1], "tcp_client") && argc == 6)
		cmd_tcp_client(argv[2], atoi(argv[3]), atoi(argv[4]),
			       atoi(argv[5]));
	else if (!strcmp(argv[1], "sink") && (argc == 3 || argc == 4))
		cmd_sink(atoi(argv[2]), argc == 4 && atoi(argv[3]) == 6 ?
			 AF_INET6 : AF_INET);
	else if (!strcmp(argv[1], "send") && (argc == 5 || argc == 6))
		cmd_send(argv[2], atoi(argv[3]), atoi(argv[4]),
			 argc == 6 ? atoi(argv[5]) : 0);
	else if (!strcmp(argv[1], "abandon") && argc == 5)
		cmd_abandon(argv[2], atoi(argv[3]), atoi(argv[4]), false);
	else if (!strcmp(argv[1], "abandon") && argc == 6 &&
		 !strcmp(argv[5], "shutdown"))
		cmd_abandon(argv[2], atoi(argv[3]), atoi(argv[4]), true);
	else if (!strcmp(argv[1], "tagged") && argc == 5)
		cmd_tagged(argv[2], atoi(argv[3]), argv[4][0]);
	else if (!strcmp(argv[1], "swap_server") && argc == 4)
		cmd_swap_server(atoi(argv[2]), !strcmp(argv[3], "rev"));
	else if (!strcmp(argv[1], "forge") && argc == 6)
		cmd_forge(argv[2], atoi(argv[3]), atoi(argv[4]),
			  strtoull(argv[5], NULL, 0));
	else if (!strcmp(argv[1], "pending") && argc == 5)
		cmd_pending(argv[2], atoi(argv[3]), atoi(argv[4]));
	else if (!strcmp(argv[1], "bcast") && argc == 4)
		cmd_bcast(argv[2], atoi(argv[3]));
	else if (!strcmp(argv[1], "stall_fail") && argc == 4)
		cmd_stall_fail(argv[2], atoi(argv[3]));
	else if (!strcmp(argv[1], "timeline") && argc == 6)
		cmd_timeline(argv[2], atoi(argv[3]), atoi(argv[4]),
			     atoi(argv[5]));
	else if (!strcmp(argv[1], "pclient") && argc == 6)
		cmd_pclient(argv[2], atoi(argv[3]), atoi(argv[4]),
			    atoi(argv[5]));
	else if (!strcmp(argv[1], "client") && argc == 7)
		cmd_client(argv[2], atoi(argv[3]), atoi(argv[4]),
			   atoi(argv[5]), atoi(argv[6]));
	else
		print_usage();
	return failures ? 1 : 0;
}
