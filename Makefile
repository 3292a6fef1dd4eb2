# wide: a Bigtable-class wide-column store for PostgreSQL

MODULE_big = wide
OBJS = \
	src/module.o \
	src/am/cellslot.o \
	src/am/ddl.o \
	src/am/tableam.o \
	src/api/families.o \
	src/engine/blob.o \
	src/engine/cell.o \
	src/engine/merge.o \
	src/engine/reader.o \
	src/engine/record.o \
	src/engine/schema.o \
	src/engine/seq.o \
	src/engine/sorter.o \
	src/engine/storage.o \
	src/engine/visibility.o \
	src/engine/writearea.o

EXTENSION = wide
DATA = wide--0.1.sql
PGFILEDESC = "wide - wide-column store"

PG_CPPFLAGS = -I$(srcdir)/src
SHLIB_LINK = -lzstd

REGRESS = wide_ddl families cells mvcc
REGRESS_OPTS = --load-extension=wide
ISOLATION = snapshot write_order
ISOLATION_OPTS = --load-extension=wide

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)
