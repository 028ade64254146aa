/* A bump allocator for the strings and frames of one report: parsing a
 * report costs no malloc per line, and dropping it frees everything. */
#ifndef AZ_ARENA_H
#define AZ_ARENA_H
#include <stddef.h>

struct az_chunk;
struct az_arena {
    struct az_chunk *head; /* newest chunk first */
    size_t chunk_size;
};

void az_arena_init(struct az_arena *a, size_t chunk_size);
/* Never returns NULL: aborts the program when memory is exhausted. */
void *az_arena_alloc(struct az_arena *a, size_t size);
char *az_arena_strndup(struct az_arena *a, const char *s, size_t n);
char *az_arena_strdup(struct az_arena *a, const char *s);
/* Forgets everything but keeps the first chunk for reuse. */
void az_arena_reset(struct az_arena *a);
void az_arena_free(struct az_arena *a);
/* Bytes held, for tests of memory bounds. */
size_t az_arena_footprint(const struct az_arena *a);
#endif
