/*-------------------------------------------------------------------------
 *
 * sharedcache.c
 *	  Decompressed blocks shared by every backend.
 *
 * Each backend keeps the blocks it decoded (blockcache.c), but a new
 * connection starts with that cache empty, and a cache per backend holds
 * each hot block once per connection.  When wide is in
 * shared_preload_libraries, wide.shared_block_cache_size bytes of shared
 * memory keep blocks as a reader decompressed them, so that a backend whose
 * own cache misses copies the block's bytes instead of reading its pages,
 * checking its CRC and decompressing it: a new connection finds the blocks
 * earlier ones read, as a heap scan finds its pages in shared buffers.
 * Without the preload (or with the setting 0) every lookup misses.
 *
 * Layout.  WIDE_SHARED_PARTS partitions, each with its LWLock, a ring of
 * bytes and counters.  A block belongs to the partition its key's hash
 * picks, and one shared hash table, partitioned the same way (as the buffer
 * mapping table is), maps a key to the offset of its entry in the ring:
 *
 *	  entry := header (key, stored length, payload length, meta) payload
 *
 * A partition's ring is a log: an entry is written at its head, and the
 * oldest entries are evicted at its tail until there is room (first in,
 * first out).  When the bytes left before the ring's end are too few, the
 * head goes back to the start and those bytes stay unused until the tail
 * passes them (wrap_at).  A block a backend reads often is read again from
 * the backend's own cache, so what the shared cache sees are mostly a
 * connection's first reads of a block; FIFO serves those as well as LRU
 * would, with no bookkeeping on a hit.
 *
 * Keys are blockcache.c's but the backend: (relfilenode, the storage's epoch, segment id,
 * the segment's largest stored sequence number, kind, offset).  A segment
 * never changes once written, its id is never reused within one epoch of
 * the storage, and an epoch is a sequence number taken when the metapage
 * was made (storage.c), different for every reset of the same relfilenode
 * and every relation that gets the number later, so a key names one
 * block's bytes for the life of the server; an entry also keeps the block's stored
 * length, which a lookup must match.  Shared memory is reset by a crash
 * restart.  Only blocks read through the segment reader's cached paths are
 * put here; wide.verify reads the pages (WideSegmentReadBlock).  A temporary
 * table's blocks are not: no other backend can read them, and its
 * relfilenode may be a permanent relation's too (the key has no backend).
 *
 * Concurrency.  A lookup holds its partition's lock shared while it copies
 * the payload into backend memory; an insert holds it exclusive while it
 * evicts, copies in and enters the key.  Nothing stays pinned: the copy is
 * the backend's.
 *
 * IDENTIFICATION
 *	  src/engine/sharedcache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"

#include "wide.h"
#include "engine/segment.h"

#define WIDE_SHARED_PARTS	16	/* a power of 2 (dynahash's partitions) */

/* an entry's expected size, for the number of hash entries */
#define WIDE_SHARED_MEAN_ENTRY	2048

int			wide_shared_block_cache_size = 64 * 1024;	/* kB */

typedef struct SharedKey
{
	RelFileNode node;
	uint64		epoch;			/* the storage's epoch (WideStorageEpoch) */
	uint32		segid;
	uint32		kind;
	uint64		max_seq;
	uint64		offset;
} SharedKey;

typedef struct SharedHashEntry
{
	SharedKey	key;			/* hash key: must be first */
	Size		off;			/* of the entry in its partition's ring */
} SharedHashEntry;

typedef struct RingEntry
{
	SharedKey	key;
	uint32		stored_len;
	uint32		len;			/* payload bytes */
	Size		total;			/* ring bytes, header included */
	WideSharedMeta meta;
} RingEntry;

#define RING_HEADER	MAXALIGN(sizeof(RingEntry))

typedef struct SharedPart
{
	Size		ring;			/* offset of the ring from the cache's start */
	Size		size;
	Size		head;			/* where the next entry goes */
	Size		tail;			/* the oldest entry */
	Size		wrap_at;		/* end of the lap the tail is in, if wrapped */
	bool		wrapped;		/* the head is a lap ahead of the tail */
	uint64		entries;
	uint64		used;			/* bytes of the entries */
	uint64		inserts;
	uint64		evictions;
	pg_atomic_uint64 hits;
	pg_atomic_uint64 misses;
} SharedPart;

typedef struct SharedCache
{
	SharedPart	parts[WIDE_SHARED_PARTS];
	/* the rings follow */
} SharedCache;

