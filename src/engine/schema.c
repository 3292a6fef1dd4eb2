/*-------------------------------------------------------------------------
 *
 * schema.c
 *	  A wide table's definition: its columns and its column families.
 *
 * Columns.  A wide table has exactly these columns, in this order:
 *
 *	  row_key   text | bytea        (text columns are given COLLATE "C")
 *	  family    text
 *	  qualifier text | bytea
 *	  ts        timestamptz | int8  (int8: microseconds since 1970)
 *	  value     any type with a binary form: fixed length or varlena
 *
 * Families.  The family catalog is part of the table's own definition: it
 * is the default expression of the "family" column,
 *
 *	  family text DEFAULT wide.family_catalog('{...}'::jsonb)
 *
 * which wide.create_family/alter_family/drop_family rewrite with ALTER
 * TABLE.  Keeping it there makes family changes transactional, lets them
 * take the table's AccessExclusiveLock (so no query on the table sees the
 * catalog change under it), invalidates every backend's relcache entry, and
 * makes pg_dump restore the families with CREATE TABLE -- before the data
 * that needs them.  (The default also gives a clear error to an INSERT
 * that omits the family.)  The JSON document:
 *
 *	  { "version": 1,
 *	    "next_id": <int>,                 -- next family incarnation
 *	    "families": { "<name>": { "id": <int>,
 *	                              "max_versions": <int>,      -- optional
 *	                              "max_age_us": <int>,        -- optional
 *	                              "gc": "union"|"intersection",
 *	                              "gc_rule": <rule>,          -- instead of the three above
 *	                              "aggregate": "sum"|"min"|"max"|"hll"|"ddsketch"|"rollup",
 *	                              "rollup": <rollup> } } }          -- with "rollup"
 *
 * A <rollup> is {"source": "<family>", "bucket": "<interval>", "bucket_us":
 * <int>, "functions": ["sum"|"count"|"min"|"max"|"hll"|"ddsketch", ...]}, written by
 * wide.create_family(..., rollup => ...); see engine/rollup.c.
 *
 * A <rule> is Bigtable's nested GcRule, written by wide_internal._gc_rule:
 * {"max_num_versions": n}, {"max_age": "<interval>", "max_age_us": n},
 * {"union": [<rule>, ...]} or {"intersection": [<rule>, ...]}; at most
 * WIDE_GC_MAX_OPS parts, WIDE_GC_MAX_DEPTH deep.  Both forms compile to one
 * program (schema.h, evaluated by rules.c).
 *
 * Every create_family gives the family a new id, stored in its cells; cells
 * of an id that is no longer in the catalog (a dropped family, or an earlier
 * family of the same name) are invisible and are removed by compaction.
 *
 * The parsed definition is cached in rd_amcache, which the relcache resets
 * whenever the table's definition changes.
 *
 * IDENTIFICATION
 *	  src/engine/schema.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/aggregate.h"
#include "engine/schema.h"
#include "engine/catalog.h"

static const char *const column_names[] = {
	"row_key", "family", "qualifier", "ts", "value"
};

static const char *const column_types[] = {
	"text or bytea", "text", "text or bytea",
	"timestamptz or int8 (microseconds since 1970)", "any"
};

/* Does the column have an acceptable type? */
static bool
column_type_ok(int attno, Form_pg_attribute att)
{
	Oid			t = att->atttypid;

	switch (attno)
	{
		case 0:
		case 2:
			return t == TEXTOID || t == BYTEAOID;
		case 1:
			return t == TEXTOID;
		case 3:
			return t == TIMESTAMPTZOID || t == INT8OID;
		default:
			/* cstring-like types (typlen -2) have no binary form */
			return att->attlen > 0 || att->attlen == -1;
	}
}

/* the table's name for errors: for a rewrite's new table, the table's */
static const char *
shape_name(Relation rel)
{
	Oid			orig = WideRewriteSource(rel);
	char	   *name = OidIsValid(orig) ? get_rel_name(orig) : NULL;

	return name ? name : RelationGetRelationName(rel);
}

/*
 * WideCheckTableShape -- fail unless the relation has the columns of a wide
 * table.  Text key columns get COLLATE "C" (bytewise order) when they have
 * the default collation; an explicit other collation is an error.
 */
