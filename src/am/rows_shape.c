/*-------------------------------------------------------------------------
 *
 * rows_shape.c
 *	  The row form's declaration: the foreign table's options checked and
 *	  read into a WideRowShape, the row key's codec, and values between a
 *	  column's type and the wide table's value column.
 *
 * Options of the foreign table (SERVER wide_rows):
 *	  cells		the wide table holding the cells (required); a name without
 *				a schema is the wide table of that name in the foreign
 *				table's schema, else in the search path
 *	  family	the family whose qualifiers are the columns (required)
 *	  key		the key columns, comma-separated, in key order (required)
 *	  separator	one byte between key parts (default '#')
 *	  timestamp	the column written as the cells' timestamp (default: the
 *				first timestamp key part; none: the server's time)
 * Options of a column:
 *	  qualifier	its qualifier (default: the column's name)
 *	  width		key part: digits of an integer or a time (default: any
 *				bigint as 20 digits, offset by 2^63; times: 10, 13 or 16
 *				digits for s, ms, us)
 *	  unit		time key part: s, ms or us (default s)
 *	  reversed	time key part: newest first, written 10^width - 1 - t
 *
 * The row key.  Parts are joined by the separator, as wide.key() joins
 * them: a text part with the separator or \ inside is escaped by \, so the
 * keys of one value of the first part are exactly the keys that begin with
 * it and the separator; integer and time parts are fixed-width digits, so
 * their order is the key's order and a range of them is a range of keys.
 * A time part holds whole units: a timestamp between two is refused, not
 * rounded (the reading would come back at another time).
 *
 * Renames.  A value column without a qualifier option is its name's
 * qualifier, and the key option names key columns: renaming either would
 * silently show other cells (or none).  ALTER ... RENAME COLUMN of such a
 * column is refused, with the option that pins it as the hint
 * (WideRowsUtility, a concern of am/utility.c).
 *
 * Values.  A value column has the wide table's value type, or any type
 * when the value column is bytea: then the cell holds the type's binary
 * form (int8 and float8 as 8 big-endian bytes, as Bigtable's clients write
 * them; text as its bytes).
 *
 * IDENTIFICATION
 *	  src/am/rows_shape.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "catalog/pg_foreign_server.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "common/md5.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/regproc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "am/am.h"
#include "am/rows.h"
#include "am/utility.h"

PG_FUNCTION_INFO_V1(wide_rows_validator);

static const char *const table_options[] = {"cells", "family", "key", "separator", "timestamp", "salt"};
static const char *const column_options[] = {"qualifier", "width", "unit", "reversed"};

static bool
option_known(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static int
parse_width(const char *s)
{
	char	   *end;
	long		w = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || w < 1 || w > 19)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("width must be a number of digits from 1 to 19, not \"%s\"", s)));
	return (int) w;
}

static int
parse_salt(const char *s)
{
	char	   *end;
	long		n = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || n < 2 || n > 10000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("salt must be a number of buckets from 2 to 10000, not \"%s\"", s),
				 errhint("Row keys then begin with the bucket, as wide.salted_key(key, buckets) writes them.")));
	return (int) n;
}

static int64
parse_unit(const char *s)
{
	if (strcmp(s, "s") == 0)
		return USECS_PER_SEC;
	if (strcmp(s, "ms") == 0)
		return 1000;
	if (strcmp(s, "us") == 0)
		return 1;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unit must be s, ms or us, not \"%s\"", s)));
	return 0;
}

/*
 * wide_rows_validator -- the options of the wide_rows wrapper, its server
 * and its foreign tables and their columns, checked one by one (the
 * columns' types are checked when the table is first used).
 */
Datum
wide_rows_validator(PG_FUNCTION_ARGS)
{
	List	   *options = untransformRelOptions(PG_GETARG_DATUM(0));
	Oid			catalog = PG_GETARG_OID(1);
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);
		const char *val = defGetString(def);

		if (catalog == ForeignTableRelationId)
		{
			if (!option_known(def->defname, table_options, lengthof(table_options)))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
						 errmsg("invalid option \"%s\" of a wide_rows table", def->defname),
						 errhint("A wide_rows table takes cells, family, key, separator, timestamp and salt.")));
			if (strcmp(def->defname, "separator") == 0 && strlen(val) != 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("separator must be one byte, not \"%s\"", val)));
			if (strcmp(def->defname, "separator") == 0 && *val == '\\')
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("separator cannot be \\"),
						 errdetail("\\ escapes the separator inside text key parts.")));
			if (strcmp(def->defname, "salt") == 0)
				(void) parse_salt(val);
			if (strcmp(def->defname, "family") == 0 &&
				(strlen(val) == 0 || strlen(val) > WIDE_MAX_FAMILY_NAME))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid family name \"%s\"", val)));
		}
		else if (catalog == AttributeRelationId)
		{
			if (!option_known(def->defname, column_options, lengthof(column_options)))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
						 errmsg("invalid option \"%s\" of a wide_rows column", def->defname),
						 errhint("A column takes qualifier, and a key column width, unit and reversed.")));
			if (strcmp(def->defname, "width") == 0)
				(void) parse_width(val);
			else if (strcmp(def->defname, "unit") == 0)
				(void) parse_unit(val);
			else if (strcmp(def->defname, "reversed") == 0)
				(void) defGetBoolean(def);
			else if (strcmp(def->defname, "qualifier") == 0 &&
					 strlen(val) > WIDE_MAX_QUALIFIER)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("qualifier is longer than %d bytes", WIDE_MAX_QUALIFIER)));
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", def->defname),
					 errhint("The wide_rows wrapper and its servers take no options; its foreign tables do.")));
	}
	PG_RETURN_VOID();
}

