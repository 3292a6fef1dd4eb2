/*-------------------------------------------------------------------------
 *
 * compress.c
 *	  Framing of stored blocks: compression and checksums.
 *
 *	  stored   := payload type:u8 crc:u32
 *	  type     := 0 raw | 1 zstd (a zstd frame with its content size)
 *				| 2 packed zstd (a zstd frame of a packed data block,
 *				  blockpack.c; format version 2)
 *				| 3 packed, its values' as they are (a zstd frame of a
 *				  packed data block up to its values' section, then that
 *				  section; format version 6)
 *	  crc      := CRC-32C of payload and type
 *
 * Type 3 is for the values' of format version 6 (Huffman coded float8
 * residuals, blockpack.c): bits zstd cannot shrink.  In one frame with the
 * keys and timestamps they cost more than alone (zstd codes a block's
 * literals with one table, which the random bits make flat: 156 bytes a
 * block of TSBS's float readings), and the decoder copies them instead of
 * decompressing them.
 *
 * A block is stored raw when zstd saves less than 12.5% (LevelDB's rule).
 * The zstd level is the wide.compression_level setting.
 *
 * IDENTIFICATION
 *	  src/engine/compress.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <zstd.h>

#include "port/pg_crc32c.h"
#include "utils/memutils.h"

#include "wide.h"
#include "engine/segment.h"

#define BLOCK_RAW	0
#define BLOCK_ZSTD	1
#define BLOCK_PACKED	2
#define BLOCK_PACKED_TAIL	3

int			wide_compression_level = 1;

static ZSTD_CCtx *cctx = NULL;
static ZSTD_DCtx *dctx = NULL;
static char *packed_scratch = NULL;	/* decompressed packed blocks */
static Size packed_scratch_size = 0;

static uint32
block_crc(const char *data, Size len)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	return crc;
}

/*
 * WideBlockStore -- frame a raw block for storage, appending to out.  A
 * data block is packed first when that helps (blockpack.c).
 */
void
WideBlockStore(const char *raw, Size len, bool data, StringInfo out)
{
	int			start = out->len;
	size_t		bound;
	size_t		clen;
	uint8		type = BLOCK_RAW;
	uint32		crc;
	StringInfoData packed;
	const char *src = raw;
	Size		srclen = len;
	Size		split = 0;

	if (cctx == NULL)
	{
		cctx = ZSTD_createCCtx();
		if (cctx == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
							errmsg("could not create a zstd compression context")));
	}
	packed.data = NULL;
	if (data)
	{
		initStringInfo(&packed);
		if (WideBlockPack(raw, len, &packed, &split))
		{
			src = packed.data;
			srclen = packed.len;
		}
	}
	/* (split: where the packed block's section zstd leaves alone starts) */
	if (src == raw || split == 0 || split > srclen)
		split = srclen;
	bound = ZSTD_compressBound(split);
	enlargeStringInfo(out, bound + (srclen - split) + 5);
	clen = ZSTD_compressCCtx(cctx, out->data + start, bound, src, split,
							 wide_compression_level);
	if (!ZSTD_isError(clen) && clen + (srclen - split) < len - len / 8)
	{
		out->len += clen;
		type = src == raw ? BLOCK_ZSTD : BLOCK_PACKED;
		if (split < srclen)
		{
			appendBinaryStringInfo(out, src + split, srclen - split);
			type = BLOCK_PACKED_TAIL;
		}
	}
	else
		appendBinaryStringInfo(out, raw, len);
	if (packed.data)
		pfree(packed.data);
	appendStringInfoCharMacro(out, (char) type);
	crc = block_crc(out->data + start, out->len - start);
	appendBinaryStringInfo(out, (const char *) &crc, sizeof(crc));
}

/*
 * WideBlockStoreRaw -- frame a block for storage uncompressed (type 0),
 * appending to out: a data block's row directory (rowdir.c), a hundred
 * bytes or so that a point read reads before stepping into the block, where
 * starting a zstd frame would cost more than it saves.
 */
