/*-------------------------------------------------------------------------
 *
 * rules.h
 *	  The delete and GC rules, one implementation for the read path
 *	  (merge.c) and for rewrites (resolve.c): rules.c.
 *
 * IDENTIFICATION
 *	  src/engine/rules.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_RULES_H
#define WIDE_RULES_H

#include "engine/cell.h"
#include "engine/schema.h"

typedef struct WideTombstone
{
	int64		from;			/* a column tombstone's ts range [from, to) */
	int64		to;
	uint64		seq;
} WideTombstone;

/*
 * A range tombstone as the rules apply it (rangedel.c reads them from the
 * metapage): the rows [start, end) of one family, or of all.
 */
typedef struct WideRangeDel
{
	const char *start;			/* inclusive */
	uint32		startlen;
	bool		has_end;		/* false: no end */
	const char *end;			/* exclusive */
	uint32		endlen;
	const char *family;
	uint32		famlen;			/* 0: every family */
	uint64		seq;
	TransactionId xmin;
	CommandId	cmin;
	uint32		gen;
	uint32		ncells;
	bool		pending;		/* rewrites: may yet delete, not now */
} WideRangeDel;

typedef struct WideRangeDels
{
	int			n;
	WideRangeDel *d;
} WideRangeDels;

/* a drop (wide.drop_before) in effect, see format.h WideDropEntry */
typedef struct WideDropRule
{
	uint32		famid;			/* 0: every family */
	int64		before;
	uint64		seq;
} WideDropRule;

typedef struct WideDeletes
{
	uint64		row_del;		/* newest row tombstone in effect */
	uint64		fam_del;		/* newest family tombstone in effect */
	WideTombstone *tombs;		/* column tombstones in effect */
	int			ntombs;
	int			maxtombs;
	const WideRangeDels *ranges;	/* range tombstones in effect, or NULL */
	const WideDropRule *drops;	/* drops in effect for every row */
	int			ndrops;
} WideDeletes;

extern void WideDeletesInit(WideDeletes *d);
extern void WideDeletesEnter(WideDeletes *d, int level);
extern void WideDeletesAdd(WideDeletes *d, const WideCell *tomb);
extern bool WideDeletesEnterRange(WideDeletes *d, int level,
								  const char *key, uint32 keylen,
								  const char *family, uint32 famlen);
extern bool WideRangeDelCoversKey(const WideRangeDel *t, const char *key,
								  uint32 keylen);
extern void WideDeletesSetDrops(WideDeletes *d, const WideDropRule *drops,
								int ndrops);
extern bool WideDropsCover(const WideDropRule *drops, int ndrops,
						   const WideCell *c);
extern bool WideDeletesCover(const WideDeletes *d, const WideCell *c);
extern bool WideGCSamePolicy(const WideFamily *a, const WideFamily *b);
extern bool WideGCCollects(const WideFamily *def, int index, int64 ts,
						   int64 now, bool versions_ok);

#endif							/* WIDE_RULES_H */