static const char *
table_option(List *options, const char *name)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return NULL;
}

static void shape_error(Oid relid, const char *msg, const char *hint) pg_attribute_noreturn();

static void
shape_error(Oid relid, const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			 errmsg("wide_rows table \"%s\": %s", get_rel_name(relid), msg),
			 hint ? errhint("%s", hint) : 0));
}

static int
cmp_qual(const void *a, const void *b, void *arg)
{
	const WideRowShape *s = arg;
	const WideRowCol *x = &s->cols[*(const AttrNumber *) a - 1];
	const WideRowCol *y = &s->cols[*(const AttrNumber *) b - 1];
	int			c = memcmp(x->qual, y->qual, Min(x->quallen, y->quallen));

	return c != 0 ? c : (x->quallen > y->quallen) - (x->quallen < y->quallen);
}

/*
 * cells_relid -- the wide table the cells option names.  A name without a
 * schema is first looked for in the foreign table's own schema, so that
 * what a row form reads does not depend on the reader's search_path
 * (pg_dump's is empty; a SECURITY DEFINER function's is its own).
 */
static Oid
cells_relid(Oid relid, const char *cells, bool *by_path)
{
	List	   *names = stringToQualifiedNameList(cells);

	*by_path = false;
	if (list_length(names) == 1)
	{
		Oid			own = get_relname_relid(strVal(linitial(names)),
											get_rel_namespace(relid));

		if (OidIsValid(own))
			return own;
		*by_path = true;
	}
	return RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, false);
}

/*
 * shape_build -- the row form of relid read from the catalogs and checked
 * against the wide table it names, in the current memory context; *by_path
 * when the cells option was found through the search path.
 */
