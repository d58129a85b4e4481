/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * unit_util.h - small helpers shared by the unit tests: big-endian byte
 * access written independently of the code under test, heap buffers of an
 * exact size (so AddressSanitizer reports any access past their end), and
 * the seed of the random tests (HOMA_TEST_SEED overrides it).
 */

#ifndef _UNIT_UTIL_H
#define _UNIT_UTIL_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>

namespace unit {

inline uint16_t get16(const uint8_t *b, size_t off)
{
	return (uint16_t)(b[off] << 8 | b[off + 1]);
}

inline uint32_t get32(const uint8_t *b, size_t off)
{
	return (uint32_t)get16(b, off) << 16 | get16(b, off + 2);
}

inline uint64_t get64(const uint8_t *b, size_t off)
{
	return (uint64_t)get32(b, off) << 32 | get32(b, off + 4);
}

inline void put16(uint8_t *b, size_t off, uint16_t v)
{
	b[off] = (uint8_t)(v >> 8);
	b[off + 1] = (uint8_t)v;
}

inline void put32(uint8_t *b, size_t off, uint32_t v)
{
	put16(b, off, (uint16_t)(v >> 16));
	put16(b, off + 2, (uint16_t)v);
}

inline void put64(uint8_t *b, size_t off, uint64_t v)
{
	put32(b, off, (uint32_t)(v >> 32));
	put32(b, off + 4, (uint32_t)v);
}

/* A heap copy of exactly @len bytes: reading beyond it trips ASan. */
class ExactBuf {
public:
	ExactBuf(const void *src, size_t len)
		: p_(new uint8_t[len]), len_(len)
	{
		if (len)
			memcpy(p_.get(), src, len);
	}
	uint8_t *data() { return p_.get(); }
	uint32_t len() const { return (uint32_t)len_; }

private:
	std::unique_ptr<uint8_t[]> p_;
	size_t len_;
};

/* Seed for random tests: $HOMA_TEST_SEED if set, else a fresh one. */
inline uint64_t test_seed()
{
	const char *s = getenv("HOMA_TEST_SEED");

	if (s && *s)
		return strtoull(s, nullptr, 0);
	std::random_device rd;
	return (uint64_t)rd() << 32 | rd();
}

inline std::string seed_msg(uint64_t seed)
{
	return "seed " + std::to_string(seed) + " (rerun with HOMA_TEST_SEED=" +
	       std::to_string(seed) + ")";
}

/* Hex dump of @len bytes, 16 a line, for failure messages. */
inline std::string hex(const uint8_t *b, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	std::string s;

	for (size_t i = 0; i < len; i++) {
		if (i % 16 == 0)
			s += "\n  " + std::to_string(i) + ":\t";
		s += digits[b[i] >> 4];
		s += digits[b[i] & 15];
		s += ' ';
	}
	return s;
}

} /* namespace unit */

#endif /* _UNIT_UTIL_H */