void
WideCheckTableShape(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			natts = 0;
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("wide table \"%s\" cannot have dropped columns",
							shape_name(rel)),
					 errhint("Create a new wide table and copy the cells into it.")));
		if (natts >= lengthof(column_names))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
					 errmsg("wide table \"%s\" has too many columns",
							shape_name(rel)),
					 errdetail("Column \"%s\" is one too many.", NameStr(att->attname)),
					 errhint("A wide table has exactly the columns (row_key text|bytea, family text, qualifier text|bytea, ts timestamptz|int8, value <any type>).")));
		if (strcmp(NameStr(att->attname), column_names[natts]) != 0 ||
			!column_type_ok(natts, att))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
					 errmsg("column %d of wide table \"%s\" must be \"%s\" of type %s",
							natts + 1, shape_name(rel),
							column_names[natts], column_types[natts]),
					 errdetail("Found column \"%s\" of type %s.",
							   NameStr(att->attname),
							   format_type_be(att->atttypid)),
					 errhint("A wide table has exactly the columns (row_key text|bytea, family text, qualifier text|bytea, ts timestamptz|int8, value <any type>).")));
		if (att->atttypid == TEXTOID && natts != 4)
		{
			if (att->attcollation == DEFAULT_COLLATION_OID)
				att->attcollation = C_COLLATION_OID;
			else if (att->attcollation != C_COLLATION_OID)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
						 errmsg("column \"%s\" of wide table \"%s\" must use the \"C\" collation",
								NameStr(att->attname), shape_name(rel)),
						 errdetail("Row keys, families and qualifiers sort bytewise."),
						 errhint("Leave out the COLLATE clause, or write COLLATE \"C\".")));
		}
		natts++;
	}
	if (natts != lengthof(column_names))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("wide table \"%s\" is missing column \"%s\"",
						shape_name(rel), column_names[natts]),
				 errhint("A wide table has exactly the columns (row_key text|bytea, family text, qualifier text|bytea, ts timestamptz|int8, value <any type>).")));
}

/*
 * WideHasTableShape -- does the relation (of any access method) have the
 * five columns of a wide table, by name and type?  Changes nothing.
 */
bool
WideHasTableShape(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			natts = 0;
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || natts >= lengthof(column_names) ||
			strcmp(NameStr(att->attname), column_names[natts]) != 0 ||
			!column_type_ok(natts, att))
			return false;
		natts++;
	}
	return natts == lengthof(column_names);
}

/* ----------------------------------------------------------------
 *	The family catalog
 * ----------------------------------------------------------------
 */

/*
 * catalog_of_default -- the jsonb constant of a family column default given
 * as its stored node tree (pg_attrdef.adbin), or NULL if it is not
 * wide.family_catalog('...'::jsonb).
 */
static Jsonb *
catalog_of_default(const char *adbin)
{
	Node	   *expr = stringToNode(adbin);
	FuncExpr   *fexpr;
	Const	   *arg;
	char	   *fname;

	if (expr == NULL || !IsA(expr, FuncExpr))
		return NULL;
	fexpr = (FuncExpr *) expr;
	if (list_length(fexpr->args) != 1 || !IsA(linitial(fexpr->args), Const))
		return NULL;
	arg = (Const *) linitial(fexpr->args);
	fname = get_func_name(fexpr->funcid);
	if (fname == NULL || strcmp(fname, "family_catalog") != 0 ||
		arg->consttype != JSONBOID || arg->constisnull)
		return NULL;
	return DatumGetJsonbP(arg->constvalue);
}

/* the jsonb constant of the family column's default of rel itself */
static Jsonb *
own_catalog(Relation rel, bool *has_default)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;
	int			i;

	*has_default = false;
	if (constr == NULL)
		return NULL;
	for (i = 0; i < constr->num_defval; i++)
		if (constr->defval[i].adnum == 2)
		{
			*has_default = true;
			return catalog_of_default(constr->defval[i].adbin);
		}
	return NULL;
}

