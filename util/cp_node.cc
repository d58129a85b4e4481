// SPDX-License-Identifier: GPL-2.0+
// cp_node: a benchmark client and server for Homa and TCP. See README.md.

#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "args.h"
#include "dist.h"
#include "framing.h"
#include "homa.h"
#include "stats.h"

using namespace cpnode;

namespace {

std::atomic<bool> g_stop{false};

// Payload bytes of every outgoing message (content is irrelevant).
uint8_t *g_payload;

uint64_t now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
	       static_cast<uint64_t>(ts.tv_nsec);
}

struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts;

	if (ns < 0)
		ns = 0;
	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	return ts;
}

[[noreturn]] void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "cp_node: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	fflush(stdout);
	_exit(1);
}

// Print a warning, at most a few per second across the process.
void warn(const char *fmt, ...)
{
	static std::mutex mu;
	static uint64_t window_start;
	static int in_window;
	std::lock_guard<std::mutex> lock(mu);
	uint64_t now = now_ns();
	va_list ap;

	if (now - window_start > 1000000000ull) {
		window_start = now;
		in_window = 0;
	}
	if (++in_window > 5)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "cp_node: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

union SockAddr {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
	struct sockaddr_storage ss;
};

socklen_t addr_len(const SockAddr &a)
{
	return a.sa.sa_family == AF_INET6 ? sizeof(a.in6) : sizeof(a.in4);
}

SockAddr resolve(const std::string &host, int port, int family)
{
	struct addrinfo hints, *res;
	SockAddr a;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_DGRAM;
	int err = getaddrinfo(host.c_str(), nullptr, &hints, &res);
	if (err != 0)
		die("cannot resolve server '%s' as %s: %s", host.c_str(),
		    family == AF_INET6 ? "IPv6" : "IPv4", gai_strerror(err));
	memset(&a, 0, sizeof(a));
	memcpy(&a, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (family == AF_INET6)
		a.in6.sin6_port = htons(static_cast<uint16_t>(port));
	else
		a.in4.sin_port = htons(static_cast<uint16_t>(port));
	return a;
}

SockAddr any_addr(int family, int port)
{
	SockAddr a;

	memset(&a, 0, sizeof(a));
	if (family == AF_INET6) {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_addr = in6addr_any;
		a.in6.sin6_port = htons(static_cast<uint16_t>(port));
	} else {
		a.in4.sin_family = AF_INET;
		a.in4.sin_addr.s_addr = htonl(INADDR_ANY);
		a.in4.sin_port = htons(static_cast<uint16_t>(port));
	}
	return a;
}

// Open a Homa socket with a receive region of @bpages bpages.
int homa_open(int family, int bpages, char **region)
{
	int fd = socket(family, SOCK_DGRAM, IPPROTO_HOMA);

	if (fd < 0)
		die("socket(IPPROTO_HOMA): %s (is homa.ko loaded?)",
		    strerror(errno));
	size_t len = static_cast<size_t>(bpages) * HOMA_BPAGE_SIZE;
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap of %zu bytes: %s", len, strerror(errno));
	struct homa_rcvbuf_args args;
	args.start = reinterpret_cast<uintptr_t>(p);
	args.length = len;
	if (setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
		       sizeof(args)) < 0)
		die("setsockopt SO_HOMA_RCVBUF: %s", strerror(errno));
	*region = static_cast<char *>(p);
	return fd;
}

// recvmsg on a Homa socket. On failure the pieces listed in @a have been
// given back anyway, so num_bpages is cleared.
ssize_t homa_recv(int fd, struct homa_recvmsg_args *a, SockAddr *from,
		  int flags)
{
	struct msghdr h;

	memset(&h, 0, sizeof(h));
	h.msg_name = from;
	h.msg_namelen = sizeof(*from);
	h.msg_control = a;
	h.msg_controllen = sizeof(*a);
	ssize_t n = recvmsg(fd, &h, flags);
	if (n < 0)
		a->num_bpages = 0;
	return n;
}

int homa_send(int fd, const SockAddr &to, struct iovec *iov, int iovcnt,
	      struct homa_sendmsg_args *sa, int flags = 0)
{
	struct msghdr h;

	memset(&h, 0, sizeof(h));
	h.msg_name = const_cast<SockAddr *>(&to);
	h.msg_namelen = addr_len(to);
	h.msg_iov = iov;
	h.msg_iovlen = iovcnt;
	h.msg_control = sa;
	h.msg_controllen = 0;
	return static_cast<int>(sendmsg(fd, &h, flags));
}

void block_signals()
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, nullptr);
	signal(SIGPIPE, SIG_IGN);
}

// ------------------------------------------------------------- server

