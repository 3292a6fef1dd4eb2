/*-------------------------------------------------------------------------
 *
 * readiter.h
 *	  One implementation of ReadRows (read.c) as a row iterator: open,
 *	  next cell, close.  The set-returning functions wide.read_rows and
 *	  wide.read_row drain it into their result; the Read Rows custom scan
 *	  (read_scan.c) streams it into its slot.
 *
 * IDENTIFICATION
 *	  src/api/readiter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_API_READITER_H
#define WIDE_API_READITER_H

#include "utils/jsonb.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/cell.h"
#include "engine/reader.h"
#include "engine/schema.h"
#include "am/scan_read.h"
#include "api/filter.h"

/* what to read: the arguments of a call, checked */
typedef struct WideReadSpec
{
	WideKeyRange *ranges;		/* sorted by start */
	int			nranges;
	bool		whole;			/* no row set given: the whole table */
	bool		reversed;
	int64		limit;			/* rows; -1: no limit */
	Jsonb	   *filter;			/* or NULL */
} WideReadSpec;

typedef struct WideReadIter WideReadIter;

/* read.c */
extern Oid	WideReadTable(Oid rowtype);
extern void WideReadSpecFromArgs(bool read_row, const Datum *args, const bool *nulls,
								 const Oid *types, WideReadSpec *spec);
extern WideReadIter *WideReadBegin(Relation rel, const WideSchema *schema,
								   Snapshot snapshot, const WideReadSpec *spec,
								   const bool *needed);
extern bool WideReadNext(WideReadIter *it, Datum *values, bool *nulls,
						 const WideRowOut **out);
extern WideReaderStats WideReadGetStats(const WideReadIter *it);
extern bool WideReadTsWindow(const WideReadIter *it);
extern void WideReadEnd(WideReadIter *it);
extern int64 WideReadRowCount(const WideReadIter *it);

/* read_scan.c */
extern void WideInstallReadScan(void);

#endif							/* WIDE_API_READITER_H */
