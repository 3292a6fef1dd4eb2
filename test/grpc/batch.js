// test/grpc/batch.js -- MutateRows' entries stay atomic and fail alone when
// the server applies a request's entries in one statement (docs/grpc.md):
// a request whose entries are not idempotent (AddToCell) and of which one
// fails must apply each good entry exactly once; keys, qualifiers and
// values of any bytes arrive unchanged.  Prints one line per case,
// "name<TAB>per-entry codes"; test/t/242_grpc_attack.pl checks them and
// the cells in SQL.
//
//   node batch.js TABLE TEXT_TABLE FLOAT_TABLE
//                                      TABLE: families f (plain) and a (sum);
//                                      TEXT_TABLE: a text value column, family f;
//                                      FLOAT_TABLE: a float8 value column, family
//                                      s (sum), for AddToCell's floatValue input
//                                      (wide's extension: Bigtable has no float
//                                      aggregates)
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');

const bt = new Bigtable({projectId: 'p', metricsEnabled: false});
const [table, textTable, floatTable] = process.argv.slice(2);
const gaxOpts = {retry: {retryCodes: []}, timeout: 60000, maxRetries: 0};

function mutateRows(tbl, entries) {
  return new Promise((resolve, reject) => {
    const codes = new Array(entries.length).fill('?');
    const s = bt.request({client: 'BigtableClient', method: 'mutateRows', gaxOpts,
                          reqOpts: {tableName: `projects/p/instances/i/tables/${tbl}`, entries}});
    s.on('data', r => { for (const e of r.entries) codes[Number(e.index)] = e.status.code; });
    s.on('error', reject);
    s.on('end', () => resolve(codes.join(',')));
  });
}

const add = (n) => ({addToCell: {familyName: 'a', columnQualifier: {rawValue: Buffer.from('n')},
                                 timestamp: {rawTimestampMicros: 0}, input: {intValue: n}}});
const set = (fam, q, v) => ({setCell: {familyName: fam, columnQualifier: Buffer.from(q),
                                       timestampMicros: 1000, value: Buffer.from(v)}});
const out = (n, v) => process.stdout.write(n + '\t' + v + '\n');

(async () => {
  // one bad entry between two AddToCells: the good ones once each
  out('add_partial', await mutateRows(table, [
    {rowKey: Buffer.from('k1'), mutations: [add(5)]},
    {rowKey: Buffer.from('k2'), mutations: [set('nofam', 'q', 'x')]},
    {rowKey: Buffer.from('k3'), mutations: [add(7), set('f', 'q', 'y')]},
  ]));
  // an entry whose second mutation fails writes nothing of its first
  out('half_entry', await mutateRows(table, [
    {rowKey: Buffer.from('k4'), mutations: [add(1)]},
    {rowKey: Buffer.from('k5'), mutations: [set('f', 'q', 'z'), set('a', 'q', 'not a sum')]},
  ]));
  // 500 AddToCells of one cell in one request, all good
  const many = [];
  for (let i = 0; i < 500; i++)
    many.push({rowKey: Buffer.from('k6'), mutations: [add(1)]});
  out('add_many', [...new Set((await mutateRows(table, many)).split(','))].join(','));
  // keys, qualifiers and values of every byte, an empty value
  const all = Buffer.alloc(256);
  for (let i = 0; i < 256; i++)
    all[i] = i;
  out('bytes', await mutateRows(table, [
    {rowKey: Buffer.from([0x00, 0xff, 0x22, 0x5c]), mutations: [
      {setCell: {familyName: 'f', columnQualifier: Buffer.from([0x00, 0x0a, 0xfe]), timestampMicros: 2000, value: all}},
      {setCell: {familyName: 'f', columnQualifier: Buffer.from('quote"back\\'), timestampMicros: 2000, value: Buffer.alloc(0)}}]},
    {rowKey: Buffer.from('k7 "\\'), mutations: [
      {setCell: {familyName: 'f', columnQualifier: Buffer.from('é'), timestampMicros: 2000, value: Buffer.from('v')}},
      {deleteFromColumn: {familyName: 'f', columnQualifier: Buffer.from('é'),
                          timeRange: {startTimestampMicros: 2000, endTimestampMicros: 2001}}},
      {setCell: {familyName: 'f', columnQualifier: Buffer.from('é'), timestampMicros: 3000, value: Buffer.from('w')}}]},
  ]));
  // a table whose value column is text: Bigtable's JSON mapping, rewritten by wide
  out('text_table', await mutateRows(textTable, [
    {rowKey: Buffer.from('t1'), mutations: [set('f', 'q', 'hello')]},
    {rowKey: Buffer.from('t2'), mutations: [set('f', 'q', Buffer.from([0xff]))]},
  ]));
  // float inputs of a float8 sum: every bit kept; NaN is a value there
  const fadd = (x) => ({addToCell: {familyName: 's', columnQualifier: {rawValue: Buffer.from('x')},
                                    timestamp: {rawTimestampMicros: 0}, input: {floatValue: x}}});
  out('float_add', await mutateRows(floatTable, [
    {rowKey: Buffer.from('f1'), mutations: [fadd(0.1)]},
    {rowKey: Buffer.from('f1'), mutations: [fadd(0.2)]},
    {rowKey: Buffer.from('f2'), mutations: [fadd(NaN)]},
    {rowKey: Buffer.from('f3'), mutations: [fadd(-1e308), fadd(2.5e-310)]},
  ]));
  process.exit(0);
})().catch(e => {
  console.error(e.message || e);
  process.exit(1);
});
