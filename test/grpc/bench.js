// test/grpc/bench.js -- the client side of bench/grpc.sh, through
// @google-cloud/bigtable's generated stub (raw responses, no row
// reassembly, so that the client costs little next to the server):
//
//   node bench.js read TABLE START END     ReadRows of [START, END): prints
//                                          "cells seconds" (request to last byte)
//   node bench.js readraw TABLE START END  the same read through @grpc/grpc-js
//                                          without decoding the responses: chunks
//                                          are counted from the wire format (a
//                                          chunk is a cell while no value is
//                                          split), to show how fast a server
//                                          streams when the client costs little
//   node bench.js mutate TABLE ROWS CELLS BATCH PARALLEL
//                                          MutateRows of ROWS rows x CELLS cells
//                                          (family f, qualifiers c0.., 16-byte
//                                          values), BATCH entries a request,
//                                          PARALLEL requests in flight: prints
//                                          "cells seconds" (every entry must be OK)
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');

const bt = new Bigtable({projectId: 'p', metricsEnabled: false});
const [cmd, table, ...args] = process.argv.slice(2);
const tableName = `projects/p/instances/i/tables/${table}`;
const gaxOpts = {retry: {retryCodes: []}, timeout: 3600000, maxRetries: 0};

function read(start, end) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let cells = 0;
    const s = bt.request({client: 'BigtableClient', method: 'readRows', gaxOpts,
                          reqOpts: {tableName, rows: {rowRanges: [{startKeyClosed: Buffer.from(start),
                                                                   endKeyOpen: Buffer.from(end)}]}}});
    s.on('data', r => {
      for (const c of r.chunks)
        if (!(c.valueSize > 0))
          cells++;
    });
    s.on('error', reject);
    s.on('end', () => resolve([cells, Number(process.hrtime.bigint() - t0) / 1e9]));
  });
}

// ReadRowsRequest{table_name: 1, rows: 2 {row_ranges: 2 {start_key_closed: 1, end_key_open: 4}}}
function readRaw(start, end) {
  const grpc = require('@grpc/grpc-js');
  const varint = n => { const b = []; while (n > 127) { b.push((n & 127) | 128); n >>>= 7; } b.push(n); return Buffer.from(b); };
  const field = (tag, body) => Buffer.concat([varint(tag << 3 | 2), varint(body.length), body]);
  const req = Buffer.concat([field(1, Buffer.from(tableName)),
                             field(2, field(2, Buffer.concat([field(1, Buffer.from(start)), field(4, Buffer.from(end))])))]);
  const raw = new grpc.Client(process.env.BIGTABLE_EMULATOR_HOST, grpc.credentials.createInsecure(),
                              {'grpc.max_receive_message_length': -1});
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let cells = 0;
    const s = raw.makeServerStreamRequest('/google.bigtable.v2.Bigtable/ReadRows', x => x, x => x, req, {});
    s.on('data', b => {
      // top-level fields of a ReadRowsResponse: chunks are field 1
      for (let i = 0; i < b.length;) {
        const tag = b[i++];
        let len = 0, shift = 0, c;
        if ((tag & 7) === 0) { do { c = b[i++]; } while (c & 128); continue; }
        do { c = b[i++]; len += (c & 127) * 2 ** shift; shift += 7; } while (c & 128);
        if (tag === 0x0a)
          cells++;
        i += len;
      }
    });
    s.on('error', reject);
    s.on('end', () => resolve([cells, Number(process.hrtime.bigint() - t0) / 1e9]));
  });
}

function mutateBatch(entries) {
  return new Promise((resolve, reject) => {
    const s = bt.request({client: 'BigtableClient', method: 'mutateRows', gaxOpts, reqOpts: {tableName, entries}});
    let bad = 0;
    s.on('data', r => { for (const e of r.entries) if (e.status.code !== 0) bad++; });
    s.on('error', reject);
    s.on('end', () => bad ? reject(new Error(`${bad} entries failed`)) : resolve());
  });
}

async function mutate(rows, cells, batch, parallel) {
  const value = Buffer.from('0123456789abcdef');
  let next = 0;
  const t0 = process.hrtime.bigint();
  async function worker() {
    while (next < rows) {
      const from = next;
      next = Math.min(rows, next + batch);
      const entries = [];
      for (let r = from; r < next; r++) {
        const mutations = [];
        for (let c = 0; c < cells; c++)
          mutations.push({setCell: {familyName: 'f', columnQualifier: Buffer.from('c' + c),
                                    timestampMicros: 1000, value}});
        entries.push({rowKey: Buffer.from('m' + String(r).padStart(9, '0')), mutations});
      }
      await mutateBatch(entries);
    }
  }
  const ws = [];
  for (let i = 0; i < parallel; i++)
    ws.push(worker());
  await Promise.all(ws);
  return [rows * cells, Number(process.hrtime.bigint() - t0) / 1e9];
}

(async () => {
  let r;
  if (cmd === 'read')
    r = await read(args[0], args[1]);
  else if (cmd === 'readraw')
    r = await readRaw(args[0], args[1]);
  else
    r = await mutate(Number(args[0]), Number(args[1]), Number(args[2]), Number(args[3]));
  process.stdout.write(`${r[0]} ${r[1].toFixed(4)}\n`);
  process.exit(0);
})().catch(e => {
  console.error(e.message || e);
  process.exit(1);
});
