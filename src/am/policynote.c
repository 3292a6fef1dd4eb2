/*-------------------------------------------------------------------------
 *
 * policynote.c
 *	  A statement that writes cells its family's policy has already
 *	  collected says so: one NOTICE per statement.
 *
 * A cell whose timestamp is older than its family's max_age is collected
 * as soon as it is written: reads never return it and compaction drops it.
 * Loading old data into such a family (a COPY of last month's readings
 * into a 7-day family) thus succeeds, reports every row, and leaves
 * nothing.  Every write -- INSERT, COPY, the data API: WideWrite (write.c)
 * -- counts the cells it is handed
 * that the family's policy collects as the newest version of their column
 * at the reference time of reads (WideReaderNow); the top-level statement
 * reports the count when it ends (am/write.c), and only if it ends
 * well.  Only the cells written count, not the records of rollups computed
 * from them.  Versions beyond max_versions are not counted: writing newer
 * versions over older ones is what max_versions is for, and whether a
 * version is beyond it depends on the cells already there.
 *
 * WidePolicyNoteWrites -- count a batch of cells about to be written.
 * WidePolicyNoteReport -- the NOTICE of the statement ending, if any.
 * WidePolicyNoteInstall -- the transaction callbacks, at load.
 *
 * IDENTIFICATION
 *	  src/am/policynote.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "datatype/timestamp.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "engine/format.h"
#include "engine/cell.h"
#include "engine/schema.h"
#include "engine/rules.h"
#include "engine/reader.h"
#include "am/am.h"

typedef struct PolicyNote
{
	uint64		count;			/* cells collected on write */
	uint64		first_count;	/* of them, in the first family */
	Oid			relid;			/* the first family's table */
	char		family[WIDE_MAX_FAMILY_NAME + 1];
	int64		max_age;
	bool		several;		/* more than one family or table */
} PolicyNote;

static PolicyNote note;

/* the note as each open subtransaction found it, by nesting level */
static PolicyNote *saved = NULL;
static int	nsaved = 0;

static void
note_reset(void)
{
	memset(&note, 0, sizeof(note));
}

static void
note_xact_callback(XactEvent event, void *arg)
{
	/* a statement that failed, or writes outside any statement (apply) */
	note_reset();
}

static void
note_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					  SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();

	if (event == SUBXACT_EVENT_START_SUB)
	{
		if (level >= nsaved)
		{
			int			n = Max(level + 1, 2 * nsaved);

			saved = saved == NULL ?
				MemoryContextAlloc(TopMemoryContext, sizeof(PolicyNote) * n) :
				repalloc(saved, sizeof(PolicyNote) * n);
			nsaved = n;
		}
		saved[level] = note;
	}
	else if (event == SUBXACT_EVENT_ABORT_SUB && level < nsaved)
	{
		/* the cells of a rolled back subtransaction are not written */
		note = saved[level];
	}
}

/*
 * WidePolicyNoteInstall -- called once, at load.
 */
void
WidePolicyNoteInstall(void)
{
	RegisterXactCallback(note_xact_callback, NULL);
	RegisterSubXactCallback(note_subxact_callback, NULL);
}

/*
 * WidePolicyNoteWrites -- count the cells of cells[0..n-1] (as handed to a
 * write, before their rollup records) that their family's policy collects
 * at once.
 */
void
WidePolicyNoteWrites(Relation rel, const WideSchema *schema,
					 const WideCell *cells, int n)
{
	int64		now = 0;
	int			i;
	const char *lastfam = NULL;	/* (a row's cells share their family) */
	uint32		lastfamlen = 0;
	const WideFamily *f = NULL;

	/* a table rewrite copies cells, it does not write new ones */
	if (OidIsValid(WideRewriteSource(rel)))
		return;
	for (i = 0; i < n; i++)
	{
		const WideCell *c = &cells[i];

		if (c->kind != WIDE_KIND_PUT && c->kind != WIDE_KIND_ADD &&
			c->kind != WIDE_KIND_MERGE)
			continue;
		if (c->family != lastfam || c->famlen != lastfamlen)
		{
			f = WideSchemaFindFamily(schema, c->family, c->famlen);
			lastfam = c->family;
			lastfamlen = c->famlen;
		}
		if (f == NULL || f->max_age <= 0)
			continue;
		if (now == 0)
			now = WideReaderNow();
		if (!WideGCCollects(f, 0, c->ts, now, true))
			continue;
		if (note.count == 0)
		{
			note.relid = RelationGetRelid(rel);
			memcpy(note.family, f->name, sizeof(note.family));
			note.max_age = f->max_age;
		}
		note.count++;
		if (note.relid == RelationGetRelid(rel) &&
			strcmp(note.family, f->name) == 0)
			note.first_count++;
		else
			note.several = true;
	}
}

/* "7 days", "36 hours", "90 seconds": an age in microseconds */
static char *
age_text(int64 us)
{
	static const struct
	{
		int64		unit;
		const char *one;
		const char *many;
	}			units[] = {
		{USECS_PER_DAY, "day", "days"},
		{USECS_PER_HOUR, "hour", "hours"},
		{USECS_PER_MINUTE, "minute", "minutes"},
		{USECS_PER_SEC, "second", "seconds"},
	};
	int			i;

	for (i = 0; i < (int) lengthof(units); i++)
		if (us % units[i].unit == 0)
			return psprintf("%lld %s", (long long) (us / units[i].unit),
							us == units[i].unit ? units[i].one : units[i].many);
	return psprintf("%lld microseconds", (long long) us);
}

/*
 * WidePolicyNoteReport -- called when a top-level statement ends well:
 * the NOTICE of the cells it wrote that were collected at once.
 */
void
WidePolicyNoteReport(void)
{
	PolicyNote	n = note;
	char	   *relname;

	if (n.count == 0)
		return;
	note_reset();
	relname = get_rel_name(n.relid);
	if (relname == NULL)
		relname = psprintf("%u", n.relid);
	if (!n.several)
		ereport(NOTICE,
				(errmsg_plural("%llu cell written is older than the max_age of its family and is already collected",
							   "%llu cells written are older than the max_age of their family and are already collected",
							   n.count, (unsigned long long) n.count),
				 errdetail("Family \"%s\" of wide table \"%s\" keeps cells for %s: reads do not return older cells, and compaction removes them.",
						   n.family, relname, age_text(n.max_age)),
				 errhint("Check the timestamps of the data, or keep the family's cells longer with wide.alter_family('%s', '%s', max_age => ...).",
						 relname, n.family)));
	else
		ereport(NOTICE,
				(errmsg_plural("%llu cell written is older than the max_age of its family and is already collected",
							   "%llu cells written are older than the max_age of their family and are already collected",
							   n.count, (unsigned long long) n.count),
				 errdetail("%llu of them are in family \"%s\" of wide table \"%s\", which keeps cells for %s; the others in other families. Reads do not return such cells, and compaction removes them.",
						   (unsigned long long) n.first_count, n.family, relname,
						   age_text(n.max_age)),
				 errhint("Check the timestamps of the data, or keep the families' cells longer with wide.alter_family().")));
}
