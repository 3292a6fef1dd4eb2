/*-------------------------------------------------------------------------
 *
 * conditional.c
 *	  Mutations that read the row first, race-free: CheckAndMutateRow and
 *	  ReadModifyWriteRow.
 *
 *	  wide.check_and_mutate_row(tbl, row_key, predicate jsonb, on_match jsonb,
 *	                            on_no_match jsonb) -> boolean
 *	  wide.read_modify_write_row(tbl anyelement, row_key, family, qualifier,
 *	                             append bytea, increment bigint) -> anyelement
 *
 * Both take the row lock: a transaction-scoped heavyweight lock on (table,
 * hash of the row key), held until commit, so two of them on the same row
 * run one after the other.  After getting the lock they read the row with a
 * fresh snapshot (READ COMMITTED), which sees whatever the previous holder
 * committed; under REPEATABLE READ or SERIALIZABLE, a row changed by a
 * transaction the snapshot does not see is a serialization failure, as an
 * UPDATE of a concurrently updated heap row is.
 *
 * Plain writes (INSERT, set_cell, add_to_cell, ...) take no row lock: a
 * lock per written row held to commit would cost ingest its speed and a
 * COPY its lock table.  Instead the conditional side does the work: before
 * reading it waits for every running transaction that has written to the
 * row (WideRowWriters), and after writing it checks for writers that
 * slipped in between: one that wrote to the row before our writes but is
 * not seen by our read is waited for, and if it commits we fail with a
 * serialization error.  So the outcome is always that of some serial
 * order, or an error to retry.
 *
 * CheckAndMutateRow: the predicate is a row filter (filter.c); it matches
 * when it outputs at least one cell (no predicate: when the row has any
 * cell).  Then on_match, else on_no_match, is applied as mutate_row would
 * (mutate_row.c).  Returns whether the predicate matched.
 *
 * ReadModifyWriteRow: the newest cell of the column is read (none: empty,
 * or 0), "append" concatenates bytes to it, "increment" adds to its value
 * as a 64-bit big-endian integer (int8 value columns: the int8) -- any
 * other value is an error, as in Bigtable.  The new cell is written at
 * max(now, the old cell's ts) and returned.
 *
 * IDENTIFICATION
 *	  src/api/conditional.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "storage/procarray.h"
#include "access/transam.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "engine/segment.h"
#include "engine/reader.h"
#include "am/am.h"
#include "api/api.h"
#include "api/filter.h"

PG_FUNCTION_INFO_V1(wide_check_and_mutate_row);
PG_FUNCTION_INFO_V1(wide_read_modify_write_row);

/* the lock tag's last field; user advisory locks use 1 and 2 */
#define WIDE_ROW_LOCK_KIND	0x5744

/*
 * lock_row -- take the row lock until the end of the transaction.
 */
static void
lock_row(Relation rel, const char *key, uint32 keylen)
{
	LOCKTAG		tag;
	uint64		h = WideRowHash(key, keylen);

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, RelationGetRelid(rel),
						 (uint32) (h ^ (h >> 32)), WIDE_ROW_LOCK_KIND);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}

/* two reads of a row: the same cells? */
static bool
same_row(const WideRowCell *a, int na, const WideRowCell *b, int nb, TupleDesc desc)
{
	int			i,
				j;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		for (j = 0; j < 5; j++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, j);

			if (a[i].nulls[j] != b[i].nulls[j])
				return false;
			if (!a[i].nulls[j] &&
				!datumIsEqual(a[i].values[j], b[i].values[j], att->attbyval, att->attlen))
				return false;
		}
	return true;
}

/*
 * wait_writers -- wait until no transaction that wrote to the row (a
 * record numbered up to upto) is still running (a plain write takes no
 * row lock: see the top).  With a snapshot snap, fail with a
 * serialization error if one of them committed unseen by it.
 */
static void
wait_writers(Relation rel, const char *key, uint32 keylen, uint64 upto,
			 Snapshot snap)
{
	for (;;)
	{
		TransactionId *xids;
		uint64	   *seqs;
		int			n = WideRowWriters(rel, key, keylen, &xids, &seqs);
		bool		waited = false;
		int			i;

		for (i = 0; i < n; i++)
		{
			if (seqs[i] > upto)
				continue;		/* wrote after us: it comes after us */
			if (TransactionIdIsInProgress(xids[i]))
			{
				XactLockTableWait(xids[i], rel, NULL, XLTW_None);
				waited = true;
				continue;
			}
			if (snap != NULL && TransactionIdDidCommit(xids[i]) &&
				XidInMVCCSnapshot(xids[i], snap))
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("could not serialize access due to concurrent write to row \"%.*s\"",
								(int) Min(keylen, 64), key),
						 errdetail("Another transaction wrote to the row while this one read and changed it."),
						 errhint("Retry the transaction.")));
		}
		if (!waited)
			return;
	}
}

