/* fuzz_model.c - model-based fuzzer for ecs.h.

   Input bytes drive a sequence of API calls on a world and on a naive
   reference model of it (plain arrays: which entities live and their ids,
   which components each has with what bytes, the insertion/modification
   ticks, the removed / deleted / created / destroyed lists, the uniques,
   the groups, the queued commands, the hook calls). After every call the
   whole world is compared with the model (check_world). Any divergence,
   unexpected ECS_ASSERT, leak or sanitizer report is a crash (abort()).

   One interpreter, fz_run_input(), and three ways in:
     - LLVMFuzzerTestOneInput: libFuzzer (make fuzz, mk/fuzz.mk);
     - built with -DFUZZ_MAIN, main() replays files or directories
       (make test replays tests/fuzz/corpus), or
     - `--random OPS SEED` feeds random inputs from a fixed seed until OPS
       operations ran (make test: 10^6).

   Input format. The first two bytes pick the world: entity tracking on or
   off, an allocator with or without a realloc hook, desc.max_entities,
   initial tracking flags per storage, and which storages have (observing)
   hooks. Then each op is one byte (a weighted table over OPS below) and its
   parameters are the bytes after it; past the end every byte reads 0. The
   components: sizes 1, 4, 8 and 24 and two tags.

   Programmer errors: ECS_ASSERT is redirected to a recorder. Only calls
   whose assert behaviour is documented (the bad-input catalogue of ecs.h
   section 2) are driven; each must assert exactly once and leave the
   documented error code; any other assert is a crash. Out of memory: an op
   arms the allocator to fail the k-th allocation of the next call; that
   call must succeed, or fail with ECS_ERR_OUT_OF_MEMORY having changed
   nothing (the all-or-nothing rules), except where ecs.h documents
   otherwise (a destroy whose free queue cannot grow retires its slot; a
   flush stops and keeps the rest queued).

   Environment: FUZZ_TRACE=1 prints every op (and the views and changes of
   view loops); FUZZ_DUMP=file (random driver) writes each input to file
   before running it, so a crash leaves its input behind; FUZZ_SKIP_KNOWN=1
   steers around the known ecs.h bugs below, so a fuzzing run can look for
   new ones.

   Known bugs (tests/fuzz/corpus/known-bug-*): none open. The input
   regress-destroy-current-joins-group was known bug 1: destroying the
   current entity of a view over a group-owned storage made it join the
   group for a moment and moved rows under the walk (fixed: an entity being
   stripped joins no group). */
#ifdef FUZZ_MAIN
#define _POSIX_C_SOURCE 200809L /* fork, pipe, waitpid for the replay */
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- asserts ------------------------------------------------------------ */
static struct {
    int expecting; /* > 0: the call being made may assert */
    int count;     /* asserts seen while expecting */
    char msg[512];
} fa;

static void fz_fail(int line, const char *fmt, ...);

static void fz_on_assert(const char *msg) {
    snprintf(fa.msg, sizeof fa.msg, "%s", msg);
    if (!fa.expecting) fz_fail(__LINE__, "unexpected ECS_ASSERT: \"%s\"", msg);
    fa.count++;
}

#define ECS_ASSERT(cond, msg) ((cond) ? (void)0 : fz_on_assert(msg))
#undef ECS_DEBUG
#define ECS_DEBUG 1
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "ecs.h"

/* ---- the components ------------------------------------------------------ */
#define NC 6    /* B1, I4, D8, S24, and the tags TA, TB */
#define VMAX 24 /* the largest component */
typedef uint8_t B1;
typedef uint32_t I4;
typedef uint64_t D8;
typedef struct { uint64_t a, b, c; } S24; /* no padding: compound literals copy every byte */

static const char *const comp_name[NC] = {"B1", "I4", "D8", "S24", "TA", "TB"};
static const size_t comp_size[NC] = {sizeof(B1), sizeof(I4), sizeof(D8), sizeof(S24), 0, 0};
static const size_t comp_align[NC] = {ECS_ALIGNOF(B1), ECS_ALIGNOF(I4), ECS_ALIGNOF(D8), ECS_ALIGNOF(S24), 0, 0};

/* ---- bounds ---------------------------------------------------------------- */
#define MAX_SLOTS 512   /* entity indices the model holds */
#define MAX_LIVE 128    /* live entities at most */
#define MAX_BULK 40
#define NDEAD 16        /* recently destroyed ids, for stale-id calls */
#define LIST_MAX 96     /* a tracking list longer than this is cleared first */
#define MAX_PENDING 48  /* queued commands */
#define MAX_GROUPS 3
#define NTS 8           /* recent timestamps, for `since` arguments */

/* ---- the allocator: counts, checks sizes, fails on demand ---------------- */
static struct {
    long long outstanding;
    long armed;   /* > 0: the armed-th allocation from now fails */
    int failed;   /* an allocation failed during this op */
    long allocs;
} al;

static void *fz_alloc(size_t size, void *ctx) {
    size_t *p;
    (void)ctx;
    al.allocs++;
    if (al.armed > 0 && --al.armed == 0) {
        al.failed = 1;
        return NULL;
    }
    p = (size_t *)malloc(size + 16);
    if (!p) abort();
    p[0] = size;
    p[1] = 0x5eed;
    al.outstanding += (long long)size;
    return (char *)p + 16;
}
static void fz_free(void *ptr, size_t size, void *ctx) {
    size_t *p;
    (void)ctx;
    if (!ptr) return;
    p = (size_t *)((char *)ptr - 16);
    if (p[1] != 0x5eed) fz_fail(__LINE__, "free of a block the allocator did not hand out");
    if (p[0] != size) fz_fail(__LINE__, "freed %lu bytes of a block of %lu", (unsigned long)size, (unsigned long)p[0]);
    p[1] = 0;
    al.outstanding -= (long long)size;
    free(p);
}
/* Always moves the block, so a pointer kept across a resize is caught. */
static void *fz_realloc(void *ptr, size_t old_size, size_t new_size, void *ctx) {
    void *q;
    if (new_size > old_size || !ptr) {
        q = fz_alloc(new_size, ctx);
        if (!q) return NULL;
    } else { /* shrinking must not fail */
        long armed = al.armed;
        al.armed = 0;
        q = fz_alloc(new_size, ctx);
        al.armed = armed;
    }
    if (ptr) {
        memcpy(q, ptr, old_size < new_size ? old_size : new_size);
        fz_free(ptr, old_size, ctx);
    }
    return q;
}

/* ---- the model ------------------------------------------------------------- */
typedef struct {
    ecs_change *items;
    unsigned char *values; /* VMAX bytes per entry (deleted lists) */
    int n, cap;
} m_list;

typedef struct {
    ecs_entity id;     /* the live entity, or the last one of this slot */
    uint32_t version;  /* its version; dead: the next entity's */
    int alive;
    unsigned char has[NC];
    unsigned mask; /* bit c: has[c] */
    unsigned char val[NC][VMAX];
    ecs_tick ins[NC], mod[NC];
} m_slot;

typedef struct {
    int op; /* 0 destroy, 1 add, 2 remove, 3 delete */
    ecs_entity e;
    int c;
    unsigned char v[VMAX];
} m_cmd;

typedef struct {
    int nowned, nexcl;
    int owned[NC], excl[NC];
    unsigned owned_mask, excl_mask;
} m_group;

static struct {
    ecs_world *w;
    ecs_component comp[NC];
    int count[NC]; /* live entities with c */
    m_slot slot[MAX_SLOTS];
    uint32_t nslots, max_slots;
    uint32_t fq[MAX_SLOTS];
    int fq_head, fq_len;
    uint32_t live[MAX_SLOTS];
    int live_at[MAX_SLOTS];
    int nlive;
    ecs_entity dead[NDEAD];
    int ndead;
    ecs_tick tick;
    ecs_tick ts[NTS];
    int nts;
    int track_entities;
    m_list created, destroyed;
    struct {
        uint32_t track;
        ecs_tick clear_ins, clear_mod;
        m_list removed, deleted;
        int hooks;
        long ins_calls, rem_calls; /* what the hooks should have seen */
        int owner;                 /* group id or 0 */
    } st[NC];
    struct {
        int has;
        unsigned char val[VMAX];
        ecs_tick ins, mod;
    } uq[NC];
    m_group grp[MAX_GROUPS];
    int ngroups;
    m_cmd pending[MAX_PENDING];
    int npending;
    /* hooks as seen */
    long hook_ins[NC], hook_rem[NC];
    int in_flush;  /* on_remove cannot compare values with the model */
    /* the input */
    const uint8_t *in;
    size_t n, at;
    long op;
    const char *opname;
    int trace;
    int skip_known; /* FUZZ_SKIP_KNOWN=1: steer around the known bugs below */
    char where[160]; /* which input, for the failure message */
} m;

/* statistics for the driver's report */
static long fz_op_count[64];
static const char *fz_op_names[64];
static long fz_total_ops;

