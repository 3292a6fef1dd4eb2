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
#include "storage/bufmgr.h"
#include "storage/relfilenode.h"
#include "lib/stringinfo.h"
#include "storage/bufpage.h"
#include "storage/lockdefs.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
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
 * A DEL_CELLS range is [ts, ts_to); ts_to = WIDE_TS_NO_END means "no end":
 * every version from ts on, including ts = PG_INT64_MAX, which no exclusive
 * end could cover.
 */
#define WIDE_TS_NO_END	PG_INT64_MAX

/* is ts in the timestamp range [from, to) (to may be WIDE_TS_NO_END)? */
static inline bool
WideTsInRange(int64 ts, int64 from, int64 to)
{
	return ts >= from && (to == WIDE_TS_NO_END || ts < to);
}

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
#define WIDE_REC_ALL_FLAGS		0x0f

/* WideCell.same: hints from a sorted stream (a block iterator) */
#define WIDE_SAME_ROW		0x01
#define WIDE_SAME_FAMILY	0x02
#define WIDE_SAME_QUAL		0x04

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
	int64		ts_to;			/* DEL_CELLS: exclusive end, or WIDE_TS_NO_END */
	uint64		seq;			/* write order */
	TransactionId xmin;			/* FrozenTransactionId once visible to all */
	CommandId	cmin;
	WideBlobRef blob;			/* valid when WIDE_REC_VALUE_BLOB */
	/* what this record shares with the previous one of the same stream */
	uint8		same;			/* WIDE_SAME_* */
	/* the same bytes as a varlena datum, when available without a copy */
	const char *key_datum;
	const char *qual_datum;
	const char *value_datum;
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

/*
 * An accumulator being folded (aggregate.c).  sum/min/max keep an int64;
 * hll keeps WIDE_HLL_M one-byte registers.
 */
#define WIDE_HLL_P			14
#define WIDE_HLL_M			(1 << WIDE_HLL_P)
#define WIDE_HLL_SPARSE_MAX	2048	/* non-zero registers of a sparse sketch */

typedef struct WideAcc
{
	WideAggregate agg;
	bool		empty;			/* nothing folded yet */
	int64		i;				/* sum, min, max */
	uint8	   *regs;			/* hll registers */
	uint32		nonzero;		/* hll: set by WideAccSize */
	MemoryContext cxt;
} WideAcc;

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
#define WIDE_PAGE_SEGMENT		0x5704	/* a page of a segment's byte stream */
#define WIDE_PAGE_SEGROOT		0x5705	/* a segment's header: extents, index root */

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
#define WIDE_MAX_RUNS			24			/* segments listed in the metapage */
#define WIDE_MAX_WA_RUNS		8			/* bulk-loaded runs of the write area */
#define WIDE_FREE_SLOTS			100			/* free-space queue entries */
#define WIDE_RUN_KEY_PREFIX		32			/* bytes of bounding row keys kept */

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

/*
 * A run: one segment, a sorted immutable set of records.  Runs are listed
 * oldest first; every record of a run was written after every record of the
 * runs before it (the invariant compaction relies on, see compaction.c).
 */
typedef struct WideRunData
{
	uint32		segid;			/* segment id, never reused */
	BlockNumber root;			/* first page of the segment's header chain */
	uint32		gen;			/* write-area runs: their generation */
	uint32		pad;
	uint64		seq_base;		/* added to the sequence numbers stored */
	uint64		ncells;			/* records in the segment */
	uint64		raw_bytes;		/* encoded size before compression */
	uint32		npages;			/* pages the segment occupies */
	TransactionId min_xmin;		/* oldest unfrozen xmin, or Invalid */
	uint64		min_seq;
	uint64		max_seq;
	uint16		flags;
	uint8		lo_len;			/* bytes of lo_key kept */
	uint8		hi_len;			/* bytes of hi_key kept; hi is then a prefix */
	char		lo_key[WIDE_RUN_KEY_PREFIX];	/* smallest row key (prefix) */
	char		hi_key[WIDE_RUN_KEY_PREFIX];	/* largest row key (prefix) */
} WideRunData;

