/*-------------------------------------------------------------------------
 *
 * uncover.h
 *	  A delete never brings back a version its family's policy hid
 *	  (uncover.c).
 *
 * IDENTIFICATION
 *	  src/engine/uncover.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_UNCOVER_H
#define WIDE_UNCOVER_H

#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/cell.h"
#include "engine/schema.h"

extern WideCell *WideUncoverExpand(Relation rel, const WideSchema *schema,
								   Snapshot snapshot, WideCell *cells, int *n);
extern uint32 WideUncoverNote(Relation rel, const WideSchema *schema,
							  Snapshot snapshot, const WideCell *del);
extern uint32 WideUncoverFlush(Relation rel);

#endif							/* WIDE_UNCOVER_H */
