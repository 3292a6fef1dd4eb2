/*-------------------------------------------------------------------------
 *
 * publication.c
 *	  No silent loss: keeping wide tables out of publications.
 *
 * A wide table's writes are Generic WAL page images and deltas, which
 * logical decoding cannot turn into changes.  A publication that includes
 * a wide table would therefore be accepted and replicate none of its cells.
 * Until wide tables can be decoded:
 *
 *	- a wide table that a publication would include by name, through a
 *	  published partitioned ancestor, or through a published schema is an
 *	  error, whichever statement makes it so: CREATE/ALTER PUBLICATION,
 *	  CREATE TABLE [AS] ... USING wide, ALTER TABLE ... SET ACCESS METHOD,
 *	  SET SCHEMA, ATTACH PARTITION, CREATE TABLE ... PARTITION OF;
 *	- a write to a wide table that a publication includes all the same (see
 *	  below) fails: WideCheckNotPublished;
 *	- a FOR ALL TABLES publication only gets a WARNING, when it is created
 *	  while wide tables exist and when a wide table appears while it exists:
 *	  refusing would make wide unusable on any cluster that has one.
 *
 * The object access hook notes what a statement created or altered (a
 * publication, a publication's table or schema, a relation); the checks run
 * on the catalogs as the statement left them, at the end of the statement
 * (am/utility.c) or, when the library was loaded during the statement
 * and so missed its start, just before commit.
 *
 * The hooks exist only in backends that have loaded the library.  Opening a
 * wide table loads it (the relcache calls the access method's handler), so
 * naming a wide table, or creating one, is always caught.  A backend that
 * has not touched any wide table can still publish a schema holding one or
 * a partitioned table with wide partitions (FOR TABLE ONLY), attach a wide
 * partition, or create a FOR ALL TABLES publication, unchecked: the write
 * check then refuses every write to the table, so no cell is lost silently.
 * Setting session_preload_libraries or shared_preload_libraries to 'wide'
 * closes the gap at DDL time (docs/sql.md).
 *
 * A parent of tablets with a remote tablet (a foreign-table partition, its
 * cells written on another node) is never published, decodable or not:
 * the node's writes are not in this server's WAL, so a subscriber would get
 * the initial copy and then only the local tablets' changes.  Refused:
 * CREATE/ALTER PUBLICATION that would include such a parent (by name, by
 * its schema, FOR ALL TABLES), and making a remote tablet of a published
 * parent (CREATE FOREIGN TABLE ... PARTITION OF, ATTACH PARTITION, and
 * wide.move_tablet to a node, which checks first: WideRefusePublishedRemote).
 *
 * IDENTIFICATION
 *	  src/am/publication.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_publication.h"
#include "catalog/pg_publication_namespace.h"
#include "catalog/pg_publication_rel.h"
#include "commands/defrem.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "engine/schema.h"
#include "engine/writearea.h"
#include "am/am.h"
#include "am/publication.h"
#include "am/cdc.h"
#include "am/utility.h"

/* what a statement did that may put a wide table into a publication */
typedef enum PendingKind
{
	PENDING_PUBLICATION,		/* a publication was created */
	PENDING_PUBLICATION_REL,	/* a table was added to a publication */
	PENDING_PUBLICATION_NSP,	/* a schema was added to a publication */
	PENDING_RELATION			/* a relation was created or altered */
} PendingKind;

typedef struct PendingCheck
{
	PendingKind kind;
	Oid			pubid;			/* the publication, if any */
	Oid			objid;			/* the relation or schema */
	Oid			rowid;			/* pg_publication_rel/_namespace row */
	bool		became_wide;	/* relation: newly a wide table */
} PendingCheck;

/* in TopTransactionContext; reset at the end of each transaction */
static List *pending = NIL;

/* write checks: relid -> publication that includes it, or InvalidOid */
typedef struct WriteCheck
{
	Oid			relid;
	Oid			pubid;
} WriteCheck;

static HTAB *write_checks = NULL;