void
WideBlockStoreRaw(const char *raw, Size len, StringInfo out)
{
	int			start = out->len;
	uint32		crc;

	appendBinaryStringInfo(out, raw, len);
	appendStringInfoCharMacro(out, (char) BLOCK_RAW);
	crc = block_crc(out->data + start, out->len - start);
	appendBinaryStringInfo(out, (const char *) &crc, sizeof(crc));
}

/*
 * frame_size -- the type of a stored block of len >= 5 bytes (its checksum
 * is the caller's) and the size of its body: the payload as it is (type 0),
 * or a zstd frame's content size, plus the bytes after the frame for type 3.
 * A body over maxraw bytes (plus slack for a packed block) is damaged.  False
 * with *why set if the type is unknown or the frame damaged.
 */
static bool
frame_size(const char *stored, Size len, Size maxraw, Size slack,
		   uint8 *type, Size *size, const char **why)
{
	unsigned long long n;

	*type = (uint8) stored[len - 5];
	if (*type == BLOCK_RAW)
	{
		*size = len - 5;
		return true;
	}
	if (*type != BLOCK_ZSTD && *type != BLOCK_PACKED && *type != BLOCK_PACKED_TAIL)
	{
		*why = "unknown block type";
		return false;
	}
	n = ZSTD_getFrameContentSize(stored, len - 5);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR)
	{
		*why = "bad compressed frame";
		return false;
	}
	if (*type == BLOCK_PACKED_TAIL)
	{
		/* the frame, then the rest of the packed block as it is */
		size_t		csize = ZSTD_findFrameCompressedSize(stored, len - 5);

		if (ZSTD_isError(csize) || csize > len - 5)
		{
			*why = "bad compressed frame";
			return false;
		}
		n += (len - 5) - csize;
	}
	if (n > maxraw + (*type != BLOCK_ZSTD ? slack : 0) || n > MaxAllocSize)
	{
		*why = "bad compressed frame";
		return false;
	}
	*size = (Size) n;
	return true;
}

/*
 * check_frame -- check a stored block's checksum, then its type and size
 * (frame_size; a packed block may be WIDE_PACK_SLACK over maxraw).  False
 * with *why set if it is damaged.
 */
static bool
check_frame(const char *stored, Size len, Size maxraw, uint8 *type,
			Size *size, const char **why)
{
	uint32		crc;

	if (len < 5)
	{
		*why = "block is truncated";
		return false;
	}
	memcpy(&crc, stored + len - 4, sizeof(crc));
	if (crc != block_crc(stored, len - 4))
	{
		*why = "checksum mismatch";
		return false;
	}
	return frame_size(stored, len, maxraw, WIDE_PACK_SLACK, type, size, why);
}

/* decompress a checked zstd frame (of type) of size bytes into dst */
static bool
decompress(const char *stored, Size len, uint8 type, char *dst, Size size,
		   const char **why)
{
	size_t		got;
	size_t		csize = len - 5;

	if (dctx == NULL)
	{
		dctx = ZSTD_createDCtx();
		if (dctx == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
							errmsg("could not create a zstd decompression context")));
	}
	if (type == BLOCK_PACKED_TAIL)
	{
		/* (check_frame found the frame's end within the payload) */
		csize = ZSTD_findFrameCompressedSize(stored, len - 5);
		if (ZSTD_isError(csize) || csize > len - 5 || (len - 5) - csize > size)
		{
			*why = "decompression failed";
			return false;
		}
		size -= (len - 5) - csize;
		memcpy(dst + size, stored + csize, (len - 5) - csize);
	}
	got = ZSTD_decompressDCtx(dctx, dst, size, stored, csize);
	if (ZSTD_isError(got) || got != size)
	{
		*why = "decompression failed";
		return false;
	}
	return true;
}

