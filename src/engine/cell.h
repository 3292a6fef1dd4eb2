/*-------------------------------------------------------------------------
 *
 * cell.h
 *	  A cell (a decoded record) and the order of cells: the comparator, row
 *	  key ranges, cell timestamps (cell.c).
 *
 * IDENTIFICATION
 *	  src/engine/cell.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_CELL_H
#define WIDE_CELL_H

#include "datatype/timestamp.h"
#include "engine/format.h"

/*
 * Scope level of a record inside its row, used by the comparator: a row
 * tombstone sorts before every cell of its row, a family tombstone before
 * every cell of its family, a column tombstone before every version.
 */
#define WIDE_LEVEL_ROW		0
#define WIDE_LEVEL_FAMILY	1
#define WIDE_LEVEL_COLUMN	2
#define WIDE_LEVEL_CELL		3

/* WideCell.same: hints from a sorted stream (a block iterator) */
#define WIDE_SAME_ROW		0x01
#define WIDE_SAME_FAMILY	0x02
#define WIDE_SAME_QUAL		0x04

/*
 * A decoded record.  Pointers refer to memory owned by whoever decoded it
 * (a pinned page, a decoded block, or palloc'd memory).
 */
typedef struct WideCell
{
	uint8		kind;			/* WideKind */
	uint8		flags;			/* WIDE_REC_* */
	uint16		famlen;
	uint32		keylen;
	uint32		quallen;
	uint32		vallen;			/* length of the value, even if in a blob */
	uint32		famid;			/* family incarnation, see families.c */
	const char *key;
	const char *family;
	const char *qual;
	const char *value;			/* NULL while the value is only in a blob */
	int64		ts;				/* microseconds since 1970; DEL_CELLS: from */
	int64		ts_to;			/* DEL_CELLS: exclusive end, or WIDE_TS_NO_END */
	uint64		seq;			/* write order */
	TransactionId xmin;			/* FrozenTransactionId once visible to all */
	CommandId	cmin;
	WideBlobRef blob;			/* valid when WIDE_REC_VALUE_BLOB */
	/* what this record shares with the previous one of the same stream */
	uint8		same;			/* WIDE_SAME_* */
	/* the same bytes as a varlena datum, when available without a copy */
	const char *key_datum;
	const char *qual_datum;
	const char *value_datum;
} WideCell;

/*
 * A data block's records decoded a section at a time into rows
 * (block.c: WideBlockIterRowBatch; reader.c: WideReaderRowBatch), for a
 * caller that reads one family's columns of 8-byte values: the keys are
 * read first (rows, and each record's column), then the values into the
 * rows' slots; timestamps and sequence numbers are only stepped over.
 *
 * The spec names the family and the columns (their qualifiers, sorted;
 * bit i of a mask is column i), and which records the caller's filter of
 * the block's records would keep (WideRowBatchMode): each row gets, of
 * the live PUT records kept, the first (newest) value of each column, and
 * the number of them.
 */
#define WIDE_BATCH_MAX_COLS	64
#define WIDE_BATCH_MAX_ROWS	1024	/* a batch's rows (its memory: rows x columns) */

typedef enum WideRowBatchMode
{
	WIDE_BATCH_FAMILY,			/* no filter: every record of the family */
	WIDE_BATCH_COLUMNS,			/* the records of the columns */
	WIDE_BATCH_STORED			/* ... but of the columns not valued only a
								 * row's first (rows_keep_stored) */
} WideRowBatchMode;

typedef struct WideRowBatchSpec
{
	const char *family;
	uint32		famlen;
	int			ncols;
	const char *const *quals;	/* sorted bytewise */
	const uint32 *quallens;
	uint64		valued;			/* WIDE_BATCH_STORED: columns valued */
	WideRowBatchMode mode;
	bool	   *row_kept;		/* WIDE_BATCH_STORED: a record of the current
								 * row was kept (the filter's state) */
} WideRowBatchSpec;

typedef struct WideRowBatch
{
	int			nrows;
	/*
	 * Row j's key (WideRowBatchKey): the first shared[j] bytes of row
	 * j - 1's (of the key before the batch for row 0), then sfxlen[j]
	 * bytes at sfx[j], in the block
	 */
	uint32	   *keylen;
	uint32	   *shared;
	const char **sfx;
	uint32	   *sfxlen;
	const char *sfxend;			/* the block's end */
	char	   *keys;			/* the key before the batch */
	uint32		baselen;
	char	   *curkey;			/* the key of row keyrow (-1: before) */
	uint32		curcap;
	int			keyrow;
	uint64	   *present;		/* row j's columns that have a value */
	uint32	   *ncells;			/* row j's records kept */
	uint64	   *vals;			/* row j's column i: vals[j * ncols + i] */
	/* (the decoder's) */
	int32	   *dest;			/* per record: its slot, or -1 */
	int			reccap;
	int			rowcap;
	uint32		keycap;
	char	   *qualbuf;
	uint32		qualcap;
	uint32	   *lcp;			/* by column: the prefix it shares with the
								 * one before */
	const WideRowBatchSpec *lcp_spec;	/* ... of this spec's columns */
	MemoryContext cxt;			/* where the arrays live */
} WideRowBatch;