static WideRowShape *
shape_build(Oid relid, bool *by_path)
{
	ForeignTable *ft = GetForeignTable(relid);
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	WideRowShape *s = palloc0(sizeof(WideRowShape));
	const char *cells = table_option(ft->options, "cells");
	const char *family = table_option(ft->options, "family");
	const char *key = table_option(ft->options, "key");
	const char *sep = table_option(ft->options, "separator");
	const char *tscol = table_option(ft->options, "timestamp");
	const char *salt = table_option(ft->options, "salt");
	List	   *keycols;
	ListCell   *lc;
	Relation	crel;
	const WideSchema *schema;
	Oid			valtype;

	s->relid = relid;
	if (cells == NULL || family == NULL || key == NULL)
		shape_error(relid, "the options cells, family and key are required",
					"For example: OPTIONS (cells 'cpu_cells', family 'cpu', key 'host,time').");
	s->cells = cells_relid(relid, cells, by_path);
	if (!WideRelationIsWide(s->cells))
		shape_error(relid, psprintf("\"%s\" is not a wide table", cells),
					"The cells option names a table created USING wide.");
	s->family = pstrdup(family);
	s->famlen = strlen(family);
	s->sep = sep ? sep[0] : '#';

	crel = table_open(s->cells, AccessShareLock);
	schema = WideGetSchema(crel);
	valtype = schema->valtype;
	if (WideSchemaFindFamily(schema, s->family, s->famlen) == NULL)
		shape_error(relid, psprintf("wide table \"%s\" has no family \"%s\"",
									RelationGetRelationName(crel), s->family),
					psprintf("Create it first: SELECT wide.create_family('%s', '%s');",
							 RelationGetRelationName(crel), s->family));
	table_close(crel, AccessShareLock);

	s->natts = desc->natts;
	s->cols = palloc0(sizeof(WideRowCol) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		s->cols[i].type = att->atttypid;
		s->cols[i].typlen = att->attlen;
		s->cols[i].typbyval = att->attbyval;
		s->cols[i].kind = att->attisdropped ? WIDE_COL_DROPPED : WIDE_COL_VALUE;
	}

	/* the key */
	if (!SplitIdentifierString(pstrdup(key), ',', &keycols) || keycols == NIL)
		shape_error(relid, psprintf("invalid key \"%s\"", key),
					"List the key columns in order, separated by commas.");
	if (salt != NULL)
	{
		/* the salt: the first part, fixed width, no column */
		WideRowPart *p = &s->parts[0];

		s->salt = parse_salt(salt);
		p->kind = WIDE_PART_SALT;
		p->buckets = s->salt;
		p->width = 1;
		for (int n = s->salt - 1; n >= 10; n /= 10)
			p->width++;
		s->nparts = 1;
	}
	if (list_length(keycols) + s->nparts > WIDE_ROWS_MAX_PARTS)
		shape_error(relid, psprintf("a row key has at most %d parts", WIDE_ROWS_MAX_PARTS),
					s->salt ? "The salt is one of them." : NULL);
	foreach(lc, keycols)
	{
		const char *name = lfirst(lc);
		AttrNumber	attnum = get_attnum(relid, name);
		WideRowPart *p = &s->parts[s->nparts];
		List	   *copts;
		ListCell   *lo;

		if (attnum <= 0)
			shape_error(relid, psprintf("key column \"%s\" does not exist", name), NULL);
		if (s->cols[attnum - 1].kind == WIDE_COL_KEY)
			shape_error(relid, psprintf("key column \"%s\" is named twice", name), NULL);
		p->attnum = attnum;
		p->type = s->cols[attnum - 1].type;
		switch (p->type)
		{
			case TEXTOID:
			case VARCHAROID:
				p->kind = WIDE_PART_TEXT;
				break;
			case INT2OID:
			case INT4OID:
			case INT8OID:
				p->kind = WIDE_PART_INT;
				break;
			case TIMESTAMPTZOID:
			case TIMESTAMPOID:
				p->kind = WIDE_PART_TIME;
				p->unit = USECS_PER_SEC;
				break;
			default:
				shape_error(relid, psprintf("key column \"%s\" has type %s", name,
											format_type_be(p->type)),
							"Key columns are text, varchar, smallint, integer, bigint, timestamptz or timestamp.");
		}
		copts = GetForeignColumnOptions(relid, attnum);
		foreach(lo, copts)
		{
			DefElem    *def = lfirst_node(DefElem, lo);

			if (strcmp(def->defname, "width") == 0 && p->kind != WIDE_PART_TEXT)
				p->width = parse_width(defGetString(def));
			else if (strcmp(def->defname, "unit") == 0 && p->kind == WIDE_PART_TIME)
				p->unit = parse_unit(defGetString(def));
			else if (strcmp(def->defname, "reversed") == 0 && p->kind == WIDE_PART_TIME)
				p->reversed = defGetBoolean(def);
			else
				shape_error(relid, psprintf("key column \"%s\" cannot take option \"%s\"",
											name, def->defname),
							"Integer key columns take width; time key columns width, unit and reversed.");
		}
		if (p->kind == WIDE_PART_TIME && p->width == 0)
			p->width = p->unit == USECS_PER_SEC ? 10 : p->unit == 1000 ? 13 : 16;
		s->cols[attnum - 1].kind = WIDE_COL_KEY;
		s->cols[attnum - 1].part = s->nparts;
		s->nparts++;
	}

	/* the cells' timestamp */
	s->ts_part = -1;
	if (tscol != NULL)
	{
		s->ts_attnum = get_attnum(relid, tscol);
		if (s->ts_attnum <= 0)
			shape_error(relid, psprintf("timestamp column \"%s\" does not exist", tscol), NULL);
		if (s->cols[s->ts_attnum - 1].type != TIMESTAMPTZOID &&
			s->cols[s->ts_attnum - 1].type != TIMESTAMPOID)
			shape_error(relid, psprintf("timestamp column \"%s\" is not a timestamp", tscol), NULL);
	}
	else
		for (int i = 0; i < s->nparts; i++)
			if (s->parts[i].kind == WIDE_PART_TIME)
			{
				s->ts_attnum = s->parts[i].attnum;
				break;
			}
	if (s->ts_attnum > 0)
	{
		WideRowCol *c = &s->cols[s->ts_attnum - 1];

		if (c->kind == WIDE_COL_KEY)
		{
			s->ts_in_key = true;
			s->ts_part = c->part;
		}
		else
			c->kind = WIDE_COL_TS;
	}

	/* the values */
	s->by_qual = palloc(sizeof(AttrNumber) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		WideRowCol *c = &s->cols[i];
		List	   *copts;
		ListCell   *lo;
		const char *qual = NameStr(TupleDescAttr(desc, i)->attname);

		if (c->kind != WIDE_COL_VALUE)
			continue;
		copts = GetForeignColumnOptions(relid, i + 1);
		foreach(lo, copts)
		{
			DefElem    *def = lfirst_node(DefElem, lo);

			if (strcmp(def->defname, "qualifier") == 0)
				qual = defGetString(def);
			else
				shape_error(relid, psprintf("column \"%s\" cannot take option \"%s\"",
											NameStr(TupleDescAttr(desc, i)->attname),
											def->defname),
							"Only key columns take width, unit and reversed.");
		}
		c->qual = pstrdup(qual);
		c->quallen = strlen(qual);
		if (c->type == valtype)
			c->binary = false;
		else if (valtype == BYTEAOID)
		{
			bool		isvarlena;

			c->binary = true;
			getTypeBinaryOutputInfo(c->type, &c->sendfn, &isvarlena);
			getTypeBinaryInputInfo(c->type, &c->recvfn, &c->ioparam);
		}
		else
			shape_error(relid, psprintf("column \"%s\" has type %s, the values of \"%s\" are %s",
										NameStr(TupleDescAttr(desc, i)->attname),
										format_type_be(c->type), cells,
										format_type_be(valtype)),
						"A column has the wide table's value type, or any type when the value column is bytea.");
		s->by_qual[s->nvalues++] = i + 1;
	}
	qsort_arg(s->by_qual, s->nvalues, sizeof(AttrNumber), cmp_qual, s);
	for (int i = 1; i < s->nvalues; i++)
		if (cmp_qual(&s->by_qual[i - 1], &s->by_qual[i], s) == 0)
			shape_error(relid, psprintf("two columns have qualifier \"%s\"",
										s->cols[s->by_qual[i] - 1].qual), NULL);
	table_close(rel, AccessShareLock);
	return s;
}

