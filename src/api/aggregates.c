/*-------------------------------------------------------------------------
 *
 * aggregates.c
 *	  Writes to aggregate families, and HyperLogLog sketches in SQL.
 *
 *	  wide.add_to_cell(tbl, row_key, family, qualifier, ts, input)
 *	      AddToCell: fold one input into the cell (row, family, qualifier,
 *	      ts).  sum/min/max take an integer (int2/4/8, a bytea of 8
 *	      big-endian bytes, or text that reads as an int8); hll takes any
 *	      value, hashed as aggregate.c says.
 *	  wide.merge_to_cell(tbl, row_key, family, qualifier, ts, accumulator)
 *	      MergeToCell: fold an accumulator, as read back from a cell (an
 *	      int8 or 8-byte bytea; for hll a sketch).
 *	  wide.hll_count(sketch bytea) -> bigint          the estimate
 *	  wide.hll_union(a bytea, b bytea) -> bytea        merge of two sketches
 *	  wide.hll_add_agg(anyelement) -> bytea            sketch of a column
 *	  wide.hll_union_agg(bytea) -> bytea               merge of a column
 *
 * Both mutations are ordinary records of the caller's transaction, appended
 * to the write area without reading or locking the cell: concurrent adders
 * never wait for each other, an aborted input is never seen, and readers,
 * flushes and compactions fold what they can see.  The timestamp is the
 * cell's bucket and is required.
 *
 * IDENTIFICATION
 *	  src/api/aggregates.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "am/am.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_add_to_cell);
PG_FUNCTION_INFO_V1(wide_merge_to_cell);
PG_FUNCTION_INFO_V1(wide_hll_count);
PG_FUNCTION_INFO_V1(wide_hll_union);
PG_FUNCTION_INFO_V1(wide_hll_add_trans);
PG_FUNCTION_INFO_V1(wide_hll_union_trans);
PG_FUNCTION_INFO_V1(wide_hll_final);
PG_FUNCTION_INFO_V1(wide_hll_combine);
PG_FUNCTION_INFO_V1(wide_hll_serialize);
PG_FUNCTION_INFO_V1(wide_hll_deserialize);
PG_FUNCTION_INFO_V1(wide_quantile);
PG_FUNCTION_INFO_V1(wide_quantiles);
PG_FUNCTION_INFO_V1(wide_ddsketch_count);
PG_FUNCTION_INFO_V1(wide_ddsketch_union);
PG_FUNCTION_INFO_V1(wide_ddsketch_add_trans);
PG_FUNCTION_INFO_V1(wide_ddsketch_union_trans);
PG_FUNCTION_INFO_V1(wide_ddsketch_final);
PG_FUNCTION_INFO_V1(wide_ddsketch_combine);
PG_FUNCTION_INFO_V1(wide_ddsketch_deserialize);

/* a sketch argument, checked */
static bytea *
sketch_arg(FunctionCallInfo fcinfo, int argno)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(argno);
	const char *problem = WideHllCheck(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));

	if (problem)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid HyperLogLog sketch"),
				 errdetail_internal("%s", problem),
				 errhint("Sketches come from cells of an hll family, wide.hll_add_agg() or wide.hll_union().")));
	return b;
}

/* fail on a malformed DDSketch argument */
static void
dds_invalid(const char *problem)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid DDSketch"),
			 errdetail_internal("%s", problem),
			 errhint("Sketches come from cells of a ddsketch family, wide.ddsketch_agg() or wide.ddsketch_union().")));
}

/* a DDSketch argument, checked */
static bytea *
dds_arg(FunctionCallInfo fcinfo, int argno)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(argno);
	const char *problem = WideDDSCheck(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));

	if (problem)
		dds_invalid(problem);
	return b;
}

/* an accumulator as a bytea */
static bytea *
acc_bytea(WideAcc *a)
{
	uint32		len = WideAccSize(a);
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	WideAccWrite(a, VARDATA(b));
	return b;
}

/*
 * the transition state of an aggregate of sketches of kind agg (what names
 * it): the state argument if use_arg0 and it is not NULL, else a new one
 * in the aggregate's context
 */
static WideAcc *
acc_state(FunctionCallInfo fcinfo, WideAggregate agg, const char *what,
		  bool use_arg0)
{
	MemoryContext aggcxt;
	WideAcc    *a;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s aggregate called in a non-aggregate context", what);
	if (use_arg0 && !PG_ARGISNULL(0))
		return (WideAcc *) PG_GETARG_POINTER(0);
	a = MemoryContextAlloc(aggcxt, sizeof(WideAcc));
	WideAccInit(a, aggcxt);
	WideAccStart(a, agg);
	return a;
}