/* note a check for the end of the statement */
static void
add_pending(PendingKind kind, Oid pubid, Oid objid, Oid rowid,
			bool became_wide)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	PendingCheck *p = palloc(sizeof(PendingCheck));

	p->kind = kind;
	p->pubid = pubid;
	p->objid = objid;
	p->rowid = rowid;
	p->became_wide = became_wide;
	pending = lappend(pending, p);
	MemoryContextSwitchTo(old);
}

/* is this permanent relation a wide table (publications skip the others) */
static bool
is_publishable_wide(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_RELATION &&
		get_rel_persistence(relid) == RELPERSISTENCE_PERMANENT &&
		WideRelationIsWide(relid);
}

/* the wide tables among relid and, for a partitioned table, its partitions */
static List *
wide_leaves(Oid relid)
{
	List	   *result = NIL;
	char		relkind = get_rel_relkind(relid);
	ListCell   *lc;

	if (relkind == RELKIND_RELATION)
	{
		if (is_publishable_wide(relid))
			result = list_make1_oid(relid);
	}
	else if (relkind == RELKIND_PARTITIONED_TABLE)
	{
		foreach(lc, find_all_inheritors(relid, NoLock, NULL))
		{
			if (is_publishable_wide(lfirst_oid(lc)))
				result = lappend_oid(result, lfirst_oid(lc));
		}
	}
	return result;
}

/* the wide tables among a list of relation OIDs, without repeats */
static List *
wide_among(List *relids)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, relids)
	{
		if (is_publishable_wide(lfirst_oid(lc)))
			result = list_append_unique_oid(result, lfirst_oid(lc));
	}
	return result;
}

/* qsort comparator for names */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* "a", "s.b", "c": sorted, so that messages do not depend on catalog order */
static char *
quoted_names(List *relids)
{
	StringInfoData buf;
	char	  **names = palloc(sizeof(char *) * list_length(relids));
	int			n = 0;
	int			i;
	ListCell   *lc;

	/* qualified by the schema unless the search path finds the table */
	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);
		char	   *name = get_rel_name(relid);
		char	   *nspname = get_namespace_name(get_rel_namespace(relid));

		if (name == NULL)
			names[n++] = "?";
		else if (RelationIsVisible(relid) || nspname == NULL)
			names[n++] = name;
		else
			names[n++] = psprintf("%s.%s", nspname, name);
	}
	qsort(names, n, sizeof(char *), cmp_names);
	initStringInfo(&buf);
	for (i = 0; i < n; i++)
		appendStringInfo(&buf, "%s\"%s\"", i > 0 ? ", " : "", names[i]);
	return buf.data;
}

/* refuse: publication pubid would include the wide tables relids */
static void
refuse(Oid pubid, List *relids)
{
	int			n = list_length(relids);
	char	   *pubname;

	/* decodable: the library is preloaded (am/cdc.c) */
	if (WideCdcAvailable())
		return;
	pubname = get_publication_name(pubid, true);
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg_plural("cannot publish wide table %s",
						   "cannot publish wide tables %s",
						   n, quoted_names(relids)),
			 errdetail_plural("Publication \"%s\" would include it, but logical decoding reads changes to wide tables only when the server loads wide by shared_preload_libraries: its subscribers would silently miss every change to the table after the initial copy.",
							  "Publication \"%s\" would include them, but logical decoding reads changes to wide tables only when the server loads wide by shared_preload_libraries: its subscribers would silently miss every change to the tables after the initial copy.",
							  n, pubname ? pubname : "?"),
			 errhint("Add wide to shared_preload_libraries and restart the server, or publish the other tables by name or by a schema without wide tables.")));
}

/* warn: FOR ALL TABLES publication pubname leaves out the wide tables relids */
static void
warn_all_tables(const char *pubname, List *relids)
{
	int			n = list_length(relids);

	if (WideCdcAvailable())
		return;
	ereport(WARNING,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg_plural("publication \"%s\" does not replicate wide table %s",
						   "publication \"%s\" does not replicate wide tables %s",
						   n, pubname, quoted_names(relids)),
			 errdetail("Logical decoding reads changes to wide tables only when the server loads wide by shared_preload_libraries: subscribers of a FOR ALL TABLES publication get at most their initial copy, never their changes."),
			 errhint("Add wide to shared_preload_libraries and restart the server.")));
}

