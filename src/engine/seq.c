/*-------------------------------------------------------------------------
 *
 * seq.c
 *	  Sequence numbers: the write order of records.
 *
 * Bigtable orders a delete against the puts it removes by when they were
 * written, not by their timestamps, and the last write of a cell wins.  The
 * engine therefore gives every record a 64-bit sequence number such that a
 * write that starts after another one has finished gets a larger number,
 * whichever backend does it.  Writes that overlap in time may be ordered
 * either way (they are concurrent); ties are possible only between them.
 *
 * The source is the WAL insert position, which every backend sees advance
 * monotonically:
 *
 *		seq = max(GetXLogInsertRecPtr() << 8, last seq of this backend + 1)
 *
 * A write takes a block of n numbers and then WAL-logs the page (or the
 * metapage) it changed.  Once that WAL record is inserted, every backend
 * must read an insert position past the block: WideSeqAfterWrite checks
 * that, and where the record was too short (a block of more than 256 x its
 * length) or not written at all (unlogged tables, wal_level = minimal for a
 * relation created in this transaction) it pads the WAL with XLOG_NOOP
 * records.  Temporary tables have a single writer and need no padding.
 *
 * The shift by 8 leaves room for 2^56 bytes of WAL (64 PiB).
 *
 * IDENTIFICATION
 *	  src/engine/seq.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/pg_control.h"
#include "utils/rel.h"

#include "engine/storage.h"

#define WIDE_SEQ_SHIFT		8
/* padding beyond this (2^34 records a write) is refused */
#define WIDE_SEQ_MAX_PAD	((uint64) 64 * 1024 * 1024)

static uint64 last_seq = 0;

/*
 * WideSeqNext -- reserve n consecutive sequence numbers; return the first.
 */
uint64
WideSeqNext(Relation rel, uint64 n)
{
	XLogRecPtr	pos = GetXLogInsertRecPtr();
	uint64		first;

	Assert(n > 0);
	if (pos >= (UINT64CONST(1) << (64 - WIDE_SEQ_SHIFT)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("WAL position %X/%X is beyond what wide can order",
						LSN_FORMAT_ARGS(pos)),
				 errdetail("Sequence numbers hold WAL positions up to 2^56 bytes.")));
	first = Max((uint64) pos << WIDE_SEQ_SHIFT, last_seq + 1);
	last_seq = first + n - 1;
	return first;
}

/*
 * WideSeqAfterWrite -- called once the WAL record holding records numbered
 * up to "last" has been inserted (end = its end position, or
 * InvalidXLogRecPtr if none was written).  Makes sure the numbers other
 * backends take from now on are larger.
 */
void
WideSeqAfterWrite(Relation rel, uint64 last, XLogRecPtr end)
{
	char		pad[1024];

	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return;
	if (end != InvalidXLogRecPtr && ((uint64) end << WIDE_SEQ_SHIFT) > last)
		return;

	/*
	 * A block of n numbers needs at most n / 256 bytes of padding; a number
	 * far ahead of the WAL is a bug, and padding to it would fill the disk.
	 */
	if ((last >> WIDE_SEQ_SHIFT) > GetXLogInsertRecPtr() + WIDE_SEQ_MAX_PAD)
		elog(ERROR, "sequence number " UINT64_FORMAT " is beyond the WAL insert position %X/%X",
			 last, LSN_FORMAT_ARGS(GetXLogInsertRecPtr()));

	for (;;)
	{
		XLogRecPtr	pos = GetXLogInsertRecPtr();
		Size		need;

		if (((uint64) pos << WIDE_SEQ_SHIFT) > last)
			return;
		need = (last >> WIDE_SEQ_SHIFT) + 1 - pos;
		need = Min(Max(need, 1), sizeof(pad));
		memset(pad, 0, need);
		XLogBeginInsert();
		XLogRegisterData(pad, need);
		(void) XLogInsert(RM_XLOG_ID, XLOG_NOOP);
	}
}