#define WIDE_RUN_HI_TRUNCATED	0x0001	/* hi_key is a prefix of the largest */
#define WIDE_RUN_HAS_TOMBSTONES	0x0002

/* free-space queue entries (see space.c) */
#define WIDE_FREE_EXTENT		1	/* pages start .. start+npages-1 */
#define WIDE_FREE_CHAIN			2	/* npages pages linked by "next" */
#define WIDE_FREE_SEGMENT		3	/* a whole segment; npages = extents done */

typedef struct WideFreeEntry
{
	uint32		kind;
	BlockNumber start;
	uint32		npages;
	uint32		pad;
	FullTransactionId stamp;	/* reusable once every snapshot is newer */
} WideFreeEntry;

typedef struct WideMetaPageData
{
	uint32		magic;
	uint32		version;
	uint32		generation;		/* write-area generation (bumped by flush) */
	uint32		nlanes;
	WideLane	lanes[WIDE_NLANES];

	/* a flush in progress: the previous generation, readable until done */
	uint32		flushing;		/* generation being flushed, or 0 */
	WideLane	flush_lanes[WIDE_NLANES];

	uint32		next_segid;
	uint32		nwaruns;		/* write-area runs, of any generation */
	WideRunData waruns[WIDE_MAX_WA_RUNS];
	uint32		nruns;
	uint64		version_counter;	/* bumped whenever the runs change */
	uint64		flushes;
	uint64		compactions;
	WideRunData runs[WIDE_MAX_RUNS];

	uint32		nfree;
	uint32		pad;
	WideFreeEntry free[WIDE_FREE_SLOTS];
} WideMetaPageData;

typedef WideMetaPageData *WideMetaPage;

StaticAssertDecl(sizeof(WideMetaPageData) <= BLCKSZ - MAXALIGN(SizeOfPageHeaderData) -
				 MAXALIGN(sizeof(WidePageOpaqueData)),
				 "the metapage fits a page");

#define WidePageGetMeta(page) ((WideMetaPage) PageGetContents(page))

/* bytes of payload in a blob or segment page */
#define WIDE_PAGE_CAPACITY \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - \
	 MAXALIGN(sizeof(WidePageOpaqueData)))

/* ----------------------------------------------------------------
 *	Segments (segment_writer.c, segment_reader.c, indexblock.c, block.c)
 * ----------------------------------------------------------------
 */
#define WIDE_SEG_MAGIC			0x57534547	/* "WSEG" */

/* a segment's header page (WIDE_PAGE_SEGROOT), followed by entries */
typedef struct WideSegHeader
{
	uint32		magic;
	uint32		segid;
	uint32		nentries_here;	/* extents, then blobs, on this page */
	uint32		nextents;		/* first page only, from here on */
	uint32		nblobs;
	uint32		nheaders;
	int16		typlen;			/* value type's typlen (0: varlena) */
	uint16		flags;
	uint32		root_len;
	uint64		stream_len;
	uint64		root_off;
	uint64		ncells;
	uint64		max_seq;
} WideSegHeader;

typedef struct WideExtent
{
	BlockNumber start;
	uint32		npages;
} WideExtent;

/* an open segment: its header, and (if loaded) its root index */
typedef struct WideIndex WideIndex;
typedef struct WideSegment
{
	uint32		segid;
	int16		typlen;
	uint64		stream_len;
	uint64		root_off;
	uint32		root_len;
	uint64		ncells;
	uint64		max_seq;
	int			nextents;
	WideExtent *extents;
	uint64	   *cum;			/* pages before extent i */
	int			nroots;
	BlockNumber *roots;			/* header pages */
	int			nblobs;
	WideBlobRef *blobs;			/* blobs the records own */
	WideIndex  *root;
} WideSegment;