/* a publication other than FOR ALL TABLES that includes this wide table */
static Oid
covering_publication(Oid relid)
{
	List	   *rels = list_make1_oid(relid);
	ListCell   *lc;

	if (get_rel_relispartition(relid))
		rels = list_concat(rels, get_partition_ancestors(relid));
	foreach(lc, rels)
	{
		Oid			r = lfirst_oid(lc);
		List	   *pubs = GetRelationPublications(r);

		if (pubs == NIL)
			pubs = GetSchemaPublications(get_rel_namespace(r));
		if (pubs != NIL)
			return linitial_oid(pubs);
	}
	return InvalidOid;
}

/* a relcache invalidation: publication membership may have changed */
static void
forget_write_checks(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	WriteCheck *wc;

	if (write_checks == NULL)
		return;
	if (OidIsValid(relid))
	{
		hash_search(write_checks, &relid, HASH_REMOVE, NULL);
		return;
	}
	hash_seq_init(&status, write_checks);
	while ((wc = hash_seq_search(&status)) != NULL)
		hash_search(write_checks, &wc->relid, HASH_REMOVE, NULL);
}

/*
 * WideCheckNotPublished -- refuse a write to a wide table that a publication
 * includes: the backstop for what the DDL checks could not see (a backend
 * that had not loaded wide, or a publication older than these checks).
 * Called by every write path (write area, COPY runs); the answer is cached
 * per relation until a relcache invalidation, which publication changes
 * send for every table they cover.
 */
void
WideCheckNotPublished(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	WriteCheck *wc;
	Oid			pubid;
	bool		found;

	if (rel->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT ||
		WideCdcAvailable())
		return;
	if (write_checks == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(WriteCheck);
		ctl.hcxt = CacheMemoryContext;
		write_checks = hash_create("wide publication write checks", 64, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(forget_write_checks, (Datum) 0);
	}
	wc = hash_search(write_checks, &relid, HASH_FIND, NULL);
	if (wc != NULL)
		pubid = wc->pubid;
	else
	{
		pubid = covering_publication(relid);
		wc = hash_search(write_checks, &relid, HASH_ENTER, &found);
		wc->pubid = pubid;
	}
	if (OidIsValid(pubid))
	{
		char	   *pubname = get_publication_name(pubid, true);

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot write to wide table %s",
						quoted_names(list_make1_oid(relid))),
				 errdetail("Publication \"%s\" includes it, but logical decoding reads changes to wide tables only when the server loads wide by shared_preload_libraries: its subscribers would silently miss this change.",
						   pubname ? pubname : "?"),
				 errhint("Add wide to shared_preload_libraries and restart the server, or remove the table (or its schema, or its partitioned table) from the publication.")));
	}
}

/*
 * the remote tablets under relid: relid itself if it is one, or the
 * foreign-table partitions of a partitioned table with the columns of a
 * wide table (a parent of tablets)
 */
static List *
remote_tablets(Oid relid)
{
	char		relkind = get_rel_relkind(relid);
	List	   *result = NIL;
	Relation	rel;
	bool		shaped;
	ListCell   *lc;

	if (relkind == RELKIND_FOREIGN_TABLE && get_rel_relispartition(relid))
	{
		List	   *anc = get_partition_ancestors(relid);

		return anc != NIL && remote_tablets(llast_oid(anc)) != NIL ?
			list_make1_oid(relid) : NIL;
	}
	if (relkind != RELKIND_PARTITIONED_TABLE)
		return NIL;
	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
		return NIL;
	shaped = WideHasTableShape(rel);
	relation_close(rel, AccessShareLock);
	if (!shaped)
		return NIL;
	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
	{
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			result = lappend_oid(result, lfirst_oid(lc));
	}
	return result;
}

/* the remote tablets under any of relids, without repeats */
static List *
remote_tablets_among(List *relids)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, relids)
		result = list_concat_unique_oid(result, remote_tablets(lfirst_oid(lc)));
	return result;
}

