#!/usr/bin/env bash
#
# test/check-layers.sh -- enforce the layering of src/ (docs/architecture.md)
# on the #include lines:
#
#   engine/  includes no header of am/ or api/, and none of the executor,
#            planner, parser, tableam, fmgr or jsonb headers: the storage
#            engine knows pages, WAL, records, cells and MVCC, not slots,
#            plans, function calls or SQL values.
#   am/      includes no header of api/ (api/ calls am/, not the reverse).
#   src/wide.h includes nothing: it only declares the settings.
#
# The exceptions below are files that genuinely need such a header; each
# says why.  Run by "make check-layers" and by test/run-all.sh.
#
set -uo pipefail
cd "$(dirname "$0")/../src" || exit 1

ENGINE_FORBIDDEN='access/tableam\.h|access/heapam\.h|nodes/parsenodes\.h|nodes/execnodes\.h|nodes/pathnodes\.h|nodes/plannodes\.h|nodes/primnodes\.h|nodes/nodeFuncs\.h|executor/[^">]*|optimizer/[^">]*|parser/[^">]*|commands/[^">]*|fmgr\.h|funcapi\.h|utils/builtins\.h|utils/fmgrprotos\.h|utils/jsonb\.h|am/[^">]*|api/[^">]*|wide_access\.h|wide_filter\.h'

# file:header pairs allowed despite the rule above
EXCEPTIONS=(
	# the family catalog is a jsonb constant in the family column's default
	# expression (pg_attrdef.adbin): schema.c deserializes that expression
	# and walks the jsonb document, converting numerics with numeric_int8
	"engine/schema.c:nodes/primnodes.h"
	"engine/schema.c:nodes/nodeFuncs.h"
	"engine/schema.c:utils/builtins.h"
	"engine/schema.c:utils/jsonb.h"
	# declares WideCatalogDocument() (returns the Jsonb), used by schema.c and
	# api/families.c only
	"engine/catalog.h:utils/jsonb.h"
)

bad=0
check() {
	local file=$1 forbidden=$2 inc
	while read -r inc; do
		local ok=0 e
		for e in "${EXCEPTIONS[@]}"; do
			[ "$e" = "$file:$inc" ] && ok=1
		done
		if [ $ok -eq 0 ]; then
			echo "layering: src/$file includes \"$inc\"" >&2
			bad=1
		fi
	done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/p' "$file" |
		grep -E "^($forbidden)$")
}

for f in engine/*.c engine/*.h; do
	check "$f" "$ENGINE_FORBIDDEN"
done
for f in am/*.c am/*.h; do
	check "$f" 'api/[^">]*|wide_access\.h|wide_filter\.h|filter\.h'
done
# docs/architecture.md names every source file with its role (its section
# "Source files", one table row each: src/'s files from src/, wide-bigtable's
# from the repository's root), and no file that is gone
DOC=../docs/architecture.md
named=$(sed -n '/^## Source files/,/^## /p' "$DOC" | sed -nE 's/^\| `([^`]+)` \|.*/\1/p' | sort)
present=$( (find . -name '*.c' -o -name '*.h' -o -name '*.cpp' | sed 's|^\./||'
	cd .. && find bigtable/src -name '*.cc' -o -name '*.h' -o -name '*.inc') | sort)
for f in $(comm -13 <(echo "$named") <(echo "$present")); do
	case $f in bigtable/*) ;; *) f=src/$f ;; esac
	echo "docs/architecture.md: $f is not in its list of source files" >&2
	bad=1
done
for f in $(comm -23 <(echo "$named") <(echo "$present")); do
	case $f in bigtable/*) ;; *) f=src/$f ;; esac
	echo "docs/architecture.md: names $f, which does not exist" >&2
	bad=1
done
if grep -qE '^[[:space:]]*#[[:space:]]*include' wide.h; then
	echo "layering: src/wide.h includes headers; it only declares settings" >&2
	bad=1
fi

# the same rules by calls, from the built objects (test/check-calls.py)
if command -v python3 >/dev/null && command -v nm >/dev/null; then
	python3 ../test/check-calls.py || bad=1
fi

if [ $bad -ne 0 ]; then
	echo "layering check failed (see test/check-layers.sh)" >&2
	exit 1
fi
echo "layering check passed"