/* WideBlockLoad of a checked frame */
static char *
unframe(const char *stored, Size len, Size maxraw, uint8 type, Size size,
		Size *rawlen, const char **why)
{
	char	   *raw;

	if (type == BLOCK_RAW)
	{
		*rawlen = size;
		return (char *) stored;
	}
	if (type == BLOCK_PACKED || type == BLOCK_PACKED_TAIL)
	{
		char	   *unpacked;

		/* a packed block is decompressed into a buffer kept for the backend */
		if (packed_scratch_size < Max(size, 1))
		{
			if (packed_scratch)
				pfree(packed_scratch);
			packed_scratch = MemoryContextAlloc(TopMemoryContext, Max(size, 1));
			packed_scratch_size = Max(size, 1);
		}
		if (!decompress(stored, len, type, packed_scratch, size, why))
			return NULL;
		unpacked = WideBlockUnpack(packed_scratch, size, maxraw, rawlen);
		if (unpacked == NULL)
			*why = "bad packed block";
		return unpacked;
	}
	raw = palloc(Max(size, 1));
	if (!decompress(stored, len, type, raw, size, why))
	{
		pfree(raw);
		return NULL;
	}
	*rawlen = size;
	return raw;
}

/*
 * WideBlockLoad -- check and unframe a stored block.  Returns the raw bytes
 * (palloc'd, or "stored" itself when kept raw) and their length, or NULL
 * with *why set if the block is damaged.  A frame declaring more than
 * maxraw bytes (what a block of its kind can hold) is damaged: nothing is
 * allocated for it.  A packed data block is unpacked.
 */
char *
WideBlockLoad(const char *stored, Size len, Size maxraw, Size *rawlen,
			  const char **why)
{
	uint8		type;
	Size		size;

	if (!check_frame(stored, len, maxraw, &type, &size, why))
		return NULL;
	return unframe(stored, len, maxraw, type, size, rawlen, why);
}

static bool load_data(const char *stored, Size len, Size maxraw, int16 typlen,
					  WideRawBlock *blk, const char **why, char **packedp,
					  Size *packedlen);

/*
 * WideBlockLoadData -- WideBlockLoad for a data block whose segment's
 * values have length typlen, into *blk (its memory palloc'd, or "stored"
 * itself when kept raw).  A packed block stays packed when an iterator can
 * read it as it is: its values stored as they are, or all 8 bytes long
 * (typlen 8; aggregates are 8 bytes too) and packed by an exponent; else
 * (delta coded values too) it is unpacked.  False with
 * *why set if the block is damaged.
 */
bool
WideBlockLoadData(const char *stored, Size len, Size maxraw, int16 typlen,
				  WideRawBlock *blk, const char **why)
{
	return load_data(stored, len, maxraw, typlen, blk, why, NULL, NULL);
}

/*
 * WideBlockLoadDataKeys -- WideBlockLoadData for a caller that reads no
 * value for now (a compaction's survey, blockpass.c): a block that would be
 * unpacked has its values section left zeroed (WideBlockUnpackKeys), and
 * its decompressed packed bytes are handed back in *packed (palloc'd;
 * *packedlen bytes), for WideBlockUnpack to make the whole block of them
 * if the caller needs its values after all, without reading and
 * decompressing it again.  *packed is NULL where the values are all there.
 */
bool
WideBlockLoadDataKeys(const char *stored, Size len, Size maxraw, int16 typlen,
					  WideRawBlock *blk, const char **why, char **packed,
					  Size *packedlen)
{
	*packed = NULL;
	*packedlen = 0;
	return load_data(stored, len, maxraw, typlen, blk, why, packed, packedlen);
}

