/*-------------------------------------------------------------------------
 *
 * formatdecode.c
 *	  wide_internal.format_*: the on-disk format taken apart from raw bytes
 *	  by the engine's own code, for the tests that inspect or damage stored
 *	  pages (the TAP fuzzers read a relation file with pg_read_binary_file,
 *	  decode it here, and damage it at the offsets these functions give).
 *
 *	  format_pages(image)            every page: type, next link, owner
 *	  format_page_fields(page)       a page's fields with their offsets
 *	                                 (special space; metapage; segment
 *	                                 header and its extent entries)
 *	  format_records(page)           a write-area page's line pointers and
 *	                                 its records' header fields (record.c)
 *	  format_segments(image)         the segments: header chain roots
 *	  format_segment(image, root)    one segment's header (read by
 *	                                 segment_reader.c), its pages and stream
 *	  format_stored_blocks(image, root)  its root, index and data blocks:
 *	                                 stream offset, length, frame type
 *	  format_frame(stored)           a stored block's type, checksums and
 *	                                 body (compress.c), packed header
 *	  format_index(raw, root)        a root or index block's entries
 *	                                 (indexblock.c)
 *	  format_crc32c(bytes)           CRC-32C, as a stored block ends with
 *	  format_varints(bytes, pos, n)  varints (coding.h)
 *	  format_encode_varints(values)  and back
 *	  format_compress(raw, level)    a zstd frame, to forge stored blocks
 *
 * Every function takes arbitrary bytes: damage gives an ERROR (XX001 for
 * damaged data, 22023 for a wrong argument), never a read outside the
 * input.  Not executable by PUBLIC (internal functions).
 *
 * IDENTIFICATION
 *	  src/api/formatdecode.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <zstd.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "storage/bufpage.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "engine/format.h"
#include "engine/coding.h"
#include "engine/record.h"
#include "engine/segment.h"
#include "api/api.h"

PG_FUNCTION_INFO_V1(wide_format_pages);
PG_FUNCTION_INFO_V1(wide_format_page_fields);
PG_FUNCTION_INFO_V1(wide_format_records);
PG_FUNCTION_INFO_V1(wide_format_segments);
PG_FUNCTION_INFO_V1(wide_format_segment);
PG_FUNCTION_INFO_V1(wide_format_stored_blocks);
PG_FUNCTION_INFO_V1(wide_format_frame);
PG_FUNCTION_INFO_V1(wide_format_index);
PG_FUNCTION_INFO_V1(wide_format_crc32c);
PG_FUNCTION_INFO_V1(wide_format_varints);
PG_FUNCTION_INFO_V1(wide_format_compress);
PG_FUNCTION_INFO_V1(wide_format_encode_varints);

/*
 * The functions that return no set are not STRICT: the planner folds a
 * STRICT call with a constant NULL argument to NULL before the executor
 * checks EXECUTE, so a role without it would get NULL, not an error
 * (format_decode tests it).  They return NULL for a NULL argument here.
 */
static bool
any_arg_null(FunctionCallInfo fcinfo)
{
	for (int i = 0; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			return true;
	return false;
}

/* where a page's contents and special space start */
#define CONTENTS_OFF	((int) MAXALIGN(SizeOfPageHeaderData))
#define OPAQUE_OFF		((int) (BLCKSZ - MAXALIGN(sizeof(WidePageOpaqueData))))
/* the most a decoded block may hold (the engine's largest, 64 MB) */
#define DECODE_MAX_RAW	((Size) 64 * 1024 * 1024)

/* what cannot be decoded, and why (a sentence) */
static void
decode_error(const char *what, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("cannot decode %s", what),
			 detail ? errdetail("%s", detail) : 0));
}

/* what cannot be decoded, and the engine's reason (a phrase) */
static void
decode_why(const char *what, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("cannot decode %s: %s", what, why)));
}

/*
 * the bytes of a bytea, MAXALIGNed (copied if they are not), so that page
 * structures can be read in place
 */
static const char *
aligned(bytea *b)
{
	const char *d = VARDATA_ANY(b);
	char	   *copy;

	if ((uintptr_t) d % MAXIMUM_ALIGNOF == 0)
		return d;
	copy = palloc(Max(VARSIZE_ANY_EXHDR(b), 1));
	memcpy(copy, d, VARSIZE_ANY_EXHDR(b));
	return copy;
}