/* merge a (checked) sketch into an accumulator */
static void
fold_sketch(WideAcc *a, bytea *b)
{
	WideAccFold(a, WIDE_KIND_MERGE, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
}

/* a final function: the state's sketch */
static Datum
final_sketch(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(acc_bytea((WideAcc *) PG_GETARG_POINTER(0)));
}

/*
 * a combine function: the second state folded into the first (a new one
 * if it is NULL) as a sketch, register by register or bin by bin
 */
static Datum
combine_states(FunctionCallInfo fcinfo, WideAggregate agg, const char *what)
{
	WideAcc    *a;
	bytea	   *sketch;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(PG_GETARG_POINTER(0));
	}
	a = acc_state(fcinfo, agg, what, true);
	sketch = acc_bytea((WideAcc *) PG_GETARG_POINTER(1));
	fold_sketch(a, sketch);
	pfree(sketch);
	PG_RETURN_POINTER(a);
}

/*
 * aggregate_write -- add_to_cell and merge_to_cell: one ADD or MERGE record.
 */
static void
aggregate_write(FunctionCallInfo fcinfo, WideKind kind)
{
	const char *fname = kind == WIDE_KIND_ADD ? "add_to_cell" : "merge_to_cell";
	Relation	rel;
	const WideSchema *schema;
	const WideFamily *fam;
	WideAggregate agg;
	Datum		values[5];
	bool		isnull[5] = {0};
	WideCell	cell;
	Oid			intype = get_fn_expr_argtype(fcinfo->flinfo, 5);
	Datum		input = PG_GETARG_DATUM(5);

	rel = WideOpenTableKey(fcinfo, WideTableArg(fcinfo, 0), ACL_INSERT, RowExclusiveLock, 1);
	if (rel == NULL)
		return;					/* ran on a remote tablet's node */
	schema = WideGetSchema(rel);

	/* the coordinates, checked as an INSERT's */
	fam = WideArgCoordinates(fcinfo, rel, schema, 4, values, isnull);
	if (fam->aggregate == WIDE_AGG_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("column family \"%s\" is not an aggregate family", fam->name),
				 errdetail("%s() writes to families created with an aggregate (sum, min, max, hll or ddsketch).",
						   fname),
				 errhint("Use wide.set_cell() for a plain family.")));
	(void) WideCellCoordinates(rel, schema, values, isnull, &cell);
	agg = WideRollupCellCheck(rel, fam, cell.qual, cell.quallen);

	if (PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of %s() cannot be NULL",
						kind == WIDE_KIND_ADD ? "input" : "accumulator", fname)));

	cell.kind = kind;
	if ((agg == WIDE_AGG_HLL || agg == WIDE_AGG_DDS) && kind == WIDE_KIND_MERGE)
	{
		bytea	   *b;

		if (intype != BYTEAOID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("accumulator of %s family \"%s\" must be a bytea sketch, not %s",
							agg == WIDE_AGG_HLL ? "hll" : "ddsketch",
							fam->name, format_type_be(intype))));
		b = agg == WIDE_AGG_HLL ? sketch_arg(fcinfo, 5) : dds_arg(fcinfo, 5);
		cell.value = VARDATA_ANY(b);
		cell.vallen = VARSIZE_ANY_EXHDR(b);
	}
	else
		cell.value = WideAggInput(rel, fam, agg, kind, intype, input, &cell.vallen);
	WideWriteRecords(rel, &cell, 1);
	relation_close(rel, NoLock);
}

/*
 * wide.add_to_cell(tbl, row_key, family, qualifier, ts, input)
 */
Datum
wide_add_to_cell(PG_FUNCTION_ARGS)
{
	aggregate_write(fcinfo, WIDE_KIND_ADD);
	PG_RETURN_VOID();
}

/*
 * wide.merge_to_cell(tbl, row_key, family, qualifier, ts, accumulator)
 */
Datum
wide_merge_to_cell(PG_FUNCTION_ARGS)
{
	aggregate_write(fcinfo, WIDE_KIND_MERGE);
	PG_RETURN_VOID();
}

/*
 * wide.hll_count(sketch) -- the estimated number of distinct inputs.
 */
