-- Donations (the aggregates of the Bigtable guide): every donation is added
-- to the cells of its campaign and day, merged on write -- a sum, a max, a
-- count, and the distinct donors as a HyperLogLog sketch -- so that the
-- daily and monthly answers read a few cells, not the donations.
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP TABLE IF EXISTS donations, donors, visits;
RESET client_min_messages;

CREATE TABLE donations (row_key text, family text, qualifier text, ts timestamptz, value int8) USING wide;
SELECT wide.create_family('donations', 'total', aggregate => 'sum');
SELECT wide.create_family('donations', 'largest', aggregate => 'max');
SELECT wide.create_family('donations', 'count', aggregate => 'sum');
CREATE TABLE donors (row_key text, family text, qualifier text, ts timestamptz, value bytea) USING wide;
SELECT wide.create_family('donors', 'uniq', aggregate => 'hll');

-- donation i: campaign i % 5, day (i / 5) % 30 of June 2030, donor
-- (i * 7919) % 40000, amount 5 + (i * 37) % 200
CREATE OR REPLACE VIEW demo.donation AS
SELECT i, 'campaign#' || (i % 5) AS campaign,
       timestamptz '2030-06-01' + ((i / 5) % 30) * interval '1 day' AS day,
       'donor-' || (i::int8 * 7919) % 40000 AS donor, 5 + (i * 37) % 200 AS amount
  FROM generate_series(1, 300000) i;

\echo -- 300,000 donations into the day cells: sum, max, count (900,000 writes)
INSERT INTO donations
SELECT campaign, f, 'amount', day, CASE WHEN f = 'count' THEN 1 ELSE amount END
  FROM demo.donation, unnest(ARRAY['total', 'largest', 'count']) f;
\echo -- and each donor into the HyperLogLog sketch of its day (300,000 writes)
INSERT INTO donors SELECT campaign, 'uniq', 'donors', day, convert_to(donor, 'UTF8') FROM demo.donation;

SELECT count(*) AS cells FROM donations;
-- one campaign's first days: each value is one cell
SELECT ts::date AS day,
       max(value) FILTER (WHERE family = 'total') AS total,
       max(value) FILTER (WHERE family = 'count') AS donations,
       max(value) FILTER (WHERE family = 'largest') AS largest
  FROM donations WHERE row_key = 'campaign#1'
 GROUP BY 1 ORDER BY 1 LIMIT 5;
-- the month per campaign: sums of the day cells
SELECT row_key AS campaign, sum(value) FILTER (WHERE family = 'total') AS total,
       sum(value) FILTER (WHERE family = 'count') AS donations,
       max(value) FILTER (WHERE family = 'largest') AS largest
  FROM donations GROUP BY 1 ORDER BY 1;
-- distinct donors per day, and for the month (the days' sketches merged)
SELECT ts::date AS day, wide.hll_count(value) AS distinct_donors
  FROM donors WHERE row_key = 'campaign#1' ORDER BY ts LIMIT 3;
SELECT row_key AS campaign, wide.hll_count(wide.hll_union_agg(value)) AS distinct_donors_in_june
  FROM donors GROUP BY 1 ORDER BY 1;
-- the exact count, from the generated donations (the table has no donor list)
SELECT campaign, count(DISTINCT donor) AS exact_distinct_donors FROM demo.donation GROUP BY 1 ORDER BY 1;

SELECT demo.expect('donation cells (5 campaigns x 30 days x 3)', count(*), 450::bigint) FROM donations;
SELECT demo.expect('campaign#1 total', sum(value),
                   (SELECT sum(amount) FROM demo.donation WHERE campaign = 'campaign#1'))
  FROM donations WHERE row_key = 'campaign#1' AND family = 'total';
SELECT demo.expect('campaign#1 donations on 2030-06-07', value, 2000::bigint)
  FROM donations WHERE row_key = 'campaign#1' AND family = 'count' AND ts = '2030-06-07';
SELECT demo.expect('largest donation', max(value), 204::bigint) FROM donations WHERE family = 'largest';
SELECT demo.expect_between('campaign#1 distinct donors (8000 exact, HyperLogLog within 3%)',
                           wide.hll_count(wide.hll_union_agg(value)), 7760, 8240)
  FROM donors WHERE row_key = 'campaign#1';
