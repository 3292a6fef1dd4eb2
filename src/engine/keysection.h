/*-------------------------------------------------------------------------
 *
 * keysection.h
 *	  The parser of the fields of a data block's key section (block.c), one
 *	  for every reader of it: the block iterator, its row batches and the
 *	  survey of a block (block.c), and the packing of blocks (blockpack.c:
 *	  the columns of values, the digit steps of format version 6 written
 *	  and read).
 *
 * A record's key fields follow its flags byte, each only where the flags
 * say it changed:
 *
 *	  row   := shared:varint unshared:varint bytes[unshared]
 *	  fam   := len:u8 name[len] id:varint (32 bits)
 *	  qual  := shared:varint unshared:varint bytes[unshared]
 *
 * where shared counts the bytes of the previous row key (qualifier) that
 * the new one starts with.  Each function reads one field at *kp, checks
 * it against the section's end and the previous key's length, and
 * advances *kp (for a key, to its unshared bytes: the caller copies or
 * compares them, then steps over them); false if the field is malformed.
 * They are inline: the callers' loops are the hot paths of a scan.
 *
 * IDENTIFICATION
 *	  src/engine/keysection.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_KEYSECTION_H
#define WIDE_KEYSECTION_H

#include "engine/coding.h"
#include "engine/format.h"

/*
 * wide_key_rest -- the unshared length of a key part whose shared length
 * is known (format version 6's literal row keys store it apart), checked
 * against prevlen, the section's end and max.
 */
static inline bool
wide_key_rest(const char **kp, const char *kend, uint64 shared, uint64 prevlen,
			  uint64 max, uint64 *unshared)
{
	const char *k = get_varint(*kp, kend, unshared);

	if (k == NULL || shared > prevlen || *unshared > (uint64) (kend - k) ||
		shared + *unshared > max)
		return false;
	*kp = k;
	return true;
}

/* wide_key_row -- a record's row key part (prevlen: the last row key's) */
static inline bool
wide_key_row(const char **kp, const char *kend, uint64 prevlen,
			 uint64 *shared, uint64 *unshared)
{
	const char *k = get_varint(*kp, kend, shared);

	if (k == NULL ||
		!wide_key_rest(&k, kend, *shared, prevlen, WIDE_MAX_ROW_KEY, unshared))
		return false;
	*kp = k;
	return true;
}

/* wide_key_qual -- a record's qualifier part (prevlen: the last one's) */
static inline bool
wide_key_qual(const char **kp, const char *kend, uint64 prevlen,
			  uint64 *shared, uint64 *unshared)
{
	const char *k = get_varint(*kp, kend, shared);

	if (k == NULL ||
		!wide_key_rest(&k, kend, *shared, prevlen, WIDE_MAX_QUALIFIER, unshared))
		return false;
	*kp = k;
	return true;
}

/* wide_key_family -- a record's family part; *kp advanced past it */
static inline bool
wide_key_family(const char **kp, const char *kend, const char **fam,
				uint8 *famlen, uint32 *famid)
{
	const char *k = *kp;

	if (k >= kend)
		return false;
	*famlen = (uint8) *k++;
	if (*famlen > (uint64) (kend - k))
		return false;
	*fam = k;
	k += *famlen;
	if (!(k = get_u32v(k, kend, famid)))
		return false;
	*kp = k;
	return true;
}

#endif							/* WIDE_KEYSECTION_H */
