/*-------------------------------------------------------------------------
 *
 * mutate_rows_bin.c
 *	  A batch of mutations in a compact binary form, for bulk writers that
 *	  already hold Bigtable's messages decoded (wide-bigtable's MutateRows).
 *
 *	  wide.mutate_rows_bin(tbl, batch bytea) -> bigint (records)
 *
 * The same as wide.mutate_rows(tbl, entries jsonb) (mutate_row.c), whose
 * JSON entries it encodes field for field, without the cost of JSON: each
 * mutation is decoded into the same WideMutationArgs and becomes a record
 * through the same WideMutationArgsCell, and the entries go through the same
 * WideBatch (tablets, remote tablets, privileges, all or nothing).  All
 * integers are big-endian:
 *
 *	batch    := "WMR" 0x01, uint32 n, n entries, and nothing after
 *	entry    := str row_key, uint32 m (at least 1), m mutations
 *	mutation := uint8 kind, then by kind:
 *	  1 set_cell, 2 add_to_cell, 3 merge_to_cell:
 *	             str family, str qualifier, int64 timestamp_micros (-1: the
 *	             server's time), uint8 form, str value (set_cell) or input
 *	  4 delete_from_column:
 *	             str family, str qualifier, int64 start (-1: 0),
 *	             int64 end (0 or -1: no end)
 *	  5 delete_from_family: str family
 *	  6 delete_from_row
 *	str      := uint32 length, that many bytes
 *	form     := 'b' bytes (a bytea as they are; for another type its text
 *	            "\x<hex>", as the JSON string of a bytea), 't' text for the
 *	            target type's input function (a JSON string), 'n' the same
 *	            written as a number (a JSON number: an hll family hashes it
 *	            as an int8)
 *
 * The whole batch is decoded and checked before the table is opened: a
 * truncated or malformed one fails with invalid_binary_representation and
 * writes nothing; a bad mutation fails as in mutate_rows, naming it as
 * "$[entry].mutations[i].kind".
 *
 * IDENTIFICATION
 *	  src/api/mutate_rows_bin.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "am/am.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_mutate_rows_bin);

#define BATCH_MAGIC "WMR\x01"

/* an entry of the batch: its key, mutations and bytes */
typedef struct BinEntry
{
	const char *key;
	uint32		keylen;
	int			first;			/* its first mutation in the array */
	int			count;
	const char *start;			/* its bytes, for a remote tablet */
	int			len;
} BinEntry;

/* a reader of the batch */
typedef struct BinReader
{
	const char *p;
	const char *start;
	const char *end;
} BinReader;

static const char *const kind_names[] = {
	NULL, "set_cell", "add_to_cell", "merge_to_cell",
	"delete_from_column", "delete_from_family", "delete_from_row"
};

static void
malformed(BinReader *r, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed binary mutation batch"),
			 errdetail("%s at byte %d of %d.", what, (int) (r->p - r->start),
					   (int) (r->end - r->start)),
			 errhint("The batch is wide.mutate_rows_bin's binary form (src/api/mutate_rows_bin.c); nothing of it was written.")));
}

static void
need(BinReader *r, Size n, const char *what)
{
	if ((Size) (r->end - r->p) < n)
		malformed(r, psprintf("%s is cut short", what));
}

static uint8
get_u8(BinReader *r, const char *what)
{
	need(r, 1, what);
	return (uint8) *r->p++;
}

static uint32
get_u32(BinReader *r, const char *what)
{
	const unsigned char *u = (const unsigned char *) r->p;

	need(r, 4, what);
	r->p += 4;
	return ((uint32) u[0] << 24) | ((uint32) u[1] << 16) | ((uint32) u[2] << 8) | u[3];
}

static int64
get_i64(BinReader *r, const char *what)
{
	uint64		hi = get_u32(r, what);

	return (int64) ((hi << 32) | get_u32(r, what));
}

static const char *
get_str(BinReader *r, uint32 *len, const char *what)
{
	const char *s;

	*len = get_u32(r, what);
	need(r, *len, what);
	s = r->p;
	r->p += *len;
	return s;
}