/* a relation file's image: whole pages */
static BlockNumber
image_pages(bytea *img)
{
	Size		len = VARSIZE_ANY_EXHDR(img);

	if (len % BLCKSZ != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("image of %zu bytes is not a whole number of pages", len),
				 errdetail("A relation file's image holds pages of %d bytes.", BLCKSZ)));
	return (BlockNumber) (len / BLCKSZ);
}

static const WidePageOpaqueData *
page_opaque(const char *page)
{
	return (const WidePageOpaqueData *) (page + OPAQUE_OFF);
}

static const char *
page_type_name(uint16 t)
{
	switch (t)
	{
		case WIDE_PAGE_META:
			return "meta";
		case WIDE_PAGE_WRITE:
			return "write";
		case WIDE_PAGE_BLOB:
			return "blob";
		case WIDE_PAGE_SEGMENT:
			return "segment";
		case WIDE_PAGE_SEGROOT:
			return "segheader";
	}
	return "other";
}

static Datum
u64_numeric(uint64 v)
{
	char		buf[32];

	snprintf(buf, sizeof(buf), UINT64_FORMAT, v);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

static bytea *
make_bytea(const char *data, Size len)
{
	bytea	   *b;

	if (len > MaxAllocSize - VARHDRSZ)
		decode_error("a block", "It is too long for a bytea.");
	b = palloc(VARHDRSZ + len);
	SET_VARSIZE(b, VARHDRSZ + len);
	if (len > 0)
		memcpy(VARDATA(b), data, len);
	return b;
}

/* the most columns a function here returns */
#define MAX_COLS	12

/* a set-returning function's result, a tuplestore the rows go into */
static ReturnSetInfo *
start_rows(FunctionCallInfo fcinfo)
{
	InitMaterializedSRF(fcinfo, 0);
	return (ReturnSetInfo *) fcinfo->resultinfo;
}

/* a row of a set-returning function's result, no column null */
static void
put_row(ReturnSetInfo *rsinfo, Datum *values)
{
	bool		nulls[MAX_COLS] = {false};

	Assert(rsinfo->setDesc->natts <= MAX_COLS);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* the one row a function returning a row type returns */
static Datum
one_row(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	Assert(tupdesc->natts <= MAX_COLS);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
													  values, nulls)));
}

/* a page argument, MAXALIGNed: BLCKSZ bytes */
static const char *
page_arg(bytea *pg)
{
	if (VARSIZE_ANY_EXHDR(pg) != BLCKSZ)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a page has %d bytes, not %zu", BLCKSZ,
						(Size) VARSIZE_ANY_EXHDR(pg))));
	return aligned(pg);
}

/*
 * format_pages(image): blkno, type (meta, write, blob, segment, segheader
 * or other), next link and owner of every page, from its special space.
 */
Datum
wide_format_pages(PG_FUNCTION_ARGS)
{
	bytea	   *img = PG_GETARG_BYTEA_PP(0);
	BlockNumber n = image_pages(img);
	const char *data = aligned(img);
	ReturnSetInfo *rsinfo = start_rows(fcinfo);

	for (BlockNumber b = 0; b < n; b++)
	{
		const WidePageOpaqueData *o = page_opaque(data + (Size) b * BLCKSZ);
		Datum		values[4];

		values[0] = Int64GetDatum(b);
		values[1] = CStringGetTextDatum(page_type_name(o->page_type));
		values[2] = Int64GetDatum(o->next);
		values[3] = Int64GetDatum(o->owner);
		put_row(rsinfo, values);
	}
	PG_RETURN_VOID();
}

/* format_page_fields' output */
typedef struct FieldOut
{
	ReturnSetInfo *rsinfo;
	const char *page;
} FieldOut;

/* the little-endian (host order) unsigned value of size bytes at p */
static uint64
field_value(const char *p, int size)
{
	switch (size)
	{
		case 1:
			return (uint8) *p;
		case 2:
			{
				uint16		x;

				memcpy(&x, p, 2);
				return x;
			}
		case 4:
			{
				uint32		x;

				memcpy(&x, p, 4);
				return x;
			}
		case 8:
			{
				uint64		x;

				memcpy(&x, p, 8);
				return x;
			}
	}
	elog(ERROR, "a field of %d bytes", size);
	return 0;
}

