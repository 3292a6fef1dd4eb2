/*-------------------------------------------------------------------------
 *
 * module.c
 *	  Loading the wide extension: module magic, settings and hooks.
 *
 * The library is loaded by CREATE EXTENSION, and in every backend that
 * opens a wide table (the relcache calls the access method's handler).
 * Nothing requires shared_preload_libraries.
 *
 * IDENTIFICATION
 *	  src/module.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "wide.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * _PG_init -- called once when the library is loaded.
 */
void
_PG_init(void)
{
	WideInstallHooks();
}
