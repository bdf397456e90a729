/* fuzz_model.c - model-based fuzzer for ecs.h.

   Input bytes drive a sequence of API calls on a world and on a naive
   reference model of it (plain arrays: which entities live and their ids,
   which components each has with what bytes, the insertion/modification
   ticks, the removed / deleted / created / destroyed lists, the uniques,
   the groups, the queued commands, the systems and workloads). After every
   call the whole world is compared with the model (check_world). Any
   divergence, unexpected ECS_ASSERT, leak or sanitizer report is a crash
   (abort()).

   One interpreter, fz_run_input(), and three ways in:
     - LLVMFuzzerTestOneInput: libFuzzer (make fuzz, mk/fuzz.mk);
     - built with -DFUZZ_MAIN, main() replays files or directories
       (make test replays tests/fuzz/corpus), or
     - `--random OPS SEED` feeds random inputs from a fixed seed until OPS
       operations ran (make test: 10^6).

   Input format. The first two bytes pick the world: entity tracking on or
   off, an allocator with or without a realloc hook, desc.max_entities,
   initial tracking flags per storage, which storages have (observing)
   hooks, and (bit 7 of the second byte) the mode. Then each op is one byte
   (a weighted table over OPS below) and its parameters are the bytes after
   it; past the end every byte reads 0. The components: sizes 1, 4, 8 and
   24 and two tags, and in the full mode up to four more that the input
   registers as it goes (sizes 2, 16, 12 and a tag).

   Two modes. Legacy (bit 7 clear): the ops and the byte layout of the first
   version of this fuzzer, so old inputs keep their meaning. Full (bit 7
   set) adds:
     - forged ids: a quarter of entity arguments are ids the model never
       handed out or no longer holds - a live id with the version's top bit
       set, version + 1, version - 1, version 0 or ~0, a free slot's next
       version, an index past the slots, one bit flipped, 64 random bits, 0
       (ecs.h section 4: any such value is a stale id: reads NULL/false,
       destroy false, add fails with ECS_ERR_DEAD_ENTITY and changes
       nothing, so ecs_count and the next ecs_create are as before);
       check_world also probes such ids after every op;
     - re-entrancy: hooks (on_insert / on_remove), sort comparators
       (ecs_sort, ecs_group_sort), systems and run_if callbacks of a
       running workload make API calls drawn from the input (any op of the
       NESTED column below: structural changes, flush, commands, register,
       sorts, groups, track_set, hooks_set, system_new, workload_new,
       workload_run, world_free...), to a depth of MAX_DEPTH callbacks;
     - systems and workloads (ecs_system_new, ecs_workload_new,
       ecs_workload_run: plan, ticks, last_run, run_if, failing systems);
     - ecs_register mid-run (the storage array grows under callbacks).

   The rules of callbacks (ecs.h sections 2, 9, 12, 14), as the model knows
   them. Inside a hook of storage S: inserting into or removing from S, and
   the storages of the groups S is owned by, is refused with ECS_ERR_LOCKED
   (an assert); so are destroy and strip of an entity whose hook is running
   or that is being stripped, adding to an entity being stripped, ecs_sort,
   ecs_group_sort (*), ecs_hooks_set and ecs_track_set (*) of a locked storage,
   ecs_flush (*, refused with nothing dropped), ecs_workload_run (*) and
   ecs_world_free (*, the world stays). Inside a comparator the storages
   being sorted are locked, and ecs_flush, ecs_workload_run and
   ecs_world_free are refused (*). Inside a system (or run_if) of a running
   workload, ecs_system_new and ecs_workload_new are refused with
   ECS_ERR_LOCKED (*), a nested ecs_workload_run with ECS_ERR_INVALID, and
   ecs_world_free (*). Everything else is allowed and must be correct.
   (*) marks the rules added with ecs.h 0.2's callback rules: the fuzzer
   makes those calls only when FUZZ_NEW_RULES is on (the macro, default 1,
   or the environment variable FUZZ_NEW_RULES=0/1); with it off they are
   left out, since an ecs.h without those rules crashes on them.

   How the model follows callbacks. Every call that can run a callback
   pushes a frame: the list of its effects in the order ecs.h makes them
   (creations, inserts, the on_insert hooks due, on_remove then the removal,
   strips expanded component by component, flushed commands one by one,
   sort locks, workload batches with their ticks, systems and flushes).
   The model applies a frame's effects lazily: when a callback arrives it
   applies everything up to that callback, which must be the next one the
   model expects (a hook of the wrong entity or component, one too many or
   one missing is a crash), so that the model equals the world inside every
   callback and the callback's own calls are checked like top-level ones;
   the rest is applied when the call returns. A call that fails must have
   run no callback (all-or-nothing).

   Programmer errors: ECS_ASSERT is redirected to a recorder. Only calls
   whose assert behaviour is documented (the bad-input catalogue of ecs.h
   section 2, the rules above) are driven; each must assert exactly once
   and leave the documented error code; any other assert is a crash. Out
   of memory: an op arms the allocator to fail the k-th allocation of the
   next call (until its first callback); that call must succeed, or fail
   with ECS_ERR_OUT_OF_MEMORY having changed nothing (the all-or-nothing
   rules), except where ecs.h documents otherwise (a destroy whose free
   queue cannot grow retires its slot; a flush stops and keeps the rest
   queued).

   Environment: FUZZ_TRACE=1 prints every op (nested ones indented, and the
   views and changes of view loops); FUZZ_DUMP=file (random driver) writes
   each input to file before running it, so a crash leaves its input
   behind; FUZZ_NEW_RULES=0 leaves out the calls of rules marked (*);
   FUZZ_SKIP_KNOWN=1 steers around the known ecs.h bugs below, so a fuzzing
   run can look for new ones.

   Known bugs (tests/fuzz/corpus/known-bug-*): see KNOWN BUGS below. */
#ifdef FUZZ_MAIN
#define _POSIX_C_SOURCE 200809L /* fork, pipe, waitpid for the replay */
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_NEW_RULES
#define FUZZ_NEW_RULES 1
#endif

/* ---- asserts ------------------------------------------------------------ */
static struct {
    int expecting; /* > 0: the call being made may assert */
    int count;     /* asserts seen while expecting */
    char msg[1024];
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
#define NC 6     /* B1, I4, D8, S24, and the tags TA, TB: registered first */
#define NCMAX 10 /* and up to four more, registered by the input (extra[]) */
#define VMAX 24  /* the largest component */
typedef uint8_t B1;
typedef uint32_t I4;
typedef uint64_t D8;
typedef struct { uint64_t a, b, c; } S24; /* no padding: compound literals copy every byte */

/* component ci has id ci + 1 (ids are handed out in registration order) */
static const char *comp_name[NCMAX] = {"B1", "I4", "D8", "S24", "TA", "TB"};
static size_t comp_size[NCMAX] = {sizeof(B1), sizeof(I4), sizeof(D8), sizeof(S24), 0, 0};
static size_t comp_align[NCMAX] = {ECS_ALIGNOF(B1), ECS_ALIGNOF(I4), ECS_ALIGNOF(D8), ECS_ALIGNOF(S24), 0, 0};
static const struct {
    const char *name;
    size_t size, align;
} extra[NCMAX - NC] = {{"E2", 2, 2}, {"E16", 16, 8}, {"ET", 0, 0}, {"E12", 12, 4}};

/* ---- bounds ---------------------------------------------------------------- */
#define MAX_SLOTS 512   /* entity indices the model holds */
#define MAX_LIVE 128    /* live entities at most */
#define MAX_BULK 40
#define NDEAD 16        /* recently destroyed ids, for stale-id calls */
#define LIST_MAX 96     /* a tracking list longer than this is cleared first */
#define MAX_PENDING 48  /* queued commands */
#define MAX_GROUPS 3
#define NTS 8           /* recent timestamps, for `since` arguments */
#define MAX_DEPTH 3     /* callbacks inside callbacks */
#define OP_BUDGET 48    /* nested calls per top-level op */
#define MAX_FRAMES 32
#define MAX_BUSY 32
#define MAX_SORTS 8
#define MAX_SYS 6
#define MAX_WL 4
#define MAX_STEPS 16

/* ---- KNOWN BUGS --------------------------------------------------------------
   Open ecs.h bugs this fuzzer found: none. When there is one, its minimized
   reproducer goes to tests/fuzz/corpus/known-bug-<n>-<what>, which make
   test replays (and which fails until ecs.h is fixed), and a condition
   `if (SKIP_BUG(n)) ...` leaves out the calls that hit it when
   FUZZ_SKIP_KNOWN=1 (so that a run can look for new ones; make test's
   other runs set it); FUZZ_ONLY_BUG=n leaves out all known bugs but n (to
   minimize its reproducer: make fuzz-minimize FUZZ_BUG=n).

   Found by this version and fixed since, their inputs kept as regress-*:
   - ecs_add_n moved a storage in which it only replaced a value: the
     bundle reserved a row in every storage it named, so a full storage
     grew and its values moved (section 15: a replace never moves them);
     inside a hook of that storage, the hook's value pointer dangled
     (regress-add-n-replace-moves: on_insert(e0, B1) of an ecs_create_bulk
     calls ecs_add_n(e11, {..., B1}); fixed in d0f7128);
   - ecs_register leaked the new storage's sparse page table when the
     allocation of its name failed (regress-register-oom-leak: create, arm
     out-of-memory, register; fixed in d0f7128);
   - ecs_destroy/ecs_strip inside a sort comparator, with no storage
     observed and no hook running, took the one-pass path that checks no
     lock and popped rows of the storage being sorted, which ended with an
     entity twice and another's row lost (regress-destroy-in-comparator;
     fixed in a6f1fa1);
   - ecs_defer_destroy/_remove/_delete recorded commands for ids never
     handed out, and ecs_flush applied them to a later entity that got that
     very id: in an empty world ecs_defer_destroy(0:1), ecs_defer_create
     (which hands out 0:1), ecs_flush destroyed it (regress-defer-stale-id;
     fixed in d24f0cd). The model accepts either answer for such a call:
     refused with no error, or recorded and never applied.
   Found by the first version: destroying the current entity of a view
   over a group-owned storage joined the group for a moment
   (regress-destroy-current-joins-group). */

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
    unsigned char has[NCMAX];
    unsigned mask; /* bit c: has[c] */
    unsigned char val[NCMAX][VMAX];
    ecs_tick ins[NCMAX], mod[NCMAX];
} m_slot;

typedef struct {
    int op; /* 0 destroy, 1 add, 2 remove, 3 delete */
    ecs_entity e;
    int c;
    int stale; /* e was not alive when recorded: it never takes effect */
    unsigned char v[VMAX];
} m_cmd;

typedef struct {
    int nowned, nexcl;
    int owned[NCMAX], excl[NCMAX];
    unsigned owned_mask, excl_mask;
} m_group;

typedef struct {
    int structural, run_if, nreads, nwrites;
    int reads[4], writes[4]; /* component indices */
    ecs_tick last_run;
} m_sys;

typedef struct {
    int n, nbatch;
    int step[MAX_STEPS];  /* the system of each step */
    int batch[MAX_STEPS]; /* its batch */
} m_wl;

/* A sort in flight: its comparator's state and what it locks. */
typedef struct sortctx {
    int c, desc, bad, dirty, calls;
    unsigned lockmask; /* the storages it sorts */
    unsigned movemask; /* storages whose changes move rows of those (their groups') */
    uint32_t before[MAX_SLOTS];
} sortctx;

/* hooks installed on a storage */
#define H_INS 1
#define H_REM 2

static struct {
    ecs_world *w;
    int ncomp;
    ecs_component comp[NCMAX];
    int count[NCMAX]; /* live entities with c */
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
        int hooks; /* H_INS | H_REM */
        int owner; /* group id or 0 */
    } st[NCMAX];
    struct {
        int has;
        unsigned char val[VMAX];
        ecs_tick ins, mod;
    } uq[NCMAX];
    m_group grp[MAX_GROUPS];
    int ngroups;
    m_cmd pending[MAX_PENDING];
    int npending;
    int inflight; /* flushed commands being applied (ecs_defer_pending still counts them) */
    /* what runs now: callbacks, their locks and the entities they hold */
    int lockcnt[NCMAX];
    struct {
        ecs_entity e;
        int strip;
    } busy[MAX_BUSY];
    int nbusy, nstrip;
    int guard;   /* hooks, strips and sorts running (the world's guard) */
    int running; /* a workload runs */
    int clock_locked; /* the systems of a batch of several run: the clock stays */
    int batch_locked; /* ...and nothing structural: every storage locked, the guard held */
    int depth;   /* callbacks in flight */
    int budget;  /* nested calls left for this op */
    int no_reentry;
    sortctx *sorts[MAX_SORTS];
    int nsorts;
    struct {
        const char *what; /* the callbacks in flight, for messages */
        ecs_entity e;
        int c; /* the hook's component, or -1 */
    } cb[MAX_DEPTH + 2];
    /* systems and workloads */
    m_sys sys[MAX_SYS];
    int nsys;
    m_wl wl[MAX_WL];
    int nwl, default_wl;
    /* the input */
    const uint8_t *in;
    size_t n, at;
    long op;
    const char *opname;
    int v2;        /* the full mode (forged ids, re-entrancy, systems) */
    int new_rules; /* FUZZ_NEW_RULES */
    int trace;
    unsigned skip_known; /* bit n: steer around known bug n (FUZZ_SKIP_KNOWN, FUZZ_ONLY_BUG) */
    unsigned probe; /* rotates the forged-id probes of check_world */
    char where[160]; /* which input, for the failure message */
} m;

#define SKIP_BUG(n) (m.skip_known >> (n) & 1u)

/* statistics for the driver's report */
static long fz_op_count[64];
static const char *fz_op_names[64];
static long fz_total_ops, fz_nested_ops, fz_refused[16], fz_forged, fz_callbacks[4];

static void fz_fail(int line, const char *fmt, ...) {
    va_list ap;
    int k;
    fprintf(stderr, "fuzz_model.c:%d: op #%ld (%s), %d live: ", line, m.op, m.opname ? m.opname : "setup", m.nlive);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    for (k = 0; k < m.depth && k < MAX_DEPTH + 2; k++)
        if (m.cb[k].c >= 0)
            fprintf(stderr, "  inside %s(%llx, %s)\n", m.cb[k].what, (unsigned long long)m.cb[k].e, comp_name[m.cb[k].c]);
        else
            fprintf(stderr, "  inside %s\n", m.cb[k].what);
    if (m.w && ecs_last_error(m.w)) fprintf(stderr, "  last error: %s\n", ecs_last_error_msg(m.w));
    if (fa.msg[0]) fprintf(stderr, "  last assert: %s\n", fa.msg);
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
        fz_refused[(int)(code) & 15]++;                                                        \
        ecs_clear_error(m.w);                                                                  \
    } while (0)

