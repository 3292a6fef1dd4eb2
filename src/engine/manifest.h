/*-------------------------------------------------------------------------
 *
 * manifest.h
 *	  The owner of the metapage: validation, the allocation guard, and the
 *	  hot-standby conflicts of page reuse (see manifest.c for the rules).
 *
 * IDENTIFICATION
 *	  src/engine/manifest.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_MANIFEST_H
#define WIDE_MANIFEST_H

#include "access/generic_xlog.h"
#include "access/transam.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "utils/relcache.h"

struct WideMetaPageData;

/*
 * A change of the metapage: exclusively locked, registered in a Generic WAL
 * record that the caller may add other pages to (state), checked when it is
 * committed.
 */
typedef struct WideManifestTx
{
	Relation	rel;
	Buffer		metabuf;
	GenericXLogState *state;
	struct WideMetaPageData *meta;	/* the image to change */
} WideManifestTx;

extern struct WideMetaPageData *WideManifestBegin(Relation rel,
												  WideManifestTx *tx);
extern XLogRecPtr WideManifestCommit(WideManifestTx *tx);
extern XLogRecPtr WideManifestLog(WideManifestTx *tx);
extern void WideManifestRelease(WideManifestTx *tx);
extern struct WideMetaPageData *WideManifestContinue(WideManifestTx *tx);
extern void WideManifestAbort(WideManifestTx *tx);

/* checking a metapage image */
extern const char *WideManifestProblem(const struct WideMetaPageData *meta,
									   char *buf, size_t buflen);
extern void WideManifestValidate(Relation rel,
								 const struct WideMetaPageData *meta);

/* the run list (inside a WideManifestTx) */
struct WideRunData;
extern bool WideManifestAddWARun(struct WideMetaPageData *meta,
								 const struct WideRunData *run);
extern void WideManifestDropWARuns(struct WideMetaPageData *meta, uint32 gen);
extern void WideManifestAppendRun(Relation rel, struct WideMetaPageData *meta,
								  const struct WideRunData *run);
extern void WideManifestReplaceRuns(Relation rel, struct WideMetaPageData *meta,
									int lo, int hi,
									const struct WideRunData *expect,
									const struct WideRunData *run);
extern void WideManifestReplaceRunsN(Relation rel, struct WideMetaPageData *meta,
									 int lo, int hi,
									 const struct WideRunData *expect,
									 const struct WideRunData *runs, int nnew);

/* the allocation guard: unregistered pages versus the sweep */
extern void WideManifestGuardAllocations(Relation rel);
extern bool WideManifestMayAllocate(Relation rel);
extern bool WideManifestTrySweepLock(Relation rel);
extern void WideManifestSweepUnlock(Relation rel);

/*
 * Edits (inside a WideManifestTx): the only code that assigns a metapage
 * field, besides the run-list functions above and the free queue's in
 * space.c.  test/check-manifest.sh fails the build's tests if another file
 * does.
 */
extern void WideManifestInitImage(struct WideMetaPageData *meta,
								  uint64 epoch);
extern void WideManifestSealGeneration(struct WideMetaPageData *meta);
extern void WideManifestFinishFlush(struct WideMetaPageData *meta);
extern void WideManifestLinkLanePage(struct WideMetaPageData *meta, int lane,
									 BlockNumber blkno);
extern uint32 WideManifestTakeSegid(struct WideMetaPageData *meta);
extern void WideManifestNoteCompaction(struct WideMetaPageData *meta);
extern void WideManifestNoteRunChange(struct WideMetaPageData *meta);
extern void WideManifestSetRangeDels(struct WideMetaPageData *meta,
									 const char *area, uint32 len, uint32 n);
struct WideDropEntry;
extern bool WideManifestAddDrop(struct WideMetaPageData *meta,
								const struct WideDropEntry *e);
extern void WideManifestForgetDrop(struct WideMetaPageData *meta, uint32 i);

/* reading: the write-area lanes a scan of all its records starts from */
extern int	WideManifestLanes(const struct WideMetaPageData *meta,
							  BlockNumber *heads, uint32 *gens);

/* checking an image before it is logged (every rule a page can show) */
extern bool WideManifestWriteAreaEmpty(const struct WideMetaPageData *meta);
extern const char *WideManifestWriteProblem(const struct WideMetaPageData *meta,
											char *buf, size_t buflen);

/* hot-standby conflicts */
extern void WideManifestLogReuse(Relation rel, BlockNumber blkno,
								 FullTransactionId stamp);
extern void WideManifestLogHorizon(Relation rel);

#endif							/* WIDE_MANIFEST_H */