/* one mutation into *a; the privilege it needs */
static AclMode
get_mutation(BinReader *r, WideMutationArgs *a)
{
	uint8		kind = get_u8(r, "A mutation's kind");

	memset(a, 0, sizeof(WideMutationArgs));
	if (kind < WIDE_MUT_SET_CELL || kind > WIDE_MUT_DELETE_FROM_ROW)
	{
		r->p--;
		malformed(r, psprintf("Mutation kind %u is unknown", kind));
	}
	a->kind = (WideMutationKind) kind;
	if (kind == WIDE_MUT_DELETE_FROM_ROW)
		return ACL_DELETE;
	a->family = get_str(r, &a->famlen, "A family name");
	if (kind == WIDE_MUT_DELETE_FROM_FAMILY)
		return ACL_DELETE;
	a->qual = get_str(r, &a->quallen, "A qualifier");
	if (kind == WIDE_MUT_DELETE_FROM_COLUMN)
	{
		/* as the JSON form reads start_ and end_timestamp_micros */
		a->from = get_i64(r, "A time range");
		a->to = get_i64(r, "A time range");
		if (a->from == -1)
			a->from = 0;
		if (a->to == -1 || a->to == 0)
			a->to = PG_INT64_MAX;
		return ACL_DELETE;
	}
	a->ts = get_i64(r, "A timestamp");
	a->tsnull = a->ts == -1;
	switch (get_u8(r, "A value's form"))
	{
		case 'b':
			a->vform = WIDE_VALUE_BYTES;
			break;
		case 't':
			a->vform = WIDE_VALUE_TEXT;
			break;
		case 'n':
			a->vform = WIDE_VALUE_NUMBER;
			break;
		default:
			r->p--;
			malformed(r, "A value's form is not 'b', 't' or 'n'");
	}
	a->value = get_str(r, &a->vallen, "A value");
	if (a->vform == WIDE_VALUE_NUMBER)
	{
		/* the text a JSON number gives (numeric_out), checked a number */
		char	   *s = pnstrdup(a->value, a->vallen);
		Datum		num;

		num = DirectFunctionCall3(numeric_in, CStringGetDatum(s),
								  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		a->value = DatumGetCString(DirectFunctionCall1(numeric_out, num));
		a->vallen = strlen(a->value);
	}
	return ACL_INSERT;
}

/*
 * wide.mutate_rows_bin(tbl, batch)
 */
Datum
wide_mutate_rows_bin(PG_FUNCTION_ARGS)
{
	Oid			relid = WideTableArg(fcinfo, 0);
	bytea	   *batch;
	BinReader	r;
	uint32		n,
				i;
	BinEntry   *entries;
	WideMutationArgs *muts;
	int			nmuts = 0,
				capmuts = 64;
	AclMode		acl = 0;
	WideBatch	b;

	if (PG_ARGISNULL(1))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("table and batch cannot be NULL")));
	batch = PG_GETARG_BYTEA_PP(1);
	r.start = r.p = VARDATA_ANY(batch);
	r.end = r.p + VARSIZE_ANY_EXHDR(batch);

	/* decode it all, before anything is opened or written */
	need(&r, 4, "The header");
	if (memcmp(r.p, BATCH_MAGIC, 4) != 0)
		malformed(&r, "The header is not \"WMR\" and version 1");
	r.p += 4;
	n = get_u32(&r, "The number of entries");
	if (n == 0)
		malformed(&r, "A batch needs at least one entry");
	/* an entry takes 9 bytes or more */
	if (n > (uint32) ((r.end - r.p) / 9))
		malformed(&r, psprintf("%u entries do not fit in the batch", n));
	entries = palloc(sizeof(BinEntry) * n);
	muts = palloc(sizeof(WideMutationArgs) * capmuts);
	for (i = 0; i < n; i++)
	{
		BinEntry   *e = &entries[i];
		uint32		m,
					j;

		CHECK_FOR_INTERRUPTS();
		e->start = r.p;
		e->key = get_str(&r, &e->keylen, "A row key");
		m = get_u32(&r, "The number of mutations");
		if (m == 0)
			malformed(&r, psprintf("Entry %u has no mutation", i));
		if (m > (uint32) (r.end - r.p))
			malformed(&r, psprintf("%u mutations do not fit in the batch", m));
		e->first = nmuts;
		e->count = m;
		for (j = 0; j < m; j++)
		{
			if (nmuts == capmuts)
				muts = repalloc_huge(muts, sizeof(WideMutationArgs) * (capmuts *= 2));
			acl |= get_mutation(&r, &muts[nmuts++]);
		}
		e->len = r.p - e->start;
	}
	if (r.p != r.end)
		malformed(&r, "Bytes follow the last entry");

	WideBatchOpen(&b, fcinfo, relid, acl);
	for (i = 0; i < n; i++)
	{
		BinEntry   *e = &entries[i];
		Oid			remote;
		text	   *keytext;
		int			j;

		CHECK_FOR_INTERRUPTS();
		remote = WideBatchRoute(&b, e->key, e->keylen);
		if (OidIsValid(remote))
		{
			/* a remote tablet: the entry alone goes to its node, in order */
			char	   *one = palloc(8 + e->len);

			memcpy(one, BATCH_MAGIC "\0\0\0\1", 8);
			memcpy(one + 8, e->start, e->len);
			b.total += WideRemoteMutateRowsBin(remote, one, 8 + e->len);
			pfree(one);
			continue;
		}
		keytext = cstring_to_text_with_len(e->key, e->keylen);
		for (j = 0; j < e->count; j++)
		{
			const WideMutationArgs *a = &muts[e->first + j];
			char		sub[64];

			snprintf(sub, sizeof(sub), "$[%u].mutations[%d].%s", i, j, kind_names[a->kind]);
			WideMutationArgsCell(b.rel, b.schema, e->key, e->keylen, keytext, a, sub,
								 WideBatchCell(&b));
		}
	}
	PG_RETURN_INT64(WideBatchFinish(&b));
}