typedef struct WideIndexEntry
{
	const char *lastrow;		/* last row key covered */
	uint32		lastrowlen;
	uint32		length;			/* stored block length */
	uint64		offset;			/* stored block offset in the stream */
	uint64		ncells;
	int64		ts_min;
	int64		ts_max;
	uint8		flags;
} WideIndexEntry;

#define WIDE_INDEX_HAS_TOMBSTONES	0x01

struct WideIndex
{
	int			n;
	WideIndexEntry *entries;
	char	   *arena;
	const uint8 *bits;			/* row filter, or NULL */
	uint32		nbits;
	uint8		nprobes;
};

/* values up to this long are stored (and returned) with a 1-byte header */
#define WIDE_SHORT_VALUE	126

typedef struct WideBlockIter
{
	const char *k,
			   *kend,
			   *t,
			   *tend,
			   *a,
			   *aend,
			   *v,
			   *end;
	int			ncells;
	int			i;
	int16		fixed;
	bool		error;
	bool		have_row;
	bool		have_qual;
	uint64		default_seq;
	uint64		seq_base;		/* added to stored sequence numbers */
	char	   *rowbuf;
	uint32		rowcap;
	uint32		rowlen;
	const char *row_datum;
	char	   *qualbuf;
	uint32		qualcap;
	uint32		quallen;
	const char *qual_datum;
	const char *fam;
	uint32		famlen;
	uint32		famid;
	int64		ts;
	uint64		seq;
	TransactionId next_xid;		/* every stored xmin precedes it */
	MemoryContext cxt;			/* where the buffers live */
} WideBlockIter;

/* a decompressed data block, as cached */
typedef struct WideRawBlock
{
	Size		len;
	char	   *data;
} WideRawBlock;

/* a range of row keys; has_start/has_end false: unbounded */
typedef struct WideKeyRange
{
	bool		has_start;
	bool		start_incl;
	bool		has_end;
	bool		end_incl;
	bool		is_point;		/* start == end, both included: one row */
	uint32		startlen;
	uint32		endlen;
	const char *start;
	const char *end;
} WideKeyRange;

typedef struct WideBlockBuilder WideBlockBuilder;
typedef struct WideSegmentWriter WideSegmentWriter;
typedef struct WideSegIter WideSegIter;
typedef struct WideCacheEntry WideCacheEntry;
typedef struct WideResolver WideResolver;
typedef struct WideMergeIter WideMergeIter;
typedef bool (*WideSourceNext) (void *arg, WideCell *cell);

typedef struct WideResolveStats
{
	uint64		seen;
	uint64		kept;
	uint64		aborted;
	uint64		covered;
	uint64		superseded;
	uint64		collected;
	uint64		folded;
	uint64		tombstones_dropped;
	uint64		dropped_family;
} WideResolveStats;

typedef struct WideReaderStats
{
	uint64		wa_records;		/* write-area records read */
	uint64		runs_read;		/* runs opened */
	uint64		blocks_read;	/* segment data blocks opened */
	uint64		records;		/* records merged */
	uint64		cells;			/* cells returned */
} WideReaderStats;

/* ----------------------------------------------------------------
 *	Extern declarations
 * ----------------------------------------------------------------
 */

/* module.c: settings */
extern int	wide_flush_threshold;
extern int	wide_block_size;
extern int	wide_compression_level;
extern int	wide_block_cache_size;
extern int	wide_max_runs;
extern double wide_compaction_ratio;

/* engine/storage.c */
extern void WideInitMetaPage(Page page);
extern void WideInitPage(Page page, uint16 page_type, uint32 owner);
extern Buffer WideReadMeta(Relation rel, int lockmode);
extern WideMetaPage WideCheckMeta(Relation rel, Buffer metabuf);
extern void WideWritePage(Relation rel, BlockNumber blkno, Page image,
						  BufferAccessStrategy strategy);