/*
 * WideRewriteSource -- if rel is the new table of a rewrite of another
 * table (ALTER TABLE ... SET ACCESS METHOD, or another ALTER TABLE that
 * rewrites; cluster.c's make_new_heap names it pg_temp_<oid of the table>
 * in the same schema, and the rewriting backend holds the table's
 * AccessExclusiveLock), that table's OID; else InvalidOid.
 */
Oid
WideRewriteSource(Relation rel)
{
	const char *name = RelationGetRelationName(rel);
	char	   *end;
	unsigned long orig;

	if (strncmp(name, "pg_temp_", 8) != 0 ||
		rel->rd_createSubid == InvalidSubTransactionId)
		return InvalidOid;
	errno = 0;
	orig = strtoul(name + 8, &end, 10);
	if (errno != 0 || *end != '\0' || orig == 0 || orig > PG_UINT32_MAX ||
		(Oid) orig == RelationGetRelid(rel))
		return InvalidOid;
	if (!CheckRelationOidLockedByMe((Oid) orig, AccessExclusiveLock, false) ||
		get_rel_namespace((Oid) orig) != RelationGetNamespace(rel))
		return InvalidOid;
	return (Oid) orig;
}

/*
 * catalog_relid -- the table whose family column default is rel's family
 * catalog: rel, or for the new table of a rewrite (which PostgreSQL creates
 * without defaults) the table being rewritten.
 */
static Oid
catalog_relid(Relation rel)
{
	bool		has_default;
	Oid			orig;

	(void) own_catalog(rel, &has_default);
	if (!has_default && OidIsValid(orig = WideRewriteSource(rel)))
		return orig;
	return RelationGetRelid(rel);
}

/*
 * WideCatalogDocumentOf -- the family catalog of any table with the
 * columns of a wide table (a heap table too), by OID; NULL if none.
 */
Jsonb *
WideCatalogDocumentOf(Oid relid)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	Jsonb	   *doc;
	bool		has_default;

	if (rel == NULL)
		return NULL;
	doc = own_catalog(rel, &has_default);
	relation_close(rel, AccessShareLock);
	return doc;
}

/*
 * WideCatalogDocument -- the jsonb constant of the family column's default,
 * or NULL if the table has no family catalog.  The new table of a rewrite
 * has the catalog of the table rewritten (WideRewriteSource).
 */
Jsonb *
WideCatalogDocument(Relation rel)
{
	bool		has_default;
	Jsonb	   *doc = own_catalog(rel, &has_default);
	Oid			orig;

	if (!has_default && OidIsValid(orig = WideRewriteSource(rel)))
		return WideCatalogDocumentOf(orig);
	return doc;
}

/*
 * xid_committed_elsewhere -- did xid commit, in a transaction other than
 * ours?  (Our own transaction and its subtransactions have not committed,
 * whatever the clog says of a subcommitted one.)
 */
static bool
xid_committed_elsewhere(TransactionId xid)
{
	if (!TransactionIdIsNormal(xid))
		return xid == FrozenTransactionId || xid == BootstrapTransactionId;
	if (TransactionIdIsCurrentTransactionId(xid) ||
		TransactionIdIsInProgress(xid))
		return false;
	return TransactionIdDidCommit(xid);
}

/*
 * attrdef_committed -- is this version of a pg_attrdef row the committed
 * one: inserted by a committed transaction and not deleted by one?  A
 * deletion by our own (in-progress) transaction does not count.
 */
static bool
attrdef_committed(HeapTupleHeader tup)
{
	uint16		mask = tup->t_infomask;
	TransactionId xmax;

	if (!HeapTupleHeaderXminFrozen(tup))
	{
		if (HeapTupleHeaderXminInvalid(tup))
			return false;
		if (!HeapTupleHeaderXminCommitted(tup) &&
			!xid_committed_elsewhere(HeapTupleHeaderGetRawXmin(tup)))
			return false;
	}
	if ((mask & HEAP_XMAX_INVALID) || HEAP_XMAX_IS_LOCKED_ONLY(mask))
		return true;
	xmax = HeapTupleHeaderGetUpdateXid(tup);
	if (!TransactionIdIsValid(xmax))
		return true;
	if (mask & HEAP_XMAX_COMMITTED)
		return false;
	return !xid_committed_elsewhere(xmax);
}