static void
put_field(FieldOut *f, const char *name, int off, int size)
{
	Datum		values[4];
	uint64		v;

	Assert(off >= 0 && off + size <= BLCKSZ);
	v = field_value(f->page + off, size);
	values[0] = CStringGetTextDatum(name);
	values[1] = Int32GetDatum(off);
	values[2] = Int32GetDatum(size);
	values[3] = u64_numeric(v);
	put_row(f->rsinfo, values);
}

#define FIELD(f, name, base, type, member) \
	put_field((f), (name), (base) + (int) offsetof(type, member), \
			  (int) sizeof(((type *) 0)->member))

static void
run_fields(FieldOut *f, const char *what, int i, int base)
{
	char		name[64];

#define RUN(member) \
	(snprintf(name, sizeof(name), "%s %d " #member, what, i), \
	 FIELD(f, name, base, WideRunData, member))
	RUN(segid);
	RUN(root);
	RUN(gen);
	RUN(seq_base);
	RUN(ncells);
	RUN(npages);
	RUN(min_seq);
	RUN(max_seq);
	RUN(flags);
	RUN(ntombstones);
	RUN(min_xmin);
	RUN(lo_len);
	RUN(hi_len);
	RUN(families);
#undef RUN
}

static void
meta_fields(FieldOut *f)
{
	const int	m = CONTENTS_OFF;
	char		name[64];
	int			i;

#define META(member) FIELD(f, #member, m, WideMetaPageData, member)
	META(magic);
	META(version);
	META(generation);
	META(nlanes);
	for (i = 0; i < WIDE_NLANES; i++)
	{
		int			base = m + offsetof(WideMetaPageData, lanes) + i * sizeof(WideLane);

		snprintf(name, sizeof(name), "lane %d head", i);
		FIELD(f, name, base, WideLane, head);
		snprintf(name, sizeof(name), "lane %d npages", i);
		FIELD(f, name, base, WideLane, npages);
	}
	META(flushing);
	META(next_segid);
	META(nwaruns);
	for (i = 0; i < WIDE_MAX_WA_RUNS; i++)
		run_fields(f, "warun", i,
				   m + offsetof(WideMetaPageData, waruns) + i * sizeof(WideRunData));
	META(nruns);
	META(version_counter);
	META(flushes);
	META(compactions);
	for (i = 0; i < WIDE_MAX_RUNS; i++)
		run_fields(f, "run", i,
				   m + offsetof(WideMetaPageData, runs) + i * sizeof(WideRunData));
	META(nfree);
	for (i = 0; i < WIDE_FREE_SLOTS; i++)
	{
		int			base = m + offsetof(WideMetaPageData, free) + i * sizeof(WideFreeEntry);

		snprintf(name, sizeof(name), "free %d kind", i);
		FIELD(f, name, base, WideFreeEntry, kind);
		snprintf(name, sizeof(name), "free %d start", i);
		FIELD(f, name, base, WideFreeEntry, start);
		snprintf(name, sizeof(name), "free %d npages", i);
		FIELD(f, name, base, WideFreeEntry, npages);
	}
	META(epoch);
	META(nrangedels);
	META(rangedel_len);
	META(ndrops);
#undef META
}

/* entries (extents, then blobs) a segment header page holds */
#define HEADER_ENTRIES	((WIDE_PAGE_CAPACITY - sizeof(WideSegHeader)) / 8)

static void
segheader_fields(FieldOut *f)
{
	const int	m = CONTENTS_OFF;
	const WideSegHeader *h = (const WideSegHeader *) (f->page + m);
	char		name[64];
	uint32		n = Min(Max(h->nentries_here, 1), (uint32) HEADER_ENTRIES);

#define HDR(member) FIELD(f, #member, m, WideSegHeader, member)
	HDR(magic);
	HDR(segid);
	HDR(nentries_here);
	HDR(nextents);
	HDR(nblobs);
	HDR(nheaders);
	HDR(typlen);
	HDR(flags);
	HDR(root_len);
	HDR(stream_len);
	HDR(root_off);
	HDR(ncells);
	HDR(max_seq);
#undef HDR
	for (uint32 i = 0; i < n; i++)
	{
		int			base = m + sizeof(WideSegHeader) + 8 * i;

		snprintf(name, sizeof(name), "entry %u start", i);
		put_field(f, name, base, 4);
		snprintf(name, sizeof(name), "entry %u npages", i);
		put_field(f, name, base + 4, 4);
	}
}

/*
 * format_page_fields(page): field, offset in the page, size and value of
 * the special space's fields, then by the page's type those of the
 * metapage (every slot of its arrays) or of a segment header page (and
 * its entries, as many as it says it holds, at least one, at most as fit).
 */
Datum
wide_format_page_fields(PG_FUNCTION_ARGS)
{
	FieldOut	f;
	const WidePageOpaqueData *o;

	f.page = page_arg(PG_GETARG_BYTEA_PP(0));
	f.rsinfo = start_rows(fcinfo);
	o = page_opaque(f.page);
	FIELD(&f, "next", OPAQUE_OFF, WidePageOpaqueData, next);
	FIELD(&f, "link", OPAQUE_OFF, WidePageOpaqueData, link);
	FIELD(&f, "owner", OPAQUE_OFF, WidePageOpaqueData, owner);
	FIELD(&f, "flags", OPAQUE_OFF, WidePageOpaqueData, flags);
	FIELD(&f, "type", OPAQUE_OFF, WidePageOpaqueData, page_type);
	if (o->page_type == WIDE_PAGE_META)
		meta_fields(&f);
	else if (o->page_type == WIDE_PAGE_SEGROOT)
		segheader_fields(&f);
	PG_RETURN_VOID();
}

/*
 * format_records(page): the line pointers of a write-area page (as many as
 * pd_lower says, at most as fit), each as a row (field "lp", its offset in
 * the page, its value), and after each normal one whose record starts in
 * the page's contents the fields of the record (WideRecordLayout: name,
 * offset in the page, size, value), those that lie within the record and
 * the page.  item is the line pointer's number (1 for the first); lp_off,
 * lp_len and lp_flags its parts.
 */
Datum
wide_format_records(PG_FUNCTION_ARGS)
{
	const char *page = page_arg(PG_GETARG_BYTEA_PP(0));
	ReturnSetInfo *rsinfo = start_rows(fcinfo);
	uint16		lower;
	int			nitems;

	lower = ((const PageHeaderData *) page)->pd_lower;
	nitems = lower < SizeOfPageHeaderData ? 0 :
		(Min(lower, BLCKSZ) - (int) SizeOfPageHeaderData) / (int) sizeof(ItemIdData);
	for (int i = 0; i < nitems; i++)
	{
		int			lpoff = SizeOfPageHeaderData + i * sizeof(ItemIdData);
		const ItemIdData *lp = (const ItemIdData *) (page + lpoff);
		uint32		raw;
		Datum		values[8];
		WideRecordField fields[WIDE_RECORD_FIELDS];
		int			n = 0;
		uint32		start = lp->lp_off;

		memcpy(&raw, lp, sizeof(raw));
		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(lp->lp_off);
		values[2] = Int32GetDatum(lp->lp_len);
		values[3] = Int32GetDatum(lp->lp_flags);
		values[4] = CStringGetTextDatum("lp");
		values[5] = Int32GetDatum(lpoff);
		values[6] = Int32GetDatum(sizeof(ItemIdData));
		values[7] = u64_numeric(raw);
		put_row(rsinfo, values);
		if (lp->lp_flags == LP_NORMAL && start >= SizeOfPageHeaderData &&
			start < (uint32) OPAQUE_OFF)
			n = WideRecordLayout(page + start, Min(lp->lp_len, BLCKSZ - start), fields);
		for (int j = 0; j < n; j++)
		{
			uint64		v = field_value(page + start + fields[j].off, fields[j].size);

			values[4] = CStringGetTextDatum(fields[j].name);
			values[5] = Int32GetDatum(start + fields[j].off);
			values[6] = Int32GetDatum(fields[j].size);
			values[7] = u64_numeric(v);
			put_row(rsinfo, values);
		}
	}
	PG_RETURN_VOID();
}

/* ----------------------------------------------------------------
 *	Segments of an image
 * ----------------------------------------------------------------
 */
typedef struct ImageHeaders
{
	const char *data;
} ImageHeaders;

static const char *
image_header_get(void *arg, BlockNumber blkno)
{
	const char *page = ((ImageHeaders *) arg)->data + (Size) blkno * BLCKSZ;

	if (page_opaque(page)->page_type != WIDE_PAGE_SEGROOT)
	{
		char		detail[64];

		snprintf(detail, sizeof(detail), "Block %u is not a segment header page.", blkno);
		decode_error("a segment header chain", detail);
	}
	return page;
}

static void
image_header_release(void *arg)
{
}

static void
image_header_corrupt(void *arg, uint32 segid, const char *what, uint64 where)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("cannot decode segment %u: %s at %llu", segid, what,
					(unsigned long long) where)));
}