static void fz_fail(int line, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "fuzz_model.c:%d: op #%ld (%s), %d live: ", line, m.op, m.opname ? m.opname : "setup",
            m.nlive);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    if (m.w && ecs_last_error(m.w)) fprintf(stderr, "  last error: %s\n", ecs_last_error_msg(m.w));
    if (m.where[0]) fprintf(stderr, "  input: %s\n", m.where);
    fflush(stderr);
    abort();
}
#define ENSURE(cond)                                        \
    do {                                                    \
        if (!(cond)) fz_fail(__LINE__, "%s failed", #cond); \
    } while (0)

/* expr must assert exactly once and leave error `code`. */
#define EXPECT_ASSERT(expr, code)                                                              \
    do {                                                                                       \
        fa.expecting++;                                                                        \
        fa.count = 0;                                                                          \
        ENSURE(expr);                                                                          \
        fa.expecting--;                                                                        \
        if (fa.count != 1) fz_fail(__LINE__, "expected one ECS_ASSERT from %s, got %d", #expr, fa.count); \
        if (ecs_last_error(m.w) != (code))                                                     \
            fz_fail(__LINE__, "%s: error %d, expected %d", #expr, (int)ecs_last_error(m.w), (int)(code)); \
        ecs_clear_error(m.w);                                                                  \
    } while (0)

/* The call failed: only fine when an armed allocation failed in it. */
#define OOM_OK() (al.failed && ecs_last_error(m.w) == ECS_ERR_OUT_OF_MEMORY)

static void trace(const char *fmt, ...) {
    va_list ap;
    if (!m.trace) return;
    va_start(ap, fmt);
    fprintf(stderr, "    ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ---- reading the input ------------------------------------------------------ */
static unsigned u8(void) { return m.at < m.n ? m.in[m.at++] : 0; }
static unsigned u16(void) { return u8() | u8() << 8; }

static void gen_bytes(unsigned char *v, size_t n) {
    uint32_t s = u16() * 2654435761u + 1;
    size_t k;
    for (k = 0; k < n; k++) {
        s = s * 1103515245u + 12345u;
        v[k] = (unsigned char)(s >> 16);
    }
}

/* ---- model helpers ------------------------------------------------------------ */
static void list_push(m_list *l, ecs_entity e, ecs_tick t, const void *v) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->items = (ecs_change *)realloc(l->items, (size_t)l->cap * sizeof *l->items);
        l->values = (unsigned char *)realloc(l->values, (size_t)l->cap * VMAX);
        if (!l->items || !l->values) abort();
    }
    l->items[l->n].entity = e;
    l->items[l->n].tick = t;
    memset(l->values + (size_t)l->n * VMAX, 0, VMAX);
    if (v) memcpy(l->values + (size_t)l->n * VMAX, v, VMAX);
    l->n++;
}
/* drops the entries with tick <= t */
static void list_drop(m_list *l, ecs_tick t) {
    int k = 0;
    while (k < l->n && l->items[k].tick <= t) k++;
    if (!k) return;
    memmove(l->items, l->items + k, (size_t)(l->n - k) * sizeof *l->items);
    memmove(l->values, l->values + (size_t)k * VMAX, (size_t)(l->n - k) * VMAX);
    l->n -= k;
}
static void list_free(m_list *l) {
    free(l->items);
    free(l->values);
    memset(l, 0, sizeof *l);
}

static int slot_of(ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e);
    return e && i < m.nslots && m.slot[i].alive && m.slot[i].id == e ? (int)i : -1;
}

/* The id the k-th next creation hands out (FIFO reuse, else a fresh slot). */
static ecs_entity m_peek(uint32_t k) {
    uint32_t i;
    if ((int)k < m.fq_len) {
        i = m.fq[(m.fq_head + (int)k) % MAX_SLOTS];
        return ((ecs_entity)m.slot[i].version << 32) | i;
    }
    i = m.nslots + (k - (uint32_t)m.fq_len);
    return ((ecs_entity)1 << 32) | i;
}
/* Fresh slots `count` creations need, and whether the world refuses them. */
static uint32_t m_fresh(uint32_t count) { return count > (uint32_t)m.fq_len ? count - (uint32_t)m.fq_len : 0; }
static int m_room(uint32_t count) { return m.nlive + (int)count <= MAX_LIVE && m.nslots + m_fresh(count) <= MAX_SLOTS; }
static int m_exhausted(uint32_t count) { return m_fresh(count) > m.max_slots - m.nslots; }

static void m_create(ecs_entity e) {
    uint32_t i;
    if (m.fq_len) {
        i = m.fq[m.fq_head];
        m.fq_head = (m.fq_head + 1) % MAX_SLOTS;
        m.fq_len--;
    } else {
        i = m.nslots++;
        m.slot[i].version = 1;
    }
    if (e != (((ecs_entity)m.slot[i].version << 32) | i))
        fz_fail(__LINE__, "created %llx, expected %llx", (unsigned long long)e,
                (unsigned long long)(((ecs_entity)m.slot[i].version << 32) | i));
    memset(m.slot[i].has, 0, sizeof m.slot[i].has);
    m.slot[i].mask = 0;
    m.slot[i].id = e;
    m.slot[i].alive = 1;
    m.live_at[i] = m.nlive;
    m.live[m.nlive++] = i;
    if (m.track_entities) list_push(&m.created, e, m.tick, NULL);
}

static void m_insert(int i, int c, const void *v) {
    if (!m.slot[i].has[c]) m.count[c]++;
    m.slot[i].has[c] = 1;
    m.slot[i].mask |= 1u << c;
    memset(m.slot[i].val[c], 0, VMAX);
    if (v) memcpy(m.slot[i].val[c], v, comp_size[c]);
    m.slot[i].ins[c] = m.tick;
    m.slot[i].mod[c] = 0;
    if (m.st[c].hooks) m.st[c].ins_calls++;
}
static void m_replace(int i, int c, const void *v) {
    memset(m.slot[i].val[c], 0, VMAX);
    if (v) memcpy(m.slot[i].val[c], v, comp_size[c]);
    m.slot[i].mod[c] = m.tick;
}
static void m_set(int i, int c, const void *v) {
    if (m.slot[i].has[c])
        m_replace(i, c, v);
    else
        m_insert(i, c, v);
}
static void m_take(int i, int c, int deletion) {
    if (m.st[c].hooks) m.st[c].rem_calls++;
    if (deletion && (m.st[c].track & ECS_TRACK_DELETION))
        list_push(&m.st[c].deleted, m.slot[i].id, m.tick, m.slot[i].val[c]);
    if (!deletion && (m.st[c].track & ECS_TRACK_REMOVAL)) list_push(&m.st[c].removed, m.slot[i].id, m.tick, NULL);
    m.slot[i].has[c] = 0;
    m.slot[i].mask &= ~(1u << c);
    m.count[c]--;
}
/* retire: the free queue could not grow (out of memory), the slot is never reused */
static void m_destroy(int i, int retire) {
    int c, at = m.live_at[i];
    for (c = 0; c < NC; c++)
        if (m.slot[i].has[c]) m_take(i, c, 1);
    if (m.track_entities) list_push(&m.destroyed, m.slot[i].id, m.tick, NULL);
    m.slot[i].alive = 0;
    m.slot[i].version++;
    if (!retire) {
        m.fq[(m.fq_head + m.fq_len) % MAX_SLOTS] = (uint32_t)i;
        m.fq_len++;
    }
    m.dead[m.ndead++ % NDEAD] = m.slot[i].id;
    m.live[at] = m.live[--m.nlive];
    m.live_at[m.live[at]] = at;
}

static int m_count(int c) { return m.count[c]; }

static int m_group_match(const m_group *g, int i) {
    unsigned mask = m.slot[i].mask;
    return (mask & g->owned_mask) == g->owned_mask && !(mask & g->excl_mask);
}

/* ---- picking entities -------------------------------------------------------- */
static int pick_live(void) {
    unsigned b = u8();
    return m.nlive ? (int)m.live[b % (unsigned)m.nlive] : -1;
}
/* Mostly a live entity (*slot >= 0), else a dead, null, never-created or
   wrong-version id (*slot = -1). */
static ecs_entity pick_entity(int *slot) {
    unsigned b = u8();
    uint32_t i;
    *slot = -1;
    if (b < 200 && m.nlive) {
        *slot = (int)m.live[b % (unsigned)m.nlive];
        return m.slot[*slot].id;
    }
    switch (b % 6) {
    case 0: return ECS_NULL;
    case 1:
    case 2:
        if (m.ndead) return m.dead[b % (unsigned)(m.ndead < NDEAD ? m.ndead : NDEAD)];
        return ECS_NULL;
    case 3: return ((ecs_entity)1 << 32) | (m.nslots + b % 3); /* never created */
    case 4:
        if (m.nlive) { /* a live slot with a version it does not have */
            i = m.live[b % (unsigned)m.nlive];
            return ((ecs_entity)(m.slot[i].version + 1 + b % 2 * 5) << 32) | i;
        }
        return ECS_NULL;
    default: return ((ecs_entity)1 << 32) | (0xfffffff0u + b % 13); /* far beyond any slot */
    }
}

/* A value for component c: *vp is NULL (zeroed), the bytes in v, or a
   pointer into c's own storage (another entity's value: the call may move
   it). v receives the value expected. */
static const void *pick_value(int c, unsigned char *v) {
    unsigned mode = u8() % 10;
    memset(v, 0, VMAX);
    if (mode == 0) return NULL;
    if (mode == 1) return v; /* explicit zeros */
    if (mode == 2 && comp_size[c] && m.nlive) {
        int j = (int)m.live[u8() % (unsigned)m.nlive];
        if (m.slot[j].has[c]) {
            memcpy(v, m.slot[j].val[c], comp_size[c]);
            return ecs_get(m.w, m.slot[j].id, m.comp[c]);
        }
    }
    gen_bytes(v, comp_size[c]);
    return v;
}

/* ---- hooks ----------------------------------------------------------------------- */
static void hook_insert(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    int ci = (int)c - 1;
    (void)user;
    ENSURE(w == m.w && ci >= 0 && ci < NC && m.st[ci].hooks);
    ENSURE(ecs_alive(w, e) && ecs_has(w, e, c));
    ENSURE(value == (void *)ecs_get(w, e, c));
    m.hook_ins[ci]++;
}
static void hook_remove(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    int ci = (int)c - 1, i = slot_of(e);
    (void)user;
    ENSURE(w == m.w && ci >= 0 && ci < NC && m.st[ci].hooks);
    ENSURE(ecs_alive(w, e) && ecs_has(w, e, c));
    ENSURE(value == (void *)ecs_get(w, e, c)); /* still readable */
    if (!m.in_flush) { /* the model is updated after the call: still the old value */
        ENSURE(i >= 0 && m.slot[i].has[ci]);
        ENSURE(memcmp(value, m.slot[i].val[ci], comp_size[ci]) == 0);
    }
    m.hook_rem[ci]++;
}
static const ecs_hooks observer = {hook_insert, hook_remove, NULL};

/* ---- checking the world against the model ---------------------------------------- */
static void check_list(const ecs_change *got, uint32_t n, const m_list *l, const char *what) {
    if (n != (uint32_t)l->n) fz_fail(__LINE__, "%s: %u entries, model %d", what, (unsigned)n, l->n);
    if (n && memcmp(got, l->items, n * sizeof *got) != 0) {
        uint32_t k;
        for (k = 0; k < n && got[k].entity == l->items[k].entity && got[k].tick == l->items[k].tick; k++) {}
        fz_fail(__LINE__, "%s: entry %u is {%llx, %llu}, model {%llx, %llu}", what, (unsigned)k,
                (unsigned long long)got[k].entity, (unsigned long long)got[k].tick,
                (unsigned long long)l->items[k].entity, (unsigned long long)l->items[k].tick);
    }
}
/* The entries after `since`: a suffix of the list. */
static void check_since(const ecs_change *all, const ecs_change *got, uint32_t n, const m_list *l, ecs_tick since) {
    int k = 0;
    while (k < l->n && l->items[k].tick <= since) k++;
    ENSURE(n == (uint32_t)(l->n - k));
    if (n) ENSURE(got == all + k);
}

static ecs_tick last_ts(void) { return m.nts ? m.ts[(m.nts - 1) % NTS] : 0; }

static void check_world(void) {
    static uint32_t seen[MAX_SLOTS], stamp;
    int k, c, g;
    ecs_tick since = last_ts();
    stamp++;
    ENSURE(ecs_count(m.w) == (uint32_t)m.nlive);
    ENSURE(ecs_defer_pending(m.w) == (uint32_t)m.npending);
    for (k = 0; k < m.ndead && k < NDEAD; k++) ENSURE(!ecs_alive(m.w, m.dead[k]));
    /* each storage holds exactly the model's entities, with their values
       and stamps, and every sparse entry points at its row */
    for (c = 0; c < NC; c++) {
        ecs_component cc = m.comp[c];
        uint32_t n = ecs_storage_count(ecs_storage_of(m.w, cc)), r, track = m.st[c].track;
        const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, cc));
        const unsigned char *data = (const unsigned char *)ecs_storage_data(ecs_storage_of(m.w, cc));
        size_t size = comp_size[c];
        if (n != (uint32_t)m_count(c)) fz_fail(__LINE__, "%s holds %u, model %d", comp_name[c], (unsigned)n, m_count(c));
        ENSURE(ecs_track_get(m.w, cc) == track);
        ENSURE(size ? data != NULL || n == 0 : data == NULL);
        stamp++;
        for (r = 0; r < n; r++) {
            ecs_entity e = ents[r];
            int i = slot_of(e);
            if (i < 0 || !m.slot[i].has[c])
                fz_fail(__LINE__, "%s row %u: %llx, not an owner in the model", comp_name[c], (unsigned)r,
                        (unsigned long long)e);
            ENSURE(seen[i] != stamp);
            seen[i] = stamp;
            if (size) {
                if (ecs_get(m.w, e, cc) != (const void *)(data + r * size))
                    fz_fail(__LINE__, "%s row %u: ecs_get of %llx points elsewhere", comp_name[c], (unsigned)r,
                            (unsigned long long)e);
                if (memcmp(data + r * size, m.slot[i].val[c], size) != 0)
                    fz_fail(__LINE__, "%s: value of %llx differs", comp_name[c], (unsigned long long)e);
            } else {
                ENSURE(ecs_get(m.w, e, cc) != NULL);
            }
            if (track & ECS_TRACK_INSERTION) {
                if (ecs_was_inserted(m.w, e, cc, 0) != (m.slot[i].ins[c] > m.st[c].clear_ins))
                    fz_fail(__LINE__, "%s: was_inserted(%llx, 0) is %d; model stamp %llu, window %llu",
                            comp_name[c], (unsigned long long)e, !!ecs_was_inserted(m.w, e, cc, 0),
                            (unsigned long long)m.slot[i].ins[c], (unsigned long long)m.st[c].clear_ins);
                if (since) ENSURE(ecs_was_inserted(m.w, e, cc, since) == (m.slot[i].ins[c] > since));
            }
            if (track & ECS_TRACK_MODIFICATION) {
                if (ecs_was_modified(m.w, e, cc, 0) != (m.slot[i].mod[c] > m.st[c].clear_mod))
                    fz_fail(__LINE__, "%s: was_modified(%llx, 0) is %d; model stamp %llu, window %llu",
                            comp_name[c], (unsigned long long)e, !!ecs_was_modified(m.w, e, cc, 0),
                            (unsigned long long)m.slot[i].mod[c], (unsigned long long)m.st[c].clear_mod);
                if (since) ENSURE(ecs_was_modified(m.w, e, cc, since) == (m.slot[i].mod[c] > since));
            }
        }
        /* lists */
        if (track & ECS_TRACK_REMOVAL) {
            uint32_t nn, ns;
            const ecs_change *all = ecs_removed(m.w, cc, 0, &nn), *part;
            check_list(all, nn, &m.st[c].removed, "removed");
            part = ecs_removed(m.w, cc, since, &ns);
            check_since(all, part, ns, &m.st[c].removed, since);
        } else {
            ENSURE(m.st[c].removed.n == 0);
        }
        if (track & ECS_TRACK_DELETION) {
            uint32_t nn, ns, j;
            const ecs_change *all = ecs_deleted(m.w, cc, 0, &nn), *part;
            check_list(all, nn, &m.st[c].deleted, "deleted");
            for (j = 0; j < nn; j++) {
                const void *v = ecs_deleted_value(m.w, cc, all + j);
                ENSURE(v != NULL);
                if (size && memcmp(v, m.st[c].deleted.values + (size_t)j * VMAX, size) != 0)
                    fz_fail(__LINE__, "%s: deleted value %u of %llx differs", comp_name[c], (unsigned)j,
                            (unsigned long long)all[j].entity);
            }
            part = ecs_deleted(m.w, cc, since, &ns);
            check_since(all, part, ns, &m.st[c].deleted, since);
        } else {
            ENSURE(m.st[c].deleted.n == 0);
        }
        /* uniques */
        ENSURE(ecs_unique_has(m.w, cc) == m.uq[c].has);
        if (m.uq[c].has) {
            const void *p = ecs_unique_get(m.w, cc);
            ENSURE(p != NULL);
            if (size && memcmp(p, m.uq[c].val, size) != 0) fz_fail(__LINE__, "unique %s differs", comp_name[c]);
        }
        ENSURE(ecs_unique_was_inserted(m.w, cc, 0) == (m.uq[c].has && m.uq[c].ins > m.st[c].clear_ins));
        ENSURE(ecs_unique_was_modified(m.w, cc, 0) == (m.uq[c].has && m.uq[c].mod > m.st[c].clear_mod));
        if (since) {
            ENSURE(ecs_unique_was_inserted(m.w, cc, since) == (m.uq[c].has && m.uq[c].ins > since));
            ENSURE(ecs_unique_was_modified(m.w, cc, since) == (m.uq[c].has && m.uq[c].mod > since));
        }
        /* hooks */
        if (m.hook_ins[c] != m.st[c].ins_calls || m.hook_rem[c] != m.st[c].rem_calls)
            fz_fail(__LINE__, "%s hooks: %ld inserts, %ld removes; model %ld, %ld", comp_name[c], m.hook_ins[c],
                    m.hook_rem[c], m.st[c].ins_calls, m.st[c].rem_calls);
    }
    /* every live entity: alive, and lacking what the model says it lacks
       (what it has, the rows above found through the same lookup) */
    for (k = 0; k < m.nlive; k++) {
        const m_slot *s = &m.slot[m.live[k]];
        ENSURE(ecs_alive(m.w, s->id));
        for (c = 0; c < NC; c++)
            if (!s->has[c] && ecs_has(m.w, s->id, m.comp[c]))
                fz_fail(__LINE__, "ecs_has(%llx, %s) is true, the model says it lacks it", (unsigned long long)s->id,
                        comp_name[c]);
    }
    /* entity lists */
    if (m.track_entities) {
        uint32_t nn, ns;
        const ecs_change *all = ecs_created(m.w, 0, &nn), *part;
        check_list(all, nn, &m.created, "created");
        part = ecs_created(m.w, since, &ns);
        check_since(all, part, ns, &m.created, since);
        all = ecs_destroyed(m.w, 0, &nn);
        check_list(all, nn, &m.destroyed, "destroyed");
        part = ecs_destroyed(m.w, since, &ns);
        check_since(all, part, ns, &m.destroyed, since);
    }
    /* groups: rows 0..len-1 of every owned storage are exactly the
       matching entities, in the same order */
    for (g = 0; g < m.ngroups; g++) {
        const m_group *gp = &m.grp[g];
        uint32_t len = ecs_group_count(m.w, (ecs_group)(g + 1)), r, members = 0;
        const ecs_entity *e0 = ecs_storage_entities(ecs_storage_of(m.w, m.comp[gp->owned[0]]));
        for (k = 0; k < m.nlive; k++) members += (uint32_t)m_group_match(gp, (int)m.live[k]);
        if (len != members) fz_fail(__LINE__, "group %d: %u rows, model %u members", g + 1, (unsigned)len, (unsigned)members);
        ENSURE(ecs_group_entities(m.w, (ecs_group)(g + 1)) == e0);
        for (k = 0; k < gp->nowned; k++) {
            ecs_component cc = m.comp[gp->owned[k]];
            const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, cc));
            ENSURE(ecs_group_data(m.w, (ecs_group)(g + 1), cc) == ecs_storage_data(ecs_storage_of(m.w, cc)));
            for (r = 0; r < len; r++) {
                int i = slot_of(ents[r]);
                if (ents[r] != e0[r])
                    fz_fail(__LINE__, "group %d: row %u of %s is %llx, of %s %llx", g + 1, (unsigned)r,
                            comp_name[gp->owned[k]], (unsigned long long)ents[r], comp_name[gp->owned[0]],
                            (unsigned long long)e0[r]);
                ENSURE(i >= 0 && m_group_match(gp, i));
            }
        }
    }
}

