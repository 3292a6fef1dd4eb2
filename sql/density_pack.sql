-- packed data blocks: millisecond timestamps and 2-decimal float8 readings
-- (one cell per row, as single-row ingest writes them) are stored densely,
-- and read back bit for bit like a heap copy
CREATE TABLE dp_wide (row_key text, family text, qualifier text, ts timestamptz,
                      value float8) USING wide;
SELECT wide.create_family('dp_wide', 'm');
CREATE TABLE dp_heap AS
  SELECT format('server%s.example.com#%s', lpad((i % 100)::text, 3, '0'), 1795473592000 + i * 7) AS row_key,
         'm'::text AS family, 'metric' || (i * 7 % 20) AS qualifier,
         to_timestamp((1795473592000 + i * 7) / 1000.0) AS ts,
         round((50 + 40 * sin(i / 500.0) + (i * 37 % 500) / 100.0)::numeric, 2)::float8 AS value
    FROM generate_series(1, 40000) i;
INSERT INTO dp_heap VALUES ('special', 'm', 'nan', '2026-01-01', 'NaN'),
  ('special', 'm', 'negzero', '2026-01-01', '-0'), ('special', 'm', 'inf', '2026-01-01', '-Infinity');
INSERT INTO dp_wide SELECT * FROM dp_heap;
SELECT FROM wide.compact('dp_wide', major => true);
SELECT runs, cells FROM wide.stats('dp_wide');
-- 6.8 bytes per cell unpacked, 5.1 packed
SELECT stored_bytes::float8 / cells < 6 AS dense FROM wide.stats('dp_wide');
SELECT count(*) FROM (SELECT row_key, qualifier, ts, float8send(value) FROM dp_wide
                      EXCEPT ALL
                      SELECT row_key, qualifier, ts, float8send(value) FROM dp_heap) d;
SELECT count(*) FROM dp_wide;
SELECT * FROM wide.verify('dp_wide');
DROP TABLE dp_wide, dp_heap;
