/*-------------------------------------------------------------------------
 *
 * wide.h
 *	  Shared types of the wide extension: a Bigtable-class wide-column
 *	  store as a PostgreSQL table access method.
 *
 * The extension is layered (see docs/architecture.md):
 *
 *	  am/       PostgreSQL glue: the TableAmRoutine, DDL checks, planner.
 *	  api/      SQL-callable functions (families, mutations, reads).
 *	  engine/   the storage engine.  It knows pages, WAL, records, cells and
 *	            MVCC visibility, but no executor types (slots, plans).
 *
 * The call graph is one-way: am/ and api/ call engine/, never the reverse.
 * Extern blocks below are labelled by the file that defines them.
 *
 * IDENTIFICATION
 *	  src/wide.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_H
#define WIDE_H

#include "postgres.h"

#include "access/tableam.h"
#include "access/transam.h"
#include "datatype/timestamp.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "storage/bufpage.h"
#include "storage/lockdefs.h"
#include "utils/jsonb.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

/* ----------------------------------------------------------------
 *	Limits of the data model (Bigtable's)
 * ----------------------------------------------------------------
 */
#define WIDE_MAX_ROW_KEY		4096	/* bytes */
#define WIDE_MAX_QUALIFIER		16384	/* bytes */
#define WIDE_MAX_VALUE			(100 * 1024 * 1024) /* bytes */
#define WIDE_MAX_FAMILY_NAME	64		/* bytes, [-_.a-zA-Z0-9]+ */

/* ----------------------------------------------------------------
 *	Records and cells
 *
 * Every mutation is a record.  A record has a kind, cell coordinates, a
 * sequence number giving its place in write order (see seq.c), and, while
 * it is not yet visible to every snapshot, the xmin/cmin that wrote it.
 * ----------------------------------------------------------------
 */
typedef enum WideKind
{
	WIDE_KIND_DEL_ROW = 1,		/* delete every cell of a row */
	WIDE_KIND_DEL_FAMILY = 2,	/* delete every cell of a family in a row */
	WIDE_KIND_DEL_CELLS = 3,	/* delete versions of a column in [ts, ts_to) */
	WIDE_KIND_PUT = 4,			/* SetCell */
	WIDE_KIND_ADD = 5,			/* AddToCell: an input of an aggregate */
	WIDE_KIND_MERGE = 6			/* MergeToCell: an accumulator */
} WideKind;

#define WIDE_KIND_IS_TOMBSTONE(k)	((k) <= WIDE_KIND_DEL_CELLS)

/*
 * Scope level of a record inside its row, used by the comparator: a row
 * tombstone sorts before every cell of its row, a family tombstone before
 * every cell of its family, a column tombstone before every version.
 */
#define WIDE_LEVEL_ROW		0
#define WIDE_LEVEL_FAMILY	1
#define WIDE_LEVEL_COLUMN	2
#define WIDE_LEVEL_CELL		3

/* record flags (on disk) */
#define WIDE_REC_XMIN_COMMITTED	0x01	/* hint: xmin known committed */
#define WIDE_REC_XMIN_INVALID	0x02	/* hint: xmin known aborted */
#define WIDE_REC_VALUE_BLOB		0x04	/* value stored in blob pages */
#define WIDE_REC_BODY_BLOB		0x08	/* key/qualifier/value in blob pages */

/* Reference to a value kept out of line, in a chain of blob pages. */
typedef struct WideBlobRef
{
	BlockNumber first;			/* first blob page */
	uint32		length;			/* bytes */
} WideBlobRef;

/*
 * A decoded record.  Pointers refer to memory owned by whoever decoded it
 * (a pinned page, a decoded block, or palloc'd memory).
 */
typedef struct WideCell
{
	uint8		kind;			/* WideKind */
	uint8		flags;			/* WIDE_REC_* */
	uint16		famlen;
	uint32		keylen;
	uint32		quallen;
	uint32		vallen;			/* length of the value, even if in a blob */
	uint32		famid;			/* family incarnation, see families.c */
	const char *key;
	const char *family;
	const char *qual;
	const char *value;			/* NULL while the value is only in a blob */
	int64		ts;				/* microseconds since 1970; DEL_CELLS: from */
	int64		ts_to;			/* DEL_CELLS: exclusive end */
	uint64		seq;			/* write order */
	TransactionId xmin;			/* FrozenTransactionId once visible to all */
	CommandId	cmin;
	WideBlobRef blob;			/* valid when WIDE_REC_VALUE_BLOB */
} WideCell;

/* ----------------------------------------------------------------
 *	Families (the table's schema, see api/families.c)
 * ----------------------------------------------------------------
 */
