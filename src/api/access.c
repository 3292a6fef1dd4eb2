/*-------------------------------------------------------------------------
 *
 * access.c
 *	  Who may call a wide.* function on a table, and on which values.
 *
 * Every SQL function that names a table opens it through this file, which
 * decides, in this order:
 *
 *	1. The table argument is not NULL (22004).
 *	2. The current user holds every privilege the call uses -- not any one
 *	   of them: SELECT for anything that reads cells or evaluates a
 *	   predicate, INSERT for anything that writes a cell, DELETE for
 *	   anything that writes a delete, ownership for family DDL and
 *	   maintenance (42501).  SELECT and INSERT may also be held on every
 *	   column of the table, as a SELECT * or a full INSERT accepts; a grant
 *	   on some columns only is not enough, since the functions read and
 *	   write whole cells.  DELETE has no column privileges.
 *	   This is checked from the system cache before the table is locked,
 *	   as PostgreSQL's RangeVarGetRelidExtended callbacks do, so a role
 *	   without the right cannot make others wait by queueing a lock; and
 *	   again once the lock is held, in case a REVOKE committed meanwhile.
 *	3. The relation is a wide table (42809).
 *	4. Row-level security: the functions do not evaluate policies, so a
 *	   call that would be subject to them is refused (0A000), as COPY
 *	   refuses; SQL SELECT, INSERT and DELETE apply them.  The table's owner
 *	   (unless FORCE ROW LEVEL SECURITY), superusers and BYPASSRLS roles
 *	   are not subject to policies and may call everything.
 *	5. Writes are refused in a read-only transaction.
 *
 * Keys arriving as bytes (a bytea argument for a text column) are checked
 * to be valid text in the database encoding, without NUL (22021): a text
 * column holding anything else could not be dumped and restored.
 *
 * IDENTIFICATION
 *	  src/api/access.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "am/am.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_check_owner);

/* the name of a table for an error, or fail as relation_open would */
static char *
table_name(Oid relid)
{
	char	   *name = get_rel_name(relid);

	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	return name;
}

/* does the role hold this one privilege on the table or all its columns? */
static bool
has_privilege(Oid relid, Oid roleid, AclMode priv)
{
	bool		missing = false;

	if (pg_class_aclcheck_ext(relid, roleid, priv, &missing) == ACLCHECK_OK)
		return true;
	if (missing)
		(void) table_name(relid);
	if (priv == ACL_SELECT || priv == ACL_INSERT)
		return pg_attribute_aclcheck_all(relid, roleid, priv, ACLMASK_ALL) == ACLCHECK_OK;
	return false;
}

/*
 * WideCheckPrivileges -- fail unless the current user holds every
 * privilege in "need" (ACL_SELECT, ACL_INSERT, ACL_DELETE) on the table.
 */
void
WideCheckPrivileges(Oid relid, AclMode need)
{
	static const AclMode privs[] = {ACL_SELECT, ACL_INSERT, ACL_DELETE};
	Oid			roleid = GetUserId();
	int			i;

	for (i = 0; i < lengthof(privs); i++)
		if ((need & privs[i]) && !has_privilege(relid, roleid, privs[i]))
			aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, table_name(relid));
}

/*
 * WideCheckOwner -- fail unless the current user owns the table (or is a
 * member of its owner role).
 */
void
WideCheckOwner(Oid relid)
{
	char	   *name = table_name(relid);

	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, name);
}

/*
 * WideCheckAnyPrivilege -- fail unless the current user owns the table or
 * holds some privilege on it or on one of its columns (what
 * information_schema asks before showing a column's default).
 */
void
WideCheckAnyPrivilege(Oid relid)
{
	Oid			roleid = GetUserId();
	char	   *name = table_name(relid);

	if (pg_class_ownercheck(relid, roleid) ||
		pg_class_aclmask(relid, roleid, ACL_ALL_RIGHTS_RELATION, ACLMASK_ANY) != 0 ||
		pg_attribute_aclcheck_all(relid, roleid,
								  ACL_SELECT | ACL_INSERT | ACL_UPDATE | ACL_REFERENCES,
								  ACLMASK_ANY) == ACLCHECK_OK)
		return;
	aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, name);
}

/*
 * WideTableArg -- the regclass argument naming the table; NULL is an error.
 */
Oid
WideTableArg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table cannot be NULL")));
	return PG_GETARG_OID(argno);
}

/*
 * WideOpenWide -- open a relation and check it is a wide table.
 */
Relation
WideOpenWide(Oid relid, LOCKMODE lockmode)
{
	Relation	rel = relation_open(relid, lockmode);

	if (rel->rd_rel->relkind != RELKIND_RELATION ||
		rel->rd_tableam != WideTableAmRoutine())
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a wide table", RelationGetRelationName(rel)),
				 errhint("Create it with CREATE TABLE ... USING wide.")));
	return rel;
}

