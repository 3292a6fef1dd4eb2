#!/usr/bin/env python3
# Writes src/unimplemented_{data,admin}.inc: an override answering
# UNIMPLEMENTED (with the method's name) for every RPC of the generated
# services that wide-bigtable does not serve.  Run after the vendored protos
# change:  tools/gen-unimplemented.py gen   (gen/ as `make` leaves it)
import re, sys, os
gen = sys.argv[1] if len(sys.argv) > 1 else 'gen'
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
impl = {'data': {'ReadRows', 'SampleRowKeys', 'MutateRow', 'MutateRows', 'CheckAndMutateRow',
                 'PingAndWarm', 'ReadModifyWriteRow'},
        'admin': {'CreateTable', 'ListTables', 'GetTable', 'DeleteTable', 'ModifyColumnFamilies',
                  'DropRowRange'}}
def overrides(path, svc, key):
    src = open(path).read()
    i = src.index('  class Service : public ::grpc::Service {')
    body = src[i:src.index('};', i)]
    out = []
    for m in re.finditer(r'virtual ::grpc::Status (\w+)\((::grpc::ServerContext\* context,[^;]*)\);', body):
        name, args = m.group(1), m.group(2)
        if name in impl[key]:
            continue
        args = re.sub(r'\b(context|request|response|writer|reader|stream)\b', r'/*\1*/', args)
        out.append('  ::grpc::Status %s(%s) override\n  { return unimplemented("%s.%s"); }'
                   % (name, args, svc, name))
    return '\n'.join(out) + '\n'
hdr = ('// Generated from the vendored protos (bigtable/tools/gen-unimplemented.py): every\n'
       '// RPC wide-bigtable does not serve answers UNIMPLEMENTED with its name.\n')
for key, path, svc in (('data', 'google/bigtable/v2/bigtable.grpc.pb.h', 'google.bigtable.v2.Bigtable'),
                       ('admin', 'google/bigtable/admin/v2/bigtable_table_admin.grpc.pb.h',
                        'google.bigtable.admin.v2.BigtableTableAdmin')):
    with open(os.path.join(here, 'unimplemented_%s.inc' % key), 'w') as f:
        f.write(hdr + overrides(os.path.join(gen, path), svc, key))