/* a range of row keys; has_start/has_end false: unbounded */
typedef struct WideKeyRange
{
	bool		has_start;
	bool		start_incl;
	bool		has_end;
	bool		end_incl;
	bool		is_point;		/* start == end, both included: one row */
	uint32		startlen;
	uint32		endlen;
	const char *start;
	const char *end;
} WideKeyRange;

/* cell.c: order of cells, row key ranges */
extern int	WideCellLevel(const WideCell *cell);
extern int	WideCellCompare(const WideCell *a, const WideCell *b);
extern int	WideCellCompareInRow(const WideCell *a, const WideCell *b);
extern int	WideKeyCompare(const char *a, uint32 alen, const char *b, uint32 blen);

/*
 * WideKeyNext8 -- the 8 bytes of a key after its first plen, big-endian,
 * zero-padded: where two keys share their first plen bytes, unequal values
 * order them as WideKeyCompare does (equal ones need the whole keys).
 * Seeks keep them in an array beside sorted keys (block.c, indexblock.c),
 * so that a binary search reads a few cache lines instead of a key each.
 */
/* the longest common prefix kept beside such an array (a seek reads it first) */
#define WIDE_KEY_PREFIX_MAX	48

static inline uint64
WideKeyNext8(const char *key, uint32 keylen, uint32 plen)
{
	uint64		v = 0;

	for (uint32 i = 0; i < 8; i++)
		v = (v << 8) | (plen + i < keylen ? (uint8) key[plen + i] : 0);
	return v;
}

/*
 * WideKeyCommonLen -- how many of the first plen bytes of first the key
 * shares (to shorten a common prefix, a key at a time)
 */
static inline uint32
WideKeyCommonLen(const char *first, uint32 plen, const char *key, uint32 keylen)
{
	uint32		k = 0;

	while (k < plen && k < keylen && first[k] == key[k])
		k++;
	return k;
}

/*
 * WideKeyPrefixSeek -- where a seek for key starts among n sorted keys
 * whose common prefix is the plen bytes at prefix: 0 if key sorts before
 * them all (it differs from the prefix below it, or is a proper prefix of
 * it), n if after them all; else -1, with *k8 its WideKeyNext8 (what the
 * binary search compares first).
 */
static inline int
WideKeyPrefixSeek(const char *key, uint32 keylen, const char *prefix,
				  uint32 plen, int n, uint64 *k8)
{
	int			c = memcmp(key, prefix, Min(keylen, plen));

	if (c != 0)
		return c < 0 ? 0 : n;
	if (keylen < plen)
		return 0;				/* a proper prefix of every key */
	*k8 = WideKeyNext8(key, keylen, plen);
	return -1;
}
extern bool WideCellSameColumn(const WideCell *a, const WideCell *b);
extern bool WideRowBeforeRange(const WideKeyRange *r, const char *key, uint32 keylen);
extern bool WideRowAfterRange(const WideKeyRange *r, const char *key, uint32 keylen);
extern bool WideRunOverlapsRange(const WideRunData *run, const WideKeyRange *r);

/*
 * WideBytesEqual -- are two short byte strings (row keys, families,
 * qualifiers) equal?  Inline, eight bytes at a time: for the per-cell tests
 * of a scan, where a call of memcmp costs more than the comparison.
 */
static inline bool
WideBytesEqual(const char *a, uint32 alen, const char *b, uint32 blen)
{
	uint64		x,
				y;
	uint32		u,
				v;

	if (alen != blen)
		return false;
	if (alen >= 8)
	{
		/* words, then the last eight bytes (overlapping the word before) */
		uint32		off = 0;

		for (; off + 8 < alen; off += 8)
		{
			memcpy(&x, a + off, 8);
			memcpy(&y, b + off, 8);
			if (x != y)
				return false;
		}
		memcpy(&x, a + alen - 8, 8);
		memcpy(&y, b + alen - 8, 8);
		return x == y;
	}
	if (alen >= 4)
	{
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return false;
		memcpy(&u, a + alen - 4, 4);
		memcpy(&v, b + alen - 4, 4);
		return u == v;
	}
	while (alen > 0)
	{
		if (*a++ != *b++)
			return false;
		alen--;
	}
	return true;
}

/* cell.c: cell timestamps, microseconds since 1970 */
extern int64 WideTimestampToUnix(TimestampTz ts);
extern TimestampTz WideUnixToTimestamp(int64 us);

#endif							/* WIDE_CELL_H */
