// test/grpc/bad.js -- bad input to a Bigtable server (BIGTABLE_EMULATOR_HOST),
// table TABLE with family f: malformed messages, huge row keys, values and
// requests, deeply nested filters, unknown tables and families.  Prints one
// line per case, "name<TAB>answer", the answer a gRPC status code (or "ok",
// or per-entry codes for MutateRows); test/t/242_grpc_bad_input.pl checks
// them, and that nothing was written.
//
//   node bad.js TABLE
'use strict';
const grpc = require('@grpc/grpc-js');
const {Bigtable} = require('@google-cloud/bigtable');

const addr = process.env.BIGTABLE_EMULATOR_HOST;
const table = process.argv[2];
const name = `projects/p/instances/i/tables/${table}`;
const bt = new Bigtable({projectId: 'p', metricsEnabled: false});
const raw = new grpc.Client(addr, grpc.credentials.createInsecure(),
                            {'grpc.max_send_message_length': 512 << 20});

function out(n, v) {
  process.stdout.write(n + '\t' + v + '\n');
}

// a unary call with bytes as they are, not a message
function rawCall(method, bytes) {
  return new Promise(resolve => {
    raw.makeUnaryRequest(`/google.bigtable.v2.Bigtable/${method}`, x => x, x => x, bytes,
                         {deadline: Date.now() + 30000}, (err) => resolve(err ? err.code : 'ok'));
  });
}

// a server-streaming call with bytes as they are
function rawStream(method, bytes) {
  return new Promise(resolve => {
    const s = raw.makeServerStreamRequest(`/google.bigtable.v2.Bigtable/${method}`, x => x, x => x, bytes,
                                          {deadline: Date.now() + 30000});
    s.on('data', () => {});
    s.on('error', e => resolve(e.code));
    s.on('end', () => resolve('ok'));
  });
}

// protobuf by hand: a length-delimited field
function varint(n) {
  const b = [];
  while (n > 127) {
    b.push((n & 127) | 128);
    n = Math.floor(n / 128);
  }
  b.push(n);
  return Buffer.from(b);
}
const field = (tag, body) => Buffer.concat([varint(tag << 3 | 2), varint(body.length), body]);
// a ReadRowsRequest of the table, rows_limit 1, filter nested n chains deep
function readNested(n) {
  const pass = Buffer.from([0x88, 0x01, 0x01]);	// RowFilter.pass_all_filter = true
  let f = pass;
  for (let i = 0; i < n; i++)
    f = field(1, Buffer.concat([field(1, f), field(1, pass)]));	// RowFilter.chain.filters
  return Buffer.concat([field(1, Buffer.from(name)), field(3, f), Buffer.from([0x20, 0x01])]);
}

// a call through the library's generated stub, no retries
function call(method, req) {
  return new Promise(resolve => {
    const gaxOpts = {retry: {retryCodes: []}, timeout: 120000, maxRetries: 0};
    const s = bt.request({client: 'BigtableClient', method, reqOpts: Object.assign({tableName: name}, req), gaxOpts});
    if (s && typeof s.on === 'function' && method !== 'mutateRow' && method !== 'checkAndMutateRow') {
      const entries = [];
      s.on('data', d => { if (d.entries) for (const e of d.entries) entries[Number(e.index)] = e.status.code; });
      s.on('error', e => resolve(e.code));
      s.on('end', () => resolve(entries.length ? entries.join(',') : 'ok'));
    }
  });
}
function unary(method, req) {
  return new Promise(resolve => {
    bt.request({client: 'BigtableClient', method, reqOpts: Object.assign({tableName: name}, req),
                gaxOpts: {retry: {retryCodes: []}, timeout: 120000}},
               err => resolve(err ? err.code : 'ok'));
  });
}

const set = (fam, q, v, ts) => ({setCell: {familyName: fam, columnQualifier: Buffer.from(q),
                                           timestampMicros: ts || 1000, value: Buffer.from(v)}});

