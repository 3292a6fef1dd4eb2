/*-------------------------------------------------------------------------
 *
 * segment.h
 *	  Segments: sorted immutable runs of records.  Data blocks (block.c,
 *	  compress.c), index blocks (indexblock.c), writing (segment_writer.c),
 *	  reading (segment_reader.c) and the block cache (blockcache.c).
 *
 * IDENTIFICATION
 *	  src/engine/segment.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SEGMENT_H
#define WIDE_SEGMENT_H

#include "lib/stringinfo.h"
#include "storage/relfilenode.h"
#include "utils/relcache.h"
#include "engine/cell.h"
#include "engine/rules.h"

/* an open segment: its header, and (if loaded) its root index */
typedef struct WideIndex WideIndex;
/* the longest bound kept as a seek hint (WideSegment) */
#define WIDE_SEEK_HINT_KEY	64

typedef struct WideSegment
{
	uint32		segid;
	int16		typlen;
	uint64		stream_len;
	uint64		root_off;
	uint32		root_len;
	uint64		ncells;
	uint64		max_seq;
	uint64		epoch;			/* the storage's epoch (WideSegmentOpen only) */
	int			nextents;
	WideExtent *extents;
	uint64	   *cum;			/* pages before extent i */
	int			nroots;
	BlockNumber *roots;			/* header pages */
	int			nblobs;
	WideBlobRef *blobs;			/* blobs the records own */
	WideIndex  *root;
	/*
	 * Where the bound the last WideSegmentWindowStart found lies: a row key
	 * that starts inside data block hint_ii of index block hint_ri, row
	 * hint_row of its directory (segment_reader.c).  The reverse reader's
	 * window then starts right after it, and its iterator takes the
	 * position instead of seeking again.  (A segment never changes, so
	 * the position of a key in it never goes stale.)
	 */
	bool		hint_valid;
	int			hint_ri;
	int			hint_ii;
	int			hint_row;
	uint32		hint_keylen;
	char		hint_key[WIDE_SEEK_HINT_KEY];
} WideSegment;

typedef struct WideIndexEntry
{
	const char *lastrow;		/* last row key covered */
	uint32		lastrowlen;
	/* WIDE_INDEX_HAS_LASTCOL: the family and qualifier of the last record */
	const char *lastfam;
	uint32		lastfamlen;
	const char *lastqual;
	uint32		lastquallen;
	uint32		length;			/* stored block length */
	uint64		offset;			/* stored block offset in the stream */
	uint64		ncells;
	int64		ts_min;
	int64		ts_max;
	uint8		flags;
	/* WIDE_INDEX_ONE_XMIN: the xmin and cmin of every record of the block */
	TransactionId xmin;
	CommandId	cmin;
	/* WIDE_INDEX_ROW_DIR: the stored row directory's length (rowdir.c) */
	uint32		dirlen;
} WideIndexEntry;

#define WIDE_INDEX_HAS_TOMBSTONES	0x01
#define WIDE_INDEX_HAS_LASTCOL		0x02	/* format version 3 */
/*
 * Format version 5: every xmin the data block stores was committed and
 * older than every snapshot when a compaction passed the block through
 * unchanged (blockpass.c); readers take its records as frozen
 */
#define WIDE_INDEX_XMINS_FROZEN		0x04
/*
 * Format version 6: every record of the data block was written by one
 * (sub)transaction and command, whose xmin and cmin follow in the entry;
 * the records store none (block.c: WideBlockFinish)
 */
#define WIDE_INDEX_ONE_XMIN			0x08
/*
 * Format version 7: a stored block of the data block's row directory
 * (rowdir.c) follows the data block in the stream; its length follows in
 * the entry
 */
#define WIDE_INDEX_ROW_DIR			0x10
#define WIDE_INDEX_ALL_FLAGS		0x1f