/* a segment of an image, its header read by segment_reader.c */
static WideSegment *
image_segment(bytea *img, int64 root)
{
	BlockNumber n = image_pages(img);
	ImageHeaders ih = {aligned(img)};
	WideHeaderSource src;

	if (root <= 0 || root >= n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block %lld is not in the image of %u pages",
						(long long) root, n)));
	src.nblocks = n;
	src.get = image_header_get;
	src.release = image_header_release;
	src.corrupt = image_header_corrupt;
	src.arg = &ih;
	return WideSegmentReadHeaders(&src, (BlockNumber) root);
}

/*
 * the first npages pages of a segment's stream, in order, into pages (its
 * extents hold at least as many: WideSegmentReadHeaders checked that they
 * hold the stream)
 */
static void
stream_pages(const WideSegment *seg, uint64 npages, BlockNumber *pages)
{
	uint64		done = 0;

	for (int e = 0; e < seg->nextents && done < npages; e++)
		for (uint32 k = 0; k < seg->extents[e].npages && done < npages; k++)
			pages[done++] = seg->extents[e].start + k;
	if (done < npages)
		decode_error("a segment stream", "The stream is longer than its extents.");
}

/* the stream's bytes (its pages checked to be stream pages) */
static char *
segment_stream(bytea *img, const WideSegment *seg)
{
	const char *data = aligned(img);
	uint64		npages = (seg->stream_len + WIDE_PAGE_CAPACITY - 1) / WIDE_PAGE_CAPACITY;
	BlockNumber *pages;
	char	   *s;
	uint64		done = 0;

	if (seg->stream_len > (uint64) VARSIZE_ANY_EXHDR(img))
		decode_error("a segment stream", "The stream is longer than the image.");
	pages = palloc(sizeof(BlockNumber) * Max(npages, 1));
	stream_pages(seg, npages, pages);
	s = palloc(Max(seg->stream_len, 1));
	for (uint64 i = 0; done < seg->stream_len; i++)
	{
		const char *page = data + (Size) pages[i] * BLCKSZ;
		uint64		n = Min((uint64) WIDE_PAGE_CAPACITY, seg->stream_len - done);

		if (page_opaque(page)->page_type != WIDE_PAGE_SEGMENT)
		{
			char		detail[64];

			snprintf(detail, sizeof(detail), "Block %u is not a segment stream page.", pages[i]);
			decode_error("a segment stream", detail);
		}
		memcpy(s + done, page + CONTENTS_OFF, n);
		done += n;
	}
	pfree(pages);
	return s;
}

