/*-------------------------------------------------------------------------
 *
 * movein.c
 *	  Moving a table into wide: ALTER TABLE ... SET ACCESS METHOD wide and
 *	  CREATE TABLE ... USING wide AS SELECT (issue 12).
 *
 * Both fill a table created in the same statement, which has no family
 * catalog yet (the catalog is the default of the "family" column, and
 * PostgreSQL does not copy defaults into a rewrite's new table).
 *
 *	- A table that already has a catalog keeps it: wide.create_family works
 *	  on a heap table with the five wide columns, and the new table of the
 *	  rewrite reads its catalog from the table being rewritten
 *	  (WideRewriteSource, schema.c).  A cell of a family not in it fails the
 *	  statement, which leaves the table as it was.
 *	- A table without a catalog gets its families from the data: while the
 *	  statement runs, a family name the new table does not know is given the
 *	  next incarnation id, in order of first appearance; when the statement
 *	  has finished, wide.create_family creates them in that order (so with
 *	  the same ids), with the default policy: no GC (every version kept,
 *	  like a Bigtable family created without a GC rule), not an aggregate.
 *	  Change the policies afterwards with wide.alter_family.
 *
 * IDENTIFICATION
 *	  src/am/movein.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parse_type.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "engine/schema.h"
#include "engine/catalog.h"
#include "am/am.h"
#include "am/utility.h"

/* the families a moving-in statement found, in order of appearance */
typedef struct MoveIn
{
	Oid			relid;			/* the table written, once known */
	int			nfams;
	int			maxfams;
	WideFamily *fams;
} MoveIn;

static MoveIn *movein = NULL;	/* the running statement's, or NULL */

/* is this a valid family name (as wide_internal._family_doc checks)? */
static bool
family_name_ok(const char *name, uint32 len)
{
	uint32		i;

	if (len == 0 || len > WIDE_MAX_FAMILY_NAME)
		return false;
	for (i = 0; i < len; i++)
	{
		char		c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
			return false;
	}
	return true;
}

/*
 * WideMoveInFamily -- for a write into a table without a family catalog
 * that a moving-in statement created: the family of that name, created on
 * first sight.  NULL if no such statement runs.
 */
const WideFamily *
WideMoveInFamily(Relation rel, const WideSchema *schema, const char *name,
				 uint32 len)
{
	WideFamily *f;
	int			i;

	if (movein == NULL || schema->has_catalog ||
		rel->rd_createSubid == InvalidSubTransactionId)
		return NULL;
	/* only the table the statement fills (the first one written) */
	if (!OidIsValid(movein->relid))
		movein->relid = RelationGetRelid(rel);
	else if (movein->relid != RelationGetRelid(rel))
		return NULL;
	for (i = 0; i < movein->nfams; i++)
		if (movein->fams[i].namelen == (int) len &&
			memcmp(movein->fams[i].name, name, len) == 0)
			return &movein->fams[i];
	if (!family_name_ok(name, len))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid column family name \"%.*s\"", (int) len, name),
				 errdetail("A family name is 1 to 64 characters from [-_.a-zA-Z0-9]; moving into wide creates a family for every distinct value of the family column.")));
	if (movein->nfams == movein->maxfams)
	{
		movein->maxfams *= 2;
		movein->fams = repalloc(movein->fams, sizeof(WideFamily) * movein->maxfams);
	}
	f = &movein->fams[movein->nfams++];
	memset(f, 0, sizeof(WideFamily));
	memcpy(f->name, name, len);
	f->namelen = len;
	f->id = movein->nfams;		/* the ids create_family gives, from 1 */
	f->aggregate = WIDE_AGG_NONE;
	return f;
}

