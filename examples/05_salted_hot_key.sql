-- A hot key, salted (the hotspot advice of the Bigtable schema guide): one
-- symbol carries most of the messages, and its keys NASDAQ#AAPL#MILLIS
-- arrive in time order, so every write lands at the end of one key range.
-- wide.salted_key prefixes each key with md5(key) mod 8, spreading the
-- writes over 8 ranges; wide.read_salted reads the 8 ranges and returns one
-- stream in unsalted key order.
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP TABLE IF EXISTS hot_trade, hot_trade_salted;
RESET client_min_messages;

CREATE TABLE hot_trade (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
CREATE TABLE hot_trade_salted (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('hot_trade', 'md', max_versions => 1);
SELECT wide.create_family('hot_trade_salted', 'md', max_versions => 1);

\echo -- loading 200,000 trades of one symbol (10 a second for 5.5 hours), unsalted and salted into 8 buckets
CREATE TEMP TABLE hot AS
SELECT wide.key('NASDAQ', 'AAPL', wide.millis(t)) AS k, t, round((127 + sin(i / 500.0))::numeric, 2)::float8 AS price
  FROM generate_series(0, 199999) i,
       LATERAL (SELECT timestamptz '2015-03-16 14:30+00' + i * interval '100 ms' AS t) x;
INSERT INTO hot_trade SELECT k, 'md', 'price', t, price FROM hot;
INSERT INTO hot_trade_salted SELECT wide.salted_key(k, 8), 'md', 'price', t, price FROM hot;

-- the writes spread evenly over the 8 salt prefixes
SELECT split_part(row_key, '#', 1) AS salt, count(*) AS trades, min(ts), max(ts)
  FROM hot_trade_salted GROUP BY 1 ORDER BY 1;

-- one minute of trades in time order: one range read unsalted, 8 range
-- reads and a merge of their results salted
SELECT count(*), min(ts), max(ts) FROM hot_trade
 WHERE row_key >= wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:00+00'))
   AND row_key <  wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:01+00'));
SELECT count(*), min(ts), max(ts)
  FROM wide.read_salted(NULL::hot_trade_salted, 8,
                        start_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:00+00')),
                        end_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:01+00')));
SELECT row_key, ts, value
  FROM wide.read_salted(NULL::hot_trade_salted, 8,
                        start_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:00+00')),
                        end_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:01+00')))
 LIMIT 5;

SELECT demo.expect('salted trades', count(*), 200000::bigint) FROM hot_trade_salted;
SELECT demo.expect('salt buckets used', count(DISTINCT split_part(row_key, '#', 1)), 8::bigint) FROM hot_trade_salted;
SELECT demo.expect_between('the fullest bucket''s share, %',
                           round(100.0 * max(n) / sum(n), 1), 12.5, 13.5)
  FROM (SELECT count(*) AS n FROM hot_trade_salted GROUP BY split_part(row_key, '#', 1)) s;
SELECT demo.expect('one minute, salted = unsalted, in time order',
                   (SELECT array_agg(ts) FROM wide.read_salted(NULL::hot_trade_salted, 8,
                        start_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:00+00')),
                        end_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:01+00'))))
                   = (SELECT array_agg(ts ORDER BY ts) FROM hot_trade
                       WHERE row_key >= wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:00+00'))
                         AND row_key <  wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:01+00'))),
                   true);
SELECT demo.expect('trades in the minute', count(*), 600::bigint)
  FROM wide.read_salted(NULL::hot_trade_salted, 8,
                        start_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:00+00')),
                        end_key => wide.key('NASDAQ', 'AAPL', wide.millis('2015-03-16 16:01+00')));