/*
 * The shape cache.  Planning and executing a statement on a row form each
 * want its shape, and building one reads the foreign table's options, each
 * column's options and the wide table's families (by perf, 6% of the
 * backend's CPU in a loop of DELETEs of a host's hour).  A backend keeps
 * each row form's shape, built once, and hands out copies in the caller's
 * memory context (callers may keep them across invalidations, as they kept
 * the shapes built for them before).  A relcache invalidation of the
 * foreign table (ALTER FOREIGN TABLE ... OPTIONS, a column's options, type
 * or drop, DROP) or of its wide table (a family created or dropped, a
 * rename) forgets the entry; ALTER in another session reaches this one
 * through the invalidation messages read at the next lock or at the
 * AcceptInvalidationMessages below.  A cells option found through the
 * search path (no table of that name in the row form's schema) is looked
 * up again at every hit, since a change of search_path sends no
 * invalidation.
 */
typedef struct ShapeEntry
{
	Oid			relid;			/* the foreign table: the hash key */
	Oid			cells;			/* its wide table */
	bool		by_path;		/* cells was found through the search path */
	char	   *cellsname;		/* by_path: the cells option */
	WideRowShape *shape;		/* one chunk in CacheMemoryContext */
} ShapeEntry;

static HTAB *shape_cache = NULL;
static uint64 shape_invals = 0; /* invalidations seen: a build that saw one
								 * is not kept */

static void
forget_shapes(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	ShapeEntry *e;

	shape_invals++;
	hash_seq_init(&status, shape_cache);
	while ((e = hash_seq_search(&status)) != NULL)
		if (!OidIsValid(relid) || e->relid == relid || e->cells == relid)
		{
			pfree(e->shape);
			if (e->cellsname)
				pfree(e->cellsname);
			hash_search(shape_cache, &e->relid, HASH_REMOVE, NULL);
		}
}

/* a copy of s in cxt, in one chunk */
static WideRowShape *
shape_copy(const WideRowShape *s, MemoryContext cxt)
{
	Size		size = MAXALIGN(sizeof(WideRowShape)) +
		MAXALIGN(sizeof(WideRowCol) * s->natts) +
		MAXALIGN(sizeof(AttrNumber) * s->natts) + s->famlen + 1;
	WideRowShape *c;
	char	   *p;

	for (int i = 0; i < s->natts; i++)
		if (s->cols[i].qual != NULL)
			size += s->cols[i].quallen + 1;
	c = MemoryContextAlloc(cxt, size);
	p = (char *) c;
	memcpy(c, s, sizeof(WideRowShape));
	p += MAXALIGN(sizeof(WideRowShape));
	c->cols = (WideRowCol *) p;
	memcpy(c->cols, s->cols, sizeof(WideRowCol) * s->natts);
	p += MAXALIGN(sizeof(WideRowCol) * s->natts);
	c->by_qual = (AttrNumber *) p;
	memcpy(c->by_qual, s->by_qual, sizeof(AttrNumber) * s->nvalues);
	p += MAXALIGN(sizeof(AttrNumber) * s->natts);
	c->family = p;
	memcpy(p, s->family, s->famlen + 1);
	p += s->famlen + 1;
	for (int i = 0; i < s->natts; i++)
		if (s->cols[i].qual != NULL)
		{
			c->cols[i].qual = p;
			memcpy(p, s->cols[i].qual, s->cols[i].quallen + 1);
			p += s->cols[i].quallen + 1;
		}
	return c;
}