extern Buffer WideReadPage(Relation rel, BlockNumber blkno, int lockmode,
						   uint16 page_type);
extern void WideCheckPage(Relation rel, Buffer buf, uint16 page_type);

/* engine/space.c */
extern bool WideSpaceFree(WideMetaPage meta, uint32 kind, BlockNumber start,
						  uint32 npages);
extern BlockNumber WideSpaceAlloc(Relation rel, WideMetaPage meta, uint32 want,
								  bool contiguous, uint32 *got);
extern Buffer WideSpaceAllocOne(Relation rel, WideMetaPage meta);

/* engine/seq.c */
extern uint64 WideSeqNext(Relation rel, uint64 n);
extern void WideSeqAfterWrite(Relation rel, uint64 last, XLogRecPtr end);

/* engine/record.c */
extern Size WideRecordSize(const WideCell *cell);
extern void WideRecordEncode(const WideCell *cell, char *dst);
extern bool WideRecordDecode(const char *src, Size len, WideCell *cell);
extern void WideRecordDecodeBody(WideCell *cell, const char *body);
extern const char *WideRecordItem(Page page, OffsetNumber off, Size *len,
								  bool *bad);
extern uint8 WideRecordGetFlags(const char *rec);
extern void WideRecordSetHint(char *rec, uint8 flag);

/* engine/blob.c */
extern uint32 WideBlobPages(uint32 len);
extern void WideBlobFillPage(Page page, BlockNumber first, uint32 i,
							 const char *data, uint32 len);
extern void WideBlobWriteRest(Relation rel, WideBlobRef ref, uint32 from,
							  const char *data);
extern WideBlobRef WideBlobWrite(Relation rel, const char *data, uint32 len);
extern void WideBlobCheckRef(Relation rel, WideBlobRef ref);
extern char *WideBlobRead(Relation rel, WideBlobRef ref);

/* engine/writearea.c */
#define WIDE_WA_MAX_INLINE	2000	/* larger records spill into blobs */
extern uint32 WideWriteAreaInsert(Relation rel, WideCell *cells, int ncells);

typedef struct WideWAScan WideWAScan;
extern WideWAScan *WideWAScanBegin(Relation rel, Snapshot snapshot,
								   const BlockNumber *heads, const uint32 *gens,
								   int nlanes);
extern bool WideWAScanNext(WideWAScan *scan, WideCell *cell);
extern void WideWAScanEnd(WideWAScan *scan);

/* engine/visibility.c */
extern bool WideRecordVisible(const WideCell *cell, Snapshot snapshot,
							  uint8 *hint);
extern void WideSerializableRead(Relation rel, Snapshot snapshot);
extern void WideSerializableUnseen(Relation rel, const WideCell *cell,
								   Snapshot snapshot, uint8 hint);
extern void WideSerializableWrite(Relation rel);
extern bool WideRecordVisibleToAll(Relation rel, const WideCell *cell);
extern void WideSetHint(Buffer buf, char *rec, TransactionId xmin, uint8 hint);

/* engine/cell.c */
extern int	WideCellLevel(const WideCell *cell);
extern int	WideCellCompare(const WideCell *a, const WideCell *b);
extern int	WideKeyCompare(const char *a, uint32 alen, const char *b, uint32 blen);
extern bool WideCellSameColumn(const WideCell *a, const WideCell *b);
extern bool WideRowBeforeRange(const WideKeyRange *r, const char *key, uint32 keylen);
extern bool WideRowAfterRange(const WideKeyRange *r, const char *key, uint32 keylen);
extern bool WideRunOverlapsRange(const WideRunData *run, const WideKeyRange *r);

/* engine/rules.c: deletes and GC, for merge.c and resolve.c */
typedef struct WideTombstone
{
	int64		from;			/* a column tombstone's ts range [from, to) */
	int64		to;
	uint64		seq;
} WideTombstone;