/*
 * format_segments(image): the root (first header page) and segment id of
 * every segment header chain of the image: the header pages no other
 * header page links to; live if the metapage lists it as a run or a
 * write-area run.
 */
Datum
wide_format_segments(PG_FUNCTION_ARGS)
{
	bytea	   *img = PG_GETARG_BYTEA_PP(0);
	BlockNumber n = image_pages(img);
	const char *data = aligned(img);
	bool	   *linked = palloc0(sizeof(bool) * Max(n, 1));
	const WideMetaPageData *meta = NULL;
	ReturnSetInfo *rsinfo = start_rows(fcinfo);

	if (n > 0 && page_opaque(data)->page_type == WIDE_PAGE_META)
		meta = (const WideMetaPageData *) (data + CONTENTS_OFF);
	for (BlockNumber b = 0; b < n; b++)
	{
		const WidePageOpaqueData *o = page_opaque(data + (Size) b * BLCKSZ);

		if (o->page_type == WIDE_PAGE_SEGROOT && o->next < n)
			linked[o->next] = true;
	}
	for (BlockNumber b = 0; b < n; b++)
	{
		const char *page = data + (Size) b * BLCKSZ;
		const WideSegHeader *h = (const WideSegHeader *) (page + CONTENTS_OFF);
		Datum		values[3];
		bool		live = false;

		if (page_opaque(page)->page_type != WIDE_PAGE_SEGROOT || linked[b])
			continue;
		if (meta)
		{
			for (uint32 i = 0; i < Min(meta->nruns, (uint32) WIDE_MAX_RUNS); i++)
				live |= meta->runs[i].root == b;
			for (uint32 i = 0; i < Min(meta->nwaruns, (uint32) WIDE_MAX_WA_RUNS); i++)
				live |= meta->waruns[i].root == b;
		}
		values[0] = Int64GetDatum(b);
		values[1] = Int64GetDatum(h->segid);
		values[2] = BoolGetDatum(live);
		put_row(rsinfo, values);
	}
	PG_RETURN_VOID();
}

