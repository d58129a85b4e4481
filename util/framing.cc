// SPDX-License-Identifier: GPL-2.0+
#include "framing.h"

#include <algorithm>
#include <cstring>

namespace cpnode {

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = static_cast<uint8_t>(v >> 24);
	p[1] = static_cast<uint8_t>(v >> 16);
	p[2] = static_cast<uint8_t>(v >> 8);
	p[3] = static_cast<uint8_t>(v);
}

static uint32_t get32(const uint8_t *p)
{
	return static_cast<uint32_t>(p[0]) << 24 |
	       static_cast<uint32_t>(p[1]) << 16 |
	       static_cast<uint32_t>(p[2]) << 8 | p[3];
}

void encode_header(uint8_t *out, uint32_t length, uint32_t flags)
{
	put32(out, length);
	put32(out + 4, flags);
}

void decode_header(const uint8_t *in, uint32_t *length, uint32_t *flags)
{
	*length = get32(in);
	*flags = get32(in + 4);
}

uint32_t request_flags(bool one_way, int64_t reply_length)
{
	if (reply_length >= 0)
		return kFlagReplyLength |
		       static_cast<uint32_t>(std::min<int64_t>(
			       reply_length, kMaxReplyLength))
			       << kReplyLengthShift;
	return one_way ? kFlagOneWay : 0;
}

uint32_t reply_length(uint32_t length, uint32_t flags)
{
	if (flags & kFlagReplyLength)
		return flags >> kReplyLengthShift;
	if (flags & kFlagOneWay)
		return kOneWayReply;
	return length;
}

bool FrameEncoder::push(uint32_t length, uint32_t flags)
{
	if (length > src_len_)
		return false;
	Msg m;
	encode_header(m.hdr, length, flags);
	m.length = length;
	m.done = 0;
	q_.push_back(m);
	return true;
}

size_t FrameEncoder::pending_bytes() const
{
	size_t n = 0;

	for (const Msg &m : q_)
		n += kHeaderSize + m.length - m.done;
	return n;
}

int FrameEncoder::fill_iov(struct iovec *iov, int max) const
{
	int used = 0;

	for (const Msg &m : q_) {
		if (used >= max)
			break;
		if (m.done < kHeaderSize) {
			iov[used].iov_base = const_cast<uint8_t *>(m.hdr) +
					     m.done;
			iov[used].iov_len = kHeaderSize - m.done;
			used++;
			if (m.length > 0 && used < max) {
				iov[used].iov_base =
					const_cast<uint8_t *>(src_);
				iov[used].iov_len = m.length;
				used++;
			}
		} else if (m.done < kHeaderSize + m.length) {
			size_t off = m.done - kHeaderSize;
			iov[used].iov_base = const_cast<uint8_t *>(src_) + off;
			iov[used].iov_len = m.length - off;
			used++;
		}
	}
	return used;
}

int FrameEncoder::advance(size_t n)
{
	int finished = 0;

	while (n > 0 && !q_.empty()) {
		Msg &m = q_.front();
		size_t left = kHeaderSize + m.length - m.done;
		size_t take = std::min(left, n);
		m.done += take;
		n -= take;
		if (m.done == kHeaderSize + m.length) {
			q_.pop_front();
			finished++;
		}
	}
	// A zero-length message is finished once its header is out.
	while (!q_.empty() && q_.front().done == kHeaderSize + q_.front().length) {
		q_.pop_front();
		finished++;
	}
	return finished;
}

bool FrameDecoder::feed(const uint8_t *data, size_t n,
			std::vector<Message> *out)
{
	if (failed_)
		return false;
	while (n > 0) {
		if (!in_payload_) {
			size_t take = std::min(n, kHeaderSize - hdr_got_);
			std::memcpy(hdr_ + hdr_got_, data, take);
			hdr_got_ += take;
			data += take;
			n -= take;
			if (hdr_got_ < kHeaderSize)
				break;
			hdr_got_ = 0;
			cur_ = Message();
			decode_header(hdr_, &cur_.length, &cur_.flags);
			if (cur_.length > max_) {
				failed_ = true;
				return false;
			}
			remaining_ = cur_.length;
			in_payload_ = true;
		}
		size_t take = std::min<size_t>(n, remaining_);
		if (keep_)
			cur_.payload.append(reinterpret_cast<const char *>(data),
					    take);
		data += take;
		n -= take;
		remaining_ -= static_cast<uint32_t>(take);
		if (remaining_ == 0) {
			in_payload_ = false;
			out->push_back(std::move(cur_));
			cur_ = Message();
		}
	}
	// A zero-length message whose header ended the buffer.
	if (in_payload_ && remaining_ == 0) {
		in_payload_ = false;
		out->push_back(std::move(cur_));
		cur_ = Message();
	}
	return true;
}

}  // namespace cpnode
