-- Counters merged on write (the aggregate families of the Bigtable guide):
-- donations per campaign per day, no read-modify-write round trips.
CREATE TABLE donations (row_key text, family text, qualifier text,
                        ts timestamptz, value int8) USING wide;
SELECT wide.create_family('donations', 'total', aggregate => 'sum');
SELECT wide.create_family('donations', 'largest', aggregate => 'max');

-- every donation is a write into the cell of its day (the ts is the bucket)
INSERT INTO donations
SELECT 'campaign#' || (i % 3), f, 'amount', date_trunc('day', t), (i * 37) % 500
  FROM generate_series(1, 3000) i,
       LATERAL (SELECT timestamptz '2030-06-01' + (i % 4) * interval '1 day' AS t) d,
       unnest(ARRAY['total', 'largest']) f;

SELECT row_key, family, ts::date AS day, value FROM donations
 WHERE row_key = 'campaign#1';

-- distinct visitors per store per day (HyperLogLog), without keeping the
-- visitors: add_to_cell folds each visit into the day's sketch
CREATE TABLE visits (row_key text, family text, qualifier text,
                     ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('visits', 'uniq', aggregate => 'hll');
SELECT count(*) AS visits FROM (
  SELECT wide.add_to_cell('visits', 'store#' || (v % 2), 'uniq', 'visitors',
                          date_trunc('day', timestamptz '2030-06-01' + (v % 7) * interval '1 day'),
                          'visitor-' || (v * 7919) % 20000)
    FROM generate_series(1, 100000) v) s;
SELECT row_key, ts::date AS day, wide.hll_count(value) AS distinct_visitors
  FROM visits WHERE row_key = 'store#1' LIMIT 3;
-- the week: merge the days' sketches
SELECT row_key, wide.hll_count(wide.hll_union_agg(value)) AS distinct_visitors_in_week
  FROM visits GROUP BY row_key ORDER BY row_key;
