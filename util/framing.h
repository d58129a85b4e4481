// SPDX-License-Identifier: GPL-2.0+
// cp_node's message framing. Over TCP every message is an 8-byte header,
// {u32 length; u32 flags} in network byte order, then length bytes of
// payload. Homa requests of at least 8 bytes begin with the same header
// (inside the message) so the server can see the flags.

#ifndef CPNODE_FRAMING_H
#define CPNODE_FRAMING_H

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace cpnode {

constexpr size_t kHeaderSize = 8;
// Request flag: the server answers with kOneWayReply bytes, not an echo.
constexpr uint32_t kFlagOneWay = 1;
constexpr uint32_t kOneWayReply = 100;
// Request flag: the server answers with the number of bytes held in bits
// kReplyLengthShift..31 of the flags (at most kMaxReplyLength); it takes
// precedence over kFlagOneWay.
constexpr uint32_t kFlagReplyLength = 2;
constexpr int kReplyLengthShift = 8;
constexpr uint32_t kMaxReplyLength = 0xffffffu;

void encode_header(uint8_t *out, uint32_t length, uint32_t flags);
void decode_header(const uint8_t *in, uint32_t *length, uint32_t *flags);

// The flags of a request: an echo (neither @one_way nor @reply_length
// given), a kOneWayReply-byte reply, or (@reply_length >= 0, at most
// kMaxReplyLength) a reply of @reply_length bytes.
uint32_t request_flags(bool one_way, int64_t reply_length);
// How many bytes the server answers a request of @length bytes with
// @flags.
uint32_t reply_length(uint32_t length, uint32_t flags);

// Outgoing stream of framed messages whose payload bytes are taken from
// a caller-owned source buffer (byte i of a payload is source[i]), for
// partial (nonblocking) writes.
class FrameEncoder {
public:
	FrameEncoder(const uint8_t *source, size_t source_len)
		: src_(source), src_len_(source_len) {}
	// Queue a message; false if @length exceeds the source buffer.
	bool push(uint32_t length, uint32_t flags);
	bool empty() const { return q_.empty(); }
	size_t pending_bytes() const;
	// Describe the next bytes to write in up to @max iovecs; returns
	// the number used.
	int fill_iov(struct iovec *iov, int max) const;
	// @n bytes were written; returns how many messages are now done.
	int advance(size_t n);

private:
	struct Msg {
		uint8_t hdr[kHeaderSize];
		uint32_t length;
		size_t done;	// bytes of header + payload written
	};
	const uint8_t *src_;
	size_t src_len_;
	std::deque<Msg> q_;
};

// Incoming stream: bytes arrive in arbitrary pieces; whole messages come
// out.
class FrameDecoder {
public:
	struct Message {
		uint32_t length;
		uint32_t flags;
		std::string payload;	// only when keep_payload
	};
	explicit FrameDecoder(uint32_t max_length, bool keep_payload = false)
		: max_(max_length), keep_(keep_payload) {}
	// Consume @n bytes, appending completed messages to @out. Returns
	// false (and stays failed) when a header's length exceeds the max.
	bool feed(const uint8_t *data, size_t n, std::vector<Message> *out);
	bool failed() const { return failed_; }
	// True between messages (no partial header or payload held).
	bool idle() const { return hdr_got_ == 0 && !in_payload_; }

private:
	uint32_t max_;
	bool keep_;
	bool failed_ = false;
	uint8_t hdr_[kHeaderSize];
	size_t hdr_got_ = 0;
	bool in_payload_ = false;
	Message cur_{};
	uint32_t remaining_ = 0;
};

}  // namespace cpnode

#endif