typedef struct WideDeletes
{
	uint64		row_del;		/* newest row tombstone in effect */
	uint64		fam_del;		/* newest family tombstone in effect */
	WideTombstone *tombs;		/* column tombstones in effect */
	int			ntombs;
	int			maxtombs;
} WideDeletes;

extern void WideDeletesInit(WideDeletes *d);
extern void WideDeletesEnter(WideDeletes *d, int level);
extern void WideDeletesAdd(WideDeletes *d, const WideCell *tomb);
extern bool WideDeletesCover(const WideDeletes *d, const WideCell *c);
extern bool WideGCCollects(const WideFamily *def, int index, int64 ts,
						   int64 now, bool versions_ok);

/* engine/merge.c */
typedef struct WideMerger WideMerger;
extern WideMerger *WideMergerCreate(Relation rel, const WideSchema *schema, int64 now);
extern void WideMergerPush(WideMerger *m, const WideCell *cell, bool hints);
extern void WideMergerFinish(WideMerger *m);
extern const WideCell *WideMergerPop(WideMerger *m);

/* engine/sorter.c */
typedef struct WideSorter WideSorter;
extern int	WideCellCompareStable(const WideCell *a, const WideCell *b);
extern WideSorter *WideSorterBegin(void);
extern void WideSorterAdd(WideSorter *s, const WideCell *cell);
extern void WideSorterDone(WideSorter *s);
extern bool WideSorterNext(WideSorter *s, WideCell *cell);
extern void WideSorterReset(WideSorter *s);
extern void WideSorterEnd(WideSorter *s);

/* engine/iterator.c */
extern WideMergeIter *WideMergeIterCreate(int maxsources);
extern void WideMergeIterAdd(WideMergeIter *m, WideSourceNext next, void *arg,
							 int order);
extern const WideCell *WideMergeIterNext(WideMergeIter *m);

/* engine/compress.c */
extern void WideBlockStore(const char *raw, Size len, StringInfo out);
extern char *WideBlockLoad(const char *stored, Size len, Size maxraw,
						   Size *rawlen, const char **why);

/* engine/block.c */
extern WideBlockBuilder *WideBlockBuilderCreate(int16 typlen);
extern void WideBlockBuilderReset(WideBlockBuilder *b);
extern int	WideBlockBuilderCount(const WideBlockBuilder *b);
extern Size WideBlockBuilderSize(const WideBlockBuilder *b);
extern void WideBlockAdd(WideBlockBuilder *b, const WideCell *c, bool store_seq,
						 bool frozen);
extern void WideBlockFinish(WideBlockBuilder *b, StringInfo out);
extern bool WideBlockIterInit(WideBlockIter *it, const char *data, Size len,
							  int16 typlen, uint64 default_seq, uint64 seq_base);
extern bool WideBlockIterNext(WideBlockIter *it, WideCell *c);
extern void WideBlockIterEnd(WideBlockIter *it);

/* engine/indexblock.c */
extern uint64 WideRowHash(const char *key, uint32 len);
extern void WideIndexEncode(const WideIndexEntry *entries, int n,
							const uint64 *hashes, int nhashes, StringInfo out);
extern WideIndex *WideIndexDecode(const char *data, Size len, bool has_filter);
extern bool WideIndexMayContain(const WideIndex *idx, uint64 h);
extern int	WideIndexSeek(const WideIndex *idx, const char *key, uint32 keylen);
extern void WideIndexFree(WideIndex *idx);

/* engine/segment_writer.c */
extern WideSegmentWriter *WideSegmentWriterBegin(Relation rel, int16 typlen);
extern void WideSegmentWriterAdd(WideSegmentWriter *w, const WideCell *c,
								 bool frozen);
extern bool WideSegmentWriterFinish(WideSegmentWriter *w, WideRunData *run);
extern const WideBlobRef *WideSegmentWriterBlobs(const WideSegmentWriter *w,
												 int *n);
extern void WideSegmentWriterEnd(WideSegmentWriter *w);