/* The call failed: only fine when an armed allocation failed in it. */
#define OOM_OK() (al.failed && ecs_last_error(m.w) == ECS_ERR_OUT_OF_MEMORY)

static void trace(const char *fmt, ...) {
    va_list ap;
    if (!m.trace) return;
    va_start(ap, fmt);
    fprintf(stderr, "%*s    ", 4 * m.depth, "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ---- reading the input ------------------------------------------------------ */
static unsigned u8(void) { return m.at < m.n ? m.in[m.at++] : 0; }
static unsigned u16(void) { return u8() | u8() << 8; }
static int pick_comp(void) { return (int)(u8() % (unsigned)m.ncomp); }

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

/* A change the sorts in flight care about: a value of the key storage
   (value_only), or a row that comes or goes in a storage whose changes
   move rows of a sorted one. Such a sort's order is not checked. */
static void m_touch(int c, int value_only) {
    int k;
    for (k = 0; k < m.nsorts; k++) {
        sortctx *s = m.sorts[k];
        if (c == s->c && comp_size[c]) s->dirty = 1;
        if (!value_only && (s->movemask >> c & 1u)) s->dirty = 1;
    }
}

static void m_insert(int i, int c, const void *v) {
    if (!m.slot[i].has[c]) m.count[c]++;
    m.slot[i].has[c] = 1;
    m.slot[i].mask |= 1u << c;
    memset(m.slot[i].val[c], 0, VMAX);
    if (v) memcpy(m.slot[i].val[c], v, comp_size[c]);
    m.slot[i].ins[c] = m.tick;
    m.slot[i].mod[c] = 0;
    m_touch(c, 0);
}
static void m_replace(int i, int c, const void *v) {
    memset(m.slot[i].val[c], 0, VMAX);
    if (v) memcpy(m.slot[i].val[c], v, comp_size[c]);
    m.slot[i].mod[c] = m.tick;
    m_touch(c, 1);
}
static void m_set(int i, int c, const void *v) {
    if (m.slot[i].has[c])
        m_replace(i, c, v);
    else
        m_insert(i, c, v);
}
static void m_take(int i, int c, int deletion) {
    if (deletion && (m.st[c].track & ECS_TRACK_DELETION))
        list_push(&m.st[c].deleted, m.slot[i].id, m.tick, m.slot[i].val[c]);
    if (!deletion && (m.st[c].track & ECS_TRACK_REMOVAL)) list_push(&m.st[c].removed, m.slot[i].id, m.tick, NULL);
    m.slot[i].has[c] = 0;
    m.slot[i].mask &= ~(1u << c);
    m.count[c]--;
    m_touch(c, 0);
}
/* The end of a destroy, once its components are gone. retire: the free
   queue could not grow (out of memory), the slot is never reused. */
static void m_release(int i, int retire) {
    int at = m.live_at[i], c;
    for (c = 0; c < m.ncomp; c++)
        if (m.slot[i].has[c]) fz_fail(__LINE__, "destroyed %llx still has %s", (unsigned long long)m.slot[i].id, comp_name[c]);
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

/* ---- what runs: locks and busy entities ------------------------------------------ */
/* c's storage refuses rows to come or go: one of its hooks or a sort of it
   runs, or - while any hook, strip or sort runs - it belongs (owned or
   excluded) to a group that owns such a storage (a change would make an
   entity join or leave the group: move rows there). Without the new rules:
   only while a hook or strip runs. */
static int m_locked(int c) {
    int g, k;
    if (m.lockcnt[c]) return 1;
    if (!(m.new_rules ? m.guard : m.nbusy)) return 0;
    for (g = 0; g < m.ngroups; g++) {
        const m_group *gp = &m.grp[g];
        if (!((gp->owned_mask | gp->excl_mask) >> c & 1u)) continue;
        for (k = 0; k < gp->nowned; k++)
            if (m.lockcnt[gp->owned[k]]) return 1;
    }
    return 0;
}
/* e is inside a hook or being stripped (strip_only: being stripped). */
static int m_busy(ecs_entity e, int strip_only) {
    int k;
    for (k = 0; k < m.nbusy; k++)
        if (m.busy[k].e == e && (!strip_only || m.busy[k].strip)) return 1;
    return 0;
}
static void busy_push(ecs_entity e, int strip) {
    ENSURE(m.nbusy < MAX_BUSY);
    m.busy[m.nbusy].e = e;
    m.busy[m.nbusy++].strip = strip;
    m.nstrip += strip;
    m.guard++;
}
static void busy_pop(void) {
    ENSURE(m.nbusy > 0);
    m.nstrip -= m.busy[--m.nbusy].strip;
    m.guard--;
}
static int m_any_lock(void) {
    int c;
    if (m.guard || m.nbusy) return 1;
    for (c = 0; c < m.ncomp; c++)
        if (m.lockcnt[c]) return 1;
    return 0;
}

/* ---- frames: the effects of a call in flight, in ecs.h's order ------------------ */
enum {
    EF_CREATE,     /* e is created */
    EF_SET,        /* e gets c = v (insert or replace) */
    EF_HOOK_INS,   /* on_insert(e, c), if e has c and c has the hook then (flag: replaced, no hook) */
    EF_HOOK_REM,   /* on_remove(e, c), likewise; none for a value whose on_insert is to come */
    EF_TAKE,       /* e loses c, if it still has it (flag: deletion; out: compare) */
    EF_STRIP,      /* strip e (flag: destroy it after): expands when reached */
    EF_BUSY_POP,   /* the strip is done */
    EF_RELEASE,    /* e's slot is released */
    EF_FLUSH_NEXT, /* the next queued command, while more than stop_pending are queued */
    EF_CMD_DONE,   /* a flushed command is done */
    EF_LOCK,       /* a sort locks its storages */
    EF_CMP,        /* comparators, any number */
    EF_UNLOCK,
    EF_BATCH,      /* batch n of the workload: expands when reached */
    EF_ADVANCE,    /* the tick moves on */
    EF_RUNIF,      /* run_if of system c */
    EF_SYS,        /* system c (flag: it has a run_if, which decides) */
    EF_BATCH_END,  /* after batch n and its flush */
    EF_RUN_END,
    EF_MARK        /* a bundle's entity e: the n EF_HOOK_INS after it mark their storages, if unmarked */
};
static const char *const ef_name[] = {"create", "set", "on_insert", "on_remove", "take", "strip", "strip done",
                                      "release", "flush next", "command done", "lock", "comparator", "unlock",
                                      "batch", "advance", "run_if", "system", "batch end", "run end", "mark"};

typedef struct {
    int kind, c, flag, n;
    ecs_entity e;
    unsigned char v[VMAX];
    unsigned char *out;
    sortctx *sort;
} effect;

typedef struct {
    const char *what;
    effect *it;
    int n, cap, at;
    uint32_t taken;        /* strip: components it took */
    uint32_t applied;      /* flush: commands that took effect */
    uint32_t stop_pending; /* flush: commands it leaves queued */
    int retire;            /* destroy: the slot was retired */
    int wl, rc, failed_sys, runif_ok;
    ecs_tick now;          /* workload: the batch's tick */
    sortctx *sort;
} frame;

static frame frames[MAX_FRAMES];
static int nframes;

static frame *fr_top(void) { return nframes ? &frames[nframes - 1] : NULL; }

static frame *fr_push(const char *what) {
    frame *f;
    if (nframes >= MAX_FRAMES) fz_fail(__LINE__, "too many calls in flight");
    f = &frames[nframes++];
    f->what = what;
    f->n = f->at = 0;
    f->taken = f->applied = f->stop_pending = 0;
    f->retire = f->rc = f->runif_ok = 0;
    f->wl = f->failed_sys = -1;
    f->sort = NULL;
    return f;
}

/* count zeroed items at `at` (replacing `replace` items there) */
static effect *fr_splice(frame *f, int at, int replace, int count) {
    int need = f->n - replace + count;
    if (need > f->cap) {
        f->cap = need < 64 ? 64 : 2 * need;
        f->it = (effect *)realloc(f->it, (size_t)f->cap * sizeof *f->it);
        if (!f->it) abort();
    }
    memmove(f->it + at + count, f->it + at + replace, (size_t)(f->n - at - replace) * sizeof *f->it);
    memset(f->it + at, 0, (size_t)count * sizeof *f->it);
    f->n = need;
    return f->it + at;
}
static effect *fr_add(frame *f, int kind, ecs_entity e, int c) {
    effect *x = fr_splice(f, f->n, 0, 1);
    x->kind = kind;
    x->e = e;
    x->c = c;
    return x;
}
static void fr_set(frame *f, ecs_entity e, int c, const unsigned char *v) {
    effect *x = fr_add(f, EF_SET, e, c);
    memcpy(x->v, v, VMAX);
}

static void check_out(const unsigned char *out, int i, int c) {
    if (comp_size[c]) {
        if (memcmp(out, m.slot[i].val[c], comp_size[c]) != 0)
            fz_fail(__LINE__, "the value ecs_remove gave out for %s of %llx differs from the model", comp_name[c],
                    (unsigned long long)m.slot[i].id);
    } else {
        ENSURE(out[0] == 0xa5); /* a tag leaves *out untouched */
    }
    ENSURE(out[comp_size[c]] == 0xa5);
}

/* The strip of e begins: its components now, in id order, each on_remove
   then gone; then the slot, for a destroy. */
static void expand_strip(frame *f) {
    effect x = f->it[f->at], *y;
    int i = slot_of(x.e), c, k = 0, n = 0;
    if (i < 0) fz_fail(__LINE__, "%s: strip of %llx, which is not alive", f->what, (unsigned long long)x.e);
    for (c = 0; c < m.ncomp; c++) n += m.slot[i].has[c];
    y = fr_splice(f, f->at, 1, 2 * n + 1 + x.flag);
    for (c = 0; c < m.ncomp; c++) {
        if (!m.slot[i].has[c]) continue;
        y[k].kind = EF_HOOK_REM, y[k].e = x.e, y[k++].c = c;
        y[k].kind = EF_TAKE, y[k].e = x.e, y[k].flag = 1, y[k++].c = c;
    }
    y[k++].kind = EF_BUSY_POP;
    if (x.flag) y[k].kind = EF_RELEASE, y[k].e = x.e;
    busy_push(x.e, 1);
}

/* The flush reaches the next queued command. */
static void expand_cmd(frame *f) {
    m_cmd cmd = m.pending[0];
    int i = cmd.stale ? -1 : slot_of(cmd.e), c, n = 0;
    effect *y;
    memmove(m.pending, m.pending + 1, (size_t)(m.npending - 1) * sizeof *m.pending);
    m.npending--;
    m.inflight++;
    if (i >= 0 && cmd.op == 0) { /* destroy: nothing may refuse it here (no hook or sort runs) */
        ENSURE(!m_busy(cmd.e, 0));
        for (c = 0; c < m.ncomp; c++) ENSURE(!m.slot[i].has[c] || !m_locked(c));
        y = fr_splice(f, f->at, 1, 3);
        y[0].kind = EF_STRIP, y[0].e = cmd.e, y[0].flag = 1;
        n = 1;
    } else if (i >= 0 && cmd.op == 1) {
        ENSURE(m.slot[i].has[cmd.c] || (!m_locked(cmd.c) && !m_busy(cmd.e, 1)));
        n = m.slot[i].has[cmd.c] ? 1 : 2; /* a replace runs no hook */
        y = fr_splice(f, f->at, 1, n + 2);
        y[0].kind = EF_SET, y[0].e = cmd.e, y[0].c = cmd.c;
        memcpy(y[0].v, cmd.v, VMAX);
        if (n == 2) y[1].kind = EF_HOOK_INS, y[1].e = cmd.e, y[1].c = cmd.c;
    } else if (i >= 0 && m.slot[i].has[cmd.c]) {
        ENSURE(!m_locked(cmd.c));
        y = fr_splice(f, f->at, 1, 4);
        y[0].kind = EF_HOOK_REM, y[0].e = cmd.e, y[0].c = cmd.c;
        y[1].kind = EF_TAKE, y[1].e = cmd.e, y[1].c = cmd.c, y[1].flag = cmd.op == 3;
        n = 2;
    } else { /* died (or lost the component) before its turn */
        y = fr_splice(f, f->at, 1, 2);
    }
    if (i >= 0 && (cmd.op <= 1 || m.slot[i].has[cmd.c])) f->applied++;
    y[n].kind = EF_CMD_DONE;
    y[n + 1].kind = EF_FLUSH_NEXT;
}

/* The systems of a batch of several run: nothing structural (section 15),
   as in a hook of every storage. */
static void batch_lock(int on) {
    int k;
    m.batch_locked = on;
    m.guard += on ? 1 : -1;
    for (k = 0; k < m.ncomp; k++) m.lockcnt[k] += on ? 1 : -1;
}

/* A workload's batch b: a new tick, its systems in order (each after its
   run_if), the flush. */
static void expand_batch(frame *f, int b) {
    const m_wl *w = &m.wl[f->wl];
    int s, k = 0, n = 0;
    effect *y;
    for (s = 0; s < w->n; s++)
        if (w->batch[s] == b) n += 1 + m.sys[w->step[s]].run_if;
    y = fr_splice(f, f->at, 1, n + 3);
    for (s = 0; s < w->n; s++) y[0].flag += w->batch[s] == b; /* (2 or more: the clock is locked) */
    y[k++].kind = EF_ADVANCE;
    for (s = 0; s < w->n; s++) {
        int sy = w->step[s];
        if (w->batch[s] != b) continue;
        if (m.sys[sy].run_if) y[k].kind = EF_RUNIF, y[k].n = s, y[k++].c = sy;
        y[k].kind = EF_SYS, y[k].n = s, y[k].flag = m.sys[sy].run_if, y[k++].c = sy;
    }
    y[k].flag = 1; /* the batch's own flush: the clock is free again */
    y[k++].kind = EF_FLUSH_NEXT;
    y[k].kind = EF_BATCH_END, y[k].n = b;
}

static void batch_end(frame *f, int b) {
    effect *y;
    if (!f->rc && b + 1 < m.wl[f->wl].nbatch) {
        y = fr_splice(f, f->at, 1, 1);
        y->kind = EF_BATCH, y->n = b + 1;
        return;
    }
    y = fr_splice(f, f->at, 1, 2); /* stops after a failing system's batch */
    y[0].kind = EF_ADVANCE;
    y[1].kind = EF_RUN_END;
}

/* A removal of e's c takes the marks of the bundles in flight whose hook
   for it is still to come (ecs__unmark): true when one inserted it. */
static int unmark(ecs_entity e, int c) {
    int k, j, fresh = 0;
    for (k = 0; k < nframes; k++)
        for (j = frames[k].at; j < frames[k].n; j++) {
            effect *y = &frames[k].it[j];
            if (y->kind == EF_HOOK_INS && y->n == 1 && y->e == e && y->c == c) y->n = 4, fresh |= !y->flag;
        }
    return fresh;
}

/* Applies f's effects up to the next callback the world must make; returns
   it (not consumed), or NULL when nothing is left. */
static effect *fr_next(frame *f) {
    for (;;) {
        effect *x;
        int i, k;
        if (f->at >= f->n) return NULL;
        x = &f->it[f->at];
        i = slot_of(x->e);
        switch (x->kind) {
        case EF_CREATE: m_create(x->e); break;
        case EF_SET:
            if (i < 0) fz_fail(__LINE__, "%s: %llx died before its %s was set", f->what, (unsigned long long)x->e, comp_name[x->c]);
            m_set(i, x->c, x->v);
            break;
        case EF_HOOK_INS: /* n: 1 marked by its EF_MARK, 2 its turn came, 4 a removal took the mark */
            if (x->n == 1) x->n = 2;
            if (x->n != 4 && !x->flag && i >= 0 && m.slot[i].has[x->c] && (m.st[x->c].hooks & H_INS)) return x;
            break;
        case EF_HOOK_REM: /* n: 1 looked, 2 the value's on_insert was to come: no on_remove */
            if (!x->n) x->n = i >= 0 && m.slot[i].has[x->c] && unmark(x->e, x->c) ? 2 : 1;
            if (x->n == 1 && i >= 0 && m.slot[i].has[x->c] && (m.st[x->c].hooks & H_REM)) return x;
            break;
        case EF_MARK:
            for (k = 1; k <= x->n; k++)
                if (m.st[x[k].c].hooks & H_INS) x[k].n = 1;
            break;
        case EF_TAKE:
            if (i >= 0 && m.slot[i].has[x->c]) {
                if (x->out) check_out(x->out, i, x->c);
                m_take(i, x->c, x->flag);
                f->taken++;
            }
            break;
        case EF_STRIP: expand_strip(f); continue;
        case EF_BUSY_POP: busy_pop(); break;
        case EF_RELEASE:
            if (i < 0) fz_fail(__LINE__, "%s: %llx died before its destroy ended", f->what, (unsigned long long)x->e);
            m_release(i, f->retire);
            break;
        case EF_FLUSH_NEXT:
            if (x->flag) m.clock_locked = 0; /* (the flush after a batch runs alone; not one a system makes) */
            if (x->flag && m.batch_locked) batch_lock(0);
            if ((uint32_t)m.npending > f->stop_pending) {
                expand_cmd(f);
                continue;
            }
            break;
        case EF_CMD_DONE: m.inflight--; break;
        case EF_LOCK:
            for (k = 0; k < m.ncomp; k++) m.lockcnt[k] += (int)(x->sort->lockmask >> k & 1u);
            ENSURE(m.nsorts < MAX_SORTS);
            m.sorts[m.nsorts++] = x->sort;
            m.guard++;
            break;
        case EF_CMP: return x;
        case EF_UNLOCK:
            for (k = 0; k < m.ncomp; k++) m.lockcnt[k] -= (int)(x->sort->lockmask >> k & 1u);
            ENSURE(m.nsorts > 0 && m.sorts[m.nsorts - 1] == x->sort);
            m.nsorts--;
            m.guard--;
            break;
        case EF_BATCH: expand_batch(f, x->n); continue;
        case EF_ADVANCE:
            f->now = ++m.tick, m.clock_locked = x->flag >= 2;
            if (x->flag >= 2) batch_lock(1);
            break;
        case EF_RUNIF: return x;
        case EF_SYS:
            if (!x->flag || f->runif_ok) return x;
            break;
        case EF_BATCH_END: batch_end(f, x->n); continue;
        case EF_RUN_END: m.running = 0; break;
        default: fz_fail(__LINE__, "bad effect %d", x->kind);
        }
        f->at++;
    }
}

static const char *effect_str(const effect *x, char *buf, size_t n) {
    if (!x) return "nothing";
    snprintf(buf, n, "%s(%llx, %s)", ef_name[x->kind], (unsigned long long)x->e,
             x->kind == EF_SYS || x->kind == EF_RUNIF ? "system" : comp_name[x->c] ? comp_name[x->c] : "?");
    return buf;
}

/* The call returned successfully: the rest of its effects. */
static void fr_finish(frame *f) {
    effect *x;
    char buf[96];
    ENSURE(f == fr_top());
    while ((x = fr_next(f)) != NULL) {
        if (x->kind == EF_CMP) {
            f->at++;
            continue;
        }
        fz_fail(__LINE__, "%s returned, but %s never came", f->what, effect_str(x, buf, sizeof buf));
    }
    nframes--;
}
/* The call failed: it must have changed nothing, so no callback ran. */
static void fr_drop(frame *f) {
    ENSURE(f == fr_top());
    if (f->at) fz_fail(__LINE__, "%s failed after running callbacks (not all-or-nothing)", f->what);
    nframes--;
}

/* A callback arrived: it must be the next one the innermost call in flight
   makes. Returns that call's frame (the callback consumed). */
static frame *cb_expect(int kind, ecs_entity e, int c, const char *what) {
    frame *f = fr_top();
    effect *x;
    char buf[96];
    if (!f) fz_fail(__LINE__, "%s: a callback while no call is in flight", what);
    x = fr_next(f);
    if (!x || x->kind != kind || x->e != e || x->c != c)
        fz_fail(__LINE__, "%s(%llx, %s): unexpected callback during %s, the model expects %s", what,
                (unsigned long long)e, kind == EF_SYS || kind == EF_RUNIF ? "system" : comp_name[c], f->what,
                effect_str(x, buf, sizeof buf));
    if (kind != EF_CMP) f->at++;
    return f;
}

/* ---- picking entities -------------------------------------------------------- */
static int pick_live(void) {
    unsigned b = u8();
    return m.nlive ? (int)m.live[b % (unsigned)m.nlive] : -1;
}

/* An id nobody holds (section 4: treated like a stale one). */
static ecs_entity pick_forged(unsigned b) {
    int i = m.nlive ? (int)m.live[u8() % (unsigned)m.nlive] : -1, k;
    uint32_t idx = i >= 0 ? (uint32_t)i : 0, ver = i >= 0 ? m.slot[i].version : 1;
    static const uint32_t odd_versions[5] = {0, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xfffffffeu};
    ecs_entity e;
    switch (b % 14) {
    case 0: return ECS_NULL;
    case 1:
    case 2:
        if (m.ndead) return m.dead[u8() % (unsigned)(m.ndead < NDEAD ? m.ndead : NDEAD)];
        return ECS_NULL;
    case 3: return ((ecs_entity)(ver | 0x80000000u) << 32) | idx;  /* the version's top bit */
    case 4: return ((ecs_entity)(ver + 1) << 32) | idx;
    case 5: return ((ecs_entity)(ver - 1) << 32) | idx;              /* 0 for a first version */
    case 6: return ((ecs_entity)(1 + u8() % 2) << 32) | (m.nslots + u8() % 4); /* past the slots */
    case 7: return ((ecs_entity)(1 + u8() % 3) << 32) | (0xfffffff0u + u8() % 16);
    case 8: /* 64 random bits */
        e = 0;
        for (k = 0; k < 8; k++) e = e << 8 | u8();
        return e;
    case 9:
    case 10: /* a free slot: the version its next entity gets, or the raw dead mark */
        if (m.fq_len) {
            uint32_t f = m.fq[(m.fq_head + (int)(u8() % (unsigned)m.fq_len)) % MAX_SLOTS];
            return ((ecs_entity)(m.slot[f].version | (b % 14 == 10 ? 0x80000000u : 0)) << 32) | f;
        }
        return ((ecs_entity)ver << 32) | (idx + 0x10000u);
    case 11: return ((ecs_entity)odd_versions[u8() % 5] << 32) | idx;
    case 12: return ((ecs_entity)idx << 32) | ver; /* index and version swapped */
    default: return (((ecs_entity)ver << 32) | idx) ^ ((ecs_entity)1 << (u8() % 64)); /* one bit flipped */
    }
}

/* Mostly a live entity (*slot >= 0), else a dead, null, never-created or
   wrong-version id (*slot = -1 unless it happens to be a live one). */
static ecs_entity pick_entity(int *slot) {
    unsigned b = u8();
    uint32_t i;
    ecs_entity e;
    *slot = -1;
    if (m.v2) {
        if (b < 192 && m.nlive) {
            *slot = (int)m.live[b % (unsigned)m.nlive];
            return m.slot[*slot].id;
        }
        e = pick_forged(b);
        *slot = slot_of(e);
        fz_forged++;
        return e;
    }
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

/* ---- callbacks ------------------------------------------------------------------- */
static void check_world(void);
static void nested_op(void);

/* A callback makes calls of its own, drawn from the input (the full mode). */
static void callback_ops(const char *what, ecs_entity e, int c, int most) {
    unsigned b;
    int n, k;
    al.armed = 0; /* an armed allocation is for the call's own work, before its first callback */
    if (!m.v2 || m.no_reentry || m.depth >= MAX_DEPTH || m.budget <= 0 || !m.w) return;
    b = u8();
    n = b < 150 ? 0 : b < 215 ? 1 : b < 245 ? 2 : most;
    if (!n) return;
    m.cb[m.depth].what = what;
    m.cb[m.depth].e = e;
    m.cb[m.depth++].c = c;
    if (m.trace) {
        if (c >= 0)
            trace("%s(%llx, %s): %d call(s)", what, (unsigned long long)e, comp_name[c], n);
        else
            trace("%s: %d call(s)", what, n);
    }
    for (k = 0; k < n && m.budget > 0; k++) {
        int failed = al.failed;
        m.budget--;
        al.failed = 0;
        ecs_clear_error(m.w);
        nested_op();
        al.armed = 0;
        al.failed = failed;
        ecs_clear_error(m.w);
        check_world(); /* inside the callback, the model equals the world */
    }
    al.armed = 0;
    m.depth--;
}

static void hook_cb(int ins, ecs_world *w, ecs_entity e, ecs_component c, void *value) {
    int ci = (int)c - 1, i;
    const char *what = ins ? "on_insert" : "on_remove";
    ENSURE(w == m.w && ci >= 0 && ci < m.ncomp);
    cb_expect(ins ? EF_HOOK_INS : EF_HOOK_REM, e, ci, what);
    fz_callbacks[0]++;
    i = slot_of(e);
    ENSURE(i >= 0 && m.slot[i].has[ci] && ecs_alive(w, e) && ecs_has(w, e, c));
    ENSURE(value == (void *)ecs_get(w, e, c)); /* on_remove: still readable */
    if (comp_size[ci] && memcmp(value, m.slot[i].val[ci], comp_size[ci]) != 0)
        fz_fail(__LINE__, "%s(%llx, %s): the value differs from the model", what, (unsigned long long)e, comp_name[ci]);
    /* the hook runs: its storage is locked, its entity busy */
    m.lockcnt[ci]++;
    busy_push(e, 0);
    callback_ops(what, e, ci, 3);
    /* nothing moved the hook's row: its value is where it was */
    if (!ecs_alive(w, e) || value != (void *)ecs_get(w, e, c))
        fz_fail(__LINE__, "%s(%llx, %s): after the hook's calls its value moved (or the entity lost it)", what,
                (unsigned long long)e, comp_name[ci]);
    busy_pop();
    m.lockcnt[ci]--;
}
static void hook_insert(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)user;
    hook_cb(1, w, e, c, value);
}
static void hook_remove(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)user;
    hook_cb(0, w, e, c, value);
}
static const ecs_hooks hook_sets[4] = {{NULL, NULL, NULL, NULL},
                                       {hook_insert, NULL, NULL, NULL},
                                       {NULL, hook_remove, NULL, NULL},
                                       {hook_insert, hook_remove, NULL, NULL}};

/* Few distinct keys, so stability shows: a value's first byte mod 4, a
   tag's entity index mod 5. */
static int sort_key(const sortctx *s, ecs_entity e, const void *v) {
    return comp_size[s->c] ? ((const unsigned char *)v)[0] % 4 : (int)(ECS_ENTITY_INDEX(e) % 5);
}
/* Compares as the comparator does, checking what it is given against the model. */
static int sort_cmp(sortctx *s, ecs_entity a, const void *va, ecs_entity b, const void *vb) {
    int ia = slot_of(a), ib = slot_of(b), tag = comp_size[s->c] == 0, ka, kb;
    if (ia < 0 || ib < 0 || !m.slot[ia].has[s->c] || !m.slot[ib].has[s->c] || (va == NULL) != tag ||
        (vb == NULL) != tag ||
        (!tag && (memcmp(va, m.slot[ia].val[s->c], comp_size[s->c]) ||
                  memcmp(vb, m.slot[ib].val[s->c], comp_size[s->c])))) {
        s->bad = 1;
        return 0;
    }
    ka = sort_key(s, a, va);
    kb = sort_key(s, b, vb);
    return s->desc ? kb - ka : ka - kb;
}
static int by_key(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    sortctx *s = (sortctx *)ctx;
    frame *f = fr_top();
    effect *x;
    int r;
    if (!f) fz_fail(__LINE__, "a comparator while no call is in flight");
    x = fr_next(f);
    if (!x || x->kind != EF_CMP || x->sort != s)
        fz_fail(__LINE__, "a comparator ran during %s, which runs none (a sort the model expects refused?)", f->what);
    r = sort_cmp(s, a, va, b, vb);
    fz_callbacks[1]++;
    if (s->calls++ < 4) callback_ops("comparator", 0, -1, 2);
    return r;
}

static const char *const sys_names[MAX_SYS] = {"s0", "s1", "s2", "s3", "s4", "s5"};
static const char *const wl_names[MAX_WL] = {"w0", "w1", "w2", "w3"};

static frame *sys_expect(int kind, const ecs_system_ctx *ctx) {
    int k = (int)(intptr_t)ctx->user;
    frame *f;
    ENSURE(k >= 0 && k < m.nsys && ctx->world == m.w && strcmp(ctx->name, sys_names[k]) == 0);
    f = cb_expect(kind, 0, k, kind == EF_SYS ? "system" : "run_if");
    if (ctx->last_run != m.sys[k].last_run || ctx->now != f->now)
        fz_fail(__LINE__, "system %s: last_run %llu now %llu, model %llu %llu", ctx->name,
                (unsigned long long)ctx->last_run, (unsigned long long)ctx->now,
                (unsigned long long)m.sys[k].last_run, (unsigned long long)f->now);
    return f;
}
static int sys_fn(const ecs_system_ctx *ctx) {
    int k = (int)(intptr_t)ctx->user, ret;
    frame *f = sys_expect(EF_SYS, ctx);
    fz_callbacks[2]++;
    callback_ops(sys_names[k], 0, -1, 4);
    ret = u8() % 32 == 31 ? 1 + (int)(u8() % 3) : 0;
    m.sys[k].last_run = ctx->now;
    if (ret && !f->rc) f->rc = ret, f->failed_sys = k;
    return ret;
}
static bool sys_run_if(const ecs_system_ctx *ctx) {
    frame *f = sys_expect(EF_RUNIF, ctx);
    fz_callbacks[3]++;
    callback_ops("run_if", 0, -1, 2);
    f->runif_ok = u8() % 4 != 0;
    return f->runif_ok != 0;
}

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

/* An id the model does not hold reads as stale everywhere. */
static void probe_stale(ecs_entity e) {
    int c;
    if (slot_of(e) >= 0) return;
    if (ecs_alive(m.w, e)) fz_fail(__LINE__, "ecs_alive(%llx): true for an id never handed out or destroyed", (unsigned long long)e);
    for (c = 0; c < m.ncomp; c++) {
        const ecs_storage *s = ecs_storage_of(m.w, m.comp[c]);
        if (ecs_has(m.w, e, m.comp[c]) || ecs_get(m.w, e, m.comp[c]) != NULL || ecs_storage_has(s, e) ||
            ecs_storage_get(s, e) != NULL || ecs_get_mut(m.w, e, m.comp[c]) != NULL)
            fz_fail(__LINE__, "stale id %llx reads %s", (unsigned long long)e, comp_name[c]);
    }
}
/* A few ids nobody holds, different ones each time: variants of a live
   id, a free slot's next version, slots past the end. */
static void check_forged(void) {
    static const uint32_t odd[9] = {0x80000000u, 1, 0xffffffffu, 0, 0xffffffffu, 0x7fffffffu, 0xfffffffeu, 2, 0x80000001u};
    unsigned p = m.probe++, k;
    if (m.nlive) {
        uint32_t i = m.live[p % (unsigned)m.nlive], v = m.slot[i].version;
        for (k = 0; k < 3; k++) { /* odd[0..2] are relative: top bit, +1, -1 */
            unsigned j = (p + k) % 9;
            uint32_t fv = j == 0 ? v | 0x80000000u : j == 1 ? v + 1 : j == 2 ? v - 1 : odd[j];
            probe_stale(((ecs_entity)fv << 32) | i);
        }
    }
    if (m.fq_len) {
        uint32_t i = m.fq[(m.fq_head + (int)(p % (unsigned)m.fq_len)) % MAX_SLOTS];
        probe_stale(((ecs_entity)(m.slot[i].version | (p & 1 ? 0x80000000u : 0)) << 32) | i);
    }
    switch (p % 4) {
    case 0: probe_stale(((ecs_entity)1 << 32) | m.nslots); break;
    case 1: probe_stale(((ecs_entity)1 << 32) | 4096u); break;
    case 2: probe_stale(((ecs_entity)1 << 32) | 0xffffffffu); break;
    default: probe_stale(ECS_NULL); break;
    }
}

static void check_world(void) {
    static uint32_t seen[MAX_SLOTS], stamp;
    int k, c, g;
    ecs_tick since = last_ts();
    stamp++;
    ENSURE(ecs_count(m.w) == (uint32_t)m.nlive);
    if (ecs_defer_pending(m.w) != (uint32_t)(m.npending + m.inflight))
        fz_fail(__LINE__, "%u commands queued, model %d", (unsigned)ecs_defer_pending(m.w), m.npending + m.inflight);
    ENSURE(ecs_component_max(m.w) == (uint32_t)m.ncomp);
    for (k = 0; k < m.ndead && k < NDEAD; k++) ENSURE(slot_of(m.dead[k]) >= 0 || !ecs_alive(m.w, m.dead[k]));
    /* each storage holds exactly the model's entities, with their values
       and stamps, and every sparse entry points at its row */
    for (c = 0; c < m.ncomp; c++) {
        ecs_component cc = m.comp[c];
        const ecs_storage *s = ecs_storage_of(m.w, cc);
        uint32_t n = ecs_storage_count(s), r, track = m.st[c].track;
        const ecs_entity *ents = ecs_storage_entities(s);
        const unsigned char *data = (const unsigned char *)ecs_storage_data(s);
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
                if (ecs_get(m.w, e, cc) != (const void *)(data + r * size) ||
                    ecs_storage_get(s, e) != (const void *)(data + r * size))
                    fz_fail(__LINE__, "%s row %u: ecs_get of %llx points elsewhere", comp_name[c], (unsigned)r,
                            (unsigned long long)e);
                if (memcmp(data + r * size, m.slot[i].val[c], size) != 0)
                    fz_fail(__LINE__, "%s: value of %llx differs", comp_name[c], (unsigned long long)e);
            } else {
                ENSURE(ecs_get(m.w, e, cc) != NULL && ecs_storage_get(s, e) != NULL);
            }
            ENSURE(ecs_storage_has(s, e));
            if (track & ECS_TRACK_INSERTION) {
                if (ecs_track_inserted(m.w, e, cc, 0) != (m.slot[i].ins[c] > m.st[c].clear_ins))
                    fz_fail(__LINE__, "%s: was_inserted(%llx, 0) is %d; model stamp %llu, window %llu",
                            comp_name[c], (unsigned long long)e, !!ecs_track_inserted(m.w, e, cc, 0),
                            (unsigned long long)m.slot[i].ins[c], (unsigned long long)m.st[c].clear_ins);
                if (since) ENSURE(ecs_track_inserted(m.w, e, cc, since) == (m.slot[i].ins[c] > since));
            }
            if (track & ECS_TRACK_MODIFICATION) {
                if (ecs_track_modified(m.w, e, cc, 0) != (m.slot[i].mod[c] > m.st[c].clear_mod))
                    fz_fail(__LINE__, "%s: was_modified(%llx, 0) is %d; model stamp %llu, window %llu",
                            comp_name[c], (unsigned long long)e, !!ecs_track_modified(m.w, e, cc, 0),
                            (unsigned long long)m.slot[i].mod[c], (unsigned long long)m.st[c].clear_mod);
                if (since) ENSURE(ecs_track_modified(m.w, e, cc, since) == (m.slot[i].mod[c] > since));
            }
        }
        /* lists */
        if (track & ECS_TRACK_REMOVAL) {
            uint32_t nn, ns;
            const ecs_change *all = ecs_track_removed(m.w, cc, 0, &nn), *part;
            check_list(all, nn, &m.st[c].removed, "removed");
            part = ecs_track_removed(m.w, cc, since, &ns);
            check_since(all, part, ns, &m.st[c].removed, since);
        } else {
            ENSURE(m.st[c].removed.n == 0);
        }
        if (track & ECS_TRACK_DELETION) {
            uint32_t nn, ns, j;
            const ecs_change *all = ecs_track_deleted(m.w, cc, 0, &nn), *part;
            check_list(all, nn, &m.st[c].deleted, "deleted");
            for (j = 0; j < nn; j++) {
                const void *v = ecs_track_deleted_value(m.w, cc, all + j);
                ENSURE(v != NULL);
                if (size && memcmp(v, m.st[c].deleted.values + (size_t)j * VMAX, size) != 0)
                    fz_fail(__LINE__, "%s: deleted value %u of %llx differs", comp_name[c], (unsigned)j,
                            (unsigned long long)all[j].entity);
            }
            part = ecs_track_deleted(m.w, cc, since, &ns);
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
        ENSURE(ecs_track_unique_inserted(m.w, cc, 0) == (m.uq[c].has && m.uq[c].ins > m.st[c].clear_ins));
        ENSURE(ecs_track_unique_modified(m.w, cc, 0) == (m.uq[c].has && m.uq[c].mod > m.st[c].clear_mod));
        if (since) {
            ENSURE(ecs_track_unique_inserted(m.w, cc, since) == (m.uq[c].has && m.uq[c].ins > since));
            ENSURE(ecs_track_unique_modified(m.w, cc, since) == (m.uq[c].has && m.uq[c].mod > since));
        }
    }
    /* every live entity: alive, and lacking what the model says it lacks
       (what it has, the rows above found through the same lookup) */
    for (k = 0; k < m.nlive; k++) {
        const m_slot *s = &m.slot[m.live[k]];
        ENSURE(ecs_alive(m.w, s->id));
        for (c = 0; c < m.ncomp; c++)
            if (!s->has[c] && ecs_has(m.w, s->id, m.comp[c]))
                fz_fail(__LINE__, "ecs_has(%llx, %s) is true, the model says it lacks it", (unsigned long long)s->id,
                        comp_name[c]);
    }
    /* entity lists */
    if (m.track_entities) {
        uint32_t nn, ns;
        const ecs_change *all = ecs_track_created(m.w, 0, &nn), *part;
        check_list(all, nn, &m.created, "created");
        part = ecs_track_created(m.w, since, &ns);
        check_since(all, part, ns, &m.created, since);
        all = ecs_track_destroyed(m.w, 0, &nn);
        check_list(all, nn, &m.destroyed, "destroyed");
        part = ecs_track_destroyed(m.w, since, &ns);
        check_since(all, part, ns, &m.destroyed, since);
    }
    /* groups: rows 0..len-1 of every owned storage are exactly the
       matching entities, in the same order (an entity being stripped may
       match a group it is not in: section 13) */
    for (g = 0; g < m.ngroups; g++) {
        const m_group *gp = &m.grp[g];
        uint32_t len = ecs_group_count(m.w, (ecs_group)(g + 1)), r, members = 0, stripped = 0;
        const ecs_entity *e0 = ecs_storage_entities(ecs_storage_of(m.w, m.comp[gp->owned[0]]));
        for (k = 0; k < m.nlive; k++) {
            int i = (int)m.live[k], match = m_group_match(gp, i);
            members += (uint32_t)match;
            stripped += (uint32_t)(match && m.nstrip && m_busy(m.slot[i].id, 1));
        }
        if (len > members || len + stripped < members)
            fz_fail(__LINE__, "group %d: %u rows, model %u members", g + 1, (unsigned)len, (unsigned)members);
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
                if (i < 0 || !m_group_match(gp, i))
                    fz_fail(__LINE__, "group %d: row %u holds %llx, which does not match it", g + 1, (unsigned)r,
                            (unsigned long long)ents[r]);
            }
        }
    }
    if (!m.depth) check_forged(); /* (top level only: inside callbacks the calls use forged ids) */
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
    for (c = 0; c < NCMAX; c++) {
        list_free(&m.st[c].removed);
        list_free(&m.st[c].deleted);
    }
    for (c = NC; c < NCMAX; c++) comp_name[c] = NULL, comp_size[c] = comp_align[c] = 0;
    memset(&m.slot, 0, sizeof m.slot);
    m.nslots = 0;
    m.fq_head = m.fq_len = 0;
    m.nlive = m.ndead = m.nts = m.ngroups = m.npending = m.inflight = 0;
    memset(m.count, 0, sizeof m.count);
    memset(m.st, 0, sizeof m.st);
    memset(m.uq, 0, sizeof m.uq);
    memset(m.lockcnt, 0, sizeof m.lockcnt);
    m.nbusy = m.nstrip = m.guard = m.running = m.clock_locked = m.batch_locked = m.depth = m.no_reentry = m.nsorts = 0;
    m.nsys = m.nwl = 0;
    m.default_wl = -1;
    m.ncomp = NC;
    nframes = 0;
}