/* refuse: publication pubname would include the parent of remote tablets */
static void
refuse_remote(const char *pubname, List *tablets)
{
	Oid			tablet = linitial_oid(tablets);
	List	   *anc = get_partition_ancestors(tablet);
	Oid			parent = anc != NIL ? llast_oid(anc) : tablet;
	int			n = list_length(tablets);

	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot publish table %s: it has remote tablets",
					quoted_names(list_make1_oid(parent))),
			 errdetail_plural("Publication \"%s\" would include it, but the cells of its remote tablet %s are written on another node, whose changes this server does not decode: its subscribers would silently miss them after the initial copy.",
							  "Publication \"%s\" would include it, but the cells of its remote tablets %s are written on other nodes, whose changes this server does not decode: its subscribers would silently miss them after the initial copy.",
							  n, pubname ? pubname : "?", quoted_names(tablets)),
			 errhint("Publish the wide tables on the nodes that hold them, or keep the tablets of a published table local.")));
}

/* a publication that includes relid or one of its ancestors, if any */
static Oid
publishing_ancestor(Oid relid)
{
	List	   *rels = list_make1_oid(relid);
	List	   *all;
	ListCell   *lc;

	if (get_rel_relispartition(relid))
		rels = list_concat(rels, get_partition_ancestors(relid));
	foreach(lc, rels)
	{
		Oid			r = lfirst_oid(lc);
		List	   *pubs = GetRelationPublications(r);

		if (pubs == NIL)
			pubs = GetSchemaPublications(get_rel_namespace(r));
		if (pubs != NIL)
			return linitial_oid(pubs);
	}
	all = GetAllTablesPublications();
	return all != NIL ? linitial_oid(all) : InvalidOid;
}

/* refuse remote tablets under relid whose parent is published */
static void
check_remote_tablets(Oid relid)
{
	ListCell   *lc;

	foreach(lc, remote_tablets(relid))
	{
		Oid			pubid = publishing_ancestor(lfirst_oid(lc));

		if (OidIsValid(pubid))
			refuse_remote(get_publication_name(pubid, true),
						  list_make1_oid(lfirst_oid(lc)));
	}
}

/*
 * WideRefusePublishedRemote -- refuse to give a parent of tablets a remote
 * tablet while a publication includes it (wide.move_tablet checks before
 * it starts, rather than fail at its swap).
 */
void
WideRefusePublishedRemote(Oid parent)
{
	Oid			pubid = publishing_ancestor(parent);

	if (OidIsValid(pubid))
	{
		char	   *pubname = get_publication_name(pubid, true);

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot move a tablet of table %s to a node: it is published",
						quoted_names(list_make1_oid(parent))),
				 errdetail("Publication \"%s\" includes it, and the cells of a remote tablet are written on another node, whose changes this server does not decode: its subscribers would silently miss them.",
						   pubname ? pubname : "?"),
				 errhint("Remove the table from the publication first, or keep its tablets local.")));
	}
}

/* wide_internal._refuse_published_remote(parent regclass) */
PG_FUNCTION_INFO_V1(wide_refuse_published_remote);
Datum
wide_refuse_published_remote(PG_FUNCTION_ARGS)
{
	WideRefusePublishedRemote(PG_GETARG_OID(0));
	PG_RETURN_VOID();
}

/* a newly created publication */
static void
check_publication(Oid pubid)
{
	Publication *pub;
	List	   *remote;

	if (!SearchSysCacheExists1(PUBLICATIONOID, ObjectIdGetDatum(pubid)))
		return;
	pub = GetPublication(pubid);
	/* the roots: partitioned tables, whose remote tablets are never listed */
	if (pub->alltables)
		remote = remote_tablets_among(GetAllTablesPublicationRelations(true));
	else
		remote = remote_tablets_among(list_concat(GetPublicationRelations(pubid, PUBLICATION_PART_ROOT),
												  GetAllSchemaPublicationRelations(pubid, PUBLICATION_PART_ROOT)));
	if (remote != NIL)
		refuse_remote(pub->name, remote);
	if (pub->alltables)
	{
		List	   *wide = wide_among(GetAllTablesPublicationRelations(false));

		if (wide != NIL)
			warn_all_tables(pub->name, wide);
	}
	else
	{
		List	   *rels;

		rels = list_concat(GetPublicationRelations(pubid, PUBLICATION_PART_LEAF),
						   GetAllSchemaPublicationRelations(pubid, PUBLICATION_PART_LEAF));
		rels = wide_among(rels);
		if (rels != NIL)
			refuse(pubid, rels);
	}
}

