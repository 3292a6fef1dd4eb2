/*-------------------------------------------------------------------------
 *
 * selftest.h
 *	  Round trips of the engine's formats on random input (selftest.c).
 *
 * IDENTIFICATION
 *	  src/engine/selftest.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef WIDE_SELFTEST_H
#define WIDE_SELFTEST_H

/* the parts counted */
#define WIDE_SELFTEST_BLOCKS		0	/* data blocks written and read back */
#define WIDE_SELFTEST_RECORDS		1	/* their records */
#define WIDE_SELFTEST_SEEKS			2	/* row seeks checked */
#define WIDE_SELFTEST_DAMAGED		3	/* damaged blocks decoded */
#define WIDE_SELFTEST_INDEXES		4	/* index blocks written and read back */
#define WIDE_SELFTEST_INDEX_SEEKS	5	/* index seeks checked */
#define WIDE_SELFTEST_METAPAGES		6	/* metapage images checked (M8) */
#define WIDE_SELFTEST_SURVEYS		7	/* block surveys checked (WideBlockSurvey) */
#define WIDE_SELFTEST_ONE_XMIN		8	/* blocks of one xmin (WIDE_INDEX_ONE_XMIN) */
#define WIDE_SELFTEST_DIR_SEEKS		9	/* seeks from a stored row directory,
										 * and damaged copies of one read */
#define WIDE_SELFTEST_NPARTS		10

extern void WideSelfTestFormats(uint64 seed, int rounds, int64 *counts);

#endif							/* WIDE_SELFTEST_H */