static void world_new(void) {
    static const uint32_t maxes[4] = {0, 24, 100, 0};
    unsigned b0 = u8(), b1 = u8();
    ecs_desc d;
    int c;
    memset(&d, 0, sizeof d);
    model_reset();
    memset(&al, 0, sizeof al);
    m.v2 = (b1 & 0x80) != 0;
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
            ENSURE(ecs_hooks_set(m.w, m.comp[c], &hook_sets[H_INS | H_REM]));
            m.st[c].hooks = H_INS | H_REM;
        }
    }
}

static void world_free(void) {
    int c;
    /* ecs_world_free destroys the entities first when on_remove hooks are
       set (tests/test_entity_ops.c pins that); the model does not follow
       a whole-world destroy, so the hooks go first */
    for (c = 0; c < m.ncomp; c++) ENSURE(ecs_hooks_set(m.w, m.comp[c], NULL));
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
    int which[NCMAX];
    ecs_component comps[NCMAX + 1];
    unsigned char vals[NCMAX][VMAX];
    const void *vp[NCMAX + 1];
    int null_values; /* the values array itself is NULL */
} bundle;

static void pick_bundle(bundle *b, int min) {
    int order[NCMAX], j, t;
    for (j = 0; j < m.ncomp; j++) order[j] = j;
    for (j = m.ncomp - 1; j > 0; j--) {
        int k = (int)(u8() % (unsigned)(j + 1));
        t = order[j], order[j] = order[k], order[k] = t;
    }
    b->n = (uint32_t)min + u8() % (unsigned)(m.ncomp + 1 - min);
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

/* ecs_create_n (single) or ecs_create_bulk of count entities with bundle b. */
static void do_create_bulk(uint32_t count, const bundle *b, int single, int use_out) {
    ecs_entity out[MAX_BULK], want[MAX_BULK], e = ECS_NULL;
    int exhausted = m_exhausted(count), ok, j;
    uint32_t k;
    frame *f;
    for (j = 0; j < (int)b->n; j++)
        if (m_locked(b->which[j])) {
            if (single)
                EXPECT_ASSERT(ecs_create_n(m.w, b->n, b->comps, bundle_values(b)) == ECS_NULL, ECS_ERR_LOCKED);
            else
                EXPECT_ASSERT(!ecs_create_bulk(m.w, count, b->n, b->comps, bundle_values(b), NULL), ECS_ERR_LOCKED);
            return;
        }
    f = fr_push(single ? "ecs_create_n" : "ecs_create_bulk");
    for (k = 0; k < count; k++) {
        want[k] = m_peek(k);
        fr_add(f, EF_CREATE, want[k], 0);
        for (j = 0; j < (int)b->n; j++) fr_set(f, want[k], b->which[j], b->vals[j]);
    }
    for (k = 0; k < count; k++) { /* on_insert once every entity has its whole bundle */
        fr_add(f, EF_MARK, want[k], 0)->n = (int)b->n;
        for (j = 0; j < (int)b->n; j++) fr_add(f, EF_HOOK_INS, want[k], b->which[j]);
    }
    if (single) {
        e = ecs_create_n(m.w, b->n, b->comps, bundle_values(b));
        ok = e != ECS_NULL;
    } else {
        ok = ecs_create_bulk(m.w, count, b->n, b->comps, bundle_values(b), use_out ? out : NULL);
    }
    if (exhausted) {
        fr_drop(f);
        ENSURE(!ok && (ecs_last_error(m.w) == ECS_ERR_EXHAUSTED || OOM_OK()));
        return;
    }
    if (!ok) {
        fr_drop(f);
        ENSURE(OOM_OK());
        return;
    }
    if (single) ENSURE(e == want[0]);
    for (k = 0; !single && use_out && k < count; k++) ENSURE(out[k] == want[k]);
    fr_finish(f);
}

static void op_create_with(void) {
    bundle b;
    if (!m_room(1)) return;
    pick_bundle(&b, 0);
    do_create_bulk(1, &b, 1, 0);
}

static void op_create_bulk(void) {
    bundle b;
    uint32_t count = 1 + u8() % MAX_BULK;
    int use_out = u8() % 4 != 0;
    if (!m_room(count)) return;
    pick_bundle(&b, 0);
    do_create_bulk(count, &b, 0, use_out);
}

/* ecs_strip or ecs_destroy of e (any id): the documented answers for stale
   ids and locks, else every component through the remove path (on_remove
   in component order) and, for destroy, the slot. Returns whether it
   happened. */
static int do_strip(ecs_entity e, int destroying) {
    int i = slot_of(e), c, has = 0, ok;
    uint32_t n = 0;
    frame *f;
    effect *x;
    if (i < 0) {
        ok = destroying ? ecs_destroy(m.w, e) : ecs_strip(m.w, e) != 0;
        ENSURE(!ok && ecs_last_error(m.w) == ECS_OK);
        return 0;
    }
    if (m_busy(e, 0)) goto locked; /* inside its own hook, or being stripped */
    for (c = 0; c < m.ncomp; c++)
        if (m.slot[i].has[c]) {
            has++;
            if (m_locked(c)) goto locked; /* all or nothing */
        }
    f = fr_push(destroying ? "ecs_destroy" : "ecs_strip");
    x = fr_add(f, EF_STRIP, e, 0);
    x->flag = destroying;
    if (destroying) {
        ok = ecs_destroy(m.w, e);
    } else {
        n = ecs_strip(m.w, e);
        ok = n != 0 || !has;
    }
    if (!ok) {
        fr_drop(f);
        ENSURE(OOM_OK());
        return 0;
    }
    f->retire = destroying && al.failed; /* succeeded although an allocation failed: the slot was retired */
    fr_finish(f);
    if (!destroying && n != f->taken) fz_fail(__LINE__, "ecs_strip returned %u, the model took %u", (unsigned)n, (unsigned)f->taken);
    return 1;
locked:
    if (destroying)
        EXPECT_ASSERT(!ecs_destroy(m.w, e), ECS_ERR_LOCKED);
    else
        EXPECT_ASSERT(ecs_strip(m.w, e) == 0, ECS_ERR_LOCKED);
    return 0;
}

static void op_destroy(void) {
    int i;
    ecs_entity e = pick_entity(&i);
    do_strip(e, 1);
}

/* Destroys many (all, now and then), to keep the count moving. */
static void op_destroy_many(void) {
    int n = u8() % 4 == 0 ? m.nlive : (int)(u8() % 16), k;
    al.armed = 0; /* several calls: out of memory is for single calls */
    for (k = 0; k < n && m.nlive; k++) {
        int i = pick_live();
        ENSURE(do_strip(m.slot[i].id, 1));
    }
}

/* ecs_add, or the typed ECS_ADD with a braced initializer (how 1) or an
   lvalue (how 2); tags and the registered extras: always ecs_add. */
static void *typed_add(int how, ecs_entity e, int c, const void *src, const unsigned char *v) {
    ecs_component cc = m.comp[c];
    if (how == 0 || !comp_size[c] || !src || c > 3) return ecs_add(m.w, e, cc, src);
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
    switch (c) { /* an lvalue */
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

/* add of c = v (src: what is passed) to e (any id). */
static int do_add(ecs_entity e, int c, int how, const void *src, const unsigned char *v) {
    int i = slot_of(e), has;
    frame *f;
    void *p;
    const void *old;
    if (i < 0) { /* stale or forged: refused, nothing changes (check_world: count, next id) */
        EXPECT_ASSERT(typed_add(how, e, c, src, v) == NULL, ECS_ERR_DEAD_ENTITY);
        return 0;
    }
    has = m.slot[i].has[c];
    if ((!has && m_locked(c)) || m_busy(e, 1)) { /* (a replace of an entity being stripped too) */
        EXPECT_ASSERT(typed_add(how, e, c, src, v) == NULL, ECS_ERR_LOCKED);
        return 0;
    }
    f = fr_push("ecs_add");
    fr_set(f, e, c, v);
    if (!has) fr_add(f, EF_HOOK_INS, e, c);
    old = has ? ecs_get(m.w, e, m.comp[c]) : NULL;
    p = typed_add(how, e, c, src, v);
    if (old && p != old) fz_fail(__LINE__, "ecs_add moved the %s values (a replace: section 15)", comp_name[c]);
    if (!p) {
        fr_drop(f);
        ENSURE(OOM_OK());
        return 0;
    }
    fr_finish(f);
    ENSURE(p == (void *)ecs_get(m.w, e, m.comp[c]) || !comp_size[c]);
    return 1;
}

static void op_add(void) {
    int i, c;
    unsigned how;
    unsigned char v[VMAX];
    const void *src;
    ecs_entity e;
    if (m.v2) {
        e = pick_entity(&i);
    } else {
        i = pick_live();
        e = i >= 0 ? m.slot[i].id : ECS_NULL;
    }
    c = pick_comp();
    how = u8() % 4;
    if (!m.v2 && i < 0) return;
    src = pick_value(c, v);
    if (do_add(e, c, how >= 2 ? (int)how - 1 : 0, src, v) || i >= 0) return;
    /* refused (a stale or forged id): the next entity is the one it would have been */
    if (u8() % 4 == 0 && m_room(1) && !m_exhausted(1) && !m.batch_locked) {
        ecs_entity n = ecs_create(m.w), want = m_peek(0);
        if (n == ECS_NULL) {
            ENSURE(OOM_OK());
            return;
        }
        if (n != want) fz_fail(__LINE__, "after ecs_add(%llx) was refused, ecs_create gave %llx, not %llx",
                               (unsigned long long)e, (unsigned long long)n, (unsigned long long)want);
        m_create(n);
    }
}

static int call_remove(ecs_entity e, int c, int deletion, unsigned how, unsigned char *out) {
    int ok;
    if (deletion) return ecs_delete(m.w, e, m.comp[c]);
    if (how == 2 && comp_size[c] && c < 4) { /* typed */
        switch (c) {
        case 0: return ECS_REMOVE(m.w, e, m.comp[c], B1, (B1 *)out);
        case 1: {
            I4 x;
            ok = ECS_REMOVE(m.w, e, m.comp[c], I4, &x);
            if (ok) memcpy(out, &x, sizeof x);
            return ok;
        }
        case 2: {
            D8 x;
            ok = ECS_REMOVE(m.w, e, m.comp[c], D8, &x);
            if (ok) memcpy(out, &x, sizeof x);
            return ok;
        }
        default: {
            S24 x;
            ok = ECS_REMOVE(m.w, e, m.comp[c], S24, &x);
            if (ok) memcpy(out, &x, sizeof x);
            return ok;
        }
        }
    }
    return ecs_remove(m.w, e, m.comp[c], how ? out : NULL);
}

/* remove (how: 0 no out, 1 out, 2 typed) or delete of c from e (any id).
   Returns whether it happened. */
static int do_remove(ecs_entity e, int c, int deletion, unsigned how) {
    int i = slot_of(e), has = i >= 0 && m.slot[i].has[c], ok;
    unsigned char out[VMAX + 8];
    frame *f = NULL;
    effect *x;
    memset(out, 0xa5, sizeof out);
    if (has && m_locked(c)) {
        EXPECT_ASSERT(!call_remove(e, c, deletion, how, out), ECS_ERR_LOCKED);
        return 0;
    }
    if (has) {
        f = fr_push(deletion ? "ecs_delete" : "ecs_remove");
        fr_add(f, EF_HOOK_REM, e, c);
        x = fr_add(f, EF_TAKE, e, c);
        x->flag = deletion;
        x->out = !deletion && how ? out : NULL; /* the value as it leaves, after the hook */
    }
    ok = call_remove(e, c, deletion, how, out);
    if (!has) {
        ENSURE(!ok && ecs_last_error(m.w) == ECS_OK);
        return 0;
    }
    if (!ok) {
        fr_drop(f);
        ENSURE(OOM_OK());
        return 0;
    }
    fr_finish(f);
    return 1;
}

static void op_remove(int deletion) {
    int i, c = pick_comp();
    unsigned how = u8() % 3;
    ecs_entity e = pick_entity(&i);
    do_remove(e, c, deletion, how);
}

static void op_strip(void) {
    int i;
    ecs_entity e = pick_entity(&i);
    do_strip(e, 0);
}

static void do_add_n(ecs_entity e, const bundle *b) {
    int i = slot_of(e), ok, j;
    const void *before[NCMAX];
    frame *f;
    if (i < 0) {
        EXPECT_ASSERT(!ecs_add_n(m.w, e, b->n, b->comps, bundle_values(b)), ECS_ERR_DEAD_ENTITY);
        return;
    }
    for (j = 0; j < (int)b->n; j++) {
        int c = b->which[j];
        if ((!m.slot[i].has[c] && m_locked(c)) || m_busy(e, 1)) {
            EXPECT_ASSERT(!ecs_add_n(m.w, e, b->n, b->comps, bundle_values(b)), ECS_ERR_LOCKED);
            return;
        }
    }
    for (j = 0; j < (int)b->n; j++) {
        int c = b->which[j];
        before[j] = m.slot[i].has[c] ? ecs_get(m.w, e, m.comp[c]) : NULL;
    }
    f = fr_push("ecs_add_n");
    for (j = 0; j < (int)b->n; j++) fr_set(f, e, b->which[j], b->vals[j]);
    fr_add(f, EF_MARK, e, 0)->n = (int)b->n;
    for (j = 0; j < (int)b->n; j++) /* on_insert for what was new, once the whole bundle is in */
        fr_add(f, EF_HOOK_INS, e, b->which[j])->flag = m.slot[i].has[b->which[j]];
    ok = ecs_add_n(m.w, e, b->n, b->comps, bundle_values(b));
    if (!ok) {
        fr_drop(f);
        ENSURE(OOM_OK());
        return;
    }
    /* a replace moves nothing (section 15), when no callback moved it
       meanwhile and no group owns it (an insert of the bundle may make e
       join the group, which swaps rows of its storages: section 13) */
    for (j = 0; j < (int)b->n && !f->at; j++)
        if (before[j] && !m.st[b->which[j]].owner && ecs_get(m.w, e, m.comp[b->which[j]]) != before[j])
            fz_fail(__LINE__, "ecs_add_n moved the %s values, which %llx already had (a replace)", comp_name[b->which[j]],
                    (unsigned long long)e);
    fr_finish(f);
}

static void op_add_n(void) {
    bundle b;
    int i;
    ecs_entity e;
    if (m.v2) {
        e = pick_entity(&i);
    } else {
        i = pick_live();
        if (i < 0) return;
        e = m.slot[i].id;
    }
    pick_bundle(&b, 0);
    do_add_n(e, &b);
}

/* get_mut (or ECS_GET_MUT) and a write through the pointer; ecs_get and
   ECS_GET, which never mark. */
static void op_get(void) {
    int i, c = pick_comp();
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
    if (how) memcpy(m.slot[i].val[c], v, comp_size[c]), m_touch(c, 1);
    m.slot[i].mod[c] = m.tick;
}

static void op_mark(void) {
    int i, c = pick_comp();
    ecs_entity e = pick_entity(&i);
    int has = i >= 0 && m.slot[i].has[c];
    ENSURE(ecs_track_mark_modified(m.w, e, m.comp[c]) == has);
    if (has) m.slot[i].mod[c] = m.tick;
}

static int call_set_if_changed(ecs_entity e, int c, const void *src, int typed) {
    if (typed && comp_size[c] == sizeof(I4) && c == 1 && src) {
        I4 x;
        memcpy(&x, src, sizeof x);
        return ECS_ADD_IF_CHANGED(m.w, e, m.comp[c], I4, x);
    }
    return ecs_add_if_changed(m.w, e, m.comp[c], src);
}

static void op_set_if_changed(void) {
    int i, c, ok, want, typed, has;
    unsigned char v[VMAX];
    const void *src;
    ecs_entity e;
    frame *f;
    if (m.v2) {
        e = pick_entity(&i);
    } else {
        i = pick_live();
        e = i >= 0 ? m.slot[i].id : ECS_NULL;
    }
    c = pick_comp();
    if (!m.v2 && i < 0) return;
    if (i < 0) {
        src = pick_value(c, v);
        EXPECT_ASSERT(!ecs_add_if_changed(m.w, e, m.comp[c], src), ECS_ERR_DEAD_ENTITY);
        return;
    }
    if (u8() % 3 == 0 && m.slot[i].has[c]) { /* the same bytes: no change */
        memcpy(v, m.slot[i].val[c], VMAX);
        src = v;
    } else {
        src = pick_value(c, v);
    }
    typed = (int)(u8() % 2);
    has = m.slot[i].has[c];
    if ((!has && m_locked(c)) || (m_busy(e, 1) && (!has || comp_size[c]))) { /* (a tag it has: no change, no check) */
        EXPECT_ASSERT(!call_set_if_changed(e, c, src, typed), ECS_ERR_LOCKED);
        return;
    }
    want = !has || (comp_size[c] && memcmp(m.slot[i].val[c], v, comp_size[c]) != 0);
    f = fr_push("ecs_add_if_changed");
    if (want) fr_set(f, e, c, v);
    if (!has) fr_add(f, EF_HOOK_INS, e, c);
    ok = call_set_if_changed(e, c, src, typed);
    if (!ok && want) {
        fr_drop(f);
        ENSURE(!has && OOM_OK());
        return;
    }
    ENSURE(ok == want);
    fr_finish(f);
}

/* ---- views ------------------------------------------------------------------------- */
enum { T_REQ, T_NOT, T_OPT, T_ANY };

typedef struct {
    int n, nany, nreq;
    int ci[NCMAX], kind[NCMAX];
    uint32_t flags[NCMAX];
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
    int order[NCMAX], j, t;
    memset(v, 0, sizeof *v);
    for (j = 0; j < m.ncomp; j++) order[j] = j;
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
    for (j = m.ncomp - 1; j > 0; j--) {
        int k = (int)(u8() % (unsigned)(j + 1));
        t = order[j], order[j] = order[k], order[k] = t;
    }
    for (j = 0; j < m.ncomp && (v->n == 0 || u8() % 3); j++) {
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

/* The same with ECS_EACH, whose outer step keeps its own state (and
   break leaves the loop as in any loop). */
static void walk_each(const vspec *v, ecs_iter *it, const unsigned char *want, int *seen, int limit) {
    int n = 0;
    ECS_EACH(it) {
        yielded(v, ecs_iter_entity(it), want, seen);
        check_fields_next(v, it);
        if (++n == limit) break; /* before the next step reaches (and marks) another */
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
    ecs_component comps[NCMAX];
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
    if (m.nstrip) return; /* an entity being stripped may match a group it is not in (section 13) */
    pick_view(&v);
    mode = u8() % 8;
    limit = u8() % 4 == 0 ? 1 + u8() % 8 : 0;
    memset(want, 0, sizeof want);
    memset(seen, 0, sizeof seen);
    for (k = 0; k < m.nlive; k++) nwant += want[m.live[k]] = (unsigned char)view_match(&v, (int)m.live[k]);
    it = open_view(&v, (int)(mode & 1));
    if (mode <= 2) { /* 2: the loop macro */
        if (mode == 2)
            walk_each(&v, &it, want, seen, (int)limit);
        else
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
        ENSURE(ecs_visit(m.w, &v.d, count_each, &each) == (uint32_t)nwant && each == (uint32_t)nwant);
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
    int c = pick_comp(), c2 = (c + 1 + (int)(u8() % (unsigned)(m.ncomp - 1))) % m.ncomp;
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
        d.terms[1].c = (ecs_component)(m.ncomp + 1 + (int)(u8() % 3));
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
   at the end (with the same id) was yielded. Hooks make no calls of their
   own in the loop (they could change other entities, which section 7
   forbids). */
static void defer_some(int n);

/* One entity of op_view_changes' walk: checks it and changes the world
   as a loop body may (section 7). */
static void view_changes_step(const vspec *v, ecs_iter *it, int *seen, ecs_entity *born, int is_union,
                              unsigned owned_m, unsigned excl_m) {
    int k;
    ecs_entity cur = ecs_iter_entity(it);
    int i = slot_of(cur), nchanges = (int)(u8() % 3), j;
    if (i < 0) fz_fail(__LINE__, "view yields %llx, not alive", (unsigned long long)cur);
    if (born[i] == cur) fz_fail(__LINE__, "view yields %llx, created in the loop", (unsigned long long)cur);
    if (seen[i]++) fz_fail(__LINE__, "view yields %llx twice", (unsigned long long)cur);
    if (!view_match(v, i)) fz_fail(__LINE__, "view yields %llx, which does not match", (unsigned long long)cur);
    check_fields_next(v, it);
    trace("yield %llx", (unsigned long long)cur);
    for (k = 0; k < v->n; k++)
        if ((v->flags[k] & ECS_WRITE) && m.slot[i].has[v->ci[k]]) m.slot[i].mod[v->ci[k]] = m.tick;
    for (j = 0; j < nchanges; j++) {
        unsigned op = u8() % 12, cm;
        int c = pick_comp(), t = pick_live();
        unsigned char val[VMAX];
        gen_bytes(val, VMAX);
        i = slot_of(cur);
        cm = 1u << c;
        if (is_union && op >= 1 && op <= 6) continue; /* union loops: destroy the current one, values, defer */
        if (m.batch_locked && op <= 8) continue; /* a system sharing its batch: values only (op_refused_in_batch) */
        if (op <= 2 && i >= 0 && u8() % 2) c = v->ci[u8() % (unsigned)v->n], cm = 1u << c;
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
            ENSURE(do_strip(cur, 1));
        } else if ((op == 1 || op == 2) && i >= 0) {
            int had = m.slot[i].has[c];
            ENSURE(do_remove(cur, c, op == 2, 1) == had);
        } else if (op == 3 && i >= 0) {
            ENSURE(do_strip(cur, 0));
        } else if ((op == 4 || op == 5) && t >= 0) { /* add to any entity */
            ENSURE(do_add(m.slot[t].id, c, 0, val, val));
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
    m.no_reentry++;
    it = open_view(&v, 0);
    if (u8() % 2) { /* the loop macro, or its function form */
        ECS_EACH(&it) view_changes_step(&v, &it, seen, born, is_union, owned_m, excl_m);
    } else {
        while (ecs_iter_next(&it)) view_changes_step(&v, &it, seen, born, is_union, owned_m, excl_m);
    }
    m.no_reentry--;
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
        int i, c = pick_comp(), ok;
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
            trace("ecs_defer_create: %llx", (unsigned long long)e);
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
        if (!ok && i < 0 && ecs_last_error(m.w) == ECS_OK) continue; /* a stale id: nothing recorded */
        if (!ok) {
            ENSURE(OOM_OK());
            continue;
        }
        /* recorded for a stale or forged id: it must never take effect, even
           if a later entity gets that very id (section 4) */
        cmd->stale = i < 0;
        trace("ecs_defer_%s(%llx, %s)%s", cmd->op == 0 ? "destroy" : cmd->op == 1 ? "add" : cmd->op == 2 ? "remove" : "delete",
              (unsigned long long)e, comp_name[c], i < 0 ? ": a stale id, recorded" : "");
        m.npending++;
    }
}

static void op_flush(void) {
    uint32_t applied, left;
    int k;
    frame *f;
    if (m.guard) { /* a hook or a comparator runs: refused, every command stays queued */
        if (m.new_rules) EXPECT_ASSERT(ecs_flush(m.w) == 0, ECS_ERR_LOCKED);
        return;
    }
    if (al.armed) /* a destroy that cannot grow the free queue retires its slot: not modelled here */
        for (k = 0; k < m.npending; k++)
            if (m.pending[k].op == 0) al.armed = 0;
    f = fr_push("ecs_flush");
    fr_add(f, EF_FLUSH_NEXT, 0, 0);
    applied = ecs_flush(m.w);
    left = ecs_defer_pending(m.w);
    if (left) ENSURE(OOM_OK()); /* stops at an add that ran out of memory; the rest stays queued */
    ENSURE(left <= (uint32_t)m.npending);
    f->stop_pending = left;
    fr_finish(f);
    ENSURE((uint32_t)m.npending == left);
    if (applied != f->applied) fz_fail(__LINE__, "ecs_flush applied %u, model %u", (unsigned)applied, (unsigned)f->applied);
}

static void op_defer(void) {
    defer_some(1 + (int)(u8() % 8));
    if (u8() % 3 == 0) op_flush();
}

/* ---- sorting ------------------------------------------------------------------------ */
/* Rows 0..n-1 of c are in key order, ties in their old order (before[]). */
static void check_sorted(sortctx *s, uint32_t n) {
    int c = s->c;
    const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[c]));
    const unsigned char *data = (const unsigned char *)ecs_storage_data(ecs_storage_of(m.w, m.comp[c]));
    uint32_t r;
    for (r = 0; r + 1 < n; r++) {
        const void *va = data ? data + r * comp_size[c] : NULL, *vb = data ? data + (r + 1) * comp_size[c] : NULL;
        int cmp = sort_cmp(s, ents[r], va, ents[r + 1], vb);
        ENSURE(!s->bad && cmp <= 0);
        if (cmp == 0) ENSURE(s->before[ECS_ENTITY_INDEX(ents[r])] < s->before[ECS_ENTITY_INDEX(ents[r + 1])]);
    }
}

static void sort_frame(frame *f, sortctx *s, uint32_t n) {
    f->sort = s;
    if (n < 2) return; /* no comparator, nothing locked */
    fr_add(f, EF_LOCK, 0, s->c)->sort = s;
    fr_add(f, EF_CMP, 0, s->c)->sort = s;
    fr_add(f, EF_UNLOCK, 0, s->c)->sort = s;
}

static void op_sort(void) {
    sortctx *s = (sortctx *)calloc(1, sizeof *s);
    ecs_entity *copy = (ecs_entity *)malloc(MAX_SLOTS * sizeof *copy);
    const ecs_entity *ents;
    uint32_t r, n;
    int ok;
    frame *f;
    if (!s || !copy) abort();
    s->c = pick_comp();
    s->desc = (int)(u8() % 2);
    s->lockmask = 1u << s->c;
    n = ecs_storage_count(ecs_storage_of(m.w, m.comp[s->c]));
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[s->c]));
    for (r = 0; r < n; r++) s->before[ECS_ENTITY_INDEX(ents[r])] = r, copy[r] = ents[r];
    if (m.batch_locked) { /* a system sharing its batch: refused before anything else */
        EXPECT_ASSERT(!ecs_sort(m.w, m.comp[s->c], by_key, s), ECS_ERR_LOCKED);
        free(copy);
        free(s);
        return;
    }
    if (m.st[s->c].owner) {
        EXPECT_ASSERT(!ecs_sort(m.w, m.comp[s->c], by_key, s), ECS_ERR_INVALID);
    } else if (m_locked(s->c)) {
        EXPECT_ASSERT(!ecs_sort(m.w, m.comp[s->c], by_key, s), ECS_ERR_LOCKED);
    } else {
        f = fr_push("ecs_sort");
        sort_frame(f, s, n);
        ok = ecs_sort(m.w, m.comp[s->c], by_key, s);
        ENSURE(!s->bad);
        ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[s->c]));
        if (!ok) { /* out of memory: nothing moved */
            fr_drop(f);
            ENSURE(OOM_OK());
            ENSURE(n == 0 || memcmp(ents, copy, n * sizeof *ents) == 0);
        } else {
            fr_finish(f);
            if (!s->dirty) check_sorted(s, n); /* (a callback changed keys: any order) */
        }
    }
    free(copy);
    free(s);
}

static void op_sort_as(void) {
    static ecs_entity want[MAX_SLOTS];
    int c = pick_comp(), o = pick_comp();
    uint32_t r, n = 0, no = ecs_storage_count(ecs_storage_of(m.w, m.comp[o]));
    const ecs_entity *order = ecs_storage_entities(ecs_storage_of(m.w, m.comp[o])), *ents;
    if (m.batch_locked) { /* a system sharing its batch: refused before anything else */
        EXPECT_ASSERT(!ecs_sort_as(m.w, m.comp[c], m.comp[o]), ECS_ERR_LOCKED);
        return;
    }
    if (m.st[c].owner) { /* only the group sorts its storages */
        EXPECT_ASSERT(!ecs_sort_as(m.w, m.comp[c], m.comp[o]), ECS_ERR_INVALID);
        return;
    }
    if (m_locked(c)) {
        EXPECT_ASSERT(!ecs_sort_as(m.w, m.comp[c], m.comp[o]), ECS_ERR_LOCKED);
        return;
    }
    for (r = 0; r < no; r++)
        if (m.slot[ECS_ENTITY_INDEX(order[r])].has[c]) want[n++] = order[r];
    ENSURE(ecs_sort_as(m.w, m.comp[c], m.comp[o]));
    if (c == o) return;
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[c]));
    for (r = 0; r < n; r++) ENSURE(ents[r] == want[r]); /* the shared ones first, in order's order */
}