/* ---- world setup ---------------------------------------------------------------------- */
static const uint32_t track_presets[8][NC] = {
    {0, 0, 0, 0, 0, 0},
    {ECS_TRACK_ALL, 0, ECS_TRACK_ALL, 0, ECS_TRACK_ALL, 0},
    {ECS_TRACK_ALL, ECS_TRACK_ALL, ECS_TRACK_ALL, ECS_TRACK_ALL, ECS_TRACK_ALL, ECS_TRACK_ALL},
    {ECS_TRACK_INSERTION, ECS_TRACK_MODIFICATION, ECS_TRACK_REMOVAL, ECS_TRACK_DELETION, 0, ECS_TRACK_ALL},
    {0, ECS_TRACK_ALL, 0, ECS_TRACK_ALL, 0, ECS_TRACK_DELETION | ECS_TRACK_REMOVAL},
    {ECS_TRACK_DELETION, ECS_TRACK_DELETION, ECS_TRACK_DELETION, ECS_TRACK_DELETION, ECS_TRACK_DELETION, 0},
    {ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION, 0, ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION, 0,
     ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION, 0},
    {ECS_TRACK_ALL, ECS_TRACK_ALL, 0, 0, ECS_TRACK_ALL, ECS_TRACK_ALL},
};

static void model_reset(void) {
    int c;
    list_free(&m.created);
    list_free(&m.destroyed);
    for (c = 0; c < NC; c++) {
        list_free(&m.st[c].removed);
        list_free(&m.st[c].deleted);
    }
    memset(&m.slot, 0, sizeof m.slot);
    m.nslots = 0;
    m.fq_head = m.fq_len = 0;
    m.nlive = m.ndead = m.nts = m.ngroups = m.npending = 0;
    memset(m.count, 0, sizeof m.count);
    memset(m.st, 0, sizeof m.st);
    memset(m.uq, 0, sizeof m.uq);
    memset(m.hook_ins, 0, sizeof m.hook_ins);
    memset(m.hook_rem, 0, sizeof m.hook_rem);
    m.in_flush = 0;
}

static void world_new(void) {
    static const uint32_t maxes[4] = {0, 24, 100, 0};
    unsigned b0 = u8(), b1 = u8();
    ecs_desc d;
    int c;
    memset(&d, 0, sizeof d);
    model_reset();
    memset(&al, 0, sizeof al);
    m.track_entities = (b0 & 1) != 0;
    d.track_entities = m.track_entities;
    d.allocator.alloc = fz_alloc;
    d.allocator.free = fz_free;
    if (b0 & 2) d.allocator.realloc = fz_realloc;
    d.max_entities = maxes[(b0 >> 2) & 3];
    m.max_slots = d.max_entities ? d.max_entities : 0xfffffffeu;
    m.w = ecs_world_new(&d);
    ENSURE(m.w != NULL);
    m.tick = 2; /* ecs.h: 1 is "before anything happened" */
    for (c = 0; c < NC; c++) {
        m.comp[c] = ecs_register(m.w, comp_name[c], comp_size[c], comp_align[c]);
        ENSURE(m.comp[c] == (ecs_component)(c + 1));
    }
    ENSURE(ECS_COMPONENT(m.w, S24) == m.comp[3] && ECS_COMPONENT(m.w, I4) == m.comp[1]);
    for (c = 0; c < NC; c++) {
        uint32_t t = track_presets[(b0 >> 4) & 7][c];
        if (t) {
            ENSURE(ecs_track_set(m.w, m.comp[c], t));
            m.st[c].track = t;
        }
        if (b1 >> c & 1) {
            ENSURE(ecs_hooks_set(m.w, m.comp[c], &observer));
            m.st[c].hooks = 1;
        }
    }
}

static void world_free(void) {
    ecs_world_free(m.w);
    m.w = NULL;
    if (al.outstanding != 0) fz_fail(__LINE__, "%lld bytes still allocated after ecs_world_free", al.outstanding);
    model_reset();
}

/* ---- ops ------------------------------------------------------------------------------ */
/* A bundle: n distinct components (or, if `bad`, one listed twice or an
   unknown one), each with a value or NULL. */
typedef struct {
    uint32_t n;
    int which[NC];
    ecs_component comps[NC + 1];
    unsigned char vals[NC][VMAX];
    const void *vp[NC + 1];
    int null_values; /* the values array itself is NULL */
} bundle;

static void pick_bundle(bundle *b, int min) {
    int order[NC], j, t;
    for (j = 0; j < NC; j++) order[j] = j;
    for (j = NC - 1; j > 0; j--) {
        int k = (int)(u8() % (unsigned)(j + 1));
        t = order[j], order[j] = order[k], order[k] = t;
    }
    b->n = (uint32_t)min + u8() % (unsigned)(NC + 1 - min);
    b->null_values = u8() % 6 == 0;
    for (j = 0; j < (int)b->n; j++) {
        int c = order[j];
        b->which[j] = c;
        b->comps[j] = m.comp[c];
        b->vp[j] = pick_value(c, b->vals[j]);
        if (!b->vp[j] || b->null_values) memset(b->vals[j], 0, VMAX);
    }
}
static const void *const *bundle_values(const bundle *b) { return b->null_values ? NULL : b->vp; }

static void apply_bundle(int i, const bundle *b) {
    uint32_t j;
    for (j = 0; j < b->n; j++) m_set(i, b->which[j], b->vals[j]);
}

static void op_create(void) {
    ecs_entity e, want = m_peek(0);
    int exhausted = m_exhausted(1);
    if (!m_room(1)) return;
    e = ecs_create(m.w);
    if (exhausted) {
        ENSURE(e == ECS_NULL && (ecs_last_error(m.w) == ECS_ERR_EXHAUSTED || OOM_OK()));
        return;
    }
    if (e == ECS_NULL) {
        ENSURE(OOM_OK());
        return;
    }
    ENSURE(e == want);
    m_create(e);
}

static void op_create_with(void) {
    bundle b;
    ecs_entity e;
    int exhausted = m_exhausted(1);
    if (!m_room(1)) return;
    pick_bundle(&b, 0);
    e = ecs_create_n(m.w, b.n, b.comps, bundle_values(&b));
    if (exhausted) {
        ENSURE(e == ECS_NULL && (ecs_last_error(m.w) == ECS_ERR_EXHAUSTED || OOM_OK()));
        return;
    }
    if (e == ECS_NULL) {
        ENSURE(OOM_OK());
        return;
    }
    m_create(e);
    apply_bundle(slot_of(e), &b);
}

static void op_create_bulk(void) {
    static ecs_entity out[MAX_BULK];
    bundle b;
    uint32_t count = 1 + u8() % MAX_BULK, k;
    int use_out = u8() % 4 != 0, exhausted, ok;
    if (!m_room(count)) return;
    exhausted = m_exhausted(count);
    pick_bundle(&b, 0);
    ok = ecs_create_bulk(m.w, count, b.n, b.comps, bundle_values(&b), use_out ? out : NULL);
    if (exhausted) {
        ENSURE(!ok && (ecs_last_error(m.w) == ECS_ERR_EXHAUSTED || OOM_OK()));
        return;
    }
    if (!ok) {
        ENSURE(OOM_OK());
        return;
    }
    for (k = 0; k < count; k++) {
        ecs_entity e = m_peek(0);
        if (use_out) ENSURE(out[k] == e);
        m_create(e);
        apply_bundle(slot_of(e), &b);
    }
}

static void op_destroy(void) {
    int i;
    ecs_entity e = pick_entity(&i);
    int ok = ecs_destroy(m.w, e);
    if (i < 0) {
        ENSURE(!ok && ecs_last_error(m.w) == ECS_OK);
        return;
    }
    if (!ok) {
        ENSURE(OOM_OK());
        return;
    }
    m_destroy(i, al.failed); /* succeeded although an allocation failed: the slot was retired */
}

