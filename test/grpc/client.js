// test/grpc/client.js -- one scenario through npm's @google-cloud/bigtable,
// the Node client library, against BIGTABLE_EMULATOR_HOST (wide-bigtable or
// the Bigtable emulator): create a table, MutateRow, MutateRows, ReadRows
// with row sets and filters, CheckAndMutateRow, ReadModifyWriteRow,
// SampleRowKeys, deletes, errors.  Prints one line per step, "name<TAB>json
// of the answer", in a canonical form (sorted, server timestamps reduced to
// what Bigtable promises of them), so that test/t/241_grpc_client.pl can
// compare the two servers line by line.
//
//   BIGTABLE_EMULATOR_HOST=127.0.0.1:8086 NODE_PATH=.../node_modules node client.js TABLE
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');

const bt = new Bigtable({projectId: 'p', metricsEnabled: false});
const instance = bt.instance('i');
const tableId = process.argv[2] || 'nodet';
const table = instance.table(tableId);

function out(name, v) {
  process.stdout.write(name + '\t' + JSON.stringify(v) + '\n');
}

// rows as [key, [[family, qualifier, ts, value, labels]...]], values hex
// unless printable
function show(buf) {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(String(buf));
  return /^[\x20-\x7e]*$/.test(b.toString('latin1')) ? b.toString('latin1') : 'x' + b.toString('hex');
}
// a timestamp the server assigned (ReadModifyWriteRow, SetCell at -1):
// Bigtable promises milliseconds of about now, not the value
function stamp(t) {
  const n = Number(t);
  return n > 1e15 ? (n % 1000 === 0 && Math.abs(n / 1000 - Date.now()) < 600000 ? 'now' : 'bad:' + n) : String(t);
}
function rows(rs) {
  return rs.map(r => {
    const cells = [];
    for (const fam of Object.keys(r.data).sort())
      for (const q of Object.keys(r.data[fam]).sort())
        for (const c of r.data[fam][q])
          cells.push([fam, show(Buffer.from(q, 'binary')), stamp(c.timestamp), show(c.value),
                      (c.labels || []).join(',')]);
    return [show(Buffer.from(r.id, 'binary')), cells];
  });
}
async function read(name, opts) {
  try {
    const [rs] = await table.getRows(Object.assign({decode: false}, opts));
    out(name, rows(rs));
  } catch (e) {
    out(name, {code: e.code});
  }
}
async function step(name, f) {
  try {
    out(name, await f());
  } catch (e) {
    // PartialFailureError: the status of each failed entry
    if (e.errors)
      out(name, {partial: e.errors.map(x => [show(x.entry.key), x.code])});
    else
      out(name, {code: e.code});
  }
}

const ts = n => ({value: n.value, timestamp: n.ts});

