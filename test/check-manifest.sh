#!/usr/bin/env bash
#
# test/check-manifest.sh -- the metapage has one owner (engine/manifest.c,
# rules M6 and M8): no other file assigns a metapage field, and only
# engine/space.c changes the free queue.
#
# A metapage field is recognised by its name (the members of
# WideMetaPageData in engine/format.h) after "->", assigned (=, op=, ++,
# --) or overwritten by memset/memcpy/memmove.  Structures of other files
# that reuse a name (a reader's copy of the run list, a summary's counters)
# are listed below by file:variable, each with the reason.  Run by "make
# check-layers" and by test/run-all.sh.
#
set -uo pipefail
cd "$(dirname "$0")/../src" || exit 1

# the members of WideMetaPageData, from its definition
FIELDS=$(awk '/^typedef struct WideMetaPageData/,/^} WideMetaPageData;/' engine/format.h |
	grep -oE '^[[:space:]]+[A-Za-z_0-9]+[[:space:]]+\*?[a-z_0-9]+(\[|;)' |
	sed -E 's/.*[[:space:]*]([a-z_0-9]+)[[:space:]]*[[;]$/\1/' | grep -vE '^pad[0-9]*$' | sort -u | paste -sd'|')
if [ -z "$FIELDS" ] || [[ $FIELDS != *next_segid* ]]; then
	echo "check-manifest: could not read the members of WideMetaPageData" >&2
	exit 1
fi

# file:variable pairs that are not a metapage (each with its reason)
NOT_META=(
	# wide.stats' and wide.compact's counters (struct WideMaintDelta)
	"api/maintenance.c:sum"
	"api/remote.c:counts"
	"engine/summary.c:d"
	# a flush's own list of the write-area runs it takes
	"engine/flush.c:fs"
	# a reader's copy of the run list and lanes (a snapshot's view)
	"engine/reader.c:ts"
	"engine/reverse.c:r"
	"engine/resolve.c:r"
	"engine/rules.c:d"
	"engine/writearea.c:scan"
	# a backend's copy of the write area (its key: the storage epoch)
	"engine/wacache.c:cache"
	# a segment's header and its cache key
	"engine/segment_reader.c:seg"
	"engine/segment_writer.c:h"
	"engine/sharedcache.c:key"
	"engine/blockcache.c:key"
	"engine/storage.c:e"
	# the self-test breaks a rule in a copy of an image, on purpose
	"engine/selftest.c:bad"
)

ASSIGN="([A-Za-z_0-9]+|\))->($FIELDS)(\[[^]]*\])?(\.[a-z_]+)*[[:space:]]*([-+*|&^]?=[^=]|\+\+|--)"
PREINC="(\+\+|--)[[:space:]]*[A-Za-z_0-9]+->($FIELDS)\b"
MEMW="mem(set|cpy|move)\([[:space:]]*&?[A-Za-z_0-9]+->($FIELDS)\b"

# is this hit (file:line:text) a listed exception?
excepted() {
	local file=${1%%:*} rest=${1#*:} text var e
	text=${rest#*:}
	var=$(grep -oE "(\+\+|--)?[[:space:]]*&?[A-Za-z_0-9]+->($FIELDS)" <<<"$text" | head -1 |
		sed -E 's/^(\+\+|--)?[[:space:]]*&?//; s/->.*//')
	for e in "${NOT_META[@]}"; do
		[ "$e" = "$file:$var" ] && return 0
	done
	return 1
}

bad=0
while IFS= read -r hit; do
	excepted "$hit" && continue
	echo "$hit: assigns a metapage field outside engine/manifest.c"
	bad=1
done < <(grep -nE "$ASSIGN|$PREINC|$MEMW" */*.c | grep -vE '^engine/(manifest|space)\.c:')

# the free queue: only space.c (and manifest.c's checks, which read it)
while IFS= read -r hit; do
	excepted "$hit" && continue
	echo "$hit: changes the free queue outside engine/space.c"
	bad=1
done < <(grep -nE "\->(free|nfree)(\[[^]]*\])?(\.[a-z_]+)*[[:space:]]*([-+*|&^]?=[^=]|\+\+|--)|mem(set|cpy|move)\([[:space:]]*&?[A-Za-z_0-9]+->free\b" */*.c |
	grep -vE '^engine/space\.c:')

if [ $bad -ne 0 ]; then
	echo "check-manifest: change the metapage through engine/manifest.c's edits (rules M6, M8)" >&2
	exit 1
fi
echo "check-manifest: ok (fields: ${FIELDS//|/ })"
