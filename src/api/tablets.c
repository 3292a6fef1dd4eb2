/*-------------------------------------------------------------------------
 *
 * tablets.c
 *	  A wide table split into tablets: a table PARTITION BY RANGE (row_key)
 *	  whose partitions are wide tables (or are partitioned the same way).
 *
 * Bigtable serves a table as tablets, contiguous row-key ranges; here a
 * tablet is a range partition, and PostgreSQL's partitioning routes INSERT
 * and COPY and prunes scans.  This file lets the wide.* functions take the
 * parent too:
 *
 *	WideTabletParent(relid)	is the relation such a parent?
 *	WideTabletForKey(...)	the leaf table that holds a row key, found
 *							with the partition bounds, as tuple routing does
 *							(no partition: 23514, as for an INSERT); a
 *							remote tablet is a foreign table (remote.c)
 *	WideTablets(parent)		every leaf wide table in row-key order (range
 *							partitions are disjoint and sorted by bound)
 *	WideTabletsNewerThan(tablets, snapshot)
 *							was one of the tablets attached (or otherwise
 *							changed in pg_class) by a transaction the
 *							snapshot does not see?  Then the partition set
 *							read is newer than the snapshot (a split or move
 *							swapped while the caller waited for its locks)
 *
 * Privileges and row-level security are those of the parent, as for SQL
 * statements through it: a partition's own grants are not consulted.  The
 * parent is locked first, then the tablet, as the executor does.
 *
 * IDENTIFICATION
 *	  src/api/tablets.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "am/am.h"
#include "api/api.h"

/* is this partitioned table split by row_key ranges, as tablets are? */
static bool
by_row_key_range(Relation rel)
{
	PartitionKey key = RelationGetPartitionKey(rel);

	return key != NULL && key->strategy == PARTITION_STRATEGY_RANGE &&
		key->partnatts == 1 && key->partattrs[0] == 1 &&
		RelationGetDescr(rel)->natts == 5 &&
		WideHasTableShape(rel);
}

/* fail unless the partitioned table is a parent of tablets */
static void
check_parent(Relation rel)
{
	if (!by_row_key_range(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("partitioned table \"%s\" is not split into wide tablets",
						RelationGetRelationName(rel)),
				 errdetail("The wide functions take a partitioned table whose columns are those of a wide table and that is partitioned by RANGE (row_key)."),
				 errhint("Name one of its partitions instead.")));
}

/*
 * WideRefuseRemote -- fail on a remote tablet (a foreign table) where a
 * wide.* function reads several tablets or returns a set: those run on
 * local tablets only; SQL through the parent reaches remote ones
 */
void
WideRefuseRemote(Oid child)
{
	if (get_rel_relkind(child) == RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tablet \"%s\" is on another node", get_rel_name(child)),
				 errdetail("The wide.* data functions do not reach remote tablets yet."),
				 errhint("Use SQL through the parent (INSERT, COPY, SELECT), or call the function on the tablet's node.")));
}

/*
 * WideTabletParent -- is the relation a partitioned table?  (Whether its
 * partitioning suits tablets is checked when it is used.)
 */
bool
WideTabletParent(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE;
}

/* the key as a datum of the partition key's type */
static Datum
key_datum(Relation rel, const char *key, uint32 keylen)
{
	Oid			type = TupleDescAttr(RelationGetDescr(rel), 0)->atttypid;

	if (type == BYTEAOID)
	{
		bytea	   *b = palloc(VARHDRSZ + keylen);

		SET_VARSIZE(b, VARHDRSZ + keylen);
		memcpy(VARDATA(b), key, keylen);
		return PointerGetDatum(b);
	}
	return PointerGetDatum(cstring_to_text_with_len(key, keylen));
}

/*
 * WideTabletForKey -- the leaf wide table of a parent that holds a row key,
 * locked in "lockmode"; InvalidOid if none does and missing_ok (a read).
 * The parent is open and locked by the caller.
 */