/* the relation a moving-in statement fills (created or rewritten), or NULL */
static RangeVar *
movein_target(Node *stmt)
{
	if (IsA(stmt, CreateTableAsStmt))
	{
		CreateTableAsStmt *ctas = (CreateTableAsStmt *) stmt;

		if (ctas->objtype == OBJECT_TABLE && !ctas->into->skipData)
			return ctas->into->rel;
	}
	else if (IsA(stmt, AlterTableStmt))
	{
		AlterTableStmt *alter = (AlterTableStmt *) stmt;
		ListCell   *lc;

		foreach(lc, alter->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

			if (cmd->subtype == AT_SetAccessMethod && cmd->name != NULL &&
				strcmp(cmd->name, "wide") == 0)
				return alter->relation;
		}
	}
	return NULL;
}

/*
 * the first of a parent's three key columns (row_key, family, qualifier)
 * that is text without the "C" collation, which a wide partition's keys
 * have; InvalidAttrNumber if none
 */
static AttrNumber
non_c_key_column(Oid parentid)
{
	for (AttrNumber attno = 1; attno <= 3; attno++)
	{
		Oid			typid;
		int32		typmod;
		Oid			collid;

		if (get_attname(parentid, attno, true) == NULL)
			break;
		get_atttypetypmodcoll(parentid, attno, &typid, &typmod, &collid);
		if (typid == TEXTOID && collid != C_COLLATION_OID)
			return attno;
	}
	return InvalidAttrNumber;
}

/*
 * check_partition -- a partition USING wide of a table whose key columns
 * do not use the "C" collation would be created with "C" key columns (the
 * access method sets them, schema.c) and then fail every query through the
 * parent ("does not match parent's collation"): refuse it at once.
 */
static void
check_partition(Node *stmt)
{
	CreateStmt *create;
	Oid			parentid;
	AttrNumber	attno;

	if (!IsA(stmt, CreateStmt))
		return;
	create = (CreateStmt *) stmt;
	if (create->partbound == NULL || list_length(create->inhRelations) != 1)
		return;
	if (create->accessMethod != NULL ? strcmp(create->accessMethod, "wide") != 0 :
		strcmp(default_table_access_method, "wide") != 0)
		return;
	parentid = RangeVarGetRelid(linitial_node(RangeVar, create->inhRelations),
								NoLock, true);
	if (!OidIsValid(parentid))
		return;
	attno = non_c_key_column(parentid);
	if (attno != InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("column \"%s\" of partitioned table \"%s\" must use the \"C\" collation to have wide partitions",
						get_attname(parentid, attno, false), get_rel_name(parentid)),
				 errdetail("The text key columns of a wide table use the \"C\" collation, so that SQL order is the stored bytewise order, and a partition's collations must be its parent's."),
				 errhint("Declare the parent's row_key, family and qualifier with COLLATE \"C\".")));
}

/*
 * check_attach -- ALTER TABLE ... ATTACH PARTITION of a wide table to a
 * parent whose key columns do not use the "C" collation (a wide table's
 * keys do) would fail with PostgreSQL's "different collation" error: say
 * what to write instead.
 */
static void
check_attach(Node *stmt)
{
	AlterTableStmt *alter;
	ListCell   *lc;

	if (!IsA(stmt, AlterTableStmt))
		return;
	alter = (AlterTableStmt *) stmt;
	foreach(lc, alter->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		PartitionCmd *part;
		Oid			parentid;
		Oid			partid;
		AttrNumber	attno;

		if (cmd->subtype != AT_AttachPartition || cmd->def == NULL ||
			!IsA(cmd->def, PartitionCmd))
			continue;
		part = (PartitionCmd *) cmd->def;
		parentid = RangeVarGetRelid(alter->relation, NoLock, true);
		partid = RangeVarGetRelid(part->name, NoLock, true);
		if (!OidIsValid(parentid) || !OidIsValid(partid) ||
			!WideRelationIsWide(partid))
			continue;
		attno = non_c_key_column(parentid);
		if (attno != InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" of partitioned table \"%s\" must use the \"C\" collation to have wide partitions",
							get_attname(parentid, attno, false), get_rel_name(parentid)),
					 errdetail("The text key columns of wide table \"%s\" use the \"C\" collation, so that SQL order is the stored bytewise order.",
							   get_rel_name(partid)),
					 errhint("Declare the parent's row_key, family and qualifier with COLLATE \"C\" (ALTER TABLE %s ALTER COLUMN row_key TYPE text COLLATE \"C\", ...).",
							 get_rel_name(parentid))));
	}
}