static ArrayType *
int8_array(const int64 *v, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Int64GetDatum(v[i]);
	return construct_array(d, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

/*
 * format_segment(image, root): the segment whose header chain starts at
 * root, as segment_reader.c reads it (a damaged header is an error): id,
 * value typlen, cells, stream length, root block offset and length, header
 * pages, stream pages in order, where a page's contents start and how many
 * bytes of stream a page holds, and the stream's bytes.
 */
Datum
wide_format_segment(PG_FUNCTION_ARGS)
{
	bytea	   *img;
	WideSegment *seg;
	Datum		values[12];
	bool		nulls[12] = {false};
	uint64		npages;
	BlockNumber *blocks;
	int64	   *pages;
	int64	   *roots;
	char	   *stream;

	if (any_arg_null(fcinfo))
		PG_RETURN_NULL();
	img = PG_GETARG_BYTEA_PP(0);
	seg = image_segment(img, PG_GETARG_INT64(1));
	roots = palloc(sizeof(int64) * seg->nroots);
	stream = segment_stream(img, seg);

	/* (the stream's length was checked against the image's) */
	npages = (seg->stream_len + WIDE_PAGE_CAPACITY - 1) / WIDE_PAGE_CAPACITY;
	blocks = palloc(sizeof(BlockNumber) * Max(npages, 1));
	stream_pages(seg, npages, blocks);
	pages = palloc(sizeof(int64) * Max(npages, 1));
	for (uint64 i = 0; i < npages; i++)
		pages[i] = blocks[i];
	for (int i = 0; i < seg->nroots; i++)
		roots[i] = seg->roots[i];
	values[0] = Int64GetDatum(seg->segid);
	values[1] = Int16GetDatum(seg->typlen);
	values[2] = u64_numeric(seg->ncells);
	values[3] = Int64GetDatum((int64) seg->stream_len);
	values[4] = Int64GetDatum((int64) seg->root_off);
	values[5] = Int64GetDatum(seg->root_len);
	values[6] = PointerGetDatum(int8_array(roots, seg->nroots));
	values[7] = PointerGetDatum(int8_array(pages, (int) npages));
	values[8] = Int32GetDatum(CONTENTS_OFF);
	values[9] = Int32GetDatum(WIDE_PAGE_CAPACITY);
	values[10] = Int32GetDatum(seg->nblobs);
	values[11] = PointerGetDatum(make_bytea(stream, seg->stream_len));
	return one_row(fcinfo, values, nulls);
}

/* a stored block of a stream, decoded (checksum checked) and its index */
static WideIndex *
stored_index(const char *stream, uint64 stream_len, uint64 off, uint64 len,
			 bool root)
{
	Size		rawlen;
	const char *why = NULL;
	char	   *raw;
	WideIndex  *idx;

	if (off > stream_len || len > stream_len - off)
		decode_error("an index block", "It lies outside the stream.");
	raw = WideBlockLoad(stream + off, len, DECODE_MAX_RAW, &rawlen, &why);
	if (raw == NULL)
		decode_why("an index block", why);
	idx = WideIndexDecode(raw, rawlen, !root);
	if (idx == NULL)
		decode_error("an index block", "Its entries are malformed.");
	return idx;
}

static void
put_stored(ReturnSetInfo *rsinfo, const char *kind, const char *stream,
		   uint64 stream_len, uint64 off, uint64 len)
{
	Datum		values[5];

	if (off > stream_len || len > stream_len - off)
		decode_error("a stored block", "It lies outside the stream.");
	if (len < 5)
		decode_error("a stored block", "It is shorter than its frame.");
	values[0] = CStringGetTextDatum(kind);
	values[1] = Int64GetDatum((int64) off);
	values[2] = Int64GetDatum((int64) len);
	values[3] = Int32GetDatum((uint8) stream[off + len - 5]);
	values[4] = PointerGetDatum(make_bytea(stream + off, len));
	put_row(rsinfo, values);
}

/*
 * format_stored_blocks(image, root): the stored blocks of a segment, each
 * with its kind (root, index, data), offset and length in the stream, its
 * frame type (0 raw, 1 zstd, 2 packed) and its stored bytes: the root,
 * then each index block followed by its data blocks.  The root and index
 * blocks are decoded by compress.c and indexblock.c (checksums checked).
 */
Datum
wide_format_stored_blocks(PG_FUNCTION_ARGS)
{
	bytea	   *img = PG_GETARG_BYTEA_PP(0);
	WideSegment *seg = image_segment(img, PG_GETARG_INT64(1));
	char	   *stream = segment_stream(img, seg);
	ReturnSetInfo *rsinfo = start_rows(fcinfo);
	WideIndex  *root;

	put_stored(rsinfo, "root", stream, seg->stream_len, seg->root_off, seg->root_len);
	root = stored_index(stream, seg->stream_len, seg->root_off, seg->root_len, true);
	for (int i = 0; i < root->n; i++)
	{
		const WideIndexEntry *ie = &root->entries[i];
		WideIndex  *idx;

		put_stored(rsinfo, "index", stream, seg->stream_len, ie->offset, ie->length);
		idx = stored_index(stream, seg->stream_len, ie->offset, ie->length, false);
		for (int j = 0; j < idx->n; j++)
			put_stored(rsinfo, "data", stream, seg->stream_len,
					   idx->entries[j].offset, idx->entries[j].length);
		WideIndexFree(idx);
	}
	PG_RETURN_VOID();
}

/*
 * format_frame(stored): a stored block's frame type, the CRC-32C it
 * stores and the one of its bytes (they differ if it is damaged: the
 * checksum is not required to match), its body (the payload, decompressed
 * if zstd; a packed block stays packed) and, for a packed block, the
 * timestamp unit and value divisor of its header (divisor 0: values as
 * they are, -1: delta coded, else a power of ten).
 */
Datum
wide_format_frame(PG_FUNCTION_ARGS)
{
	bytea	   *st;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, true, true};
	uint8		type;
	uint32		stored_crc,
				crc;
	const char *body;
	Size		bodylen;
	const char *why = NULL;

	if (any_arg_null(fcinfo))
		PG_RETURN_NULL();
	st = PG_GETARG_BYTEA_PP(0);

	if (!WideBlockInspect(VARDATA_ANY(st), VARSIZE_ANY_EXHDR(st), DECODE_MAX_RAW,
						  &type, &stored_crc, &crc, &body, &bodylen, &why))
		decode_why("a stored block", why);
	values[0] = Int32GetDatum(type);
	values[1] = Int64GetDatum(stored_crc);
	values[2] = Int64GetDatum(crc);
	values[3] = PointerGetDatum(make_bytea(body, bodylen));
	if (type == 2 || type == 3)
	{
		Size		rawlen;
		uint64		unit;
		double		div;

		if (WideBlockPackedHeader(body, bodylen, DECODE_MAX_RAW, &rawlen,
								  &unit, &div) == NULL)
			decode_error("a packed block", "Its header is malformed.");
		values[4] = u64_numeric(unit);
		values[5] = Float8GetDatum(div);
		nulls[4] = nulls[5] = false;
	}
	return one_row(fcinfo, values, nulls);
}

/*
 * format_index(raw, root): the entries of a decoded root block (root) or
 * index block (with its row filter): number, offset and length of the
 * stored block it names in the stream, cells, flags, last row key.
 */
Datum
wide_format_index(PG_FUNCTION_ARGS)
{
	bytea	   *raw = PG_GETARG_BYTEA_PP(0);
	bool		root = PG_GETARG_BOOL(1);
	ReturnSetInfo *rsinfo = start_rows(fcinfo);
	WideIndex  *idx;

	idx = WideIndexDecode(VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), !root);
	if (idx == NULL)
		decode_error(root ? "a root block" : "an index block",
					 "Its entries are malformed.");
	for (int i = 0; i < idx->n; i++)
	{
		const WideIndexEntry *e = &idx->entries[i];
		Datum		values[6];

		values[0] = Int32GetDatum(i);
		values[1] = u64_numeric(e->offset);
		values[2] = Int64GetDatum(e->length);
		values[3] = u64_numeric(e->ncells);
		values[4] = Int32GetDatum(e->flags);
		values[5] = PointerGetDatum(make_bytea(e->lastrow, e->lastrowlen));
		put_row(rsinfo, values);
	}
	WideIndexFree(idx);
	PG_RETURN_VOID();
}