void homa_server_thread(int fd, char *region)
{
	struct homa_recvmsg_args ra;
	struct homa_sendmsg_args sa;
	struct iovec iov[HOMA_MAX_BPAGES];
	SockAddr peer;
	int consecutive_errors = 0;

	memset(&ra, 0, sizeof(ra));
	for (;;) {
		ra.id = 0;
		ssize_t n = homa_recv(fd, &ra, &peer, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ESHUTDOWN || errno == EBADF)
				return;
			warn("server recvmsg: %s", strerror(errno));
			if (++consecutive_errors > 10)
				usleep(1000);
			continue;
		}
		consecutive_errors = 0;
		if (!(ra.id & 1))
			continue;	// not a request
		int cnt = 0;
		uint32_t len = 0, flags = 0;
		if (n >= static_cast<ssize_t>(kHeaderSize))
			decode_header(reinterpret_cast<uint8_t *>(region) +
					      ra.bpage_offsets[0],
				      &len, &flags);
		// The flags count only in a request that starts with a header
		// (its length field is the message's length).
		uint32_t reply = static_cast<uint32_t>(n);
		if (len == n)
			reply = std::min(reply_length(len, flags), kMaxMessage);
		if (reply != n) {
			iov[0].iov_base = g_payload;
			iov[0].iov_len = reply;
			cnt = 1;
		} else {
			size_t left = static_cast<size_t>(n);
			for (uint32_t i = 0; i < ra.num_bpages && left; i++) {
				size_t piece = std::min<size_t>(left,
							       HOMA_BPAGE_SIZE);
				iov[cnt].iov_base = region +
						    ra.bpage_offsets[i];
				iov[cnt].iov_len = piece;
				cnt++;
				left -= piece;
			}
		}
		memset(&sa, 0, sizeof(sa));
		sa.id = ra.id;
		if (homa_send(fd, peer, iov, cnt, &sa) < 0)
			warn("server sendmsg (reply): %s", strerror(errno));
	}
}

// Write everything an encoder holds, blocking.
bool write_all(int fd, FrameEncoder *enc)
{
	struct iovec iov[16];

	while (!enc->empty()) {
		int cnt = enc->fill_iov(iov, 16);
		ssize_t n = writev(fd, iov, cnt);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		enc->advance(static_cast<size_t>(n));
	}
	return true;
}

void tcp_server_conn(int fd)
{
	FrameDecoder dec(kMaxMessage);
	FrameEncoder enc(g_payload, kMaxMessage);
	std::vector<FrameDecoder::Message> msgs;
	std::vector<uint8_t> buf(1 << 16);

	for (;;) {
		ssize_t n = read(fd, buf.data(), buf.size());
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		msgs.clear();
		if (!dec.feed(buf.data(), static_cast<size_t>(n), &msgs)) {
			warn("tcp server: bad frame from a client; closing");
			break;
		}
		for (auto &m : msgs) {
			// Longer than the payload source: send the most there is
			// (the client counts a wrong length as an error).
			enc.push(std::min(reply_length(m.length, m.flags),
					  kMaxMessage), 0);
		}
		if (!write_all(fd, &enc))
			break;
	}
	close(fd);
}

void tcp_listen_thread(int lfd)
{
	for (;;) {
		int fd = accept(lfd, nullptr, nullptr);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE) {
				if (errno != EINTR)
					usleep(10000);
				continue;
			}
			return;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		std::thread(tcp_server_conn, fd).detach();
	}
}

int run_server(const Options &o)
{
	int family = o.ipv6 ? AF_INET6 : AF_INET;
	std::vector<int> fds;

	block_signals();
	for (int i = 0; i < o.ports; i++) {
		int port = o.first_port + i;
		SockAddr a = any_addr(family, port);
		if (o.tcp) {
			int fd = socket(family, SOCK_STREAM, 0), one = 1;
			if (fd < 0)
				die("socket(TCP): %s", strerror(errno));
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
			if (bind(fd, &a.sa, addr_len(a)) < 0)
				die("bind TCP port %d: %s", port,
				    strerror(errno));
			if (listen(fd, 1000) < 0)
				die("listen on TCP port %d: %s", port,
				    strerror(errno));
			fds.push_back(fd);
			std::thread(tcp_listen_thread, fd).detach();
		} else {
			char *region;
			int fd = homa_open(family, o.bpages, &region);
			int one = 1;
			if (bind(fd, &a.sa, addr_len(a)) < 0)
				die("bind Homa port %d: %s", port,
				    strerror(errno));
			if (setsockopt(fd, IPPROTO_HOMA, SO_HOMA_SERVER, &one,
				       sizeof(one)) < 0)
				die("setsockopt SO_HOMA_SERVER: %s",
				    strerror(errno));
			fds.push_back(fd);
			for (int t = 0; t < o.threads_per_port; t++)
				std::thread(homa_server_thread, fd, region)
					.detach();
		}
	}
	printf("server: ready protocol=%s ports=%d..%d\n",
	       o.tcp ? "tcp" : "homa", o.first_port,
	       o.first_port + o.ports - 1);
	fflush(stdout);

	sigset_t set;
	int sig;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigwait(&set, &sig);
	if (!o.tcp)
		for (int fd : fds)
			shutdown(fd, SHUT_RDWR);
	printf("server: exiting on signal %d\n", sig);
	fflush(stdout);
	fflush(stderr);
	_exit(0);
}

