/*-------------------------------------------------------------------------
 *
 * selftest.c
 *	  wide_internal.format_selftest(seed, rounds): the engine's format
 *	  round trips (engine/selftest.c) from SQL.
 *
 * Returns a row per part (data blocks, records, row seeks, damaged blocks,
 * index blocks, index seeks) with the number of cases checked, or raises
 * the ERROR of the first mismatch, naming its seed and round.  Run by the
 * regress test format_selftest with fixed seeds; any seed reproduces its
 * own run.  Not executable by PUBLIC (an internal function).
 *
 * IDENTIFICATION
 *	  src/api/selftest.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "engine/selftest.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_format_selftest);

Datum
wide_format_selftest(PG_FUNCTION_ARGS)
{
	static const char *const parts[WIDE_SELFTEST_NPARTS] = {
		"data blocks", "records", "row seeks", "damaged blocks",
		"index blocks", "index seeks", "metapage images", "block surveys",
		"one-xmin blocks", "row directory seeks"
	};
	int64		seed = PG_GETARG_INT64(0);
	int32		rounds = PG_GETARG_INT32(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		counts[WIDE_SELFTEST_NPARTS];

	if (rounds < 0 || rounds > 1000000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rounds must be between 0 and 1000000")));
	InitMaterializedSRF(fcinfo, 0);
	WideSelfTestFormats((uint64) seed, rounds, counts);
	for (int i = 0; i < WIDE_SELFTEST_NPARTS; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = CStringGetTextDatum(parts[i]);
		values[1] = Int64GetDatum(counts[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
