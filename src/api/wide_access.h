/*-------------------------------------------------------------------------
 *
 * wide_access.h
 *	  Opening a table for a wide.* function: privileges, row-level
 *	  security, argument checks (access.c).
 *
 * IDENTIFICATION
 *	  src/api/wide_access.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_ACCESS_H
#define WIDE_ACCESS_H

#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "storage/lockdefs.h"
#include "utils/jsonb.h"
#include "utils/relcache.h"

struct WideSchema;
struct WideCell;

extern Oid	WideTableArg(FunctionCallInfo fcinfo, int argno);
extern void WideCheckPrivileges(Oid relid, AclMode need);
extern void WideCheckOwner(Oid relid);
extern void WideCheckAnyPrivilege(Oid relid);
extern Relation WideOpenTable(FunctionCallInfo fcinfo, Oid relid, AclMode need,
							  LOCKMODE lockmode);
extern Relation WideOpenOwned(Oid relid, LOCKMODE lockmode);
extern AclMode WideMutationsPrivileges(JsonbContainer *arr);
extern AclMode WideCellsPrivileges(const struct WideCell *cells, int n);
extern void WideCheckText(Oid type, const char *p, uint32 len, const char *what);
extern void WideCheckCellText(const struct WideSchema *schema,
							  const struct WideCell *cell);

#endif							/* WIDE_ACCESS_H */