/* refuse a call that row-level security policies would apply to */
static void
refuse_rls(const char *fname, Relation rel)
{
	if (check_enable_rls(RelationGetRelid(rel), InvalidOid, false) == RLS_ENABLED)
	{

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 fname ? errmsg("wide.%s() is not supported with row-level security", fname) :
				 errmsg("wide functions are not supported with row-level security"),
				 errdetail("Row-level security policies of table \"%s\" apply to role \"%s\", and the wide functions do not evaluate policies.",
						   RelationGetRelationName(rel),
						   GetUserNameFromId(GetUserId(), false)),
				 errhint("Use SELECT, INSERT or DELETE statements, which apply the policies.")));
	}
}

/*
 * WideOpenTable -- open a wide table for a function call that needs the
 * privileges "need" (ACL_SELECT, ACL_INSERT, ACL_DELETE), checked before
 * and after taking "lockmode"; refused under row-level security, and for
 * writes in a read-only transaction.
 */
Relation
WideOpenTable(FunctionCallInfo fcinfo, Oid relid, AclMode need, LOCKMODE lockmode)
{
	Relation	rel;

	WideCheckPrivileges(relid, need);
	rel = WideOpenWide(relid, lockmode);
	WideCheckPrivileges(relid, need);
	refuse_rls(fcinfo ? get_func_name(fcinfo->flinfo->fn_oid) : NULL, rel);
	if (need & (ACL_INSERT | ACL_DELETE))
		PreventCommandIfReadOnly("a wide mutation");
	return rel;
}

/*
 * WideOpenTableKey -- WideOpenTable for a call on one row, whose key is
 * argument "keyarg": a parent of tablets (tablets.c) is opened as the
 * tablet that holds the key, with the parent's privileges and policies.
 * For a remote tablet the call has run on its node: NULL is returned and
 * the caller returns WideRemoteResult (fcinfo->isnull is set).
 */
Relation
WideOpenTableKey(FunctionCallInfo fcinfo, Oid relid, AclMode need,
				 LOCKMODE lockmode, int keyarg)
{
	Relation	parent;
	const char *key;
	uint32		keylen;
	Oid			leaf;

	if (!WideTabletParent(relid))
		return WideOpenTable(fcinfo, relid, need, lockmode);
	WideCheckPrivileges(relid, need);
	parent = relation_open(relid, lockmode);
	WideCheckPrivileges(relid, need);
	refuse_rls(fcinfo ? get_func_name(fcinfo->flinfo->fn_oid) : NULL, parent);
	if (need & (ACL_INSERT | ACL_DELETE))
		PreventCommandIfReadOnly("a wide mutation");
	if (PG_ARGISNULL(keyarg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("row key cannot be NULL")));
	WideArgBytes(fcinfo, keyarg, "row_key", &key, &keylen);
	leaf = WideTabletForKey(parent, key, keylen, lockmode, false);
	relation_close(parent, NoLock);
	if (get_rel_relkind(leaf) == RELKIND_FOREIGN_TABLE)
	{
		/* a remote tablet: the function runs on its node (remote.c) */
		if (fcinfo == NULL || get_func_retset(fcinfo->flinfo->fn_oid))
			WideRefuseRemote(leaf);
		WideRemoteResult = WideRemoteCall(fcinfo, leaf);
		return NULL;
	}
	return WideOpenWide(leaf, lockmode);
}

/*
 * WideOpenParent -- open a parent of tablets for a call that needs "need"
 * on it (its tablets are opened by the caller, WideTablets() or
 * WideTabletForKey(), without checks of their own).
 */
Relation
WideOpenParent(FunctionCallInfo fcinfo, const char *fname, Oid relid,
			   AclMode need, LOCKMODE lockmode)
{
	Relation	parent;

	WideCheckPrivileges(relid, need);
	parent = relation_open(relid, lockmode);
	WideCheckPrivileges(relid, need);
	refuse_rls(fname ? fname : fcinfo ? get_func_name(fcinfo->flinfo->fn_oid) : NULL,
			   parent);
	if (need & (ACL_INSERT | ACL_DELETE))
		PreventCommandIfReadOnly("a wide mutation");
	return parent;
}

/*
 * WideOpenTableRead -- WideOpenTable for a read that is not a function
 * call, but plays one (the Read Rows scan of wide.<fname>()).
 */
Relation
WideOpenTableRead(const char *fname, Oid relid, LOCKMODE lockmode)
{
	Relation	rel;

	WideCheckPrivileges(relid, ACL_SELECT);
	rel = WideOpenWide(relid, lockmode);
	WideCheckPrivileges(relid, ACL_SELECT);
	refuse_rls(fname, rel);
	return rel;
}

/*
 * WideOpenOwned -- open a wide table for maintenance by its owner,
 * checked before and after taking "lockmode".
 */