typedef enum WideAggregate
{
	WIDE_AGG_NONE = 0,
	WIDE_AGG_SUM,
	WIDE_AGG_MIN,
	WIDE_AGG_MAX,
	WIDE_AGG_HLL
} WideAggregate;

typedef struct WideFamily
{
	char		name[WIDE_MAX_FAMILY_NAME + 1];
	int			namelen;
	uint32		id;				/* incarnation: new on every create */
	int32		max_versions;	/* 0: no version rule */
	int64		max_age;		/* microseconds; 0: no age rule */
	bool		gc_intersection;	/* both rules must agree to collect */
	WideAggregate aggregate;
} WideFamily;

/*
 * What the engine needs to know about a wide table: its column types and
 * its families.  Built from the relcache entry and cached in rd_amcache, so
 * that any change to the table's definition (ALTER, create_family) resets it.
 */
typedef struct WideSchema
{
	Oid			keytype;		/* TEXTOID or BYTEAOID */
	Oid			qualtype;		/* TEXTOID or BYTEAOID */
	Oid			tstype;			/* TIMESTAMPTZOID or INT8OID */
	Oid			valtype;
	int16		vallen;			/* typlen of the value type */
	bool		valbyval;
	bool		has_catalog;	/* the family catalog is present */
	bool		meta_exists;	/* block 0 is known to exist */
	uint32		next_id;		/* next family incarnation */
	int			nfamilies;
	WideFamily *families;		/* sorted by name (bytewise) */
} WideSchema;

/* ----------------------------------------------------------------
 *	Pages
 *
 * Every page but the metapage is a standard PostgreSQL page whose special
 * space holds a WidePageOpaqueData.  The page type says which chain the
 * page belongs to; "owner" identifies the object (generation, segment,
 * blob) so that a reader can tell a recycled page from the one it expected.
 * ----------------------------------------------------------------
 */
#define WIDE_META_BLKNO			0

#define WIDE_PAGE_META			0x5701
#define WIDE_PAGE_WRITE			0x5702	/* write-area page of records */
#define WIDE_PAGE_BLOB			0x5703	/* out-of-line value bytes */
#define WIDE_PAGE_SEGMENT		0x5704	/* segment byte stream */
#define WIDE_PAGE_MANIFEST		0x5705	/* list of segments */
#define WIDE_PAGE_FREE			0x5706	/* retired, waiting to be reused */

typedef struct WidePageOpaqueData
{
	BlockNumber next;			/* next page of this page's chain */
	BlockNumber link;			/* write-area blob pages: allocation chain */
	uint32		owner;			/* generation, segment id or blob id */
	uint16		flags;
	uint16		page_type;		/* WIDE_PAGE_*, last as in nbtree */
} WidePageOpaqueData;

typedef WidePageOpaqueData *WidePageOpaque;

#define WidePageGetOpaque(page) \
	((WidePageOpaque) PageGetSpecialPointer(page))

/* ----------------------------------------------------------------
 *	The metapage (block 0)
 * ----------------------------------------------------------------
 */
#define WIDE_MAGIC				0x57494445	/* "WIDE" */
#define WIDE_FORMAT_VERSION		1
#define WIDE_NLANES				4			/* write-area insertion lanes */

/*
 * A write-area lane: a chain of record pages, newest first.  Backends append
 * to the head page of "their" lane; several lanes let concurrent sessions
 * append without queueing on one page lock.
 */
typedef struct WideLane
{
	BlockNumber head;			/* newest page, the one appended to */
	uint32		npages;
} WideLane;

typedef struct WideMetaPageData
{
	uint32		magic;
	uint32		version;
	uint32		generation;		/* write-area generation (bumped by flush) */
	uint32		nlanes;
	WideLane	lanes[WIDE_NLANES];
	BlockNumber blobs;			/* write-area blob pages, newest first */
	uint32		nblobpages;
	uint64		wa_records;		/* records in the write area */
	uint64		wa_bytes;		/* their encoded size */
} WideMetaPageData;

typedef WideMetaPageData *WideMetaPage;

#define WidePageGetMeta(page) ((WideMetaPage) PageGetContents(page))

/* ----------------------------------------------------------------
 *	Extern declarations
 * ----------------------------------------------------------------
 */

/* am/ddl.c */
extern bool WideRelationIsWide(Oid relid);
extern void WideInstallHooks(void);

/* engine/storage.c */
extern void WideInitMetaPage(Page page);
extern void WideInitPage(Page page, uint16 page_type, uint32 owner);
extern void WideWriteEmptyMeta(Relation rel, ForkNumber forknum);
extern Buffer WideReadMeta(Relation rel, int lockmode);
extern WideMetaPage WideCheckMeta(Relation rel, Buffer metabuf);
extern Buffer WideNewPage(Relation rel);
extern Buffer WideReadPage(Relation rel, BlockNumber blkno, int lockmode,
						   uint16 page_type);