/*
 * committed_catalog -- the family catalog as the last committed transaction
 * left it, ignoring changes our own transaction has made (and may still
 * roll back); NULL if there is none.  *ambiguous is set if more than one
 * version qualifies, which the table's locks should make impossible.
 */
static Jsonb *
committed_catalog(Relation rel, bool *ambiguous)
{
	Relation	attrdef = table_open(AttrDefaultRelationId, AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;
	Jsonb	   *doc = NULL;
	int			found = 0;

	ScanKeyInit(&keys[0], Anum_pg_attrdef_adrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(catalog_relid(rel)));
	ScanKeyInit(&keys[1], Anum_pg_attrdef_adnum, BTEqualStrategyNumber,
				F_INT2EQ, Int16GetDatum(2));
	scan = systable_beginscan(attrdef, AttrDefaultIndexId, true, SnapshotAny,
							  2, keys);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Datum		adbin;
		bool		isnull;

		if (!attrdef_committed(tup->t_data))
			continue;
		found++;
		adbin = heap_getattr(tup, Anum_pg_attrdef_adbin,
							 RelationGetDescr(attrdef), &isnull);
		if (!isnull)
			doc = catalog_of_default(TextDatumGetCString(adbin));
	}
	systable_endscan(scan);
	table_close(attrdef, AccessShareLock);
	*ambiguous = found > 1;
	return *ambiguous ? NULL : doc;
}

static bool
json_get(JsonbContainer *c, const char *key, JsonbValue *v)
{
	return getKeyJsonValueFromContainer(c, key, strlen(key), v) != NULL;
}

static int64
json_int(Relation rel, JsonbContainer *c, const char *key, int64 dflt)
{
	JsonbValue	v;

	if (!json_get(c, key, &v))
		return dflt;
	if (v.type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("family catalog of wide table \"%s\" is malformed",
						RelationGetRelationName(rel)),
				 errdetail("Field \"%s\" is not a number.", key),
				 errhint("Recreate the families with wide.create_family().")));
	return DatumGetInt64(DirectFunctionCall1(numeric_int8,
											 NumericGetDatum(v.val.numeric)));
}

/* a family catalog that wide's own functions could not have written */
static void
malformed(Relation rel, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("family catalog of wide table \"%s\" is malformed",
					RelationGetRelationName(rel)),
			 errdetail("%s", detail),
			 errhint("Recreate the families with wide.create_family().")));
}

/* append one operation to a family's GC program */
static void
gc_push(Relation rel, WideFamily *f, WideGcOpKind kind, int nargs, int64 arg)
{
	if (f->ngc >= WIDE_GC_MAX_OPS)
		malformed(rel, psprintf("The GC rule of family \"%s\" has more than %d parts.",
								f->name, WIDE_GC_MAX_OPS));
	f->gc[f->ngc].kind = (uint8) kind;
	f->gc[f->ngc].nargs = (uint8) nargs;
	f->gc[f->ngc].arg = arg;
	f->ngc++;
	if (kind == WIDE_GC_VERSIONS)
		f->max_versions = (int32) Max(f->max_versions, arg);
	else if (kind == WIDE_GC_AGE)
		f->max_age = Max(f->max_age, arg);
}

/*
 * compile a nested GC rule in the catalog's form (wide_internal._gc_rule writes it):
 * {"max_num_versions": n} | {"max_age": "text", "max_age_us": n} |
 * {"union": [rule, ...]} | {"intersection": [rule, ...]}
 */