/* format_crc32c(bytes): the CRC-32C a stored block ends with */
Datum
wide_format_crc32c(PG_FUNCTION_ARGS)
{
	bytea	   *b;

	if (any_arg_null(fcinfo))
		PG_RETURN_NULL();
	b = PG_GETARG_BYTEA_PP(0);
	PG_RETURN_INT64((int64) WideBlockChecksum(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)));
}

/*
 * format_varints(bytes, pos, n): the n varints from byte pos (0-based) on,
 * each with the position after it
 */
Datum
wide_format_varints(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	int32		pos = PG_GETARG_INT32(1);
	int32		n = PG_GETARG_INT32(2);
	ReturnSetInfo *rsinfo;
	const char *data = VARDATA_ANY(b);
	const char *end = data + VARSIZE_ANY_EXHDR(b);
	const char *p;

	if (pos < 0 || pos > VARSIZE_ANY_EXHDR(b) || n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("position %d and count %d do not fit %zu bytes", pos, n,
						(Size) VARSIZE_ANY_EXHDR(b))));
	rsinfo = start_rows(fcinfo);
	p = data + pos;
	for (int i = 0; i < n; i++)
	{
		uint64		v;
		Datum		values[2];

		p = get_varint(p, end, &v);
		if (p == NULL)
		{
			char		detail[80];

			snprintf(detail, sizeof(detail), "Varint %d is truncated or longer than 10 bytes.", i);
			decode_error("a varint", detail);
		}
		values[0] = u64_numeric(v);
		values[1] = Int32GetDatum((int32) (p - data));
		put_row(rsinfo, values);
	}
	PG_RETURN_VOID();
}

