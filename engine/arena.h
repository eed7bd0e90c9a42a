/* arena: a bump allocator so a loaded network (many small names and arrays)
 * is freed in one call and cannot leak piecemeal. */
#ifndef SPADMAP_ARENA_H
#define SPADMAP_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct {
  ArenaChunk *head;
} Arena;

void *Arena_alloc(Arena *a, size_t size);         /* zeroed; NULL on failure */
char *Arena_strdup(Arena *a, const char *s);
void Arena_free(Arena *a);

#endif