/*
 * read_locked_row -- take the row lock, wait for the row's running
 * writers, and read the row with the snapshot *snap; under a transaction
 * snapshot, fail if a transaction it does not see has changed the row.
 */
static int
read_locked_row(Relation rel, const WideSchema *schema, const char *key,
				uint32 keylen, WideRowCell **cells, Snapshot *snap)
{
	int			n;

	lock_row(rel, key, keylen);
	wait_writers(rel, key, keylen, PG_UINT64_MAX, NULL);
	*snap = IsolationUsesXactSnapshot() ? GetTransactionSnapshot() : GetLatestSnapshot();
	n = WideReadRow(rel, schema, *snap, key, keylen, cells);

	if (IsolationUsesXactSnapshot())
	{
		WideRowCell *latest;
		int			m = WideReadRow(rel, schema, GetLatestSnapshot(), key, keylen, &latest);

		if (!same_row(*cells, n, latest, m, RelationGetDescr(rel)))
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to concurrent update of row \"%.*s\"",
							(int) Min(keylen, 64), key),
					 errhint("Retry the transaction.")));
	}
	return n;
}

/*
 * check_no_race -- after our writes (the last numbered "myseq"): a plain
 * writer that wrote to the row before them but unseen by our read (it
 * started writing after we waited) would make the outcome depend on a
 * read that missed it.  Wait for such writers; if one commits, fail with a
 * serialization error, as a heap UPDATE does on a concurrent update.
 */
static void
check_no_race(Relation rel, const char *key, uint32 keylen, Snapshot snap,
			  uint64 myseq)
{
	wait_writers(rel, key, keylen, myseq, snap);
}

/* the mutations of a JSON array, checked; NULL json: none */
static int
build_mutations(Relation rel, const WideSchema *schema, const char *key, uint32 keylen,
				Jsonb *json, const char *what, WideCell **cells)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			n = 0,
				cap = 8;

	*cells = palloc(sizeof(WideCell) * cap);
	if (json == NULL)
		return 0;
	if (!JB_ROOT_IS_ARRAY(json) || JB_ROOT_IS_SCALAR(json))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON array of mutations", what),
				 errhint("As in mutate_row: [{\"set_cell\": {...}}, {\"delete_from_row\": {}}].")));
	it = JsonbIteratorInit(&json->root);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (n == cap)
			*cells = repalloc(*cells, sizeof(WideCell) * (cap *= 2));
		WideMutationCell(rel, schema, key, keylen, &e, psprintf("%s[%d]", what, n),
						 &(*cells)[n]);
		n++;
	}
	return n;
}

/*
 * wide.check_and_mutate_row(tbl, row_key, predicate, on_match, on_no_match)
 */