struct WideIndex
{
	int			n;
	WideIndexEntry *entries;
	char	   *arena;
	const uint8 *bits;			/* row filter, or NULL */
	uint32		nbits;
	uint8		nprobes;
	/* the prefix every lastrow shares, and the 8 bytes after it of each */
	uint32		plen;
	uint64	   *next8;			/* (WideKeyNext8; NULL: none) */
	char		prefix[WIDE_KEY_PREFIX_MAX];	/* (its first plen bytes) */
};

typedef struct WideBlockIter
{
	const char *kstart;			/* the key section */
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
	bool		xmins_frozen;	/* the block's index entry says its stored
								 * xmins are frozen (WIDE_INDEX_XMINS_FROZEN):
								 * read as FrozenTransactionId, unchecked */
	TransactionId block_xmin;	/* what a record storing no xmin reads as:
								 * FrozenTransactionId, or the entry's
								 * (WIDE_INDEX_ONE_XMIN) */
	CommandId	block_cmin;
	uint32		nseq;			/* records read that store a sequence number */
	MemoryContext cxt;			/* where the buffers live */
	bool		skip_quals;		/* qualifiers parsed, not rebuilt: cells
								 * carry an empty one */
	bool		skip_values;	/* values stepped over: cells carry none
								 * (WideBlockIterSkipValues) */
	uint64		ts_unit;		/* of a packed block (WideRawBlock) */
	double		val_div;
	char	   *valbuf;			/* values of a packed block, 8 bytes each */
	uint32		valcap;
	/*
	 * WideBlockIterSetFilter: PUT, ADD and MERGE records keep() rejects (it
	 * sees every record's keys, family, qualifier and hints) are stepped
	 * over; with keep_columns keep() judges columns, and the records that
	 * continue a rejected column are stepped over without asking it
	 */
	bool		(*keep) (const WideCell *cell, void *arg);
	void	   *keep_arg;
	bool		keep_columns;
	bool		col_judged;		/* keep_columns: keep() judged the column of
								 * the last record ... */
	bool		col_rejected;	/* ... and rejected it */
} WideBlockIter;

/*
 * A decompressed data block, as cached: raw, or packed (blockpack.c) and
 * read as it is, each timestamp varint times ts_unit and each value
 * k / val_div (block.c)
 */
typedef struct WideRawBlock
{
	Size		len;
	const char *data;			/* the block in the layout of block.c */
	char	   *mem;			/* the allocation holding it */
	uint64		ts_unit;		/* 1 if raw */
	double		val_div;		/* 0 if the values are stored as they are */
	uint32		seeks;			/* range starts sought in it (segment_reader.c) */
} WideRawBlock;
/* where a row of a data block starts (block.c), and a block's directory */
typedef struct WideBlockRowStart
{
	const char *key;
	uint32		keylen;
	int			i;				/* its first record */
	uint32		koff;			/* offsets in the four sections */
	uint32		toff;
	uint32		aoff;
	uint32		voff;
	int64		ts;				/* the timestamp of the record before */
	uint64		seq;			/* the (stored) sequence number before */
} WideBlockRowStart;

typedef struct WideBlockRows
{
	int			n;
	WideBlockRowStart *rows;
	/*
	 * The bytes every row key of the block starts with (plen of them, those
	 * of rows[0].key), and the 8 bytes of each key after them, big-endian,
	 * zero-padded: a seek compares these first, a small array, instead of
	 * reading every key it passes (block.c)
	 */
	uint32		plen;
	uint64	   *next8;
	char		prefix[WIDE_KEY_PREFIX_MAX];	/* (its first plen bytes) */
} WideBlockRows;

/*
 * A data block a compaction writes into its output unchanged, as it is
 * stored in an input (blockpass.c: WideSegmentWriterAddBlock)
 */
typedef struct WidePassedBlock
{
	const WideIndexEntry *entry;	/* its index entry in the input */
	const char *stored;			/* the stored block (compress.c framing) */
	uint32		stored_len;
	uint32		dirlen;			/* the stored row directory after it
								 * (rowdir.c), or 0 */
	Size		rawlen;			/* its size before compression */
	bool		xmins_frozen;	/* its stored xmins are all frozen */
	TransactionId min_xmin;		/* else the oldest it stores, or Invalid */
	uint64		seq;			/* what its records' sequence numbers are
								 * (none is stored) */
	const uint64 *hashes;		/* row hashes of its rows (WideRowHash) */
	int			nhashes;
	const WideBlobRef *blobs;	/* blobs its records own */
	int			nblobs;
	const WideCell *first;		/* its first record, and its last */
	const WideCell *last;
	uint32		families;		/* families its run may hold (a run's
								 * "families", all bits if unknown) */
} WidePassedBlock;

