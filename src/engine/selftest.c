/*-------------------------------------------------------------------------
 *
 * selftest.c
 *	  Round trips of the engine's formats on random input.
 *
 * The TAP and regress suites test the formats from outside, through SQL;
 * this module tests them as LevelDB's *_test.cc files do, from inside, on
 * inputs no SQL statement would think of.  Each round draws (from a seeded
 * PRNG, so that a failure is reproduced by its seed):
 *
 *	- data blocks (block.c): a few dozen rows of random keys (common
 *	  prefixes, binary bytes, long keys), each with row and family
 *	  tombstones, columns of PUT, ADD, MERGE and DEL_CELLS records, values
 *	  of every length class (fixed 4 and 8 bytes, short, long, blob
 *	  references), float8 values of every class the packer treats apart
 *	  (short decimals, integers, random walks, -0.0, NaN, infinities,
 *	  subnormals), timestamps in seconds, milliseconds, microseconds and at
 *	  the extremes, stored and default sequence numbers, frozen and stamped
 *	  records.  The block is encoded, framed for storage (compress.c,
 *	  blockpack.c: packed, zstd or raw, as the data decides), loaded back
 *	  and read record by record, and every field must come back;
 *	- the block's row directory: WideBlockRowsBuild, then WideBlockRowsSeek
 *	  and WideBlockIterSkipRows for probe keys (each row key, keys between
 *	  and around them, their prefixes, inclusive and exclusive) must find
 *	  the row a linear search finds; and so must the stored row directory
 *	  (rowdir.c, its points a random number of bytes apart), from the
 *	  block's start and from a row before, and damaged copies of it seek
 *	  to an error or to some record, never past the block;
 *	- the survey of a block a compaction may pass (WideBlockSurvey, fixed-
 *	  length values): refused when a record is a tombstone or stores a
 *	  sequence number, else each row's hash, the last record and the
 *	  oldest xmin as written; the block without those records passes;
 *	- blocks of one load (every record of one xmin and cmin): written
 *	  without the records' xmins, which read back as the index entry's
 *	  (WIDE_INDEX_ONE_XMIN; "one-xmin blocks" counts them), and only those;
 *	- damaged blocks: the raw block with bytes changed or cut short must
 *	  decode to an error or to some records, never past its end (run under
 *	  a sanitizer build, this is a fuzzer of the decoder);
 *	- index blocks (indexblock.c): random entries encoded with a row
 *	  filter, decoded, every field compared, WideIndexSeek against a linear
 *	  search, and no row of the filter reported absent;
 *	- metapage images (manifest.c, rule M8): an image built by the
 *	  manifest's edits alone (lanes linked, a generation sealed and flushed,
 *	  runs appended and replaced, pages queued) must pass the check made
 *	  before every commit, and the same image with one rule broken (a page
 *	  owned twice, a segment id repeated or not yet given out, the queue out
 *	  of stamp order) must fail it.
 *
 * A mismatch is an ERROR naming the part, the seed and the round.
 *
 *	WideSelfTestFormats(seed, rounds, counts)	run the rounds; counts[i]
 *		gets the cases of part i (WIDE_SELFTEST_*)
 *
 * IDENTIFICATION
 *	  src/engine/selftest.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/transam.h"
#include "common/pg_prng.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/segment.h"
#include "engine/selftest.h"
#include "engine/manifest.h"
#include "engine/storage.h"

typedef struct Rec
{
	WideCell	c;
	bool		store_seq;
	bool		frozen;
	int			row;			/* index of its row key */
} Rec;

typedef struct Gen
{
	pg_prng_state prng;
	uint64		seed;
	int			round;
	int			tick;			/* random_value8's count of values drawn */
	MemoryContext cxt;
} Gen;

/* a new record of kind at the end of *r (grown), of row (its key in k) */
static Rec *
add_rec(Rec **r, int *n, int *cap, int row, int kind, const StringInfoData *k)
{
	Rec		   *x;

	if (*n == *cap)
	{
		*cap *= 2;
		*r = repalloc(*r, sizeof(Rec) * *cap);
	}
	x = &(*r)[(*n)++];
	memset(x, 0, sizeof(Rec));
	x->row = row;
	x->c.kind = (uint8) kind;
	x->c.key = k[row].data;
	x->c.keylen = k[row].len;
	return x;
}

/* family names are never empty (families.c refuses them) */
static const char *const families[] = {"a", "cf", "cpu", "stats_1m", "zz"};

#define FAIL(g, part, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INTERNAL_ERROR), \
			 errmsg("format self-test failed: %s: %s", part, psprintf(__VA_ARGS__)), \
			 errdetail("Seed " UINT64_FORMAT ", round %d.", (g)->seed, (g)->round)))

static uint64
rnd(Gen *g, uint64 n)
{
	return n <= 1 ? 0 : pg_prng_uint64_range(&g->prng, 0, n - 1);
}

/*
 * a damaged copy of the len bytes at data, malloc'ed to its exact size, not
 * palloc'ed (under AddressSanitizer or valgrind, a read past its end is then
 * reported): cut to a random length if cut, else with one to four bits
 * flipped; *dlen is its length.  The caller frees it.
 */
