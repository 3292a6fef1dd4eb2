/*-------------------------------------------------------------------------
 *
 * format.h
 *	  On-disk formats of the wide storage engine: limits of the data model,
 *	  record kinds and flags, page types, the metapage, segment headers.
 *	  docs/format.md describes the same layout in prose.
 *
 *	  Only plain data and constants: no function is declared here.
 *
 * IDENTIFICATION
 *	  src/engine/format.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_FORMAT_H
#define WIDE_FORMAT_H

#include "access/transam.h"
#include "storage/block.h"
#include "storage/bufpage.h"

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

/* record flags (on disk) */
#define WIDE_REC_XMIN_COMMITTED	0x01	/* hint: xmin known committed */
#define WIDE_REC_XMIN_INVALID	0x02	/* hint: xmin known aborted */
#define WIDE_REC_VALUE_BLOB		0x04	/* value stored in blob pages */
#define WIDE_REC_BODY_BLOB		0x08	/* key/qualifier/value in blob pages */
#define WIDE_REC_ALL_FLAGS		0x0f

/* Reference to a value kept out of line, in a chain of blob pages. */
typedef struct WideBlobRef
{
	BlockNumber first;			/* first blob page */
	uint32		length;			/* bytes */
} WideBlobRef;

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
#define WIDE_FORMAT_VERSION		7			/* 2: packed data blocks; 3: index
											 * entries name their last column;
											 * 4: delta coded float8 values;
											 * 5: data blocks whose stored
											 * xmins are frozen (index entry
											 * flag 0x04), range tombstones
											 * and drops (wide.drop_before)
											 * in the metapage; 6: runs
											 * name the families they hold
											 * (WIDE_RUN_FAMILIES), Huffman
											 * coded float8 values, row keys
											 * as digit steps (blockpack.c),
											 * one xmin for a data block's
											 * records, in its index entry
											 * (flag 0x08); 7: a row
											 * directory after a data block
											 * (index entry flag 0x10,
											 * rowdir.c) */
#define WIDE_FORMAT_OLDEST		1			/* oldest version read */
#define WIDE_NLANES				4			/* write-area insertion lanes */
#define WIDE_MAX_RUNS			24			/* segments listed in the metapage */
#define WIDE_MAX_WA_RUNS		8			/* bulk-loaded runs of the write area */
#define WIDE_FREE_SLOTS			100			/* free-space queue entries */
#define WIDE_RUN_KEY_PREFIX		32			/* bytes of bounding row keys kept */

/*
 * A range tombstone: deletes every record of the rows in [start, end)
 * (of one family, or of all) whose sequence number is smaller than its
 * own, as a row (family) tombstone of each of those rows would.  Kept in
 * the metapage, not in a run, so that every reader of any part of the
 * range finds it with the state of the table it reads (rangedel.c).
 */
#define WIDE_RANGEDEL_SPACE		768		/* metapage bytes for range tombstones */
#define WIDE_RANGEDEL_HAS_END	0x01	/* end key given (else: no end) */

typedef struct WideRangeDelHeader
{
	uint64		seq;			/* write order, as a record's */
	TransactionId xmin;			/* the deleting (sub)transaction */
	CommandId	cmin;
	uint32		gen;			/* write-area generation it was written in */
	uint32		ncells;			/* cells it deleted (saturating), for VACUUM */
	uint16		startlen;		/* start key, inclusive */
	uint16		endlen;			/* end key, exclusive */
	uint8		famlen;			/* 0: every family */
	uint8		flags;			/* WIDE_RANGEDEL_* */
} WideRangeDelHeader;

/* bytes of a range tombstone entry: header, keys, family, MAXALIGNed */
static inline uint32
WideRangeDelEntrySize(const WideRangeDelHeader *h)
{
	return MAXALIGN(sizeof(WideRangeDelHeader) + h->startlen + h->endlen + h->famlen);
}

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
	uint32		ntombstones;	/* tombstone records (saturating; 0 in runs
								 * written before it was counted) */
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
	uint32		families;		/* format 6, with WIDE_RUN_FAMILIES: bit
								 * famid % 32 is set for the family
								 * incarnation of every record in the run
								 * (all bits for a row tombstone); was
								 * padding before (not to be read without
								 * the flag) */
} WideRunData;

