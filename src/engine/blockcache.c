/*-------------------------------------------------------------------------
 *
 * blockcache.c
 *	  A backend-local cache of opened segments and decoded blocks.
 *
 * Decoding a block (CRC, zstd, parsing) costs more than reading its pages
 * from shared buffers, so each backend keeps the blocks it decoded, up to
 * wide.block_cache_size bytes, least recently used out first.  Entries are
 * keyed by (relfilenode, backend, epoch, segment id, segment's largest
 * sequence number, kind, offset): segments never change once written, and
 * segment ids are never reused within one epoch of a relfilenode's storage.
 * The epoch (storage.c, WideStorageEpoch) is a sequence number taken
 * whenever a metapage is made: a TRUNCATE that keeps the relfilenode (of a
 * table created or truncated in the same transaction) starts segment ids
 * again from 1, and a new table can get a dropped table's relfilenode, but
 * neither gets an epoch that was used before.  The backend (of a temporary
 * table, else InvalidBackendId) tells a temporary table from a permanent
 * one with the same relfilenode.
 *
 * An entry in use is pinned; pins are released by their users, and any
 * left (an error may skip a release) at the end of the transaction.
 *
 * IDENTIFICATION
 *	  src/engine/blockcache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "common/hashfn.h"
#include "lib/ilist.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "wide.h"
#include "engine/segment.h"

int			wide_block_cache_size = 64 * 1024;	/* kB */

typedef struct CacheKey
{
	RelFileNode node;
	BackendId	backend;		/* a temporary table's, else InvalidBackendId */
	uint64		epoch;			/* the storage's epoch (WideStorageEpoch) */
	uint32		segid;
	uint32		kind;
	uint64		max_seq;
	uint64		offset;
} CacheKey;

struct WideCacheEntry
{
	CacheKey	key;			/* hash key: must be first */
	MemoryContext cxt;			/* everything the object owns */
	void	   *object;
	Size		size;
	int			pins;
	dlist_node	lru;
	dlist_node	pinned;			/* in pinned_list while pins > 0 */
};

static HTAB *cache = NULL;
static dlist_head lru = DLIST_STATIC_INIT(lru);
static dlist_head pinned_list = DLIST_STATIC_INIT(pinned_list);
static Size cached_bytes = 0;

/*
 * The entry of each kind found last: a reader looks the same segment, index
 * block and directory up again and again (a reverse read's window start,
 * then its reader), and a key comparison is cheaper than hashing and
 * probing.  Cleared when its entry is evicted.
 */
#define RECENT_KINDS	8
static WideCacheEntry *recent[RECENT_KINDS];
static MemoryContext cache_cxt = NULL;

static void
pin(WideCacheEntry *e)
{
	if (e->pins++ == 0)
		dlist_push_tail(&pinned_list, &e->pinned);
}

static void
at_xact_end(XactEvent event, void *arg)
{
	dlist_mutable_iter it;

	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT &&
		event != XACT_EVENT_PREPARE)
		return;
	/* normally empty: an error may have skipped some releases */
	dlist_foreach_modify(it, &pinned_list)
	{
		WideCacheEntry *e = dlist_container(WideCacheEntry, pinned, it.cur);

		e->pins = 0;
		dlist_delete(&e->pinned);
	}
}