// ------------------------------------------------------------- client

struct Sample {
	uint32_t length;
	uint64_t rtt_ns;
};

// Per client port counters, shared with the status printer.
struct PortStats {
	std::mutex mu;
	uint64_t rpcs = 0;
	uint64_t errors = 0;
	uint64_t bytes_out = 0;	// request bytes sent in the window
	uint64_t bytes_in = 0;	// response bytes received in the window
	// Request plus response bytes of the RPCs completed in the window:
	// what the network carried to the end (bytes_out counts requests
	// when they are handed over, delivered or not).
	uint64_t bytes_done = 0;
	// Open loop: request plus expected response bytes of the requests
	// that arrived in the window, sent or not (the load generated).
	uint64_t bytes_offered = 0;
	std::vector<uint64_t> interval_rtts;
	std::vector<Sample> samples;
	std::atomic<int64_t> outstanding{0};
	// RPCs completed before the window opened (the warm-up): proof
	// that load ran while nothing was counted.
	std::atomic<uint64_t> warmup_rpcs{0};
};

class ClientPort {
public:
	ClientPort(const Options &o, const Workload &w,
		   const std::vector<SockAddr> &dests, uint64_t seed,
		   PortStats *stats)
		: o_(o), w_(w), dests_(dests),
		  stream_(w, dests.size(), seed), stats_(stats) {}
	virtual ~ClientPort() {}

	// Generate load from @start until @end or g_stop; count arrivals,
	// sends and completions from @count_from on.
	void run_load(uint64_t start, uint64_t count_from, uint64_t end);
	// Sequential RPCs of each representative size; prints per-size lines.
	void run_unloaded();

protected:
	// Send one request: kSent, kBlocked (no transmit memory now; try
	// again after wait()) or kFailed (already counted as an error).
	enum SendResult { kSent, kBlocked, kFailed };
	virtual SendResult start_rpc(size_t dest, uint32_t length) = 0;
	// Wait up to @timeout_ns for responses, calling complete() for each.
	virtual void wait(int64_t timeout_ns) = 0;
	// Whether @dest can still be used.
	virtual bool usable(size_t /*dest*/) const { return true; }

	void complete(uint32_t req_len, uint64_t start, uint32_t reply_len,
		      bool error);
	void note_sent(uint32_t length);
	void note_offered(uint32_t length);
	uint32_t expected_reply(uint32_t req_len) const
	{
		// Homa requests shorter than a header carry no flags: echoed.
		if (!framed_ && req_len < kHeaderSize)
			return req_len;
		return reply_length(req_len, request_flags());
	}
	uint32_t request_flags() const
	{
		return cpnode::request_flags(o_.one_way, o_.response_bytes);
	}

	const Options &o_;
	const Workload &w_;
	const std::vector<SockAddr> &dests_;
	RequestStream stream_;
	PortStats *stats_;
	int64_t outstanding_ = 0;
	bool counting_ = true;	// false while draining after the window
	bool framed_ = false;	// every request has a header (TCP)
	std::vector<uint64_t> *unloaded_rtts_ = nullptr;

private:
	// Send @req to its server, or to the next usable one.
	SendResult send_one(const Request &req);
	// Send requests while fewer than client_max are outstanding: from
	// @backlog (open loop) or new ones, *@held first (closed loop); a
	// request that cannot go now goes back there.
	void send_more(bool open, std::deque<Request> *backlog,
		       Request *held);
	// After the measurement: up to 2 s for the outstanding RPCs to
	// finish, not counted.
	void drain();
};

ClientPort::SendResult ClientPort::send_one(const Request &req)
{
	size_t n = dests_.size();

	for (size_t k = 0; k < n; k++) {
		size_t dd = (req.dest + k) % n;
		if (usable(dd))
			return start_rpc(dd, req.length);
	}
	die("every connection to the servers has failed");
}

void ClientPort::note_sent(uint32_t length)
{
	outstanding_++;
	stats_->outstanding.store(outstanding_, std::memory_order_relaxed);
	if (!counting_)
		return;
	std::lock_guard<std::mutex> lock(stats_->mu);
	stats_->bytes_out += length;
}

void ClientPort::note_offered(uint32_t length)
{
	if (!counting_)
		return;
	std::lock_guard<std::mutex> lock(stats_->mu);
	stats_->bytes_offered += length + expected_reply(length);
}

