/*-------------------------------------------------------------------------
 *
 * record.c
 *	  The on-page format of a write-area record.
 *
 * A write-area page is a standard slotted page; each item is one record:
 *
 *	  record   := header [ts_to] [blobref] body
 *	  header   := kind:u8 flags:u8 famlen:u8 pad:u8 keylen:u16 quallen:u16
 *	              vallen:u32 famid:u32 xmin:u32 cmin:u32 seq:u64 ts:i64
 *	  ts_to    := i64                          -- only for DEL_CELLS
 *	  blobref  := first:u32 length:u32         -- if VALUE_BLOB or BODY_BLOB
 *	  body     := key family qualifier value   -- inline parts only:
 *	              VALUE_BLOB: the value is in the blob;
 *	              BODY_BLOB:  the whole body is in the blob (never both).
 *
 * Integers are in host byte order (like the heap); items are MAXALIGNed by
 * PageAddItem, so the header can be read in place.  The flags byte carries
 * hint bits (xmin committed / aborted) that readers set without WAL, as the
 * heap does.
 *
 * IDENTIFICATION
 *	  src/engine/record.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/bufpage.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/record.h"

typedef struct WideRecordHeader
{
	uint8		kind;
	uint8		flags;
	uint8		famlen;
	uint8		pad;
	uint16		keylen;
	uint16		quallen;
	uint32		vallen;
	uint32		famid;
	TransactionId xmin;
	CommandId	cmin;
	uint64		seq;
	int64		ts;
} WideRecordHeader;

StaticAssertDecl(sizeof(WideRecordHeader) == 40, "record header is 40 bytes");
StaticAssertDecl(WIDE_MAX_ROW_KEY <= PG_UINT16_MAX &&
				 WIDE_MAX_QUALIFIER <= PG_UINT16_MAX &&
				 WIDE_MAX_FAMILY_NAME <= PG_UINT8_MAX,
				 "record lengths fit their fields");

/* bytes of the header and its optional parts */
static Size
record_fixed_size(const WideCell *cell)
{
	Size		sz = sizeof(WideRecordHeader);

	if (cell->kind == WIDE_KIND_DEL_CELLS)
		sz += sizeof(int64);
	if (cell->flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB))
		sz += sizeof(WideBlobRef);
	return sz;
}

/*
 * WideRecordSize -- bytes the encoded record takes (before MAXALIGN).
 */
Size
WideRecordSize(const WideCell *cell)
{
	Size		sz = record_fixed_size(cell);

	if (cell->flags & WIDE_REC_BODY_BLOB)
		return sz;
	sz += cell->keylen + cell->famlen + cell->quallen;
	if (!(cell->flags & WIDE_REC_VALUE_BLOB))
		sz += cell->vallen;
	return sz;
}

/*
 * a record's body at p: key, family, qualifier, then the value if value;
 * returns where it ends
 */
static char *
put_body(char *p, const WideCell *cell, bool value)
{
	memcpy(p, cell->key, cell->keylen);
	p += cell->keylen;
	memcpy(p, cell->family, cell->famlen);
	p += cell->famlen;
	memcpy(p, cell->qual, cell->quallen);
	p += cell->quallen;
	if (value && cell->vallen > 0)
	{
		memcpy(p, cell->value, cell->vallen);
		p += cell->vallen;
	}
	return p;
}

/*
 * WideRecordEncode -- write a record; dst has WideRecordSize(cell) bytes and
 * is MAXALIGNed.
 */