Datum
wide_hll_count(PG_FUNCTION_ARGS)
{
	bytea	   *b = sketch_arg(fcinfo, 0);

	PG_RETURN_INT64((int64) llround(WideHllEstimate(VARDATA_ANY(b),
													VARSIZE_ANY_EXHDR(b))));
}

/*
 * wide.hll_union(a, b) -- the sketch of the union of two sketches' inputs.
 */
Datum
wide_hll_union(PG_FUNCTION_ARGS)
{
	bytea	   *a = sketch_arg(fcinfo, 0);
	bytea	   *b = sketch_arg(fcinfo, 1);
	WideAcc		acc;

	WideAccInit(&acc, CurrentMemoryContext);
	WideAccStart(&acc, WIDE_AGG_HLL);
	WideAccFold(&acc, WIDE_KIND_MERGE, VARDATA_ANY(a), VARSIZE_ANY_EXHDR(a));
	WideAccFold(&acc, WIDE_KIND_MERGE, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
	PG_RETURN_BYTEA_P(acc_bytea(&acc));
}

/* the state of hll_add_agg and hll_union_agg, in the aggregate's context */
static WideAcc *
agg_state(FunctionCallInfo fcinfo, bool use_arg0)
{
	return acc_state(fcinfo, WIDE_AGG_HLL, "HyperLogLog", use_arg0);
}

/*
 * wide_internal._hll_add_trans(state, value) -- hll_add_agg: add a value's hash.
 */
Datum
wide_hll_add_trans(PG_FUNCTION_ARGS)
{
	WideAcc    *a = agg_state(fcinfo, true);

	if (!PG_ARGISNULL(1))
	{
		uint64		h = WideHllInputHash(get_fn_expr_argtype(fcinfo->flinfo, 1),
										 PG_GETARG_DATUM(1));

		WideAccFold(a, WIDE_KIND_ADD, (const char *) &h, sizeof(h));
	}
	PG_RETURN_POINTER(a);
}

/*
 * wide_internal._hll_union_trans(state, sketch) -- hll_union_agg: merge a sketch.
 */
Datum
wide_hll_union_trans(PG_FUNCTION_ARGS)
{
	WideAcc    *a = agg_state(fcinfo, true);

	if (!PG_ARGISNULL(1))
		fold_sketch(a, sketch_arg(fcinfo, 1));
	PG_RETURN_POINTER(a);
}

/*
 * wide_internal._hll_final(state) -- the sketch.
 */
Datum
wide_hll_final(PG_FUNCTION_ARGS)
{
	return final_sketch(fcinfo);
}

/*
 * Parallel aggregation: workers' states travel as sketches and combine
 * register-wise (the same fold as hll_union).
 */

/*
 * wide_internal._hll_combine(state, state) -- fold the second state into the first.
 */
Datum
wide_hll_combine(PG_FUNCTION_ARGS)
{
	return combine_states(fcinfo, WIDE_AGG_HLL, "HyperLogLog");
}

/*
 * wide_internal._hll_serialize(state) -- the state as its sketch.
 */
Datum
wide_hll_serialize(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(acc_bytea((WideAcc *) PG_GETARG_POINTER(0)));
}

/*
 * wide_internal._hll_deserialize(sketch, internal) -- a state from its sketch.
 */
Datum
wide_hll_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b = sketch_arg(fcinfo, 0);
	WideAcc    *a = agg_state(fcinfo, false);

	fold_sketch(a, b);
	PG_RETURN_POINTER(a);
}

/* ----------------------------------------------------------------
 *	Quantile sketches (DDSketch, engine/ddsketch.c)
 * ----------------------------------------------------------------
 */

/* an accumulator of a sketch argument, in the current context */
static WideAcc *
dds_of(FunctionCallInfo fcinfo, int argno)
{
	bytea	   *b = dds_arg(fcinfo, argno);
	WideAcc    *a = palloc(sizeof(WideAcc));

	WideAccInit(a, CurrentMemoryContext);
	WideAccStart(a, WIDE_AGG_DDS);
	fold_sketch(a, b);
	return a;
}

/* a quantile's q, checked */
static double
quantile_q(double q)
{
	if (isnan(q) || q < 0.0 || q > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("quantile must be between 0 and 1, not %g", q),
				 errhint("0.5 is the median, 0.99 the 99th percentile.")));
	return q;
}

/*
 * wide.quantile(sketch, q) -- within 1% of the input percentile_disc(q)
 * would return; NULL for an empty sketch.
 */