void ClientPort::complete(uint32_t req_len, uint64_t start,
			  uint32_t reply_len, bool error)
{
	uint64_t rtt = now_ns() - start;

	outstanding_--;
	stats_->outstanding.store(outstanding_, std::memory_order_relaxed);
	if (!error && reply_len != expected_reply(req_len)) {
		warn("response of %u bytes to a %u-byte request (want %u)",
		     reply_len, req_len, expected_reply(req_len));
		error = true;
	}
	if (!counting_) {
		if (!error)
			stats_->warmup_rpcs.fetch_add(1,
						      std::memory_order_relaxed);
		return;
	}
	std::lock_guard<std::mutex> lock(stats_->mu);
	if (error) {
		stats_->errors++;
		return;
	}
	stats_->rpcs++;
	stats_->bytes_in += reply_len;
	stats_->bytes_done += req_len + reply_len;
	stats_->interval_rtts.push_back(rtt);
	stats_->samples.push_back({req_len, rtt});
	if (unloaded_rtts_)
		unloaded_rtts_->push_back(rtt);
}

void ClientPort::send_more(bool open, std::deque<Request> *backlog,
			   Request *held)
{
	while (outstanding_ < o_.client_max && (!open || !backlog->empty())) {
		Request req;
		if (open) {
			req = backlog->front();
			backlog->pop_front();
		} else {
			req = held->length ? *held : stream_.next();
			held->length = 0;
		}
		SendResult r = send_one(req);
		if (r == kBlocked) {
			if (open)
				backlog->push_front(req);
			else
				*held = req;
			break;
		}
		if (r == kFailed) {
			usleep(1000);
			break;
		}
	}
}

void ClientPort::drain()
{
	counting_ = false;
	uint64_t drain_end = now_ns() + 2000000000ull;
	while (outstanding_ > 0 && !g_stop.load()) {
		uint64_t now = now_ns();
		if (now >= drain_end)
			break;
		wait(std::min<int64_t>(static_cast<int64_t>(drain_end - now),
				       100000000));
	}
}

void ClientPort::run_load(uint64_t start, uint64_t count_from,
			  uint64_t end)
{
	bool open = o_.gbps > 0;
	double gap = open ? mean_interarrival_ns(w_.mean(),
						 o_.gbps / o_.ports)
			  : 0;
	std::deque<Request> backlog;	// open loop: arrivals not yet sent
	Request held = {0, 0};		// closed loop: a request not yet sent
	double next = static_cast<double>(start) + (open ? stream_.gap(gap) : 0);

	counting_ = start >= count_from;
	while (!g_stop.load(std::memory_order_relaxed)) {
		uint64_t now = now_ns();
		if (now >= end)
			break;
		if (!counting_ && now >= count_from)
			counting_ = true;
		if (open) {
			while (next <= static_cast<double>(now)) {
				if (backlog.size() < 10000000) {
					Request req = stream_.next();

					backlog.push_back(req);
					if (next >= static_cast<double>(count_from))
						note_offered(req.length);
				}
				next += stream_.gap(gap);
			}
		}
		send_more(open, &backlog, &held);
		int64_t timeout = static_cast<int64_t>(end - now);
		if (open && !backlog.empty() && outstanding_ >= o_.client_max)
			;	// only a completion can help
		else if (open)
			timeout = std::min<int64_t>(
				timeout,
				static_cast<int64_t>(next) -
					static_cast<int64_t>(now));
		if (!counting_)
			timeout = std::min<int64_t>(
				timeout, static_cast<int64_t>(count_from - now));
		timeout = std::min<int64_t>(timeout, 100000000);
		wait(timeout);
	}
	// Let outstanding RPCs finish (not counted) so the servers go quiet.
	drain();
}

void ClientPort::run_unloaded()
{
	std::vector<uint32_t> sizes = w_.representative(100);
	std::vector<uint64_t> rtts;

	unloaded_rtts_ = &rtts;
	for (uint32_t size : sizes) {
		rtts.clear();
		for (int i = 0; i < o_.unloaded && !g_stop.load(); i++) {
			SendResult r = send_one({size, stream_.dest()});
			if (r == kBlocked) {
				wait(100000000);
				i--;
				continue;
			}
			if (r == kFailed) {
				usleep(1000);
				continue;
			}
			while (outstanding_ > 0 && !g_stop.load())
				wait(100000000);
		}
		if (g_stop.load())
			break;
		std::vector<uint64_t> copy = rtts;
		std::vector<uint64_t> p = percentiles(copy, {50, 99});
		uint64_t mn = rtts.empty() ? 0 :
			      *std::min_element(rtts.begin(), rtts.end());
		printf("unloaded: length=%u rpcs=%zu min_us=%.1f p50_us=%.1f "
		       "p99_us=%.1f\n",
		       size, rtts.size(), mn / 1e3, p[0] / 1e3, p[1] / 1e3);
		fflush(stdout);
	}
	unloaded_rtts_ = nullptr;
}