/* a relation created or altered by the statement */
static void
check_relation(Oid relid, bool became_wide)
{
	List	   *leaves;
	ListCell   *lc;

	check_remote_tablets(relid);
	leaves = wide_leaves(relid);

	foreach(lc, leaves)
	{
		Oid			pubid = covering_publication(lfirst_oid(lc));

		if (OidIsValid(pubid))
			refuse(pubid, list_make1_oid(lfirst_oid(lc)));
	}
	if (became_wide && leaves != NIL)
	{
		foreach(lc, GetAllTablesPublications())
		{
			char	   *pubname = get_publication_name(lfirst_oid(lc), true);

			if (pubname)
				warn_all_tables(pubname, leaves);
		}
	}
}

/* run the checks the statement left, on the catalogs as it left them */
static void
run_pending_checks(void)
{
	List	   *checks = pending;
	ListCell   *lc;

	pending = NIL;
	foreach(lc, checks)
	{
		PendingCheck *p = lfirst(lc);
		List	   *wide;

		switch (p->kind)
		{
			case PENDING_PUBLICATION:
				check_publication(p->pubid);
				break;
			case PENDING_PUBLICATION_REL:
				/* gone with a rolled-back subtransaction? */
				if (!SearchSysCacheExists1(PUBLICATIONREL,
										   ObjectIdGetDatum(p->rowid)))
					break;
				wide = remote_tablets(p->objid);
				if (wide != NIL)
					refuse_remote(get_publication_name(p->pubid, true), wide);
				wide = wide_leaves(p->objid);
				if (wide != NIL)
					refuse(p->pubid, wide);
				break;
			case PENDING_PUBLICATION_NSP:
				if (!SearchSysCacheExists1(PUBLICATIONNAMESPACE,
										   ObjectIdGetDatum(p->rowid)))
					break;
				wide = remote_tablets_among(GetSchemaPublicationRelations(p->objid,
																		  PUBLICATION_PART_ROOT));
				if (wide != NIL)
					refuse_remote(get_publication_name(p->pubid, true), wide);
				wide = wide_among(GetSchemaPublicationRelations(p->objid,
																PUBLICATION_PART_LEAF));
				if (wide != NIL)
					refuse(p->pubid, wide);
				break;
			case PENDING_RELATION:
				check_relation(p->objid, p->became_wide);
				break;
		}
	}
	list_free_deep(checks);
}

/*
 * A relation was just created: a wide table is checked at the end of the
 * statement.  ALTER TABLE ... SET ACCESS METHOD wide first creates the new
 * storage as a wide table named pg_temp_<oid of the table>: the table
 * itself is then becoming wide.
 */
static void
note_new_relation(Oid relid)
{
	HeapTuple	tup;
	Form_pg_class cls;
	Oid			wide_am = get_table_am_oid("wide", true);

	tup = WideFetchNewCatalogRow(RelationRelationId, ClassOidIndexId,
								 Anum_pg_class_oid, relid);
	if (tup == NULL)
		return;
	cls = (Form_pg_class) GETSTRUCT(tup);
	/* a foreign table: perhaps a remote tablet of a published parent */
	if (cls->relkind == RELKIND_FOREIGN_TABLE)
		add_pending(PENDING_RELATION, InvalidOid, relid, InvalidOid, false);
	if (cls->relkind == RELKIND_RELATION && OidIsValid(wide_am) &&
		cls->relam == wide_am)
	{
		const char *name = NameStr(cls->relname);
		char	   *end;
		unsigned long target;

		add_pending(PENDING_RELATION, InvalidOid, relid, InvalidOid, true);
		if (strncmp(name, "pg_temp_", 8) == 0)
		{
			target = strtoul(name + 8, &end, 10);
			if (*end == '\0' && target > 0 && target <= PG_UINT32_MAX &&
				get_rel_relkind((Oid) target) == RELKIND_RELATION &&
				!WideRelationIsWide((Oid) target))
				add_pending(PENDING_RELATION, InvalidOid, (Oid) target,
							InvalidOid, true);
		}
	}
	heap_freetuple(tup);
}