/*
 * A point of a data block's stored row directory (rowdir.c, format version
 * 7): where a row starts in each section, and the iterator's state there.
 */
typedef struct WideDirPoint
{
	int			i;				/* the row's first record */
	uint32		koff;			/* its offset in the key section */
	uint32		aoff;			/* ... in the aux section */
	uint32		tsn;			/* timestamp varints before it */
	uint32		voff;			/* its offset in the values section (raw) */
	uint32		valn;			/* values before it */
	int64		ts;				/* the timestamp of the record before */
	uint64		seq;			/* the (stored) sequence number before */
	uint32		keyoff;			/* (writer: its row key in a buffer) */
	uint32		keylen;
} WideDirPoint;

typedef struct WideBlockBuilder WideBlockBuilder;
typedef struct WideSegmentWriter WideSegmentWriter;
typedef struct WideSegIter WideSegIter;
typedef struct WideCacheEntry WideCacheEntry;

/* compress.c */
extern void WideBlockStore(const char *raw, Size len, bool data,
						   StringInfo out);
extern void WideBlockStoreRaw(const char *raw, Size len, StringInfo out);
extern char *WideBlockLoad(const char *stored, Size len, Size maxraw,
						   Size *rawlen, const char **why);
extern bool WideBlockLoadData(const char *stored, Size len, Size maxraw,
							  int16 typlen, WideRawBlock *blk,
							  const char **why);
extern bool WideBlockLoadDataKeys(const char *stored, Size len, Size maxraw,
								  int16 typlen, WideRawBlock *blk,
								  const char **why, char **packed,
								  Size *packedlen);
extern uint32 WideBlockChecksum(const char *data, Size len);
extern bool WideBlockInspect(const char *stored, Size len, Size maxraw,
							 uint8 *type, uint32 *stored_crc, uint32 *crc,
							 const char **body, Size *bodylen,
							 const char **why);
extern void WideBlockCompress(const char *raw, Size len, int level,
							  StringInfo out);

/* blockpack.c */
#define WIDE_PACK_SLACK	64		/* a packed block may exceed its raw size */
extern bool WideBlockPack(const char *raw, Size len, StringInfo out,
						  Size *split);
extern bool WideValuesFullPrecision(const char *vals, Size len);
extern bool WideBlockPackFormat(const char *raw, Size len, StringInfo out,
								int format, Size *split);
extern char *WideBlockUnpack(const char *packed, Size len, Size maxraw,
							 Size *rawlen);
extern char *WideBlockUnpackKeys(const char *packed, Size len, Size maxraw,
								 Size *rawlen);
extern const char *WideBlockPackedHeader(const char *packed, Size len,
										 Size maxraw, Size *rawlen,
										 uint64 *unit, double *div);

/* block.c */
extern bool wide_block_one_xmin;	/* GUC (tests) */
extern int	wide_block_pack_format;	/* GUC (benches) */
extern WideBlockBuilder *WideBlockBuilderCreate(int16 typlen);
extern void WideBlockBuilderReset(WideBlockBuilder *b);
extern int	WideBlockBuilderCount(const WideBlockBuilder *b);
extern Size WideBlockBuilderSize(const WideBlockBuilder *b);
extern bool WideBlockBuilderFullFloats(const WideBlockBuilder *b);
extern void WideBlockAdd(WideBlockBuilder *b, const WideCell *c, bool store_seq,
						 bool frozen);
extern void WideBlockFinish(WideBlockBuilder *b, StringInfo out,
							TransactionId *xmin, CommandId *cmin);