static SharedCache *shared = NULL;
static HTAB *shared_hash = NULL;
static LWLockPadded *shared_locks = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
part_size(void)
{
	Size		total = (Size) wide_shared_block_cache_size * 1024;

	return MAXALIGN_DOWN(total / WIDE_SHARED_PARTS);
}

static long
hash_entries(void)
{
	return (long) ((Size) wide_shared_block_cache_size * 1024 /
				   WIDE_SHARED_MEAN_ENTRY) + WIDE_SHARED_PARTS;
}

static Size
cache_struct_size(void)
{
	return add_size(MAXALIGN(sizeof(SharedCache)),
					mul_size(part_size(), WIDE_SHARED_PARTS));
}

static void
shared_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	if (wide_shared_block_cache_size <= 0)
		return;
	RequestAddinShmemSpace(add_size(cache_struct_size(),
									hash_estimate_size(hash_entries(),
													   sizeof(SharedHashEntry))));
	RequestNamedLWLockTranche("wide shared block cache", WIDE_SHARED_PARTS);
}

static void
shared_startup(void)
{
	bool		found;
	HASHCTL		info;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	if (wide_shared_block_cache_size <= 0)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("wide shared block cache", cache_struct_size(),
							 &found);
	if (!found)
	{
		memset(shared, 0, sizeof(SharedCache));
		for (int i = 0; i < WIDE_SHARED_PARTS; i++)
		{
			SharedPart *p = &shared->parts[i];

			p->size = part_size();
			p->ring = MAXALIGN(sizeof(SharedCache)) + (Size) i * p->size;
			pg_atomic_init_u64(&p->hits, 0);
			pg_atomic_init_u64(&p->misses, 0);
		}
	}
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(SharedKey);
	info.entrysize = sizeof(SharedHashEntry);
	info.num_partitions = WIDE_SHARED_PARTS;
	shared_hash = ShmemInitHash("wide shared block cache keys",
								hash_entries(), hash_entries(), &info,
								HASH_ELEM | HASH_BLOBS | HASH_PARTITION |
								HASH_FIXED_SIZE);
	shared_locks = GetNamedLWLockTranche("wide shared block cache");
	LWLockRelease(AddinShmemInitLock);
}

/*
 * WideInstallSharedCache -- called from _PG_init: when the library is being
 * preloaded, ask for the cache's shared memory.
 */
void
WideInstallSharedCache(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = shared_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = shared_startup;
}

static inline char *
ring_at(SharedPart *p, Size off)
{
	return (char *) shared + p->ring + off;
}

/*
 * lock_key -- fill *key, lock its partition in mode and look it up: its
 * hash entry or NULL, with *hash and *part set
 */
static SharedHashEntry *
lock_key(SharedKey *key, RelFileNode node, uint64 epoch, uint32 segid, uint64 max_seq,
		 uint32 kind, uint64 offset, LWLockMode mode, uint32 *hash,
		 SharedPart **part)
{
	int			partno;

	memset(key, 0, sizeof(*key));
	key->node = node;
	key->epoch = epoch;
	key->segid = segid;
	key->kind = kind;
	key->max_seq = max_seq;
	key->offset = offset;
	*hash = get_hash_value(shared_hash, key);
	partno = *hash % WIDE_SHARED_PARTS;
	*part = &shared->parts[partno];
	LWLockAcquire(&shared_locks[partno].lock, mode);
	return hash_search_with_hash_value(shared_hash, key, *hash, HASH_FIND, NULL);
}

static void
unlock_part(SharedPart *p)
{
	LWLockRelease(&shared_locks[p - shared->parts].lock);
}

/*
 * WideSharedCacheGet -- a copy, palloc'd in the current memory context, of
 * a cached block's payload, with its length and meta; NULL if absent.
 */
char *
WideSharedCacheGet(RelFileNode node, uint64 epoch, uint32 segid, uint64 max_seq,
				   uint32 kind, uint64 offset, uint32 stored_len,
				   Size *len, WideSharedMeta *meta)
{
	SharedKey	key;
	uint32		hash;
	SharedPart *p;
	SharedHashEntry *he;
	char	   *copy = NULL;

	if (shared == NULL)
		return NULL;
	he = lock_key(&key, node, epoch, segid, max_seq, kind, offset, LW_SHARED, &hash, &p);
	if (he != NULL)
	{
		RingEntry  *re = (RingEntry *) ring_at(p, he->off);

		if (re->stored_len == stored_len &&
			memcmp(&re->key, &key, sizeof(key)) == 0)
		{
			copy = palloc(Max(re->len, 1));
			memcpy(copy, (char *) re + RING_HEADER, re->len);
			*len = re->len;
			*meta = re->meta;
		}
	}
	unlock_part(p);
	if (copy)
		pg_atomic_fetch_add_u64(&p->hits, 1);
	else
		pg_atomic_fetch_add_u64(&p->misses, 1);
	return copy;
}