/* engine/segment_reader.c */
extern WideSegment *WideSegmentLoad(Relation rel, BlockNumber root,
									bool with_index);
extern void WideSegmentFree(WideSegment *seg);
extern WideSegment *WideSegmentOpen(Relation rel, const WideRunData *run,
									WideCacheEntry **pin);
extern void WideSegmentReadBytes(Relation rel, const WideSegment *seg,
								 uint64 off, uint32 len, char *dst);
extern char *WideSegmentReadBlock(Relation rel, const WideSegment *seg,
								  uint64 off, uint32 len, Size *rawlen);
extern WideRawBlock *WideSegmentOpenBlock(Relation rel, const WideSegment *seg,
										  const WideIndexEntry *e,
										  WideCacheEntry **pin, bool cache);
extern void WideSegmentCloseBlock(WideRawBlock *blk, WideCacheEntry *pin);
extern WideSegIter *WideSegIterBegin(Relation rel, const WideRunData *run,
									 const WideKeyRange *range);
extern bool WideSegIterNext(WideSegIter *it, WideCell *cell);
extern WideSegment *WideSegIterSegment(WideSegIter *it);
extern uint64 WideSegIterBlocks(const WideSegIter *it);
extern void WideSegIterEnd(WideSegIter *it);
extern bool WideSegmentRowBefore(Relation rel, const WideRunData *run,
								 const char *key, uint32 keylen, StringInfo out);

/* engine/blockcache.c */
extern WideCacheEntry *WideCacheLookup(RelFileNode node, uint32 segid,
									   uint64 max_seq, uint32 kind,
									   uint64 offset, void **object);
extern MemoryContext WideCacheNewContext(void);
extern WideCacheEntry *WideCacheInsert(RelFileNode node, uint32 segid,
									   uint64 max_seq, uint32 kind,
									   uint64 offset, MemoryContext cxt,
									   void **object);
extern void WideCacheRelease(WideCacheEntry *e);

/* engine/aggregate.c */
extern uint64 WideHllHash(const char *data, uint32 len);
extern const char *WideHllCheck(const char *data, uint32 len);
extern double WideHllEstimate(const char *data, uint32 len);
extern void WideAccInit(WideAcc *a, MemoryContext cxt);
extern void WideAccStart(WideAcc *a, WideAggregate agg);
extern void WideAccFold(WideAcc *a, uint8 kind, const char *value, uint32 len);
extern uint32 WideAccSize(WideAcc *a);
extern void WideAccWrite(const WideAcc *a, char *out);

/* engine/resolve.c */
extern int64 WideGCNow(void);
extern WideResolver *WideResolverCreate(Relation rel, const WideSchema *schema,
										bool bottom, int64 gc_now,
										WideSegmentWriter *w);
extern void WideResolverPush(WideResolver *r, const WideCell *c);
extern WideResolveStats WideResolverFinish(WideResolver *r);

/* engine/bulk.c */
extern int	wide_bulk_memory;
extern void WideBulkAdd(Relation rel, WideCell *cells, int n);
extern void WideBulkFinish(Relation rel);

/* engine/flush.c */
extern bool WideFlush(Relation rel);
extern void WideFreeBlobsNotKept(WideMetaPage meta, WideBlobRef *had, int nhad,
								 const WideBlobRef *kept, int nkept);

/* engine/compaction.c */
extern bool WideCompactStep(Relation rel, bool major, uint64 cap);
extern void WideCompactRange(Relation rel, int lo, int hi);
extern void WideCompactForRoom(Relation rel, int slots);

/* am/delete.c */
extern void WideInstallDeleteHooks(void);
#define WIDE_DELETE_KEYS		1
#define WIDE_DELETE_WITH_VALUES	2
extern int	WideDeleteTracking(Relation rel);
extern void WideDeleteRemember(Relation rel, const WideCell *cell, ItemPointer tid,
							   int track);