void
WideRecordEncode(const WideCell *cell, char *dst)
{
	WideRecordHeader *h = (WideRecordHeader *) dst;
	char	   *p = dst + sizeof(WideRecordHeader);

	h->kind = cell->kind;
	h->flags = cell->flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB);
	h->famlen = cell->famlen;
	h->pad = 0;
	h->keylen = cell->keylen;
	h->quallen = cell->quallen;
	h->vallen = cell->vallen;
	h->famid = cell->famid;
	h->xmin = cell->xmin;
	h->cmin = cell->cmin;
	h->seq = cell->seq;
	h->ts = cell->ts;
	if (cell->kind == WIDE_KIND_DEL_CELLS)
	{
		memcpy(p, &cell->ts_to, sizeof(int64));
		p += sizeof(int64);
	}
	if (cell->flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB))
	{
		memcpy(p, &cell->blob, sizeof(WideBlobRef));
		p += sizeof(WideBlobRef);
	}
	if (cell->flags & WIDE_REC_BODY_BLOB)
		return;
	(void) put_body(p, cell, !(cell->flags & WIDE_REC_VALUE_BLOB));
}

/*
 * WideRecordEncodeBody -- the bytes a spilled (BODY_BLOB) record keeps in
 * its blob, as WideRecordDecodeBody reads them: key, family, qualifier and
 * value; palloc'd, with their length.
 */
char *
WideRecordEncodeBody(const WideCell *cell, uint32 *len)
{
	char	   *body;

	*len = cell->keylen + cell->famlen + cell->quallen + cell->vallen;
	body = palloc(*len);
	(void) put_body(body, cell, true);
	return body;
}

/*
 * WideRecordDecode -- fill *cell from an encoded record, pointing into it.
 *
 * For a BODY_BLOB record the key, family, qualifier and value pointers are
 * left NULL; for a VALUE_BLOB record the value pointer is.  The caller reads
 * the blob (blob.c) when it needs those bytes.  Returns false if the record
 * is malformed (the caller reports corruption).
 */
bool
WideRecordDecode(const char *src, Size len, WideCell *cell)
{
	const WideRecordHeader *h = (const WideRecordHeader *) src;
	const char *p = src + sizeof(WideRecordHeader);
	uint64		body;

	if (len < sizeof(WideRecordHeader))
		return false;
	memset(cell, 0, sizeof(WideCell));
	cell->kind = h->kind;
	cell->flags = h->flags;
	cell->famlen = h->famlen;
	cell->keylen = h->keylen;
	cell->quallen = h->quallen;
	cell->vallen = h->vallen;
	cell->famid = h->famid;
	cell->xmin = h->xmin;
	cell->cmin = h->cmin;
	cell->seq = h->seq;
	cell->ts = h->ts;
	cell->ts_to = PG_INT64_MAX;
	if (cell->kind < WIDE_KIND_DEL_ROW || cell->kind > WIDE_KIND_MERGE ||
		(cell->flags & ~WIDE_REC_ALL_FLAGS) != 0 ||
		cell->keylen > WIDE_MAX_ROW_KEY || cell->famlen > WIDE_MAX_FAMILY_NAME ||
		cell->quallen > WIDE_MAX_QUALIFIER ||
		len < record_fixed_size(cell))
		return false;
	if (cell->kind == WIDE_KIND_DEL_CELLS)
	{
		memcpy(&cell->ts_to, p, sizeof(int64));
		p += sizeof(int64);
	}
	if (cell->flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB))
	{
		memcpy(&cell->blob, p, sizeof(WideBlobRef));
		p += sizeof(WideBlobRef);
	}
	body = (uint64) cell->keylen + cell->famlen + cell->quallen;
	if (cell->flags & WIDE_REC_BODY_BLOB)
		return !(cell->flags & WIDE_REC_VALUE_BLOB) &&
			cell->blob.length == body + cell->vallen;
	/* a value in a blob is exactly the blob */
	if ((cell->flags & WIDE_REC_VALUE_BLOB) && cell->blob.length != cell->vallen)
		return false;
	if (len < WideRecordSize(cell))
		return false;
	WideRecordDecodeBody(cell, p);
	return true;
}

/*
 * WideRecordItem -- the record of item "off" of a write-area page, with its
 * length in *len; NULL if the item is unused, or if its line pointer does
 * not lie within the page's item space (a damaged page: the caller reports
 * it).  Sets *bad for the latter.
 */
