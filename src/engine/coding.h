/*-------------------------------------------------------------------------
 *
 * coding.h
 *	  Variable-length integers and a growable byte buffer, for the segment
 *	  formats (block.c, indexblock.c, segment_writer.c).
 *
 *	  varint   := LEB128, 7 bits a byte, low bits first (at most 10 bytes)
 *	  zigzag   := (n << 1) ^ (n >> 63), so small negatives stay short
 *
 * Decoders take an end pointer and fail (return NULL) rather than read past
 * it: a corrupt block yields a clean error, never a crash.
 *
 * IDENTIFICATION
 *	  src/engine/coding.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_CODING_H
#define WIDE_CODING_H

#include "lib/stringinfo.h"

/*
 * (The writers call these a few times per record: the common case, room in
 * the buffer, is a store and no call; appendBinaryStringInfo grows it.)
 */
static inline void
put_bytes(StringInfo s, const char *p, int len)
{
	if (likely(s->len + len < s->maxlen))
	{
		memcpy(s->data + s->len, p, len);
		s->len += len;
		s->data[s->len] = '\0';
	}
	else
		appendBinaryStringInfo(s, p, len);
}

static inline void
put_varint(StringInfo s, uint64 v)
{
	char		buf[10];
	char	   *d;
	int			n = 0;

	/* room for the longest varint: write it in place */
	d = likely(s->len + 10 < s->maxlen) ? s->data + s->len : buf;
	while (v >= 0x80)
	{
		d[n++] = (char) (v | 0x80);
		v >>= 7;
	}
	d[n++] = (char) v;
	if (d == buf)
		appendBinaryStringInfo(s, buf, n);
	else
	{
		s->len += n;
		s->data[s->len] = '\0';
	}
}

static inline void
put_zigzag(StringInfo s, int64 v)
{
	put_varint(s, ((uint64) v << 1) ^ (uint64) (v >> 63));
}

static inline void
put_byte(StringInfo s, uint8 b)
{
	appendStringInfoCharMacro(s, (char) b);
}

static inline void
put_u32(StringInfo s, uint32 v)
{
	put_bytes(s, (const char *) &v, sizeof(v));
}

/* decoders: return the position after the value, or NULL if truncated */
static inline const char *
get_varint(const char *p, const char *end, uint64 *v)
{
	uint64		result = 0;
	int			shift;

	/*
	 * One or two bytes (most varints of a block: deltas, small values)
	 * without a branch on which: a loop's exit mispredicts where lengths
	 * mix.
	 */
	if (likely(end - p >= 2))
	{
		uint64		b0 = (uint8) p[0];
		uint64		b1 = (uint8) p[1];

		if (!(b0 & b1 & 0x80))
		{
			uint64		two = b0 >> 7;

			*v = (b0 & 0x7f) | (((b1 & 0x7f) << 7) & (0 - two));
			return p + 1 + two;
		}
	}
	for (shift = 0; shift <= 63 && p < end; shift += 7)
	{
		uint8		b = (uint8) *p++;

		result |= (uint64) (b & 0x7f) << shift;
		if (!(b & 0x80))
		{
			*v = result;
			return p;
		}
	}
	return NULL;
}

static inline const char *
get_zigzag(const char *p, const char *end, int64 *v)
{
	uint64		u;

	p = get_varint(p, end, &u);
	if (p)
		*v = (int64) (u >> 1) ^ -(int64) (u & 1);
	return p;
}

static inline const char *
get_u32v(const char *p, const char *end, uint32 *v)
{
	uint64		u;

	p = get_varint(p, end, &u);
	if (p == NULL || u > PG_UINT32_MAX)
		return NULL;
	*v = (uint32) u;
	return p;
}

/* length of the common prefix of two strings */
static inline uint32
common_prefix(const char *a, uint32 alen, const char *b, uint32 blen)
{
	uint32		n = Min(alen, blen);
	uint32		i = 0;

	/* eight bytes at a time while they agree (row keys share long prefixes) */
	while (i + 8 <= n)
	{
		uint64		x,
					y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

#endif							/* WIDE_CODING_H */