static void op_group_sort(void) {
    unsigned gi = u8() % (unsigned)(m.ngroups + 2);
    const m_group *g;
    sortctx *s;
    ecs_entity(*rest)[MAX_SLOTS];
    uint32_t len, r, n[NCMAX];
    int k, ok, locked = 0;
    frame *f;
    if (gi == 0 || gi > (unsigned)m.ngroups) { /* no such group */
        EXPECT_ASSERT(ecs_group_count(m.w, gi ? (ecs_group)gi : 0) == 0, ECS_ERR_INVALID);
        return;
    }
    g = &m.grp[gi - 1];
    s = (sortctx *)calloc(1, sizeof *s);
    rest = (ecs_entity(*)[MAX_SLOTS])malloc(NCMAX * sizeof *rest);
    if (!s || !rest) abort();
    s->c = pick_comp();
    s->desc = (int)(u8() % 2);
    s->lockmask = g->owned_mask;
    s->movemask = g->owned_mask | g->excl_mask;
    for (k = 0; k < g->nowned; k++) locked |= m_locked(g->owned[k]);
    if (m.st[s->c].owner != (int)gi) {
        EXPECT_ASSERT(!ecs_group_sort(m.w, (ecs_group)gi, m.comp[s->c], by_key, s), ECS_ERR_INVALID);
        EXPECT_ASSERT(ecs_group_data(m.w, (ecs_group)gi, m.comp[s->c]) == NULL, ECS_ERR_INVALID);
    } else if (locked) { /* sorting moves the rows of a storage whose hook or sort runs */
        if (m.new_rules) EXPECT_ASSERT(!ecs_group_sort(m.w, (ecs_group)gi, m.comp[s->c], by_key, s), ECS_ERR_LOCKED);
    } else {
        len = ecs_group_count(m.w, (ecs_group)gi);
        for (k = 0; k < g->nowned; k++) {
            const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[g->owned[k]]));
            n[k] = ecs_storage_count(ecs_storage_of(m.w, m.comp[g->owned[k]]));
            for (r = 0; r < n[k]; r++) {
                rest[k][r] = ents[r];
                if (g->owned[k] == s->c) s->before[ECS_ENTITY_INDEX(ents[r])] = r;
            }
        }
        f = fr_push("ecs_group_sort");
        sort_frame(f, s, len);
        ok = ecs_group_sort(m.w, (ecs_group)gi, m.comp[s->c], by_key, s);
        ENSURE(!s->bad);
        if (!ok) {
            fr_drop(f);
            ENSURE(OOM_OK());
        } else {
            fr_finish(f);
        }
        if (!s->dirty) {
            for (k = 0; k < g->nowned; k++) { /* rows past the group stay; nothing moves on failure */
                const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[g->owned[k]]));
                for (r = ok ? len : 0; r < n[k]; r++) ENSURE(ents[r] == rest[k][r]);
            }
            if (ok) check_sorted(s, len);
        }
    }
    free(rest);
    free(s);
}

