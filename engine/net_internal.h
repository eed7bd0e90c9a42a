/* Shared between net.c and net_load.c only. */
#ifndef SPADMAP_NET_INTERNAL_H
#define SPADMAP_NET_INTERNAL_H
#include "net.h"
NameIndex *NameIndex_new(Arena *a, int count);
int NameIndex_put(NameIndex *ix, const char *name, int value);
int NameIndex_get(const NameIndex *ix, const char *name);
#endif