extern void WideDeleteCell(Relation rel, ItemPointer tid);
extern bool WideDeleteFetch(Relation rel, ItemPointer tid, TupleTableSlot *slot);

/* am/ddl.c */
extern bool WideRelationIsWide(Oid relid);
extern void WideInstallHooks(void);

/* engine/sweep.c */
extern int64 WideSweep(Relation rel);

/* engine/schema.c */
extern void WideCheckTableShape(Relation rel);
extern const WideSchema *WideGetSchema(Relation rel);
extern WideSchema *WideSchemaCopy(Relation rel);
extern WideSchema *WideSchemaCommitted(Relation rel);
extern Jsonb *WideCatalogDocument(Relation rel);
extern const WideFamily *WideSchemaFindFamily(const WideSchema *schema,
											  const char *name, int len);

/* engine/reader.c */
typedef struct WideReader WideReader;
extern WideReader *WideReaderBegin(Relation rel, Snapshot snapshot, int64 now,
								   const WideKeyRange *range);
extern const WideCell *WideReaderNext(WideReader *r);
extern WideReaderStats WideReaderGetStats(const WideReader *r);
extern void WideReaderEnd(WideReader *r);
extern int64 WideReaderNow(void);
typedef struct WideRowCursor WideRowCursor;
extern WideRowCursor *WideRowCursorBegin(Relation rel, Snapshot snapshot,
										 const WideKeyRange *range);
extern bool WideRowCursorPrev(WideRowCursor *c, const char **key, uint32 *keylen);
extern void WideRowCursorEnd(WideRowCursor *c);
extern int	WideRowWriters(Relation rel, const char *key, uint32 keylen,
						   TransactionId **xids, uint64 **seqs);

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
extern int64 WideAggInt(Relation rel, const WideFamily *fam, Oid type,
					   Datum value);
extern uint64 WideHllInputHash(Oid type, Datum value);
extern Datum WideAggToValue(const WideSchema *schema, const WideCell *cell);
extern const WideFamily *WideCellCoordinates(Relation rel, const WideSchema *schema,
											 Datum *values, bool *isnull,
											 WideCell *cell);
extern void WideCellFromValues(Relation rel, const WideSchema *schema,
							   Datum *values, bool *isnull, WideCell *cell);
extern bool WideCellToValues(const WideSchema *schema, const WideCell *cell,
							 Datum *values, bool *isnull, const bool *needed);

/* api/families.c */
extern Relation WideOpenWide(Oid relid, LOCKMODE lockmode);

/* api/mutate.c */
extern void WideArgBytes(FunctionCallInfo fcinfo, int argno, const char *what,
						 const char **p, uint32 *len);
extern int64 WideArgTimestamp(FunctionCallInfo fcinfo, int argno, bool *isnull);
extern Datum WideArgValue(FunctionCallInfo fcinfo, int argno, Oid valtype);
extern Relation WideOpenForWrite(Oid relid, AclMode mode);
extern const WideFamily *WideArgCoordinates(FunctionCallInfo fcinfo, Relation rel,
											const WideSchema *schema, int tsarg,
											Datum *values, bool *isnull);
extern void WideWriteRecords(Relation rel, WideCell *cells, int n);

/* api/mutate_row.c */
extern void WideMutationCell(Relation rel, const WideSchema *schema, const char *key,
							 uint32 keylen, JsonbValue *m, const char *where,
							 WideCell *cell);

/* am/customscan.c */
extern void WideInstallPlanner(void);

/* am/vacuum.c */
struct VacuumParams;
extern void WideMaybeFlush(Relation rel, uint32 wa_pages);
extern double WideEstimateCells(Relation rel);
extern void WideVacuum(Relation rel, struct VacuumParams *params,
					   BufferAccessStrategy bstrategy);

/* am/tableam.c */
extern const TableAmRoutine *WideTableAmRoutine(void);

#endif							/* WIDE_H */
