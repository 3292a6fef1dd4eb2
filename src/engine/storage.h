/*-------------------------------------------------------------------------
 *
 * storage.h
 *	  Pages of a wide relation: reading and writing pages and the metapage
 *	  (storage.c), free space (space.c), write order (seq.c), blob chains
 *	  (blob.c).
 *
 * IDENTIFICATION
 *	  src/engine/storage.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_STORAGE_H
#define WIDE_STORAGE_H

#include "access/xlogdefs.h"
#include "storage/buf.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"
#include "engine/format.h"

/* manifest.c: the metapage; storage.c: pages */
extern void WideInitMetaPage(Page page, uint64 epoch);
extern void WideInitPage(Page page, uint16 page_type, uint32 owner);
extern Buffer WideReadMeta(Relation rel, int lockmode);
extern bool WideMetaLost(Relation rel, Buffer metabuf);
extern WideMetaPage WideCheckMeta(Relation rel, Buffer metabuf);
extern uint64 WideStorageEpoch(Relation rel);
extern void WideWritePage(Relation rel, BlockNumber blkno, Page image,
						  BufferAccessStrategy strategy);
extern Buffer WideReadPage(Relation rel, BlockNumber blkno, int lockmode,
						   uint16 page_type);
extern void WideCheckPage(Relation rel, Buffer buf, uint16 page_type);

/* space.c: free space */
extern bool WideSpaceFree(WideMetaPage meta, uint32 kind, BlockNumber start,
						  uint32 npages);
extern BlockNumber WideSpaceAlloc(Relation rel, WideMetaPage meta, uint32 want,
								  bool contiguous, uint32 *got);
extern Buffer WideSpaceAllocOne(Relation rel, WideMetaPage meta);
extern BlockNumber WideSpaceTrimTail(WideMetaPage meta, BlockNumber nblocks);
extern void WideSpaceResetQueue(WideMetaPage meta);
extern bool WideSpaceQueueReusable(WideMetaPage meta, BlockNumber start,
								   uint32 npages);

/* seq.c: write order */
extern uint64 WideSeqNext(Relation rel, uint64 n);
extern void WideSeqAfterWrite(Relation rel, uint64 last, XLogRecPtr end);

/* blob.c: values kept out of line */
extern uint32 WideBlobPages(uint32 len);
extern void WideBlobFillPage(Page page, BlockNumber first, uint32 i,
							 const char *data, uint32 len);
extern void WideBlobWriteRest(Relation rel, WideBlobRef ref, uint32 from,
							  const char *data);
extern WideBlobRef WideBlobWrite(Relation rel, const char *data, uint32 len);
extern void WideBlobCheckRef(Relation rel, WideBlobRef ref);
extern char *WideBlobRead(Relation rel, WideBlobRef ref);

#endif							/* WIDE_STORAGE_H */