/* has the relation no blocks at all (a wide table never written)? */
static bool
relation_is_empty(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	bool		empty = RelationGetNumberOfBlocks(rel) == 0;

	relation_close(rel, AccessShareLock);
	return empty;
}

/*
 * check_alter_type -- ALTER TABLE ... ALTER COLUMN ... TYPE of a wide table
 * to another type: its rewrite would read the stored cells with the new
 * type (a scan decodes them with the table's descriptor), so refuse it
 * unless the table has never been written.  (A change of collation only is
 * fine.)
 */
static void
check_alter_type(Node *stmt)
{
	AlterTableStmt *alter;
	Oid			relid;
	ListCell   *lc;

	if (!IsA(stmt, AlterTableStmt))
		return;
	alter = (AlterTableStmt *) stmt;
	if (alter->objtype != OBJECT_TABLE)
		return;
	foreach(lc, alter->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		ColumnDef  *def;
		AttrNumber	attno;
		Oid			typid;
		int32		typmod;

		if (cmd->subtype != AT_AlterColumnType || cmd->name == NULL)
			continue;
		relid = RangeVarGetRelid(alter->relation, NoLock, true);
		if (!OidIsValid(relid) || !WideRelationIsWide(relid))
			return;
		attno = get_attnum(relid, cmd->name);
		def = (ColumnDef *) cmd->def;
		if (attno == InvalidAttrNumber || def == NULL || def->typeName == NULL)
			continue;
		typenameTypeIdAndMod(NULL, def->typeName, &typid, &typmod);
		if (typid != get_atttype(relid, attno) && !relation_is_empty(relid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot change the type of column \"%s\" of wide table \"%s\"",
							cmd->name, get_rel_name(relid)),
					 errdetail("Cells are stored in the binary form of the column's type."),
					 errhint("Create a wide table with the new type, create its families, and copy the cells with INSERT ... SELECT and a cast.")));
	}
}

/* create the families found, in order, on the table (a wide one now) */
static void
create_families(Oid relid, MoveIn *m)
{
	int			i;

	if (m->nfams == 0 || !OidIsValid(relid) || !WideRelationIsWide(relid))
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (i = 0; i < m->nfams; i++)
	{
		Oid			types[2] = {REGCLASSOID, TEXTOID};
		Datum		args[2];

		args[0] = ObjectIdGetDatum(relid);
		args[1] = PointerGetDatum(cstring_to_text_with_len(m->fams[i].name,
														   m->fams[i].namelen));
		if (SPI_execute_with_args("SELECT wide.create_family($1, $2)", 2, types,
								  args, NULL, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not create column family \"%s\"", m->fams[i].name);
	}
	SPI_finish();
}

/*
 * is key column attno of relid text with the database's default collation,
 * and not given another type by cmds (an ALTER TABLE's)?  Its name and
 * typmod into *name and *typmod.
 */
static bool
key_column_needs_c(Oid relid, AttrNumber attno, List *cmds, char **name,
				   int32 *typmod)
{
	Oid			typid;
	Oid			collid;
	ListCell   *lc;

	*name = get_attname(relid, attno, true);
	if (*name == NULL)
		return false;			/* (nor has it a later column) */
	get_atttypetypmodcoll(relid, attno, &typid, typmod, &collid);
	if (typid != TEXTOID || collid != DEFAULT_COLLATION_OID)
		return false;
	foreach(lc, cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_AlterColumnType && cmd->name != NULL &&
			strcmp(cmd->name, *name) == 0)
			return false;
	}
	return true;
}

