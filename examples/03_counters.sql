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
