/*-------------------------------------------------------------------------
 *
 * drops.h
 *	  Drops (wide.drop_before): deletes of every cell older than a time,
 *	  kept in the metapage (drops.c).
 *
 * IDENTIFICATION
 *	  src/engine/drops.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_DROPS_H
#define WIDE_DROPS_H

#include "utils/rel.h"
#include "utils/snapshot.h"

#include "engine/format.h"
#include "engine/rules.h"

extern int	WideDropsForSnapshot(const WideMetaPageData *meta, Snapshot snapshot,
								 WideDropRule *out);
extern int	WideDropsForAll(Relation rel, WideDropRule *out);
extern int	WideDropsForRewrite(Relation rel, WideDropRule *all, int *nall,
								WideDropRule *pending);
extern void WideDropsAdd(Relation rel, uint32 famid, int64 before);
extern void WideDropsMaintain(Relation rel);
extern TransactionId WideDropsOldestXid(Relation rel);
extern void WideDropsCopy(Relation src, Relation dst);

#endif							/* WIDE_DROPS_H */