class HomaClientPort : public ClientPort {
public:
	HomaClientPort(const Options &o, const Workload &w,
		       const std::vector<SockAddr> &dests, uint64_t seed,
		       PortStats *stats)
		: ClientPort(o, w, dests, seed, stats)
	{
		fd_ = homa_open(o.ipv6 ? AF_INET6 : AF_INET, o.bpages,
				&region_);
		memset(&ra_, 0, sizeof(ra_));
	}
	~HomaClientPort() override
	{
		close(fd_);
		munmap(region_, static_cast<size_t>(o_.bpages) *
					HOMA_BPAGE_SIZE);
	}

protected:
	SendResult start_rpc(size_t dest, uint32_t length) override
	{
		struct homa_sendmsg_args sa;
		uint8_t hdr[kHeaderSize];
		struct iovec iov[2];
		int cnt = 0;

		if (length >= kHeaderSize) {
			encode_header(hdr, length, request_flags());
			iov[cnt].iov_base = hdr;
			iov[cnt++].iov_len = kHeaderSize;
			if (length > kHeaderSize) {
				iov[cnt].iov_base = g_payload;
				iov[cnt++].iov_len = length - kHeaderSize;
			}
		} else {
			iov[cnt].iov_base = g_payload;
			iov[cnt++].iov_len = length;
		}
		memset(&sa, 0, sizeof(sa));
		uint64_t cookie = ++next_cookie_;
		sa.completion_cookie = cookie;
		uint64_t start = now_ns();
		if (homa_send(fd_, dests_[dest], iov, cnt, &sa, MSG_DONTWAIT) <
		    0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR) {
				blocked_ = true;
				return kBlocked;
			}
			warn("sendmsg: %s", strerror(errno));
			if (counting_) {
				std::lock_guard<std::mutex> lock(stats_->mu);
				stats_->errors++;
			}
			return kFailed;
		}
		pending_[cookie] = {length, start};
		note_sent(length);
		return kSent;
	}

	void wait(int64_t timeout_ns) override
	{
		short events = static_cast<short>(POLLIN |
						  (blocked_ ? POLLOUT : 0));
		struct pollfd pfd = {fd_, events, 0};
		struct timespec ts = ns_to_ts(timeout_ns);

		int r = ppoll(&pfd, 1, &ts, nullptr);
		if (r <= 0)
			return;
		if (pfd.revents & POLLOUT)
			blocked_ = false;
		if (!(pfd.revents & (POLLIN | POLLERR | POLLHUP)))
			return;
		for (int i = 0; i < 64; i++) {
			SockAddr from;
			ra_.id = 0;
			ssize_t n = homa_recv(fd_, &ra_, &from, MSG_DONTWAIT);
			if (n < 0) {
				if (errno == EAGAIN || errno == EINTR)
					return;
				if (ra_.id == 0) {
					warn("recvmsg: %s", strerror(errno));
					return;
				}
				warn("RPC failed: %s", strerror(errno));
				finish(ra_.completion_cookie, 0, true);
				continue;
			}
			finish(ra_.completion_cookie,
			       static_cast<uint32_t>(n), false);
		}
	}

private:
	struct Pending {
		uint32_t length;
		uint64_t start;
	};

	void finish(uint64_t cookie, uint32_t reply_len, bool error)
	{
		auto it = pending_.find(cookie);
		if (it == pending_.end()) {
			warn("response with unknown cookie %" PRIu64, cookie);
			return;
		}
		Pending p = it->second;
		pending_.erase(it);
		complete(p.length, p.start, reply_len, error);
	}

	int fd_;
	char *region_;
	struct homa_recvmsg_args ra_;
	uint64_t next_cookie_ = 0;
	bool blocked_ = false;	// sendmsg found transmit memory full
	std::unordered_map<uint64_t, Pending> pending_;
};

class TcpClientPort : public ClientPort {
public:
	TcpClientPort(const Options &o, const Workload &w,
		      const std::vector<SockAddr> &dests, uint64_t seed,
		      PortStats *stats)
		: ClientPort(o, w, dests, seed, stats), buf_(1 << 16)
	{
		framed_ = true;
		for (const SockAddr &d : dests) {
			auto c = std::make_unique<Conn>();
			c->fd = socket(d.sa.sa_family, SOCK_STREAM, 0);
			if (c->fd < 0)
				die("socket(TCP): %s", strerror(errno));
			if (connect(c->fd, &d.sa, addr_len(d)) < 0) {
				char host[INET6_ADDRSTRLEN] = "?";
				int port;
				if (d.sa.sa_family == AF_INET6) {
					inet_ntop(AF_INET6, &d.in6.sin6_addr,
						  host, sizeof(host));
					port = ntohs(d.in6.sin6_port);
				} else {
					inet_ntop(AF_INET, &d.in4.sin_addr,
						  host, sizeof(host));
					port = ntohs(d.in4.sin_port);
				}
				die("connect to %s port %d: %s", host, port,
				    strerror(errno));
			}
			int one = 1;
			setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			fcntl(c->fd, F_SETFL,
			      fcntl(c->fd, F_GETFL) | O_NONBLOCK);
			conns_.push_back(std::move(c));
		}
		pfds_.resize(conns_.size());
	}
	~TcpClientPort() override
	{
		for (auto &c : conns_)
			if (c->fd >= 0)
				close(c->fd);
	}

protected:
	bool usable(size_t dest) const override
	{
		return conns_[dest]->fd >= 0;
	}