/* Destroys many (all, now and then), to keep the count moving. */
static void op_destroy_many(void) {
    int n = u8() % 4 == 0 ? m.nlive : (int)(u8() % 16), k;
    al.armed = 0; /* several calls: out of memory is for single calls */
    for (k = 0; k < n && m.nlive; k++) {
        int i = pick_live();
        ENSURE(ecs_destroy(m.w, m.slot[i].id));
        m_destroy(i, 0);
    }
}

/* ecs_add, or the typed ECS_ADD / ECS_SET (tags: always ecs_add). */
static void *typed_add(int how, ecs_entity e, int c, const void *src, const unsigned char *v) {
    ecs_component cc = m.comp[c];
    if (how == 0 || !comp_size[c] || !src) return ecs_add(m.w, e, cc, src);
    if (how == 1) {
        switch (c) { /* ECS_ADD: a braced initializer */
        case 0: return ECS_ADD(m.w, e, cc, B1, v[0]); /* scalars: the value itself */
        case 1: {
            I4 x;
            memcpy(&x, v, sizeof x);
            return ECS_ADD(m.w, e, cc, I4, x);
        }
        case 2: {
            D8 x;
            memcpy(&x, v, sizeof x);
            return ECS_ADD(m.w, e, cc, D8, x);
        }
        default: {
            S24 x;
            memcpy(&x, v, sizeof x);
            return ECS_ADD(m.w, e, cc, S24, {x.a, x.b, x.c});
        }
        }
    }
    switch (c) { /* ECS_SET: an lvalue */
    case 0: {
        B1 x = v[0];
        return ECS_ADD(m.w, e, cc, B1, x);
    }
    case 1: {
        I4 x;
        memcpy(&x, v, sizeof x);
        return ECS_ADD(m.w, e, cc, I4, x);
    }
    case 2: {
        D8 x;
        memcpy(&x, v, sizeof x);
        return ECS_ADD(m.w, e, cc, D8, x);
    }
    default: {
        S24 x;
        memcpy(&x, v, sizeof x);
        return ECS_ADD(m.w, e, cc, S24, x);
    }
    }
}

static void op_add(void) {
    int i = pick_live(), c = (int)(u8() % NC);
    unsigned how = u8() % 4;
    unsigned char v[VMAX];
    const void *src;
    void *p;
    if (i < 0) return;
    src = pick_value(c, v);
    p = typed_add(how >= 2 ? (int)how - 1 : 0, m.slot[i].id, c, src, v);
    if (!p) {
        ENSURE(OOM_OK());
        return;
    }
    ENSURE(p == (void *)ecs_get(m.w, m.slot[i].id, m.comp[c]) || !comp_size[c]);
    m_set(i, c, v);
}

static void op_remove(int deletion) {
    int i, c = (int)(u8() % NC), ok, has;
    unsigned how = u8() % 3;
    ecs_entity e = pick_entity(&i);
    unsigned char out[VMAX + 8];
    memset(out, 0xa5, sizeof out);
    if (deletion) {
        ok = ecs_delete(m.w, e, m.comp[c]);
    } else if (how == 2 && comp_size[c]) { /* typed */
        switch (c) {
        case 0: ok = ECS_REMOVE(m.w, e, m.comp[c], B1, (B1 *)out); break;
        case 1: {
            I4 x;
            ok = ECS_REMOVE(m.w, e, m.comp[c], I4, &x);
            if (ok) memcpy(out, &x, sizeof x);
            break;
        }
        case 2: {
            D8 x;
            ok = ECS_REMOVE(m.w, e, m.comp[c], D8, &x);
            if (ok) memcpy(out, &x, sizeof x);
            break;
        }
        default: {
            S24 x;
            ok = ECS_REMOVE(m.w, e, m.comp[c], S24, &x);
            if (ok) memcpy(out, &x, sizeof x);
            break;
        }
        }
    } else {
        ok = ecs_remove(m.w, e, m.comp[c], how ? out : NULL);
    }
    has = i >= 0 && m.slot[i].has[c];
    if (!has) {
        ENSURE(!ok && ecs_last_error(m.w) == ECS_OK);
        return;
    }
    if (!ok) {
        ENSURE(OOM_OK());
        return;
    }
    if (!deletion && how) {
        if (comp_size[c])
            ENSURE(memcmp(out, m.slot[i].val[c], comp_size[c]) == 0);
        else
            ENSURE(out[0] == 0xa5); /* a tag leaves *out untouched */
        ENSURE(out[comp_size[c]] == 0xa5);
    }
    m_take(i, c, deletion);
}

static void op_strip(void) {
    int i, c;
    ecs_entity e = pick_entity(&i);
    uint32_t n = ecs_strip(m.w, e), want = 0;
    if (i < 0) {
        ENSURE(n == 0 && ecs_last_error(m.w) == ECS_OK);
        return;
    }
    for (c = 0; c < NC; c++) want += m.slot[i].has[c];
    if (n != want) {
        ENSURE(n == 0 && OOM_OK());
        return;
    }
    for (c = 0; c < NC; c++)
        if (m.slot[i].has[c]) m_take(i, c, 1);
}

static void op_add_n(void) {
    bundle b;
    int i = pick_live(), ok;
    if (i < 0) return;
    pick_bundle(&b, 0);
    ok = ecs_add_n(m.w, m.slot[i].id, b.n, b.comps, bundle_values(&b));
    if (!ok) {
        ENSURE(OOM_OK());
        return;
    }
    apply_bundle(i, &b);
}

/* get_mut (or ECS_GET_MUT) and a write through the pointer; ecs_get and
   ECS_GET, which never mark. */
static void op_get(void) {
    int i, c = (int)(u8() % NC);
    unsigned how = u8() % 4;
    ecs_entity e = pick_entity(&i);
    int has = i >= 0 && m.slot[i].has[c];
    unsigned char v[VMAX];
    void *p;
    gen_bytes(v, VMAX);
    if (how == 3) {
        const void *q = ecs_get(m.w, e, m.comp[c]);
        ENSURE((q != NULL) == has);
        if (c == 1 && has) ENSURE((const void *)ECS_GET(m.w, e, m.comp[c], I4) == q);
        if (c == 3 && has) ENSURE((const void *)ECS_GET(m.w, e, m.comp[c], S24) == q);
        return;
    }
    if (how == 2 && c < 4) {
        switch (c) {
        case 0: p = ECS_GET_MUT(m.w, e, m.comp[c], B1); break;
        case 1: p = ECS_GET_MUT(m.w, e, m.comp[c], I4); break;
        case 2: p = ECS_GET_MUT(m.w, e, m.comp[c], D8); break;
        default: p = ECS_GET_MUT(m.w, e, m.comp[c], S24); break;
        }
    } else {
        p = ecs_get_mut(m.w, e, m.comp[c]);
    }
    ENSURE((p != NULL) == has);
    if (!has) return;
    if (comp_size[c] && how) memcpy(p, v, comp_size[c]);
    if (how) memcpy(m.slot[i].val[c], v, comp_size[c]);
    m.slot[i].mod[c] = m.tick;
}

static void op_mark(void) {
    int i, c = (int)(u8() % NC);
    ecs_entity e = pick_entity(&i);
    int has = i >= 0 && m.slot[i].has[c];
    ENSURE(ecs_mark_modified(m.w, e, m.comp[c]) == has);
    if (has) m.slot[i].mod[c] = m.tick;
}

static void op_set_if_changed(void) {
    int i = pick_live(), c = (int)(u8() % NC), ok, want;
    unsigned char v[VMAX];
    const void *src;
    if (i < 0) return;
    if (u8() % 3 == 0 && m.slot[i].has[c]) { /* the same bytes: no change */
        memcpy(v, m.slot[i].val[c], VMAX);
        src = v;
    } else {
        src = pick_value(c, v);
    }
    if (u8() % 2 && comp_size[c] == sizeof(I4) && src) {
        I4 x;
        memcpy(&x, src, sizeof x);
        ok = ECS_ADD_IF_CHANGED(m.w, m.slot[i].id, m.comp[c], I4, x);
    } else {
        ok = ecs_add_if_changed(m.w, m.slot[i].id, m.comp[c], src);
    }
    if (!m.slot[i].has[c])
        want = 1;
    else
        want = comp_size[c] && memcmp(m.slot[i].val[c], v, comp_size[c]) != 0;
    if (!ok && want) {
        ENSURE(!m.slot[i].has[c] && OOM_OK());
        return;
    }
    ENSURE(ok == want);
    if (want) m_set(i, c, v);
}

/* ---- views ------------------------------------------------------------------------- */
enum { T_REQ, T_NOT, T_OPT, T_ANY };

typedef struct {
    int n, nany, nreq;
    int ci[NC], kind[NC];
    uint32_t flags[NC];
    ecs_view_desc d;
} vspec;

static void trace_view(const vspec *v) {
    static const char *const mark[4] = {"", "!", "?", "|"};
    char buf[256];
    int k, len = 0;
    if (!m.trace) return;
    for (k = 0; k < v->n; k++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s%s%s%s", k ? " " : "", mark[v->kind[k]],
                        comp_name[v->ci[k]], v->flags[k] & ECS_WRITE ? "(w)" : "",
                        v->flags[k] & (ECS_INSERTED | ECS_MODIFIED) ? "(filter)" : "");
    trace("view [%s] lead %u since %llu", buf, (unsigned)v->d.lead, (unsigned long long)v->d.since);
}

static void pick_view(vspec *v) {
    int order[NC], j, t;
    memset(v, 0, sizeof *v);
    for (j = 0; j < NC; j++) order[j] = j;
    if (m.ngroups && u8() % 2) { /* a group's terms first: the view may walk the group */
        const m_group *g = &m.grp[u8() % (unsigned)m.ngroups];
        for (j = 0; j < g->nowned; j++) {
            v->ci[v->n] = g->owned[j];
            v->kind[v->n++] = T_REQ;
        }
        for (j = 0; j < g->nexcl; j++) {
            v->ci[v->n] = g->excl[j];
            v->kind[v->n++] = T_NOT;
        }
    }
    for (j = NC - 1; j > 0; j--) {
        int k = (int)(u8() % (unsigned)(j + 1));
        t = order[j], order[j] = order[k], order[k] = t;
    }
    for (j = 0; j < NC && (v->n == 0 || u8() % 3); j++) {
        int c = order[j], k, dup = 0;
        for (k = 0; k < v->n; k++) dup |= v->ci[k] == c;
        if (dup) continue;
        v->ci[v->n] = c;
        t = (int)(u8() % 8);
        v->kind[v->n++] = t < 3 ? T_REQ : t == 3 ? T_NOT : t == 4 ? T_OPT : T_ANY;
    }
    for (j = v->n - 1; j > 0; j--) { /* the order of the terms is random too */
        int k = (int)(u8() % (unsigned)(j + 1));
        t = v->ci[j], v->ci[j] = v->ci[k], v->ci[k] = t;
        t = v->kind[j], v->kind[j] = v->kind[k], v->kind[k] = t;
    }
    for (j = 0; j < v->n; j++) {
        v->nreq += v->kind[j] == T_REQ;
        v->nany += v->kind[j] == T_ANY;
    }
    if (!v->nreq && !v->nany) {
        v->kind[0] = T_REQ;
        v->nreq = 1;
    }
    for (j = 0; j < v->n; j++) {
        uint32_t f = 0, track = m.st[v->ci[j]].track;
        unsigned b = u8();
        if (v->kind[j] == T_NOT) f = ECS_NOT;
        if (v->kind[j] == T_OPT) f = ECS_OPTIONAL;
        if (v->kind[j] == T_ANY) f = ECS_ANY;
        if (v->kind[j] != T_NOT && (b & 1)) f |= ECS_WRITE;
        if (v->kind[j] == T_REQ && (b & 6)) { /* filters, where the storage tracks them */
            if ((b & 2) && (track & ECS_TRACK_INSERTION)) f |= ECS_INSERTED;
            if ((b & 4) && (track & ECS_TRACK_MODIFICATION)) f |= ECS_MODIFIED;
        }
        v->flags[j] = f;
        v->d.terms[j].c = m.comp[v->ci[j]];
        v->d.terms[j].flags = f;
    }
    if (u8() % 3 == 0 && m.nts) v->d.since = m.ts[u8() % (unsigned)(m.nts < NTS ? m.nts : NTS)];
    if (v->nreq && u8() % 4 == 0) {
        int k = (int)(u8() % (unsigned)v->n);
        while (v->kind[k] != T_REQ) k = (k + 1) % v->n;
        v->d.lead = m.comp[v->ci[k]];
    }
}