static void
compile_gc_rule(Relation rel, WideFamily *f, JsonbValue *rule, int depth)
{
	JsonbContainer *c;
	JsonbValue	v;

	if (depth > WIDE_GC_MAX_DEPTH)
		malformed(rel, psprintf("The GC rule of family \"%s\" is nested more than %d deep.",
								f->name, WIDE_GC_MAX_DEPTH));
	if (rule->type != jbvBinary || !JsonContainerIsObject(rule->val.binary.data))
		malformed(rel, psprintf("A GC rule of family \"%s\" is not an object.", f->name));
	c = rule->val.binary.data;
	if (json_get(c, "max_num_versions", &v) || json_get(c, "max_age_us", &v))
	{
		bool		versions = json_get(c, "max_num_versions", &v);
		int64		n = json_int(rel, c, versions ? "max_num_versions" : "max_age_us", 0);

		if (n < 1 || (versions && n > PG_INT32_MAX))
			malformed(rel, psprintf("A GC rule of family \"%s\" has a limit out of range.",
									f->name));
		gc_push(rel, f, versions ? WIDE_GC_VERSIONS : WIDE_GC_AGE, 0, n);
	}
	else if (json_get(c, "union", &v) || json_get(c, "intersection", &v))
	{
		bool		is_union = json_get(c, "union", &v);
		JsonbIterator *it;
		JsonbIteratorToken tok;
		JsonbValue	e;
		int			n = 0;

		if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
			malformed(rel, psprintf("A union or intersection of family \"%s\" is not an array.",
									f->name));
		it = JsonbIteratorInit(v.val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			if (tok != WJB_ELEM)
				continue;
			compile_gc_rule(rel, f, &e, depth + 1);
			n++;
		}
		if (n == 0 || n > 255)
			malformed(rel, psprintf("A union or intersection of family \"%s\" has %d rules.",
									f->name, n));
		gc_push(rel, f, is_union ? WIDE_GC_UNION : WIDE_GC_INTERSECTION, n, 0);
	}
	else
		malformed(rel, psprintf("A GC rule of family \"%s\" is of no known kind.", f->name));
}

/*
 * parse_rollup -- the "rollup" object of a rollup family (engine/rollup.c):
 * {"source": "<family>", "bucket": "<interval>", "bucket_us": n,
 *  "functions": ["sum", "count", "min", "max", "hll"],
 *  "key_parts": n, "delimiter": "#"}		-- both optional
 */
static void
parse_rollup(Relation rel, WideFamily *f, JsonbContainer *c)
{
	JsonbValue	v;
	JsonbValue	e;
	JsonbContainer *r;
	JsonbIterator *it;
	JsonbIteratorToken tok;

	if (!json_get(c, "rollup", &v) || v.type != jbvBinary ||
		!JsonContainerIsObject(v.val.binary.data))
		malformed(rel, psprintf("Rollup family \"%s\" has no rollup definition.", f->name));
	r = v.val.binary.data;
	if (!json_get(r, "source", &v) || v.type != jbvString ||
		v.val.string.len < 1 || v.val.string.len > WIDE_MAX_FAMILY_NAME)
		malformed(rel, psprintf("Rollup family \"%s\" has no source family.", f->name));
	memcpy(f->rollup_source, v.val.string.val, v.val.string.len);
	f->rollup_source[v.val.string.len] = '\0';
	f->rollup_sourcelen = v.val.string.len;
	f->rollup_bucket = json_int(rel, r, "bucket_us", 0);
	if (f->rollup_bucket < 1)
		malformed(rel, psprintf("Rollup family \"%s\" has no positive bucket width.", f->name));
	if (!json_get(r, "functions", &v) || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data))
		malformed(rel, psprintf("Rollup family \"%s\" has no functions.", f->name));
	it = JsonbIteratorInit(v.val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		int			fn;

		if (tok != WJB_ELEM)
			continue;
		if (e.type != jbvString ||
			(fn = WideRollupFunctionByName(e.val.string.val, e.val.string.len)) < 0)
			malformed(rel, psprintf("Rollup family \"%s\" has an unknown function.", f->name));
		f->rollup_functions |= (uint8) (1 << fn);
	}
	if (f->rollup_functions == 0)
		malformed(rel, psprintf("Rollup family \"%s\" has no functions.", f->name));
	f->rollup_key_parts = (int) json_int(rel, r, "key_parts", 0);
	f->rollup_delimiter = '#';
	if (json_get(r, "delimiter", &v) && v.type == jbvString && v.val.string.len == 1)
		f->rollup_delimiter = v.val.string.val[0];
	if (f->rollup_key_parts < 0 || f->rollup_key_parts > 255)
		malformed(rel, psprintf("Rollup family \"%s\" has key_parts out of range.", f->name));
}