/* "families" took the descriptor's tail padding: the metapage is unchanged */
StaticAssertDecl(sizeof(WideRunData) == 136, "a run descriptor is 136 bytes");

#define WIDE_RUN_HI_TRUNCATED	0x0001	/* hi_key is a prefix of the largest */
#define WIDE_RUN_HAS_TOMBSTONES	0x0002
#define WIDE_RUN_ONE_VERSION	0x0004	/* no column has two records (runs
										 * written before it was defined lack
										 * it, which is only conservative) */
#define WIDE_RUN_WINDOWED		0x0008	/* output of a time-windowed merge
										 * (compaction.c): "gen" names the
										 * merge, and the run holds either
										 * the cells of one time window of
										 * families with a max age, or the
										 * rest (tombstones, other families) */
#define WIDE_RUN_BY_COMPACTION	0x0010	/* "gen" is the number of the
										 * compaction that wrote the run
										 * (metapage "compactions" + 1) */
#define WIDE_RUN_FAMILIES		0x0020	/* "families" is set (format 6); a
										 * run without it may hold any family */
#define WIDE_RUN_ONE_PER_CELL	0x0040	/* no two records share their
										 * coordinates (row, family,
										 * qualifier, timestamp): format 6;
										 * runs written before lack it, which
										 * is only conservative */

/* the bit of family incarnation famid in a run's "families" */
static inline uint32
WideFamilyBit(uint32 famid)
{
	return (uint32) 1 << (famid % 32);
}

/* may the run hold records of family incarnation famid? */
static inline bool
WideRunMayHoldFamily(const WideRunData *run, uint32 famid)
{
	return !(run->flags & WIDE_RUN_FAMILIES) ||
		(run->families & WideFamilyBit(famid)) != 0;
}

/*
 * A drop (wide.drop_before): every PUT, ADD or MERGE record of family
 * incarnation famid (0: of every family) with ts < before and a sequence
 * number below seq is deleted, for the snapshots that see transaction xid
 * committed (rules.c, dropbefore.c).  Zeroes in a metapage of format 4 or
 * older: no drop.
 */
typedef struct WideDropEntry
{
	TransactionId xid;			/* the transaction that dropped */
	uint32		famid;			/* family incarnation, 0: all */
	int64		before;			/* exclusive upper bound of ts dropped */
	uint64		seq;			/* records written before it are dropped */
	uint64		frozen_at;		/* "compactions" when it was frozen */
	uint32		generation;		/* write-area generation when it was made */
	uint32		flags;			/* WIDE_DROP_* */
} WideDropEntry;

#define WIDE_DROP_FROZEN		0x0001	/* xid committed and visible to every
										 * snapshot (xid then means nothing) */
#define WIDE_MAX_DROPS			8

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

	/*
	 * A sequence number taken when this metapage was made (storage.c): it
	 * tells this storage from what an earlier reset of the same relfilenode,
	 * or a dropped relation with the same relfilenode, held, for the block
	 * caches' keys.  0 in a metapage made before it existed (zeroes there).
	 */
	uint64		epoch;

	/*
	 * Range tombstones (rangedel.c): nrangedels entries packed into the
	 * first rangedel_len bytes of rangedels, each a WideRangeDelHeader and
	 * its start key, end key and family, MAXALIGNed.  Zeroes (none) in a
	 * metapage of format 4 or older.
	 */
	uint32		nrangedels;
	uint32		rangedel_len;
	char		rangedels[WIDE_RANGEDEL_SPACE];
	/* format 5: pending drops (wide.drop_before), oldest first */
	uint32		ndrops;
	uint32		pad2;
	WideDropEntry drops[WIDE_MAX_DROPS];
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

/* values up to this long are stored (and returned) with a 1-byte header */
#define WIDE_SHORT_VALUE	126

/* write-area records larger than this spill into blob pages */
#define WIDE_WA_MAX_INLINE	2000

#endif							/* WIDE_FORMAT_H */
