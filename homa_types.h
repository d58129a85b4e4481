/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The one shim between kernel and user space. Decision files
 * (parsing, ranking, arithmetic on plain data) include only this header for
 * their basic types and helpers, so the same .c files build into homa.ko
 * and into the user-space unit tests. This is the only place in the tree
 * where __KERNEL__ is tested.
 */

#ifndef _HOMA_TYPES_H
#define _HOMA_TYPES_H

#ifdef __KERNEL__

#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#else /* !__KERNEL__ */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <endian.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#ifndef __packed
#define __packed __attribute__((packed))
#endif

#define cpu_to_be16(x) ((__be16)htobe16(x))
#define cpu_to_be32(x) ((__be32)htobe32(x))
#define cpu_to_be64(x) ((__be64)htobe64(x))
#define be16_to_cpu(x) be16toh((u16)(x))
#define be32_to_cpu(x) be32toh((u32)(x))
#define be64_to_cpu(x) be64toh((u64)(x))

#define min_t(type, a, b) ({		\
	type __a = (a);			\
	type __b = (b);			\
	__a < __b ? __a : __b;		\
})

#define max_t(type, a, b) ({		\
	type __a = (a);			\
	type __b = (b);			\
	__a > __b ? __a : __b;		\
})

#ifndef U32_MAX
#define U32_MAX ((u32)~0U)
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* linux/math64.h: a 64-bit dividend over a 32-bit divisor. */
static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

/* linux/math64.h: a 64-bit dividend over a 64-bit divisor. */
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif /* __KERNEL__ */

#endif /* _HOMA_TYPES_H */