extern void WideCheckPage(Relation rel, Buffer buf, uint16 page_type);

/* engine/seq.c */
extern uint64 WideSeqNext(Relation rel, int n);
extern void WideSeqAfterWrite(Relation rel, uint64 last, XLogRecPtr end);

/* engine/record.c */
extern Size WideRecordSize(const WideCell *cell);
extern void WideRecordEncode(const WideCell *cell, char *dst);
extern bool WideRecordDecode(const char *src, Size len, WideCell *cell);
extern void WideRecordDecodeBody(WideCell *cell, const char *body);
extern uint8 WideRecordGetFlags(const char *rec);
extern void WideRecordSetHint(char *rec, uint8 flag);

/* engine/blob.c */
extern WideBlobRef WideBlobWrite(Relation rel, const char *data, uint32 len);
extern char *WideBlobRead(Relation rel, WideBlobRef ref);

/* engine/writearea.c */
#define WIDE_WA_MAX_INLINE	2000	/* larger records spill into blobs */
extern void WideWriteAreaInsert(Relation rel, WideCell *cells, int ncells);

typedef struct WideWAScan WideWAScan;
extern WideWAScan *WideWAScanBegin(Relation rel, Snapshot snapshot);
extern bool WideWAScanNext(WideWAScan *scan, WideCell *cell);
extern void WideWAScanEnd(WideWAScan *scan);

/* engine/visibility.c */
extern bool WideRecordVisible(const WideCell *cell, Snapshot snapshot,
							  uint8 *hint);
extern bool WideRecordVisibleToAll(Relation rel, const WideCell *cell);
extern void WideSetHint(Buffer buf, char *rec, TransactionId xmin, uint8 hint);

/* engine/cell.c */
extern int	WideCellLevel(const WideCell *cell);
extern int	WideCellCompare(const WideCell *a, const WideCell *b);
extern int	WideKeyCompare(const char *a, uint32 alen, const char *b, uint32 blen);
extern bool WideCellSameColumn(const WideCell *a, const WideCell *b);

/* engine/merge.c */
typedef struct WideMerger WideMerger;
extern WideMerger *WideMergerCreate(const WideSchema *schema, int64 now);
extern bool WideMergerPush(WideMerger *m, const WideCell *cell, WideCell *out);
extern bool WideMergerFinish(WideMerger *m, WideCell *out);

/* engine/sorter.c */
typedef struct WideSorter WideSorter;
extern int	WideCellCompareStable(const WideCell *a, const WideCell *b);
extern WideSorter *WideSorterBegin(void);
extern void WideSorterAdd(WideSorter *s, const WideCell *cell);
extern void WideSorterDone(WideSorter *s);
extern bool WideSorterNext(WideSorter *s, WideCell *cell);
extern void WideSorterEnd(WideSorter *s);

/* engine/schema.c */
extern void WideCheckTableShape(Relation rel);
extern const WideSchema *WideGetSchema(Relation rel);
extern WideSchema *WideSchemaCopy(Relation rel);
extern Jsonb *WideCatalogDocument(Relation rel);
extern const WideFamily *WideSchemaFindFamily(const WideSchema *schema,
											  const char *name, int len);

/* engine/reader.c */
typedef struct WideReader WideReader;
extern WideReader *WideReaderBegin(Relation rel, Snapshot snapshot, int64 now);
extern bool WideReaderNext(WideReader *r, WideCell *cell);
extern void WideReaderEnd(WideReader *r);
extern int64 WideReaderNow(void);

/* am/cellslot.c */
extern int64 WideTimestampToUnix(TimestampTz ts);
extern TimestampTz WideUnixToTimestamp(int64 us);
extern int64 WideNowUnix(void);
extern void WideCheckTimestamp(int64 ts);
extern const WideFamily *WideFamilyForWrite(Relation rel, const WideSchema *schema,
											const char *name, uint32 len);
extern const char *WideValueToBytes(const WideSchema *schema, Datum value,
									uint32 *len);
extern Datum WideBytesToValue(const WideSchema *schema, const char *bytes,
							  uint32 len);
extern int64 WideAggInputFromValue(Relation rel, const WideSchema *schema,
								   const WideFamily *fam, Datum value);
extern Datum WideAggToValue(const WideSchema *schema, int64 acc);
extern void WideCellFromValues(Relation rel, const WideSchema *schema,
							   Datum *values, bool *isnull, WideCell *cell);
extern void WideCellToValues(const WideSchema *schema, const WideCell *cell,
							 Datum *values, bool *isnull);

/* api/families.c */
extern Relation WideOpenWide(Oid relid, LOCKMODE lockmode);

/* am/tableam.c */
extern const TableAmRoutine *WideTableAmRoutine(void);

#endif							/* WIDE_H */
