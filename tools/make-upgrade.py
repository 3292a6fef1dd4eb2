#!/usr/bin/env python3
"""tools/make-upgrade.py OLD NEW -- write wide--OLD--NEW.sql to stdout.

An upgrade script that turns an installed wide OLD into NEW:
  0. creates the schemas of NEW that OLD does not have (CREATE SCHEMA
     statements of wide--NEW.sql), and moves there each function of OLD
     that NEW has in another schema under the same name and signature
     (ALTER FUNCTION ... SET SCHEMA: aggregates that use it stay valid);
  1. drops the functions and aggregates of OLD that NEW does not have with
     the same arguments, argument names, defaults and result type (those
     CREATE OR REPLACE cannot change);
  2. replays every CREATE FUNCTION / PROCEDURE / AGGREGATE of wide--NEW.sql as
     CREATE OR REPLACE, and every COMMENT, and the CREATE ACCESS METHOD /
     CREATE OPERATOR CLASS statements of access methods and operator
     classes, foreign data wrappers and servers OLD does not have (those
     have no OR REPLACE; the ones OLD
     has are kept as they are); and every GRANT and REVOKE (a function
     kept from OLD keeps its ACL, so NEW's are applied again); other
     statements exist already.
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
  pg_get_function_arguments(p.oid) || '|' || coalesce(pg_get_function_result(p.oid), '')
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')"""

# access methods and operator classes (schema.name) of the extension
OBJS = """SELECT 'schema ' || n.nspname FROM pg_namespace n JOIN pg_depend d ON d.objid = n.oid
   AND d.classid = 'pg_namespace'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')
UNION ALL
SELECT 'am ' || a.amname FROM pg_am a JOIN pg_depend d ON d.objid = a.oid
   AND d.classid = 'pg_am'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')
UNION ALL
SELECT 'opclass ' || n.nspname || '.' || c.opcname || ' ' || a.amname
  FROM pg_opclass c JOIN pg_namespace n ON n.oid = c.opcnamespace
  JOIN pg_am a ON a.oid = c.opcmethod
  JOIN pg_depend d ON d.objid = c.oid AND d.classid = 'pg_opclass'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')
UNION ALL
SELECT 'fdw ' || w.fdwname FROM pg_foreign_data_wrapper w JOIN pg_depend d ON d.objid = w.oid
   AND d.classid = 'pg_foreign_data_wrapper'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')
UNION ALL
SELECT 'server ' || s.srvname FROM pg_foreign_server s JOIN pg_depend d ON d.objid = s.oid
   AND d.classid = 'pg_foreign_server'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'wide')"""

sigs = {}
objs = {}
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
        objs[v] = set(run(db, OBJS).splitlines())
    finally:
        run('postgres', 'DROP DATABASE IF EXISTS %s' % db)

out = ['-- wide %s -> %s (written by tools/make-upgrade.py; see its header)' % (old, new),
       '\\echo Use "ALTER EXTENSION wide UPDATE TO \'%s\'" to load this file. \\quit' % new, '']
text = open(os.path.join(root, 'wide--%s.sql' % new)).read()
# statements start at column 0; a function body may hold anything between
# its dollar quotes, so split on the top-level keywords only
chunks = re.split(r'(?m)^(?=CREATE |COMMENT ON |GRANT |REVOKE )', text)
for c in chunks:
    m = re.match(r'CREATE SCHEMA (\S+?);', c)
    if m and 'schema ' + m.group(1) not in objs[old]:
        out.append(c.rstrip() + '\n')

def split_ident(ident):
    m = re.match(r'^(?:(\S+?)\.)?([^.(]+)(\(.*\))$', ident)
    return (m.group(1) or 'public', m.group(2), m.group(3))

moved = set()
for ident, sig in sorted(sigs[old].items()):
    if ident in sigs[new]:
        continue
    nsp, name, args = split_ident(ident)
    for nident, nsig in sigs[new].items():
        nnsp, nname, nargs = split_ident(nident)
        if nname == name and nargs == args and nnsp != nsp and nsig == sig \
                and nident not in sigs[old]:
            what = {'a': 'AGGREGATE', 'p': 'PROCEDURE'}.get(sig[0], 'FUNCTION')
            out.append('ALTER %s %s SET SCHEMA %s;' % (what, ident, nnsp))
            moved.add(ident)
out.append('')

for ident, (kind, args, result) in sorted(sigs[old].items()):
    if ident not in moved and sigs[new].get(ident) != (kind, args, result):
        what = {'a': 'AGGREGATE', 'p': 'PROCEDURE'}.get(kind, 'FUNCTION')
        out.append('ALTER EXTENSION wide DROP %s %s;' % (what, ident))
        out.append('DROP %s %s;' % (what, ident))
out.append('')

for c in chunks:
    if c.startswith('CREATE FUNCTION '):
        out.append('CREATE OR REPLACE FUNCTION ' + c[len('CREATE FUNCTION '):].rstrip() + '\n')
    elif c.startswith('CREATE PROCEDURE '):
        out.append('CREATE OR REPLACE PROCEDURE ' + c[len('CREATE PROCEDURE '):].rstrip() + '\n')
    elif c.startswith('CREATE AGGREGATE '):
        out.append('CREATE OR REPLACE AGGREGATE ' + c[len('CREATE AGGREGATE '):].rstrip() + '\n')
    elif c.startswith('COMMENT ON ') or c.startswith('GRANT ') or c.startswith('REVOKE '):
        out.append(c.rstrip() + '\n')
    elif c.startswith('CREATE ACCESS METHOD '):
        name = c.split()[3]
        if 'am ' + name not in objs[old]:
            out.append(c.rstrip() + '\n')
    elif c.startswith('CREATE FOREIGN DATA WRAPPER '):
        if 'fdw ' + c.split()[4] not in objs[old]:
            out.append(c.rstrip() + '\n')
    elif c.startswith('CREATE SERVER '):
        if 'server ' + c.split()[2] not in objs[old]:
            out.append(c.rstrip() + '\n')
    elif c.startswith('CREATE OPERATOR CLASS '):
        m = re.match(r'CREATE OPERATOR CLASS (\S+)\s.*?\bUSING (\S+)', c, re.S)
        if m is None:
            sys.exit('make-upgrade.py: cannot read ' + c.splitlines()[0])
        if 'opclass %s %s' % (m.group(1), m.group(2)) not in objs[old]:
            out.append(c.rstrip() + '\n')
print('\n'.join(out))
