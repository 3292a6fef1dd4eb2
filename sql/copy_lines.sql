--
-- copy_lines: COPY checks every row when it reads it, as COPY into a heap
-- table does, so an error names the line of the bad row (not the last line
-- read before the rows buffered for the bulk path were written), and
-- nothing of the COPY is written.
--
CREATE TABLE cl (row_key text, family text, qualifier text, ts int8, value text) USING wide;
SELECT wide.create_family('cl', 'f');
CREATE TABLE clb (row_key bytea, family text, qualifier bytea, ts int8, value bytea) USING wide;
SELECT wide.create_family('clb', 'm');
SELECT wide.create_family('clb', 'n', aggregate => 'sum');
SELECT wide.create_family('clb', 'r', max_age => '36500 days',
  rollup => '{"source": "m", "bucket": "5 minutes", "functions": ["sum", "count"]}');

-- an unknown family first, in the middle, last
COPY cl FROM STDIN (FORMAT csv);
k1,nope,q,1,bad
k2,f,q,1,v
k3,f,q,1,v
\.
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,q,1,v
k3,nope,q,1,bad
k4,f,q,1,v
k5,f,q,1,v
\.
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,q,1,v
k3,f,q,1,v
k4,nope,q,1,bad
\.
-- every other kind of bad row, in the middle
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
,f,q,1,null row key
k3,f,q,1,v
\.
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,q,1,v
"",f,q,1,empty row key
\.
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,,q,1,null family
k3,f,q,1,v
\.
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,,1,null qualifier
k3,f,q,1,v
\.
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,q,1,
k3,f,q,1,v
\.
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,q,-5,negative ts
k3,f,q,1,v
\.
-- aggregate inputs: not 8 bytes, no timestamp
COPY clb FROM STDIN (FORMAT csv);
k1,n,c,1,\x0000000000000001
k2,n,c,1,\x0102
k3,n,c,1,\x0000000000000001
\.
COPY clb FROM STDIN (FORMAT csv);
k1,n,c,1,\x0000000000000001
k2,n,c,,\x0000000000000001
k3,n,c,1,\x0000000000000001
\.
-- limits: row key, qualifier
COPY cl FROM PROGRAM 'printf "k1,f,q,1,v\nk%05000d,f,q,1,v\nk3,f,q,1,v\n" 2' (FORMAT csv);
COPY cl FROM PROGRAM 'printf "k1,f,q,1,v\nk2,f,q,1,v\nk3,f,q%017000d,1,v\n" 3' (FORMAT csv);
-- a rollup family's qualifier names no function; a rollup source value
-- that is not a 64-bit integer
COPY clb FROM STDIN (FORMAT csv);
k1,m,q,1,\x0000000000000001
k2,r,q,1,\x0000000000000001
\.
COPY clb FROM STDIN (FORMAT csv);
k1,m,q,1,\x0000000000000001
k2,m,q,1,\x01
k3,m,q,1,\x0000000000000001
\.
-- binary COPY names the line (the row) too
COPY (VALUES ('k1', 'f', 'q', 1::int8, 'v'), ('k2', 'nope', 'q', 1, 'v'))
  TO '/tmp/wide_copy_lines.bin' (FORMAT binary);
COPY cl FROM '/tmp/wide_copy_lines.bin' (FORMAT binary);
-- far past the first buffer of rows (1000) and a written bulk run
SET wide.bulk_memory = '1MB';
COPY cl FROM PROGRAM 'seq 1 30000 | sed "s/.*/k&,f,q,1,v/; 24321s/,f,/,nope,/"' (FORMAT csv);
RESET wide.bulk_memory;
-- nothing of any of them was written
SELECT count(*) FROM cl;
SELECT count(*) FROM clb;

-- tablets: the row is checked in the tablet it goes to
CREATE TABLE clp (row_key text COLLATE "C", family text COLLATE "C",
                  qualifier text COLLATE "C", ts int8, value text)
  PARTITION BY RANGE (row_key);
CREATE TABLE clp_a PARTITION OF clp FOR VALUES FROM (MINVALUE) TO ('k3') USING wide;
CREATE TABLE clp_b PARTITION OF clp FOR VALUES FROM ('k3') TO (MAXVALUE) USING wide;
SELECT wide.create_family('clp', 'f');
COPY clp FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,q,1,v
k3,f,q,1,v
k4,nope,q,1,bad
k5,f,q,1,v
\.
SELECT count(*) FROM clp;

-- good rows are all written
COPY cl FROM STDIN (FORMAT csv);
k1,f,q,1,v
k2,f,q,1,v
\.
COPY clb FROM STDIN (FORMAT csv);
k1,n,c,1,\x0000000000000002
k1,m,q,60000000,\x0000000000000005
\.
COPY clp FROM STDIN (FORMAT csv);
k1,f,q,1,v
k4,f,q,1,v
\.
SELECT * FROM cl ORDER BY row_key;
SELECT * FROM clb ORDER BY row_key, family, qualifier;
SELECT * FROM clp ORDER BY row_key;
DROP TABLE cl, clb, clp;