	SendResult start_rpc(size_t dest, uint32_t length) override
	{
		Conn &c = *conns_[dest];

		c.pending.push_back({length, now_ns()});
		c.enc.push(length, request_flags());
		note_sent(length);
		flush(c);
		return kSent;
	}

	void wait(int64_t timeout_ns) override
	{
		struct timespec ts = ns_to_ts(timeout_ns);

		for (size_t i = 0; i < conns_.size(); i++) {
			pfds_[i].fd = conns_[i]->fd;
			pfds_[i].events = static_cast<short>(
				POLLIN | (conns_[i]->enc.empty() ? 0 : POLLOUT));
			pfds_[i].revents = 0;
		}
		int r = ppoll(pfds_.data(), pfds_.size(), &ts, nullptr);
		if (r <= 0)
			return;
		for (size_t i = 0; i < conns_.size(); i++) {
			Conn &c = *conns_[i];
			short ev = pfds_[i].revents;
			if (c.fd < 0 || ev == 0)
				continue;
			if (ev & (POLLIN | POLLERR | POLLHUP))
				receive(c);
			if (c.fd >= 0 && (ev & POLLOUT))
				flush(c);
		}
	}

private:
	struct Pending {
		uint32_t length;
		uint64_t start;
	};
	struct Conn {
		int fd = -1;
		FrameEncoder enc{g_payload, kMaxMessage};
		FrameDecoder dec{kMaxMessage};
		std::deque<Pending> pending;
	};

	void fail(Conn &c, const char *why)
	{
		warn("TCP connection failed (%s); %zu RPCs lost", why,
		     c.pending.size());
		close(c.fd);
		c.fd = -1;
		while (!c.pending.empty()) {
			Pending p = c.pending.front();
			c.pending.pop_front();
			complete(p.length, p.start, 0, true);
		}
	}

	void flush(Conn &c)
	{
		struct iovec iov[16];

		while (c.fd >= 0 && !c.enc.empty()) {
			int cnt = c.enc.fill_iov(iov, 16);
			ssize_t n = writev(c.fd, iov, cnt);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					return;
				fail(c, strerror(errno));
				return;
			}
			c.enc.advance(static_cast<size_t>(n));
		}
	}

	void receive(Conn &c)
	{
		for (int rounds = 0; rounds < 64 && c.fd >= 0; rounds++) {
			ssize_t n = read(c.fd, buf_.data(), buf_.size());
			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno != EAGAIN && errno != EWOULDBLOCK)
					fail(c, strerror(errno));
				return;
			}
			if (n == 0) {
				fail(c, "closed by the server");
				return;
			}
			msgs_.clear();
			if (!c.dec.feed(buf_.data(), static_cast<size_t>(n),
					&msgs_)) {
				fail(c, "bad frame");
				return;
			}
			for (auto &m : msgs_) {
				if (c.pending.empty()) {
					fail(c, "unexpected response");
					return;
				}
				Pending p = c.pending.front();
				c.pending.pop_front();
				complete(p.length, p.start, m.length, false);
			}
		}
	}

	std::vector<std::unique_ptr<Conn>> conns_;
	std::vector<struct pollfd> pfds_;
	std::vector<uint8_t> buf_;
	std::vector<FrameDecoder::Message> msgs_;
};