extern void WideBlockBuilderSetDirSpacing(WideBlockBuilder *b, Size bytes);
extern int	WideBlockBuilderPoints(const WideBlockBuilder *b,
								   const WideDirPoint **points,
								   const char **keys, int64 *ts0,
								   const char **first, uint32 *firstlen);
extern bool WideBlockIterInit(WideBlockIter *it, const char *data, Size len,
							  int16 typlen, uint64 default_seq, uint64 seq_base);
extern bool WideBlockIterInitBlock(WideBlockIter *it, const WideRawBlock *blk,
								   int16 typlen, uint64 default_seq,
								   uint64 seq_base);
extern void WideBlockIterSetEntry(WideBlockIter *it, const WideIndexEntry *e);
extern bool WideBlockIterNext(WideBlockIter *it, WideCell *c);
extern bool WideBlockIterSkipValues(WideBlockIter *it);
extern void WideBlockIterSetFilter(WideBlockIter *it,
								   bool (*keep) (const WideCell *cell, void *arg),
								   void *arg);
extern void WideBlockIterSetColumnFilter(WideBlockIter *it,
										 bool (*keep) (const WideCell *cell, void *arg),
										 void *arg);
extern int	WideBlockIterSkipColumn(WideBlockIter *it);
extern int	WideBlockIterRowBatch(WideBlockIter *it, const WideRowBatchSpec *spec,
								  uint32 famid, WideRowBatch *b);
extern const char *WideRowBatchKey(WideRowBatch *b, int j, uint32 *len);
extern bool WideBlockIterSkipRows(WideBlockIter *it, const char *key,
								  uint32 keylen, bool incl);
extern WideBlockRows *WideBlockRowsBuild(const WideRawBlock *blk,
										 int16 typlen, uint64 default_seq,
										 uint64 seq_base);
extern int	WideBlockRowsSeek(const WideBlockRows *rows, const char *key,
							  uint32 keylen, bool incl);
extern void WideBlockIterSeekRow(WideBlockIter *it, const WideBlockRows *rows,
								 int j);
extern bool WideBlockIterSeekPoint(WideBlockIter *it, const WideDirPoint *p,
								   const char *key);

/* rowdir.c */
extern void WideRowDirEncode(const WideDirPoint *p, int n, int64 ts0,
							 const char *first, uint32 firstlen,
							 const char *keys, StringInfo out);
extern int	WideRowDirSeek(WideBlockIter *it, const char *dir, Size len,
						   const char *key, uint32 keylen, bool incl);
extern bool WideRowDirCheck(const char *raw, Size rawlen, int16 typlen,
							uint64 default_seq, uint64 seq_base,
							const WideIndexEntry *e, const char *dir,
							Size dirlen, const char **why);
extern void WideBlockIterEnd(WideBlockIter *it);

/* block.c: a data block surveyed for a compaction that may pass it */
typedef enum WideSurveyResult
{
	WIDE_SURVEY_PASS,			/* every record may pass */
	WIDE_SURVEY_REFUSED,		/* a record may not (merge the block) */
	WIDE_SURVEY_BAD				/* the block is malformed */
} WideSurveyResult;

typedef struct WideBlockSurveyOps
{
	bool		(*family_ok) (const char *fam, uint32 famlen, uint32 famid,
							  void *arg);
	bool		(*xmin_ok) (TransactionId xmin, void *arg);
	void	   *arg;
} WideBlockSurveyOps;

extern WideSurveyResult WideBlockSurvey(const WideRawBlock *blk, int16 typlen,
										bool xmins_frozen,
										TransactionId block_xmin,
										const WideBlockSurveyOps *ops,
										uint64 *hashes, int maxhashes,
										int *nhashes, StringInfo lastrow,
										WideCell *last);

/* indexblock.c */
extern uint64 WideRowHash(const char *key, uint32 len);
extern void WideIndexEncode(const WideIndexEntry *entries, int n,
							const uint64 *hashes, int nhashes, StringInfo out);
