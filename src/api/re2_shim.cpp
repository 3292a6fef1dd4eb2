/*-------------------------------------------------------------------------
 *
 * re2_shim.cpp
 *	  Bigtable's regular expressions: RE2 through a C interface, for the
 *	  regex filters (api/filter.c).
 *
 * Bigtable matches row keys, family names, qualifiers and values against
 * RE2 patterns, over bytes, as a whole-string match, with RE2's default
 * (UTF-8) options: `.` matches one UTF-8 character (not `\n`), `\C` any
 * single byte, `(?i)` and the other flags may appear anywhere.  This file
 * is the only C++ in wide: three functions, no exception crosses them
 * (RE2 reports errors through its status, allocation uses nothrow new),
 * and nothing here calls PostgreSQL, so no longjmp crosses C++ frames.
 *
 * A compiled pattern is malloc'd (C++ new); filter.c frees it through
 * wide_re2_free from a memory context reset callback, so an error between
 * compiling and freeing leaks nothing.
 *
 * IDENTIFICATION
 *	  src/api/re2_shim.cpp
 *
 *-------------------------------------------------------------------------
 */
#include <new>
#include <string.h>
#include <stdlib.h>

#include <re2/re2.h>

#include "api/re2_shim.h"

/*
 * wide_re2_compile -- compile a pattern of len bytes.  On success returns
 * the compiled pattern; otherwise NULL, with RE2's message (at most
 * errlen - 1 bytes, NUL-terminated) in err.
 */
extern "C" WideRe2 *
wide_re2_compile(const char *pattern, size_t len, char *err, size_t errlen)
{
	RE2::Options opts;
	RE2		   *re;

	opts.set_log_errors(false);
	re = new (std::nothrow) RE2(re2::StringPiece(pattern, len), opts);
	if (re == NULL)
	{
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!re->ok())
	{
		snprintf(err, errlen, "%s", re->error().c_str());
		delete re;
		return NULL;
	}
	return reinterpret_cast<WideRe2 *>(re);
}

/* wide_re2_full_match -- does the whole of data (len bytes) match? */
extern "C" bool
wide_re2_full_match(const WideRe2 *re, const char *data, size_t len)
{
	return RE2::FullMatch(re2::StringPiece(data, len),
						  *reinterpret_cast<const RE2 *>(re));
}

/* wide_re2_free -- free a compiled pattern */
extern "C" void
wide_re2_free(WideRe2 *re)
{
	delete reinterpret_cast<RE2 *>(re);
}
