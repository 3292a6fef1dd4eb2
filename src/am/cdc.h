/*-------------------------------------------------------------------------
 *
 * cdc.h
 *	  Logical decoding of wide tables: the custom WAL resource manager
 *	  (am/cdc.c).
 *
 * IDENTIFICATION
 *	  src/am/cdc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_CDC_H
#define WIDE_CDC_H

/*
 * The id of the resource manager "wide".  Custom ids are 128..255 and must
 * not collide with another extension's in the same cluster; 128
 * (RM_EXPERIMENTAL_ID) is for development only.  wide uses 187 and keeps it
 * stable: WAL written with it can be replayed only by a server that loads
 * wide (docs/replication.md).
 */
#define WIDE_RMGR_ID	187

extern bool WideCdcAvailable(void);
extern void WideInstallCdc(void);
extern void WideCdcLogDrop(Relation rel, const char *family, int64 before);

#endif							/* WIDE_CDC_H */