static int fresh(const vspec *v, int k, int i) {
    int c = v->ci[k];
    ecs_tick si = v->d.since ? v->d.since : m.st[c].clear_ins;
    ecs_tick sm = v->d.since ? v->d.since : m.st[c].clear_mod;
    return ((v->flags[k] & ECS_INSERTED) && m.slot[i].ins[c] > si) ||
           ((v->flags[k] & ECS_MODIFIED) && m.slot[i].mod[c] > sm);
}

static int view_match(const vspec *v, int i) {
    int k, any = 0;
    for (k = 0; k < v->n; k++) {
        int has = m.slot[i].has[v->ci[k]];
        if (v->kind[k] == T_REQ && (!has || ((v->flags[k] & (ECS_INSERTED | ECS_MODIFIED)) && !fresh(v, k, i))))
            return 0;
        if (v->kind[k] == T_NOT && has) return 0;
        any |= v->kind[k] == T_ANY && has;
    }
    return any || !v->nany;
}

static void check_field(const vspec *v, int k, int i, const void *p) {
    int c = v->ci[k];
    if (v->kind[k] == T_NOT || !m.slot[i].has[c]) {
        if (p != NULL) fz_fail(__LINE__, "term %d (%s) of %llx: field should be NULL", k, comp_name[c],
                               (unsigned long long)m.slot[i].id);
        return;
    }
    ENSURE(p != NULL);
    if (comp_size[c]) {
        ENSURE(p == ecs_get(m.w, m.slot[i].id, m.comp[c]));
        ENSURE(memcmp(p, m.slot[i].val[c], comp_size[c]) == 0);
    }
}

/* An entity the walk yields: live, wanted, seen for the first time; marked. */
static void yielded(const vspec *v, ecs_entity e, const unsigned char *want, int *seen) {
    int i = slot_of(e), k;
    if (i < 0) fz_fail(__LINE__, "view yields %llx, not alive", (unsigned long long)e);
    if (!want[i]) fz_fail(__LINE__, "view yields %llx, which does not match", (unsigned long long)e);
    if (seen[i]++) fz_fail(__LINE__, "view yields %llx twice", (unsigned long long)e);
    for (k = 0; k < v->n; k++) /* ECS_WRITE: marked when reached */
        if ((v->flags[k] & ECS_WRITE) && m.slot[i].has[v->ci[k]]) m.slot[i].mod[v->ci[k]] = m.tick;
}

static void check_fields_next(const vspec *v, ecs_iter *it) {
    int i = slot_of(ecs_iter_entity(it)), k;
    for (k = 0; k < v->n; k++) {
        void *p = ecs_field(it, (uint32_t)k);
        check_field(v, k, i, p);
        switch (v->ci[k]) {
        case 0: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, B1) == p); break;
        case 1: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, I4) == p); break;
        case 2: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, D8) == p); break;
        case 3: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, S24) == p); break;
        default: break;
        }
    }
}

/* Walks with ecs_iter_next (limit > 0: stops after that many). */
static void walk_next(const vspec *v, ecs_iter *it, const unsigned char *want, int *seen, int limit) {
    int n = 0;
    while ((limit == 0 || n < limit) && ecs_iter_next(it)) {
        yielded(v, ecs_iter_entity(it), want, seen);
        check_fields_next(v, it);
        n++;
    }
}

static void walk_blocks(const vspec *v, ecs_iter *it, const unsigned char *want, int *seen, int limit) {
    int n = 0;
    while ((limit == 0 || n < limit) && ecs_iter_next_block(it)) {
        uint32_t j;
        int k;
        ENSURE(it->count > 0 && it->count <= (uint32_t)m.nlive);
        for (j = 0; j < it->count; j++) {
            int i = slot_of(it->entities[j]);
            yielded(v, it->entities[j], want, seen);
            for (k = 0; k < v->n; k++) {
                const char *p = (const char *)ecs_block(it, k);
                check_field(v, k, i, p ? p + j * comp_size[v->ci[k]] : NULL);
            }
        }
        n++;
    }
}

static void count_each(ecs_iter *it, void *ctx) {
    ++*(uint32_t *)ctx;
    (void)it;
}

static ecs_iter open_view(const vspec *v, int of) {
    ecs_component comps[NC];
    int k;
    for (k = 0; k < v->n && v->kind[k] == T_REQ && !v->flags[k]; k++) comps[k] = m.comp[v->ci[k]];
    if (of && k == v->n && !v->d.lead && !v->d.since) return ecs_view_of(m.w, (uint32_t)v->n, comps);
    return ecs_view(m.w, &v->d);
}

static void op_view(void) {
    static unsigned char want[MAX_SLOTS];
    static int seen[MAX_SLOTS];
    vspec v;
    ecs_iter it;
    unsigned mode, limit;
    int k, nwant = 0, full = 1;
    pick_view(&v);
    mode = u8() % 8;
    limit = u8() % 4 == 0 ? 1 + u8() % 8 : 0;
    memset(want, 0, sizeof want);
    memset(seen, 0, sizeof seen);
    for (k = 0; k < m.nlive; k++) nwant += want[m.live[k]] = (unsigned char)view_match(&v, (int)m.live[k]);
    it = open_view(&v, (int)(mode & 1));
    if (mode <= 2) {
        walk_next(&v, &it, want, seen, (int)limit);
        full = !limit;
    } else if (mode <= 4) {
        walk_blocks(&v, &it, want, seen, (int)limit);
        full = !limit;
    } else if (mode == 5 && v.nreq) { /* every chunk of K, some by blocks */
        uint32_t K = 1 + u8() % 5, kk;
        for (kk = 0; kk < K; kk++) {
            if (kk) it = open_view(&v, 0);
            ENSURE(ecs_iter_chunk(&it, kk, K));
            if (u8() % 2)
                walk_next(&v, &it, want, seen, 0);
            else
                walk_blocks(&v, &it, want, seen, 0);
        }
    } else if (mode == 6) {
        uint32_t each = 0;
        ENSURE(ecs_each(m.w, &v.d, count_each, &each) == (uint32_t)nwant && each == (uint32_t)nwant);
        for (k = 0; k < m.nlive; k++)
            if (want[m.live[k]]) yielded(&v, m.slot[m.live[k]].id, want, seen);
    } else { /* field errors: a bad index, a wrong sizeof */
        if (ecs_iter_next(&it)) {
            yielded(&v, ecs_iter_entity(&it), want, seen);
            EXPECT_ASSERT(ecs_field(&it, (uint32_t)v.n + u8() % 4) == NULL, ECS_ERR_INVALID);
            for (k = 0; k < v.n; k++)
                if (comp_size[v.ci[k]] && comp_size[v.ci[k]] != sizeof(S24))
                    EXPECT_ASSERT(ECS_FIELD(&it, (uint32_t)k, S24) == NULL, ECS_ERR_SIZE_MISMATCH);
        }
        if (!v.nreq) { /* a union view cannot be split */
            ecs_iter u = open_view(&v, 0);
            EXPECT_ASSERT(!ecs_iter_chunk(&u, 0, 2), ECS_ERR_INVALID);
        }
        full = 0;
    }
    if (full)
        for (k = 0; k < m.nlive; k++) {
            uint32_t i = m.live[k];
            if (seen[i] != want[i]) fz_fail(__LINE__, "view misses %llx", (unsigned long long)m.slot[i].id);
        }
}

/* Views the catalogue says assert and yield nothing. */
static void op_view_bad(void) {
    ecs_view_desc d;
    ecs_iter it;
    ecs_error code = ECS_ERR_INVALID;
    int c = (int)(u8() % NC), c2 = (c + 1 + (int)(u8() % (NC - 1))) % NC;
    memset(&d, 0, sizeof d);
    d.terms[0].c = m.comp[c];
    d.terms[1].c = m.comp[c2];
    switch (u8() % 8) {
    case 0: d.terms[1].c = m.comp[c]; break;                       /* listed twice */
    case 1: d.terms[1].flags = ECS_NOT | ECS_WRITE; break;           /* NOT with another flag */
    case 2: d.terms[1].flags = ECS_OPTIONAL | ECS_ANY; break;
    case 3: d.terms[1].flags = ECS_ANY | ECS_INSERTED; break;        /* filter on an ANY term */
    case 4: d.terms[0].flags = d.terms[1].flags = ECS_NOT; break;    /* nothing required */
    case 5: d.terms[1].flags = ECS_OPTIONAL; d.lead = m.comp[c2]; break; /* lead not required */
    case 6:
        d.terms[1].c = (ecs_component)(NC + 1 + u8() % 3);
        code = ECS_ERR_UNKNOWN_COMPONENT;
        break;
    default: /* a filter the storage does not track */
        if (m.st[c2].track & ECS_TRACK_MODIFICATION) return;
        d.terms[1].flags = ECS_MODIFIED;
        break;
    }
    EXPECT_ASSERT((it = ecs_view(m.w, &d), 1), code);
    ENSURE(!ecs_iter_next(&it));
}

/* Changes inside an ecs_iter_next loop, as section 7 allows them: values
   anywhere, adds (where no group can be joined), creating, removing from
   or destroying the current entity, commands for the others. Every entity
   is yielded at most once and matches when yielded; one created in the
   loop is never yielded; one that matched at the start and still matches
   at the end (with the same id) was yielded. */
static void defer_some(int n);

static void op_view_changes(void) {
    static int seen[MAX_SLOTS];
    static ecs_entity start[MAX_SLOTS], born[MAX_SLOTS];
    vspec v;
    ecs_iter it;
    int k, is_union;
    unsigned owned_m = 0, excl_m = 0;
    for (k = 0; k < m.ngroups; k++) owned_m |= m.grp[k].owned_mask, excl_m |= m.grp[k].excl_mask;
    al.armed = 0; /* several calls: out of memory is for single calls */
    pick_view(&v);
    trace_view(&v);
    is_union = v.nreq == 0;
    memset(seen, 0, sizeof seen);
    memset(start, 0, sizeof start);
    memset(born, 0, sizeof born);
    for (k = 0; k < m.nlive; k++) {
        uint32_t i = m.live[k];
        if (view_match(&v, (int)i)) start[i] = m.slot[i].id;
    }
    for (it = open_view(&v, 0); ecs_iter_next(&it);) {
        ecs_entity cur = ecs_iter_entity(&it);
        int i = slot_of(cur), nchanges = (int)(u8() % 3), j;
        if (i < 0) fz_fail(__LINE__, "view yields %llx, not alive", (unsigned long long)cur);
        if (born[i] == cur) fz_fail(__LINE__, "view yields %llx, created in the loop", (unsigned long long)cur);
        if (seen[i]++) fz_fail(__LINE__, "view yields %llx twice", (unsigned long long)cur);
        if (!view_match(&v, i)) fz_fail(__LINE__, "view yields %llx, which does not match", (unsigned long long)cur);
        check_fields_next(&v, &it);
        trace("yield %llx", (unsigned long long)cur);
        for (k = 0; k < v.n; k++)
            if ((v.flags[k] & ECS_WRITE) && m.slot[i].has[v.ci[k]]) m.slot[i].mod[v.ci[k]] = m.tick;
        for (j = 0; j < nchanges; j++) {
            unsigned op = u8() % 12, cm;
            int c = (int)(u8() % NC), t = pick_live();
            unsigned char val[VMAX];
            gen_bytes(val, VMAX);
            i = slot_of(cur);
            cm = 1u << c;
            if (is_union && op >= 1 && op <= 6) continue; /* union loops: destroy the current one, values, defer */
            if (op <= 2 && i >= 0 && u8() % 2) c = v.ci[u8() % (unsigned)v.n], cm = 1u << c;
            if ((op == 4 || op == 5) && i >= 0 && u8() % 4 == 0) t = i;
            /* groups (section 13): an add that makes an entity join moves rows
               under the walk, so is deferred; leaving is fine for the current
               entity only */
            if ((op == 4 || op == 5) && (owned_m & cm)) continue;
            if ((op == 4 || op == 5) && (excl_m & cm) && t != i) continue;
            /* removing an excluded component makes an entity join: deferred,
               even for the current entity (section 13); its destroy and strip
               are fine (an entity being stripped joins nothing) */
            if ((op == 1 || op == 2) && i >= 0 && (excl_m & cm)) continue;
            trace("  change %u, %s, target %llx", op, comp_name[c], t >= 0 ? (unsigned long long)m.slot[t].id : 0ull);
            if (op == 0 && i >= 0) {
                ENSURE(ecs_destroy(m.w, cur));
                m_destroy(i, 0);
            } else if ((op == 1 || op == 2) && i >= 0) {
                if (op == 1)
                    ENSURE(ecs_remove(m.w, cur, m.comp[c], val) == m.slot[i].has[c]);
                else
                    ENSURE(ecs_delete(m.w, cur, m.comp[c]) == m.slot[i].has[c]);
                if (m.slot[i].has[c]) m_take(i, c, op == 2);
            } else if (op == 3 && i >= 0) {
                uint32_t n = 0;
                for (c = 0; c < NC; c++) n += m.slot[i].has[c];
                ENSURE(ecs_strip(m.w, cur) == n);
                for (c = 0; c < NC; c++)
                    if (m.slot[i].has[c]) m_take(i, c, 1);
            } else if ((op == 4 || op == 5) && t >= 0) { /* add to any entity */
                ENSURE(ecs_add(m.w, m.slot[t].id, m.comp[c], val) != NULL);
                m_set(t, c, val);
            } else if (op == 6 && m_room(1) && !m_exhausted(1)) {
                ecs_entity e = ecs_create(m.w);
                ENSURE(e != ECS_NULL);
                m_create(e);
                born[ECS_ENTITY_INDEX(e)] = e;
            } else if (op == 7 || op == 8) {
                defer_some(1);
            } else if (op >= 9 && t >= 0 && m.slot[t].has[c]) { /* a value, in place */
                void *p = ecs_get_mut(m.w, m.slot[t].id, m.comp[c]);
                ENSURE(p != NULL);
                if (comp_size[c]) memcpy(p, val, comp_size[c]);
                memcpy(m.slot[t].val[c], val, comp_size[c]);
                m.slot[t].mod[c] = m.tick;
            }
        }
    }
    for (k = 0; k < m.nlive; k++) { /* nobody skipped */
        uint32_t i = m.live[k];
        if (start[i] == m.slot[i].id && view_match(&v, (int)i) && seen[i] != 1)
            fz_fail(__LINE__, "view skipped %llx", (unsigned long long)m.slot[i].id);
    }
}

