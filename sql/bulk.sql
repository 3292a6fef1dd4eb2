--
-- bulk: COPY sorts rows in memory and writes them as runs of the write area
--
\set SHOW_CONTEXT never
CREATE TABLE b (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('b', 'f');
SELECT wide.create_family('b', 'v', max_versions => 1);
CREATE TABLE n (row_key text, family text, qualifier text, ts int8, value int8) USING wide;
SELECT wide.create_family('n', 'sum', aggregate => 'sum');

-- a COPY is one run of the write area, in key order
COPY b FROM STDIN (FORMAT csv);
r3,f,q,1,three
r1,f,q,1,one
r2,f,q,1,two
r1,f,q,1,one again
r1,v,q,5,v5
r1,v,q,7,v7
\.
SELECT * FROM b;
SELECT write_area_pages > 0 AS in_write_area, runs FROM wide.stats('b');

-- invisible until commit, gone on rollback, also in a savepoint
BEGIN;
COPY b FROM STDIN (FORMAT csv);
x1,f,q,1,rolled back
\.
SELECT count(*) FROM b WHERE row_key = 'x1';
ROLLBACK;
SELECT count(*) FROM b WHERE row_key = 'x1';
BEGIN;
SAVEPOINT s;
COPY b FROM STDIN (FORMAT csv);
x2,f,q,1,rolled back to savepoint
\.
ROLLBACK TO s;
COPY b FROM STDIN (FORMAT csv);
x3,f,q,1,kept
\.
COMMIT;
SELECT row_key, value FROM b WHERE row_key LIKE 'x%';

-- a bad row aborts the whole COPY
COPY b FROM STDIN (FORMAT csv);
y1,f,q,1,fine
y2,nope,q,1,unknown family
\.
SELECT count(*) FROM b WHERE row_key LIKE 'y%';

-- aggregates and large values through the bulk path
COPY n FROM STDIN (FORMAT csv);
hits,sum,a,100,1
hits,sum,a,100,2
hits,sum,a,200,5
hits,sum,a,100,3
\.
SELECT ts, value FROM n;
COPY b FROM PROGRAM 'printf "big,f,q,1,%070000d\n" 7' (FORMAT csv);
SELECT row_key, length(value), right(value, 3) FROM b WHERE row_key = 'big';

-- runs of the write area become runs at the flush (no rewrite when the
-- generation has nothing else), or are merged with the other records
SELECT FROM wide.compact('b');
SELECT runs, write_area_pages FROM wide.stats('b');
SELECT row_key, qualifier, value FROM b WHERE row_key LIKE 'r%';
INSERT INTO b VALUES ('r2', 'f', 'q', 1, 'two by insert');
COPY b FROM STDIN (FORMAT csv);
r4,f,q,1,four
\.
SELECT FROM wide.compact('b');
SELECT row_key, value FROM b WHERE row_key LIKE 'r%' AND family = 'f';

-- many runs: a small wide.bulk_memory writes a run per few rows, and a full
-- list of write-area runs is flushed
SET wide.bulk_memory = '1MB';
COPY b FROM PROGRAM 'seq 1 100000 | sed "s/.*/k&,f,q,1,v&/"' (FORMAT csv);
RESET wide.bulk_memory;
SELECT count(*), min(value), max(value) FROM b WHERE row_key LIKE 'k%';
SELECT FROM wide.compact('b', major => true);
SELECT count(*) FROM b WHERE row_key LIKE 'k%';
SELECT row_key, length(value) FROM b WHERE row_key = 'big';
SELECT * FROM wide.verify('b');
SELECT * FROM wide.verify('n');

-- the sort of a run: rows arrive whole (runs of one row key, sorted by key,
-- then each key's records in the full order); rows that come back later in
-- the same COPY, rows of more than 32 cells, keys sharing their first 8
-- bytes, keys shorter than 8 bytes and keys that are prefixes of others
CREATE TABLE s (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('s', 'f');
SELECT wide.create_family('s', 'g', max_versions => 1);
COPY s FROM PROGRAM 'awk ''BEGIN { split("a abcdefgh abcdefghi abcdefgh0 host_1 host_12 zz", p, " ");
  for (t = 0; t < 40; t++) for (h = 1; h <= 7; h++) for (q = 0; q < (h == 6 ? 41 : 5); q++)
    printf "%s#%d,%s,q%d,%d,v%d.%d.%d\n", p[h], t % 5, (q % 3 ? "f" : "g"), (q * 7) % 41, t, t, h, q }''' (FORMAT csv);
SELECT count(*) AS cells,
       count(*) FILTER (WHERE (row_key, family, qualifier, -ts) <= prev) AS out_of_order
  FROM (SELECT *, lag((row_key, family, qualifier, -ts)) OVER () AS prev FROM s) x;
SELECT row_key, family, qualifier, ts, value FROM s
 WHERE row_key IN ('abcdefgh#0', 'abcdefgh0#0') AND qualifier IN ('q0', 'q7') ORDER BY 1, 2, 3, 4 DESC LIMIT 12;
SELECT * FROM wide.verify('s');
-- a row's records that come in order are not sorted again (the sorter
-- compares each with the one before as it takes it); a cell written twice
-- in a row is not in order: the later write wins
CREATE TABLE d (LIKE s) USING wide;
SELECT wide.create_family('d', 'f'), wide.create_family('d', 'g', max_versions => 1);
COPY d FROM STDIN (FORMAT csv);
dup,f,a,5,a5
dup,f,b,5,b5
dup,g,c,5,first
dup,g,c,5,second
dup,g,d,5,d5
dup,g,d,4,d4
dup,g,e,1,e1
dup,g,e,2,e2
\.
SELECT family, qualifier, ts, value FROM d;
DROP TABLE d;
-- the part all keys share shrinks after many rows (the sorter keeps each
-- row's bytes after it as the rows come, and sets them all again then)
CREATE TABLE p (LIKE s) USING wide;
SELECT wide.create_family('p', 'f');
COPY p FROM PROGRAM 'awk ''BEGIN { for (i = 2000; i > 0; i--) printf "row%05d,f,q,1,v%d\n", i, i;
  print "a,f,q,1,first"; print "row,f,q,1,prefix"; print "row00777,f,q,2,again" }''' (FORMAT csv);
SELECT count(*), count(*) FILTER (WHERE row_key COLLATE "C" <= prev) AS out_of_order,
       min(row_key COLLATE "C"), max(row_key COLLATE "C")
  FROM (SELECT row_key, lag(row_key COLLATE "C") OVER () AS prev FROM p WHERE ts = 1) x;
SELECT row_key, ts, value FROM p WHERE row_key = 'row00777';
DROP TABLE p;

-- VACUUM after a COPY of several runs: the write area's runs become runs,
-- and runs left in the table's tail are moved down by copying their pages
-- (truncate.c, WideMoveRunBySegid) before the tail is cut
SET wide.bulk_memory = '4MB';
COPY s FROM PROGRAM 'awk ''BEGIN { for (t = 0; t < 300; t++) for (h = 0; h < 20; h++) for (q = 0; q < 10; q++)
    printf "z%d#%d,f,m%d,%d,%d\n", h, t, q, t, h * q + t }''' (FORMAT csv);
RESET wide.bulk_memory;
SELECT write_area_runs AS wa_runs FROM wide.stats('s');
VACUUM s;
SELECT runs, compactions > 0 AS moved, free_pages * 4 < table_pages AS little_free FROM wide.stats('s');
SELECT count(*), sum(value::int8) FROM s WHERE row_key ~ '^z[0-9]';
SELECT * FROM wide.verify('s');

DROP TABLE b, n, s;