async function main() {
  // not a protobuf at all, a truncated one, a field of the wrong wire type
  out('malformed_garbage', await rawCall('MutateRow', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])));
  out('malformed_truncated', await rawCall('MutateRow', Buffer.from([0x0a, 0x40, 0x70, 0x72])));
  out('malformed_wiretype', await rawCall('ReadRows', Buffer.from([0x0d, 1, 2, 3, 4])));
  out('empty_request', await rawCall('MutateRow', Buffer.alloc(0)));

  const bigKey = Buffer.alloc(5000, 0x61);
  out('huge_key_mutate', await unary('mutateRow', {rowKey: bigKey, mutations: [set('f', 'a', 'x')]}));
  out('huge_key_mutate_rows', await call('mutateRows', {entries: [
    {rowKey: Buffer.from('good1'), mutations: [set('f', 'a', 'x')]},
    {rowKey: bigKey, mutations: [set('f', 'a', 'x')]},
    {rowKey: Buffer.from('good2'), mutations: [set('nofam', 'a', 'x')]},
    {rowKey: Buffer.from('good3'), mutations: []},
    {rowKey: Buffer.from('good4'), mutations: [set('f', 'a', 'y')]},
  ]}));
  out('huge_key_check_and_mutate', await unary('checkAndMutateRow', {rowKey: bigKey, trueMutations: [set('f', 'a', 'x')]}));
  out('huge_key_rmw', await unary('readModifyWriteRow', {rowKey: bigKey, rules: [{familyName: 'f', columnQualifier: Buffer.from('c'), incrementAmount: 1}]}));
  out('huge_key_read', await call('readRows', {rows: {rowKeys: [bigKey]}}));
  out('empty_key_mutate', await unary('mutateRow', {rowKey: Buffer.alloc(0), mutations: [set('f', 'a', 'x')]}));
  out('no_mutations', await unary('mutateRow', {rowKey: Buffer.from('r'), mutations: []}));
  out('empty_mutation', await unary('mutateRow', {rowKey: Buffer.from('r'), mutations: [{}]}));
  out('unknown_table', await unary('mutateRow', {tableName: name + '_nosuch', rowKey: Buffer.from('r'), mutations: [set('f', 'a', 'x')]}));
  out('bad_table_name', await unary('mutateRow', {tableName: 'projects/p/tables/x', rowKey: Buffer.from('r'), mutations: [set('f', 'a', 'x')]}));
  out('unknown_family', await unary('mutateRow', {rowKey: Buffer.from('r'), mutations: [set('f', 'a', 'x'), set('nofam', 'a', 'x')]}));
  out('unknown_family_read', await call('readRows', {filter: {familyNameRegexFilter: 'nofam'}}));
  out('negative_ts', await unary('mutateRow', {rowKey: Buffer.from('r'), mutations: [set('f', 'a', 'x', -5)]}));
  out('bad_regex', await call('readRows', {filter: {valueRegexFilter: Buffer.from('(')}}));
  out('negative_limit', await call('readRows', {rowsLimit: -1}));

  // filters nested N chains deep (each chain of the nested one and a
  // pass_all), encoded by hand: the client libraries refuse to encode
  // messages nested deeper than 100
  out('nested_filter_20', await rawStream('ReadRows', readNested(20)));
  out('nested_filter_45', await rawStream('ReadRows', readNested(45)));
  out('nested_filter_1000', await rawStream('ReadRows', readNested(1000)));
  out('nested_filter_10000', await rawStream('ReadRows', readNested(10000)));

  // a value of 20 MB and a MutateRows of 40 MB in 10 entries
  out('value_20mb', await unary('mutateRow', {rowKey: Buffer.from('big1'), mutations: [set('f', 'a', Buffer.alloc(20 << 20, 0x62))]}));
  const entries = [];
  for (let i = 0; i < 10; i++)
    entries.push({rowKey: Buffer.from('bulk' + i), mutations: [set('f', 'a', Buffer.alloc(4 << 20, 0x63))]});
  const r = await call('mutateRows', {entries});
  out('mutate_rows_40mb', r.split ? r.split(',').filter(c => c === '0').length + ' ok' : r);
  out('over_max_message', await rawCall('MutateRow', Buffer.alloc(300 << 20, 0)));
  out('still_serving', await unary('mutateRow', {rowKey: Buffer.from('after'), mutations: [set('f', 'a', 'x')]}));
}

main().then(() => process.exit(0), e => {
  console.error(e);
  process.exit(1);
});