static char *
damaged_copy(Gen *g, const char *data, Size len, bool cut, Size *dlen)
{
	char	   *copy = malloc(Max(len, 1));

	if (copy == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	memcpy(copy, data, len);
	*dlen = len;
	if (cut)
		*dlen = rnd(g, len);
	else
		for (int k = 1 + (int) rnd(g, 4); k > 0; k--)
			copy[rnd(g, len)] ^= (char) (1 << rnd(g, 8));
	return copy;
}

static bool
chance(Gen *g, double p)
{
	return pg_prng_double(&g->prng) < p;
}

/* a random row key in one of six styles */
static char *
random_key(Gen *g, int style, uint32 *len)
{
	StringInfoData s;
	int			n;

	initStringInfo(&s);
	switch (style)
	{
		case 0:					/* host#seconds, as the guides write them */
			appendStringInfo(&s, "host_%03d#%010d", (int) rnd(g, 40),
							 1451606400 + (int) rnd(g, 100000));
			break;
		case 1:					/* a long shared prefix, then a few bytes */
			appendStringInfoString(&s, "tenant/0000000000000042/metrics/cpu/");
			n = 1 + (int) rnd(g, 12);
			while (n-- > 0)
				appendStringInfoChar(&s, (char) ('a' + rnd(g, 3)));
			break;
		case 2:					/* any bytes, short: 0x00 and 0xff included */
			n = 1 + (int) rnd(g, 10);
			while (n-- > 0)
			{
				uint8		b = chance(g, 0.3) ? (chance(g, 0.5) ? 0 : 255) : (uint8) rnd(g, 256);

				appendStringInfoChar(&s, (char) b);
			}
			break;
		case 4:					/* fixed-width digits at the end (0999 -> 1000) */
			appendStringInfo(&s, "s%d#%04d", (int) rnd(g, 3), (int) rnd(g, 10000));
			break;
		case 5:					/* only digits, of any length (up to 30) */
			n = 1 + (int) rnd(g, 30);
			while (n-- > 0)
				appendStringInfoChar(&s, (char) ('0' + (chance(g, 0.5) ? 9 : rnd(g, 10))));
			break;
		default:				/* long keys */
			n = 200 + (int) rnd(g, 800);
			appendStringInfoString(&s, "k");
			while (n-- > 0)
				appendStringInfoChar(&s, (char) ('0' + rnd(g, 2)));
			break;
	}
	*len = s.len;
	return s.data;
}

static int
key_cmp(const void *a, const void *b)
{
	const StringInfoData *x = a;
	const StringInfoData *y = b;

	return WideKeyCompare(x->data, x->len, y->data, y->len);
}

static int
rec_cmp(const void *a, const void *b)
{
	return WideCellCompare(&((const Rec *) a)->c, &((const Rec *) b)->c);
}

/* an 8-byte value of one of the classes the packer treats apart */
#define NVALCLASS	9
static void
random_value8(Gen *g, int class, double *walk, char *out)
{
	double		d;
	int64		i;
	uint64		u;

	g->tick++;
	switch (class)
	{
		case 0:					/* short decimals */
			d = (double) ((int64) rnd(g, 200001) - 100000) / 100.0;
			break;
		case 1:					/* integers */
			d = (double) ((int64) rnd(g, 2000001) - 1000000);
			break;
		case 2:					/* a random walk at full precision */
			*walk += pg_prng_double(&g->prng) - 0.5;
			d = *walk;
			break;
		case 3:					/* the odd ones */
			switch (rnd(g, 8))
			{
				case 0:
					d = -0.0;
					break;
				case 1:
					d = get_float8_nan();
					break;
				case 2:
					d = get_float8_infinity();
					break;
				case 3:
					d = -get_float8_infinity();
					break;
				case 4:
					d = 4.9e-324;	/* the smallest subnormal */
					break;
				case 5:
					d = 1e300;
					break;
				case 6:
					d = 0.1 + 0.2;
					break;
				default:
					d = 0.0;
					break;
			}
			break;
		case 5:					/* a walk with alternating signs */
			*walk += pg_prng_double(&g->prng) - 0.5;
			d = (g->tick % 2) ? -*walk : *walk;
			break;
		case 6:					/* runs of equal values */
			if (chance(g, 0.3))
				*walk += pg_prng_double(&g->prng) - 0.5;
			d = *walk;
			break;
		case 7:					/* subnormals, either sign, and their edges */
			u = pg_prng_uint64(&g->prng) & ((UINT64CONST(1) << 52) - 1);
			if (chance(g, 0.1))
				u = chance(g, 0.5) ? 0 : ((UINT64CONST(1) << 52) - 1);
			if (chance(g, 0.5))
				u |= UINT64CONST(1) << 63;
			memcpy(out, &u, 8);
			return;
		case 8:					/* TSBS's walk: N(0,1)-like steps in [0, 100] */
			*walk += (pg_prng_double(&g->prng) - 0.5) * 4.0;
			*walk = *walk > 100.0 ? 100.0 : (*walk < 0.0 ? 0.0 : *walk);
			d = *walk;
			if (chance(g, 0.05))
				d = chance(g, 0.5) ? get_float8_nan() : -get_float8_infinity();
			break;
		default:				/* any 64 bits (an int8, a raw pattern) */
			i = (int64) pg_prng_uint64(&g->prng);
			memcpy(out, &i, 8);
			return;
	}
	memcpy(out, &d, 8);
}

/*
 * make_records -- the records of one block, in cell order.  typlen is the
 * table's value type length (-1, 4 or 8).
 */
static Rec *
make_records(Gen *g, int16 typlen, int *nrecs, StringInfoData **keys, int *nkeys,
			 uint64 *default_seq)
{
	int			style = (int) rnd(g, 6);
	int			nk = 1 + (int) rnd(g, style == 3 ? 8 : 60);
	StringInfoData *k = palloc(sizeof(StringInfoData) * nk);
	int			n = 0;
	int			cap = 64;
	Rec		   *r = palloc(sizeof(Rec) * cap);
	int			tsclass = (int) rnd(g, 4);
	int			valclass = (int) rnd(g, NVALCLASS);
	double		walk = 0;
	uint64		seq = 1 + rnd(g, 1000);
	TransactionId maxxid = XidFromFullTransactionId(ReadNextFullTransactionId());
	int			uniq = 0;

	/* distinct sorted row keys */
	for (int i = 0; i < nk; i++)
	{
		uint32		len;

		k[i].data = random_key(g, chance(g, 0.9) ? style : (int) rnd(g, 3), &len);
		k[i].len = (int) len;
	}
	qsort(k, nk, sizeof(StringInfoData), key_cmp);
	for (int i = 0; i < nk; i++)
		if (uniq == 0 || key_cmp(&k[uniq - 1], &k[i]) != 0)
			k[uniq++] = k[i];
	nk = uniq;

	for (int row = 0; row < nk; row++)
	{
		int			nfam = 1 + (int) rnd(g, 3);

		for (int f = -1; f < nfam; f++)
		{
			const char *fam = families[rnd(g, lengthof(families))];
			uint32		famid = (uint32) rnd(g, 4);
			int			ncol = 1 + (int) rnd(g, 5);

			for (int q = -1; q < ncol; q++)
			{
				char		qual[24];
				int			nver = 1 + (int) rnd(g, 3);

				/* an empty qualifier now and then, and shared prefixes */
				snprintf(qual, sizeof(qual), "%s", chance(g, 0.1) ? "" :
						 psprintf("usage_%d", (int) rnd(g, 12)));
				for (int v = 0; v < nver; v++)
				{
					Rec		   *x;
					int			kind;

					if (f == -1)
					{
						if (q != -1 || v > 0 || !chance(g, 0.1))
							continue;
						kind = WIDE_KIND_DEL_ROW;
					}
					else if (q == -1)
					{
						if (v > 0 || !chance(g, 0.1))
							continue;
						kind = WIDE_KIND_DEL_FAMILY;
					}
					else if (chance(g, 0.1))
						kind = WIDE_KIND_DEL_CELLS;
					else if (chance(g, 0.15))
						kind = chance(g, 0.5) ? WIDE_KIND_ADD : WIDE_KIND_MERGE;
					else
						kind = WIDE_KIND_PUT;

					x = add_rec(&r, &n, &cap, row, kind, k);
					if (kind != WIDE_KIND_DEL_ROW)
					{
						x->c.family = fam;
						x->c.famlen = (uint16) strlen(fam);
						x->c.famid = famid;
					}
					else
						x->c.family = "";
					if (kind >= WIDE_KIND_DEL_CELLS)
					{
						x->c.qual = pstrdup(qual);
						x->c.quallen = (uint32) strlen(qual);
					}
					else
						x->c.qual = "";

					switch (tsclass)
					{
						case 0:
							x->c.ts = (int64) (1451606400 + rnd(g, 86400)) * 1000000;
							break;
						case 1:
							x->c.ts = (int64) (1451606400000LL + rnd(g, 86400000)) * 1000;
							break;
						case 2:
							x->c.ts = (int64) pg_prng_uint64(&g->prng) >> 12;
							break;
						default:
							x->c.ts = chance(g, 0.5) ?
								(chance(g, 0.5) ? PG_INT64_MAX : PG_INT64_MIN) :
								(int64) pg_prng_uint64(&g->prng);
							break;
					}
					x->c.ts_to = WIDE_TS_NO_END;
					if (kind == WIDE_KIND_DEL_CELLS && chance(g, 0.6) &&
						x->c.ts < PG_INT64_MAX - 1000000)
						x->c.ts_to = x->c.ts + 1 + (int64) rnd(g, 1000000);

					seq += 1 + rnd(g, chance(g, 0.9) ? 3 : 100000);
					x->c.seq = seq;
					x->store_seq = chance(g, 0.7);
					x->frozen = chance(g, 0.5);
					if (!x->frozen)
					{
						/* (one draw whatever the range: the same records on any server) */
						x->c.xmin = FirstNormalTransactionId + (TransactionId)
							(pg_prng_uint64(&g->prng) % (maxxid - FirstNormalTransactionId));
						x->c.cmin = (CommandId) rnd(g, 5);
					}
					else
						x->c.xmin = FrozenTransactionId;

					if (WIDE_KIND_IS_TOMBSTONE(kind))
						continue;
					if (typlen > 0)
					{
						int			len = (kind == WIDE_KIND_PUT) ? typlen : 8;
						char	   *val = palloc(8);

						if (len == 8)
							random_value8(g, chance(g, 0.9) ? valclass : (int) rnd(g, NVALCLASS),
										  &walk, val);
						else
						{
							int32		i4 = (int32) rnd(g, 100000) - 50000;

							memcpy(val, &i4, 4);
						}
						x->c.value = val;
						x->c.vallen = len;
					}
					else if (chance(g, 0.05))
					{
						x->c.flags = WIDE_REC_VALUE_BLOB;
						x->c.blob.first = (BlockNumber) rnd(g, 1000000);
						x->c.blob.length = x->c.vallen =
							(uint32) (WIDE_SHORT_VALUE + 1 + rnd(g, 100000));
					}
					else
					{
						int			len = (int) rnd(g, chance(g, 0.8) ? 130 : 3000);
						char	   *val = palloc(Max(len, 1));

						for (int i = 0; i < len; i++)
							val[i] = (char) (valclass == 0 ? '0' + rnd(g, 10) : rnd(g, 256));
						x->c.value = val;
						x->c.vallen = len;
					}
				}
			}
		}
	}
	/* every row holds a record: a row without one gets a cell */
	for (int row = 0; row < nk; row++)
	{
		bool		found = false;

		for (int i = 0; i < n && !found; i++)
			found = r[i].row == row;
		if (!found)
		{
			Rec		   *x;

			x = add_rec(&r, &n, &cap, row, WIDE_KIND_DEL_ROW, k);
			x->c.family = x->c.qual = "";
			x->c.ts = 0;
			x->c.ts_to = WIDE_TS_NO_END;
			x->c.seq = ++seq;
			x->frozen = true;
			x->c.xmin = FrozenTransactionId;
		}
	}
	/* a block of one load: every record of one xmin and cmin (ONE_XMIN) */
	if (chance(g, 0.3))
	{
		TransactionId xmin = FirstNormalTransactionId + (TransactionId)
			(pg_prng_uint64(&g->prng) % (maxxid - FirstNormalTransactionId));
		CommandId	cmin = (CommandId) rnd(g, 5);

		for (int i = 0; i < n; i++)
		{
			r[i].frozen = false;
			r[i].c.xmin = xmin;
			r[i].c.cmin = cmin;
		}
	}
	qsort(r, n, sizeof(Rec), rec_cmp);
	*nrecs = n;
	*keys = k;
	*nkeys = nk;
	*default_seq = seq + 1;
	return r;
}

/*
 * the index entry of a block of records r written by WideBlockFinish, which
 * gave xmin and cmin: those must be the records' one xmin and cmin when
 * they all store the same (WIDE_INDEX_ONE_XMIN), else Invalid
 */
static WideIndexEntry
one_xmin_entry(Gen *g, const char *part, const Rec *r, int n,
			   TransactionId xmin, CommandId cmin, int64 *counts)
{
	WideIndexEntry e;
	bool		one = n > 0;

	for (int i = 0; i < n && one; i++)
		one = !r[i].frozen && r[i].c.xmin == r[0].c.xmin &&
			r[i].c.cmin == r[0].c.cmin;
	if (one != TransactionIdIsValid(xmin) ||
		(one && (xmin != r[0].c.xmin || cmin != r[0].c.cmin)))
		FAIL(g, part, "the block's one xmin is %u/%u, its records' %s %u/%u",
			 xmin, cmin, one ? "are" : "are not all", r[0].c.xmin, r[0].c.cmin);
	memset(&e, 0, sizeof(e));
	if (one)
	{
		e.flags = WIDE_INDEX_ONE_XMIN;
		e.xmin = xmin;
		e.cmin = cmin;
		if (counts)
			counts[WIDE_SELFTEST_ONE_XMIN]++;
	}
	return e;
}

/* compare a decoded record with the one written */
static void
check_record(Gen *g, const char *part, int i, const Rec *want, const WideCell *got,
			 uint64 default_seq)
{
	const WideCell *w = &want->c;
	int			level = WideCellLevel(w);
	uint64		seq = want->store_seq ? w->seq : default_seq;

	if (got->kind != w->kind)
		FAIL(g, part, "record %d: kind %d, written %d", i, got->kind, w->kind);
	if (got->keylen != w->keylen || memcmp(got->key, w->key, w->keylen) != 0)
		FAIL(g, part, "record %d: row key differs", i);
	if (level >= WIDE_LEVEL_FAMILY &&
		(got->famlen != w->famlen || memcmp(got->family, w->family, w->famlen) != 0 ||
		 got->famid != w->famid))
		FAIL(g, part, "record %d: family differs", i);
	if (level >= WIDE_LEVEL_COLUMN &&
		(got->quallen != w->quallen || memcmp(got->qual, w->qual, w->quallen) != 0))
		FAIL(g, part, "record %d: qualifier differs", i);
	if (got->ts != w->ts)
		FAIL(g, part, "record %d: timestamp " INT64_FORMAT ", written " INT64_FORMAT,
			 i, got->ts, w->ts);
	if (w->kind == WIDE_KIND_DEL_CELLS && got->ts_to != w->ts_to)
		FAIL(g, part, "record %d: end timestamp " INT64_FORMAT ", written " INT64_FORMAT,
			 i, got->ts_to, w->ts_to);
	if (got->seq != seq)
		FAIL(g, part, "record %d: sequence number " UINT64_FORMAT ", expected " UINT64_FORMAT,
			 i, got->seq, seq);
	if (got->xmin != w->xmin || (!want->frozen && got->cmin != w->cmin))
		FAIL(g, part, "record %d: xmin %u/%u, written %u/%u", i,
			 got->xmin, got->cmin, w->xmin, w->cmin);
	if (WIDE_KIND_IS_TOMBSTONE(w->kind))
		return;
	if ((got->flags & WIDE_REC_VALUE_BLOB) != (w->flags & WIDE_REC_VALUE_BLOB))
		FAIL(g, part, "record %d: blob flag differs", i);
	if (w->flags & WIDE_REC_VALUE_BLOB)
	{
		if (got->blob.first != w->blob.first || got->blob.length != w->blob.length ||
			got->vallen != w->vallen)
			FAIL(g, part, "record %d: blob reference differs", i);
	}
	else if (got->vallen != w->vallen || got->value == NULL ||
			 memcmp(got->value, w->value, w->vallen) != 0)
		FAIL(g, part, "record %d: value differs (%u bytes, written %u)", i,
			 got->vallen, w->vallen);
}

/* read a whole block with a fresh iterator and compare every record */
static void
check_block(Gen *g, const char *part, WideBlockIter *it, const Rec *r, int n,
			uint64 default_seq)
{
	WideCell	c;
	int			i = 0;

	while (WideBlockIterNext(it, &c))
	{
		if (i >= n)
			FAIL(g, part, "more than the %d records written", n);
		check_record(g, part, i, &r[i], &c, default_seq);
		i++;
	}
	if (it->error)
		FAIL(g, part, "decoding error after %d of %d records (the next: kind %d, family \"%s\" %u, qualifier of %u bytes, ts " INT64_FORMAT ", value of %u bytes%s)",
			 i, n, r[i].c.kind, r[i].c.family, r[i].c.famid, r[i].c.quallen, r[i].c.ts,
			 r[i].c.vallen, (r[i].c.flags & WIDE_REC_VALUE_BLOB) ? ", a blob" : "");
	if (i != n)
		FAIL(g, part, "%d records read, %d written", i, n);
}

/* the first row whose key is >= key (> if !incl), by a linear search */
static int
linear_row(const StringInfoData *k, int nk, const char *key, uint32 len, bool incl)
{
	for (int j = 0; j < nk; j++)
	{
		int			c = WideKeyCompare(k[j].data, k[j].len, key, len);

		if (c > 0 || (c == 0 && incl))
			return j;
	}
	return nk;
}

/* probe keys around the rows: each key, its prefixes, a byte more or less */
static char *
probe_key(Gen *g, const StringInfoData *k, int nk, uint32 *len)
{
	const StringInfoData *base = &k[rnd(g, nk)];
	char	   *p = palloc(base->len + 2);

	memcpy(p, base->data, base->len);
	*len = base->len;
	switch (rnd(g, 5))
	{
		case 0:
			break;
		case 1:					/* a proper prefix (the empty key included) */
			*len = (uint32) rnd(g, base->len);
			break;
		case 2:					/* a byte more: between this row and the next */
			p[(*len)++] = (char) rnd(g, 256);
			break;
		case 3:					/* the last byte changed */
			if (*len > 0)
				p[*len - 1] = (char) ((uint8) p[*len - 1] + (chance(g, 0.5) ? 1 : -1));
			break;
		default:
			pfree(p);
			return random_key(g, (int) rnd(g, 4), len);
	}
	return p;
}

/* the survey's callbacks: every family and xmin accepted, the xmins noted */
typedef struct SurveyNote
{
	int			nfam;
	TransactionId min_xmin;
} SurveyNote;

static bool
note_family(const char *fam, uint32 famlen, uint32 famid, void *arg)
{
	((SurveyNote *) arg)->nfam++;
	return true;
}

static bool
note_xmin(TransactionId xmin, void *arg)
{
	SurveyNote *sn = (SurveyNote *) arg;

	if (!TransactionIdIsValid(sn->min_xmin) || TransactionIdPrecedes(xmin, sn->min_xmin))
		sn->min_xmin = xmin;
	return true;
}

/*
 * The survey of a block a compaction may pass (WideBlockSurvey): refused
 * if a record is a tombstone or stores a sequence number; else every row's
 * hash, the last record's row, family, kind and time, the oldest xmin.
 * Then the same block without those records, which must pass.
 */
static void
test_survey(Gen *g, int16 typlen, const Rec *r, int n, uint64 default_seq,
			int64 *counts)
{
	for (int pass = 0; pass < 2; pass++)
	{
		Rec		   *f = palloc(sizeof(Rec) * Max(n, 1));
		int			m = 0;
		bool		refuse = false;
		WideBlockBuilder *b = WideBlockBuilderCreate(typlen);
		StringInfoData raw,
					stored,
					lastrow;
		WideRawBlock blk;
		const char *why = NULL;
		uint64	   *hashes = palloc(sizeof(uint64) * Max(n, 1));
		int			nh = 0;
		WideCell	last;
		SurveyNote	sn = {0, InvalidTransactionId};
		WideBlockSurveyOps ops = {note_family, note_xmin, &sn};
		TransactionId bxmin;
		CommandId	bcmin;
		WideIndexEntry entry;
		WideSurveyResult res;
		TransactionId min_xmin = InvalidTransactionId;
		int			nrows = 0;

		for (int i = 0; i < n; i++)
		{
			bool		drop = WIDE_KIND_IS_TOMBSTONE(r[i].c.kind);

			if (pass == 0)
			{
				refuse |= drop || r[i].store_seq;
				f[m++] = r[i];
				continue;
			}
			if (drop)
				continue;
			f[m] = r[i];
			f[m].store_seq = false;
			m++;
		}
		if (m == 0)
			return;
		initStringInfo(&raw);
		initStringInfo(&stored);
		initStringInfo(&lastrow);
		for (int i = 0; i < m; i++)
			WideBlockAdd(b, &f[i].c, f[i].store_seq, f[i].frozen);
		WideBlockFinish(b, &raw, &bxmin, &bcmin);
		entry = one_xmin_entry(g, "block survey", f, m, bxmin, bcmin, NULL);
		WideBlockStore(raw.data, raw.len, true, &stored);
		memset(&blk, 0, sizeof(blk));
		if (!WideBlockLoadData(stored.data, stored.len, raw.len + WIDE_PACK_SLACK,
							   typlen, &blk, &why))
			FAIL(g, "block survey", "does not load: %s", why ? why : "?");
		res = WideBlockSurvey(&blk, typlen, false, entry.xmin, &ops, hashes, m,
							  &nh, &lastrow, &last);
		if (res == WIDE_SURVEY_BAD)
			FAIL(g, "block survey", "a sound block of %d records surveyed as malformed", m);
		if ((res == WIDE_SURVEY_REFUSED) != refuse)
			FAIL(g, "block survey", "%s, %s expected", res == WIDE_SURVEY_PASS ? "passed" : "refused",
				 refuse ? "refused" : "passed");
		counts[WIDE_SELFTEST_SURVEYS]++;
		if (res != WIDE_SURVEY_PASS)
			continue;
		for (int i = 0; i < m; i++)
		{
			if (i == 0 || f[i].row != f[i - 1].row)
			{
				const WideCell *c = &f[i].c;

				if (nrows >= nh || hashes[nrows] != WideRowHash(c->key, c->keylen))
					FAIL(g, "block survey", "row %d's hash differs", nrows);
				nrows++;
			}
			if (!f[i].frozen && TransactionIdIsNormal(f[i].c.xmin) &&
				(!TransactionIdIsValid(min_xmin) ||
				 TransactionIdPrecedes(f[i].c.xmin, min_xmin)))
				min_xmin = f[i].c.xmin;
		}
		if (nrows != nh)
			FAIL(g, "block survey", "%d row hashes, %d rows", nh, nrows);
		if (sn.min_xmin != min_xmin || sn.nfam == 0)
			FAIL(g, "block survey", "oldest xmin %u, written %u", sn.min_xmin, min_xmin);
		if (last.keylen != f[m - 1].c.keylen ||
			memcmp(last.key, f[m - 1].c.key, last.keylen) != 0 ||
			last.famlen != f[m - 1].c.famlen ||
			memcmp(last.family, f[m - 1].c.family, last.famlen) != 0 ||
			last.famid != f[m - 1].c.famid || last.kind != f[m - 1].c.kind ||
			last.ts != f[m - 1].c.ts)
			FAIL(g, "block survey", "the last record differs");

		/* damaged copies: an answer, never a read past the end */
		for (int d = 0; d < 8; d++)
		{
			WideRawBlock dblk = blk;
			char	   *copy = damaged_copy(g, blk.data, blk.len, d % 4 == 3,
											&dblk.len);

			dblk.data = copy;
			(void) WideBlockSurvey(&dblk, typlen, d % 2 == 0, entry.xmin, &ops,
								   hashes, m, &nh, &lastrow, &last);
			free(copy);
			counts[WIDE_SELFTEST_SURVEYS]++;
		}
	}
}

static void
test_block(Gen *g, int16 typlen, int64 *counts)
{
	int			n,
				nk;
	StringInfoData *k;
	uint64		default_seq;
	Rec		   *r = make_records(g, typlen, &n, &k, &nk, &default_seq);
	WideBlockBuilder *b = WideBlockBuilderCreate(typlen);
	StringInfoData raw,
				stored;
	WideRawBlock blk;
	WideBlockIter it;
	WideBlockRows *rows;
	const char *why = NULL;
	int			first[1024];
	TransactionId bxmin;
	CommandId	bcmin;
	WideIndexEntry entry;
	StringInfoData dir;
	Gen			dg;

	initStringInfo(&raw);
	initStringInfo(&stored);
	initStringInfo(&dir);

	/*
	 * (the stored row directory's points: every 64 to 2048 bytes; whether a
	 * block has any depends on its size, so on its xmins' lengths, drawn
	 * below the next transaction id: the checks of the directory draw from
	 * a generator of their own, so that the rest of the run does not)
	 */
	WideBlockBuilderSetDirSpacing(b, (Size) 64 << rnd(g, 6));
	dg = *g;
	pg_prng_seed(&dg.prng, pg_prng_uint64(&g->prng));
	for (int i = 0; i < n; i++)
		WideBlockAdd(b, &r[i].c, r[i].store_seq, r[i].frozen);
	if (WideBlockBuilderCount(b) != n)
		FAIL(g, "data block", "the builder counts %d records of %d",
			 WideBlockBuilderCount(b), n);
	WideBlockFinish(b, &raw, &bxmin, &bcmin);
	{
		const WideDirPoint *points;
		const char *keys;
		const char *first;
		uint32		firstlen;
		int64		ts0;
		int			np = WideBlockBuilderPoints(b, &points, &keys, &ts0,
												&first, &firstlen);

		if (np > 0)
			WideRowDirEncode(points, np, ts0, first, firstlen, keys, &dir);
	}
	entry = one_xmin_entry(g, "data block", r, n, bxmin, bcmin, counts);

	/* the raw block */
	memset(&it, 0, sizeof(it));
	if (!WideBlockIterInit(&it, raw.data, raw.len, typlen, default_seq, 0))
		FAIL(g, "data block", "a raw block's header does not decode");
	WideBlockIterSetEntry(&it, &entry);
	check_block(g, "data block", &it, r, n, default_seq);
	WideBlockIterEnd(&it);

	/* framed for storage (packed, compressed or raw) and loaded back */
	WideBlockStore(raw.data, raw.len, true, &stored);
	memset(&blk, 0, sizeof(blk));
	if (!WideBlockLoadData(stored.data, stored.len, raw.len + WIDE_PACK_SLACK,
						   typlen, &blk, &why))
		FAIL(g, "stored block", "does not load: %s", why ? why : "?");
	memset(&it, 0, sizeof(it));
	if (!WideBlockIterInitBlock(&it, &blk, typlen, default_seq, 0))
		FAIL(g, "stored block", "its header does not decode");
	WideBlockIterSetEntry(&it, &entry);
	check_block(g, "stored block", &it, r, n, default_seq);
	WideBlockIterEnd(&it);
	counts[WIDE_SELFTEST_BLOCKS]++;
	counts[WIDE_SELFTEST_RECORDS] += n;

	/* the row directory and seeks */
	for (int j = 0, i = 0; j < nk && j < (int) lengthof(first); j++)
	{
		while (r[i].row != j)
			i++;
		first[j] = i;
	}
	rows = WideBlockRowsBuild(&blk, typlen, default_seq, 0);
	if (rows == NULL || rows->n != nk)
		FAIL(g, "row directory", "%d rows, %d written", rows ? rows->n : -1, nk);
	for (int j = 0; j < nk; j++)
		if (rows->rows[j].keylen != (uint32) k[j].len ||
			memcmp(rows->rows[j].key, k[j].data, k[j].len) != 0)
			FAIL(g, "row directory", "row %d's key differs", j);
	for (int p = 0; p < 40; p++)
	{
		uint32		len;
		char	   *key = probe_key(g, k, nk, &len);
		bool		incl = chance(g, 0.5);
		int			want = linear_row(k, nk, key, len, incl);
		int			got = WideBlockRowsSeek(rows, key, len, incl);
		WideCell	c;
		bool		have;

		if (got != want)
			FAIL(g, "row seek", "row %d found, row %d expected (%s, key of %u bytes)",
				 got, want, incl ? "inclusive" : "exclusive", len);
		if (want < nk && want < (int) lengthof(first))
		{
			memset(&it, 0, sizeof(it));
			if (!WideBlockIterInitBlock(&it, &blk, typlen, default_seq, 0))
				FAIL(g, "row seek", "the block's header does not decode");
			WideBlockIterSetEntry(&it, &entry);
			WideBlockIterSeekRow(&it, rows, want);
			if (!WideBlockIterNext(&it, &c))
				FAIL(g, "row seek", "no record at the start of row %d", want);
			check_record(g, "row seek", first[want], &r[first[want]], &c, default_seq);
			WideBlockIterEnd(&it);
		}

		/* the same seek by stepping over records */
		memset(&it, 0, sizeof(it));
		if (!WideBlockIterInitBlock(&it, &blk, typlen, default_seq, 0))
			FAIL(g, "skip rows", "the block's header does not decode");
		WideBlockIterSetEntry(&it, &entry);
		have = WideBlockIterSkipRows(&it, key, len, incl) && WideBlockIterNext(&it, &c);
		if (it.error)
			FAIL(g, "skip rows", "decoding error");
		if (have != (want < nk))
			FAIL(g, "skip rows", "%s a record, row %d of %d expected",
				 have ? "found" : "did not find", want, nk);
		if (have && want < (int) lengthof(first))
			check_record(g, "skip rows", first[want], &r[first[want]], &c, default_seq);
		WideBlockIterEnd(&it);
		counts[WIDE_SELFTEST_SEEKS]++;

		/*
		 * the same from the stored row directory's nearest point, from the
		 * block's start or on from a row before (an IN list's next reading)
		 */
		if (dir.len > 0)
		{
			int			from = (want > 0 && chance(&dg, 0.5)) ?
				(int) rnd(&dg, want) : -1;
			int			got_dir;

			memset(&it, 0, sizeof(it));
			if (!WideBlockIterInitBlock(&it, &blk, typlen, default_seq, 0))
				FAIL(g, "row directory seek", "the block's header does not decode");
			WideBlockIterSetEntry(&it, &entry);
			if (from >= 0 &&
				(WideRowDirSeek(&it, dir.data, dir.len, k[from].data, k[from].len, true) < 0 ||
				 !WideBlockIterSkipRows(&it, k[from].data, k[from].len, true)))
				FAIL(g, "row directory seek", "error seeking row %d", from);
			got_dir = WideRowDirSeek(&it, dir.data, dir.len, key, len, incl);
			if (got_dir < 0)
				FAIL(g, "row directory seek", "the directory does not fit its block");
			have = WideBlockIterSkipRows(&it, key, len, incl) && WideBlockIterNext(&it, &c);
			if (it.error)
				FAIL(g, "row directory seek", "decoding error");
			if (have != (want < nk))
				FAIL(g, "row directory seek", "%s a record, row %d of %d expected",
					 have ? "found" : "did not find", want, nk);
			if (have && want < (int) lengthof(first))
				check_record(g, "row directory seek", first[want], &r[first[want]],
							 &c, default_seq);
			WideBlockIterEnd(&it);
			if (got_dir > 0)
				counts[WIDE_SELFTEST_DIR_SEEKS]++;
		}
	}

	/* damaged copies of the stored row directory: an error or some record */
	for (int d = 0; d < 4 && dir.len > 0; d++)
	{
		Size		len;
		char	   *copy = damaged_copy(&dg, dir.data, dir.len, d % 2 == 1, &len);
		uint32		plen;
		char	   *key = probe_key(&dg, k, nk, &plen);
		WideCell	c;

		memset(&it, 0, sizeof(it));
		if (!WideBlockIterInitBlock(&it, &blk, typlen, default_seq, 0))
			FAIL(g, "row directory seek", "the block's header does not decode");
		WideBlockIterSetEntry(&it, &entry);
		if (WideRowDirSeek(&it, copy, len, key, plen, true) >= 0 &&
			WideBlockIterSkipRows(&it, key, plen, true))
		{
			while (WideBlockIterNext(&it, &c))
				;
		}
		WideBlockIterEnd(&it);
		free(copy);
		counts[WIDE_SELFTEST_DIR_SEEKS]++;
	}

	/*
	 * Packed as this build packs and as format version 5 did (delta coded
	 * values): each unpacks to the raw block bit for bit, and damaged
	 * copies of the packed bytes unpack to an error or to some block, never
	 * past their end.
	 */
	for (int fmt = 5; fmt <= WIDE_FORMAT_VERSION; fmt++)
	{
		StringInfoData packed;
		Size		rawlen = 0;
		Size		split;
		char	   *back;

		initStringInfo(&packed);
		if (!WideBlockPackFormat(raw.data, raw.len, &packed, fmt, &split))
			continue;
		back = WideBlockUnpack(packed.data, packed.len, raw.len, &rawlen);
		if (back == NULL || rawlen != (Size) raw.len || memcmp(back, raw.data, raw.len) != 0)
			FAIL(g, "packed block", "format %d: does not unpack to the raw block", fmt);
		for (int d = 0; d < 6; d++)
		{
			Size		len;
			char	   *copy = damaged_copy(g, packed.data, packed.len, d % 3 == 2,
											&len);

			back = WideBlockUnpack(copy, len, raw.len + WIDE_PACK_SLACK, &rawlen);
			if (back != NULL && rawlen > (Size) raw.len + WIDE_PACK_SLACK)
				FAIL(g, "packed block", "a damaged copy unpacks to %zu bytes", rawlen);
			free(copy);
			counts[WIDE_SELFTEST_DAMAGED]++;
		}
	}

	/* damaged copies of the raw block: an error or records, never a crash */
	for (int d = 0; d < 8; d++)
	{
		Size		len;
		char	   *copy = damaged_copy(g, raw.data, raw.len, d % 4 == 3, &len);
		WideCell	c;
		int			steps = 0;

		memset(&it, 0, sizeof(it));
		if (WideBlockIterInit(&it, copy, len, typlen, default_seq, 0) &&
			(WideBlockIterSetEntry(&it, &entry), true))
			while (WideBlockIterNext(&it, &c) && steps <= n + 1)
				steps++;
		WideBlockIterEnd(&it);
		free(copy);
		counts[WIDE_SELFTEST_DAMAGED]++;
	}

	/* (last: its draws do not change the parts above) */
	if (typlen > 0)
		test_survey(g, typlen, r, n, default_seq, counts);
}

static void
test_index(Gen *g, int64 *counts)
{
	int			style = (int) rnd(g, 4);
	int			n = 1 + (int) rnd(g, 200);
	StringInfoData *k = palloc(sizeof(StringInfoData) * n);
	WideIndexEntry *e;
	uint64	   *hashes;
	int			nh = 0;
	int			uniq = 0;
	StringInfoData out;
	WideIndex  *idx;
	bool		filter = chance(g, 0.8);

	for (int i = 0; i < n; i++)
	{
		uint32		len;

		k[i].data = random_key(g, style, &len);
		k[i].len = (int) len;
	}
	qsort(k, n, sizeof(StringInfoData), key_cmp);
	for (int i = 0; i < n; i++)
		if (uniq == 0 || key_cmp(&k[uniq - 1], &k[i]) != 0)
			k[uniq++] = k[i];
	n = uniq;

	e = palloc0(sizeof(WideIndexEntry) * n);
	hashes = palloc(sizeof(uint64) * n);
	for (int i = 0; i < n; i++)
	{
		e[i].lastrow = k[i].data;
		e[i].lastrowlen = k[i].len;
		e[i].offset = (uint64) rnd(g, (uint64) 1 << 40);
		e[i].length = (uint32) rnd(g, 1 << 20);
		e[i].ncells = rnd(g, 100000);
		e[i].ts_min = (int64) pg_prng_uint64(&g->prng) >> 1;
		e[i].ts_max = e[i].ts_min + (int64) rnd(g, 1000000000);
		e[i].flags = chance(g, 0.3) ? WIDE_INDEX_HAS_TOMBSTONES : 0;
		if (chance(g, 0.5))
		{
			e[i].flags |= WIDE_INDEX_HAS_LASTCOL;
			e[i].lastfam = families[rnd(g, lengthof(families))];
			e[i].lastfamlen = (uint32) strlen(e[i].lastfam);
			e[i].lastqual = chance(g, 0.2) ? "" : psprintf("q%d", (int) rnd(g, 1000));
			e[i].lastquallen = (uint32) strlen(e[i].lastqual);
		}
		if (chance(g, 0.3))
		{
			e[i].flags |= WIDE_INDEX_ONE_XMIN;
			e[i].xmin = chance(g, 0.1) ? PG_UINT32_MAX :
				FirstNormalTransactionId + (TransactionId) rnd(g, 1000000);
			e[i].cmin = chance(g, 0.1) ? PG_UINT32_MAX : (CommandId) rnd(g, 5);
		}
		if (filter)
			hashes[nh++] = WideRowHash(k[i].data, k[i].len);
	}
	initStringInfo(&out);
	WideIndexEncode(e, n, hashes, nh, &out);
	idx = WideIndexDecode(out.data, out.len, filter);
	if (idx == NULL || idx->n != n)
		FAIL(g, "index block", "%d entries decoded, %d written", idx ? idx->n : -1, n);
	for (int i = 0; i < n; i++)
	{
		const WideIndexEntry *a = &idx->entries[i];
		const WideIndexEntry *w = &e[i];

		if (a->lastrowlen != w->lastrowlen ||
			memcmp(a->lastrow, w->lastrow, w->lastrowlen) != 0 ||
			a->offset != w->offset || a->length != w->length ||
			a->ncells != w->ncells || a->ts_min != w->ts_min ||
			a->ts_max != w->ts_max || a->flags != w->flags ||
			a->xmin != w->xmin || a->cmin != w->cmin)
			FAIL(g, "index block", "entry %d differs", i);
		if ((w->flags & WIDE_INDEX_HAS_LASTCOL) &&
			(a->lastfamlen != w->lastfamlen ||
			 memcmp(a->lastfam, w->lastfam, w->lastfamlen) != 0 ||
			 a->lastquallen != w->lastquallen ||
			 memcmp(a->lastqual, w->lastqual, w->lastquallen) != 0))
			FAIL(g, "index block", "entry %d's last column differs", i);
		if (filter && !WideIndexMayContain(idx, hashes[i]))
			FAIL(g, "row filter", "row %d is reported absent", i);
	}
	for (int p = 0; p < 40; p++)
	{
		uint32		len;
		char	   *key = probe_key(g, k, n, &len);
		int			want = linear_row(k, n, key, len, true);
		int			got = WideIndexSeek(idx, key, len);

		if (got != want)
			FAIL(g, "index seek", "entry %d found, entry %d expected (key of %u bytes)",
				 got, want, len);
		counts[WIDE_SELFTEST_INDEX_SEEKS]++;
	}
	WideIndexFree(idx);
	counts[WIDE_SELFTEST_INDEXES]++;
}

/* a block no other part of the image uses (blocks are drawn from a range) */
static BlockNumber
fresh_block(Gen *g, bool *used, uint32 nblocks)
{
	for (;;)
	{
		BlockNumber b = 1 + (BlockNumber) rnd(g, nblocks - 1);

		if (!used[b])
		{
			used[b] = true;
			return b;
		}
	}
}

/*
 * One metapage image from the edits, checked; then one rule broken in a
 * copy, which the check must report.
 */
static void
test_metapage(Gen *g, int64 *counts)
{
	const uint32 nblocks = 4096;
	bool	   *used = palloc0(sizeof(bool) * nblocks);
	WideMetaPageData *meta = palloc(sizeof(WideMetaPageData));
	WideMetaPageData *bad = palloc(sizeof(WideMetaPageData));
	WideRunData run;
	char		problem[128];
	int			nruns = 1 + (int) rnd(g, WIDE_MAX_RUNS - 1);
	int			i;
	int			kind;

	WideManifestInitImage(meta, rnd(g, 1000));
	for (i = 0; i < WIDE_NLANES; i++)
		if (chance(g, 0.5))
			WideManifestLinkLanePage(meta, i, fresh_block(g, used, nblocks));
	if (chance(g, 0.5))
	{
		/* a flush: seal, then (sometimes) publish */
		WideManifestSealGeneration(meta);
		for (i = 0; i < WIDE_NLANES; i++)
			if (chance(g, 0.3))
				WideManifestLinkLanePage(meta, i, fresh_block(g, used, nblocks));
		if (chance(g, 0.5))
		{
			for (i = 0; i < WIDE_NLANES; i++)
				if (meta->flush_lanes[i].head != InvalidBlockNumber)
					(void) WideSpaceFree(meta, WIDE_FREE_CHAIN,
										 meta->flush_lanes[i].head, 1);
			WideManifestFinishFlush(meta);
		}
	}
	for (i = 0; i < nruns; i++)
	{
		memset(&run, 0, sizeof(run));
		run.segid = WideManifestTakeSegid(meta);
		run.root = fresh_block(g, used, nblocks);
		WideManifestAppendRun(NULL, meta, &run);
	}
	/* a compaction: two runs replaced by one, their roots queued */
	if (nruns >= 2 && chance(g, 0.5))
	{
		WideRunData old[2];

		memcpy(old, &meta->runs[0], sizeof(old));
		memset(&run, 0, sizeof(run));
		run.segid = WideManifestTakeSegid(meta);
		run.root = fresh_block(g, used, nblocks);
		WideManifestReplaceRuns(NULL, meta, 0, 1, old, &run);
		(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, old[0].root, 0);
		(void) WideSpaceFree(meta, WIDE_FREE_SEGMENT, old[1].root, 0);
		WideManifestNoteCompaction(meta);
	}
	/* some free extents of unused pages */
	for (i = (int) rnd(g, 20); i > 0; i--)
	{
		BlockNumber b = fresh_block(g, used, nblocks);
		uint32		n = 1;

		while (n < 8 && b + n < nblocks && !used[b + n] && chance(g, 0.7))
			used[b + n++] = true;
		(void) WideSpaceFree(meta, WIDE_FREE_EXTENT, b, n);
	}
	if (WideManifestWriteProblem(meta, problem, sizeof(problem)) != NULL)
		elog(ERROR, "self-test seed " UINT64_FORMAT " round %d: metapage built by edits is refused: %s",
			 g->seed, g->round, problem);
	counts[WIDE_SELFTEST_METAPAGES]++;

	/* one rule broken */
	memcpy(bad, meta, sizeof(WideMetaPageData));
	kind = (int) rnd(g, 5);
	if (kind == 0 && bad->nfree < WIDE_FREE_SLOTS)
	{
		/* a run's root also in the queue, as an extent around it */
		WideFreeEntry *e = &bad->free[bad->nfree++];

		e->kind = WIDE_FREE_EXTENT;
		e->start = bad->runs[rnd(g, bad->nruns)].root;
		e->npages = 1;
		e->stamp = bad->nfree > 1 ? bad->free[bad->nfree - 2].stamp :
			FirstNormalFullTransactionId;
	}
	else if (kind == 1)
	{
		/* a lane's head is a run's root */
		bad->lanes[rnd(g, WIDE_NLANES)].head = bad->runs[rnd(g, bad->nruns)].root;
	}
	else if (kind == 2 && bad->nruns >= 2)
	{
		/* a segment id twice */
		bad->runs[bad->nruns - 1].segid = bad->runs[0].segid;
	}
	else if (kind == 3)
	{
		/* a segment id not given out yet */
		bad->runs[rnd(g, bad->nruns)].segid = bad->next_segid + (uint32) rnd(g, 3);
	}
	else
	{
		/* the queue out of stamp order (an entry older than the one before) */
		WideFreeEntry *e;

		if (bad->nfree >= WIDE_FREE_SLOTS)
			bad->nfree--;
		e = &bad->free[bad->nfree++];
		e->kind = WIDE_FREE_EXTENT;
		e->start = fresh_block(g, used, nblocks);
		e->npages = 1;
		e->stamp = FirstNormalFullTransactionId;
		if (bad->nfree == 1)
		{
			/* alone it is in order: make it the second of two */
			bad->free[1] = bad->free[0];
			bad->free[0].start = fresh_block(g, used, nblocks);
			bad->free[0].stamp = FullTransactionIdFromEpochAndXid(1, 100);
			bad->nfree = 2;
		}
		else
			bad->free[bad->nfree - 2].stamp = FullTransactionIdFromEpochAndXid(1, 100);
	}
	if (WideManifestWriteProblem(bad, problem, sizeof(problem)) == NULL)
		elog(ERROR, "self-test seed " UINT64_FORMAT " round %d: metapage with rule %d broken passes the check",
			 g->seed, g->round, kind);
	counts[WIDE_SELFTEST_METAPAGES]++;
}

/*
 * test_float_block -- a block as the row form writes full-precision float8
 * readings (keys host#seconds stepping by one interval, ten columns), with
 * adversarial values mixed in: NaN (with payloads), -0.0, infinities,
 * subnormals, alternating signs, runs of equal values, values crossing
 * powers of two; and runs of rows that leave a column out or hold two
 * versions of one.  This build must pack it in the coding of format version
 * 6, smaller than format 5 did for a plain walk, and every value must read
 * back bit for bit from the stored block.
 */
static void
test_float_block(Gen *g, int64 *counts)
{
	static const char *const quals[] = {"usage_guest", "usage_guest_nice", "usage_idle",
		"usage_iowait", "usage_irq", "usage_nice", "usage_softirq", "usage_steal",
	"usage_system", "usage_user"};
	bool		plain = chance(g, 0.3);
	int			nrows = plain ? 80 + (int) rnd(g, 40) : 8 + (int) rnd(g, 120);
	int			n = nrows * ((int) lengthof(quals) + 1);
	int			drop = -1,		/* a column the rows leave out */
				dup = -1;		/* one they hold two versions of */
	int			step = (plain || chance(g, 0.5)) ? 10 : 1 + (int) rnd(g, 200);
	int64		t0 = 1451606400 + (int64) rnd(g, 1000) * 997;
	int			host = (int) rnd(g, 1000);
	double		walk[lengthof(quals)];
	Rec		   *r = palloc0(sizeof(Rec) * n);
	WideBlockBuilder *b = WideBlockBuilderCreate(8);
	StringInfoData raw,
				p5,
				p6,
				stored;
	Size		rawlen;
	Size		split;
	uint64		unit;
	double		div;
	char	   *back;
	WideRawBlock blk;
	WideBlockIter it;
	const char *why = NULL;
	int			m = 0;

	for (int q = 0; q < (int) lengthof(quals); q++)
		walk[q] = pg_prng_double(&g->prng) * 100.0;
	for (int row = 0; row < nrows; row++)
	{
		/* (a step now and then that changes more digits, or goes back) */
		int64		t = t0 + (int64) row * step +
			(!plain && chance(g, 0.05) ? (int64) rnd(g, 100000) : 0);
		char	   *key = psprintf("host_%d#%010lld", host, (long long) t);

		if (row > 0 && strcmp(key, r[m - 1].c.key) <= 0)
			key = psprintf("%s0", r[m - 1].c.key);	/* (keys ascend) */

		/*
		 * (runs of rows of another shape: a column left out, or with an
		 * older version too; keys_decode copies a row's records from the
		 * row before where their bytes are the same, and must find each
		 * value's reference as if it parsed them)
		 */
		if (!plain && chance(g, 0.15))
		{
			drop = chance(g, 0.5) ? (int) rnd(g, lengthof(quals)) : -1;
			dup = chance(g, 0.5) ? (int) rnd(g, lengthof(quals)) : -1;
		}
		for (int q = 0, version = 0; q < (int) lengthof(quals); q++)
		{
			Rec		   *x;
			double		d;
			uint64		u;

			if (q == drop)
				continue;
			x = &r[m++];

			walk[q] += (pg_prng_double(&g->prng) - 0.5) * 3.0;
			walk[q] = walk[q] > 100.0 ? 100.0 : (walk[q] < 0.0 ? 0.0 : walk[q]);
			d = walk[q];
			memcpy(&u, &d, 8);
			if (!plain && chance(g, 0.2))
			{
				switch (rnd(g, 8))
				{
					case 0:		/* a NaN with a payload, either sign */
						u = UINT64CONST(0x7ff8000000000000) | (pg_prng_uint64(&g->prng) >> 13);
						if (chance(g, 0.5))
							u |= UINT64CONST(1) << 63;
						break;
					case 1:
						d = -0.0;
						memcpy(&u, &d, 8);
						break;
					case 2:
						d = chance(g, 0.5) ? get_float8_infinity() : -get_float8_infinity();
						memcpy(&u, &d, 8);
						break;
					case 3:		/* a subnormal */
						u = pg_prng_uint64(&g->prng) >> 12;
						break;
					case 4:		/* the sign flipped */
						u ^= UINT64CONST(1) << 63;
						break;
					case 5:		/* the previous value of the column again */
						if (row > 0 && m - 1 - (int) lengthof(quals) >= 0)
							memcpy(&u, r[m - 1 - lengthof(quals)].c.value, 8);
						break;
					case 6:		/* a power of two and its neighbours */
						d = ldexp(1.0, (int) rnd(g, 2000) - 1000);
						memcpy(&u, &d, 8);
						u += rnd(g, 3) - 1;
						break;
					default:	/* any 64 bits */
						u = pg_prng_uint64(&g->prng);
						break;
				}
			}
			x->row = row;
			x->c.kind = WIDE_KIND_PUT;
			x->c.key = key;
			x->c.keylen = (uint32) strlen(key);
			x->c.family = "cpu";
			x->c.famlen = 3;
			x->c.famid = 1;
			x->c.qual = quals[q];
			x->c.quallen = (uint32) strlen(quals[q]);
			x->c.ts = (t - version) * 1000000;
			x->c.xmin = FrozenTransactionId;
			x->frozen = true;
			x->c.value = palloc(8);
			memcpy((char *) x->c.value, &u, 8);
			x->c.vallen = 8;
			/* (an older version of the column: the same qualifier again) */
			if (q == dup && version == 0)
			{
				version = 1;
				q--;
			}
			else
				version = 0;
		}
	}
	n = m;
	initStringInfo(&raw);
	initStringInfo(&p5);
	initStringInfo(&p6);
	initStringInfo(&stored);
	for (int i = 0; i < n; i++)
		WideBlockAdd(b, &r[i].c, false, true);
	WideBlockFinish(b, &raw, NULL, NULL);

	/* packed in the coding of version 6, which unpacks to the raw block */
	if (!WideBlockPackFormat(raw.data, raw.len, &p6, WIDE_FORMAT_VERSION, &split) ||
		WideBlockPackedHeader(p6.data, p6.len, raw.len, &rawlen, &unit, &div) == NULL ||
		div != -2.0)
		FAIL(g, "float block", "%d readings of floats not packed in the coding of version 6", nrows);
	back = WideBlockUnpack(p6.data, p6.len, raw.len, &rawlen);
	if (back == NULL || rawlen != (Size) raw.len || memcmp(back, raw.data, raw.len) != 0)
		FAIL(g, "float block", "does not unpack to the raw block");
	/* a plain walk of 80 readings or more: smaller than version 5 packed it */
	if (plain && (!WideBlockPackFormat(raw.data, raw.len, &p5, 5, &split) || p6.len >= p5.len))
		FAIL(g, "float block", "packed in %d bytes, %d in the coding of version 5",
			 p6.len, p5.len);

	/* stored and read back: every value bit for bit */
	WideBlockStore(raw.data, raw.len, true, &stored);
	memset(&blk, 0, sizeof(blk));
	if (!WideBlockLoadData(stored.data, stored.len, raw.len + WIDE_PACK_SLACK, 8, &blk, &why))
		FAIL(g, "float block", "does not load: %s", why ? why : "?");
	memset(&it, 0, sizeof(it));
	if (!WideBlockIterInitBlock(&it, &blk, 8, 1, 0))
		FAIL(g, "float block", "its header does not decode");
	check_block(g, "float block", &it, r, n, 1);
	WideBlockIterEnd(&it);
	counts[WIDE_SELFTEST_BLOCKS]++;
	counts[WIDE_SELFTEST_RECORDS] += n;
}

/*
 * WideSelfTestFormats -- run the rounds; an ERROR at the first mismatch.
 * Allocates in a context of its own, reset each round.
 */
void
WideSelfTestFormats(uint64 seed, int rounds, int64 *counts)
{
	Gen			g;
	MemoryContext old;

	memset(counts, 0, sizeof(int64) * WIDE_SELFTEST_NPARTS);
	g.seed = seed;
	g.tick = 0;
	g.cxt = AllocSetContextCreate(CurrentMemoryContext, "wide self-test",
								  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(g.cxt);
	for (g.round = 0; g.round < rounds; g.round++)
	{
		static const int16 typlens[] = {-1, 8, 4};

		CHECK_FOR_INTERRUPTS();

		/*
		 * Each round from a seed of its own: a round's draws do not depend
		 * on how many the rounds before took (probes of a block draw in
		 * ranges of its encoded length, which depends on the xmins drawn,
		 * which depend on the server's next transaction id).
		 */
		pg_prng_seed(&g.prng, seed ^ (UINT64CONST(0x9E3779B97F4A7C15) * (uint64) (g.round + 1)));
		test_block(&g, typlens[g.round % lengthof(typlens)], counts);
		/* (a seed of its own too: test_block's draws depend on xmins) */
		pg_prng_seed(&g.prng, seed ^ (UINT64CONST(0xD1B54A32D192ED03) * (uint64) (g.round + 1)));
		test_float_block(&g, counts);
		test_index(&g, counts);
		test_metapage(&g, counts);
		MemoryContextReset(g.cxt);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(g.cxt);
}