/*
 * WideRowShapeGet -- the row form of a foreign table of the wide_rows
 * server: checked against the wide table it names, and allocated in the
 * current memory context (a copy of the backend's cached shape).
 */
WideRowShape *
WideRowShapeGet(Oid relid)
{
	ShapeEntry *e;
	WideRowShape *s;
	uint64		invals;
	bool		by_path;

	if (shape_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(ShapeEntry);
		ctl.hcxt = CacheMemoryContext;
		shape_cache = hash_create("wide row form shapes", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(forget_shapes, (Datum) 0);
	}
	AcceptInvalidationMessages();
	e = hash_search(shape_cache, &relid, HASH_FIND, NULL);
	if (e != NULL && e->by_path &&
		cells_relid(relid, e->cellsname, &by_path) != e->cells)
		forget_shapes((Datum) 0, e->relid);
	else if (e != NULL)
		return shape_copy(e->shape, CurrentMemoryContext);

	invals = shape_invals;
	s = shape_build(relid, &by_path);
	if (shape_invals == invals)
	{
		e = hash_search(shape_cache, &relid, HASH_ENTER, NULL);
		e->cells = s->cells;
		e->by_path = by_path;
		e->cellsname = by_path ?
			MemoryContextStrdup(CacheMemoryContext,
								table_option(GetForeignTable(relid)->options, "cells")) :
			NULL;
		e->shape = shape_copy(s, CacheMemoryContext);
	}
	return s;
}

/*
 * WideRowCellsOpen -- the wide table of a row form, opened with lockmode
 * after checking that the current user has perm on it: the row form
 * reads and writes its cells directly, so it is no way around the wide
 * table's privileges or row level security.
 */
Relation
WideRowCellsOpen(const WideRowShape *shape, LOCKMODE mode, AclMode perm)
{
	Relation	crel = table_open(shape->cells, mode);
	AclResult	acl = pg_class_aclcheck(shape->cells, GetUserId(), perm);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, RelationGetRelationName(crel));
	if (check_enable_rls(shape->cells, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("wide table \"%s\" has row level security: its row form \"%s\" cannot read or write it",
						RelationGetRelationName(crel), get_rel_name(shape->relid)),
				 errdetail("The row form reads cells without the table's policies.")));
	return crel;
}

/* WideRowDigits -- v as width digits (zero-padded) */
void
WideRowDigits(StringInfo buf, uint64 v, int width)
{
	char		digits[24];
	int			n = 0;
	char	   *out;

	do
	{
		digits[n++] = '0' + (v % 10);
		v /= 10;
	} while (v > 0);
	/* (one reservation: a row key has two or three parts of 20 digits) */
	enlargeStringInfo(buf, Max(n, width));
	out = buf->data + buf->len;
	for (int i = n; i < width; i++)
		*out++ = '0';
	while (n > 0)
		*out++ = digits[--n];
	buf->len = out - buf->data;
	*out = '\0';
}

/* WideRowPow10 -- 10^n */
uint64
WideRowPow10(int n)
{
	uint64		v = 1;

	while (n-- > 0)
		v *= 10;
	return v;
}

/* WideRowInt -- an int2, int4 or int8 datum as int64 */
int64
WideRowInt(Datum d, Oid type)
{
	return type == INT2OID ? DatumGetInt16(d) :
		type == INT4OID ? DatumGetInt32(d) : DatumGetInt64(d);
}

/*
 * WideRowKeyPartTry -- append part "part" of a row key for the value d (of
 * type "type": the column's, or for an integer part any integer type) to
 * buf; false, with buf as it was, if no row key holds the value: out of the
 * column's type or width, a time before 1970, infinite or between two units
 * (a key condition with such a value matches no row).
 */