extern WideIndex *WideIndexDecode(const char *data, Size len, bool has_filter);
extern bool WideIndexMayContain(const WideIndex *idx, uint64 h);
extern int	WideIndexSeek(const WideIndex *idx, const char *key, uint32 keylen);
extern void WideIndexFree(WideIndex *idx);

/* segment_writer.c */
extern WideSegmentWriter *WideSegmentWriterBegin(Relation rel, int16 typlen);
extern void WideSegmentWriterCopyBlobs(WideSegmentWriter *w, Relation src);
struct WideRangeDels;
extern void WideSegmentWriterKeepSeqs(WideSegmentWriter *w,
									  const struct WideRangeDels *ranges);
extern void WideSegmentWriterKeepNextSeq(WideSegmentWriter *w);
extern void WideSegmentWriterKeepDrops(WideSegmentWriter *w,
									   const WideDropRule *drops, int n);
extern void WideSegmentWriterKeepLike(WideSegmentWriter *w,
									  const WideSegmentWriter *from);
extern void WideSegmentWriterMoveBlobs(WideSegmentWriter *w, BlockNumber from);
extern void WideSegmentWriterPart(WideSegmentWriter *w, uint64 nrecords);
extern bool WideSegmentWriterJoin(WideSegmentWriter *w, const char *lastrow,
								  uint32 lastrowlen);
extern void WideSegmentWriterAdd(WideSegmentWriter *w, const WideCell *c,
								 bool frozen);
extern void WideSegmentWriterAddBlock(WideSegmentWriter *w,
									  const WidePassedBlock *pb);
extern bool WideSegmentWriterFinish(WideSegmentWriter *w, WideRunData *run);
extern void WideSegmentWriterCopyRun(WideSegmentWriter *w, const WideRunData *src,
									 WideRunData *run);
extern const WideBlobRef *WideSegmentWriterBlobs(const WideSegmentWriter *w,
												 int *n);
extern void WideSegmentWriterEnd(WideSegmentWriter *w);

/* segment_reader.c */
/* header pages read by WideSegmentReadHeaders */
typedef struct WideHeaderSource
{
	BlockNumber nblocks;		/* pages of the table */
	/* header page blkno (< nblocks), held until release */
	const char *(*get) (void *arg, BlockNumber blkno);
	void		(*release) (void *arg);
	/* raises the error of damage found (never returns) */
	void		(*corrupt) (void *arg, uint32 segid, const char *what,
							uint64 where);
	void	   *arg;
} WideHeaderSource;
extern WideSegment *WideSegmentReadHeaders(const WideHeaderSource *src,
										   BlockNumber root);
extern WideSegment *WideSegmentLoad(Relation rel, BlockNumber root,
									bool with_index);
extern void WideSegmentFree(WideSegment *seg);
extern WideSegment *WideSegmentOpen(Relation rel, const WideRunData *run,
									WideCacheEntry **pin);
extern void WideSegmentReadBytes(Relation rel, const WideSegment *seg,
								 uint64 off, uint32 len, char *dst);
extern char *WideSegmentReadBlock(Relation rel, const WideSegment *seg,
								  uint64 off, uint32 len, Size *rawlen);
extern WideIndex *WideSegmentOpenIndex(Relation rel, const WideSegment *seg,
									   const WideIndexEntry *e,
									   WideCacheEntry **pin);
extern WideRawBlock *WideSegmentOpenBlock(Relation rel, const WideSegment *seg,
										  const WideIndexEntry *e,
										  WideCacheEntry **pin, bool cache);
extern void WideSegmentCloseBlock(WideRawBlock *blk, WideCacheEntry *pin);
extern void WideSegmentLoadDataBlock(Relation rel, const WideSegment *seg,
									 const WideIndexEntry *e,
									 WideRawBlock *blk, char **stored,
									 char **packed, Size *packedlen);
extern void WideSegmentFreeDataBlock(WideRawBlock *blk, char *stored);
extern void WideSegmentCorrupt(Relation rel, const WideSegment *seg,
							   const char *what, uint64 off);
extern WideSegIter *WideSegIterBegin(Relation rel, const WideRunData *run,
									 const WideKeyRange *range);