Datum
wide_quantile(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	double		q = quantile_q(PG_GETARG_FLOAT8(1));
	double		v;
	uint64		n;
	const char *problem;

	/* from the bytes, checked as they are read: a rollup read calls this once a cell */
	problem = WideDDSCheckedQuantiles(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), 1, &q, &v, &n);
	if (problem)
		dds_invalid(problem);
	if (n == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(v);
}

/*
 * wide.quantiles(sketch, qs float8[]) -- wide.quantile of each q.
 */
Datum
wide_quantiles(PG_FUNCTION_ARGS)
{
	bytea	   *b = dds_arg(fcinfo, 0);
	ArrayType  *qs = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;

	deconstruct_array(qs, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	if (WideDDSQuantiles(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), 0, NULL, NULL) == 0)
		PG_RETURN_NULL();
	for (i = 0; i < n; i++)
	{
		double		q,
					v;

		if (nulls[i])
			continue;
		q = quantile_q(DatumGetFloat8(elems[i]));
		(void) WideDDSQuantiles(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), 1, &q, &v);
		elems[i] = Float8GetDatum(v);
	}
	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(FLOAT8OID));
	{
		int			dims[1] = {n};
		int			lbs[1] = {1};

		PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, nulls, 1, dims, lbs, FLOAT8OID,
												 sizeof(float8), FLOAT8PASSBYVAL,
												 TYPALIGN_DOUBLE));
	}
}

/*
 * wide.ddsketch_count(sketch) -- the number of inputs.
 */
Datum
wide_ddsketch_count(PG_FUNCTION_ARGS)
{
	bytea	   *b = dds_arg(fcinfo, 0);

	PG_RETURN_INT64((int64) WideDDSQuantiles(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), 0, NULL, NULL));
}

/*
 * wide.ddsketch_union(a, b) -- the sketch of both sketches' inputs.
 */
Datum
wide_ddsketch_union(PG_FUNCTION_ARGS)
{
	WideAcc    *a = dds_of(fcinfo, 0);
	bytea	   *b = dds_arg(fcinfo, 1);

	fold_sketch(a, b);
	PG_RETURN_BYTEA_P(acc_bytea(a));
}

/* the transition state: a sketch in the aggregate's context */
static WideAcc *
dds_state(FunctionCallInfo fcinfo, bool use_arg0)
{
	return acc_state(fcinfo, WIDE_AGG_DDS, "DDSketch", use_arg0);
}

/*
 * wide_internal._ddsketch_add_trans(state, value) -- ddsketch_agg: add a
 * finite value (NaN and infinities are refused, as a family refuses them).
 */
Datum
wide_ddsketch_add_trans(PG_FUNCTION_ARGS)
{
	WideAcc    *a = dds_state(fcinfo, true);

	if (!PG_ARGISNULL(1))
	{
		double		v = PG_GETARG_FLOAT8(1);

		if (isnan(v) || isinf(v))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("input to wide.ddsketch_agg must be finite, not %g", v)));
		WideAccFold(a, WIDE_KIND_ADD, (const char *) &v, sizeof(v));
	}
	PG_RETURN_POINTER(a);
}

/*
 * wide_internal._ddsketch_union_trans(state, sketch) -- ddsketch_union_agg.
 */
Datum
wide_ddsketch_union_trans(PG_FUNCTION_ARGS)
{
	WideAcc    *a = dds_state(fcinfo, true);

	if (!PG_ARGISNULL(1))
		fold_sketch(a, dds_arg(fcinfo, 1));
	PG_RETURN_POINTER(a);
}

/*
 * wide_internal._ddsketch_final(state) -- the sketch (and the serial form
 * of a state, for parallel aggregation).
 */
Datum
wide_ddsketch_final(PG_FUNCTION_ARGS)
{
	return final_sketch(fcinfo);
}

/*
 * wide_internal._ddsketch_combine(state, state) -- add the second state's
 * counts to the first (bin by bin: the same as a serial plan's sketch).
 */
Datum
wide_ddsketch_combine(PG_FUNCTION_ARGS)
{
	return combine_states(fcinfo, WIDE_AGG_DDS, "DDSketch");
}

/*
 * wide_internal._ddsketch_deserialize(sketch, internal) -- a state.
 */
Datum
wide_ddsketch_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b = dds_arg(fcinfo, 0);
	WideAcc    *a = dds_state(fcinfo, false);

	fold_sketch(a, b);
	PG_RETURN_POINTER(a);
}
