/*-------------------------------------------------------------------------
 *
 * record.h
 *	  Records: their encoding (record.c) and their visibility to snapshots
 *	  (visibility.c).
 *
 * IDENTIFICATION
 *	  src/engine/record.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_RECORD_H
#define WIDE_RECORD_H

#include "storage/buf.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/cell.h"

/* record.c: the record encoding */
extern Size WideRecordSize(const WideCell *cell);
extern void WideRecordEncode(const WideCell *cell, char *dst);
extern bool WideRecordDecode(const char *src, Size len, WideCell *cell);
extern char *WideRecordEncodeBody(const WideCell *cell, uint32 *len);
extern void WideRecordDecodeBody(WideCell *cell, const char *body);
extern const char *WideRecordItem(Page page, OffsetNumber off, Size *len,
								  bool *bad);
extern uint8 WideRecordGetFlags(const char *rec);

/* a field of an encoded record (WideRecordLayout) */
#define WIDE_RECORD_FIELDS	14
typedef struct WideRecordField
{
	const char *name;
	uint32		off;			/* in the record */
	uint32		size;
} WideRecordField;
extern int	WideRecordLayout(const char *rec, Size len, WideRecordField *fields);
extern void WideRecordSetHint(char *rec, uint8 flag);

/* visibility.c: MVCC of records */
extern bool WideRecordVisible(const WideCell *cell, Snapshot snapshot,
							  uint8 *hint);
extern void WideSerializableRead(Relation rel, Snapshot snapshot);
extern void WideSerializableUnseen(Relation rel, const WideCell *cell,
								   Snapshot snapshot, uint8 hint);
extern void WideSerializableWrite(Relation rel);
extern bool WideRecordCommitted(const WideCell *cell);
extern bool WideRecordVisibleToAll(Relation rel, const WideCell *cell);
extern void WideSetHint(Buffer buf, char *rec, TransactionId xmin, uint8 hint);

#endif							/* WIDE_RECORD_H */
