// test/grpc/ingest.js -- MutateRows through @google-cloud/bigtable's stub,
// recording what the server acknowledged: BATCHES requests of PER entries
// (rows kNNNNNNN, three cells each in family f), one after the other.  For
// every entry the server answers OK it prints "ack KEY"; a failed call
// prints "error CODE" and is retried (the same entries) after 100 ms, until
// DEADLINE seconds have passed.  Ends with "done N" (batches completed).
// test/t/242_grpc_attack.pl kills PostgreSQL in the middle and checks that
// every acknowledged row is there, whole.
//
//   node ingest.js TABLE BATCHES PER DEADLINE
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');

const bt = new Bigtable({projectId: 'p', metricsEnabled: false});
const [table, batches, per, deadline] = process.argv.slice(2);
const tableName = `projects/p/instances/i/tables/${table}`;
const end = Date.now() + Number(deadline) * 1000;
const say = s => process.stdout.write(s + '\n');

function batch(b) {
  const entries = [];
  for (let i = 0; i < Number(per); i++) {
    const k = 'k' + String(b * Number(per) + i).padStart(7, '0');
    const mutations = ['a', 'b', 'c'].map(q => ({setCell: {familyName: 'f', columnQualifier: Buffer.from(q),
                                                           timestampMicros: 1000, value: Buffer.from(k + q)}}));
    entries.push({rowKey: Buffer.from(k), mutations});
  }
  return new Promise(resolve => {
    const acked = [];
    let failed = 0;
    const s = bt.request({client: 'BigtableClient', method: 'mutateRows', reqOpts: {tableName, entries},
                          gaxOpts: {retry: {retryCodes: []}, timeout: 10000, maxRetries: 0}});
    s.on('data', r => {
      for (const e of r.entries) {
        if (e.status.code === 0)
          acked.push(entries[Number(e.index)].rowKey.toString());
        else
          failed = e.status.code;
      }
    });
    s.on('error', e => resolve({code: e.code, acked}));
    s.on('end', () => resolve({code: failed, acked}));
  });
}

(async () => {
  let done = 0;
  for (let b = 0; b < Number(batches) && Date.now() < end;) {
    const r = await batch(b);
    // an entry acknowledged OK is acknowledged, even in a call that failed later
    for (const k of r.acked)
      say('ack ' + k);
    if (r.code === 0) {
      b++;
      done++;
    } else {
      say('error ' + r.code);
      await new Promise(res => setTimeout(res, 100));
    }
  }
  say('done ' + done);
  process.exit(0);
})();