/* ---- command buffer ----------------------------------------------------------------- */
static void defer_some(int n) {
    int k;
    for (k = 0; k < n && m.npending < MAX_PENDING; k++) {
        unsigned op = u8() % 10;
        int i, c = (int)(u8() % NC), ok;
        m_cmd *cmd = &m.pending[m.npending];
        ecs_entity e;
        if (op == 0) { /* created now, usable at once */
            if (!m_room(1) || m_exhausted(1)) continue;
            e = ecs_defer_create(m.w);
            if (e == ECS_NULL) {
                ENSURE(OOM_OK());
                continue;
            }
            m_create(e);
            continue;
        }
        e = pick_entity(&i);
        memset(cmd, 0, sizeof *cmd);
        cmd->e = e;
        cmd->c = c;
        if (op <= 2) {
            cmd->op = 0;
            ok = ecs_defer_destroy(m.w, e);
        } else if (op <= 6) {
            const void *src;
            cmd->op = 1;
            if (i < 0) { /* adding to a dead entity asserts at record time */
                EXPECT_ASSERT(!ecs_defer_add(m.w, e, m.comp[c], NULL), ECS_ERR_DEAD_ENTITY);
                continue;
            }
            src = pick_value(c, cmd->v);
            if (c == 3 && src && op == 6) {
                S24 x;
                memcpy(&x, src, sizeof x);
                ok = ECS_DEFER_ADD(m.w, e, m.comp[c], S24, {x.a, x.b, x.c});
            } else {
                ok = ecs_defer_add(m.w, e, m.comp[c], src);
            }
        } else {
            cmd->op = op <= 8 ? 2 : 3;
            ok = op <= 8 ? ecs_defer_remove(m.w, e, m.comp[c]) : ecs_defer_delete(m.w, e, m.comp[c]);
        }
        if (!ok) {
            ENSURE(OOM_OK());
            continue;
        }
        m.npending++;
    }
}

/* Applies the first n pending commands to the model; returns how many took effect. */
static uint32_t m_apply_pending(int n) {
    uint32_t applied = 0;
    int k;
    for (k = 0; k < n; k++) {
        const m_cmd *cmd = &m.pending[k];
        int i = slot_of(cmd->e);
        if (i < 0) continue; /* died before its turn */
        if (cmd->op == 0) {
            m_destroy(i, 0);
            applied++;
        } else if (cmd->op == 1) {
            m_set(i, cmd->c, cmd->v);
            applied++;
        } else if (m.slot[i].has[cmd->c]) {
            m_take(i, cmd->c, cmd->op == 3);
            applied++;
        }
    }
    memmove(m.pending, m.pending + n, (size_t)(m.npending - n) * sizeof *m.pending);
    m.npending -= n;
    return applied;
}

static void op_flush(void) {
    uint32_t applied, left, want;
    int k;
    if (al.armed) /* a destroy that cannot grow the free queue retires its slot: not modelled here */
        for (k = 0; k < m.npending; k++)
            if (m.pending[k].op == 0) al.armed = 0;
    m.in_flush = 1;
    applied = ecs_flush(m.w);
    m.in_flush = 0;
    left = ecs_defer_pending(m.w);
    ENSURE(left <= (uint32_t)m.npending);
    if (left) ENSURE(OOM_OK()); /* stops at an add that ran out of memory; the rest stays queued */
    want = m_apply_pending(m.npending - (int)left);
    if (applied != want) fz_fail(__LINE__, "ecs_flush applied %u, model %u", (unsigned)applied, (unsigned)want);
}

static void op_defer(void) {
    defer_some(1 + (int)(u8() % 8));
    if (u8() % 3 == 0) op_flush();
}

/* ---- sorting ------------------------------------------------------------------------ */
static struct {
    int c, desc, bad;
} srt;

/* Few distinct keys, so stability shows: a value's first byte mod 4, a
   tag's entity index mod 5. */
static int sort_key(ecs_entity e, const void *v) {
    return comp_size[srt.c] ? ((const unsigned char *)v)[0] % 4 : (int)(ECS_ENTITY_INDEX(e) % 5);
}
static int by_key(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    int ia = slot_of(a), ib = slot_of(b), tag = comp_size[srt.c] == 0, ka, kb;
    (void)ctx;
    if (ia < 0 || ib < 0 || !m.slot[ia].has[srt.c] || !m.slot[ib].has[srt.c] || (va == NULL) != tag ||
        (vb == NULL) != tag ||
        (!tag && (memcmp(va, m.slot[ia].val[srt.c], comp_size[srt.c]) ||
                  memcmp(vb, m.slot[ib].val[srt.c], comp_size[srt.c])))) {
        srt.bad = 1;
        return 0;
    }
    ka = sort_key(a, va);
    kb = sort_key(b, vb);
    return srt.desc ? kb - ka : ka - kb;
}

/* Rows 0..n-1 of c are in key order, ties in their old order (before[]). */
static void check_sorted(int c, uint32_t n, const uint32_t *before) {
    const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[c]));
    const unsigned char *data = (const unsigned char *)ecs_storage_data(ecs_storage_of(m.w, m.comp[c]));
    uint32_t r;
    for (r = 0; r + 1 < n; r++) {
        const void *va = data ? data + r * comp_size[c] : NULL, *vb = data ? data + (r + 1) * comp_size[c] : NULL;
        int cmp = by_key(ents[r], va, ents[r + 1], vb, NULL);
        ENSURE(!srt.bad && cmp <= 0);
        if (cmp == 0) ENSURE(before[ECS_ENTITY_INDEX(ents[r])] < before[ECS_ENTITY_INDEX(ents[r + 1])]);
    }
}

static void op_sort(void) {
    static uint32_t before[MAX_SLOTS];
    static ecs_entity copy[MAX_SLOTS];
    const ecs_entity *ents;
    uint32_t r, n;
    int ok;
    srt.c = (int)(u8() % NC);
    srt.desc = (int)(u8() % 2);
    srt.bad = 0;
    n = ecs_storage_count(ecs_storage_of(m.w, m.comp[srt.c]));
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[srt.c]));
    for (r = 0; r < n; r++) before[ECS_ENTITY_INDEX(ents[r])] = r, copy[r] = ents[r];
    if (m.st[srt.c].owner) {
        EXPECT_ASSERT(!ecs_sort(m.w, m.comp[srt.c], by_key, NULL), ECS_ERR_INVALID);
        return;
    }
    ok = ecs_sort(m.w, m.comp[srt.c], by_key, NULL);
    ENSURE(!srt.bad);
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[srt.c]));
    if (!ok) { /* out of memory: nothing moved */
        ENSURE(OOM_OK());
        ENSURE(n == 0 || memcmp(ents, copy, n * sizeof *ents) == 0);
        return;
    }
    check_sorted(srt.c, n, before);
}

static void op_sort_as(void) {
    static ecs_entity want[MAX_SLOTS];
    int c = (int)(u8() % NC), o = (int)(u8() % NC);
    uint32_t r, n = 0, no = ecs_storage_count(ecs_storage_of(m.w, m.comp[o]));
    const ecs_entity *order = ecs_storage_entities(ecs_storage_of(m.w, m.comp[o])), *ents;
    if (m.st[c].owner) { /* only the group sorts its storages */
        EXPECT_ASSERT(!ecs_sort_as(m.w, m.comp[c], m.comp[o]), ECS_ERR_INVALID);
        return;
    }
    for (r = 0; r < no; r++)
        if (m.slot[ECS_ENTITY_INDEX(order[r])].has[c]) want[n++] = order[r];
    ENSURE(ecs_sort_as(m.w, m.comp[c], m.comp[o]));
    if (c == o) return;
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[c]));
    for (r = 0; r < n; r++) ENSURE(ents[r] == want[r]); /* the shared ones first, in order's order */
}

/* ---- tracking ------------------------------------------------------------------------- */
static void op_track(void) {
    int c = (int)(u8() % NC), k;
    uint32_t flags = u8() % 17, old = m.st[c].track;
    if (flags == 16) {
        EXPECT_ASSERT(!ecs_track_set(m.w, m.comp[c], 0x40 | (u8() & 15)), ECS_ERR_INVALID);
        return;
    }
    if (!ecs_track_set(m.w, m.comp[c], flags)) {
        ENSURE(OOM_OK());
        return;
    }
    for (k = 0; k < m.nlive; k++) { /* rows from before tracking count as neither */
        m_slot *s = &m.slot[m.live[k]];
        if ((flags & ECS_TRACK_INSERTION) && !(old & ECS_TRACK_INSERTION)) s->ins[c] = 0;
        if ((flags & ECS_TRACK_MODIFICATION) && !(old & ECS_TRACK_MODIFICATION)) s->mod[c] = 0;
    }
    if (!(flags & ECS_TRACK_REMOVAL)) m.st[c].removed.n = 0;
    if (!(flags & ECS_TRACK_DELETION)) m.st[c].deleted.n = 0;
    m.st[c].track = flags;
}

static void op_timestamp(void) {
    ecs_tick t = ecs_tick_advance(m.w);
    if (t != m.tick) fz_fail(__LINE__, "ecs_tick_advance %llu, model %llu", (unsigned long long)t, (unsigned long long)m.tick);
    m.tick++;
    m.ts[m.nts++ % NTS] = t;
}

static void m_clear(int c, uint32_t flags, ecs_tick t, int windows) {
    int first = c ? c - 1 : 0, last = c ? c - 1 : NC - 1, k;
    for (k = first; k <= last; k++) {
        if (windows && (flags & ECS_TRACK_INSERTION)) m.st[k].clear_ins = m.tick;
        if (windows && (flags & ECS_TRACK_MODIFICATION)) m.st[k].clear_mod = m.tick;
        if (flags & ECS_TRACK_REMOVAL) list_drop(&m.st[k].removed, t);
        if (flags & ECS_TRACK_DELETION) list_drop(&m.st[k].deleted, t);
    }
    if (flags & ECS_TRACK_ENTITIES) {
        list_drop(&m.created, t);
        list_drop(&m.destroyed, t);
    }
}

static void op_clear(void) {
    int c = (int)(u8() % (NC + 1));
    uint32_t flags = u8() & 31;
    ecs_clear_tracking(m.w, c ? m.comp[c - 1] : 0, flags);
    m_clear(c, flags, ~(ecs_tick)0, 1);
    m.tick++;
}

static void op_clear_older(void) {
    int c = (int)(u8() % (NC + 1));
    uint32_t flags = u8() & 31;
    ecs_tick t = m.nts && u8() % 2 ? m.ts[u8() % (unsigned)(m.nts < NTS ? m.nts : NTS)] : m.tick - u8() % 4;
    ecs_clear_tracking_older_than(m.w, c ? m.comp[c - 1] : 0, flags, t);
    m_clear(c, flags, t, 0);
}

/* Queries the catalogue says assert: storages that do not track, entity
   lists without track_entities, an entry not in the deleted list. */
