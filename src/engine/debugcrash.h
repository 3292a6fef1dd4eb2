/*-------------------------------------------------------------------------
 *
 * debugcrash.h
 *	  Crash points for the tests (debugcrash.c): wide.debug_crash.
 *
 * IDENTIFICATION
 *	  src/engine/debugcrash.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_DEBUGCRASH_H
#define WIDE_DEBUGCRASH_H

extern void WideDebugCrash(const char *where);
extern void WideDebugPause(const char *where);

#endif							/* WIDE_DEBUGCRASH_H */
