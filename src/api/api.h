/*-------------------------------------------------------------------------
 *
 * api.h
 *	  Shared code of the SQL-callable wide.* functions: opening a table
 *	  with its privileges and row-level security checked (access.c),
 *	  function arguments (args.c, jsonargs.c), and turning
 *	  mutations into records (mutate.c, mutate_row.c).
 *
 *	  Row filters and reading rows are in filter.h.
 *
 * IDENTIFICATION
 *	  src/api/api.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_API_H
#define WIDE_API_H

#include "fmgr.h"
#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "storage/lockdefs.h"
#include "utils/jsonb.h"
#include "utils/relcache.h"
#include "engine/cell.h"
#include "engine/schema.h"

/* access.c: opening a table for a wide.* function */
extern Oid	WideTableArg(FunctionCallInfo fcinfo, int argno);
extern void WideCheckPrivileges(Oid relid, AclMode need);
extern void WideCheckOwner(Oid relid);
extern void WideCheckFamilyOwner(Oid relid);
extern void WideCheckAnyPrivilege(Oid relid);
extern Relation WideOpenTableKey(FunctionCallInfo fcinfo, Oid relid, AclMode need,
								 LOCKMODE lockmode, int keyarg);
extern Relation WideOpenParent(FunctionCallInfo fcinfo, const char *fname, Oid relid,
							   AclMode need, LOCKMODE lockmode);
/* entry.c: the public functions whose work internal functions do */
extern List *WideChildren(Oid relid, bool local, bool remote);
/* families.c */
extern void WideStoreCatalog(Oid relid, Jsonb *doc);
/* remote.c: family changes and creation of remote tablets */
extern char *WideStoreCatalogSql(const char *table, const char *famcol, const char *doc);
extern void WideRemoteFamily(Oid tablet, const char *fn, int nargs, const char *const *args);
extern void WideRemoteCreateTablet(Oid tablet, Jsonb *catalog);
/* bigtable_json.c */
extern Jsonb *WideBigtableJson(Jsonb *doc, Oid valtype);
extern bool WideJsonBase64Key(JsonbValue *v, char **p, int *len);
/* tablets.c */
extern bool WideTabletParent(Oid relid);
extern Oid	WideTabletForKey(Relation parent, const char *key, uint32 keylen,
							 LOCKMODE lockmode, bool missing_ok);
extern List *WideTablets(Relation parent, LOCKMODE lockmode);
extern void WideRefuseRemote(Oid tablet);
/* remote.c */
extern Datum WideRemoteResult;
extern Datum WideRemoteCall(FunctionCallInfo fcinfo, Oid tablet);
extern int64 WideRemoteRows(FunctionCallInfo fcinfo, Oid tablet, int limitarg, int64 limit,
							const char *keycol, bool labeled);
extern List *WideTabletsAll(Relation parent, LOCKMODE lockmode);
extern bool WideTabletsNewerThan(List *tablets, Snapshot snapshot);
extern int64 WideRemoteMutateRows(Oid tablet, Jsonb *entry);
extern int64 WideRemoteMutateRowsBin(Oid tablet, const char *entry, int len);
extern void WideRemoteSamples(Oid tablet, ReturnSetInfo *rsinfo, int64 *total);
struct WideMaintCounts;			/* engine/lsm.h */
extern void WideRemoteCompact(Oid tablet, bool major,
							  struct WideMaintCounts *counts);
extern Relation WideOpenTable(FunctionCallInfo fcinfo, Oid relid, AclMode need,
							  LOCKMODE lockmode);
extern Relation WideOpenTableRead(const char *fname, Oid relid, LOCKMODE lockmode);
extern Relation WideOpenOwned(Oid relid, LOCKMODE lockmode);
extern AclMode WideMutationsPrivileges(JsonbContainer *arr);
extern AclMode WideCellsPrivileges(const WideCell *cells, int n);
extern void WideCheckText(Oid type, const char *p, uint32 len, const char *what);
extern void WideCheckCellText(const WideSchema *schema, const WideCell *cell);
extern Relation WideOpenWide(Oid relid, LOCKMODE lockmode);


