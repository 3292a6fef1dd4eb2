/*-------------------------------------------------------------------------
 *
 * split.h
 *	  Cutting a key range of a table into stretches of similar size, at
 *	  block boundaries of its runs (split.c), for parallel scans.
 *
 * IDENTIFICATION
 *	  src/engine/split.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SPLIT_H
#define WIDE_SPLIT_H

#include "utils/relcache.h"
#include "engine/cell.h"

/* a row key */
typedef struct WideSplitKey
{
	char	   *key;
	uint32		len;
} WideSplitKey;

extern int	WideSplitKeys(Relation rel, const WideKeyRange *range, int target,
						  uint64 *nblocks, WideSplitKey **keys);

#endif							/* WIDE_SPLIT_H */
