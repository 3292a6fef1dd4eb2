#!/usr/bin/env python3
"""test/check-calls.py -- the layering of src/ by calls, from the built
objects' symbol tables (nm), where check-layers.sh reads #include lines:

  - engine/ calls nothing defined in am/ or api/, am/ nothing in api/;
  - call loops between files of one layer (strongly connected components
    of the file call graph) are only those listed in LOOPS below, each
    with its reason; a new loop, or a file joining one, fails.

Run by check-layers.sh after a build (it skips this when the objects are
absent).  Prints each violation; exit status 1 if there is one.
"""
import collections, glob, os, subprocess, sys

# Known loops (docs/architecture.md, issue 25: one write path and one
# manifest editor will break most of them).  A loop listed here may shrink
# or go; it may not grow.
LOOPS = {
    # a rollup family is part of the schema, and the schema validates rollups
    'engine/rollup engine/schema',
    # a blob chain and a segment's pages come from space.c, which reads
    # freed segments' headers to reuse their pages
    'engine/blob engine/segment_reader engine/space',
    # maintenance: a flush compacts to make room and compaction frees blobs
    # as a flush does; truncation moves runs out of the tail by compaction,
    # whose crash points are truncate.c's WideDebugCrash.  (The write paths
    # left this loop when am/write.c took over writing the statement buffer
    # before an append or a bulk load.)
    'engine/compaction engine/flush engine/truncate',
    # the table AM's glue: its callbacks and the DDL, delete, copy, change
    # capture and publication checks call one another
    'am/cdc am/cellslot am/copyrow am/ddl am/delete am/keyindex am/movein am/publication am/tableam',
    # the Wide Aggregate is planned on a Wide Scan path and runs one
    'am/customscan am/scan_agg',
    # the data API's privilege checks, family functions and mutations
    'api/access api/families api/mutate',
}

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
os.chdir(root)
objs = sorted(glob.glob('*/*.o'))
if not objs:
    print('check-calls: no objects (build first); skipped')
    sys.exit(0)

def nm(args, o):
    return subprocess.run(['nm'] + args + [o], capture_output=True, text=True,
                          check=True).stdout.split('\n')

defs = {}
for o in objs:
    for line in nm(['--defined-only', '-g'], o):
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBR':
            defs[p[2]] = o[:-2]
calls = collections.defaultdict(set)
for o in objs:
    for line in nm(['-u'], o):
        p = line.split()
        if p and p[-1] in defs and defs[p[-1]] != o[:-2]:
            calls[o[:-2]].add((defs[p[-1]], p[-1]))

bad = False
up = {'engine': ('am', 'api'), 'am': ('api',), 'api': ()}
for f, targets in sorted(calls.items()):
    layer = f.split('/')[0]
    for t, sym in sorted(targets):
        if t.split('/')[0] in up.get(layer, ()):
            print('calls: src/%s.c calls %s of src/%s.c (a call up the layers)' % (f, sym, t))
            bad = True

# Tarjan's strongly connected components of the file graph
graph = {f: {t for t, _ in ts} for f, ts in calls.items()}
index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1
    stack.append(v); on.add(v)
    for w in graph.get(v, ()):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted(comp))
for v in sorted(graph):
    if v not in index:
        visit(v)
for comp in comps:
    if not any(set(comp) <= set(l.split()) for l in LOOPS):
        print('calls: a call loop not in test/check-calls.py LOOPS: ' + ' '.join(comp))
        bad = True
sys.exit(1 if bad else 0)