static void
parse_family(Relation rel, const char *name, int namelen,
			 JsonbContainer *c, WideFamily *f)
{
	JsonbValue	v;

	memset(f, 0, sizeof(WideFamily));
	if (namelen > WIDE_MAX_FAMILY_NAME)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("family catalog of wide table \"%s\" is malformed",
						RelationGetRelationName(rel)),
				 errdetail("A family name is longer than %d bytes.",
						   WIDE_MAX_FAMILY_NAME)));
	memcpy(f->name, name, namelen);
	f->namelen = namelen;
	f->id = (uint32) json_int(rel, c, "id", 0);
	if (json_get(c, "gc_rule", &v))
		compile_gc_rule(rel, f, &v, 1);
	else
	{
		int64		versions = json_int(rel, c, "max_versions", 0);
		int64		age = json_int(rel, c, "max_age_us", 0);

		if (json_get(c, "gc", &v) && v.type == jbvString)
			f->gc_intersection = (v.val.string.len == 12 &&
								  memcmp(v.val.string.val, "intersection", 12) == 0);
		if (versions < 0 || versions > PG_INT32_MAX || age < 0)
			malformed(rel, psprintf("The GC policy of family \"%s\" has a limit out of range.",
									f->name));
		if (versions > 0)
			gc_push(rel, f, WIDE_GC_VERSIONS, 0, versions);
		if (age > 0)
			gc_push(rel, f, WIDE_GC_AGE, 0, age);
		if (versions > 0 && age > 0)
			gc_push(rel, f, f->gc_intersection ? WIDE_GC_INTERSECTION : WIDE_GC_UNION, 2, 0);
	}
	f->aggregate = WIDE_AGG_NONE;
	if (json_get(c, "aggregate", &v) && v.type == jbvString)
	{
		const char *a = v.val.string.val;
		int			l = v.val.string.len;

		if (l == 3 && memcmp(a, "sum", 3) == 0)
			f->aggregate = WIDE_AGG_SUM;
		else if (l == 3 && memcmp(a, "min", 3) == 0)
			f->aggregate = WIDE_AGG_MIN;
		else if (l == 3 && memcmp(a, "max", 3) == 0)
			f->aggregate = WIDE_AGG_MAX;
		else if (l == 3 && memcmp(a, "hll", 3) == 0)
			f->aggregate = WIDE_AGG_HLL;
		else if (l == 8 && memcmp(a, "ddsketch", 8) == 0)
			f->aggregate = WIDE_AGG_DDS;
		else if (l == 6 && memcmp(a, "rollup", 6) == 0)
			f->aggregate = WIDE_AGG_ROLLUP;
	}
	if (f->aggregate == WIDE_AGG_ROLLUP)
		parse_rollup(rel, f, c);
}

static int
cmp_family(const void *a, const void *b)
{
	const WideFamily *fa = a;
	const WideFamily *fb = b;

	return WideKeyCompare(fa->name, fa->namelen, fb->name, fb->namelen);
}

/*
 * build_schema -- the schema of the table with the given family catalog
 * document (NULL: none), in a single palloc'd chunk of the given context.
 */
static WideSchema *
build_schema(Relation rel, Jsonb *doc, MemoryContext cxt)
{
	TupleDesc	desc = RelationGetDescr(rel);
	WideFamily *fams = NULL;
	int			nfams = 0;
	uint32		next_id = 1;
	WideSchema *schema;
	Form_pg_attribute valatt;

	WideCheckTableShape(rel);

	if (doc != NULL)
	{
		JsonbValue	v;

		next_id = (uint32) json_int(rel, &doc->root, "next_id", 1);
		if (json_get(&doc->root, "families", &v) && v.type == jbvBinary)
		{
			JsonbIterator *it = JsonbIteratorInit(v.val.binary.data);
			JsonbIteratorToken tok;
			JsonbValue	k;
			int			max = 8;

			fams = palloc(sizeof(WideFamily) * max);
			while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
			{
				if (tok != WJB_KEY)
					continue;
				tok = JsonbIteratorNext(&it, &v, true);
				if (tok != WJB_VALUE || v.type != jbvBinary)
					continue;
				if (nfams == max)
				{
					max *= 2;
					fams = repalloc(fams, sizeof(WideFamily) * max);
				}
				parse_family(rel, k.val.string.val, k.val.string.len,
							 v.val.binary.data, &fams[nfams++]);
			}
			qsort(fams, nfams, sizeof(WideFamily), cmp_family);
		}
	}

	schema = MemoryContextAllocZero(cxt, sizeof(WideSchema) +
									sizeof(WideFamily) * nfams);
	schema->keytype = TupleDescAttr(desc, 0)->atttypid;
	schema->qualtype = TupleDescAttr(desc, 2)->atttypid;
	schema->tstype = TupleDescAttr(desc, 3)->atttypid;
	valatt = TupleDescAttr(desc, 4);
	schema->valtype = valatt->atttypid;
	schema->vallen = valatt->attlen;
	schema->valbyval = valatt->attbyval;
	schema->has_catalog = (doc != NULL);
	schema->next_id = next_id;
	schema->nfamilies = nfams;
	schema->families = (WideFamily *) (schema + 1);
	if (nfams > 0)
		memcpy(schema->families, fams, sizeof(WideFamily) * nfams);
	for (int i = 0; i < nfams; i++)
	{
		if (schema->families[i].aggregate == WIDE_AGG_ROLLUP)
			schema->has_rollups = true;
		schema->families[i].float_values = (schema->valtype == FLOAT8OID);
	}
	return schema;
}

