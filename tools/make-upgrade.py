#!/usr/bin/env python3
"""tools/make-upgrade.py OLD NEW -- write wide--OLD--NEW.sql to stdout.

An upgrade script that turns an installed wide OLD into NEW:
  1. drops the functions and aggregates of OLD that NEW does not have with
     the same arguments, argument names, defaults and result type (those
     CREATE OR REPLACE cannot change);
  2. replays every CREATE FUNCTION / CREATE AGGREGATE of wide--NEW.sql as
     CREATE OR REPLACE, and every COMMENT; other statements (the access
     method, the schema grant) exist already.
Signatures are read from a server: both versions must be installed
(make install) and PSQL (default "psql") must reach a server where this
user may create databases.  test/t/009_upgrade.pl checks the result: an
updated extension has exactly the objects and definitions of a fresh one.
"""
import os, re, subprocess, sys

old, new = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
psql = os.environ.get('PSQL', 'psql').split()

def run(db, sql):
    return subprocess.run(psql + ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', sql],
                          check=True, capture_output=True, text=True).stdout

SIG = """SELECT p.oid::regprocedure::text || '|' || p.prokind::text || '|' ||
  pg_get_function_arguments(p.oid) || '|' || pg_get_function_result(p.oid)
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')"""

sigs = {}
for v in (old, new):
    db = 'wide_upgrade_' + v.replace('.', '_')
    run('postgres', 'DROP DATABASE IF EXISTS %s' % db)
    run('postgres', 'CREATE DATABASE %s' % db)
    try:
        run(db, "CREATE EXTENSION wide VERSION '%s'" % v)
        sigs[v] = {}
        for line in run(db, SIG).splitlines():
            ident, kind, args, result = line.split('|', 3)
            sigs[v][ident] = (kind, args, result)
    finally:
        run('postgres', 'DROP DATABASE IF EXISTS %s' % db)

out = ['-- wide %s -> %s (written by tools/make-upgrade.py; see its header)' % (old, new),
       '\\echo Use "ALTER EXTENSION wide UPDATE TO \'%s\'" to load this file. \\quit' % new, '']
for ident, (kind, args, result) in sorted(sigs[old].items()):
    if sigs[new].get(ident) != (kind, args, result):
        what = 'AGGREGATE' if kind == 'a' else 'FUNCTION'
        out.append('ALTER EXTENSION wide DROP %s %s;' % (what, ident))
        out.append('DROP %s %s;' % (what, ident))
out.append('')

text = open(os.path.join(root, 'wide--%s.sql' % new)).read()
# statements start at column 0; a function body may hold anything between
# its dollar quotes, so split on the top-level keywords only
chunks = re.split(r'(?m)^(?=CREATE |COMMENT ON |GRANT )', text)
for c in chunks:
    if c.startswith('CREATE FUNCTION '):
        out.append('CREATE OR REPLACE FUNCTION ' + c[len('CREATE FUNCTION '):].rstrip() + '\n')
    elif c.startswith('CREATE AGGREGATE '):
        out.append('CREATE OR REPLACE AGGREGATE ' + c[len('CREATE AGGREGATE '):].rstrip() + '\n')
    elif c.startswith('COMMENT ON '):
        out.append(c.rstrip() + '\n')
print('\n'.join(out))