Oid
WideTabletForKey(Relation parent, const char *key, uint32 keylen,
				 LOCKMODE lockmode, bool missing_ok)
{
	Relation	rel = parent;

	for (;;)
	{
		PartitionKey pkey;
		PartitionDesc pdesc;
		PartitionBoundInfo bounds;
		Datum		value;
		bool		equal;
		int			off;
		int			part = -1;
		Oid			child;

		check_parent(rel);
		pkey = RelationGetPartitionKey(rel);
		pdesc = RelationGetPartitionDesc(rel, false);
		bounds = pdesc->boundinfo;
		value = key_datum(rel, key, keylen);
		if (bounds != NULL && pdesc->nparts > 0)
		{
			off = partition_range_datum_bsearch(pkey->partsupfunc,
												pkey->partcollation,
												bounds, 1, &value, &equal);
			part = bounds->indexes[off + 1];
		}
		if (part < 0)
			part = bounds ? bounds->default_index : -1;
		if (part < 0 && missing_ok)
		{
			if (rel != parent)
				relation_close(rel, NoLock);
			return InvalidOid;
		}
		if (part < 0)
			ereport(ERROR,
					(errcode(ERRCODE_CHECK_VIOLATION),
					 errmsg("no partition of relation \"%s\" found for row key",
							RelationGetRelationName(rel)),
					 errdetail("No tablet's range holds the row key."),
					 errhint("Create a partition for it: CREATE TABLE ... PARTITION OF %s FOR VALUES FROM (...) TO (...) USING wide.",
							 RelationGetRelationName(rel))));
		child = pdesc->oids[part];
		if (rel != parent)
			relation_close(rel, NoLock);
		if (get_rel_relkind(child) != RELKIND_PARTITIONED_TABLE)
		{
			LockRelationOid(child, lockmode);
			return child;
		}
		rel = relation_open(child, lockmode);
	}
}

/* append the leaves under a partitioned table, in key order */
static List *
add_leaves(List *out, Relation rel, LOCKMODE lockmode, bool remote)
{
	PartitionDesc pdesc;
	int			i;
	int			nparts;
	Oid		   *oids;

	check_parent(rel);
	pdesc = RelationGetPartitionDesc(rel, false);

	/*
	 * Range partitions are in bound order, except the default partition,
	 * which holds the keys of every gap: it cannot be read in order with
	 * the others.
	 */
	if (pdesc->boundinfo && pdesc->boundinfo->default_index >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot read partitioned table \"%s\" in row-key order: it has a default partition",
						RelationGetRelationName(rel)),
				 errdetail("A default partition holds keys from every gap between the other partitions."),
				 errhint("Give every key range its own partition, or read the partitions one by one.")));
	nparts = pdesc->nparts;
	oids = palloc(sizeof(Oid) * Max(nparts, 1));
	memcpy(oids, pdesc->oids, sizeof(Oid) * nparts);
	for (i = 0; i < nparts; i++)
	{
		if (get_rel_relkind(oids[i]) == RELKIND_PARTITIONED_TABLE)
		{
			Relation	child = relation_open(oids[i], lockmode);

			out = add_leaves(out, child, lockmode, remote);
			relation_close(child, NoLock);
		}
		else
		{
			if (!remote)
				WideRefuseRemote(oids[i]);
			LockRelationOid(oids[i], lockmode);
			out = lappend_oid(out, oids[i]);
		}
	}
	pfree(oids);
	return out;
}

/*
 * WideTablets -- every leaf table of a parent, in row-key order, each
 * locked in "lockmode".  The parent is open and locked by the caller.
 */
List *
WideTablets(Relation parent, LOCKMODE lockmode)
{
	return add_leaves(NIL, parent, lockmode, false);
}

/*
 * WideTabletsAll -- the same, remote tablets (foreign tables) included.
 */
List *
WideTabletsAll(Relation parent, LOCKMODE lockmode)
{
	return add_leaves(NIL, parent, lockmode, true);
}

/* does the snapshot see the transaction "xid" committed (or is it ours)? */
static bool
xid_seen_by(TransactionId xid, Snapshot snapshot)
{
	if (!TransactionIdIsNormal(xid))
		return true;			/* frozen or bootstrap */
	if (TransactionIdIsCurrentTransactionId(xid))
		return true;
	if (XidInMVCCSnapshot(xid, snapshot))
		return false;
	return TransactionIdDidCommit(xid);
}

/*
 * WideTabletsNewerThan -- was the pg_class row of one of the tablets (a
 * list of relation OIDs, locked by the caller) written by a transaction
 * that the MVCC snapshot does not see?  ATTACH PARTITION rewrites the
 * row of the partition it attaches, so a tablet that a split or move put
 * in place after the snapshot was taken is caught: its new cells, copied
 * by the operation's last transaction, are invisible to the snapshot
 * while the old tablet, which the snapshot would see them in, is no
 * longer in the list.  (Any other change of the row, an ALTER TABLE say,
 * counts too: a false alarm costs the caller a fresh snapshot.)
 */
bool
WideTabletsNewerThan(List *tablets, Snapshot snapshot)
{
	ListCell   *lc;

	foreach(lc, tablets)
	{
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(lfirst_oid(lc)));
		bool		newer;

		if (!HeapTupleIsValid(tup))
			continue;
		newer = !xid_seen_by(HeapTupleHeaderGetXmin(tup->t_data), snapshot);
		ReleaseSysCache(tup);
		if (newer)
			return true;
	}
	return false;
}