static void
cache_init(void)
{
	HASHCTL		ctl;

	cache_cxt = AllocSetContextCreate(TopMemoryContext, "wide block cache",
									  ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(CacheKey);
	ctl.entrysize = sizeof(WideCacheEntry);
	ctl.hcxt = cache_cxt;
	cache = hash_create("wide block cache", 1024, &ctl,
						HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	RegisterXactCallback(at_xact_end, NULL);
}

static void
evict(Size limit)
{
	dlist_mutable_iter it;

	dlist_foreach_modify(it, &lru)
	{
		WideCacheEntry *e = dlist_container(WideCacheEntry, lru, it.cur);

		if (cached_bytes <= limit)
			break;
		if (e->pins > 0)
			continue;
		if (recent[e->key.kind % RECENT_KINDS] == e)
			recent[e->key.kind % RECENT_KINDS] = NULL;
		dlist_delete(&e->lru);
		cached_bytes -= e->size;
		MemoryContextDelete(e->cxt);
		hash_search(cache, &e->key, HASH_REMOVE, NULL);
	}
}

/* the key of an object: zeroed first, as the hash compares its bytes */
static void
make_key(CacheKey *key, Relation rel, uint64 epoch, uint32 segid,
		 uint64 max_seq, uint32 kind, uint64 offset)
{
	memset(key, 0, sizeof(*key));
	key->node = rel->rd_node;
	key->backend = rel->rd_backend;
	key->epoch = epoch;
	key->segid = segid;
	key->kind = kind;
	key->max_seq = max_seq;
	key->offset = offset;
}

/*
 * WideCacheLookup -- find and pin a cached object; NULL if absent.
 */
WideCacheEntry *
WideCacheLookup(Relation rel, uint64 epoch, uint32 segid, uint64 max_seq, uint32 kind,
				uint64 offset, void **object)
{
	CacheKey	key;
	WideCacheEntry *e;

	if (cache == NULL)
		cache_init();
	make_key(&key, rel, epoch, segid, max_seq, kind, offset);
	e = recent[kind % RECENT_KINDS];
	if (e == NULL || memcmp(&e->key, &key, sizeof(key)) != 0)
	{
		e = hash_search(cache, &key, HASH_FIND, NULL);
		if (e == NULL)
			return NULL;
		recent[kind % RECENT_KINDS] = e;
	}
	pin(e);
	dlist_move_tail(&lru, &e->lru);
	*object = e->object;
	return e;
}

/*
 * Blocks read once (WideCacheAdmit): the hashes of the keys of the last
 * blocks a point read decoded and did not cache, one per slot (a newer key
 * takes its slot).  32 KB, allocated once.
 */
#define SEEN_SLOTS	4096
static uint64 *seen = NULL;

/*
 * WideCacheAdmit -- whether a point read should cache the block of this
 * key, which it did not find cached: true if a read since the backend
 * started decoded it before (its key is remembered), else false, and the
 * key is remembered.  A block read by one point read only is then decoded
 * into memory the reader frees and reuses, not into memory the cache
 * keeps: cached, every new block is memory the backend never touched
 * before, a page fault per 4 kB (a DELETE or SELECT of 100 readings of
 * blocks no statement read before: about 200 of them, a fifth of its
 * CPU), and a block read once by a random point read is mostly evicted
 * before it is read again.  A block read a second time is cached, as
 * before.  A lost key (two keys sharing a slot) only delays the caching,
 * a false match only makes it early.
 */
bool
WideCacheAdmit(Relation rel, uint64 epoch, uint32 segid, uint64 max_seq,
			   uint32 kind, uint64 offset)
{
	CacheKey	key;
	uint64		h;
	uint64	   *slot;

	if (seen == NULL)
		seen = MemoryContextAllocZero(TopMemoryContext, sizeof(uint64) * SEEN_SLOTS);
	make_key(&key, rel, epoch, segid, max_seq, kind, offset);
	h = hash_bytes_extended((const unsigned char *) &key, sizeof(key), 0) | 1;
	slot = &seen[(h >> 1) % SEEN_SLOTS];
	if (*slot == h)
		return true;
	*slot = h;
	return false;
}

/*
 * WideCacheNewContext -- a memory context for an object about to be cached.
 */
MemoryContext
WideCacheNewContext(void)
{
	if (cache == NULL)
		cache_init();
	return AllocSetContextCreate(cache_cxt, "wide cached block",
								 ALLOCSET_SMALL_SIZES);
}

/*
 * WideCacheInsert -- cache (and pin) an object that lives in cxt.  If the
 * key is already present (a nested lookup filled it), the new copy is
 * dropped and the cached one returned.
 */
WideCacheEntry *
WideCacheInsert(Relation rel, uint64 epoch, uint32 segid, uint64 max_seq, uint32 kind,
				uint64 offset, MemoryContext cxt, void **object)
{
	CacheKey	key;
	WideCacheEntry *e;
	bool		found;

	make_key(&key, rel, epoch, segid, max_seq, kind, offset);
	e = hash_search(cache, &key, HASH_ENTER, &found);
	if (found)
	{
		MemoryContextDelete(cxt);
		pin(e);
		dlist_move_tail(&lru, &e->lru);
		*object = e->object;
		return e;
	}
	e->cxt = cxt;
	e->object = *object;
	e->size = MemoryContextMemAllocated(cxt, true);
	e->pins = 0;
	pin(e);
	dlist_push_tail(&lru, &e->lru);
	cached_bytes += e->size;
	evict((Size) wide_block_cache_size * 1024);
	return e;
}

/*
 * WideCacheRelease -- unpin.
 */
void
WideCacheRelease(WideCacheEntry *e)
{
	if (e != NULL && e->pins > 0 && --e->pins == 0)
		dlist_delete(&e->pinned);
}