std::string default_workload_dir()
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (n <= 0)
		return "workloads";
	exe[n] = 0;
	std::string dir(exe);
	dir = dir.substr(0, dir.rfind('/'));
	for (const std::string &cand :
	     {dir + "/../workloads", dir + "/workloads"})
		if (stat(cand.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
			return cand;
	return dir + "/../workloads";
}

double cpu_seconds(const struct timeval &tv)
{
	return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6;
}

typedef std::vector<std::unique_ptr<PortStats>> StatsList;

// The client's destinations: every (server, server port), resolved.
std::vector<SockAddr> resolve_servers(const Options &o)
{
	int family = o.ipv6 ? AF_INET6 : AF_INET;
	std::vector<SockAddr> dests;

	for (const std::string &s : o.servers)
		for (int p = 0; p < o.server_ports; p++)
			dests.push_back(resolve(s, o.first_port + p, family));
	return dests;
}

// The --output file, open for writing, or nullptr without --output.
FILE *open_output(const Options &o)
{
	if (o.output.empty())
		return nullptr;
	FILE *out = fopen(o.output.c_str(), "w");
	if (!out)
		die("cannot open output file %s: %s", o.output.c_str(),
		    strerror(errno));
	return out;
}

// The "client:" line: the run's parameters.
void print_client_line(const Options &o, const Workload &w,
		       size_t ndests, uint64_t seed)
{
	std::string replies = o.response_bytes >= 0
				      ? std::to_string(o.response_bytes)
				      : o.one_way ? "one-way" : "echo";
	printf("client: protocol=%s workload=%s mean_bytes=%.0f ports=%d "
	       "destinations=%zu client_max=%d gbps=%.3f replies=%s "
	       "warmup_s=%g seed=%" PRIu64 "\n",
	       o.tcp ? "tcp" : "homa", o.workload.c_str(), w.mean(), o.ports,
	       ndests, o.client_max, o.gbps, replies.c_str(),
	       o.unloaded > 0 ? 0.0 : o.warmup, seed);
	fflush(stdout);
}

// @nports client ports of the protocol, each with its counters in @stats
// and its own seed derived from @seed.
std::vector<std::unique_ptr<ClientPort>> make_ports(
	const Options &o, const Workload &w,
	const std::vector<SockAddr> &dests, uint64_t seed, int nports,
	StatsList *stats)
{
	std::vector<std::unique_ptr<ClientPort>> ports;

	for (int i = 0; i < nports; i++) {
		stats->push_back(std::make_unique<PortStats>());
		uint64_t s = seed + 0x9e3779b97f4a7c15ull * (i + 1);
		if (o.tcp)
			ports.push_back(std::make_unique<TcpClientPort>(
				o, w, dests, s, stats->back().get()));
		else
			ports.push_back(std::make_unique<HomaClientPort>(
				o, w, dests, s, stats->back().get()));
	}
	return ports;
}

// What the previous status line counted.
struct StatusPrev {
	int tick = 0;
	uint64_t t = 0;
	uint64_t rpcs = 0, out = 0, in = 0;
};

// One "status:" line for the second that ends at @now: rates since the
// previous line, percentiles of the RTTs of that second.
void print_status(StatsList &stats, uint64_t now, StatusPrev *prev)
{
	uint64_t rpcs = 0, bout = 0, bin = 0;
	int64_t outstanding = 0;
	uint64_t warmup = 0;
	std::vector<uint64_t> rtts;

	for (auto &s : stats) {
		std::lock_guard<std::mutex> lock(s->mu);
		rpcs += s->rpcs;
		bout += s->bytes_out;
		bin += s->bytes_in;
		rtts.insert(rtts.end(), s->interval_rtts.begin(),
			    s->interval_rtts.end());
		s->interval_rtts.clear();
		outstanding += s->outstanding.load();
		warmup += s->warmup_rpcs.load();
	}
	double dt = (now - prev->t) / 1e9;
	std::vector<uint64_t> p = percentiles(rtts, {50, 99});
	printf("status: t=%d kops=%.2f gbps_out=%.3f gbps_in=%.3f "
	       "p50_us=%" PRIu64 " p99_us=%" PRIu64
	       " outstanding=%" PRId64 " warmup_rpcs=%" PRIu64 "\n",
	       prev->tick, (rpcs - prev->rpcs) / dt / 1e3,
	       (bout - prev->out) * 8 / dt / 1e9,
	       (bin - prev->in) * 8 / dt / 1e9, p[0] / 1000,
	       p[1] / 1000, outstanding, warmup);
	fflush(stdout);
	prev->rpcs = rpcs;
	prev->out = bout;
	prev->in = bin;
	prev->t = now;
}

// Status once per second until the ports are done (@running reaches 0).
// SIGINT or SIGTERM set g_stop and, for a loaded run, end the measurement
// (@load_end).
void status_loop(const Options &o, StatsList &stats, uint64_t start,
		 uint64_t count_from, struct rusage *ru0,
		 const std::atomic<int> &running,
		 std::atomic<uint64_t> *load_end)
{
	bool counting = start >= count_from;
	sigset_t set;
	StatusPrev prev;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	prev.t = start;
	while (running.load() > 0) {
		uint64_t next_tick = start + (prev.tick + 1) * 1000000000ull;
		uint64_t now = now_ns();
		if (!counting && now >= count_from) {
			getrusage(RUSAGE_SELF, ru0);
			counting = true;
		}
		if (!counting)
			next_tick = std::min(next_tick, count_from);
		if (now < next_tick) {
			uint64_t wait = std::min<uint64_t>(next_tick - now,
							   50000000);
			struct timespec ts = ns_to_ts(static_cast<int64_t>(wait));
			int sig = sigtimedwait(&set, nullptr, &ts);
			if (sig == SIGINT || sig == SIGTERM) {
				g_stop = true;
				if (o.unloaded == 0 && load_end->load() == 0)
					*load_end = now_ns();
			}
			continue;
		}
		prev.tick++;
		print_status(stats, now, &prev);
	}
}

// The --output file: a header, then "length rtt_ns" per counted RPC.
void write_samples(const Options &o, FILE *out, const StatsList &stats)
{
	fprintf(out, "# request_length_bytes rtt_ns\n");
	for (auto &s : stats)
		for (const Sample &x : s->samples)
			fprintf(out, "%u %" PRIu64 "\n", x.length, x.rtt_ns);
	if (fclose(out) != 0)
		die("writing %s: %s", o.output.c_str(), strerror(errno));
}

// The "summary:" line of a measurement of @secs seconds; the CPU time
// between @ru0 and @ru1.
void print_summary(const Options &o, const StatsList &stats, double secs,
		   const struct rusage &ru0, const struct rusage &ru1)
{
	uint64_t rpcs = 0, errors = 0, bout = 0, bin = 0, boff = 0, bdone = 0;
	std::vector<uint64_t> all;

	for (auto &s : stats) {
		rpcs += s->rpcs;
		errors += s->errors;
		bout += s->bytes_out;
		bin += s->bytes_in;
		boff += s->bytes_offered;
		bdone += s->bytes_done;
		for (const Sample &x : s->samples)
			all.push_back(x.rtt_ns);
	}
	std::vector<uint64_t> p = percentiles(all, {50, 99});
	printf("summary: rpcs=%" PRIu64 " errors=%" PRIu64 " seconds=%.1f "
	       "kops=%.2f gbps_out=%.3f gbps_in=%.3f offered_gbps=%.3f "
	       "p50_us=%" PRIu64 " p99_us=%" PRIu64
	       " cpu_user_s=%.2f cpu_sys_s=%.2f bytes_out=%" PRIu64
	       " bytes_in=%" PRIu64 " bytes_offered=%" PRIu64
	       " bytes_done=%" PRIu64 "\n",
	       rpcs, errors, secs, rpcs / secs / 1e3, bout * 8 / secs / 1e9,
	       bin * 8 / secs / 1e9, o.unloaded > 0 ? 0.0 : o.gbps,
	       p[0] / 1000, p[1] / 1000,
	       cpu_seconds(ru1.ru_utime) - cpu_seconds(ru0.ru_utime),
	       cpu_seconds(ru1.ru_stime) - cpu_seconds(ru0.ru_stime), bout,
	       bin, boff, bdone);
	fflush(stdout);
}

int run_client(const Options &o)
{
	Workload w;
	std::string err;
	std::string dir = o.workload_dir.empty() ? default_workload_dir()
						  : o.workload_dir;
	if (!w.load(o.workload, dir, &err))
		die("workload: %s", err.c_str());
	std::vector<SockAddr> dests = resolve_servers(o);
	FILE *out = open_output(o);
	uint64_t seed = o.seed;
	if (!o.seed_set)
		seed = (static_cast<uint64_t>(getpid()) << 32) ^ now_ns();
	print_client_line(o, w, dests.size(), seed);

	block_signals();
	int nports = o.unloaded > 0 ? 1 : o.ports;
	StatsList stats;
	std::vector<std::unique_ptr<ClientPort>> ports =
		make_ports(o, w, dests, seed, nports, &stats);
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	uint64_t load_start = now_ns();
	uint64_t start = load_start;
	if (o.unloaded == 0)
		start += static_cast<uint64_t>(o.warmup * 1e9);
	uint64_t end = start + static_cast<uint64_t>(o.seconds * 1e9);
	std::atomic<int> running{nports};
	std::atomic<uint64_t> load_end{0};
	std::vector<std::thread> threads;
	for (auto &port : ports) {
		ClientPort *p = port.get();
		threads.emplace_back([&, p]() {
			if (o.unloaded > 0)
				p->run_unloaded();
			else
				p->run_load(load_start, start, end);
			running--;
		});
	}
	status_loop(o, stats, load_start, start, &ru0, running, &load_end);
	for (auto &t : threads)
		t.join();
	uint64_t finish = now_ns();
	getrusage(RUSAGE_SELF, &ru1);

	uint64_t stop = load_end.load();
	if (o.unloaded > 0 || stop == 0)
		stop = o.unloaded > 0 ? finish : std::min(finish, end);
	// Stopped during the warm-up: nothing was counted.
	double secs = stop > start ? (stop - start) / 1e9 : 1e-9;
	if (out)
		write_samples(o, out, stats);
	print_summary(o, stats, secs, ru0, ru1);
	ports.clear();
	return 0;
}

}  // namespace

int main(int argc, char **argv)
{
	Options o;
	std::string err;
	std::vector<std::string> args(argv + 1, argv + argc);

	if (!parse_options(args, &o, &err)) {
		fprintf(stderr, "cp_node: %s\n%s", err.c_str(), usage_text());
		return 2;
	}
	if (o.help) {
		printf("%s", usage_text());
		return 0;
	}
	g_payload = static_cast<uint8_t *>(malloc(kMaxMessage));
	for (uint32_t i = 0; i < kMaxMessage; i++)
		g_payload[i] = static_cast<uint8_t>(i * 7 + i / 251);
	if (o.mode == Options::kServer)
		return run_server(o);
	return run_client(o);
}
