// test/grpc/chunks.js -- a strict reader of raw ReadRowsResponse streams
// (through @google-cloud/bigtable's own gRPC stub, no reassembly of the
// library's): checks every rule of the cross-client read-rows acceptance
// cases on the chunks a server sends, and prints a summary of the read.
//
//   node chunks.js TABLE JSON_REQUEST...
//
// A JSON_REQUEST holds ReadRowsRequest fields besides the table name (rows,
// filter, rowsLimit, reversed; keys as hex strings under rows.rowKeysHex),
// and optionally pauseMs: the reader stops reading for that long after the
// first response (so that the server must hold back: flow control),
// printing "paused" to stderr when it starts waiting.  The reads run one
// after the other.  Output: one JSON line per read, {rows, cells,
// responses, maxResponseBytes, sha256} where sha256 is over "rowhex family
// qualhex ts valuehex labels\n" per cell in the order received; a broken
// rule gives {error: "..."} and exit status 1.
'use strict';
const crypto = require('crypto');
const {Bigtable} = require('@google-cloud/bigtable');

const bt = new Bigtable({projectId: 'p', metricsEnabled: false});
const [table, ...reqs] = process.argv.slice(2);
let failed = false;

function readOne(reqJson) {
  return new Promise(resolve => {
    const req = JSON.parse(reqJson || '{}');
    const pause = Number(req.pauseMs || 0);
    delete req.pauseMs;
    if (req.rows && req.rows.rowKeysHex) {
      req.rows.rowKeys = req.rows.rowKeysHex.map(h => Buffer.from(h, 'hex'));
      delete req.rows.rowKeysHex;
    }
    req.tableName = `projects/p/instances/i/tables/${table}`;

    const hash = crypto.createHash('sha256');
    let rows = 0, cells = 0, responses = 0, maxBytes = 0;
    let lastKey = null;		// the last committed row
    let inRow = false, key = null, fam = null, qual = null;
    let valueLeft = 0;		// bytes a split value still owes
    let cell = null;		// the cell being read
    let done = false;
    let stream;

    function finish(o) {
      if (done)
        return;
      done = true;
      process.stdout.write(JSON.stringify(o) + '\n');
      resolve();
    }
    function fail(msg) {
      failed = true;
      if (stream)
        stream.cancel && stream.cancel();
      finish({error: msg, rows, cells, responses});
      throw new Error(msg);
    }
    const has = (c, f) => c[f] !== null && c[f] !== undefined;
    const buf = v => Buffer.isBuffer(v) ? v : Buffer.from(v || '');
    function chunk(c) {
      const rk = buf(c.rowKey);
      const value = buf(c.value);
      if (valueLeft > 0) {
        // the rest of a split value: nothing but value (and value_size, commit)
        if (rk.length || has(c, 'familyName') || has(c, 'qualifier') || Number(c.timestampMicros) ||
            (c.labels && c.labels.length))
          fail('a split value\'s later chunk names a cell');
      } else {
        if (!inRow) {
          if (!rk.length)
            fail('a new row without a row key');
          if (!has(c, 'familyName') || !has(c, 'qualifier'))
            fail('a new row\'s first chunk without family and qualifier');
          if (lastKey) {
            const cmp = Buffer.compare(rk, lastKey);
            if (cmp === 0)
              fail('a duplicate row key');
            if ((cmp < 0) !== !!req.reversed)
              fail('row keys out of order');
          }
          key = rk;
          inRow = true;
        } else if (rk.length && !rk.equals(key))
          fail('a new row key without a commit of the row before');
        if (has(c, 'familyName')) {
          if (!has(c, 'qualifier'))
            fail('a new family without a qualifier');
          fam = c.familyName.value;
        }
        if (has(c, 'qualifier'))
          qual = buf(c.qualifier.value);
        cell = {ts: String(c.timestampMicros || 0), labels: (c.labels || []).join(','), parts: []};
      }
      cell.parts.push(value);
      if (c.valueSize > 0) {
        if (valueLeft === 0)
          valueLeft = c.valueSize;
        else if (c.valueSize !== valueLeft)
          fail('value_size changes within a value');
        const got = cell.parts.reduce((n, p) => n + p.length, 0);
        if (got >= c.valueSize)
          fail('value_size on the last piece of a value');
        if (c.commitRow)
          fail('a commit inside a split value');
        return;
      }
      if (valueLeft > 0) {
        const got = cell.parts.reduce((n, p) => n + p.length, 0);
        if (got !== valueLeft)
          fail(`a split value of ${got} bytes, value_size said ${valueLeft}`);
        valueLeft = 0;
      }
      cells++;
      hash.update(`${key.toString('hex')} ${fam} ${qual.toString('hex')} ${cell.ts} ${Buffer.concat(cell.parts).toString('hex')} ${cell.labels}\n`);
      if (c.resetRow)
        fail('a reset_row (wide never sends one)');
      if (c.commitRow) {
        rows++;
        inRow = false;
        lastKey = key;
        fam = qual = null;
      }
    }

    stream = bt.request({client: 'BigtableClient', method: 'readRows', reqOpts: req, gaxOpts: {}});
    stream.on('error', e => { failed = true; finish({error: `status ${e.code}: ${e.message}`, rows, cells, responses}); });
    stream.on('data', resp => {
      if (done)
        return;
      try {
        responses++;
        let bytes = 0;
        for (const c of resp.chunks) {
          bytes += buf(c.value).length + buf(c.rowKey).length;
          chunk(c);
        }
        maxBytes = Math.max(maxBytes, bytes);
        if (inRow || valueLeft)
          fail('a response ends inside a row');
      } catch (e) {
        return;
      }
      if (pause && responses === 1) {
        stream.pause();
        process.stderr.write('paused\n');
        setTimeout(() => stream.resume(), pause);
      }
    });
    stream.on('end', () => {
      if (inRow) {
        failed = true;
        return finish({error: 'the stream ends inside a row (no commit)', rows, cells, responses});
      }
      finish({rows, cells, responses, maxResponseBytes: maxBytes, sha256: hash.digest('hex')});
    });
  });
}

(async () => {
  for (const r of reqs)
    await readOne(r);
  process.exit(failed ? 1 : 0);
})();