/*
 * WidePublicationObjectAccess -- called from the object access hook: note
 * what may have put a wide table into a publication.
 */
void
WidePublicationObjectAccess(ObjectAccessType access, Oid classId,
							Oid objectId, int subId)
{
	HeapTuple	tup;

	if (subId != 0)
		return;
	if (access == OAT_POST_ALTER && classId == RelationRelationId)
	{
		add_pending(PENDING_RELATION, InvalidOid, objectId, InvalidOid, false);
		return;
	}
	if (access != OAT_POST_CREATE)
		return;

	switch (classId)
	{
		case RelationRelationId:
			note_new_relation(objectId);
			break;
		case PublicationRelationId:
			add_pending(PENDING_PUBLICATION, objectId, InvalidOid, InvalidOid,
						false);
			break;
		case PublicationRelRelationId:
			tup = WideFetchNewCatalogRow(PublicationRelRelationId,
										 PublicationRelObjectIndexId,
										 Anum_pg_publication_rel_oid, objectId);
			if (tup)
			{
				Form_pg_publication_rel pr = (Form_pg_publication_rel) GETSTRUCT(tup);

				add_pending(PENDING_PUBLICATION_REL, pr->prpubid, pr->prrelid,
							objectId, false);
				heap_freetuple(tup);
			}
			break;
		case PublicationNamespaceRelationId:
			tup = WideFetchNewCatalogRow(PublicationNamespaceRelationId,
										 PublicationNamespaceObjectIndexId,
										 Anum_pg_publication_namespace_oid,
										 objectId);
			if (tup)
			{
				Form_pg_publication_namespace pn =
				(Form_pg_publication_namespace) GETSTRUCT(tup);

				add_pending(PENDING_PUBLICATION_NSP, pn->pnpubid, pn->pnnspid,
							objectId, false);
				heap_freetuple(tup);
			}
			break;
		default:
			break;
	}
}

/*
 * WidePublicationUtility -- the last concern of a utility statement
 * (am/utility.c): after it, run the checks it left.
 */
void
WidePublicationUtility(WideUtilityCall *call)
{
	PlannedStmt *pstmt = call->pstmt;

	WideUtilityNext(call);

	/* ATTACH PARTITION calls no object access hook: check the parent */
	if (IsA(pstmt->utilityStmt, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) pstmt->utilityStmt;
		ListCell   *lc;

		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst(lc);

			if (cmd->subtype == AT_AttachPartition &&
				stmt->objtype == OBJECT_TABLE)
			{
				Oid			relid = RangeVarGetRelid(stmt->relation, NoLock, true);

				if (OidIsValid(relid))
					add_pending(PENDING_RELATION, InvalidOid, relid,
								InvalidOid, false);
				break;
			}
		}
	}

	/* COMMIT and friends: the pre-commit callback runs what is left */
	if (pending != NIL && !IsA(pstmt->utilityStmt, TransactionStmt) &&
		IsTransactionState())
	{
		CommandCounterIncrement();
		run_pending_checks();
	}
}

/* before commit: what a statement left unchecked; forget it at the end */
static void
wide_publication_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (pending != NIL)
			{
				/* the last statement's catalog rows are not visible yet */
				CommandCounterIncrement();
				run_pending_checks();
			}
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			pending = NIL;		/* freed with TopTransactionContext */
			break;
		default:
			break;
	}
}

/* does the session replay changes of another node (see engine/rollup.c)? */
static bool
session_is_replica(void)
{
	return SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA;
}

/*
 * WideInstallPublicationHooks -- called from _PG_init (through
 * WideInstallHooks).
 */
void
WideInstallPublicationHooks(void)
{
	wide_write_check = WideCheckNotPublished;
	wide_rollup_replaying = session_is_replica;
	RegisterXactCallback(wide_publication_xact_callback, NULL);
}