/* jsonargs.c: fields of jsonb arguments */
extern JsonbValue *WideJsonField(JsonbValue *obj, const char *name);
extern char *WideJsonOneKey(JsonbValue *obj, JsonbValue *arg, int *nkeys);
extern char *WideJsonUnknownField(JsonbValue *obj, const char *const *allowed);
extern bool WideJsonInt64(JsonbValue *v, int64 *out);
extern const char *WideNearestName(const char *name, const char *const *names);
extern char *WideUnknownNameDetail(const char *what, const char *name,
								   const char *const *names);

/* args.c: scalar arguments of type "any" */
extern void WideArgBytes(FunctionCallInfo fcinfo, int argno, const char *what,
						 const char **p, uint32 *len);
extern int64 WideArgTimestamp(FunctionCallInfo fcinfo, int argno, bool *isnull);
extern Datum WideArgValue(FunctionCallInfo fcinfo, int argno, Oid valtype);

/* mutate.c */
extern Relation WideOpenForWrite(Oid relid, AclMode mode);
extern const WideFamily *WideArgCoordinates(FunctionCallInfo fcinfo, Relation rel,
											const WideSchema *schema, int tsarg,
											Datum *values, bool *isnull);
extern void WideWriteRecords(Relation rel, WideCell *cells, int n);

/* mutate_row.c */

/* a mutation's kind: Bigtable's Mutation message */
typedef enum WideMutationKind
{
	WIDE_MUT_SET_CELL = 1,
	WIDE_MUT_ADD_TO_CELL,
	WIDE_MUT_MERGE_TO_CELL,
	WIDE_MUT_DELETE_FROM_COLUMN,
	WIDE_MUT_DELETE_FROM_FAMILY,
	WIDE_MUT_DELETE_FROM_ROW
} WideMutationKind;

/* how a mutation's value (set_cell) or input (add/merge_to_cell) is given */
typedef enum WideValueForm
{
	WIDE_VALUE_MISSING,			/* absent (an error when it is needed) */
	WIDE_VALUE_BAD,				/* of a JSON type no value has */
	WIDE_VALUE_TEXT,			/* text for the target type's input function */
	WIDE_VALUE_NUMBER,			/* the same, written as a number */
	WIDE_VALUE_BYTES			/* bytes: a bytea, else the text "\x<hex>" */
} WideValueForm;

/*
 * One mutation of a row, decoded from its wire form (JSON or binary): the
 * pointers are into the decoded input, not copied.
 */
typedef struct WideMutationArgs
{
	WideMutationKind kind;
	const char *family;
	uint32		famlen;
	const char *qual;
	uint32		quallen;
	bool		tsnull;			/* set/add/merge: server time (-1 or absent) */
	int64		ts;
	int64		from;			/* delete_from_column: [from, to) */
	int64		to;
	WideValueForm vform;
	const char *value;
	uint32		vallen;
} WideMutationArgs;

/* the cells of a batch of entries, each in its tablet (mutate_row.c) */
typedef struct WideBatch
{
	Relation	parent;			/* a parent of tablets, or NULL */
	Relation	rel;			/* the table (or tablet) cells go to */
	const WideSchema *schema;
	WideCell   *cells;			/* not yet written, of rel */
	int			n;
	int			cap;
	int64		total;			/* records written, here and on nodes */
} WideBatch;

extern void WideMutationArgsCell(Relation rel, const WideSchema *schema,
								 const char *key, uint32 keylen, text *keytext,
								 const WideMutationArgs *a, const char *sub,
								 WideCell *cell);
extern void WideBatchOpen(WideBatch *b, FunctionCallInfo fcinfo, Oid relid, AclMode need);
extern Oid	WideBatchRoute(WideBatch *b, const char *key, uint32 keylen);
extern WideCell *WideBatchCell(WideBatch *b);
extern int64 WideBatchFinish(WideBatch *b);
extern void WideMutationCell(Relation rel, const WideSchema *schema, const char *key,
							 uint32 keylen, JsonbValue *m, const char *where,
							 WideCell *cell);

#endif							/* WIDE_API_H */