static bool
load_data(const char *stored, Size len, Size maxraw, int16 typlen,
		  WideRawBlock *blk, const char **why, char **packedp,
		  Size *packedlen)
{
	uint8		type;
	Size		size;
	char	   *packed;
	const char *body;
	Size		rawlen;

	blk->ts_unit = 1;
	blk->val_div = 0.0;
	if (!check_frame(stored, len, maxraw, &type, &size, why))
		return false;
	if (type != BLOCK_PACKED && type != BLOCK_PACKED_TAIL)
	{
		blk->mem = unframe(stored, len, maxraw, type, size, &blk->len, why);
		blk->data = blk->mem;
		return blk->mem != NULL;
	}
	packed = palloc(Max(size, 1));
	if (!decompress(stored, len, type, packed, size, why))
	{
		pfree(packed);
		return false;
	}
	body = WideBlockPackedHeader(packed, size, maxraw, &rawlen, &blk->ts_unit,
								 &blk->val_div);
	if (body == NULL)
	{
		pfree(packed);
		*why = "bad packed block";
		return false;
	}
	if (blk->val_div < 0.0 || (blk->val_div != 0.0 && typlen != 8))
	{
		/*
		 * values delta coded (each needs the one before it in its column),
		 * or not one per 8 bytes: the iterator needs them unpacked
		 */
		if (packedp == NULL)
		{
			blk->mem = WideBlockUnpack(packed, size, maxraw, &blk->len);
			pfree(packed);
		}
		else
		{
			blk->mem = WideBlockUnpackKeys(packed, size, maxraw, &blk->len);
			*packedp = packed;
			*packedlen = size;
		}
		blk->data = blk->mem;
		blk->ts_unit = 1;
		blk->val_div = 0.0;
		if (blk->mem == NULL)
			*why = "bad packed block";
		return blk->mem != NULL;
	}
	blk->mem = packed;
	blk->data = body;
	blk->len = size - (body - packed);
	return true;
}

/*
 * WideBlockChecksum -- the CRC-32C a stored block ends with, of its first
 * len bytes (payload and type).
 */
uint32
WideBlockChecksum(const char *data, Size len)
{
	return block_crc(data, len);
}

/*
 * WideBlockInspect -- a stored block taken apart without trusting its
 * checksum (for the format decoders, api/formatdecode.c): its type, the
 * CRC it stores and the one its bytes have, and its body: the payload as
 * it is (type 0) or decompressed (a packed block stays packed; its header
 * is read by WideBlockPackedHeader).  False with *why set if the frame is
 * truncated, of an unknown type, declares more than maxraw bytes or does
 * not decompress.  The body is palloc'd, or points into stored.
 */
bool
WideBlockInspect(const char *stored, Size len, Size maxraw, uint8 *type,
				 uint32 *stored_crc, uint32 *crc, const char **body,
				 Size *bodylen, const char **why)
{
	Size		n;
	char	   *dst;

	if (len < 5)
	{
		*why = "block is truncated";
		return false;
	}
	memcpy(stored_crc, stored + len - 4, sizeof(uint32));
	*crc = block_crc(stored, len - 4);
	if (!frame_size(stored, len, maxraw, 0, type, &n, why))
		return false;
	if (*type == BLOCK_RAW)
	{
		*body = stored;
		*bodylen = n;
		return true;
	}
	dst = palloc(Max(n, 1));
	if (!decompress(stored, len, *type, dst, n, why))
	{
		pfree(dst);
		return false;
	}
	*body = dst;
	*bodylen = n;
	return true;
}

/*
 * WideBlockCompress -- raw as one zstd frame (with its content size, no
 * checksum) at the given level, appended to out: a stored block's payload
 * of type 1 without its framing (for the tests that forge stored blocks).
 */
void
WideBlockCompress(const char *raw, Size len, int level, StringInfo out)
{
	size_t		bound = ZSTD_compressBound(len);
	size_t		clen;

	if (cctx == NULL)
	{
		cctx = ZSTD_createCCtx();
		if (cctx == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
							errmsg("could not create a zstd compression context")));
	}
	enlargeStringInfo(out, bound);
	clen = ZSTD_compressCCtx(cctx, out->data + out->len, bound, raw, len, level);
	if (ZSTD_isError(clen))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("zstd compression failed: %s", ZSTD_getErrorName(clen))));
	out->len += clen;
	out->data[out->len] = '\0';
}
