/*-------------------------------------------------------------------------
 *
 * re2_shim.h
 *	  RE2, Bigtable's regular expressions, as three C functions
 *	  (re2_shim.cpp).  Usable from C and C++; includes nothing of
 *	  PostgreSQL.
 *
 * IDENTIFICATION
 *	  src/api/re2_shim.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_RE2_SHIM_H
#define WIDE_RE2_SHIM_H

#include <stddef.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct WideRe2 WideRe2;	/* an RE2 object, opaque to C */

extern WideRe2 *wide_re2_compile(const char *pattern, size_t len,
								 char *err, size_t errlen);
extern bool wide_re2_full_match(const WideRe2 *re, const char *data, size_t len);
extern void wide_re2_free(WideRe2 *re);

#ifdef __cplusplus
}
#endif

#endif							/* WIDE_RE2_SHIM_H */