/* ---- tracking ------------------------------------------------------------------------- */
static void op_track(void) {
    int c = pick_comp(), k;
    uint32_t flags = u8() % 17, old = m.st[c].track;
    if (flags == 16) {
        EXPECT_ASSERT(!ecs_track_set(m.w, m.comp[c], 0x40 | (u8() & 15)), ECS_ERR_INVALID);
        return;
    }
    if (m_locked(c)) { /* its remove path counts on its records */
        if (m.new_rules) EXPECT_ASSERT(!ecs_track_set(m.w, m.comp[c], flags), ECS_ERR_LOCKED);
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
    ecs_tick t;
    if (m.clock_locked) { /* the clock a batch of several stamps with: refused there */
        EXPECT_ASSERT(ecs_tick_advance(m.w) == 0, ECS_ERR_LOCKED);
        return;
    }
    t = ecs_tick_advance(m.w);
    if (t != m.tick) fz_fail(__LINE__, "ecs_tick_advance %llu, model %llu", (unsigned long long)t, (unsigned long long)m.tick);
    m.tick++;
    m.ts[m.nts++ % NTS] = t;
}

static void m_clear(int c, uint32_t flags, ecs_tick t, int windows) {
    int first = c ? c - 1 : 0, last = c ? c - 1 : m.ncomp - 1, k;
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
    int c = (int)(u8() % (unsigned)(m.ncomp + 1));
    uint32_t f = u8(), flags = (f & 15) | (f & 16 ? ECS_TRACK_ENTITIES : 0);
    if (m.clock_locked) { /* the lists and the clock a batch of several uses: refused there */
        EXPECT_ASSERT((ecs_track_clear(m.w, c ? m.comp[c - 1] : 0, flags), 1), ECS_ERR_LOCKED);
        return;
    }
    ecs_track_clear(m.w, c ? m.comp[c - 1] : 0, flags);
    m_clear(c, flags, ~(ecs_tick)0, 1);
    m.tick++;
}

static void op_clear_older(void) {
    int c = (int)(u8() % (unsigned)(m.ncomp + 1));
    uint32_t f = u8(), flags = (f & 15) | (f & 16 ? ECS_TRACK_ENTITIES : 0);
    ecs_tick t = m.nts && u8() % 2 ? m.ts[u8() % (unsigned)(m.nts < NTS ? m.nts : NTS)] : m.tick - u8() % 4;
    if (m.clock_locked) {
        EXPECT_ASSERT((ecs_track_clear_until(m.w, c ? m.comp[c - 1] : 0, flags, t), 1), ECS_ERR_LOCKED);
        return;
    }
    ecs_track_clear_until(m.w, c ? m.comp[c - 1] : 0, flags, t);
    m_clear(c, flags, t, 0);
}

/* Queries the catalogue says assert: storages that do not track, entity
   lists without track_entities, an entry not in the deleted list. */
static void op_query_bad(void) {
    int c = pick_comp(), i;
    ecs_entity e = pick_entity(&i);
    uint32_t n = 7, track = m.st[c].track;
    ecs_change fake;
    switch (u8() % 6) {
    case 0:
        if (track & ECS_TRACK_INSERTION)
            ENSURE(ecs_track_inserted(m.w, e, m.comp[c], 0) == (i >= 0 && m.slot[i].has[c] && m.slot[i].ins[c] > m.st[c].clear_ins));
        else
            EXPECT_ASSERT(!ecs_track_inserted(m.w, e, m.comp[c], 0), ECS_ERR_INVALID);
        break;
    case 1:
        if (track & ECS_TRACK_MODIFICATION)
            ENSURE(ecs_track_modified(m.w, e, m.comp[c], 0) == (i >= 0 && m.slot[i].has[c] && m.slot[i].mod[c] > m.st[c].clear_mod));
        else
            EXPECT_ASSERT(!ecs_track_modified(m.w, e, m.comp[c], 0), ECS_ERR_INVALID);
        break;
    case 2:
        if (!(track & ECS_TRACK_REMOVAL)) EXPECT_ASSERT(ecs_track_removed(m.w, m.comp[c], 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
        break;
    case 3:
        if (!(track & ECS_TRACK_DELETION)) {
            EXPECT_ASSERT(ecs_track_deleted(m.w, m.comp[c], 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
        } else {
            fake.entity = e;
            fake.tick = m.tick;
            EXPECT_ASSERT(ecs_track_deleted_value(m.w, m.comp[c], &fake) == NULL, ECS_ERR_INVALID);
        }
        break;
    case 4:
        if (!m.track_entities) {
            EXPECT_ASSERT(ecs_track_created(m.w, 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
            EXPECT_ASSERT(ecs_track_destroyed(m.w, 0, &n) == NULL && n == 0, ECS_ERR_INVALID);
        }
        break;
    default:
        ENSURE(ecs_track_get(m.w, m.comp[c]) == track);
        break;
    }
}

/* ---- uniques ---------------------------------------------------------------------------- */
static void op_unique(void) {
    int c = pick_comp();
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
    unsigned owned, excl, rot, bad, all = (1u << m.ncomp) - 1;
    int k, want = 0, list[2 * NCMAX + 1], nlist = 0;
    ecs_error code = ECS_ERR_INVALID;
    ecs_group id;
    if (m.v2) {
        owned = u16() & all, excl = u16() & all;
    } else {
        owned = u8() % 64, excl = u8() % 64;
    }
    rot = u8() % (unsigned)m.ncomp, bad = u8() % 8;
    if (m.ngroups >= MAX_GROUPS) return;
    memset(&d, 0, sizeof d);
    memset(&g, 0, sizeof g);
    excl &= ~owned;
    if (u8() % 2) excl &= 0x30; /* mostly tags excluded */
    for (k = 0; k < m.ncomp; k++) { /* rotated: owned[0] varies */
        int c = (int)((k + (int)rot) % m.ncomp);
        if (owned >> c & 1) {
            g.owned_mask |= 1u << c;
            d.owned[g.nowned] = m.comp[c];
            g.owned[g.nowned++] = c;
        }
        if (excl >> c & 1) {
            g.excl_mask |= 1u << c;
            d.excluded[g.nexcl] = m.comp[c];
            g.excl[g.nexcl++] = c;
        }
    }
    for (k = 0; k < g.nowned; k++) list[nlist++] = g.owned[k];
    for (k = 0; k < g.nexcl; k++) list[nlist++] = g.excl[k];
    if (bad == 0 && g.nowned) { /* listed twice */
        d.excluded[g.nexcl] = d.owned[0];
        list[nlist++] = g.owned[0];
    }
    /* what ecs_group_new refuses, in its order: each storage in turn */
    if (!g.nowned) want = 1;
    for (k = 0; !want && k < nlist; k++) {
        int j, twice = 0;
        for (j = 0; j < k; j++) twice |= list[j] == list[k];
        if (twice || (k < g.nowned && m.st[list[k]].owner))
            want = 1;
        else if (m_locked(list[k]))
            want = 1, code = ECS_ERR_LOCKED;
    }
    if (want) {
        EXPECT_ASSERT(ecs_group_new(m.w, &d) == 0, code);
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

static void op_hooks(void) {
    int c = pick_comp(), set = m.v2 ? (int)(u8() % 4) : (u8() % 2 ? H_INS | H_REM : 0);
    if (m_locked(c)) {
        EXPECT_ASSERT(!ecs_hooks_set(m.w, m.comp[c], set ? &hook_sets[set] : NULL), ECS_ERR_LOCKED);
        return;
    }
    if (!ecs_hooks_set(m.w, m.comp[c], set ? &hook_sets[set] : NULL)) { /* room for the listeners, first */
        ENSURE(OOM_OK());
        return;
    }
    m.st[c].hooks = set;
}

/* ---- registration, systems, workloads (the full mode) ------------------------------------- */
static void op_register(void) {
    unsigned k = u8() % 6;
    int c, at = -1;
    ecs_component id;
    if (k < NCMAX - NC) { /* one of the extras: new, or registered again */
        for (c = NC; c < m.ncomp; c++)
            if (strcmp(comp_name[c], extra[k].name) == 0) at = c;
        id = ecs_register(m.w, extra[k].name, extra[k].size, extra[k].align);
        if (at >= 0) {
            ENSURE(id == m.comp[at]);
            return;
        }
        if (!id) {
            ENSURE(OOM_OK());
            return;
        }
        ENSURE(m.ncomp < NCMAX && id == (ecs_component)(m.ncomp + 1));
        c = m.ncomp++;
        comp_name[c] = extra[k].name;
        comp_size[c] = extra[k].size;
        comp_align[c] = extra[k].align;
        m.comp[c] = id;
        trace("registered %s: %u", comp_name[c], (unsigned)id);
        ENSURE(ecs_lookup(m.w, extra[k].name) == id && ecs_component_size(m.w, id) == extra[k].size);
    } else if (k == 4) {
        c = pick_comp();
        ENSURE(ecs_register(m.w, comp_name[c], comp_size[c], comp_align[c]) == m.comp[c]);
    } else {
        c = pick_comp();
        EXPECT_ASSERT(ecs_register(m.w, comp_name[c], comp_size[c] + 4, 4) == 0, ECS_ERR_INVALID);
    }
}

/* Batches as section 14 cuts them. */
static void m_plan(m_wl *w) {
    int i, k, batch = 0, first = 0;
    unsigned rd = 0, wr = 0;
    for (i = 0; i < w->n; i++) {
        const m_sys *d = &m.sys[w->step[i]];
        unsigned r = 0, wm = 0;
        int why = 0;
        for (k = 0; k < d->nreads; k++) r |= 1u << d->reads[k];
        for (k = 0; k < d->nwrites; k++) wm |= 1u << d->writes[k];
        if (i) {
            for (k = first; k < i; k++) why |= w->step[k] == w->step[i] || m.sys[w->step[k]].structural;
            why |= d->structural || (r & wr) || (wm & (rd | wr));
        }
        if (why) batch++, first = i, rd = wr = 0;
        w->batch[i] = batch;
        rd |= r;
        wr |= wm;
    }
    w->nbatch = w->n ? batch + 1 : 0;
}

static void op_system_new(void) {
    ecs_system_desc d;
    m_sys s;
    unsigned kind = u8() % 10;
    int k, ok;
    memset(&d, 0, sizeof d);
    memset(&s, 0, sizeof s);
    d.fn = sys_fn;
    if (m.running) { /* inside a running workload: refused (its systems are in use) */
        if (!m.new_rules || m.nsys >= MAX_SYS) return;
        d.name = sys_names[m.nsys];
        d.user = (void *)(intptr_t)m.nsys;
        EXPECT_ASSERT(!ecs_system_new(m.w, &d), ECS_ERR_LOCKED);
        return;
    }
    if (kind == 0) { /* no fn */
        d.name = "nofn";
        d.fn = NULL;
        EXPECT_ASSERT(!ecs_system_new(m.w, &d), ECS_ERR_INVALID);
        return;
    }
    if (kind == 1 && (m.nsys || m.nwl)) { /* the name is taken */
        k = (int)(u8() % (unsigned)(m.nsys + m.nwl));
        d.name = k < m.nsys ? sys_names[k] : wl_names[k - m.nsys];
        EXPECT_ASSERT(!ecs_system_new(m.w, &d), ECS_ERR_INVALID);
        return;
    }
    if (m.nsys >= MAX_SYS) return;
    d.name = sys_names[m.nsys];
    d.user = (void *)(intptr_t)m.nsys;
    if (kind == 2) { /* an unknown component */
        d.reads[0] = (ecs_component)(m.ncomp + 1 + (int)(u8() % 3));
        EXPECT_ASSERT(!ecs_system_new(m.w, &d), ECS_ERR_UNKNOWN_COMPONENT);
        return;
    }
    s.structural = (int)(u8() % 2);
    s.run_if = u8() % 3 == 0;
    s.nreads = (int)(u8() % 3);
    s.nwrites = (int)(u8() % 3);
    for (k = 0; k < s.nreads; k++) s.reads[k] = pick_comp(), d.reads[k] = m.comp[s.reads[k]];
    for (k = 0; k < s.nwrites; k++) s.writes[k] = pick_comp(), d.writes[k] = m.comp[s.writes[k]];
    d.structural = s.structural != 0;
    d.run_if = s.run_if ? sys_run_if : NULL;
    s.last_run = 1; /* never ran */
    ok = ecs_system_new(m.w, &d);
    if (!ok) {
        ENSURE(OOM_OK());
        return;
    }
    trace("system %s: structural %d, run_if %d", d.name, s.structural, s.run_if);
    m.sys[m.nsys++] = s;
}

static void op_workload_new(void) {
    const char *items[4];
    unsigned kind = u8() % 8;
    int n = (int)(u8() % 5), k, j, unknown = 0, ok;
    m_wl w;
    ecs_plan_step plan[MAX_STEPS];
    memset(&w, 0, sizeof w);
    if (m.running) { /* inside a running workload: refused */
        if (!m.new_rules || m.nwl >= MAX_WL) return;
        EXPECT_ASSERT(!ecs_workload_new(m.w, wl_names[m.nwl], 0, NULL), ECS_ERR_LOCKED);
        return;
    }
    if (kind == 0 && (m.nsys || m.nwl)) { /* the name is taken */
        k = (int)(u8() % (unsigned)(m.nsys + m.nwl));
        EXPECT_ASSERT(!ecs_workload_new(m.w, k < m.nsys ? sys_names[k] : wl_names[k - m.nsys], 0, NULL),
                      ECS_ERR_INVALID);
        return;
    }
    if (m.nwl >= MAX_WL) return;
    for (k = 0; k < n; k++) {
        unsigned b = u8();
        if (kind == 1 && k == n - 1) {
            items[k] = "nosuch";
            unknown = 1;
        } else if (m.nwl && b % 4 == 0) { /* a workload, expanded in place */
            const m_wl *x = &m.wl[b / 4 % (unsigned)m.nwl];
            items[k] = wl_names[b / 4 % (unsigned)m.nwl];
            for (j = 0; j < x->n && w.n < MAX_STEPS; j++) w.step[w.n++] = x->step[j];
            if (j < x->n) return; /* too long for the model */
        } else if (m.nsys) {
            items[k] = sys_names[b % (unsigned)m.nsys];
            if (w.n >= MAX_STEPS) return;
            w.step[w.n++] = (int)(b % (unsigned)m.nsys);
        } else {
            return;
        }
    }
    if (unknown) {
        EXPECT_ASSERT(!ecs_workload_new(m.w, wl_names[m.nwl], (uint32_t)n, items), ECS_ERR_NOT_FOUND);
        return;
    }
    ok = ecs_workload_new(m.w, wl_names[m.nwl], (uint32_t)n, items);
    if (!ok) {
        ENSURE(OOM_OK());
        return;
    }
    m_plan(&w);
    ENSURE(ecs_workload_plan(m.w, wl_names[m.nwl], plan, MAX_STEPS) == (uint32_t)w.n);
    for (k = 0; k < w.n; k++)
        if (strcmp(plan[k].system, sys_names[w.step[k]]) != 0 || plan[k].batch != (uint32_t)w.batch[k])
            fz_fail(__LINE__, "workload %s step %d: %s in batch %u, model %s in batch %d (%s)", wl_names[m.nwl], k,
                    plan[k].system, (unsigned)plan[k].batch, sys_names[w.step[k]], w.batch[k], plan[k].reason);
    trace("workload %s: %d steps, %d batches", wl_names[m.nwl], w.n, w.nbatch);
    if (m.default_wl < 0) m.default_wl = m.nwl;
    m.wl[m.nwl++] = w;
}

static void op_workload_run(void) {
    unsigned k = u8() % (unsigned)(m.nwl + 2);
    const char *name = k < (unsigned)m.nwl ? wl_names[k] : k == (unsigned)m.nwl ? NULL : "nosuch";
    int idx = k < (unsigned)m.nwl ? (int)k : k == (unsigned)m.nwl ? m.default_wl : -1, rc;
    frame *f;
    if (m.running) { /* nested: INVALID (or LOCKED inside a hook, with the new rules) */
        ecs_error err;
        fa.expecting++;
        fa.count = 0;
        rc = ecs_workload_run(m.w, name);
        fa.expecting--;
        err = ecs_last_error(m.w);
        if (rc != -1 || fa.count != 1 || !(err == ECS_ERR_INVALID || (m.guard && err == ECS_ERR_LOCKED)))
            fz_fail(__LINE__, "ecs_workload_run inside a workload: %d, %d asserts, error %d", rc, fa.count, (int)err);
        ecs_clear_error(m.w);
        return;
    }
    if (m.guard) { /* inside a hook or comparator */
        if (m.new_rules) EXPECT_ASSERT(ecs_workload_run(m.w, name) == -1, ECS_ERR_LOCKED);
        return;
    }
    if (idx < 0) {
        EXPECT_ASSERT(ecs_workload_run(m.w, name) == -1, ECS_ERR_NOT_FOUND);
        return;
    }
    al.armed = 0; /* (a flush between batches out of memory: not modelled) */
    f = fr_push("ecs_workload_run");
    f->wl = idx;
    if (m.wl[idx].n) {
        fr_add(f, EF_BATCH, 0, 0);
    } else {
        fr_add(f, EF_ADVANCE, 0, 0);
        fr_add(f, EF_RUN_END, 0, 0);
    }
    m.running = 1;
    rc = ecs_workload_run(m.w, name);
    fr_finish(f);
    ENSURE(!m.running);
    if (rc != f->rc) fz_fail(__LINE__, "ecs_workload_run returned %d, model %d", rc, f->rc);
    if (rc) {
        ENSURE(ecs_last_error(m.w) == ECS_ERR_SYSTEM);
        ENSURE(ecs_workload_failed_system(m.w) && strcmp(ecs_workload_failed_system(m.w), sys_names[f->failed_sys]) == 0);
    } else {
        ENSURE(ecs_workload_failed_system(m.w) == NULL);
    }
}

/* Inside a callback only: the world is in use, so it stays. */
static void op_world_free(void) {
    if (!m.depth || !m.new_rules) return;
    EXPECT_ASSERT((ecs_world_free(m.w), 1), ECS_ERR_LOCKED);
}

/* ---- bad input -------------------------------------------------------------------------- */
/* Calls the catalogue (section 2) says assert and fail; check_world()
   afterwards shows that they changed nothing. */
static void op_bad(void) {
    int i, c = pick_comp(), j = pick_live();
    ecs_entity e = pick_entity(&i), live = j >= 0 ? m.slot[j].id : ECS_NULL;
    ecs_component unknown = u8() % 2 ? 0 : (ecs_component)(m.ncomp + 1 + (int)(u8() % 5));
    ecs_component comps[3];
    unsigned char v[VMAX];
    unsigned what = u8() % 16;
    if (m_any_lock()) return; /* a lock check may come before the one tested here */
    memset(v, 7, sizeof v);
    comps[0] = m.comp[c];
    comps[1] = m.comp[(c + 1) % m.ncomp];
    comps[2] = m.comp[c]; /* listed twice */
    switch (what) {
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
        ENSURE(ecs_component_max(m.w) == (uint32_t)m.ncomp && ecs_component_size(m.w, m.comp[c]) == comp_size[c]);
        break;
    case 13: /* stale ids miss quietly */
        if (i < 0) {
            ENSURE(!ecs_destroy(m.w, e) && ecs_strip(m.w, e) == 0 && !ecs_alive(m.w, e));
            ENSURE(!ecs_remove(m.w, e, m.comp[c], v) && !ecs_delete(m.w, e, m.comp[c]));
            ENSURE(!ecs_has(m.w, e, m.comp[c]) && ecs_get(m.w, e, m.comp[c]) == NULL);
            ENSURE(ecs_get_mut(m.w, e, m.comp[c]) == NULL && !ecs_track_mark_modified(m.w, e, m.comp[c]));
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
        d.owned[0] = unknown ? unknown : (ecs_component)(m.ncomp + 1);
        EXPECT_ASSERT(ecs_group_new(m.w, &d) == 0, ECS_ERR_UNKNOWN_COMPONENT);
        break;
    }
    }
}

/* Arms the allocator: the k-th allocation of the next op fails. */
static void op_oom(void) { al.armed = 1 + (long)(u8() % 6); }

/* ---- the op tables ---------------------------------------------------------------------- */
typedef void (*op_fn)(void);
static void op_remove0(void) { op_remove(0); }
static void op_delete(void) { op_remove(1); }

/* weights: legacy mode, full mode, and inside callbacks (full mode) */
static const struct {
    const char *name;
    op_fn fn;
    int legacy, full, nested;
} OPS[] = {
    {"create", op_create, 8, 7, 6},
    {"create_with", op_create_with, 8, 7, 5},
    {"create_bulk", op_create_bulk, 2, 2, 1},
    {"destroy", op_destroy, 8, 8, 8},
    {"destroy_many", op_destroy_many, 1, 1, 0},
    {"add", op_add, 22, 18, 14},
    {"remove", op_remove0, 8, 7, 7},
    {"delete", op_delete, 6, 6, 5},
    {"strip", op_strip, 3, 3, 4},
    {"add_n", op_add_n, 8, 7, 5},
    {"get", op_get, 8, 6, 4},
    {"mark_modified", op_mark, 3, 2, 1},
    {"set_if_changed", op_set_if_changed, 5, 4, 3},
    {"view", op_view, 14, 8, 2},
    {"view_bad", op_view_bad, 2, 1, 0},
    {"view_changes", op_view_changes, 6, 5, 0},
    {"defer", op_defer, 8, 6, 5},
    {"flush", op_flush, 4, 4, 4},
    {"sort", op_sort, 3, 4, 3},
    {"sort_as", op_sort_as, 3, 2, 2},
    {"track", op_track, 3, 3, 2},
    {"timestamp", op_timestamp, 8, 6, 1},
    {"clear_tracking", op_clear, 4, 3, 1},
    {"clear_older_than", op_clear_older, 3, 2, 1},
    {"query_bad", op_query_bad, 3, 2, 1},
    {"unique", op_unique, 8, 4, 2},
    {"group_new", op_group_new, 2, 2, 2},
    {"group_sort", op_group_sort, 3, 3, 3},
    {"hooks", op_hooks, 2, 5, 3},
    {"bad_input", op_bad, 4, 3, 1},
    {"arm_oom", op_oom, 6, 5, 2},
    {"register", op_register, 0, 2, 2},
    {"system_new", op_system_new, 0, 3, 2},
    {"workload_new", op_workload_new, 0, 3, 2},
    {"workload_run", op_workload_run, 0, 5, 2},
    {"world_free", op_world_free, 0, 0, 1},
};
#define NOPS ((int)(sizeof OPS / sizeof OPS[0]))
static unsigned char op_table[3][256];

static void build_table(unsigned char *table, int which) {
    int total = 0, k, b = 0;
    for (k = 0; k < NOPS; k++) total += which == 0 ? OPS[k].legacy : which == 1 ? OPS[k].full : OPS[k].nested;
    for (k = 0; k < NOPS; k++) {
        int w = which == 0 ? OPS[k].legacy : which == 1 ? OPS[k].full : OPS[k].nested;
        int n = (w * 256 + total / 2) / total, j;
        fz_op_names[k] = OPS[k].name;
        for (j = 0; j < n && b < 256; j++) table[b++] = (unsigned char)k;
    }
    while (b < 256) table[b++] = 5; /* add */
}

/* One call made by a callback. */
static void op_refused_in_batch(const char *name);
static void nested_op(void) {
    int k = op_table[2][u8()];
    const char *outer = m.opname;
    m.opname = OPS[k].name;
    if (m.trace) fprintf(stderr, "%*sop %s (at %lu)\n", 4 * m.depth, "", m.opname, (unsigned long)m.at);
    char word[40];
    snprintf(word, sizeof word, " %s ", OPS[k].name);
    if (m.batch_locked && strstr(" create create_with create_bulk destroy destroy_many strip defer register ", word))
        op_refused_in_batch(OPS[k].name);
    else
        OPS[k].fn();
    fz_op_count[k]++;
    fz_nested_ops++;
    m.opname = outer;
}

/* In a system that shares its batch, the calls that create, destroy or
   record are refused (LOCKED) and change nothing: one of them, tried.
   (Insertions, removals and sorts are refused by the storages' locks, as
   in a hook: their ops model it.) */
static void op_refused_in_batch(const char *name) {
    int i = m.nlive ? pick_live() : -1;
    ecs_entity e = i >= 0 ? m.slot[i].id : ECS_NULL;
    ecs_component c = m.comp[pick_comp()];
    if (!strcmp(name, "create")) {
        EXPECT_ASSERT(ecs_create(m.w) == ECS_NULL, ECS_ERR_LOCKED);
    } else if (!strcmp(name, "create_with")) {
        EXPECT_ASSERT(ecs_create_n(m.w, 1, &c, NULL) == ECS_NULL, ECS_ERR_LOCKED);
    } else if (!strcmp(name, "create_bulk")) {
        EXPECT_ASSERT(!ecs_create_bulk(m.w, 2, 1, &c, NULL, NULL), ECS_ERR_LOCKED);
    } else if (!strcmp(name, "register")) {
        EXPECT_ASSERT(ecs_register(m.w, "InBatch", 4, 4) == 0, ECS_ERR_LOCKED);
    } else if (e == ECS_NULL) {
        return;
    } else if (!strcmp(name, "defer")) {
        EXPECT_ASSERT(!ecs_defer_destroy(m.w, e), ECS_ERR_LOCKED);
    } else if (!strcmp(name, "strip")) {
        EXPECT_ASSERT(ecs_strip(m.w, e) == 0, ECS_ERR_LOCKED);
    } else {
        EXPECT_ASSERT(!ecs_destroy(m.w, e), ECS_ERR_LOCKED);
    }
}

/* Keeps the tracking lists short, so checking all of them after every op stays cheap. */
static int lists_long(void) {
    int c;
    if (m.created.n > LIST_MAX || m.destroyed.n > LIST_MAX) return 1;
    for (c = 0; c < m.ncomp; c++)
        if (m.st[c].removed.n > LIST_MAX || m.st[c].deleted.n > LIST_MAX) return 1;
    return 0;
}

static void fz_init(void) {
    static int built;
    const char *nr = getenv("FUZZ_NEW_RULES");
    if (built) return;
    build_table(op_table[0], 0);
    build_table(op_table[1], 1);
    build_table(op_table[2], 2);
    m.trace = getenv("FUZZ_TRACE") != NULL;
    m.skip_known = getenv("FUZZ_SKIP_KNOWN") ? ~0u : 0;
    if (getenv("FUZZ_ONLY_BUG")) m.skip_known = ~(1u << atoi(getenv("FUZZ_ONLY_BUG")));
    m.new_rules = nr ? atoi(nr) != 0 : FUZZ_NEW_RULES;
    built = 1;
}

int fz_run_input(const uint8_t *data, size_t size) {
    int ops = 0, c;
    fz_init();
    m.in = data;
    m.n = size;
    m.at = 0;
    m.op = 0;
    m.opname = NULL;
    fa.msg[0] = 0;
    world_new();
    check_world();
    while (m.at < m.n) {
        int k = op_table[m.v2][u8()], oom;
        m.op++;
        if (lists_long()) {
            m.opname = "clear_tracking (lists full)";
            ecs_track_clear(m.w, 0, ECS_TRACK_ALL | ECS_TRACK_ENTITIES);
            m_clear(0, ECS_TRACK_ALL | ECS_TRACK_ENTITIES, ~(ecs_tick)0, 1);
            m.tick++;
            check_world();
        }
        m.opname = OPS[k].name;
        if (m.trace) fprintf(stderr, "op #%ld %s (at %lu)\n", m.op, m.opname, (unsigned long)m.at);
        ecs_clear_error(m.w);
        oom = OPS[k].fn == op_oom;
        al.failed = 0;
        m.budget = OP_BUDGET;
        OPS[k].fn();
        if (!oom) al.armed = 0; /* armed for one op only */
        al.failed = 0;
        fz_op_count[k]++;
        fz_total_ops++;
        ops++;
        /* nothing is left in flight */
        ENSURE(nframes == 0 && m.nbusy == 0 && m.guard == 0 && m.nsorts == 0 && !m.running && m.depth == 0 &&
               m.inflight == 0);
        for (c = 0; c < m.ncomp; c++) ENSURE(m.lockcnt[c] == 0);
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
static long replay_input(const char *path, const unsigned char *buf, size_t len) {
    const char *base = strrchr(path, '/');
    snprintf(m.where, sizeof m.where, "%s (replay it: FUZZ_TRACE=1 build/fuzz/fuzz_replay %s)", path, path);
    fz_init();
    if (strncmp(base ? base + 1 : path, "known-bug-", 10) == 0) m.skip_known = 0; /* the bug itself */
    return fz_run_input(buf, len);
}
#include "replay.h"

/* Random inputs from a fixed seed until `target` ops ran; each input is a
   fresh world. Inputs are short or long (a long one grows big worlds).
   FUZZ_DUMP=file writes each input there before running it. */
static int random_driver(long target, unsigned long long seed) {
    static unsigned char buf[16384];
    long inputs = 0;
    int k;
    clock_t t0 = clock();
    double secs;
    replay_rng = seed ? seed : 1;
    while (fz_total_ops < target) {
        size_t len = replay_rnd(4) ? 16 + replay_rnd(1024) : 1024 + replay_rnd(sizeof buf - 1024), j;
        for (j = 0; j < len; j++) buf[j] = (unsigned char)replay_rnd(256);
        if (replay_rnd(8)) buf[1] |= 0x80; /* mostly the full mode */
        snprintf(m.where, sizeof m.where,
                 "random input %ld of seed %llu (FUZZ_DUMP=file saves it for FUZZ_TRACE=1 fuzz_replay file)", inputs, seed);
        replay_dump(buf, len);
        fz_run_input(buf, len);
        inputs++;
    }
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("random driver: seed %llu, %ld inputs, %ld ops (and %ld calls made by callbacks), %.1f s, every op "
           "checked against the model\n", seed, inputs, fz_total_ops, fz_nested_ops, secs);
    printf("  callbacks: %ld hooks, %ld comparators, %ld systems, %ld run_ifs; %ld forged ids\n", fz_callbacks[0],
           fz_callbacks[1], fz_callbacks[2], fz_callbacks[3], fz_forged);
    printf("  refused as documented: %ld LOCKED, %ld DEAD_ENTITY, %ld INVALID, %ld NOT_FOUND, %ld other\n",
           fz_refused[ECS_ERR_LOCKED], fz_refused[ECS_ERR_DEAD_ENTITY], fz_refused[ECS_ERR_INVALID],
           fz_refused[ECS_ERR_NOT_FOUND],
           fz_refused[ECS_ERR_UNKNOWN_COMPONENT] + fz_refused[ECS_ERR_SIZE_MISMATCH]);
    printf("  ops (top level and in callbacks):\n");
    for (k = 0; k < 64 && fz_op_names[k]; k++) printf("  %-18s %9ld\n", fz_op_names[k], fz_op_count[k]);
    printf("RESULT 1 0\n");
    return 0;
}

int main(int argc, char **argv) {
    return replay_main(argc, argv, random_driver, 1000000, "each step an op checked against the model");
}
#endif
