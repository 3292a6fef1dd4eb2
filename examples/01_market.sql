-- Market data (the QUOTE / TRADE example of the Bigtable schema guide):
-- tall and narrow tables, one row per message, keyed EXCHANGE#SYMBOL#TIME
-- with the exchange padded to 6 characters, the symbol to 5 and the time
-- as 13 digits of milliseconds (NASDAQ#ZXZZT#1426535612156), so that one
-- symbol's messages of a time window are one key range.
SET timezone = 'UTC';
SET client_min_messages = warning;
DROP VIEW IF EXISTS quote_wide, trade_wide;
DROP FUNCTION IF EXISTS quote_wide_pivot_insert(), trade_wide_pivot_insert();
DROP TABLE IF EXISTS quote, trade, symbols;
RESET client_min_messages;

CREATE TABLE quote (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
CREATE TABLE trade (row_key text, family text, qualifier text, ts timestamptz, value float8) USING wide;
SELECT wide.create_family('quote', 'md', max_versions => 1);
SELECT wide.create_family('trade', 'md', max_versions => 1);

-- 2 exchanges x 20 symbols; symbol s of exchange e trades around 100 + 10 s
CREATE TABLE symbols AS
SELECT e AS exchange, sym, s, 100 + 10 * s AS base
  FROM unnest(ARRAY['NASDAQ', 'NYSE']) e,
       unnest(ARRAY['AAPL', 'MSFT', 'GOOG', 'AMZN', 'ZXZZT', 'IBM', 'ORCL', 'INTC', 'CSCO', 'NFLX',
                    'TSLA', 'NVDA', 'AMD', 'QCOM', 'TXN', 'ADBE', 'CRM', 'PYPL', 'SBUX', 'COST'])
         WITH ORDINALITY AS x(sym, s);

-- the typed columns of a family (one row per message): how SQL and BI
-- tools read it, and how a loader writes it (INSERT INTO the view writes
-- one cell per non-NULL column)
SELECT wide.create_pivot_view('quote_wide', 'quote', 'md', ARRAY['bid', 'ask', 'bid_size', 'ask_size']);
SELECT wide.create_pivot_view('trade_wide', 'trade', 'md', ARRAY['price', 'size']);

\echo -- loading QUOTE: 40 symbols x a quote every 500 ms for 30 minutes (144,000 quotes, 576,000 cells)
-- (OFFSET 0 keeps the key a per-quote value: computed once, not once per cell)
INSERT INTO quote
SELECT p.k, 'md', q.name, p.t, q.v
  FROM symbols, generate_series(0, 3599) i,
       LATERAL (SELECT timestamptz '2015-03-16 19:30:00+00' + i * interval '500 ms' AS t) t,
       LATERAL (SELECT wide.key(rpad(exchange, 6), rpad(sym, 5), wide.millis(t.t)) AS k, t.t,
                       round((base + 2 * sin((i + s) / 100.0))::numeric, 2) AS mid OFFSET 0) p,
       LATERAL (VALUES ('bid', (p.mid - 0.01)::float8), ('ask', (p.mid + 0.01 * (1 + (i * s) % 4))::float8),
                       ('bid_size', (100 * (1 + (i * 7 + s) % 10))::float8),
                       ('ask_size', (100 * (1 + (i * 3 + s) % 10))::float8)) AS q(name, v);

\echo -- loading TRADE through the pivot view: a trade every 2 s (36,000 trades, 72,000 cells)
INSERT INTO trade_wide
SELECT wide.key(rpad(exchange, 6), rpad(sym, 5), wide.millis(t)), t,
       round((base + 2 * sin((4 * i + s) / 100.0))::numeric, 2)::float8, 100 * (1 + (i + s) % 5)
  FROM symbols, generate_series(0, 899) i,
       LATERAL (SELECT timestamptz '2015-03-16 19:30:00+00' + i * interval '2 s' AS t) p;

SELECT count(*) AS quote_cells, count(DISTINCT row_key) AS quotes FROM quote;

-- one symbol's quotes of one minute: a key range, built from the same parts
EXPLAIN (COSTS OFF)
SELECT * FROM quote_wide
 WHERE row_key >= wide.key('NASDAQ', 'ZXZZT', wide.millis('2015-03-16 19:53:00+00'))
   AND row_key <  wide.key('NASDAQ', 'ZXZZT', wide.millis('2015-03-16 19:54:00+00'));
SELECT row_key, ts, bid, ask, bid_size, ask_size FROM quote_wide
 WHERE row_key >= wide.key('NASDAQ', 'ZXZZT', wide.millis('2015-03-16 19:53:00+00'))
   AND row_key <  wide.key('NASDAQ', 'ZXZZT', wide.millis('2015-03-16 19:54:00+00'))
 ORDER BY row_key LIMIT 4;

-- average spread and quoted size per symbol of one exchange, for 5 minutes
SELECT trim(wide.key_part(row_key, 2)) AS symbol, count(*) AS quotes,
       round(avg(ask - bid)::numeric, 3) AS avg_spread, round(avg(bid_size)) AS avg_bid_size
  FROM quote_wide
 WHERE row_key >= 'NASDAQ#' AND row_key < wide.prefix_end('NASDAQ#')
   AND ts >= '2015-03-16 19:55+00' AND ts < '2015-03-16 20:00+00'
 GROUP BY 1 ORDER BY 1 LIMIT 5;

-- VWAP per minute of one symbol
SELECT date_trunc('minute', ts) AS minute, count(*) AS trades, sum(size) AS volume,
       round((sum(price * size) / sum(size))::numeric, 2) AS vwap
  FROM trade_wide
 WHERE row_key >= wide.key('NYSE  ', 'IBM  ', wide.millis('2015-03-16 19:30+00'))
   AND row_key <  wide.key('NYSE  ', 'IBM  ', wide.millis('2015-03-16 19:35+00'))
 GROUP BY 1 ORDER BY 1;

-- the last trade of every NASDAQ symbol: one reversed read of one row each
SELECT sym, t.ts, t.qualifier, t.value
  FROM symbols,
       LATERAL wide.read_latest(NULL::trade, wide.key(rpad(exchange, 6), rpad(sym, 5)), 1,
                                newest_first => false) t
 WHERE exchange = 'NASDAQ' AND s <= 3
 ORDER BY s, t.qualifier;

SELECT demo.expect('QUOTE cells', count(*), 576000::bigint) FROM quote;
SELECT demo.expect('TRADE cells', count(*), 72000::bigint) FROM trade;
SELECT demo.expect('quotes of NASDAQ ZXZZT in 19:53', count(*), 120::bigint) FROM quote_wide
 WHERE row_key >= wide.key('NASDAQ', 'ZXZZT', wide.millis('2015-03-16 19:53:00+00'))
   AND row_key <  wide.key('NASDAQ', 'ZXZZT', wide.millis('2015-03-16 19:54:00+00'));
-- i = 3569 is 19:59:44.5; NASDAQ ZXZZT is s = 5
SELECT demo.expect('bid of NASDAQ ZXZZT at 19:59:44.5', value,
                   (round((150 + 2 * sin(3574 / 100.0))::numeric, 2) - 0.01)::float8)
  FROM wide.read_row(NULL::quote, wide.key('NASDAQ', 'ZXZZT', wide.millis('2015-03-16 19:59:44.5+00')))
 WHERE qualifier = 'bid';
SELECT demo.expect('last NASDAQ AAPL trade', max(ts), '2015-03-16 19:59:58+00'::timestamptz)
  FROM wide.read_latest(NULL::trade, wide.key('NASDAQ', 'AAPL '), 1, newest_first => false);
SELECT demo.expect('NYSE IBM volume 19:30-19:35', sum(size), 45000::float8)
  FROM trade_wide
 WHERE row_key >= wide.key('NYSE  ', 'IBM  ', wide.millis('2015-03-16 19:30+00'))
   AND row_key <  wide.key('NYSE  ', 'IBM  ', wide.millis('2015-03-16 19:35+00'));