/*
 * format_compress(raw, level): raw as a zstd frame with its content size
 * (compress.c), the payload of a stored block of type 1
 */
Datum
wide_format_compress(PG_FUNCTION_ARGS)
{
	bytea	   *raw;
	int32		level;
	StringInfoData out;

	if (any_arg_null(fcinfo))
		PG_RETURN_NULL();
	raw = PG_GETARG_BYTEA_PP(0);
	level = PG_GETARG_INT32(1);
	if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("zstd level must be between %d and %d",
						ZSTD_minCLevel(), ZSTD_maxCLevel())));
	initStringInfo(&out);
	WideBlockCompress(VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), level, &out);
	PG_RETURN_BYTEA_P(make_bytea(out.data, out.len));
}

/*
 * format_encode_varints(values): the varints of values (coding.h), one
 * after the other, to write a header a test has changed
 */
Datum
wide_format_encode_varints(PG_FUNCTION_ARGS)
{
	ArrayType  *a;
	Datum	   *d;
	bool	   *isnull;
	int			n;
	StringInfoData out;

	if (any_arg_null(fcinfo))
		PG_RETURN_NULL();
	a = PG_GETARG_ARRAYTYPE_P(0);
	deconstruct_array(a, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &d, &isnull, &n);
	initStringInfo(&out);
	for (int i = 0; i < n; i++)
	{
		if (isnull[i] || DatumGetInt64(d[i]) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a varint is of a value that is not null and not negative")));
		put_varint(&out, (uint64) DatumGetInt64(d[i]));
	}
	PG_RETURN_BYTEA_P(make_bytea(out.data, out.len));
}
