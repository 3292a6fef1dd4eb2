/*-------------------------------------------------------------------------
 *
 * tswindow.h
 *	  Time pruning: a window of cell timestamps a read wants, and the rule
 *	  by which runs, index blocks, data blocks and write-area records
 *	  outside it are skipped (tsprune.c).
 *
 * IDENTIFICATION
 *	  src/engine/tswindow.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_TSWINDOW_H
#define WIDE_TSWINDOW_H

#include "engine/cell.h"
#include "engine/schema.h"

/*
 * The timestamps a read wants: [lo, hi], microseconds since 1970, both
 * included.  A reader given a window returns the cells inside it exactly
 * as a read without the window would, and no others.
 */
typedef struct WideTsWindow
{
	int64		lo;
	int64		hi;
} WideTsWindow;

/* the window as a reader applies it to one schema (see tsprune.c) */
typedef struct WideTsPrune
{
	int64		lo;				/* skip what is entirely older */
	int64		hi;				/* skip what is entirely newer */
	WideTsWindow window;		/* the cells wanted */
} WideTsPrune;

extern void WideTsWindowInit(WideTsWindow *w);
extern bool WideTsWindowEmpty(const WideTsWindow *w);
extern void WideTsPruneInit(WideTsPrune *p, const WideTsWindow *w,
							const WideSchema *schema);
extern bool WideTsPruneBlock(const WideTsPrune *p, int64 ts_min, int64 ts_max,
							 uint8 flags);
extern bool WideTsPruneRecord(const WideTsPrune *p, const WideCell *c);
extern bool WideTsPruneWants(const WideTsPrune *p, const WideCell *c);

#endif							/* WIDE_TSWINDOW_H */