static void op_query_bad(void) {
    int c = (int)(u8() % NC), i;
    ecs_entity e = pick_entity(&i);
    uint32_t n = 7, track = m.st[c].track;
    ecs_change fake;
    switch (u8() % 6) {
    case 0:
        if (track & ECS_TRACK_INSERTION)
            ENSURE(ecs_was_inserted(m.w, e, m.comp[c], 0) == (i >= 0 && m.slot[i].has[c] && m.slot[i].ins[c] > m.st[c].clear_ins));
        else
            EXPECT_ASSERT(!ecs_was_inserted(m.w, e, m.comp[c], 0), ECS_ERR_INVALID);
        break;
    case 1:
        if (track & ECS_TRACK_MODIFICATION)
            ENSURE(ecs_was_modified(m.w, e, m.comp[c], 0) == (i >= 0 && m.slot[i].has[c] && m.slot[i].mod[c] > m.st[c].clear_mod));
        else
            EXPECT_ASSERT(!ecs_was_modified(m.w, e, m.comp[c], 0), ECS_ERR_INVALID);
        break;
    case 2:
        if (!(track & ECS_TRACK_REMOVAL)) EXPECT_ASSERT(ecs_removed(m.w, m.comp[c], 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
        break;
    case 3:
        if (!(track & ECS_TRACK_DELETION)) {
            EXPECT_ASSERT(ecs_deleted(m.w, m.comp[c], 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
        } else {
            fake.entity = e;
            fake.tick = m.tick;
            EXPECT_ASSERT(ecs_deleted_value(m.w, m.comp[c], &fake) == NULL, ECS_ERR_INVALID);
        }
        break;
    case 4:
        if (!m.track_entities) {
            EXPECT_ASSERT(ecs_created(m.w, 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
            EXPECT_ASSERT(ecs_destroyed(m.w, 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
        }
        break;
    default:
        ENSURE(ecs_track_get(m.w, m.comp[c]) == track);
        break;
    }
}

/* ---- uniques ---------------------------------------------------------------------------- */
static void op_unique(void) {
    int c = (int)(u8() % NC);
    ecs_component cc = m.comp[c];
    unsigned char v[VMAX], out[VMAX];
    const void *src;
    void *p;
    switch (u8() % 6) {
    case 0:
    case 1: /* add or replace */
        src = pick_value(c, v);
        if (src && !comp_size[c]) src = NULL;
        if (c == 3 && src && u8() % 2) {
            S24 x;
            memcpy(&x, src, sizeof x);
            p = ECS_UNIQUE_ADD(m.w, cc, S24, {x.a, x.b, x.c});
        } else {
            p = ecs_unique_add(m.w, cc, src);
        }
        if (!p) {
            ENSURE(!m.uq[c].has && OOM_OK());
            return;
        }
        if (m.uq[c].has) {
            m.uq[c].mod = m.tick;
        } else {
            m.uq[c].has = 1;
            m.uq[c].ins = m.tick;
            m.uq[c].mod = 0;
        }
        memcpy(m.uq[c].val, v, VMAX);
        break;
    case 2: /* get: never marks; a missing one asserts */
        if (!m.uq[c].has) {
            EXPECT_ASSERT(ecs_unique_get(m.w, cc) == NULL, ECS_ERR_NOT_FOUND);
        } else {
            ENSURE(ecs_unique_get(m.w, cc) != NULL);
            if (c == 1) ENSURE(ECS_UNIQUE_GET(m.w, cc, I4) == ecs_unique_get(m.w, cc));
            if (c == 2) EXPECT_ASSERT(ECS_UNIQUE_GET(m.w, cc, S24) == NULL, ECS_ERR_SIZE_MISMATCH);
        }
        break;
    case 3: /* get_mut: marks; a write through it */
        if (!m.uq[c].has) {
            EXPECT_ASSERT(ecs_unique_get_mut(m.w, cc) == NULL, ECS_ERR_NOT_FOUND);
            break;
        }
        p = c == 3 ? (void *)ECS_UNIQUE_GET_MUT(m.w, cc, S24) : ecs_unique_get_mut(m.w, cc);
        ENSURE(p != NULL);
        gen_bytes(v, VMAX);
        if (comp_size[c]) memcpy(p, v, comp_size[c]), memcpy(m.uq[c].val, v, comp_size[c]);
        m.uq[c].mod = m.tick;
        break;
    case 4: /* remove */
        memset(out, 0xa5, sizeof out);
        ENSURE(ecs_unique_remove(m.w, cc, u8() % 2 ? out : NULL) == m.uq[c].has);
        if (m.uq[c].has && comp_size[c] && out[0] != 0xa5) ENSURE(memcmp(out, m.uq[c].val, comp_size[c]) == 0);
        m.uq[c].has = 0;
        break;
    default:
        ENSURE(ecs_unique_has(m.w, cc) == m.uq[c].has);
        break;
    }
}

/* ---- groups ------------------------------------------------------------------------------ */
static void op_group_new(void) {
    ecs_group_desc d;
    m_group g;
    unsigned owned = u8() % 64, excl = u8() % 64, rot = u8() % NC, bad = u8() % 8;
    int k, taken = 0, want_assert = 0;
    ecs_group id;
    if (m.ngroups >= MAX_GROUPS) return;
    memset(&d, 0, sizeof d);
    memset(&g, 0, sizeof g);
    excl &= ~owned;
    if (u8() % 2) excl &= 0x30; /* mostly tags excluded */
    for (k = 0; k < NC; k++) { /* rotated: owned[0] varies */
        int c = (int)((k + rot) % NC);
        if (owned >> c & 1) {
            g.owned_mask |= 1u << c;
            d.owned[g.nowned] = m.comp[c];
            g.owned[g.nowned++] = c;
            taken |= m.st[c].owner != 0;
        }
        if (excl >> c & 1) {
            g.excl_mask |= 1u << c;
            d.excluded[g.nexcl] = m.comp[c];
            g.excl[g.nexcl++] = c;
        }
    }
    if (bad == 0 && g.nowned) { /* listed twice */
        d.excluded[g.nexcl] = d.owned[0];
        want_assert = 1;
    }
    if (!g.nowned || taken) want_assert = 1;
    if (want_assert) {
        EXPECT_ASSERT(ecs_group_new(m.w, &d) == 0, ECS_ERR_INVALID);
        return;
    }
    id = ecs_group_new(m.w, &d);
    if (!id) {
        ENSURE(OOM_OK());
        return;
    }
    ENSURE(id == (ecs_group)(m.ngroups + 1));
    for (k = 0; k < g.nowned; k++) trace("group %u owns %s", (unsigned)id, comp_name[g.owned[k]]);
    for (k = 0; k < g.nexcl; k++) trace("group %u excludes %s", (unsigned)id, comp_name[g.excl[k]]);
    m.grp[m.ngroups++] = g;
    for (k = 0; k < g.nowned; k++) m.st[g.owned[k]].owner = (int)id;
}

static void op_group_sort(void) {
    static uint32_t before[MAX_SLOTS];
    static ecs_entity rest[NC][MAX_SLOTS];
    unsigned gi = u8() % (unsigned)(m.ngroups + 2);
    const m_group *g;
    uint32_t len, r, n[NC];
    int k, ok;
    if (gi == 0 || gi > (unsigned)m.ngroups) { /* no such group */
        EXPECT_ASSERT(ecs_group_count(m.w, gi ? (ecs_group)gi : 0) == 0, ECS_ERR_INVALID);
        return;
    }
    g = &m.grp[gi - 1];
    srt.c = (int)(u8() % NC);
    srt.desc = (int)(u8() % 2);
    srt.bad = 0;
    if (m.st[srt.c].owner != (int)gi) {
        EXPECT_ASSERT(!ecs_group_sort(m.w, (ecs_group)gi, m.comp[srt.c], by_key, NULL), ECS_ERR_INVALID);
        EXPECT_ASSERT(ecs_group_data(m.w, (ecs_group)gi, m.comp[srt.c]) == NULL, ECS_ERR_INVALID);
        return;
    }
    len = ecs_group_count(m.w, (ecs_group)gi);
    for (k = 0; k < g->nowned; k++) {
        const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[g->owned[k]]));
        n[k] = ecs_storage_count(ecs_storage_of(m.w, m.comp[g->owned[k]]));
        for (r = 0; r < n[k]; r++) {
            rest[k][r] = ents[r];
            if (g->owned[k] == srt.c) before[ECS_ENTITY_INDEX(ents[r])] = r;
        }
    }
    ok = ecs_group_sort(m.w, (ecs_group)gi, m.comp[srt.c], by_key, NULL);
    ENSURE(!srt.bad);
    if (!ok) ENSURE(OOM_OK());
    for (k = 0; k < g->nowned; k++) { /* rows past the group stay; nothing moves on failure */
        const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[g->owned[k]]));
        for (r = ok ? len : 0; r < n[k]; r++) ENSURE(ents[r] == rest[k][r]);
    }
    if (ok) check_sorted(srt.c, len, before);
}

static void op_hooks(void) {
    int c = (int)(u8() % NC), on = (int)(u8() % 2);
    ENSURE(ecs_hooks_set(m.w, m.comp[c], on ? &observer : NULL));
    m.st[c].hooks = on;
}

/* ---- bad input -------------------------------------------------------------------------- */
/* Calls the catalogue (section 2) says assert and fail; check_world()
   afterwards shows that they changed nothing. */
static void op_bad(void) {
    int i, c = (int)(u8() % NC), j = pick_live();
    ecs_entity e = pick_entity(&i), live = j >= 0 ? m.slot[j].id : ECS_NULL;
    ecs_component unknown = u8() % 2 ? 0 : (ecs_component)(NC + 1 + u8() % 5);
    ecs_component comps[3];
    unsigned char v[VMAX];
    memset(v, 7, sizeof v);
    comps[0] = m.comp[c];
    comps[1] = m.comp[(c + 1) % NC];
    comps[2] = m.comp[c]; /* listed twice */
    switch (u8() % 16) {
    case 0:
        if (i < 0) EXPECT_ASSERT(ecs_add(m.w, e, m.comp[c], v) == NULL, ECS_ERR_DEAD_ENTITY);
        break;
    case 1:
        if (i < 0 && c == 1) EXPECT_ASSERT(ECS_ADD(m.w, e, m.comp[c], I4, 5) == NULL, ECS_ERR_DEAD_ENTITY);
        if (i < 0) EXPECT_ASSERT(!ecs_add_n(m.w, e, 2, comps, NULL), ECS_ERR_DEAD_ENTITY);
        break;
    case 2:
        if (live) EXPECT_ASSERT(ecs_add(m.w, live, unknown, v) == NULL, ECS_ERR_UNKNOWN_COMPONENT);
        break;
    case 3: /* wrong sizeof */
        if (live && comp_size[c] != sizeof(S24)) {
            S24 x = {1, 2, 3};
            EXPECT_ASSERT(ECS_ADD(m.w, live, m.comp[c], S24, {1, 2, 3}) == NULL, ECS_ERR_SIZE_MISMATCH);
            EXPECT_ASSERT(ECS_ADD(m.w, live, m.comp[c], S24, x) == NULL, ECS_ERR_SIZE_MISMATCH);
            EXPECT_ASSERT(!ECS_REMOVE(m.w, live, m.comp[c], S24, &x), ECS_ERR_SIZE_MISMATCH);
            EXPECT_ASSERT(ECS_GET(m.w, live, m.comp[c], S24) == NULL, ECS_ERR_SIZE_MISMATCH);
            EXPECT_ASSERT(ECS_GET_MUT(m.w, live, m.comp[c], S24) == NULL, ECS_ERR_SIZE_MISMATCH);
            EXPECT_ASSERT(!ECS_ADD_IF_CHANGED(m.w, live, m.comp[c], S24, x), ECS_ERR_SIZE_MISMATCH);
        }
        break;
    case 4: /* a bundle with a component twice: all or nothing */
        if (live) EXPECT_ASSERT(!ecs_add_n(m.w, live, 3, comps, NULL), ECS_ERR_INVALID);
        break;
    case 5:
        EXPECT_ASSERT(ecs_create_n(m.w, 3, comps, NULL) == ECS_NULL, ECS_ERR_INVALID);
        break;
    case 6:
        EXPECT_ASSERT(!ecs_create_bulk(m.w, 1 + u8() % 4, 3, comps, NULL, NULL), ECS_ERR_INVALID);
        comps[1] = unknown;
        EXPECT_ASSERT(ecs_create_n(m.w, 2, comps, NULL) == ECS_NULL, ECS_ERR_UNKNOWN_COMPONENT);
        break;
    case 7:
        if (live) {
            EXPECT_ASSERT(!ecs_remove(m.w, live, unknown, NULL), ECS_ERR_UNKNOWN_COMPONENT);
            EXPECT_ASSERT(!ecs_delete(m.w, live, unknown), ECS_ERR_UNKNOWN_COMPONENT);
            EXPECT_ASSERT(!ecs_has(m.w, live, unknown), ECS_ERR_UNKNOWN_COMPONENT);
            EXPECT_ASSERT(ecs_get(m.w, live, unknown) == NULL, ECS_ERR_UNKNOWN_COMPONENT);
        }
        break;
    case 8:
        if (i < 0) EXPECT_ASSERT(!ecs_add_if_changed(m.w, e, m.comp[c], v), ECS_ERR_DEAD_ENTITY);
        break;
    case 9:
        EXPECT_ASSERT(!ecs_sort(m.w, unknown, by_key, NULL), ECS_ERR_UNKNOWN_COMPONENT);
        EXPECT_ASSERT(!ecs_sort_as(m.w, m.comp[c], unknown), ECS_ERR_UNKNOWN_COMPONENT);
        break;
    case 10:
        EXPECT_ASSERT(!ecs_track_set(m.w, unknown, ECS_TRACK_ALL), ECS_ERR_UNKNOWN_COMPONENT);
        EXPECT_ASSERT(ecs_storage_of(m.w, unknown) == NULL, ECS_ERR_UNKNOWN_COMPONENT);
        EXPECT_ASSERT(ecs_component_name(m.w, unknown) == NULL, ECS_ERR_UNKNOWN_COMPONENT);
        break;
    case 11:
        EXPECT_ASSERT(ecs_unique_add(m.w, unknown, v) == NULL, ECS_ERR_UNKNOWN_COMPONENT);
        EXPECT_ASSERT(!ecs_defer_remove(m.w, live, unknown), ECS_ERR_UNKNOWN_COMPONENT);
        break;
    case 12: /* registration: same name and size is the same id; another size is refused */
        ENSURE(ecs_register(m.w, comp_name[c], comp_size[c], comp_align[c]) == m.comp[c]);
        ENSURE(ecs_lookup(m.w, comp_name[c]) == m.comp[c] && ecs_lookup(m.w, "nope") == 0);
        EXPECT_ASSERT(ecs_register(m.w, comp_name[c], comp_size[c] + 8, 8) == 0, ECS_ERR_INVALID);
        EXPECT_ASSERT(ecs_register(m.w, "odd", 6, 4) == 0, ECS_ERR_INVALID);
        ENSURE(ecs_component_max(m.w) == NC && ecs_component_size(m.w, m.comp[c]) == comp_size[c]);
        break;
    case 13: /* stale ids miss quietly */
        if (i < 0) {
            ENSURE(!ecs_destroy(m.w, e) && ecs_strip(m.w, e) == 0 && !ecs_alive(m.w, e));
            ENSURE(!ecs_remove(m.w, e, m.comp[c], v) && !ecs_delete(m.w, e, m.comp[c]));
            ENSURE(!ecs_has(m.w, e, m.comp[c]) && ecs_get(m.w, e, m.comp[c]) == NULL);
            ENSURE(ecs_get_mut(m.w, e, m.comp[c]) == NULL && !ecs_mark_modified(m.w, e, m.comp[c]));
            ENSURE(ecs_last_error(m.w) == ECS_OK);
        }
        break;
    case 14:
        if (m.ngroups) {
            int g = (int)(u8() % (unsigned)m.ngroups), k, owned = 0;
            for (k = 0; k < m.grp[g].nowned; k++) owned |= m.grp[g].owned[k] == c;
            if (!owned) EXPECT_ASSERT(ecs_group_data(m.w, (ecs_group)(g + 1), m.comp[c]) == NULL, ECS_ERR_INVALID);
        }
        break;
    default: {
        ecs_group_desc d;
        memset(&d, 0, sizeof d);
        d.excluded[0] = m.comp[c];
        EXPECT_ASSERT(ecs_group_new(m.w, &d) == 0, ECS_ERR_INVALID); /* none owned */
        d.owned[0] = unknown ? unknown : (ecs_component)(NC + 1);
        EXPECT_ASSERT(ecs_group_new(m.w, &d) == 0, ECS_ERR_UNKNOWN_COMPONENT);
        break;
    }
    }
}

/* Arms the allocator: the k-th allocation of the next op fails. */
static void op_oom(void) { al.armed = 1 + (long)(u8() % 6); }

/* ---- the op table ---------------------------------------------------------------------- */
typedef void (*op_fn)(void);
static void op_remove0(void) { op_remove(0); }
static void op_delete(void) { op_remove(1); }

static const struct {
    const char *name;
    op_fn fn;
    int weight;
} OPS[] = {
    {"create", op_create, 8},
    {"create_with", op_create_with, 8},
    {"create_bulk", op_create_bulk, 2},
    {"destroy", op_destroy, 8},
    {"destroy_many", op_destroy_many, 1},
    {"add", op_add, 22},
    {"remove", op_remove0, 8},
    {"delete", op_delete, 6},
    {"strip", op_strip, 3},
    {"add_n", op_add_n, 8},
    {"get", op_get, 8},
    {"mark_modified", op_mark, 3},
    {"set_if_changed", op_set_if_changed, 5},
    {"view", op_view, 14},
    {"view_bad", op_view_bad, 2},
    {"view_changes", op_view_changes, 6},
    {"defer", op_defer, 8},
    {"flush", op_flush, 4},
    {"sort", op_sort, 3},
    {"sort_as", op_sort_as, 3},
    {"track", op_track, 3},
    {"timestamp", op_timestamp, 8},
    {"clear_tracking", op_clear, 4},
    {"clear_older_than", op_clear_older, 3},
    {"query_bad", op_query_bad, 3},
    {"unique", op_unique, 8},
    {"group_new", op_group_new, 2},
    {"group_sort", op_group_sort, 3},
    {"hooks", op_hooks, 2},
    {"bad_input", op_bad, 4},
    {"arm_oom", op_oom, 6},
};
#define NOPS ((int)(sizeof OPS / sizeof OPS[0]))
static unsigned char op_table[256];

static void build_table(void) {
    int total = 0, k, b = 0;
    for (k = 0; k < NOPS; k++) total += OPS[k].weight;
    for (k = 0; k < NOPS; k++) {
        int n = (OPS[k].weight * 256 + total / 2) / total, j;
        fz_op_names[k] = OPS[k].name;
        for (j = 0; j < n && b < 256; j++) op_table[b++] = (unsigned char)k;
    }
    while (b < 256) op_table[b++] = 5; /* add */
}

/* Keeps the tracking lists short, so checking all of them after every op stays cheap. */
static int lists_long(void) {
    int c;
    if (m.created.n > LIST_MAX || m.destroyed.n > LIST_MAX) return 1;
    for (c = 0; c < NC; c++)
        if (m.st[c].removed.n > LIST_MAX || m.st[c].deleted.n > LIST_MAX) return 1;
    return 0;
}

int fz_run_input(const uint8_t *data, size_t size) {
    static int built;
    int ops = 0;
    if (!built) {
        build_table();
        m.trace = getenv("FUZZ_TRACE") != NULL;
        m.skip_known = getenv("FUZZ_SKIP_KNOWN") != NULL;
        built = 1;
    }
    m.in = data;
    m.n = size;
    m.at = 0;
    m.op = 0;
    m.opname = NULL;
    world_new();
    check_world();
    while (m.at < m.n) {
        int k = op_table[u8()], oom;
        m.op++;
        if (lists_long()) {
            m.opname = "clear_tracking (lists full)";
            ecs_clear_tracking(m.w, 0, ECS_TRACK_ALL | ECS_TRACK_ENTITIES);
            m_clear(0, ECS_TRACK_ALL | ECS_TRACK_ENTITIES, ~(ecs_tick)0, 1);
            m.tick++;
            check_world();
        }
        m.opname = OPS[k].name;
        if (m.trace) fprintf(stderr, "op #%ld %s (at %lu)\n", m.op, m.opname, (unsigned long)m.at);
        ecs_clear_error(m.w);
        oom = OPS[k].fn == op_oom;
        al.failed = 0;
        OPS[k].fn();
        if (!oom) al.armed = 0; /* armed for one op only */
        al.failed = 0;
        fz_op_count[k]++;
        fz_total_ops++;
        ops++;
        check_world();
    }
    m.opname = "ecs_world_free";
    world_free();
    return ops;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_run_input(data, size);
    return 0;
}

/* ---- without libFuzzer: replay files, or a fixed-seed random driver -------------------- */
#ifdef FUZZ_MAIN
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long replayed_files, replayed_ops, failed_files;

static long replay_file(const char *path) {
    long ops;
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long len;
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    snprintf(m.where, sizeof m.where, "%s (replay it: FUZZ_TRACE=1 build/fuzz/fuzz_replay %s)", path, path);
    ops = fz_run_input(buf, (size_t)len);
    free(buf);
    return ops;
}

/* Each file in a child process, so one crash does not hide the others. */
static void replay_file_forked(const char *path) {
    int status = 0;
    pid_t pid;
    int fd[2];
    long ops = 0;
    fflush(stdout);
    fflush(stderr);
    if (pipe(fd) != 0 || (pid = fork()) < 0) { /* no fork: in this process */
        replayed_ops += replay_file(path);
        replayed_files++;
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        ops = replay_file(path);
        if (write(fd[1], &ops, sizeof ops) != (ssize_t)sizeof ops) _exit(3);
        _exit(0);
    }
    close(fd[1]);
    if (read(fd[0], &ops, sizeof ops) != (ssize_t)sizeof ops) ops = 0;
    close(fd[0]);
    waitpid(pid, &status, 0);
    replayed_files++;
    replayed_ops += ops;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        failed_files++;
        printf("FAIL  %s\n", path);
    }
}

static void replay_path(const char *path) {
    struct stat st;
    DIR *d;
    struct dirent *ent;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "no such file or directory: %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        replay_file_forked(path);
        return;
    }
    if (!(d = opendir(path))) exit(2);
    while ((ent = readdir(d)) != NULL) {
        char sub[4096];
        if (ent->d_name[0] == '.') continue;
        snprintf(sub, sizeof sub, "%s/%s", path, ent->d_name);
        replay_path(sub);
    }
    closedir(d);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (unsigned)((rng * 2685821657736338717ull) >> 33) % n;
}

/* Random inputs from a fixed seed until `target` ops ran; each input is a
   fresh world. Inputs are short or long (a long one grows big worlds).
   FUZZ_DUMP=file writes each input there before running it. */
static int random_driver(long target, unsigned long long seed) {
    static unsigned char buf[16384];
    long inputs = 0;
    int k;
    clock_t t0 = clock();
    double secs;
    const char *dump = getenv("FUZZ_DUMP");
    rng = seed ? seed : 1;
    while (fz_total_ops < target) {
        size_t len = rnd(4) ? 16 + rnd(1024) : 1024 + rnd(sizeof buf - 1024), j;
        for (j = 0; j < len; j++) buf[j] = (unsigned char)rnd(256);
        snprintf(m.where, sizeof m.where,
                 "random input %ld of seed %llu (FUZZ_DUMP=file saves it for FUZZ_TRACE=1 fuzz_replay file)", inputs, seed);
        if (dump) { /* the input about to run: left behind if it crashes */
            FILE *f = fopen(dump, "wb");
            if (!f || fwrite(buf, 1, len, f) != len) exit(2);
            fclose(f);
        }
        fz_run_input(buf, len);
        inputs++;
    }
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("random driver: seed %llu, %ld inputs, %ld ops, %.1f s, every op checked against the model\n", seed,
           inputs, fz_total_ops, secs);
    for (k = 0; k < 64 && fz_op_names[k]; k++) printf("  %-18s %9ld\n", fz_op_names[k], fz_op_count[k]);
    printf("RESULT 1 0\n");
    return 0;
}

int main(int argc, char **argv) {
    int k;
    if (argc >= 2 && strcmp(argv[1], "--random") == 0)
        return random_driver(argc > 2 ? atol(argv[2]) : 1000000, argc > 3 ? strtoull(argv[3], NULL, 0) : 1);
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...   (replay inputs)\n"
                        "       %s --random [OPS [SEED]]   (fixed-seed random driver)\n", argv[0], argv[0]);
        return 2;
    }
    for (k = 1; k < argc; k++) replay_path(argv[k]);
    printf("replayed %ld inputs, %ld ops, every op checked against the model; %ld failed\n", replayed_files,
           replayed_ops, failed_files);
    printf("RESULT %ld %ld\n", replayed_files - failed_files, failed_files);
    return failed_files != 0;
}
#endif