/*
 * WideGetSchema -- the table's definition, from rd_amcache.
 *
 * The result may be freed at the next relcache invalidation: do not keep it
 * across catalog access or lock acquisition; use WideSchemaCopy for that.
 */
const WideSchema *
WideGetSchema(Relation rel)
{
	if (rel->rd_amcache == NULL)
	{
		WideSchema *schema = build_schema(rel, WideCatalogDocument(rel),
										  CacheMemoryContext);

		/* the families array lives in the same chunk */
		rel->rd_amcache = schema;
	}
	return (const WideSchema *) rel->rd_amcache;
}

/*
 * WideSchemaCopy -- a palloc'd copy of the table's definition.
 */
WideSchema *
WideSchemaCopy(Relation rel)
{
	const WideSchema *s = WideGetSchema(rel);
	Size		size = sizeof(WideSchema) + sizeof(WideFamily) * s->nfamilies;
	WideSchema *copy = palloc(size);

	memcpy(copy, s, size);
	copy->families = (WideFamily *) (copy + 1);
	return copy;
}

/*
 * WideSchemaCommitted -- a palloc'd definition of the table with its last
 * committed family catalog, for the code that physically drops cells (flush
 * and compaction).
 *
 * The relcache shows our own transaction's uncommitted family changes.
 * Applying them to what is written to disk would make them permanent even
 * if the transaction (or a subtransaction) rolls back: a dropped family's
 * cells, or versions beyond a lowered max_versions, would be gone.  Other
 * transactions' uncommitted changes cannot be in the way: family DDL holds
 * the AccessExclusiveLock until its transaction ends, and flush and
 * compaction run under a lock that conflicts with it.  So the committed
 * catalog is the version of the pg_attrdef row whose insertion committed
 * and whose deletion, if any, is ours.  Without one (the table was created,
 * or given its catalog, in this transaction) the schema has no catalog,
 * which makes the resolver keep every family's cells.
 */
WideSchema *
WideSchemaCommitted(Relation rel)
{
	bool		ambiguous;
	Jsonb	   *doc;

	/* a transaction without an xid has changed no catalog */
	if (!TransactionIdIsValid(GetTopTransactionIdIfAny()))
		return WideSchemaCopy(rel);
	doc = committed_catalog(rel, &ambiguous);
	if (ambiguous)
		elog(WARNING, "wide table \"%s\" has more than one committed family catalog; no family is collected",
			 RelationGetRelationName(rel));
	return build_schema(rel, doc, CurrentMemoryContext);
}

/*
 * WideSchemaFindFamily -- look a family up by name; NULL if unknown.
 */
const WideFamily *
WideSchemaFindFamily(const WideSchema *schema, const char *name, int len)
{
	int			lo = 0;
	int			hi = schema->nfamilies - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		const WideFamily *f = &schema->families[mid];
		int			r = WideKeyCompare(name, len, f->name, f->namelen);

		if (r == 0)
			return f;
		if (r < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return NULL;
}