/*
 * needs_c_collation -- does ALTER TABLE ... SET ACCESS METHOD wide of this
 * table have to give a text key column the "C" collation, as CREATE TABLE
 * ... USING wide does (one with the database's default collation, not
 * altered by the statement itself)?
 */
static bool
needs_c_collation(Oid relid, Node *stmt)
{
	for (AttrNumber attno = 1; attno <= 3; attno++)
	{
		char	   *name;
		int32		typmod;

		if (key_column_needs_c(relid, attno, ((AlterTableStmt *) stmt)->cmds,
							   &name, &typmod))
			return true;
	}
	return false;
}

/*
 * add_c_collation -- add ALTER COLUMN ... TYPE text COLLATE "C" for those
 * columns to the statement (one rewrite does both).
 */
static void
add_c_collation(Oid relid, AlterTableStmt *alter)
{
	List	   *cmds = NIL;

	for (AttrNumber attno = 1; attno <= 3; attno++)
	{
		int32		typmod;
		char	   *name;
		AlterTableCmd *cmd;
		ColumnDef  *def;
		CollateClause *coll;

		if (!key_column_needs_c(relid, attno, alter->cmds, &name, &typmod))
			continue;
		coll = makeNode(CollateClause);
		coll->arg = NULL;
		coll->collname = list_make1(makeString("C"));
		coll->location = -1;
		def = makeColumnDef(name, TEXTOID, typmod, InvalidOid);
		def->collClause = coll;
		cmd = makeNode(AlterTableCmd);
		cmd->subtype = AT_AlterColumnType;
		cmd->name = name;
		cmd->def = (Node *) def;
		cmds = lappend(cmds, cmd);
	}
	alter->cmds = list_concat(cmds, alter->cmds);
}

/* run the statement with m collecting the families it finds */
static void
call_next_moving_in(MoveIn *m, WideUtilityCall *call)
{
	MoveIn	   *volatile outer = movein;

	movein = m;
	PG_TRY();
	{
		WideUtilityNext(call);
	}
	PG_FINALLY();
	{
		movein = outer;
	}
	PG_END_TRY();
}

/*
 * WideMoveInUtility -- the second concern of a utility statement
 * (am/utility.c): the checks of statements that make or change wide
 * partitions and key columns, the "C" collation of the key columns of a
 * table moved in, and the families of one without a catalog.
 */
void
WideMoveInUtility(WideUtilityCall *call)
{
	PlannedStmt *pstmt = call->pstmt;
	RangeVar   *target = movein_target(pstmt->utilityStmt);
	MoveIn		m;
	Oid			relid = InvalidOid;

	check_partition(pstmt->utilityStmt);
	check_attach(pstmt->utilityStmt);
	check_alter_type(pstmt->utilityStmt);
	if (target != NULL && IsA(pstmt->utilityStmt, AlterTableStmt))
	{
		relid = RangeVarGetRelid(target, NoLock, true);
		if (OidIsValid(relid) && needs_c_collation(relid, pstmt->utilityStmt))
		{
			if (call->readOnlyTree)
			{
				pstmt = call->pstmt = copyObject(pstmt);
				call->readOnlyTree = false;
			}
			add_c_collation(relid, (AlterTableStmt *) pstmt->utilityStmt);
			target = movein_target(pstmt->utilityStmt);
		}
		/* the families of a table that has a catalog are those */
		if (!OidIsValid(relid) || WideCatalogDocumentOf(relid) != NULL)
			target = NULL;
	}
	if (target == NULL)
	{
		WideUtilityNext(call);
		return;
	}

	m.relid = InvalidOid;
	m.nfams = 0;
	m.maxfams = 8;
	m.fams = palloc(sizeof(WideFamily) * m.maxfams);
	call_next_moving_in(&m, call);
	if (!OidIsValid(relid))
		relid = RangeVarGetRelid(target, NoLock, true);
	create_families(relid, &m);
	pfree(m.fams);
}