Datum
wide_check_and_mutate_row(PG_FUNCTION_ARGS)
{
	Relation	rel;
	const WideSchema *schema;
	const char *key;
	uint32		keylen;
	WideFilterContext fc;
	WideFilter *predicate = NULL;
	WideCell   *match_cells,
			   *nomatch_cells;
	int			nmatch,
				nnomatch;
	WideRowCell *cells;
	int			ncells;
	bool		matched;
	bool		isvarlena;
	Snapshot	snap;
	Oid			relid;
	AclMode		need;
	Jsonb	   *on_match;
	Jsonb	   *on_no_match;

	relid = WideTableArg(fcinfo, 0);

	/*
	 * The row is read (SELECT), and either branch may be applied: its
	 * mutations need INSERT or DELETE whichever branch the row takes, or a
	 * privilege error would tell whether the predicate matched.
	 */
	need = ACL_SELECT;
	on_match = PG_ARGISNULL(3) ? NULL :
		WideBigtableJson(PG_GETARG_JSONB_P(3), get_atttype(relid, 5));
	on_no_match = PG_ARGISNULL(4) ? NULL :
		WideBigtableJson(PG_GETARG_JSONB_P(4), get_atttype(relid, 5));
	if (on_match)
		need |= WideMutationsPrivileges(&on_match->root);
	if (on_no_match)
		need |= WideMutationsPrivileges(&on_no_match->root);
	rel = WideOpenTableKey(fcinfo, relid, need, RowExclusiveLock, 1);
	if (rel == NULL)
		return WideRemoteResult;
	schema = WideGetSchema(rel);
	WideArgBytes(fcinfo, 1, "row_key", &key, &keylen);
	WideCheckText(schema->keytype, key, keylen, "row_key");
	if (keylen == 0 || keylen > WIDE_MAX_ROW_KEY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row key must be 1 to %d bytes long", WIDE_MAX_ROW_KEY)));

	/* everything is checked before the row is locked or read */
	memset(&fc, 0, sizeof(fc));
	fc.valtype = schema->valtype;
	getTypeOutputInfo(fc.valtype, &fc.valout, &isvarlena);
	if (!PG_ARGISNULL(2))
		predicate = WideFilterParse(&fc, PG_GETARG_JSONB_P(2));
	nmatch = build_mutations(rel, schema, key, keylen, on_match,
							 "on_match", &match_cells);
	nnomatch = build_mutations(rel, schema, key, keylen, on_no_match,
							   "on_no_match", &nomatch_cells);
	WideCheckPrivileges(relid, WideCellsPrivileges(match_cells, nmatch) |
						WideCellsPrivileges(nomatch_cells, nnomatch));

	ncells = read_locked_row(rel, schema, key, keylen, &cells, &snap);
	fc.row = key;
	fc.rowlen = keylen;
	if (predicate == NULL)
		matched = ncells > 0;
	else
	{
		int			nout;

		(void) WideFilterApply(&fc, predicate, cells, ncells, &nout);
		matched = nout > 0;
	}

	/*
	 * Mutations whose ts is "now" were given the time they were built; the
	 * lock may have been waited for, which only makes them older than the
	 * commit, as any write's time is.
	 */
	if (matched && nmatch > 0)
	{
		WideWriteRecords(rel, match_cells, nmatch);
		check_no_race(rel, key, keylen, snap, match_cells[nmatch - 1].seq);
	}
	else if (!matched && nnomatch > 0)
	{
		WideWriteRecords(rel, nomatch_cells, nnomatch);
		check_no_race(rel, key, keylen, snap, nomatch_cells[nnomatch - 1].seq);
	}
	relation_close(rel, NoLock);
	PG_RETURN_BOOL(matched);
}

/*
 * wide.read_modify_write_row(tbl, row_key, family, qualifier, append,
 *                            increment)
 */
Datum
wide_read_modify_write_row(PG_FUNCTION_ARGS)
{
	Oid			rowtype = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Oid			relid = get_typ_typrelid(rowtype);
	Relation	rel;
	const WideSchema *schema;
	const WideFamily *fam;
	text	   *keyt,
			   *famt,
			   *qualt;
	bool		append = !PG_ARGISNULL(4);
	bool		increment = !PG_ARGISNULL(5);
	WideRowCell *cells;
	int			ncells,
				i;
	const WideRowCell *old = NULL;
	Datum		values[5];
	bool		isnull[5] = {0};
	WideCell	cell;
	int64		now = WideNowUnix();
	int64		ts;
	HeapTuple	tup;
	Snapshot	snap;

	if (!OidIsValid(relid) ||
		(!WideRelationIsWide(relid) && !WideTabletParent(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the first argument of read_modify_write_row must be a row of a wide table, not %s",
						format_type_be(rowtype)),
				 errhint("Name the table by its row type: wide.read_modify_write_row(NULL::tablename, ...).")));
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("row key, family and qualifier cannot be NULL")));
	if (append == increment)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("read_modify_write_row needs exactly one of append and increment")));

	rel = WideOpenTableKey(fcinfo, relid, ACL_SELECT | ACL_INSERT, RowExclusiveLock, 1);
	if (rel == NULL)
		return WideRemoteResult;
	schema = WideGetSchema(rel);
	{
		/* the key as bytes, whatever its type (text, bytea, a literal) */
		const char *k;
		uint32		klen;

		WideArgBytes(fcinfo, 1, "row_key", &k, &klen);
		WideCheckText(schema->keytype, k, klen, "row_key");
		keyt = (text *) palloc(VARHDRSZ + klen);
		SET_VARSIZE(keyt, VARHDRSZ + klen);
		memcpy(VARDATA(keyt), k, klen);
	}
	famt = PG_GETARG_TEXT_PP(2);
	{
		/* the qualifier as bytes: text or bytea (any bytes, in a bytea column) */
		const char *q;
		uint32		qlen;

		WideArgBytes(fcinfo, 3, "qualifier", &q, &qlen);
		WideCheckText(schema->qualtype, q, qlen, "qualifier");
		qualt = (text *) palloc(VARHDRSZ + qlen);
		SET_VARSIZE(qualt, VARHDRSZ + qlen);
		memcpy(VARDATA(qualt), q, qlen);
	}
	fam = WideFamilyForWrite(rel, schema, VARDATA_ANY(famt), VARSIZE_ANY_EXHDR(famt));
	if (fam->aggregate != WIDE_AGG_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot read-modify-write a cell of aggregate family \"%s\"", fam->name),
				 errhint("Use wide.add_to_cell(), which needs no read.")));
	if (append && schema->valtype != BYTEAOID && schema->valtype != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("append needs a text or bytea value column, not %s",
						format_type_be(schema->valtype))));
	if (increment && schema->valtype != BYTEAOID && schema->valtype != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("increment needs an int8 or bytea value column, not %s",
						format_type_be(schema->valtype))));

	ncells = read_locked_row(rel, schema, VARDATA_ANY(keyt), VARSIZE_ANY_EXHDR(keyt),
							 &cells, &snap);
	for (i = 0; i < ncells; i++)
		if (cells[i].familylen == (int) VARSIZE_ANY_EXHDR(famt) &&
			memcmp(cells[i].family, VARDATA_ANY(famt), cells[i].familylen) == 0 &&
			cells[i].quallen == (int) VARSIZE_ANY_EXHDR(qualt) &&
			memcmp(cells[i].qual, VARDATA_ANY(qualt), cells[i].quallen) == 0)
		{
			old = &cells[i];	/* the newest version comes first */
			break;
		}

	if (append)
	{
		bytea	   *add = PG_GETARG_BYTEA_PP(4);
		uint32		oldlen = 0,
					addlen = VARSIZE_ANY_EXHDR(add);
		const char *oldp = NULL;
		struct varlena *nv;

		/* text stays text: the old value is valid, so must the tail be */
		WideCheckText(schema->valtype, VARDATA_ANY(add), addlen, "value");

		if (old)
		{
			struct varlena *ov = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(old->value));

			oldp = VARDATA_ANY(ov);
			oldlen = VARSIZE_ANY_EXHDR(ov);
		}
		if ((uint64) oldlen + addlen > WIDE_MAX_VALUE)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("appended value of %llu bytes is too long",
							(unsigned long long) oldlen + addlen)));
		nv = palloc(VARHDRSZ + oldlen + addlen);
		SET_VARSIZE(nv, VARHDRSZ + oldlen + addlen);
		if (oldlen)
			memcpy(VARDATA(nv), oldp, oldlen);
		memcpy(VARDATA(nv) + oldlen, VARDATA_ANY(add), addlen);
		values[4] = PointerGetDatum(nv);
	}
	else
	{
		int64		v = 0;
		int64		inc = PG_GETARG_INT64(5);

		if (old && schema->valtype == INT8OID)
			v = DatumGetInt64(old->value);
		else if (old)
		{
			struct varlena *ov = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(old->value));
			uint64		be;

			if (VARSIZE_ANY_EXHDR(ov) != sizeof(int64))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("cannot increment a value of %u bytes",
								(unsigned) VARSIZE_ANY_EXHDR(ov)),
						 errdetail("Increment needs a 64-bit big-endian signed integer, as in Bigtable.")));
			memcpy(&be, VARDATA_ANY(ov), sizeof(int64));
			v = (int64) pg_ntoh64(be);
		}
		v = (int64) ((uint64) v + (uint64) inc);	/* wraps, as Bigtable's */
		if (schema->valtype == INT8OID)
			values[4] = Int64GetDatum(v);
		else
		{
			bytea	   *b = palloc(VARHDRSZ + sizeof(int64));
			uint64		be = pg_hton64((uint64) v);

			SET_VARSIZE(b, VARHDRSZ + sizeof(int64));
			memcpy(VARDATA(b), &be, sizeof(int64));
			values[4] = PointerGetDatum(b);
		}
	}

	ts = old ? Max(now, old->ts) : now;
	values[0] = PointerGetDatum(keyt);
	values[1] = PointerGetDatum(famt);
	values[2] = PointerGetDatum(qualt);
	values[3] = schema->tstype == TIMESTAMPTZOID ?
		TimestampTzGetDatum(WideUnixToTimestamp(ts)) : Int64GetDatum(ts);
	WideCellFromValues(rel, schema, values, isnull, &cell);
	WideWriteRecords(rel, &cell, 1);
	check_no_race(rel, VARDATA_ANY(keyt), VARSIZE_ANY_EXHDR(keyt), snap, cell.seq);

	tup = heap_form_tuple(RelationGetDescr(rel), values, isnull);
	relation_close(rel, NoLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(tup));
}