/*
 * evict_oldest -- evict the partition's oldest entry, or move its tail past
 * the unused end of a lap; false if the ring is empty.
 */
static bool
evict_oldest(SharedPart *p)
{
	RingEntry  *re;
	SharedHashEntry *he;

	if (p->wrapped && p->tail == p->wrap_at)
	{
		/* the tail passes the unused end of its lap */
		p->tail = 0;
		p->wrapped = false;
		return true;
	}
	if (!p->wrapped && p->tail == p->head)
		return false;			/* empty */
	re = (RingEntry *) ring_at(p, p->tail);
	he = hash_search(shared_hash, &re->key, HASH_REMOVE, NULL);
	if (he == NULL || he->off != p->tail)
		elog(ERROR, "wide shared block cache: entry at %zu is not in the table",
			 p->tail);
	p->tail += re->total;
	p->entries--;
	p->used -= re->total;
	p->evictions++;
	return true;
}

/* room for need bytes at the head of p's ring, evicting the oldest */
static bool
make_room(SharedPart *p, Size need)
{
	for (;;)
	{
		if (!p->wrapped)
		{
			if (p->size - p->head >= need)
				return true;
			if (p->tail == p->head)
			{
				/* empty: start over at 0 */
				p->head = p->tail = 0;
				continue;
			}
			/* the rest of this lap stays unused until the tail passes it */
			p->wrap_at = p->head;
			p->head = 0;
			p->wrapped = true;
			continue;
		}
		if (p->tail - p->head >= need)
			return true;
		if (!evict_oldest(p))
			return false;
	}
}

/*
 * WideSharedCachePut -- share a block's decompressed payload.  A block
 * larger than a quarter of a partition is not shared.
 */
void
WideSharedCachePut(RelFileNode node, uint64 epoch, uint32 segid, uint64 max_seq,
				   uint32 kind, uint64 offset, uint32 stored_len,
				   const char *payload, Size len, const WideSharedMeta *meta)
{
	SharedKey	key;
	uint32		hash;
	SharedPart *p;
	SharedHashEntry *he;
	bool		found;
	Size		need;
	RingEntry  *re;

	if (shared == NULL)
		return;
	need = RING_HEADER + MAXALIGN(len);
	/* (every partition has the same size) */
	if (len > PG_UINT32_MAX || need > shared->parts[0].size / 4)
		return;
	he = lock_key(&key, node, epoch, segid, max_seq, kind, offset, LW_EXCLUSIVE, &hash, &p);
	if (he != NULL || !make_room(p, need))
	{
		/* another backend shared it first */
		unlock_part(p);
		return;
	}
	/* the table's entries are shared by the partitions: evict for one too */
	while ((he = hash_search_with_hash_value(shared_hash, &key, hash,
											 HASH_ENTER_NULL, &found)) == NULL)
	{
		if (!evict_oldest(p))
		{
			unlock_part(p);
			return;
		}
	}
	/* eviction only frees room: the head's room is still there */
	Assert(!p->wrapped ? p->size - p->head >= need : p->tail - p->head >= need);
	re = (RingEntry *) ring_at(p, p->head);
	re->key = key;
	re->stored_len = stored_len;
	re->len = (uint32) len;
	re->total = need;
	re->meta = *meta;
	memcpy((char *) re + RING_HEADER, payload, len);
	he->off = p->head;
	p->head += need;
	p->entries++;
	p->used += need;
	p->inserts++;
	unlock_part(p);
}

/*
 * WideSharedCacheStats -- the cache's size and counters, summed over its
 * partitions; false if there is no shared cache.
 */
bool
WideSharedCacheStats(WideSharedCacheCounts *c)
{
	memset(c, 0, sizeof(*c));
	if (shared == NULL)
		return false;
	for (int i = 0; i < WIDE_SHARED_PARTS; i++)
	{
		SharedPart *p = &shared->parts[i];

		LWLockAcquire(&shared_locks[i].lock, LW_SHARED);
		c->size += p->size;
		c->used += p->used;
		c->entries += p->entries;
		c->inserts += p->inserts;
		c->evictions += p->evictions;
		LWLockRelease(&shared_locks[i].lock);
		c->hits += pg_atomic_read_u64(&p->hits);
		c->misses += pg_atomic_read_u64(&p->misses);
	}
	return true;
}