extern bool WideSegIterNext(WideSegIter *it, WideCell *cell);
extern bool WideSegIterRestart(WideSegIter *it, const WideKeyRange *range);

/* WideSegIterNext as a merge source (sort.h; arg: the iterator) */
static inline bool
WideSegIterSource(void *arg, WideCell *cell)
{
	return WideSegIterNext((WideSegIter *) arg, cell);
}
extern bool WideSegIterSkipColumn(WideSegIter *it, const WideCell *col,
								  WideCell *cell);
extern WideSegment *WideSegIterSegment(WideSegIter *it);
extern uint64 WideSegIterBlocks(const WideSegIter *it);
extern uint64 WideSegIterBlocksKept(const WideSegIter *it);
extern uint64 WideRowDirSeeks(void);
extern uint64 WideSegIterSkippedRecords(const WideSegIter *it, uint64 *blocks);
struct WideTsPrune;
extern void WideSegIterSetPrune(WideSegIter *it, const struct WideTsPrune *prune);
extern void WideSegIterSkipQualifiers(WideSegIter *it);
extern void WideSegIterSetFilter(WideSegIter *it,
								 bool (*keep) (const WideCell *cell, void *arg),
								 void *arg);
extern void WideSegIterSetColumnFilter(WideSegIter *it,
									   bool (*keep) (const WideCell *cell, void *arg),
									   void *arg);
extern WideBlockIter *WideSegIterBlock(WideSegIter *it);
extern void WideSegIterSkipped(const WideSegIter *it, uint64 *blocks,
							   uint64 *indexes);
extern void WideSegIterEnd(WideSegIter *it);
extern bool WideSegmentWindowStart(Relation rel, const WideRunData *run,
								   const char *hi, uint32 hilen, bool hi_incl,
								   int nrows, StringInfo out);
extern int	WideSegmentLastRow(Relation rel, const WideRunData *run,
							   const WideKeyRange *range, const char *hi,
							   uint32 hilen, bool hi_incl, WideBlockIter *bi,
							   bool (*fn) (const WideCell *cell, void *arg),
							   void *arg, uint64 *nrecords);

/* blockcache.c */
extern WideCacheEntry *WideCacheLookup(Relation rel, uint64 epoch,
									   uint32 segid,
									   uint64 max_seq, uint32 kind,
									   uint64 offset, void **object);
extern bool WideCacheAdmit(Relation rel, uint64 epoch, uint32 segid,
						   uint64 max_seq, uint32 kind, uint64 offset);
extern MemoryContext WideCacheNewContext(void);
extern WideCacheEntry *WideCacheInsert(Relation rel, uint64 epoch,
									   uint32 segid,
									   uint64 max_seq, uint32 kind,
									   uint64 offset, MemoryContext cxt,
									   void **object);
extern void WideCacheRelease(WideCacheEntry *e);

/* sharedcache.c: decompressed blocks shared by every backend */
typedef struct WideSharedMeta
{
	uint64		ts_unit;		/* a data block's WideRawBlock fields */
	double		val_div;
	uint32		data_off;		/* of its data in the payload */
} WideSharedMeta;

typedef struct WideSharedCacheCounts
{
	uint64		size;
	uint64		used;
	uint64		entries;
	uint64		hits;
	uint64		misses;
	uint64		inserts;
	uint64		evictions;
} WideSharedCacheCounts;

extern int	wide_shared_block_cache_size;
extern void WideInstallSharedCache(void);
extern char *WideSharedCacheGet(RelFileNode node, uint64 epoch,
								uint32 segid,
								uint64 max_seq, uint32 kind, uint64 offset,
								uint32 stored_len, Size *len,
								WideSharedMeta *meta);
extern void WideSharedCachePut(RelFileNode node, uint64 epoch,
							   uint32 segid, uint64 max_seq,
							   uint32 kind, uint64 offset, uint32 stored_len,
							   const char *payload, Size len,
							   const WideSharedMeta *meta);
extern bool WideSharedCacheStats(WideSharedCacheCounts *c);

#endif							/* WIDE_SEGMENT_H */