bool
WideRowKeyPartTry(const WideRowShape *shape, int part, Datum d, Oid type,
				  StringInfo buf)
{
	const WideRowPart *p = &shape->parts[part];

	switch (p->kind)
	{
		case WIDE_PART_TEXT:
			{
				const char *s;
				int			len;

				if (type == NAMEOID)	/* text = name, a key condition */
				{
					s = NameStr(*DatumGetName(d));
					len = strlen(s);
				}
				else
				{
					text	   *t = DatumGetTextPP(d);

					s = VARDATA_ANY(t);
					len = VARSIZE_ANY_EXHDR(t);
				}
				for (int i = 0; i < len; i++)
				{
					if (s[i] == shape->sep || s[i] == '\\')
						appendStringInfoChar(buf, '\\');
					appendStringInfoChar(buf, s[i]);
				}
				return true;
			}
		case WIDE_PART_INT:
			{
				int64		v = WideRowInt(d, type);

				if ((p->type == INT2OID && (v < PG_INT16_MIN || v > PG_INT16_MAX)) ||
					(p->type == INT4OID && (v < PG_INT32_MIN || v > PG_INT32_MAX)))
					return false;
				if (p->width == 0)
					WideRowDigits(buf, (uint64) v + ((uint64) 1 << 63), 20);
				else if (v < 0 || (uint64) v >= WideRowPow10(p->width))
					return false;
				else
					WideRowDigits(buf, (uint64) v, p->width);
				return true;
			}
		case WIDE_PART_TIME:
			{
				Timestamp	t = DatumGetTimestamp(d);
				int64		us;
				uint64		v;

				if (TIMESTAMP_NOT_FINITE(t))
					return false;
				us = WideTimestampToUnix(t);
				if (us < 0 || us % p->unit != 0 ||
					(uint64) (us / p->unit) >= WideRowPow10(p->width))
					return false;
				v = (uint64) (us / p->unit);
				WideRowDigits(buf, p->reversed ? WideRowPow10(p->width) - 1 - v : v, p->width);
				return true;
			}
		case WIDE_PART_SALT:
			{
				int64		v = WideRowInt(d, type);

				if (v < 0 || v >= p->buckets)
					return false;
				WideRowDigits(buf, (uint64) v, p->width);
				return true;
			}
	}
	return false;
}

/*
 * WideRowSaltOf -- the salt bucket of an unsalted row key, as wide.salt()
 * computes it: the first four bytes of its md5, big-endian, mod buckets.
 */
int
WideRowSaltOf(const char *key, int len, int buckets)
{
	uint8		sum[MD5_DIGEST_LENGTH];
	const char *errstr = NULL;
	uint32		h;

	if (!pg_md5_binary(key, len, sum, &errstr))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not compute the salt of a row key: %s", errstr)));
	h = ((uint32) sum[0] << 24) | ((uint32) sum[1] << 16) | ((uint32) sum[2] << 8) | sum[3];
	return (int) (h % (uint32) buckets);
}

/*
 * WideRowSaltKey -- prefix the unsalted row key in key with its bucket and
 * the separator (a row form with the salt option).
 */
void
WideRowSaltKey(const WideRowShape *shape, StringInfo key)
{
	const WideRowPart *p = &shape->parts[0];
	StringInfoData b;

	Assert(shape->salt > 0 && p->kind == WIDE_PART_SALT);
	initStringInfo(&b);
	WideRowDigits(&b, (uint64) WideRowSaltOf(key->data, key->len, p->buckets), p->width);
	appendStringInfoChar(&b, shape->sep);
	appendBinaryStringInfo(&b, key->data, key->len);
	resetStringInfo(key);
	appendBinaryStringInfo(key, b.data, b.len);
	pfree(b.data);
}

/*
 * WideRowKeyPart -- append part "part" of a row key, the value d of its
 * column, to buf (the separator is the caller's); a value no key can hold
 * is an error that says why.
 */
void
WideRowKeyPart(const WideRowShape *shape, int part, Datum d, StringInfo buf)
{
	const WideRowPart *p = &shape->parts[part];
	const char *colname;

	if (WideRowKeyPartTry(shape, part, d, p->type, buf))
		return;
	colname = get_attname(shape->relid, p->attnum, false);
	if (p->kind == WIDE_PART_INT)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("key column \"%s\": " INT64_FORMAT " does not fit in %d digits",
						colname, WideRowInt(d, p->type), p->width),
				 errhint("Give the column a larger width, or none for any bigint.")));
	else
	{
		int64		us = WideTimestampToUnix(DatumGetTimestamp(d));

		if (TIMESTAMP_NOT_FINITE(DatumGetTimestamp(d)) || us < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("key column \"%s\": a time before 1970 or infinite cannot be a key part",
							colname)));
		if (us % p->unit != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("key column \"%s\" holds whole %s, not %s", colname,
							p->unit == USECS_PER_SEC ? "seconds" : "milliseconds",
							DatumGetCString(DirectFunctionCall1(timestamptz_out, d))),
					 errhint("Truncate the time, or declare the column with a finer unit (OPTIONS (unit 'ms') or 'us').")));
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("key column \"%s\": the time does not fit in %d digits",
						colname, p->width)));
	}
}

static void key_error(const WideRowShape *shape, const char *key, uint32 len) pg_attribute_noreturn();

static void
key_error(const WideRowShape *shape, const char *key, uint32 len)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("row key \"%s\" of wide table \"%s\" is not a key of its row form \"%s\"",
					pnstrdup(key, Min(len, 200)), get_rel_name(shape->cells),
					get_rel_name(shape->relid)),
			 shape->salt ?
			 errdetail("Its key has %d parts joined by \"%c\", the first its salt (a bucket below %d).",
					   shape->nparts, shape->sep, shape->salt) :
			 errdetail("Its key has %d parts joined by \"%c\".", shape->nparts, shape->sep),
			 errhint("Delete or rewrite the cell through the wide table, e.g. SELECT wide.delete_row('%s', ...).",
					 get_rel_name(shape->cells))));
}