async function main() {
  await step('create', async () => {
    await table.create({families: ['f', 'g']});
    const [fams] = await table.getFamilies();
    return fams.map(f => f.id).sort();
  });
  // MutateRows: several entries, explicit timestamps (microseconds, in ms)
  await step('insert', async () => {
    const entries = [];
    for (let i = 0; i < 20; i++) {
      const k = 'row' + String(i).padStart(3, '0');
      entries.push({key: k, data: {
        f: {a: ts({value: 'a' + i, ts: 1000 * (i + 1)}), b: ts({value: 'b' + i, ts: 2000})},
        g: {n: ts({value: Buffer.from([0, 0, 0, 0, 0, 0, 0, i]), ts: 3000})},
      }});
    }
    await table.insert(entries);
    return 'ok';
  });
  // MutateRow: versions of one column
  await step('save', async () => {
    const row = table.row('row005');
    await row.save({f: {a: ts({value: 'v2', ts: 50000}), c: ts({value: 'c', ts: 1000})}});
    await row.save({f: {a: ts({value: 'v3', ts: 60000})}});
    return 'ok';
  });
  // a binary key and qualifier
  await step('binary', async () => {
    await table.mutate({key: Buffer.from([0x72, 0x00, 0xff]), method: 'insert',
                        data: {f: {'\u00ff': ts({value: Buffer.from([1, 2, 0]), ts: 1000})}}});
    return 'ok';
  });

  await read('read_all', {});
  await read('read_keys', {keys: ['row003', 'row010', 'nosuch', 'row001']});
  await read('read_range', {start: 'row004', end: 'row007'});
  await read('read_ranges', {ranges: [{start: 'row001', end: {value: 'row002', inclusive: false}},
                                       {start: {value: 'row015', inclusive: false}, end: 'row017'}]});
  await read('read_prefix', {prefix: 'row01'});
  await read('read_limit', {limit: 3});
  await read('f_family', {filter: [{family: 'g'}], start: 'row000', end: 'row002'});
  await read('f_column', {filter: [{column: 'b'}], limit: 2});
  await read('f_column_versions', {filter: [{column: {name: 'a', cellLimit: 1}}], keys: ['row005']});
  await read('f_column_range', {filter: [{column: {family: 'f', start: 'b', end: 'c'}}], keys: ['row005']});
  await read('f_row_regex', {filter: [{row: /row01[0-3]/}]});
  await read('f_value_regex', {filter: [{value: /a1.*/}]});
  await read('f_value_range', {filter: [{value: {start: 'a10', end: {value: 'a12', inclusive: false}}}]});
  await read('f_time', {filter: [{time: {start: new Date(5), end: new Date(8)}}]});
  // (within one family: the emulator's order of families is random there)
  await read('f_cells_per_row', {filter: [{family: 'f'}, {row: {cellLimit: 2}}], limit: 2});
  await read('f_cells_offset', {filter: [{family: 'f'}, {row: {cellOffset: 2}}], keys: ['row005']});
  await read('f_strip', {filter: [{family: 'f'}, {value: {strip: true}}], limit: 1});
  await read('f_interleave', {filter: [{interleave: [[{family: 'g'}], [{column: 'c'}]]}],
                              ranges: [{start: 'row004', end: 'row006'}]});
  await read('f_label', {filter: [{family: 'g'}, {label: 'seen'}], keys: ['row002']});
  await read('f_condition', {filter: [{condition: {test: [{column: 'c'}], pass: [{family: 'f'}], fail: [{family: 'g'}]}}],
                             ranges: [{start: 'row004', end: 'row006'}]});
  await read('f_chain_none', {filter: [{all: false}]});
  await read('f_sample_all', {filter: [{all: true}], keys: ['row001']});

  // CheckAndMutateRow
  await step('cam_match', async () => {
    const [m] = await table.row('row001').filter([{column: 'a'}, {value: 'a1'}],
      {onMatch: [{method: 'insert', data: {f: {m: ts({value: 'matched', ts: 7000})}}}],
       onNoMatch: [{method: 'insert', data: {f: {m: ts({value: 'nomatch', ts: 7000})}}}]});
    return m;
  });
  await step('cam_nomatch', async () => {
    const [m] = await table.row('row002').filter([{value: 'zzz'}],
      {onMatch: [{method: 'insert', data: {f: {m: ts({value: 'matched', ts: 7000})}}}],
       onNoMatch: [{method: 'delete', data: ['f:b']}]});
    return m;
  });
  await step('cam_new_row', async () => {
    const [m] = await table.row('zz-new').filter([{all: true}],
      {onNoMatch: [{method: 'insert', data: {f: {m: ts({value: 'created', ts: 7000})}}}]});
    return m;
  });
  await read('after_cam', {keys: ['row001', 'row002', 'zz-new']});

  // ReadModifyWriteRow: an increment of an 8-byte counter, one of a missing
  // cell, and an append; the cells' new timestamps are server-assigned
  const rmw = async (rules) => {
    const [resp] = await table.row('row007').createRules(rules);
    const cells = [];
    for (const f of resp.row.families)
      for (const c of f.columns)
        for (const x of c.cells)
          cells.push([f.name, show(c.qualifier), show(x.value)]);
    return cells.sort();
  };
  await step('rmw_increment', () => rmw([{column: 'g:n', increment: 5}]));
  await step('rmw_new', () => rmw([{column: 'g:new', increment: -3}]));
  await step('rmw_append', () => rmw([{column: 'f:a', append: '-tail'}, {column: 'f:zz', append: 'x'}]));
  await step('rmw_two_on_one', () => rmw([{column: 'g:n', increment: 1}, {column: 'g:n', increment: 10}]));
  await step('rmw_bad_counter', () => rmw([{column: 'f:a', increment: 1}]));
  await read('after_rmw', {keys: ['row007'], filter: [{column: {cellLimit: 1}}, {value: {strip: false}}]});

  // a cell written at the server's time: a timestamp in milliseconds, near now
  await step('server_time', async () => {
    const before = Date.now();
    await table.mutate({key: 'stime', method: 'insert',
                        data: {f: {t: {value: 'x', timestamp: -1}}}});
    const [rs] = await table.getRows({keys: ['stime']});
    const t = Number(rs[0].data.f.t[0].timestamp);
    return {millis: t % 1000 === 0, near: Math.abs(t / 1000 - before) < 60000};
  });

  // SampleRowKeys: sorted keys, offsets not decreasing (the values are the
  // server's own business)
  await step('sample', async () => {
    const [s] = await table.sampleRowKeys();
    let ok = s.length > 0;
    for (let i = 1; i < s.length; i++)
      ok = ok && Number(s[i].offset) >= Number(s[i - 1].offset) &&
        (s[i].key.length === 0 || Buffer.compare(Buffer.from(s[i].key), Buffer.from(s[i - 1].key)) > 0);
    return ok;
  });

  // deletes: cells of a column in a time range, a family, a row
  await step('delete_cells', async () => {
    await table.mutate({key: 'row005', method: 'delete', data: ['f:a']});
    await table.row('row006').deleteCells(['g']);
    await table.row('row008').delete();
    return 'ok';
  });
  await read('after_delete', {ranges: [{start: 'row005', end: 'row008'}]});

  // errors
  await step('err_family', () => table.row('row001').save({nofam: {a: ts({value: 'x', ts: 1000})}}));
  await step('err_partial', () => table.insert([
    {key: 'ok1', data: {f: {a: ts({value: 'x', ts: 1000})}}},
    {key: 'bad1', data: {nofam: {a: ts({value: 'x', ts: 1000})}}},
    {key: 'ok2', data: {f: {a: ts({value: 'y', ts: 1000})}}},
  ]));
  await read('after_errors', {keys: ['ok1', 'bad1', 'ok2']});
  await step('err_table', async () => {
    await instance.table('nosuch_' + tableId).getRows({});
    return 'read';
  });
  await step('err_cam_table', () => instance.table('nosuch_' + tableId).row('r').filter([{all: true}],
    {onMatch: [{method: 'insert', data: {f: {m: ts({value: 'x', ts: 7000})}}}]}));
  await step('err_create_exists', () => table.create({families: ['f']}));
  await read('keys_only', {filter: [{family: 'f'}, {column: {cellLimit: 1}}, {value: {strip: true}}]});
  await step('delete_table', async () => {
    await table.delete();
    const [tables] = await instance.getTables();
    return tables.map(t => t.id).filter(id => id === tableId);
  });
}

main().then(() => process.exit(0), e => {
  console.error(e);
  process.exit(1);
});
