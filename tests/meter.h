/* meter.h - a metering allocator for the tests: it counts the bytes a
   world holds and the calls it makes, checks the size of every free, and
   refuses requests when told to. Include after ecs.h.

     meter m;
     ecs_desc d;
     meter_init(&m);
     memset(&d, 0, sizeof d);
     d.allocator = meter_allocator(&m, 1);   (1: with realloc)

   A call is an alloc or a growing realloc (shrinking is never refused and
   not counted). One is refused when fail_all is set, when it is call
   number fail_at, or when it asks for more than limit bytes. */
#ifndef METER_H
#define METER_H

#include <stdlib.h>
#include <string.h>

#define METER_LOG 4096
#define METER_HEADER 16 /* keeps ECS_MAX_ALIGN (2 * sizeof(void *)) */

typedef struct meter {
    size_t live;               /* bytes held */
    size_t limit;              /* requests above it are refused */
    unsigned long calls;       /* refused ones included */
    unsigned long fail_at;     /* refuse the call with this number (1-based); 0: none */
    int fail_all;              /* refuse every call while set */
    unsigned long refused;
    unsigned long bad_frees;   /* frees (or reallocs) whose size is not the block's */
    size_t log[METER_LOG];     /* the sizes of the calls since nlog was last set to 0 (the first METER_LOG) */
    unsigned long nlog;
} meter;

static void meter_init(meter *m) {
    memset(m, 0, sizeof *m);
    m->limit = (size_t)-1;
}

/* Counts and logs a call of `size` bytes; whether to refuse it. */
static int meter_refuses(meter *m, size_t size) {
    m->calls++;
    if (m->nlog < METER_LOG) m->log[m->nlog] = size;
    m->nlog++;
    if (m->fail_all || m->calls == m->fail_at || size > m->limit) {
        m->refused++;
        return 1;
    }
    return 0;
}

/* The size a block was allocated with (its header), counting a mismatch. */
static size_t meter_had(meter *m, void *ptr, size_t size) {
    size_t had;
    memcpy(&had, (unsigned char *)ptr - METER_HEADER, sizeof had);
    if (had != size) m->bad_frees++;
    return had;
}

static void *meter_alloc(size_t size, void *ctx) {
    meter *m = (meter *)ctx;
    unsigned char *p;
    if (meter_refuses(m, size) || !(p = (unsigned char *)malloc(size + METER_HEADER))) return NULL;
    memcpy(p, &size, sizeof size);
    m->live += size;
    return p + METER_HEADER;
}

static void meter_free(void *ptr, size_t size, void *ctx) {
    meter *m = (meter *)ctx;
    m->live -= meter_had(m, ptr, size);
    free((unsigned char *)ptr - METER_HEADER);
}

static void *meter_realloc(void *ptr, size_t old, size_t size, void *ctx) {
    meter *m = (meter *)ctx;
    size_t had = meter_had(m, ptr, old);
    unsigned char *q;
    if (size > old && meter_refuses(m, size)) return NULL;
    if (!(q = (unsigned char *)realloc((unsigned char *)ptr - METER_HEADER, size + METER_HEADER))) return NULL;
    memcpy(q, &size, sizeof size);
    m->live = m->live - had + size;
    return q + METER_HEADER;
}

static ecs_allocator meter_allocator(meter *m, int with_realloc) {
    ecs_allocator a;
    memset(&a, 0, sizeof a);
    a.alloc = meter_alloc;
    a.free = meter_free;
    a.realloc = with_realloc ? meter_realloc : NULL;
    a.ctx = m;
    return a;
}

#endif /* METER_H */
