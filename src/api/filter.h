/*-------------------------------------------------------------------------
 *
 * filter.h
 *	  Row filters (filter.c) and the rows they apply to (read.c).
 *
 * IDENTIFICATION
 *	  src/api/filter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_API_FILTER_H
#define WIDE_API_FILTER_H

#include "fmgr.h"
#include "api/re2_shim.h"
#include "utils/jsonb.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "engine/schema.h"
#include "engine/tswindow.h"


typedef enum WideFilterKind
{
	WF_CHAIN,
	WF_INTERLEAVE,
	WF_CONDITION,
	WF_PASS,
	WF_BLOCK,
	WF_ROW_KEY_RE,
	WF_ROW_SAMPLE,
	WF_FAMILY_RE,
	WF_QUAL_RE,
	WF_COL_RANGE,
	WF_TS_RANGE,
	WF_VALUE_RE,
	WF_VALUE_RANGE,
	WF_ROW_OFFSET,
	WF_ROW_LIMIT,
	WF_COL_LIMIT,
	WF_STRIP,
	WF_LABEL
} WideFilterKind;

typedef struct WideFilter
{
	WideFilterKind kind;
	int			nchildren;
	struct WideFilter **children;	/* condition: predicate, true, false */
	WideRe2    *re;				/* regex filters (RE2) */
	const char *lit;			/* re is this literal string, or NULL */
	int			litlen;
	int64		n;				/* offset or limit */
	double		p;				/* row sample probability */
	int64		ts_from;		/* included */
	int64		ts_to;			/* excluded; WIDE_TS_NO_END: no end */
	char	   *family;			/* column range */
	int			familylen;
	bool		has_lo,
				lo_incl,
				has_hi,
				hi_incl;
	char	   *lo;				/* qualifier bounds */
	int			lolen;
	char	   *hi;
	int			hilen;
	Datum		vlo;			/* value bounds */
	Datum		vhi;
	FmgrInfo   *cmp;
	char	   *label;
} WideFilter;

/* what filters need to know of the table and the current row */
typedef struct WideFilterContext
{
	Oid			valtype;
	Oid			valout;			/* output function of the value type */
	const char *row;			/* the current row key */
	int			rowlen;
} WideFilterContext;

/* a cell of the current row */
typedef struct WideRowCell
{
	const char *family;
	int			familylen;
	const char *qual;
	int			quallen;
	int64		ts;
	Datum		value;
	bool		isnull;
	Datum		values[5];		/* the cell as a table row */
	bool		nulls[5];
} WideRowCell;

/* a label of an output entry; entries share their older labels */
typedef struct WideLabel
{
	const char *label;
	const struct WideLabel *prev;	/* the label applied before, or NULL */
} WideLabel;

/* an output of a filter: which cell, with what labels */
typedef struct WideRowOut
{
	int			cell;			/* index into the row's cells */
	int			order;			/* interleave: place before merging */
	bool		strip;			/* strip_value_transformer */
	int			nlabels;
	const WideLabel *labels;	/* the last label applied first */
} WideRowOut;

/*
 * most output entries of a filter for one row, unless the row has more
 * cells (interleave multiplies its input)
 */
#define WIDE_FILTER_MAX_OUT		((int64) 1 << 22)

/* read.c: the cells of one row */
extern int	WideReadRow(Relation rel, const WideSchema *schema, Snapshot snapshot,
						const char *key, uint32 keylen, WideRowCell **cells);

/* filter.c */
extern WideFilter *WideFilterParse(const WideFilterContext *fc, Jsonb *json);
extern bool WideFilterTsWindow(const WideFilter *f, WideTsWindow *w);
extern int	WideFilterColumnLimit(const WideFilter *f);
extern WideRowOut *WideFilterApply(const WideFilterContext *fc, const WideFilter *f,
								   const struct WideRowCell *cells, int n, int *nout);

#endif							/* WIDE_API_FILTER_H */