static bool
parse_digits(const char *s, int n, uint64 *v)
{
	*v = 0;
	for (int i = 0; i < n; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

/*
 * WideRowKeyDecode -- the key columns' values of a row key, by attnum - 1;
 * other columns are left alone.  A key that is not of the shape is an
 * error: a row the form cannot show is never skipped without a word.
 */
void
WideRowKeyDecode(const WideRowShape *shape, const char *key, uint32 len,
				 Datum *values, bool *isnull)
{
	WideRowKeyDecodeSince(shape, key, len, 0, values, isnull);
}

/*
 * WideRowKeyDecodeSince -- WideRowKeyDecode of a key whose first "same"
 * bytes are those of the key decoded into values before: an integer or
 * time part that lies in them, with its separator, keeps its value (a row
 * key's host, from one row to the next).
 */
void
WideRowKeyDecodeSince(const WideRowShape *shape, const char *key, uint32 len,
					  uint32 same, Datum *values, bool *isnull)
{
	uint32		pos = 0;

	for (int i = 0; i < shape->nparts; i++)
	{
		const WideRowPart *p = &shape->parts[i];
		bool		last = (i == shape->nparts - 1);
		int			ai = p->attnum - 1;

		if (p->kind == WIDE_PART_TEXT)
		{
			StringInfoData b;
			bool		esc = false;

			initStringInfo(&b);
			while (pos < len)
			{
				char		c = key[pos];

				if (esc)
				{
					appendStringInfoChar(&b, c);
					esc = false;
				}
				else if (c == '\\')
					esc = true;
				else if (c == shape->sep)
					break;
				else
					appendStringInfoChar(&b, c);
				pos++;
			}
			if (esc)
				key_error(shape, key, len);
			values[ai] = PointerGetDatum(cstring_to_text_with_len(b.data, b.len));
		}
		else
		{
			int			w = p->kind == WIDE_PART_INT && p->width == 0 ? 20 : p->width;
			uint64		v;

			if (!last && (uint64) pos + w + 1 <= same)
			{
				/* (checked when those bytes were decoded) */
				pos += w + 1;
				continue;
			}
			if (len - pos < (uint32) w || !parse_digits(key + pos, w, &v))
				key_error(shape, key, len);
			pos += w;
			if (p->kind == WIDE_PART_SALT)
			{
				if (v >= (uint64) p->buckets)
					key_error(shape, key, len);
			}
			else if (p->kind == WIDE_PART_INT)
			{
				int64		n = p->width == 0 ? (int64) (v - ((uint64) 1 << 63)) : (int64) v;

				if (p->type == INT2OID)
				{
					if (n < PG_INT16_MIN || n > PG_INT16_MAX)
						key_error(shape, key, len);
					values[ai] = Int16GetDatum((int16) n);
				}
				else if (p->type == INT4OID)
				{
					if (n < PG_INT32_MIN || n > PG_INT32_MAX)
						key_error(shape, key, len);
					values[ai] = Int32GetDatum((int32) n);
				}
				else
					values[ai] = Int64GetDatum(n);
			}
			else
			{
				if (p->reversed)
					v = WideRowPow10(p->width) - 1 - v;
				if (v > (uint64) (PG_INT64_MAX / p->unit))
					key_error(shape, key, len);
				values[ai] = TimestampGetDatum(WideUnixToTimestamp((int64) v * p->unit));
			}
		}
		if (p->kind != WIDE_PART_SALT)
			isnull[ai] = false;
		if (last)
		{
			if (pos != len)
				key_error(shape, key, len);
		}
		else
		{
			if (pos >= len || key[pos] != shape->sep)
				key_error(shape, key, len);
			pos++;
		}
	}
}

/*
 * WideRowColumnOf -- the attnum of the value column of a qualifier, or 0.
 */
int
WideRowColumnOf(const WideRowShape *shape, const char *qual, uint32 len)
{
	int			lo = 0,
				hi = shape->nvalues - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		const WideRowCol *c = &shape->cols[shape->by_qual[mid] - 1];
		int			cmp = memcmp(c->qual, qual, Min(c->quallen, len));

		if (cmp == 0)
			cmp = (c->quallen > len) - (c->quallen < len);
		if (cmp == 0)
			return shape->by_qual[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;
}

/*
 * WideRowValueIn -- a column's value as a datum of the wide table's value
 * type; WideRowValueOut the reverse.
 */
Datum
WideRowValueIn(const WideRowShape *shape, const WideSchema *schema,
			   const WideRowCol *col, Datum value)
{
	if (!col->binary)
		return value;
	if (col->type == TEXTOID || col->type == VARCHAROID || col->type == BYTEAOID)
		return PointerGetDatum(PG_DETOAST_DATUM_PACKED(DatumGetPointer(value)));
	return PointerGetDatum(OidSendFunctionCall(col->sendfn, value));
}

typedef struct ValueOutContext
{
	const WideRowShape *shape;
	const WideRowCol *col;
} ValueOutContext;

static void
value_out_context(void *arg)
{
	ValueOutContext *c = arg;

	errcontext("a cell of qualifier \"%s\" of wide table \"%s\", read as %s by its row form \"%s\"",
			   c->col->qual, get_rel_name(c->shape->cells),
			   format_type_be(c->col->type), get_rel_name(c->shape->relid));
}

/*
 * (A bytea cell written through the cell form need not be the column
 * type's binary form: its receive function's errors, trailing bytes and
 * text not in the database encoding are errors that name the qualifier.)
 */
Datum
WideRowValueOut(const WideRowShape *shape, const WideSchema *schema,
				const WideRowCol *col, Datum value)
{
	StringInfoData buf;
	bytea	   *b;
	ErrorContextCallback cb;
	ValueOutContext ctx;
	Datum		result;

	if (!col->binary)
		return value;
	b = DatumGetByteaPP(value);
	if (col->type == BYTEAOID)
		return PointerGetDatum(b);
	ctx.shape = shape;
	ctx.col = col;
	cb.callback = value_out_context;
	cb.arg = &ctx;
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	if (col->type == TEXTOID || col->type == VARCHAROID)
	{
		(void) pg_verifymbstr(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), false);
		error_context_stack = cb.previous;
		return PointerGetDatum(b);
	}
	buf.data = VARDATA_ANY(b);
	buf.len = VARSIZE_ANY_EXHDR(b);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	result = OidReceiveFunctionCall(col->recvfn, &buf, col->ioparam, -1);
	if (buf.cursor != buf.len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("incorrect binary data format: %d bytes left over", buf.len - buf.cursor)));
	error_context_stack = cb.previous;
	return result;
}



/* is relid a foreign table of a server of the wide_rows wrapper? */
static bool
is_row_form(Oid relid)
{
	ForeignTable *ft;
	ForeignServer *srv;
	ForeignDataWrapper *fdw;

	if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
		return false;
	ft = GetForeignTable(relid);
	srv = GetForeignServer(ft->serverid);
	fdw = GetForeignDataWrapper(srv->fdwid);
	return strcmp(fdw->fdwname, "wide_rows") == 0;
}

/* refuse a rename of a row form's column whose name is its meaning */
static void
check_rename(RenameStmt *stmt)
{
	Oid			relid;
	AttrNumber	attnum;
	List	   *copts;
	ListCell   *lc;
	const char *key;
	List	   *keycols;

	if (stmt->renameType != OBJECT_COLUMN || stmt->relation == NULL)
		return;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid) || !is_row_form(relid))
		return;
	attnum = get_attnum(relid, stmt->subname);
	if (attnum <= 0)
		return;					/* PostgreSQL's own error follows */
	key = table_option(GetForeignTable(relid)->options, "key");
	if (key != NULL && SplitIdentifierString(pstrdup(key), ',', &keycols))
		foreach(lc, keycols)
			if (strcmp(lfirst(lc), stmt->subname) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot rename key column \"%s\" of row form \"%s\"",
								stmt->subname, get_rel_name(relid)),
						 errdetail("The key option names it: the row form would lose its key."),
						 errhint("Declare the row form again under the new name (DROP FOREIGN TABLE, CREATE FOREIGN TABLE): its cells stay in the wide table.")));
	copts = GetForeignColumnOptions(relid, attnum);
	foreach(lc, copts)
		if (strcmp(lfirst_node(DefElem, lc)->defname, "qualifier") == 0)
			return;				/* pinned: the name is only a name */
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot rename column \"%s\" of row form \"%s\": its name is its qualifier",
					stmt->subname, get_rel_name(relid)),
			 errdetail("After the rename it would show the cells of qualifier \"%s\", not those it shows now.",
					   stmt->newname),
			 errhint("Pin its qualifier first: ALTER FOREIGN TABLE %s ALTER COLUMN %s OPTIONS (ADD qualifier '%s');",
					 quote_identifier(get_rel_name(relid)), quote_identifier(stmt->subname),
					 stmt->subname)));
}

/*
 * WideRowsUtility -- the row form's concern of the utility hook
 * (utility.c): before the statement, refuse a rename of a row form's
 * column whose name is its meaning.
 */
void
WideRowsUtility(WideUtilityCall *call)
{
	if (IsA(call->pstmt->utilityStmt, RenameStmt))
		check_rename((RenameStmt *) call->pstmt->utilityStmt);
	WideUtilityNext(call);
}
