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
//   node bench.js mutateraw TABLE ROWS CELLS BATCH PARALLEL
//                                          the same requests encoded by hand in
//                                          the wire format before the clock starts
//                                          and sent through @grpc/grpc-js, the
//                                          responses' statuses read from the wire
//                                          format: what a server ingests when the
//                                          client costs little
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

// the wire format's pieces (readRaw, mutateRaw)
const varint = n => { const b = []; while (n > 127) { b.push((n & 127) | 128); n = Math.floor(n / 128); } b.push(n); return Buffer.from(b); };
const lenField = (tag, body) => Buffer.concat([varint(tag << 3 | 2), varint(body.length), body]);

// MutateRowsRequest{table_name: 1, entries: 2 {row_key: 1, mutations: 2
// {set_cell: 1 {family_name: 1, column_qualifier: 2, timestamp_micros: 3,
// value: 4}}}}; MutateRowsResponse{entries: 1 {index: 1, status: 2 {code: 1}}}
function mutateRaw(rows, cells, batch, parallel) {
  const grpc = require('@grpc/grpc-js');
  const raw = new grpc.Client(process.env.BIGTABLE_EMULATOR_HOST, grpc.credentials.createInsecure(),
                              {'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1});
  const value = Buffer.from('0123456789abcdef');
  const reqs = [];
  for (let from = 0; from < rows; from += batch) {
    const parts = [lenField(1, Buffer.from(tableName))];
    for (let r = from; r < Math.min(rows, from + batch); r++) {
      const muts = [lenField(1, Buffer.from('m' + String(r).padStart(9, '0')))];
      for (let c = 0; c < cells; c++)
        muts.push(lenField(2, lenField(1, Buffer.concat([lenField(1, Buffer.from('f')),
                                                         lenField(2, Buffer.from('c' + c)),
                                                         Buffer.from([3 << 3]), varint(1000),
                                                         lenField(4, value)]))));
      parts.push(lenField(2, Buffer.concat(muts)));
    }
    reqs.push([Buffer.concat(parts), Math.min(rows, from + batch) - from]);
  }
  // the entries of a response, and how many have a status code other than 0
  const statuses = (b, out) => {
    const read = (buf, i) => { let n = 0, m = 1, c; do { c = buf[i++]; n += (c & 127) * m; m *= 128; } while (c & 128); return [n, i]; };
    for (let i = 0; i < b.length;) {
      let tag, len;
      [tag, i] = read(b, i);
      if ((tag & 7) === 0) { [, i] = read(b, i); continue; }
      [len, i] = read(b, i);
      if (tag === 0x0a) {
        out.entries++;
        // Entry: the status (field 2) has code (field 1) 0 unless written
        for (let j = i; j < i + len;) {
          let t, l;
          [t, j] = read(b, j);
          if ((t & 7) === 0) { [, j] = read(b, j); continue; }
          [l, j] = read(b, j);
          if (t === 0x12 && l > 0 && b[j] === 0x08 && b[j + 1] !== 0)
            out.bad++;
          j += l;
        }
      }
      i += len;
    }
  };
  let next = 0;
  const t0 = process.hrtime.bigint();
  const one = ([req, n]) => new Promise((resolve, reject) => {
    const out = {entries: 0, bad: 0};
    const s = raw.makeServerStreamRequest('/google.bigtable.v2.Bigtable/MutateRows', x => x, x => x, req, {});
    s.on('data', b => statuses(b, out));
    s.on('error', reject);
    s.on('end', () => out.bad || out.entries !== n ? reject(new Error(`${out.bad} of ${out.entries} entries failed`)) : resolve());
  });
  async function worker() {
    while (next < reqs.length)
      await one(reqs[next++]);
  }
  const ws = [];
  for (let i = 0; i < parallel; i++)
    ws.push(worker());
  return Promise.all(ws).then(() => [rows * cells, Number(process.hrtime.bigint() - t0) / 1e9]);
}

(async () => {
  let r;
  if (cmd === 'read')
    r = await read(args[0], args[1]);
  else if (cmd === 'readraw')
    r = await readRaw(args[0], args[1]);
  else if (cmd === 'mutateraw')
    r = await mutateRaw(Number(args[0]), Number(args[1]), Number(args[2]), Number(args[3]));
  else
    r = await mutate(Number(args[0]), Number(args[1]), Number(args[2]), Number(args[3]));
  process.stdout.write(`${r[0]} ${r[1].toFixed(4)}\n`);
  process.exit(0);
})().catch(e => {
  console.error(e.message || e);
  process.exit(1);
});