const char *
WideRecordItem(Page page, OffsetNumber off, Size *len, bool *bad)
{
	PageHeader	ph = (PageHeader) page;
	ItemId		id;
	Size		start;

	*bad = false;
	if (ph->pd_lower > ph->pd_upper || ph->pd_upper > ph->pd_special ||
		ph->pd_special > BLCKSZ ||
		off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page))
	{
		*bad = true;
		return NULL;
	}
	id = PageGetItemId(page, off);
	if (!ItemIdIsNormal(id))
		return NULL;
	start = ItemIdGetOffset(id);
	*len = ItemIdGetLength(id);
	if (start < ph->pd_upper || start % MAXIMUM_ALIGNOF != 0 ||
		start > ph->pd_special || *len > (Size) ph->pd_special - start)
	{
		*bad = true;
		return NULL;
	}
	return (const char *) page + start;
}

/*
 * WideRecordDecodeBody -- point a BODY_BLOB cell's parts into the blob bytes.
 */
void
WideRecordDecodeBody(WideCell *cell, const char *body)
{
	const char *p = body;

	cell->key = p;
	p += cell->keylen;
	cell->family = p;
	p += cell->famlen;
	cell->qual = p;
	p += cell->quallen;
	if (!(cell->flags & WIDE_REC_VALUE_BLOB))
		cell->value = p;
}

/*
 * WideRecordGetFlags / WideRecordSetHint -- the hint bits of a record in
 * place.  Setting one is a single-byte store, safe under a share lock.
 */
uint8
WideRecordGetFlags(const char *rec)
{
	return ((const WideRecordHeader *) rec)->flags;
}

void
WideRecordSetHint(char *rec, uint8 flag)
{
	((WideRecordHeader *) rec)->flags |= flag;
}

/*
 * WideRecordLayout -- the fields of an encoded record's header and its
 * optional parts, by the kind and flags it stores: name, offset in the
 * record and size, those that lie within its len bytes (for the format
 * decoders, api/formatdecode.c).  Returns how many were stored in fields
 * (at most WIDE_RECORD_FIELDS).
 */
int
WideRecordLayout(const char *rec, Size len, WideRecordField *fields)
{
	int			n = 0;
	Size		opt = sizeof(WideRecordHeader);
	uint8		kind;
	uint8		flags;

#define ADD(nm, o, sz) \
	do { \
		if ((o) + (sz) <= len) \
		{ \
			fields[n].name = (nm); \
			fields[n].off = (uint32) (o); \
			fields[n].size = (uint32) (sz); \
			n++; \
		} \
	} while (0)
#define HDR(member) \
	ADD(#member, offsetof(WideRecordHeader, member), \
		sizeof(((WideRecordHeader *) 0)->member))

	HDR(kind);
	HDR(flags);
	HDR(famlen);
	HDR(keylen);
	HDR(quallen);
	HDR(vallen);
	HDR(famid);
	HDR(xmin);
	HDR(cmin);
	HDR(seq);
	HDR(ts);
	if (len < 2)
		return n;
	/* (byte by byte: a damaged line pointer may point anywhere) */
	kind = (uint8) rec[offsetof(WideRecordHeader, kind)];
	flags = (uint8) rec[offsetof(WideRecordHeader, flags)];
	if (kind == WIDE_KIND_DEL_CELLS)
	{
		ADD("ts_to", opt, sizeof(int64));
		opt += sizeof(int64);
	}
	if (flags & (WIDE_REC_VALUE_BLOB | WIDE_REC_BODY_BLOB))
	{
		ADD("blob first", opt + offsetof(WideBlobRef, first),
			sizeof(((WideBlobRef *) 0)->first));
		ADD("blob length", opt + offsetof(WideBlobRef, length),
			sizeof(((WideBlobRef *) 0)->length));
	}
#undef HDR
#undef ADD
	Assert(n <= WIDE_RECORD_FIELDS);
	return n;
}
