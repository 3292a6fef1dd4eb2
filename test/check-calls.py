#!/usr/bin/env python3
"""test/check-calls.py -- the layering of src/ by calls, from the built
objects' symbol tables (nm), where check-layers.sh reads #include lines:

  - engine/ calls nothing defined in am/ or api/, am/ nothing in api/;
  - call loops between files of one layer (strongly connected components
    of the file call graph) are only those listed in test/call-loops.txt,
    each with its reason; a new loop, or a file joining one, fails and
    prints the calls that make it.

Run by check-layers.sh after a build (it skips this when the objects are
absent).  Prints each violation; exit status 1 if there is one.
"""
import collections, glob, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))

def read_loops(path):
    """The allowed loops of call-loops.txt, each with its reason."""
    loops, reason, bad = [], [], False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line.startswith('#'):
                reason.append(line)
            elif not line:
                reason = []
            else:
                if not reason:
                    print('calls: test/call-loops.txt:%d lists a loop without its reason' % n)
                    bad = True
                loops.append(frozenset(line.split()))
                reason = []
    return loops, bad

LOOPS, bad = read_loops(os.path.join(here, 'call-loops.txt'))

root = os.path.join(here, '..', 'src')
os.chdir(root)
# objects of sources that exist (a stale object of a removed file is not code)
objs = sorted(o for o in glob.glob('*/*.o')
              if os.path.exists(o[:-2] + '.c') or os.path.exists(o[:-2] + '.cpp'))
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
    if not any(set(comp) <= l for l in LOOPS):
        print('calls: a call loop not in test/call-loops.txt: ' + ' '.join(comp))
        for f in comp:
            for t, sym in sorted(calls[f]):
                if t in comp:
                    print('    src/%s.c calls %s of src/%s.c' % (f, sym, t))
        bad = True
for l in LOOPS:
    if not any(l == set(comp) for comp in comps):
        print('check-calls: note: test/call-loops.txt lists %s, which is no '
              'longer a loop as listed (shrink or remove it)' % ' '.join(sorted(l)))
sys.exit(1 if bad else 0)