Relation
WideOpenOwned(Oid relid, LOCKMODE lockmode)
{
	Relation	rel;

	WideCheckOwner(relid);
	rel = WideOpenWide(relid, lockmode);
	WideCheckOwner(relid);
	return rel;
}

/* the privilege one JSON mutation needs: its one key names its kind */
static AclMode
mutation_privilege(JsonbValue *m)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbIteratorToken tok;
	AclMode		need = 0;

	if (m->type != jbvBinary || !JsonContainerIsObject(m->val.binary.data))
		return 0;				/* rejected when the mutation is built */
	it = JsonbIteratorInit(m->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			if (k.val.string.len >= 7 &&
				strncmp(k.val.string.val, "delete_", 7) == 0)
				need |= ACL_DELETE;
			else
				need |= ACL_INSERT;
		}
	return need;
}

/*
 * WideMutationsPrivileges -- the privileges a JSON array of mutations
 * needs (INSERT for set_cell, add_to_cell and merge_to_cell, DELETE for
 * the deletes), read before the table is opened; anything malformed is
 * left for the parser of the mutations to reject.
 */
AclMode
WideMutationsPrivileges(JsonbContainer *arr)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	AclMode		need = 0;

	if (arr == NULL || !JsonContainerIsArray(arr) || JsonContainerIsScalar(arr))
		return 0;
	it = JsonbIteratorInit(arr);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		if (tok == WJB_ELEM)
			need |= mutation_privilege(&e);
	return need;
}

/*
 * WideCellsPrivileges -- the privileges writing these records needs.
 */
AclMode
WideCellsPrivileges(const WideCell *cells, int n)
{
	AclMode		need = 0;
	int			i;

	for (i = 0; i < n; i++)
		need |= WIDE_KIND_IS_TOMBSTONE(cells[i].kind) ? ACL_DELETE : ACL_INSERT;
	return need;
}

/*
 * WideCheckText -- fail unless bytes meant for a column of type "type" are
 * valid there: for a text column, valid in the database encoding and
 * without NUL, as text input functions ensure.  Bytea takes anything.
 */
void
WideCheckText(Oid type, const char *p, uint32 len, const char *what)
{
	int			valid;

	if (type == BYTEAOID)
		return;
	valid = pg_encoding_verifymbstr(GetDatabaseEncoding(), p, (int) len);
	if (valid == (int) len && memchr(p, '\0', len) == NULL)
		return;
	if (valid == (int) len)
		valid = (const char *) memchr(p, '\0', len) - p;
	ereport(ERROR,
			(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
			 errmsg("%s is not valid text in encoding \"%s\"", what,
					GetDatabaseEncodingName()),
			 p[valid] == '\0' ?
			 errdetail("Text cannot hold the byte 0x00 (at offset %d).", valid) :
			 errdetail("The bytes from offset %d (0x%02x) are not a valid character.",
					   valid, (unsigned char) p[valid]),
			 strcmp(what, "family") == 0 ? 0 :
			 errhint("Column %s has type text; to store arbitrary bytes, declare it bytea.",
					 what)));
}

/*
 * WideCheckCellText -- WideCheckText for the key and qualifier of a record
 * about to be written.
 */
void
WideCheckCellText(const WideSchema *schema, const WideCell *cell)
{
	WideCheckText(schema->keytype, cell->key, cell->keylen, "row_key");
	WideCheckText(schema->qualtype, cell->qual, cell->quallen, "qualifier");
	WideCheckText(TEXTOID, cell->family, cell->famlen, "family");
}

/*
 * WideCheckFamilyOwner -- for the family and tablet functions: fail unless
 * the current user owns the table, before it is locked, and it is a wide
 * table or has the columns of one.
 */
void
WideCheckFamilyOwner(Oid relid)
{
	WideCheckOwner(relid);
	if (!WideRelationIsWide(relid))
	{
		/* a table with the wide columns may get families before moving in */
		Relation	rel = relation_open(relid, AccessShareLock);
		bool		ok = (rel->rd_rel->relkind == RELKIND_RELATION ||
						  rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE) &&
			WideHasTableShape(rel);

		relation_close(rel, AccessShareLock);
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a wide table", table_name(relid)),
					 errhint("Create it with CREATE TABLE ... USING wide, or give a table the columns (row_key, family, qualifier, ts, value) to prepare it for ALTER TABLE ... SET ACCESS METHOD wide.")));
	}
}

/*
 * wide_internal._check_owner(tbl regclass) -- WideCheckFamilyOwner, for the
 * tablet operations in SQL (not executable by PUBLIC).
 */
Datum
wide_check_owner(PG_FUNCTION_ARGS)
{
	WideCheckFamilyOwner(WideTableArg(fcinfo, 0));
	PG_RETURN_VOID();
}
