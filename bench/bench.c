/* bench.c - ecs.h against plain C arrays doing the same work.

   Prints one table: for every workload and entity count N, the time per
   entity of the ecs.h code and of its raw baseline (plain C arrays indexed
   0..N-1), as the minimum and the median over R repetitions after one
   warm-up run, and their ratio; then the memory per entity. How to read it:
   bench/README.md.

       bench [--quick] [--cold] [--n N] [--reps R] [--only TEXT] [--csv FILE]

   --quick (or BENCH_QUICK=1 in the environment): N = 1000, 3 repetitions,
   to check that every workload runs and its checksum matches (make test
   runs it). --cold: every run gets fresh pages from the OS (see
   bench_memory_policy). --n: one N only; --reps: repetitions; --only: the
   rows whose name contains TEXT (handy under valgrind --tool=callgrind).
   --csv: also write the rows to FILE as CSV, one line per row and N (make
   bench writes build/bench/results.csv; make bench-plot draws it).

   Every workload returns a checksum of the work it did (entities handled,
   sum of the values read or stored), computed by the code under test; it
   must equal its raw baseline's. A mismatch prints an error and the program
   exits with status 1, so a workload that skips work cannot pass. Missed
   performance targets are printed (MISS for a guarantee, "open" for a
   goal), but do not change the exit status.

   Adding a workload is one function and one row of ROWS:
       static bench_sum ecs_my_work(bench_run *r)
   builds its input for r->n entities (untimed), brackets the measured part
   with bench_start(r) / bench_stop(r), frees what it built and returns the
   checksum. Add a raw function and a BASELINES row only if no existing
   baseline does the same work. Input that is costly to build and that the
   work does not use up can be built once per measurement and kept in
   r->keep (the iteration workloads do). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime in strict C99 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h> /* mallopt: see bench_memory_policy */
#endif

/* -DBENCH_CALLGRIND: callgrind counts only the timed parts, when run as
   valgrind --tool=callgrind --collect-atstart=no ./bench --only ...,
   and every measurement ends with a dump of its own count, named
   "<row>|runs=R|n=N" (bench/callgrind.sh turns them into a table of
   instructions per entity: make bench-callgrind). */
#ifdef BENCH_CALLGRIND
#include <valgrind/callgrind.h>
#define BENCH_COLLECT() CALLGRIND_TOGGLE_COLLECT
#else
#define BENCH_COLLECT() ((void)0)
#endif

#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"
#include "../examples/hierarchy.h" /* Parent/Child, for the transform workload */
/* the movement workload, serial and on a thread pool; its Position and
   Velocity are its own, renamed here so as not to clash with the ones below */
#define Position movement_Position
#define Velocity movement_Velocity
#include "../examples/movement.h"
#undef Position
#undef Velocity
#include "../examples/pool.h"

#ifndef BENCH_BUILD /* the Makefile passes the compile command */
#define BENCH_BUILD "(built outside the Makefile; flags unknown)"
#endif

typedef struct { float x, y; } Position;
typedef struct { float x, y; } Velocity;
typedef struct { int value; } Data;

/* What the create workloads store in every entity. Integer-valued floats,
   so sums of them are exact whatever the order. */
#define POS0 {1.0f, 2.0f}
#define VEL0 {3.0f, 4.0f}
static const Position pos0 = POS0;
static const Velocity vel0 = VEL0;

/* ------------------------------------------------------------------------- */
/* Harness                                                                   */
/* ------------------------------------------------------------------------- */

/* The checksum of one run: how many entities the work reached, and the sum
   of the values it read or stored. */
typedef struct bench_sum {
    uint64_t count, sum;
} bench_sum;

/* One timed run of a workload. */
typedef struct bench_run {
    uint32_t n;            /* entities to work on */
    const uint32_t *perm;  /* 0..n-1 shuffled; the same order for ecs and raw */
    uint64_t t0, ns;       /* set by bench_start / bench_stop */
    int started, stopped;
    /* What a workload keeps from one run to the next of the same
       measurement (the iteration scenes, bench_scene): NULL in the first
       run; bench_measure hands it to every later run and finally calls
       keep_free(keep). */
    void *keep;
    void (*keep_free)(void *keep);
    size_t bytes;          /* a workload that moves bytes (a snapshot) sets how many: GB/s */
} bench_run;

typedef bench_sum (*bench_fn)(bench_run *r);

static int bench_failed; /* a checksum mismatched: exit status 1 */

static uint64_t bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void bench_start(bench_run *r) {
    r->started = 1;
    BENCH_COLLECT();
    r->t0 = bench_now();
}
static void bench_stop(bench_run *r) {
    r->ns = bench_now() - r->t0;
    BENCH_COLLECT();
    r->stopped = r->started;
}

static void bench_die(const char *what) {
    fprintf(stderr, "bench: %s\n", what);
    exit(2);
}

static void *bench_alloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) bench_die("out of memory");
    return p;
}

/* splitmix64: a fixed, portable sequence, so every run shuffles alike. */
static uint64_t bench_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint32_t *bench_shuffled(uint32_t n) {
    uint32_t *p = (uint32_t *)bench_alloc((size_t)n * sizeof *p), i;
    uint64_t seed = 12345;
    for (i = 0; i < n; i++) p[i] = i;
    for (i = n; i > 1; i--) { /* Fisher-Yates */
        uint32_t j = (uint32_t)(bench_rand(&seed) % i), t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    return p;
}

/* ------------------------------------------------------------------------- */
/* The ecs.h side                                                            */
/* ------------------------------------------------------------------------- */

/* A world with the three components registered, as every workload uses. */
typedef struct bench_ecs {
    ecs_world *w;
    ecs_component pos, vel, data;
} bench_ecs;

static bench_ecs bench_ecs_new(const ecs_desc *desc) {
    bench_ecs b;
    b.w = ecs_world_new(desc);
    if (!b.w) bench_die("ecs_world_new failed");
    b.pos = ECS_COMPONENT(b.w, Position);
    b.vel = ECS_COMPONENT(b.w, Velocity);
    b.data = ECS_COMPONENT(b.w, Data);
    if (!b.pos || !b.vel || !b.data) bench_die("ecs_register failed");
    return b;
}

/* A group owning a and b: what owning adds to create, destroy, add and
   remove is measured by running those workloads with one. */
static ecs_group bench_ecs_group(bench_ecs *b, ecs_component a, ecs_component c) {
    ecs_group_desc g;
    ecs_group id;
    memset(&g, 0, sizeof g);
    g.owned[0] = a;
    g.owned[1] = c;
    if (!(id = ecs_group_new(b->w, &g))) bench_die(ecs_last_error_msg(b->w));
    return id;
}

/* Untimed setup: n entities with pos0 and vel0; their ids go to ids. */
static void bench_ecs_fill(bench_ecs *b, uint32_t n, ecs_entity *ids) {
    const ecs_component comps[2] = {b->pos, b->vel};
    const void *const values[2] = {&pos0, &vel0};
    if (!ecs_create_bulk(b->w, n, 2, comps, values, ids)) bench_die(ecs_last_error_msg(b->w));
}

/* Untimed check of a world: the live entities that have both Position and
   Velocity, and the sum of those values. count is 0 if the world holds
   anything else (an entity or a row without its partner). */
static bench_sum bench_ecs_sum(const bench_ecs *b) {
    bench_sum s = {0, 0};
    uint32_t rows = ecs_storage_count(ecs_storage_of(b->w, b->pos)), i;
    const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(b->w, b->pos));
    const Position *pos = (const Position *)ecs_storage_data(ecs_storage_of(b->w, b->pos));
    for (i = 0; i < rows; i++) {
        const Velocity *v = ECS_GET(b->w, ents[i], b->vel, Velocity);
        if (!ecs_alive(b->w, ents[i]) || !v) continue;
        s.count++;
        s.sum += (uint64_t)pos[i].x + (uint64_t)pos[i].y + (uint64_t)v->x + (uint64_t)v->y;
    }
    if (s.count != ecs_count(b->w) || s.count != ecs_storage_count(ecs_storage_of(b->w, b->vel))) s.count = 0;
    return s;
}

/* a) create one at a time: ecs_create, then ECS_ADD twice. grouped: with
   a group owning Position and Velocity, which each entity joins. */
static bench_sum bench_create_add(bench_run *r, int grouped) {
    bench_ecs b = bench_ecs_new(NULL);
    ecs_group g = grouped ? bench_ecs_group(&b, b.pos, b.vel) : 0;
    uint32_t k, ok = 0;
    bench_sum s;
    bench_start(r);
    for (k = 0; k < r->n; k++) {
        ecs_entity e = ecs_create(b.w);
        ok += ECS_ADD(b.w, e, b.pos, Position, POS0) != NULL;
        ok += ECS_ADD(b.w, e, b.vel, Velocity, VEL0) != NULL;
    }
    bench_stop(r);
    s = bench_ecs_sum(&b);
    if (ok != 2 * r->n || (g && ecs_group_count(b.w, g) != r->n)) s.count = 0;
    ecs_world_free(b.w);
    return s;
}
static bench_sum ecs_create_add(bench_run *r) { return bench_create_add(r, 0); }
static bench_sum ecs_create_add_grouped(bench_run *r) { return bench_create_add(r, 1); }

/* a) create one at a time with the bundle call. */
static bench_sum ecs_create_with_each(bench_run *r) {
    bench_ecs b = bench_ecs_new(NULL);
    const ecs_component comps[2] = {b.pos, b.vel};
    const void *const values[2] = {&pos0, &vel0};
    uint32_t k, ok = 0;
    bench_sum s;
    bench_start(r);
    for (k = 0; k < r->n; k++) ok += ecs_create_n(b.w, 2, comps, values) != ECS_NULL;
    bench_stop(r);
    s = bench_ecs_sum(&b);
    if (ok != r->n) s.count = 0;
    ecs_world_free(b.w);
    return s;
}

/* a) create all N in one bundle call. */
static bench_sum ecs_create_bulk_all(bench_run *r) {
    bench_ecs b = bench_ecs_new(NULL);
    const ecs_component comps[2] = {b.pos, b.vel};
    const void *const values[2] = {&pos0, &vel0};
    bool ok;
    bench_sum s;
    bench_start(r);
    ok = ecs_create_bulk(b.w, r->n, 2, comps, values, NULL);
    bench_stop(r);
    s = bench_ecs_sum(&b);
    if (!ok) s.count = 0;
    ecs_world_free(b.w);
    return s;
}

/* b) destroy all N in creation order. The checksum is what was destroyed:
   the world's checksum taken before, if every destroy succeeded and the
   world is empty after. grouped: every entity leaves a group as it goes. */
static bench_sum bench_destroy_all(bench_run *r, int grouped) {
    bench_ecs b = bench_ecs_new(NULL);
    ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *ids);
    uint32_t k, destroyed = 0;
    bench_sum s;
    ecs_group g = grouped ? bench_ecs_group(&b, b.pos, b.vel) : 0;
    bench_ecs_fill(&b, r->n, ids);
    if (g && ecs_group_count(b.w, g) != r->n) bench_die("the group does not hold every entity");
    s = bench_ecs_sum(&b);
    bench_start(r);
    for (k = 0; k < r->n; k++) destroyed += ecs_destroy(b.w, ids[k]);
    bench_stop(r);
    if (destroyed != s.count || ecs_count(b.w) || ecs_storage_count(ecs_storage_of(b.w, b.pos)) ||
        ecs_storage_count(ecs_storage_of(b.w, b.vel)))
        s.count = 0;
    free(ids);
    ecs_world_free(b.w);
    return s;
}
static bench_sum ecs_destroy_in_order(bench_run *r) { return bench_destroy_all(r, 0); }
static bench_sum ecs_destroy_grouped(bench_run *r) { return bench_destroy_all(r, 1); }

/* c) get Position of every entity in shuffled order, summing its fields:
   through the world (ECS_GET), or through Position's storage handle taken
   once before the loop (ECS_STORAGE_GET), as a hot loop would. */
static bench_sum bench_get_shuffled(bench_run *r, int handle) {
    bench_ecs b = bench_ecs_new(NULL);
    ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *ids);
    ecs_entity *order = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *order);
    uint32_t k, n = r->n;
    uint64_t count = 0;
    double sum = 0;
    bench_sum s;
    const ecs_storage *ps;
    bench_ecs_fill(&b, n, ids);
    for (k = 0; k < n; k++) { /* distinct values: a wrong entity shows in the sum */
        Position *p = ECS_GET_MUT(b.w, ids[k], b.pos, Position);
        p->x = (float)k;
        p->y = (float)(k & 1023);
    }
    for (k = 0; k < n; k++) order[k] = ids[r->perm[k]];
    bench_start(r);
    if (handle) {
        ps = ecs_storage_of(b.w, b.pos);
        for (k = 0; k < n; k++) {
            const Position *p = ECS_STORAGE_GET(ps, order[k], Position);
            if (p) {
                count++;
                sum += (double)p->x + (double)p->y;
            }
        }
    } else {
        for (k = 0; k < n; k++) {
            const Position *p = ECS_GET(b.w, order[k], b.pos, Position);
            if (p) {
                count++;
                sum += (double)p->x + (double)p->y;
            }
        }
    }
    bench_stop(r);
    s.count = count;
    s.sum = (uint64_t)sum;
    free(order);
    free(ids);
    ecs_world_free(b.w);
    return s;
}
static bench_sum ecs_get_shuffled(bench_run *r) { return bench_get_shuffled(r, 0); }
static bench_sum ecs_get_shuffled_handle(bench_run *r) { return bench_get_shuffled(r, 1); }

/* d) add Data to every entity, then remove it from every entity (both in
   creation order); the removed values are summed. tracked: the same with
   ecs_track_set(Data, ECS_TRACK_ALL), so every add stamps an insertion and
   every remove appends to the removed list; the run ends by emptying the
   lists (ecs_track_clear), as a program does once per frame. grouped:
   a group owns Position and Data, so every add joins it (a swap in both
   storages) and every remove leaves it. */
static bench_sum bench_add_remove(bench_run *r, int tracked, int grouped) {
    bench_ecs b = bench_ecs_new(NULL);
    ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *ids);
    uint32_t k, added = 0, recorded = 0, joined;
    bench_sum s = {0, 0};
    ecs_group g = grouped == 1 ? bench_ecs_group(&b, b.pos, b.data) : 0;
    ecs_component q = 0;
    bench_ecs_fill(&b, r->n, ids);
    if (grouped == 2) { /* a cached query on Position and Data: every add joins it, every remove leaves */
        ecs_view_desc d;
        memset(&d, 0, sizeof d);
        d.terms[0].c = b.pos;
        d.terms[1].c = b.data;
        if (!(q = ecs_query_new(b.w, "PD", &d))) bench_die(ecs_last_error_msg(b.w));
        { ecs_iter qi = ecs_view_of(b.w, 1, &q); while (ecs_iter_next_block(&qi)) {} } /* filled (empty) */
    }
    if (tracked && !ecs_track_set(b.w, b.data, ECS_TRACK_ALL)) bench_die(ecs_last_error_msg(b.w));
    bench_start(r);
    for (k = 0; k < r->n; k++) added += ECS_ADD(b.w, ids[k], b.data, Data, {(int)k}) != NULL;
    joined = g ? ecs_group_count(b.w, g) : q ? ecs_storage_count(ecs_storage_of(b.w, q)) : r->n;
    for (k = 0; k < r->n; k++) {
        Data d;
        if (ECS_REMOVE(b.w, ids[k], b.data, Data, &d)) {
            s.count++;
            s.sum += (uint64_t)d.value;
        }
    }
    if (tracked) {
        ecs_track_removed(b.w, b.data, 0, &recorded); /* a binary search: nothing next to the loops */
        ecs_track_clear(b.w, b.data, ECS_TRACK_ALL);
    }
    bench_stop(r);
    if (added != r->n || joined != r->n || ecs_storage_count(ecs_storage_of(b.w, b.data)) || (g && ecs_group_count(b.w, g)) ||
        (q && ecs_storage_count(ecs_storage_of(b.w, q))))
        s.count = 0;
    if (tracked && recorded != r->n) s.count = 0; /* every removal was recorded */
    free(ids);
    ecs_world_free(b.w);
    return s;
}
static bench_sum ecs_add_remove(bench_run *r) { return bench_add_remove(r, 0, 0); }
static bench_sum ecs_add_remove_tracked(bench_run *r) { return bench_add_remove(r, 1, 0); }
static bench_sum ecs_add_remove_grouped(bench_run *r) { return bench_add_remove(r, 0, 1); }
static bench_sum ecs_add_remove_query(bench_run *r) { return bench_add_remove(r, 0, 2); }

/* ------------------------------------------------------------------------- */
/* The raw side: plain C arrays indexed 0..N-1                               */
/* ------------------------------------------------------------------------- */

/* Entities as a C programmer keeps them without a library: one growable
   array per component, index = entity, grown by realloc doubling. held and
   peak count the bytes requested, peak as if realloc copied (old and new
   block both held), which is what ecs.h's allocator interface must do. */
typedef struct raw_world {
    Position *pos;
    Velocity *vel;
    uint32_t count, cap;
    size_t held, peak;
} raw_world;

static void *raw_grow(raw_world *rw, void *p, size_t old_size, size_t new_size) {
    p = realloc(p, new_size);
    if (!p) bench_die("out of memory");
    if (rw->held + new_size > rw->peak) rw->peak = rw->held + new_size;
    rw->held += new_size - old_size;
    return p;
}

static void raw_push(raw_world *rw, Position p, Velocity v) {
    if (rw->count == rw->cap) {
        uint32_t cap = rw->cap ? rw->cap * 2 : 8;
        rw->pos = (Position *)raw_grow(rw, rw->pos, rw->cap * sizeof *rw->pos, cap * sizeof *rw->pos);
        rw->vel = (Velocity *)raw_grow(rw, rw->vel, rw->cap * sizeof *rw->vel, cap * sizeof *rw->vel);
        rw->cap = cap;
    }
    rw->pos[rw->count] = p;
    rw->vel[rw->count] = v;
    rw->count++;
}

static bench_sum raw_sum(const raw_world *rw) {
    bench_sum s = {0, 0};
    uint32_t i;
    for (i = 0; i < rw->count; i++) {
        s.count++;
        s.sum += (uint64_t)rw->pos[i].x + (uint64_t)rw->pos[i].y + (uint64_t)rw->vel[i].x +
                 (uint64_t)rw->vel[i].y;
    }
    return s;
}

static void raw_free(raw_world *rw) {
    free(rw->pos);
    free(rw->vel);
}

/* Baseline of every create and of destroy: push N entities. */
static bench_sum raw_create(bench_run *r) {
    raw_world rw = {0};
    uint32_t k;
    bench_sum s;
    bench_start(r);
    for (k = 0; k < r->n; k++) raw_push(&rw, pos0, vel0);
    bench_stop(r);
    s = raw_sum(&rw);
    raw_free(&rw);
    return s;
}

/* Baseline of get: index the Position array with the shuffled index. */
static bench_sum raw_get_shuffled(bench_run *r) {
    raw_world rw = {0};
    uint32_t *order = (uint32_t *)bench_alloc((size_t)r->n * sizeof *order), k;
    uint64_t count = 0;
    double sum = 0;
    bench_sum s;
    for (k = 0; k < r->n; k++) raw_push(&rw, pos0, vel0);
    for (k = 0; k < r->n; k++) {
        rw.pos[k].x = (float)k;
        rw.pos[k].y = (float)(k & 1023);
    }
    for (k = 0; k < r->n; k++) order[k] = r->perm[k];
    bench_start(r);
    for (k = 0; k < r->n; k++) {
        const Position *p = &rw.pos[order[k]];
        count++;
        sum += (double)p->x + (double)p->y;
    }
    bench_stop(r);
    s.count = count;
    s.sum = (uint64_t)sum;
    free(order);
    raw_free(&rw);
    return s;
}

/* Baseline of add+remove: an optional component without a library is a
   column of values plus a presence flag, both sized for every entity.
   Adding writes the value and sets the flag; removing checks the flag,
   reads the value out and clears the flag. */
static bench_sum raw_add_remove(bench_run *r) {
    raw_world rw = {0};
    Data *data = (Data *)bench_alloc((size_t)r->n * sizeof *data);
    unsigned char *has = (unsigned char *)calloc(r->n ? r->n : 1, 1);
    uint32_t k;
    bench_sum s = {0, 0};
    if (!has) bench_die("out of memory");
    for (k = 0; k < r->n; k++) raw_push(&rw, pos0, vel0);
    bench_start(r);
    for (k = 0; k < r->n; k++) {
        data[k].value = (int)k;
        has[k] = 1;
    }
    for (k = 0; k < r->n; k++) {
        if (has[k]) {
            s.count++;
            s.sum += (uint64_t)data[k].value;
            has[k] = 0;
        }
    }
    bench_stop(r);
    free(has);
    free(data);
    raw_free(&rw);
    return s;
}

/* ------------------------------------------------------------------------- */
/* Iteration: views against loops over arrays                                */
/* ------------------------------------------------------------------------- */

/* Every iteration workload walks a scene of N entities numbered k = 0..N-1
   in creation order. Entity k starts with bench_pos_of(k) etc.: integers
   stored as floats, so every result below is exact and the same in any
   order (ecs.h walks its rows from the last to the first). The ecs.h side
   keeps them in a world, the raw side in arrays indexed by k.

   Building a scene costs far more than walking it, so a scene is built
   once per measurement, in the warm-up run (untimed, kept in r->keep), and
   every run starts by restoring the Position values (untimed) and then
   times one pass. */
enum {
    SCENE_PV,     /* Position + Velocity, created together */
    SCENE_HALF,   /* the same, then Velocity removed from every odd k */
    SCENE_PVD,    /* Position + Velocity + Data, created together */
    SCENE_FROZEN, /* Position + Velocity; the tag Frozen on every k % 3 == 0 */
    SCENE_RARE,   /* Position + Velocity; the tag Rare on every k % 100 == 0 (the view's third term) */
    SCENE_TRACKED = 0x100, /* flag: Position tracks modification (ecs.h side) */
    SCENE_GROUPED = 0x200, /* flag: a group owns the scene's components (ecs.h side) */
    SCENE_CHURN = 0x400,   /* flag: before each run, one entity loses Velocity and gets it back */
    SCENE_QUERY = 0x800    /* flag: a cached query on the view's terms leads the walk (ecs.h side) */
};

static Position bench_pos_of(uint32_t k) {
    Position p;
    p.x = (float)k;
    p.y = (float)(k & 1023);
    return p;
}
static Velocity bench_vel_of(uint32_t k) {
    Velocity v;
    v.x = (float)(k & 7);
    v.y = (float)(k & 3) + 1;
    return v;
}
static Data bench_data_of(uint32_t k) {
    Data d;
    d.value = (int)(k % 5);
    return d;
}
static int bench_has_vel(unsigned kind, uint32_t k) { return (kind & 0xff) != SCENE_HALF || k % 2 == 0; }
static int bench_frozen(unsigned kind, uint32_t k) { return (kind & 0xff) == SCENE_FROZEN && k % 3 == 0; }
static int bench_rare(unsigned kind, uint32_t k) { return (kind & 0xff) == SCENE_RARE && k % 100 == 0; }

typedef struct bench_scene {
    uint32_t n;
    bench_ecs b;            /* ecs.h side (b.w is NULL on the raw side) */
    ecs_component frozen;   /* ecs.h side: the tag (Frozen, or Rare) */
    ecs_component query;    /* ecs.h side: SCENE_QUERY's tag */
    Position *pos;          /* raw side: the arrays, index k */
    Velocity *vel;
    Data *data;
    unsigned char *is_frozen;
    Position *pos0;         /* both: the Position values every run starts from, by row */
    Position *rpos;         /* raw side of SCENE_RARE: the rare entities' values, packed */
    Velocity *rvel;
} bench_scene;

static void bench_scene_free(void *p) {
    bench_scene *sc = (bench_scene *)p;
    if (sc->b.w) ecs_world_free(sc->b.w);
    free(sc->pos);
    free(sc->vel);
    free(sc->data);
    free(sc->is_frozen);
    free(sc->pos0);
    free(sc->rpos);
    free(sc->rvel);
    free(sc);
}

static bench_scene *bench_scene_new(bench_run *r) {
    bench_scene *sc = (bench_scene *)bench_alloc(sizeof *sc);
    memset(sc, 0, sizeof *sc);
    sc->n = r->n;
    sc->pos0 = (Position *)bench_alloc((size_t)r->n * sizeof *sc->pos0);
    r->keep = sc;
    r->keep_free = bench_scene_free;
    return sc;
}

/* The world of scene `kind`, built in the first run, its Position values
   restored in every run. */
static bench_scene *bench_scene_ecs(bench_run *r, unsigned kind) {
    bench_scene *sc = (bench_scene *)r->keep;
    if (!sc) {
        ecs_component comps[3];
        ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *ids);
        uint32_t k, ncomps = (kind & 0xff) == SCENE_PVD ? 3 : 2;
        ecs_world *w;
        sc = bench_scene_new(r);
        sc->b = bench_ecs_new(NULL);
        w = sc->b.w;
        comps[0] = sc->b.pos;
        comps[1] = sc->b.vel;
        comps[2] = sc->b.data;
        if (!ecs_create_bulk(w, r->n, ncomps, comps, NULL, ids)) bench_die(ecs_last_error_msg(w));
        if ((kind & 0xff) == SCENE_FROZEN && !(sc->frozen = ECS_TAG(w, "Frozen")))
            bench_die(ecs_last_error_msg(w));
        if ((kind & 0xff) == SCENE_RARE && !(sc->frozen = ECS_TAG(w, "Rare")))
            bench_die(ecs_last_error_msg(w));
        for (k = 0; k < r->n; k++) {
            *ECS_GET_MUT(w, ids[k], sc->b.pos, Position) = bench_pos_of(k);
            *ECS_GET_MUT(w, ids[k], sc->b.vel, Velocity) = bench_vel_of(k);
            if (ncomps == 3) *ECS_GET_MUT(w, ids[k], sc->b.data, Data) = bench_data_of(k);
        }
        for (k = 0; k < r->n; k++) {
            if (!bench_has_vel(kind, k) && !ecs_delete(w, ids[k], sc->b.vel)) bench_die("delete");
            if ((bench_frozen(kind, k) || bench_rare(kind, k)) && !ecs_add(w, ids[k], sc->frozen, NULL))
                bench_die(ecs_last_error_msg(w));
        }
        if ((kind & SCENE_TRACKED) && !ecs_track_set(w, sc->b.pos, ECS_TRACK_MODIFICATION))
            bench_die(ecs_last_error_msg(w));
        if (kind & SCENE_GROUPED) { /* packs the matching entities in rows 0..len-1 */
            ecs_group_desc g;
            memset(&g, 0, sizeof g);
            memcpy(g.owned, comps, ncomps * sizeof comps[0]);
            g.excluded[0] = sc->frozen;
            if (!ecs_group_new(w, &g)) bench_die(ecs_last_error_msg(w));
        }
        if (kind & SCENE_QUERY) { /* the entities of Position, Velocity (and not Frozen), kept */
            ecs_view_desc q;
            memset(&q, 0, sizeof q);
            q.terms[0].c = sc->b.pos;
            q.terms[1].c = sc->b.vel;
            q.terms[2].c = sc->frozen;
            q.terms[2].flags = (kind & 0xff) == SCENE_RARE ? 0 : ECS_NOT;
            if (!(sc->query = ecs_query_new(w, "Moving", &q))) bench_die(ecs_last_error_msg(w));
            { ecs_iter qi = ecs_view_of(w, 1, &sc->query); while (ecs_iter_next_block(&qi)) {} } /* filled by its first view */
        }
        memcpy(sc->pos0, ecs_storage_data(ecs_storage_of(w, sc->b.pos)), (size_t)r->n * sizeof *sc->pos0);
        free(ids);
    }
    /* writing the storage directly marks nothing, even when tracked */
    memcpy(ecs_storage_data(ecs_storage_of(sc->b.w, sc->b.pos)), sc->pos0, (size_t)sc->n * sizeof *sc->pos0);
    return sc;
}

/* The arrays of scene `kind`: index k holds entity k. */
static bench_scene *bench_scene_raw(bench_run *r, unsigned kind) {
    bench_scene *sc = (bench_scene *)r->keep;
    if (!sc) {
        uint32_t k;
        sc = bench_scene_new(r);
        sc->pos = (Position *)bench_alloc((size_t)r->n * sizeof *sc->pos);
        sc->vel = (Velocity *)bench_alloc((size_t)r->n * sizeof *sc->vel);
        sc->data = (Data *)bench_alloc((size_t)r->n * sizeof *sc->data);
        sc->is_frozen = (unsigned char *)bench_alloc(r->n);
        for (k = 0; k < r->n; k++) {
            sc->pos0[k] = bench_pos_of(k);
            sc->vel[k] = bench_vel_of(k);
            sc->data[k] = bench_data_of(k);
            sc->is_frozen[k] = (unsigned char)bench_frozen(kind, k);
        }
    }
    memcpy(sc->pos, sc->pos0, (size_t)sc->n * sizeof *sc->pos);
    return sc;
}

/* The checksum of a run that moved entities: how many the loop reached,
   and the sum of every Position afterwards. */
static bench_sum bench_pos_sum(uint64_t count, const Position *pos, uint32_t n) {
    bench_sum s;
    uint32_t i;
    s.count = count;
    s.sum = 0;
    for (i = 0; i < n; i++) s.sum += (uint64_t)pos[i].x + (uint64_t)pos[i].y;
    return s;
}

/* Tracked scenes: every entity the loop reached must be marked modified
   after `since`, and no other. count becomes 0 if not. */
static bench_sum bench_check_marks(bench_sum s, const bench_scene *sc, ecs_tick since) {
    const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(sc->b.w, sc->b.pos));
    uint32_t i, marked = 0;
    for (i = 0; i < sc->n; i++) marked += ecs_track_modified(sc->b.w, ents[i], sc->b.pos, since);
    if (marked != s.count) s.count = 0;
    return s;
}

/* How many entities a view yields: the count of a per-entity run's
   checksum, taken after its timed part, so that its loop does what the
   raw loop does and no more (a loop that missed or repeated an entity
   shows in the values it summed or moved). */
static uint64_t bench_view_count(ecs_iter it) {
    uint64_t n = 0;
    while (ecs_iter_next_block(&it)) n += it.count;
    return n;
}

/* f) iterate 1: read Position of every entity. The loop sums (int)(x + y)
   into 32 bits (wrapping): integer additions, the same in any order, and
   no chain of floating-point additions whose latency would hide the cost
   of the loop itself. */
static bench_sum ecs_iter1_each(bench_run *r) {
    bench_scene *sc = bench_scene_ecs(r, SCENE_PV);
    ecs_iter it;
    uint32_t sum = 0;
    bench_sum s = {0, 0};
    bench_start(r);
    it = ecs_view_of(sc->b.w, 1, &sc->b.pos);
    ECS_EACH(&it) {
        const Position *p = ECS_FIELD(&it, 0, Position);
        sum += (uint32_t)(int32_t)(p->x + p->y);
    }
    bench_stop(r);
    s.count = bench_view_count(ecs_view_of(sc->b.w, 1, &sc->b.pos));
    s.sum = sum;
    return s;
}

static bench_sum ecs_iter1_block(bench_run *r) {
    bench_scene *sc = bench_scene_ecs(r, SCENE_PV);
    ecs_iter it;
    uint32_t sum = 0, j;
    bench_sum s = {0, 0};
    bench_start(r);
    it = ecs_view_of(sc->b.w, 1, &sc->b.pos);
    while (ecs_iter_next_block(&it)) {
        const Position *p = ECS_BLOCK(&it, 0, Position);
        for (j = 0; j < it.count; j++) sum += (uint32_t)(int32_t)(p[j].x + p[j].y);
        s.count += it.count;
    }
    bench_stop(r);
    s.sum = sum;
    return s;
}

static bench_sum raw_iter1(bench_run *r) {
    bench_scene *sc = bench_scene_raw(r, SCENE_PV);
    const Position *pos = sc->pos;
    uint32_t sum = 0, i;
    bench_sum s = {0, 0};
    bench_start(r);
    for (i = 0; i < r->n; i++) sum += (uint32_t)(int32_t)(pos[i].x + pos[i].y);
    s.count = r->n;
    bench_stop(r);
    s.sum = sum;
    return s;
}

/* g) iterate 2: Position += Velocity, with the view Position (ECS_WRITE) +
   Velocity [+ NOT Frozen]. One function serves the scenes: every entity
   (SCENE_PV), every second one (SCENE_HALF), with Position tracked
   (SCENE_TRACKED), without the frozen third (SCENE_FROZEN), and each of
   them with a group owning the components (SCENE_GROUPED), which the view
   then walks as one block. */
static bench_sum bench_move(bench_run *r, unsigned kind, int blocks) {
    bench_scene *sc = bench_scene_ecs(r, kind);
    ecs_view_desc d;
    ecs_iter it;
    ecs_tick since = ecs_tick_advance(sc->b.w); /* changes from here on are this run's */
    uint64_t count = 0;
    uint32_t j;
    memset(&d, 0, sizeof d);
    d.terms[0].c = sc->b.pos;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = sc->b.vel;
    d.terms[2].c = sc->frozen; /* 0 (the end of the terms) unless SCENE_FROZEN or SCENE_RARE */
    d.terms[2].flags = (kind & 0xff) == SCENE_RARE ? 0 : ECS_NOT;
    if (kind & SCENE_QUERY) { /* the query's tag leads (the terms stay: they give the values) */
        d.terms[sc->frozen ? 3 : 2].c = sc->query;
        d.terms[sc->frozen ? 3 : 2].flags = 0;
        d.lead = sc->query;
    }
    if (kind & SCENE_CHURN) { /* the rows stay in step, but a row moved: ecs.h must compare again */
        ecs_entity last = ecs_storage_entities(ecs_storage_of(sc->b.w, sc->b.vel))[ecs_storage_count(ecs_storage_of(sc->b.w, sc->b.vel)) - 1];
        Velocity v;
        if (!ECS_REMOVE(sc->b.w, last, sc->b.vel, Velocity, &v) || !ecs_add(sc->b.w, last, sc->b.vel, &v))
            bench_die("churn failed");
    }
    bench_start(r);
    it = ecs_view(sc->b.w, &d);
    if (blocks) {
        while (ecs_iter_next_block(&it)) {
            Position *p = ECS_BLOCK(&it, 0, Position);
            const Velocity *v = ECS_BLOCK(&it, 1, Velocity);
            for (j = 0; j < it.count; j++) {
                p[j].x += v[j].x;
                p[j].y += v[j].y;
            }
            count += it.count;
        }
    } else {
        ECS_EACH(&it) {
            Position *p = ECS_FIELD(&it, 0, Position);
            const Velocity *v = ECS_FIELD(&it, 1, Velocity);
            p->x += v->x;
            p->y += v->y;
        }
    }
    bench_stop(r);
    if (!blocks) { /* counted by a walk that marks nothing: the marks checked are the timed loop's */
        d.terms[0].flags = 0;
        count = bench_view_count(ecs_view(sc->b.w, &d));
    }
    {
        bench_sum s = bench_pos_sum(count, (const Position *)ecs_storage_data(ecs_storage_of(sc->b.w, sc->b.pos)), sc->n);
        return kind & SCENE_TRACKED ? bench_check_marks(s, sc, since) : s;
    }
}
static bench_sum ecs_iter2_each(bench_run *r) { return bench_move(r, SCENE_PV, 0); }
static bench_sum ecs_iter2_block(bench_run *r) { return bench_move(r, SCENE_PV, 1); }
static bench_sum ecs_iter2_block_churn(bench_run *r) { return bench_move(r, SCENE_PV | SCENE_CHURN, 1); }
static bench_sum ecs_half_each(bench_run *r) { return bench_move(r, SCENE_HALF, 0); }
static bench_sum ecs_half_block(bench_run *r) { return bench_move(r, SCENE_HALF, 1); }
static bench_sum ecs_tracked_each(bench_run *r) { return bench_move(r, SCENE_PV | SCENE_TRACKED, 0); }
static bench_sum ecs_tracked_block(bench_run *r) { return bench_move(r, SCENE_PV | SCENE_TRACKED, 1); }
static bench_sum ecs_frozen_each(bench_run *r) { return bench_move(r, SCENE_FROZEN, 0); }
static bench_sum ecs_frozen_block(bench_run *r) { return bench_move(r, SCENE_FROZEN, 1); }
static bench_sum ecs_iter2_group(bench_run *r) { return bench_move(r, SCENE_PV | SCENE_GROUPED, 1); }
static bench_sum ecs_half_group(bench_run *r) { return bench_move(r, SCENE_HALF | SCENE_GROUPED, 1); }
static bench_sum ecs_frozen_group(bench_run *r) { return bench_move(r, SCENE_FROZEN | SCENE_GROUPED, 1); }
static bench_sum ecs_half_query_each(bench_run *r) { return bench_move(r, SCENE_HALF | SCENE_QUERY, 0); }
static bench_sum ecs_half_query_block(bench_run *r) { return bench_move(r, SCENE_HALF | SCENE_QUERY, 1); }
static bench_sum ecs_rare_each(bench_run *r) { return bench_move(r, SCENE_RARE, 0); }
static bench_sum ecs_rare_query_each(bench_run *r) { return bench_move(r, SCENE_RARE | SCENE_QUERY, 0); }

/* Baseline of the rare rows: the 1% in arrays of their own (the values
   moved back into place untimed, for the checksum). */
static bench_sum raw_rare(bench_run *r) {
    bench_scene *sc = bench_scene_raw(r, SCENE_RARE);
    uint32_t i, j, m = (r->n + 99) / 100;
    if (!sc->rpos) {
        sc->rpos = (Position *)bench_alloc((size_t)m * sizeof *sc->rpos);
        sc->rvel = (Velocity *)bench_alloc((size_t)m * sizeof *sc->rvel);
        for (j = 0; j < m; j++) sc->rvel[j] = sc->vel[j * 100];
    }
    for (j = 0; j < m; j++) sc->rpos[j] = sc->pos[j * 100];
    bench_start(r);
    for (i = 0; i < m; i++) {
        sc->rpos[i].x += sc->rvel[i].x;
        sc->rpos[i].y += sc->rvel[i].y;
    }
    bench_stop(r);
    for (j = 0; j < m; j++) sc->pos[j * 100] = sc->rpos[j];
    return bench_pos_sum(m, sc->pos, r->n);
}

/* Baseline of iterate 2 and of its tracked form. */
static bench_sum raw_iter2(bench_run *r) {
    bench_scene *sc = bench_scene_raw(r, SCENE_PV);
    Position *pos = sc->pos;
    const Velocity *vel = sc->vel;
    uint32_t i;
    bench_start(r);
    for (i = 0; i < r->n; i++) {
        pos[i].x += vel[i].x;
        pos[i].y += vel[i].y;
    }
    bench_stop(r);
    return bench_pos_sum(r->n, pos, r->n);
}

/* Baseline of iterate 2 mixed: a program that knows the even entities are
   the ones that move. */
static bench_sum raw_half(bench_run *r) {
    bench_scene *sc = bench_scene_raw(r, SCENE_HALF);
    Position *pos = sc->pos;
    const Velocity *vel = sc->vel;
    uint64_t count = 0;
    uint32_t i;
    bench_start(r);
    for (i = 0; i < r->n; i += 2) {
        pos[i].x += vel[i].x;
        pos[i].y += vel[i].y;
    }
    bench_stop(r);
    count = (r->n + 1) / 2;
    return bench_pos_sum(count, pos, r->n);
}

/* Baseline of iterate 2 NOT Frozen: a flag per entity, tested in the loop. */
static bench_sum raw_frozen(bench_run *r) {
    bench_scene *sc = bench_scene_raw(r, SCENE_FROZEN);
    Position *pos = sc->pos;
    const Velocity *vel = sc->vel;
    const unsigned char *frozen = sc->is_frozen;
    uint64_t count = 0;
    uint32_t i;
    bench_start(r);
    for (i = 0; i < r->n; i++) {
        if (frozen[i]) continue;
        pos[i].x += vel[i].x;
        pos[i].y += vel[i].y;
        count++;
    }
    bench_stop(r);
    return bench_pos_sum(count, pos, r->n);
}

/* h) iterate 3: Position += Velocity * Data over entities with all three. */
static bench_sum bench_iter3(bench_run *r, unsigned kind, int blocks) {
    bench_scene *sc = bench_scene_ecs(r, kind);
    ecs_view_desc d;
    ecs_iter it;
    uint64_t count = 0;
    uint32_t j;
    memset(&d, 0, sizeof d);
    d.terms[0].c = sc->b.pos;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = sc->b.vel;
    d.terms[2].c = sc->b.data;
    bench_start(r);
    it = ecs_view(sc->b.w, &d);
    if (blocks) {
        while (ecs_iter_next_block(&it)) {
            Position *p = ECS_BLOCK(&it, 0, Position);
            const Velocity *v = ECS_BLOCK(&it, 1, Velocity);
            const Data *dt = ECS_BLOCK(&it, 2, Data);
            for (j = 0; j < it.count; j++) {
                p[j].x += v[j].x * (float)dt[j].value;
                p[j].y += v[j].y * (float)dt[j].value;
            }
            count += it.count;
        }
    } else {
        ECS_EACH(&it) {
            Position *p = ECS_FIELD(&it, 0, Position);
            const Velocity *v = ECS_FIELD(&it, 1, Velocity);
            const Data *dt = ECS_FIELD(&it, 2, Data);
            p->x += v->x * (float)dt->value;
            p->y += v->y * (float)dt->value;
        }
    }
    bench_stop(r);
    if (!blocks) { /* counted by a walk that marks nothing: the marks checked are the timed loop's */
        d.terms[0].flags = 0;
        count = bench_view_count(ecs_view(sc->b.w, &d));
    }
    return bench_pos_sum(count, (const Position *)ecs_storage_data(ecs_storage_of(sc->b.w, sc->b.pos)), sc->n);
}
static bench_sum ecs_iter3_each(bench_run *r) { return bench_iter3(r, SCENE_PVD, 0); }
static bench_sum ecs_iter3_block(bench_run *r) { return bench_iter3(r, SCENE_PVD, 1); }
static bench_sum ecs_iter3_group(bench_run *r) { return bench_iter3(r, SCENE_PVD | SCENE_GROUPED, 1); }

static bench_sum raw_iter3(bench_run *r) {
    bench_scene *sc = bench_scene_raw(r, SCENE_PVD);
    Position *pos = sc->pos;
    const Velocity *vel = sc->vel;
    const Data *data = sc->data;
    uint32_t i;
    bench_start(r);
    for (i = 0; i < r->n; i++) {
        pos[i].x += vel[i].x * (float)data[i].value;
        pos[i].y += vel[i].y * (float)data[i].value;
    }
    bench_stop(r);
    return bench_pos_sum(r->n, pos, r->n);
}

/* ------------------------------------------------------------------------- */
/* Hierarchy: transform propagation down a tree                              */
/* ------------------------------------------------------------------------- */

/* i) A tree of N nodes: node 0 is the root and node k's parent is
   (k - 1) / 4, so every inner node has 4 children (depth ~log4 N). A pass
   sets every node's world transform to its parent's world plus its own
   local transform, parents before children.
   ecs.h side: examples/hierarchy.h with its parent-first order
   (hierarchy_transforms_init before the tree is built, then
   hierarchy_attach_new and the two ECS_ADDs per node, in node order); the
   pass is hierarchy_update_transforms' loop over hierarchy_plan_all (or
   hierarchy_plan_moved), adding instead of rotating.
   Raw side: the tree as a parent index per node, stored parent before
   child, and one loop over it. Values are small integers: exact sums.
   The rows of the tree's edits (1% moved, reparent) restore the tree they
   change, untimed, so each run starts alike and ends with the raw tree's
   world values: their checksum is the raw tree's. */
#define TREE_FANOUT 4u

static Transform bench_local_of(uint32_t k) {
    Transform t;
    t.x = (float)(k & 15);
    t.y = (float)(k & 7);
    t.angle = (float)(k & 3);
    return t;
}

static WorldTransform bench_place(WorldTransform parent, Transform local) {
    parent.x += local.x;
    parent.y += local.y;
    parent.angle += local.angle;
    return parent;
}

static uint64_t bench_world_sum(WorldTransform w) {
    return (uint64_t)w.x + (uint64_t)w.y + (uint64_t)w.angle;
}

typedef struct bench_tree {
    uint32_t n;
    ecs_world *w;           /* ecs.h side */
    hierarchy h;            /* its hooks point here: the struct stays on the heap */
    ecs_component local, world;
    ecs_entity *ids;        /* node k */
    uint32_t *picked, npicked; /* the 1% moved row's nodes */
    uint32_t *parent;       /* raw side: parent[k] < k for k > 0 */
    Transform *locals;
    WorldTransform *worlds;
} bench_tree;

static void bench_tree_free(void *p) {
    bench_tree *t = (bench_tree *)p;
    if (t->w) ecs_world_free(t->w);
    free(t->ids);
    free(t->picked);
    free(t->parent);
    free(t->locals);
    free(t->worlds);
    free(t);
}

static bench_tree *bench_tree_new(bench_run *r) {
    bench_tree *t = (bench_tree *)bench_alloc(sizeof *t);
    memset(t, 0, sizeof *t);
    t->n = r->n;
    r->keep = t;
    r->keep_free = bench_tree_free;
    return t;
}

/* A world with the hierarchy and its parent-first order of Transform and
   WorldTransform, for n nodes. */
static void bench_tree_world(bench_tree *t) {
    t->w = ecs_world_new(NULL);
    if (!t->w || !hierarchy_init(&t->h, t->w)) bench_die("hierarchy_init failed");
    t->local = ECS_COMPONENT(t->w, Transform);
    t->world = ECS_COMPONENT(t->w, WorldTransform);
    if (!hierarchy_transforms_init(&t->h, t->local, t->world)) bench_die("hierarchy_transforms_init failed");
    t->ids = (ecs_entity *)bench_alloc((size_t)t->n * sizeof *t->ids);
}

/* Node k: a root (k = 0) or a new child of node (k - 1) / 4, with its
   Transform and a WorldTransform. What the spawn row times. */
static void bench_tree_spawn(bench_tree *t, uint32_t k) {
    Transform local = bench_local_of(k);
    ecs_entity e = k ? hierarchy_attach_new(&t->h, t->ids[(k - 1) / TREE_FANOUT]) : ecs_create(t->w);
    if (!e || !ECS_ADD(t->w, e, t->local, Transform, local) ||
        !ECS_ADD(t->w, e, t->world, WorldTransform, {0, 0, 0}))
        bench_die(ecs_last_error_msg(t->w));
    t->ids[k] = e;
}

/* hierarchy_update_transforms' loop over the steps, adding. */
static void bench_tree_pass(bench_tree *t, const hierarchy_step *s, uint32_t n) {
    static const WorldTransform origin = {0, 0, 0};
    const Transform *local = (const Transform *)ecs_storage_data(ecs_storage_of(t->w, t->local));
    WorldTransform *world = (WorldTransform *)ecs_storage_data(ecs_storage_of(t->w, t->world));
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint32_t row = s[i].row, up = s[i].up;
        if (row != HIERARCHY_NONE) world[row] = bench_place(up == HIERARCHY_NONE ? origin : world[up], local[row]);
    }
}

/* The tree of r, built in its first run (with its world values computed). */
static bench_tree *bench_tree_ecs(bench_run *r) {
    bench_tree *t = (bench_tree *)r->keep;
    const hierarchy_step *s;
    uint32_t k, n;
    if (t) return t;
    t = bench_tree_new(r);
    bench_tree_world(t);
    for (k = 0; k < r->n; k++) bench_tree_spawn(t, k);
    if (!(s = hierarchy_plan_all(&t->h, &n))) bench_die("hierarchy_plan_all failed");
    bench_tree_pass(t, s, n);
    return t;
}

/* Untimed: the world values' checksum. */
static bench_sum bench_tree_sum(const bench_tree *t) {
    const ecs_storage *st = ecs_storage_of(t->w, t->world);
    const WorldTransform *w = (const WorldTransform *)ecs_storage_data(st);
    bench_sum s = {0, 0};
    uint32_t i;
    s.count = ecs_storage_count(st);
    for (i = 0; i < s.count; i++) s.sum += bench_world_sum(w[i]);
    return s;
}

static bench_sum ecs_tree_transforms(bench_run *r) {
    bench_tree *t = bench_tree_ecs(r);
    const hierarchy_step *s;
    uint32_t n;
    const ecs_storage *ws = ecs_storage_of(t->w, t->world);
    /* untimed: the world values zeroed, so that the checksum covers this pass (a raw write marks nothing) */
    memset(ecs_storage_data(ws), 0, (size_t)ecs_storage_count(ws) * sizeof(WorldTransform));
    bench_start(r);
    s = hierarchy_plan_all(&t->h, &n);
    bench_tree_pass(t, s, n);
    bench_stop(r);
    return bench_tree_sum(t);
}

/* 1% of the nodes (at least one), picked at random with a fixed seed
   among the leaves (leaves) or among all nodes; ascending, no repeats. */
static void bench_tree_pick(bench_tree *t, int leaves) {
    uint32_t n = t->n, first = leaves ? (n - 1) / TREE_FANOUT + 1 : 0, want = n / 100 ? n / 100 : 1, k;
    unsigned char *taken = (unsigned char *)bench_alloc(n);
    uint64_t seed = 777;
    memset(taken, 0, n);
    for (k = 0; k < want;) {
        uint32_t pick = first + (uint32_t)(bench_rand(&seed) % (n - first));
        if (!taken[pick]) taken[pick] = 1, k++;
    }
    t->picked = (uint32_t *)bench_alloc((size_t)want * sizeof *t->picked);
    for (k = 0; k < n; k++)
        if (taken[k]) t->picked[t->npicked++] = k;
    free(taken);
}

/* 1% of the nodes moved (bench_tree_pick), each marked with
   hierarchy_mark_moved. So that a pass which skipped one would show, the
   world values of the picked nodes' subtrees are zeroed first (untimed);
   their Transforms stay, so the pass gives the raw tree's values again. */
static bench_sum bench_tree_moved(bench_run *r, int leaves) {
    bench_tree *t = bench_tree_ecs(r);
    const hierarchy_step *s;
    uint32_t k, n;
    static const WorldTransform zero = {0, 0, 0};
    if (!t->picked) bench_tree_pick(t, leaves);
    for (k = 0; k < t->npicked; k++) {
        ecs_entity e = t->ids[t->picked[k]];
        hierarchy_iter d;
        *ECS_GET_MUT(t->w, e, t->world, WorldTransform) = zero;
        for (d = hierarchy_descendants(&t->h, e); hierarchy_next(&d);)
            *ECS_GET_MUT(t->w, d.entity, t->world, WorldTransform) = zero;
        if (!hierarchy_mark_moved(&t->h, e)) bench_die("hierarchy_mark_moved failed");
    }
    bench_start(r);
    s = hierarchy_plan_moved(&t->h, &n);
    bench_tree_pass(t, s, n);
    bench_stop(r);
    return bench_tree_sum(t);
}
static bench_sum ecs_tree_moved_leaves(bench_run *r) { return bench_tree_moved(r, 1); }
static bench_sum ecs_tree_moved_any(bench_run *r) { return bench_tree_moved(r, 0); }

/* The 1% moved leaves found by ecs.h's modification tracking instead of
   marked by the code that moved them: the Transform storage tracks
   modification, the moves are ECS_GET_MUTs (untimed, after a clear), and
   the timed part walks a view with an ECS_MODIFIED term over Transform,
   marking what it yields, before the same pass. What examples/hierarchy.h
   would cost if it found the moved entities through tracking. */
static bench_sum ecs_tree_moved_tracked(bench_run *r) {
    bench_tree *t = bench_tree_ecs(r);
    const hierarchy_step *s;
    ecs_view_desc d;
    ecs_iter it;
    uint32_t k, n;
    static const WorldTransform zero = {0, 0, 0};
    if (!t->picked) {
        bench_tree_pick(t, 1);
        if (!ecs_track_set(t->w, t->local, ECS_TRACK_MODIFICATION)) bench_die("ecs_track_set failed");
    }
    ecs_track_clear(t->w, t->local, ECS_TRACK_MODIFICATION);
    for (k = 0; k < t->npicked; k++) {
        ecs_entity e = t->ids[t->picked[k]];
        Transform *local = ECS_GET_MUT(t->w, e, t->local, Transform); /* the move: the same value */
        *local = bench_local_of(t->picked[k]);
        *ECS_GET_MUT(t->w, e, t->world, WorldTransform) = zero;
    }
    memset(&d, 0, sizeof d);
    d.terms[0].c = t->local;
    d.terms[0].flags = ECS_MODIFIED;
    bench_start(r);
    for (it = ecs_view(t->w, &d); ecs_iter_next(&it);) hierarchy_mark_moved(&t->h, ecs_iter_entity(&it));
    s = hierarchy_plan_moved(&t->h, &n);
    bench_tree_pass(t, s, n);
    bench_stop(r);
    return bench_tree_sum(t);
}

/* The node with the smallest subtree of at least 100 nodes (the first
   such, in node order), from the subtree sizes of the raw layout: 160 to
   320 nodes at the N of the table (320 at 1M; full 4-ary subtrees have
   85 or 341). */
static uint32_t bench_tree_node_of_100(uint32_t n) {
    uint32_t *size = (uint32_t *)bench_alloc((size_t)n * sizeof *size), k, best = 0;
    for (k = 0; k < n; k++) size[k] = 1;
    for (k = n - 1; k > 0; k--) size[(k - 1) / TREE_FANOUT] += size[k];
    for (k = 1; k < n; k++)
        if (size[k] >= 100 && size[k] < size[best]) best = k;
    free(size);
    return best;
}

/* The reparent of a node with a subtree of at least 100 nodes
   (bench_tree_node_of_100), then the full pass. The new parent is
   a node spawned (untimed) just before, under the root, so its step comes
   after the subtree's, which must move: the costly case (under an earlier
   parent nothing moves). Untimed after: the move's result is checked, the
   node goes back to its parent, the spawned one is destroyed, and a full
   pass restores the values. */
static bench_sum ecs_tree_reparent(bench_run *r) {
    bench_tree *t = bench_tree_ecs(r);
    uint32_t x = bench_tree_node_of_100(r->n), n;
    ecs_entity node = t->ids[x], old = hierarchy_parent_of(&t->h, node), to;
    const WorldTransform *got, *want;
    const hierarchy_step *s;
    Transform local = {1, 1, 1};
    if (!old) bench_die("the reparented node is the root");
    to = hierarchy_attach_new(&t->h, t->ids[0]);
    if (!to || !ECS_ADD(t->w, to, t->local, Transform, local) || !ECS_ADD(t->w, to, t->world, WorldTransform, {0, 0, 0}))
        bench_die(ecs_last_error_msg(t->w));
    bench_start(r);
    if (hierarchy_attach(&t->h, node, to) != HIERARCHY_OK) bench_die("hierarchy_attach failed");
    s = hierarchy_plan_all(&t->h, &n);
    bench_tree_pass(t, s, n);
    bench_stop(r);
    got = ECS_GET(t->w, node, t->world, WorldTransform);
    want = ECS_GET(t->w, to, t->world, WorldTransform);
    if (got->x != want->x + (float)(x & 15) || got->angle != want->angle + (float)(x & 3))
        bench_die("the reparented subtree was not placed under its new parent");
    hierarchy_attach(&t->h, node, old);
    ecs_destroy(t->w, to);
    s = hierarchy_plan_all(&t->h, &n);
    bench_tree_pass(t, s, n);
    return bench_tree_sum(t);
}

/* The raw tree of r, built in its first run, with its world values. */
static bench_tree *bench_tree_raw(bench_run *r) {
    bench_tree *t = (bench_tree *)r->keep;
    static const WorldTransform origin = {0, 0, 0};
    uint32_t k;
    if (t) return t;
    t = bench_tree_new(r);
    t->parent = (uint32_t *)bench_alloc((size_t)r->n * sizeof *t->parent);
    t->locals = (Transform *)bench_alloc((size_t)r->n * sizeof *t->locals);
    t->worlds = (WorldTransform *)bench_alloc((size_t)r->n * sizeof *t->worlds);
    for (k = 0; k < r->n; k++) {
        t->parent[k] = k ? (k - 1) / TREE_FANOUT : 0;
        t->locals[k] = bench_local_of(k);
        t->worlds[k] = bench_place(k ? t->worlds[t->parent[k]] : origin, t->locals[k]);
    }
    return t;
}

static bench_sum bench_tree_raw_sum(const bench_tree *t) {
    bench_sum s = {0, 0};
    uint32_t k;
    s.count = t->n;
    for (k = 0; k < t->n; k++) s.sum += bench_world_sum(t->worlds[k]);
    return s;
}

static bench_sum raw_tree_transforms(bench_run *r) {
    bench_tree *t = bench_tree_raw(r);
    const uint32_t *parent = t->parent;
    const Transform *locals = t->locals;
    WorldTransform *worlds = t->worlds;
    static const WorldTransform origin = {0, 0, 0};
    uint32_t k;
    memset(worlds, 0, (size_t)r->n * sizeof *worlds); /* untimed, as on the ecs.h side */
    bench_start(r);
    worlds[0] = bench_place(origin, locals[0]);
    for (k = 1; k < r->n; k++) worlds[k] = bench_place(worlds[parent[k]], locals[k]);
    bench_stop(r);
    return bench_tree_raw_sum(t);
}

/* The raw program at its best for the 1% moved leaves: their indices in
   ascending order (bench_tree_pick), each recomputed from its parent.
   Their world values are zeroed first, as on the ecs.h side. */
static bench_sum raw_tree_moved_leaves(bench_run *r) {
    bench_tree *t = bench_tree_raw(r);
    const uint32_t *parent = t->parent, *picked;
    const Transform *locals = t->locals;
    WorldTransform *worlds = t->worlds;
    static const WorldTransform origin = {0, 0, 0};
    uint32_t i;
    if (!t->picked) bench_tree_pick(t, 1);
    picked = t->picked;
    for (i = 0; i < t->npicked; i++) memset(&worlds[picked[i]], 0, sizeof *worlds);
    bench_start(r);
    for (i = 0; i < t->npicked; i++) {
        uint32_t k = picked[i];
        worlds[k] = bench_place(k ? worlds[parent[k]] : origin, locals[k]);
    }
    bench_stop(r);
    return bench_tree_raw_sum(t);
}

/* Spawning the tree node by node, timed whole, into a new world with the
   order kept (built untimed); against an ordinary create of the same
   entities: ecs_create and the same two ECS_ADDs, in the same kind of
   world, so it pays the group and the hooks too. The difference is the
   parent: Child, Parent, the sibling ring, and the step's parent row.
   Checksum: the entities placed and their Transforms. */
static bench_sum bench_spawn(bench_run *r, int under_parent) {
    bench_tree t;
    const ecs_storage *st;
    const Transform *v;
    bench_sum s = {0, 0};
    uint32_t k;
    memset(&t, 0, sizeof t);
    t.n = r->n;
    bench_tree_world(&t);
    bench_start(r);
    for (k = 0; k < r->n; k++) {
        if (under_parent) {
            bench_tree_spawn(&t, k);
        } else {
            Transform local = bench_local_of(k);
            ecs_entity e = ecs_create(t.w);
            if (!e || !ECS_ADD(t.w, e, t.local, Transform, local) || !ECS_ADD(t.w, e, t.world, WorldTransform, {0, 0, 0}))
                bench_die(ecs_last_error_msg(t.w));
        }
    }
    bench_stop(r);
    st = ecs_storage_of(t.w, t.local);
    v = (const Transform *)ecs_storage_data(st);
    s.count = ecs_storage_count(ecs_storage_of(t.w, t.world));
    for (k = 0; k < ecs_storage_count(st); k++) s.sum += (uint64_t)v[k].x + (uint64_t)v[k].y + (uint64_t)v[k].angle;
    ecs_world_free(t.w);
    free(t.ids);
    return s;
}
static bench_sum ecs_tree_spawn(bench_run *r) { return bench_spawn(r, 1); }
static bench_sum ecs_create_placed(bench_run *r) { return bench_spawn(r, 0); }

/* ------------------------------------------------------------------------- */
/* The movement frame: on one core against a raw twin, and on all cores      */
/* ------------------------------------------------------------------------- */

/* j) One frame of examples/movement.h's workload (integrate, bounce,
   expire, report) over N entities, spawned untimed and moved one untimed
   frame first, so the timed frame is one of a running game, not the first.
   1 core: the serial frame, against a raw twin (below) that computes the
   same world and the same Stats with plain arrays.
   parallel: as in examples/parallel.c, a pool with one thread per core is
   the world's parallel_for and runs integrate, bounce and report in 4
   slices per thread. Its baseline is the same frame run serially (ratio =
   parallel / serial: the speedup is 1 / ratio), and its checksum must be
   the serial one: the worlds are the same to the bit.
   The checksum (bench_frame_entity, both sides): the entities alive, and
   the sum over them of a hash of each one's whole state (its Position,
   its Velocity or none, Frozen or not, its Lifetime or none), plus a hash
   of the frame's Stats. A sum, so the order of the rows does not matter
   (the twin's swap-remove and the storages' keep different orders), but
   an entity with a wrong value, a missing or extra entity or a wrong
   count changes it. */
#define BENCH_FRAME_W 64.0f  /* the box and the seed of movement_spawn, for both sides */
#define BENCH_FRAME_H 16.0f
#define BENCH_FRAME_SEED 2026u

/* splitmix64's finalizer: every bit of x moves about half of the result */
static uint64_t bench_mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}
static uint64_t bench_float_bits(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return (uint64_t)x | (uint64_t)y << 32;
}
/* One entity's hash: vel NULL for none, life 0 for none (a live Lifetime
   is at least 1: it is destroyed at 0). */
static uint64_t bench_frame_entity(float px, float py, const float *vel, int frozen, uint32_t life) {
    uint64_t h = bench_mix(bench_float_bits(px, py) + 0x9e3779b97f4a7c15u);
    h = bench_mix(h + (vel ? bench_float_bits(vel[0], vel[1]) : 0x5555555555555555u));
    return bench_mix(h + ((uint64_t)life << 1 | (uint64_t)(frozen != 0)));
}
static uint64_t bench_frame_stats(uint32_t moved, uint32_t bounced, uint32_t expired) {
    return bench_mix(bench_mix((uint64_t)moved << 32 | bounced) + expired);
}

/* Untimed: the checksum of a movement world after its frame. */
static bench_sum bench_frame_sum(const movement *m) {
    ecs_world *w = m->w;
    const ecs_storage *ps = ecs_storage_of(w, m->position);
    const movement_Position *p = (const movement_Position *)ecs_storage_data(ps);
    const ecs_entity *ents = ecs_storage_entities(ps);
    const Stats *st = ECS_UNIQUE_GET(w, m->stats, Stats);
    bench_sum s = {0, 0};
    uint32_t i, n = ecs_storage_count(ps);
    if (n != ecs_count(w)) bench_die("movement: an entity without Position");
    for (i = 0; i < n; i++) {
        const movement_Velocity *v = (const movement_Velocity *)ecs_get(w, ents[i], m->velocity); /* (registered as "Velocity") */
        const Lifetime *l = ecs_has(w, ents[i], m->lifetime) ? ECS_GET(w, ents[i], m->lifetime, Lifetime) : NULL;
        float vel[2];
        if (v) vel[0] = v->x, vel[1] = v->y;
        s.sum += bench_frame_entity(p[i].x, p[i].y, v ? vel : NULL, ecs_has(w, ents[i], m->frozen),
                                    l ? l->frames : 0);
    }
    s.count = n;
    s.sum += bench_frame_stats(st->moved, st->bounced, st->expired);
    return s;
}

static pool *bench_pool; /* the first parallel run makes it; it lives until exit */

static bench_sum bench_frame(bench_run *r, int parallel, int grouped) {
    movement m;
    ecs_desc desc;
    ecs_world *w;
    bench_sum s;
    int rc;
    memset(&desc, 0, sizeof desc);
    if (parallel) {
        if (!bench_pool && !(bench_pool = pool_new(0))) bench_die("pool_new failed");
        desc.parallel_for = pool_for;
        desc.parallel_user = bench_pool;
    }
    w = ecs_world_new(&desc);
    if (!w || !movement_init(&m, w, BENCH_FRAME_W, BENCH_FRAME_H)) bench_die("movement: out of memory");
    if (grouped) { /* what a group buys: integrate's and bounce's view walk its rows with no probe */
        ecs_group_desc g;
        memset(&g, 0, sizeof g);
        g.owned[0] = m.position;
        g.owned[1] = m.velocity;
        g.excluded[0] = m.frozen;
        if (!ecs_group_new(w, &g)) bench_die(ecs_last_error_msg(w));
    }
    if (!movement_spawn(&m, r->n, BENCH_FRAME_SEED)) bench_die("movement: out of memory");
    if (parallel) {
        m.parallel_for = pool_for;
        m.parallel_user = bench_pool;
        m.slices = 4 * pool_threads(bench_pool);
    }
    if (movement_frame(&m) != 0) bench_die(ecs_last_error_msg(w));
    bench_start(r);
    rc = movement_frame(&m);
    bench_stop(r);
    if (rc != 0) bench_die(ecs_last_error_msg(w));
    s = bench_frame_sum(&m);
    ecs_world_free(w);
    return s;
}
static bench_sum ecs_frame_serial(bench_run *r) { return bench_frame(r, 0, 0); }
static bench_sum ecs_frame_grouped(bench_run *r) { return bench_frame(r, 0, 1); }
static bench_sum ecs_frame_parallel(bench_run *r) { return bench_frame(r, 1, 0); }

/* The raw twin of the frame: what a C program without a library keeps for
   the same game. Struct of arrays indexed 0..count-1, one entity per
   index; a flags byte per entity says what it has (Velocity, Frozen,
   Lifetime) and what the frame changed (Position, Velocity), which is the
   twin's modification tracking; an expired entity is removed at once by
   moving the last one into its place (swap-remove), which is the twin's
   deferred destroy. The four passes are movement.h's four systems, one
   loop each, in the same order:
       integrate  p += v * dt where the entity has Velocity and is not
                  Frozen; flags it Position-modified (ECS_WRITE marks every
                  Position the view hands out)
       bounce     the same entities; one that left the box is reflected and
                  flagged Position- and Velocity-modified (ECS_GET_MUT)
       expire     Lifetime counted down; at 0 swap-removed and counted
       report     counts the two modified flags and clears them: clearing
                  makes the next frame's counts those of "since my last
                  run", the window ecs_system_view gives report
   The same floats in the same operations, so positions match to the bit. */
enum {
    RAW_FRAME_VEL = 1,      /* has a Velocity */
    RAW_FRAME_FROZEN = 2,   /* Frozen (has a Velocity, does not move) */
    RAW_FRAME_LIFE = 4,     /* has a Lifetime */
    RAW_FRAME_POS_MOD = 8,  /* Position changed since the last report */
    RAW_FRAME_VEL_MOD = 16  /* Velocity changed since the last report */
};

typedef struct raw_frame {
    float *px, *py, *vx, *vy;
    uint32_t *life;
    unsigned char *flags;
    uint32_t count;
    float dt, w, h;                   /* the uniques Time and Bounds */
    uint32_t moved, bounced, expired; /* the unique Stats */
} raw_frame;

/* movement.h's generator (movement__rand), so the twin spawns the same
   entities from the same seed */
static uint32_t raw_frame_rand(uint32_t *state, uint32_t n) {
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state % n;
}

/* Untimed: movement_spawn's n entities, drawn in the same order. */
static void raw_frame_spawn(raw_frame *f, uint32_t n, uint32_t seed) {
    uint32_t rng = seed ? seed : 1, gw = (uint32_t)(BENCH_FRAME_W * 16), gh = (uint32_t)(BENCH_FRAME_H * 16), i;
    memset(f, 0, sizeof *f);
    f->px = (float *)bench_alloc((size_t)n * sizeof *f->px);
    f->py = (float *)bench_alloc((size_t)n * sizeof *f->py);
    f->vx = (float *)bench_alloc((size_t)n * sizeof *f->vx);
    f->vy = (float *)bench_alloc((size_t)n * sizeof *f->vy);
    f->life = (uint32_t *)bench_alloc((size_t)n * sizeof *f->life);
    f->flags = (unsigned char *)bench_alloc(n);
    f->dt = 0.25f; /* movement_init's Time */
    f->w = BENCH_FRAME_W;
    f->h = BENCH_FRAME_H;
    for (i = 0; i < n; i++) {
        uint32_t kind = raw_frame_rand(&rng, 8), life;
        unsigned char flags = 0;
        float vx, vy;
        f->px[i] = (float)raw_frame_rand(&rng, gw + 1) / 16;
        f->py[i] = (float)raw_frame_rand(&rng, gh + 1) / 16;
        vx = (float)(1 + raw_frame_rand(&rng, 128)) / 16 * (raw_frame_rand(&rng, 2) ? 1 : -1);
        vy = (float)(1 + raw_frame_rand(&rng, 128)) / 16 * (raw_frame_rand(&rng, 2) ? 1 : -1);
        life = 1 + raw_frame_rand(&rng, 12);
        if (kind != 0) flags |= RAW_FRAME_VEL;
        if (kind == 1) flags |= RAW_FRAME_FROZEN;
        if (raw_frame_rand(&rng, 4) == 0) flags |= RAW_FRAME_LIFE;
        f->vx[i] = kind != 0 ? vx : 0;
        f->vy[i] = kind != 0 ? vy : 0;
        f->life[i] = flags & RAW_FRAME_LIFE ? life : 0;
        f->flags[i] = flags;
    }
    f->count = n;
}

static void raw_frame_free(raw_frame *f) {
    free(f->px);
    free(f->py);
    free(f->vx);
    free(f->vy);
    free(f->life);
    free(f->flags);
}

/* movement__reflect: mirrors *x into [0, max], turns *v around */
static int raw_frame_reflect(float *x, float *v, float max) {
    if (*x >= 0 && *x <= max) return 0;
    *x = *x < 0 ? -*x : 2 * max - *x;
    *v = -*v;
    return 1;
}

/* One frame: the four passes. */
static void raw_frame_run(raw_frame *f) {
    float *px = f->px, *py = f->py, *vx = f->vx, *vy = f->vy, dt = f->dt, w = f->w, h = f->h;
    uint32_t *life = f->life;
    unsigned char *flags = f->flags;
    uint32_t i, n = f->count, expired = 0, moved = 0, bounced = 0;
    for (i = 0; i < n; i++) /* integrate */
        if ((flags[i] & (RAW_FRAME_VEL | RAW_FRAME_FROZEN)) == RAW_FRAME_VEL) {
            px[i] += vx[i] * dt;
            py[i] += vy[i] * dt;
            flags[i] |= RAW_FRAME_POS_MOD;
        }
    for (i = 0; i < n; i++) /* bounce */
        if ((flags[i] & (RAW_FRAME_VEL | RAW_FRAME_FROZEN)) == RAW_FRAME_VEL) {
            int hit_x = raw_frame_reflect(&px[i], &vx[i], w);
            int hit_y = raw_frame_reflect(&py[i], &vy[i], h);
            if (hit_x || hit_y) flags[i] |= RAW_FRAME_POS_MOD | RAW_FRAME_VEL_MOD;
        }
    for (i = n; i-- > 0;) /* expire: backwards, so the entity moved into i was already counted down */
        if ((flags[i] & RAW_FRAME_LIFE) && --life[i] == 0) {
            n--;
            px[i] = px[n], py[i] = py[n], vx[i] = vx[n], vy[i] = vy[n];
            life[i] = life[n], flags[i] = flags[n];
            expired++;
        }
    for (i = 0; i < n; i++) { /* report */
        moved += (flags[i] & RAW_FRAME_POS_MOD) != 0;
        bounced += (flags[i] & RAW_FRAME_VEL_MOD) != 0;
        flags[i] &= (unsigned char)~(RAW_FRAME_POS_MOD | RAW_FRAME_VEL_MOD);
    }
    f->count = n;
    f->moved = moved;
    f->bounced = bounced;
    f->expired = expired;
}

/* Baseline of the 1-core frame: the twin spawned alike, one untimed frame,
   the timed frame, and the checksum of bench_frame_sum. */
static bench_sum raw_frame_movement(bench_run *r) {
    raw_frame f;
    bench_sum s = {0, 0};
    uint32_t i;
    raw_frame_spawn(&f, r->n, BENCH_FRAME_SEED);
    raw_frame_run(&f);
    bench_start(r);
    raw_frame_run(&f);
    bench_stop(r);
    for (i = 0; i < f.count; i++) {
        float vel[2];
        vel[0] = f.vx[i], vel[1] = f.vy[i];
        s.sum += bench_frame_entity(f.px[i], f.py[i], f.flags[i] & RAW_FRAME_VEL ? vel : NULL,
                                    f.flags[i] & RAW_FRAME_FROZEN, f.flags[i] & RAW_FRAME_LIFE ? f.life[i] : 0);
    }
    s.count = f.count;
    s.sum += bench_frame_stats(f.moved, f.bounced, f.expired);
    raw_frame_free(&f);
    return s;
}

/* ------------------------------------------------------------------------- */
/* Save and load: a snapshot against memcpy                                  */
/* ------------------------------------------------------------------------- */

/* k) The snapshot (ecs.h section 17) of N entities with Position and
   Velocity (the distinct values of bench_pos_of / bench_vel_of; Data is
   registered and empty), against copying that many bytes.
   save: ecs_save_buffer of the world into a buffer allocated beforehand.
   load: ecs_load of the snapshot into a world created with the three
   components registered before the timed part (and freed after it).
   Baseline: memcpy of the snapshot's bytes into a buffer of its size.
   The snapshot, its world (save) and the output buffer are built once per
   measurement, in the warm-up run, so every timed run writes to memory it
   has touched. The checksum is the entities and a hash of the bytes that
   came out: save's buffer, memcpy's copy, and for load a save of the
   loaded world (untimed), which must be the snapshot again; load also
   checks the loaded values (bench_ecs_sum). */
typedef struct bench_snap {
    bench_ecs b;            /* the saved world (kept for the save row only) */
    unsigned char *bytes;   /* its snapshot */
    unsigned char *out;     /* where a run writes */
    size_t size;
    bench_sum values;       /* bench_ecs_sum of the saved world */
} bench_snap;

static void bench_snap_free(void *p) {
    bench_snap *sn = (bench_snap *)p;
    if (sn->b.w) ecs_world_free(sn->b.w);
    free(sn->bytes);
    free(sn->out);
    free(sn);
}

static bench_snap *bench_snap_get(bench_run *r, int keep_world) {
    bench_snap *sn = (bench_snap *)r->keep;
    if (!sn) {
        ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *ids);
        uint32_t k;
        sn = (bench_snap *)bench_alloc(sizeof *sn);
        memset(sn, 0, sizeof *sn);
        r->keep = sn;
        r->keep_free = bench_snap_free;
        sn->b = bench_ecs_new(NULL);
        bench_ecs_fill(&sn->b, r->n, ids);
        for (k = 0; k < r->n; k++) {
            *ECS_GET_MUT(sn->b.w, ids[k], sn->b.pos, Position) = bench_pos_of(k);
            *ECS_GET_MUT(sn->b.w, ids[k], sn->b.vel, Velocity) = bench_vel_of(k);
        }
        free(ids);
        sn->values = bench_ecs_sum(&sn->b);
        sn->size = ecs_save_buffer(sn->b.w, NULL, 0);
        if (!sn->size) bench_die(ecs_last_error_msg(sn->b.w));
        sn->bytes = (unsigned char *)bench_alloc(sn->size);
        sn->out = (unsigned char *)bench_alloc(sn->size);
        if (ecs_save_buffer(sn->b.w, sn->bytes, sn->size) != sn->size) bench_die(ecs_last_error_msg(sn->b.w));
        if (!keep_world) {
            ecs_world_free(sn->b.w);
            sn->b.w = NULL;
        }
    }
    r->bytes = sn->size;
    return sn;
}

/* A hash of the bytes a run wrote, for the checksum (untimed). */
static uint64_t bench_hash(const unsigned char *p, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15u, v;
    size_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&v, p + i, 8);
        h = (h ^ v) * 0xff51afd7ed558ccdu;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
    return h ^ (uint64_t)n;
}

static bench_sum ecs_save_snapshot(bench_run *r) {
    bench_snap *sn = bench_snap_get(r, 1);
    bench_sum s;
    size_t n;
    memset(sn->out, 0, sn->size); /* untimed: the checksum covers this run's bytes only */
    bench_start(r);
    n = ecs_save_buffer(sn->b.w, sn->out, sn->size);
    bench_stop(r);
    s.count = n == sn->size ? ecs_count(sn->b.w) : 0;
    s.sum = bench_hash(sn->out, sn->size);
    return s;
}

static bench_sum ecs_load_snapshot(bench_run *r) {
    bench_snap *sn = bench_snap_get(r, 0);
    bench_ecs b = bench_ecs_new(NULL);
    bench_sum s, values;
    bool ok;
    bench_start(r);
    ok = ecs_load(b.w, sn->bytes, sn->size);
    bench_stop(r);
    if (!ok) bench_die(ecs_last_error_msg(b.w));
    values = bench_ecs_sum(&b);
    s.count = values.count == sn->values.count && values.sum == sn->values.sum ? ecs_count(b.w) : 0;
    s.sum = ecs_save_buffer(b.w, sn->out, sn->size) == sn->size ? bench_hash(sn->out, sn->size) : 0;
    ecs_world_free(b.w);
    return s;
}

static bench_sum raw_memcpy_snapshot(bench_run *r) {
    bench_snap *sn = bench_snap_get(r, 0);
    bench_sum s;
    bench_start(r);
    memcpy(sn->out, sn->bytes, sn->size);
    bench_stop(r);
    s.count = r->n;
    s.sum = bench_hash(sn->out, sn->size);
    return s;
}

/* ------------------------------------------------------------------------- */
/* Indexes                                                                   */
/* ------------------------------------------------------------------------- */
/* N entities with Keyed {key = k, v}. Lookups: BENCH_QUERIES queries of
   random keys (the same in every run), timed, against the same queries
   answered by scanning the storage; equality through a hashed index, a
   range of 100 keys through an ordered one. Overhead: add, replace,
   remove and a write-tracked loop over N entities with an index on key,
   each followed by one query (which is when the index catches up), against
   the same work without the index. The checksum counts the matches (and,
   for the overhead rows, the entities handled and their keys). */
typedef struct Keyed {
    int32_t key;
    float v;
} Keyed;
#define BENCH_QUERIES 100u

typedef struct bench_keyed {
    ecs_world *w;
    ecs_component keyed;
    ecs_index ix;
    ecs_entity *ids;
} bench_keyed;

static void bench_keyed_free(void *p) {
    bench_keyed *k = (bench_keyed *)p;
    ecs_world_free(k->w);
    free(k->ids);
    free(k);
}

/* The world (kept across runs: queries do not use it up); ordered: the
   index is ordered (ranges), else hashed; 0 index: none. */
static bench_keyed *bench_keyed_get(bench_run *r, int index, bool ordered) {
    bench_keyed *k = (bench_keyed *)r->keep;
    uint32_t i;
    if (k) return k;
    k = (bench_keyed *)bench_alloc(sizeof *k);
    memset(k, 0, sizeof *k);
    r->keep = k;
    r->keep_free = bench_keyed_free;
    k->w = ecs_world_new(NULL);
    k->keyed = ECS_COMPONENT(k->w, Keyed);
    k->ids = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *k->ids);
    for (i = 0; i < r->n; i++) {
        k->ids[i] = ecs_create(k->w);
        ECS_ADD(k->w, k->ids[i], k->keyed, Keyed, {(int32_t)i, 1.0f});
    }
    if (index) {
        ecs_index_desc d;
        memset(&d, 0, sizeof d);
        d.c = k->keyed;
        d.offset = offsetof(Keyed, key);
        d.size = sizeof(int32_t);
        d.kind = ECS_KEY_INT;
        d.ordered = ordered;
        if (!(k->ix = ecs_index_new(k->w, &d))) bench_die(ecs_last_error_msg(k->w));
        ecs_index_find(k->w, k->ix, &d.size, NULL, 0); /* built: untimed */
    }
    return k;
}

static int32_t bench_query_key(bench_run *r, uint32_t q, uint32_t span) {
    return (int32_t)(r->perm[q % r->n] % (r->n > span ? r->n - span : 1));
}

static bench_sum ecs_index_lookup(bench_run *r) {
    bench_keyed *k = bench_keyed_get(r, 1, false);
    bench_sum s = {0, 0};
    ecs_entity found[4];
    uint32_t q;
    bench_start(r);
    for (q = 0; q < BENCH_QUERIES; q++) {
        int32_t key = bench_query_key(r, q, 1);
        uint32_t got = ecs_index_find(k->w, k->ix, &key, found, 4);
        s.count += got;
        s.sum += got ? (uint32_t)found[0] : 0;
    }
    bench_stop(r);
    return s;
}
static bench_sum ecs_index_range100(bench_run *r) {
    bench_keyed *k = bench_keyed_get(r, 1, true);
    bench_sum s = {0, 0};
    ecs_entity found[100];
    uint32_t q, j, n;
    bench_start(r);
    for (q = 0; q < BENCH_QUERIES; q++) {
        int32_t lo = bench_query_key(r, q, 100), hi = lo + 99;
        n = ecs_index_range(k->w, k->ix, &lo, &hi, 0, found, 100);
        s.count += n;
        for (j = 0; j < n && j < 100; j++) s.sum += (uint32_t)found[j];
    }
    bench_stop(r);
    return s;
}
/* The same ranges as views with an index term (ecs_view_desc.where), the
   loop reading each value: the index leads the walk. */
static bench_sum ecs_index_view100(bench_run *r) {
    bench_keyed *k = bench_keyed_get(r, 1, true);
    bench_sum s = {0, 0};
    ecs_view_desc d;
    uint32_t q;
    int32_t lo, hi;
    memset(&d, 0, sizeof d);
    d.terms[0].c = k->keyed;
    d.where.index = k->ix;
    d.where.lo = &lo, d.where.hi = &hi;
    bench_start(r);
    for (q = 0; q < BENCH_QUERIES; q++) {
        lo = bench_query_key(r, q, 100), hi = lo + 99;
        ECS_EACH_VIEW(it, k->w, &d) {
            s.count += ECS_FIELD(&it, 0, Keyed)->key >= lo;
            s.sum += (uint32_t)ecs_iter_entity(&it);
        }
    }
    bench_stop(r);
    return s;
}
/* The scans a program without an index writes: the storage's arrays. */
static bench_sum bench_scan(bench_run *r, uint32_t span) {
    bench_keyed *k = bench_keyed_get(r, 0, false);
    const Keyed *v = (const Keyed *)ecs_storage_data(ecs_storage_of(k->w, k->keyed));
    const ecs_entity *e = ecs_storage_entities(ecs_storage_of(k->w, k->keyed));
    uint32_t n = ecs_storage_count(ecs_storage_of(k->w, k->keyed)), q, i;
    bench_sum s = {0, 0};
    bench_start(r);
    for (q = 0; q < BENCH_QUERIES; q++) {
        int32_t lo = bench_query_key(r, q, span), hi = lo + (int32_t)span - 1;
        for (i = 0; i < n; i++)
            if (v[i].key >= lo && v[i].key <= hi) s.count++, s.sum += (uint32_t)e[i];
    }
    bench_stop(r);
    return s;
}
static bench_sum raw_scan_lookup(bench_run *r) { return bench_scan(r, 1); }
static bench_sum raw_scan_range100(bench_run *r) { return bench_scan(r, 100); }

/* add, replace, remove and a tracked write loop, with or without an index
   (a fresh world each run, untimed); one query after the timed work. */
enum { KEYED_ADD, KEYED_REPLACE, KEYED_REMOVE, KEYED_LOOP };
static bench_sum bench_keyed_change(bench_run *r, int what, int index) {
    bench_keyed k;
    bench_sum s = {0, 0};
    uint32_t i;
    int32_t probe = 0;
    memset(&k, 0, sizeof k);
    k.w = ecs_world_new(NULL);
    k.keyed = ECS_COMPONENT(k.w, Keyed);
    k.ids = (ecs_entity *)bench_alloc((size_t)r->n * sizeof *k.ids);
    ecs_track_set(k.w, k.keyed, ECS_TRACK_MODIFICATION); /* (both: the index needs it) */
    for (i = 0; i < r->n; i++) {
        k.ids[i] = ecs_create(k.w);
        if (what != KEYED_ADD) ECS_ADD(k.w, k.ids[i], k.keyed, Keyed, {(int32_t)i, 1.0f});
    }
    if (index) {
        ecs_index_desc d;
        memset(&d, 0, sizeof d);
        d.c = k.keyed;
        d.offset = offsetof(Keyed, key);
        d.size = sizeof(int32_t);
        d.kind = ECS_KEY_INT;
        if (!(k.ix = ecs_index_new(k.w, &d))) bench_die(ecs_last_error_msg(k.w));
        ecs_index_find(k.w, k.ix, &probe, NULL, 0);
    }
    bench_start(r);
    if (what == KEYED_ADD || what == KEYED_REPLACE) {
        for (i = 0; i < r->n; i++) ECS_ADD(k.w, k.ids[i], k.keyed, Keyed, {(int32_t)(i ^ 1), 2.0f});
    } else if (what == KEYED_REMOVE) {
        for (i = 0; i < r->n; i++) ecs_remove(k.w, k.ids[i], k.keyed, NULL);
    } else {
        ecs_view_desc d;
        ecs_iter it;
        memset(&d, 0, sizeof d);
        d.terms[0].c = k.keyed;
        d.terms[0].flags = ECS_WRITE;
        ECS_EACH_VIEW(it2, k.w, &d) ECS_FIELD(&it2, 0, Keyed)->key += 1;
        (void)it;
    }
    probe = 1;
    if (index) s.count = ecs_index_find(k.w, k.ix, &probe, NULL, 0); /* the index catches up */
    bench_stop(r);
    if (!index) { /* what the index would have answered, counted untimed */
        const Keyed *v = (const Keyed *)ecs_storage_data(ecs_storage_of(k.w, k.keyed));
        uint32_t n = ecs_storage_count(ecs_storage_of(k.w, k.keyed));
        for (i = 0; i < n; i++) s.count += v[i].key == probe;
    }
    s.sum = ecs_storage_count(ecs_storage_of(k.w, k.keyed));
    ecs_world_free(k.w);
    free(k.ids);
    return s;
}
static bench_sum ecs_keyed_add(bench_run *r) { return bench_keyed_change(r, KEYED_ADD, 0); }
static bench_sum ecs_keyed_add_indexed(bench_run *r) { return bench_keyed_change(r, KEYED_ADD, 1); }
static bench_sum ecs_keyed_replace(bench_run *r) { return bench_keyed_change(r, KEYED_REPLACE, 0); }
static bench_sum ecs_keyed_replace_indexed(bench_run *r) { return bench_keyed_change(r, KEYED_REPLACE, 1); }
static bench_sum ecs_keyed_remove(bench_run *r) { return bench_keyed_change(r, KEYED_REMOVE, 0); }
static bench_sum ecs_keyed_remove_indexed(bench_run *r) { return bench_keyed_change(r, KEYED_REMOVE, 1); }
static bench_sum ecs_keyed_loop(bench_run *r) { return bench_keyed_change(r, KEYED_LOOP, 0); }
static bench_sum ecs_keyed_loop_indexed(bench_run *r) { return bench_keyed_change(r, KEYED_LOOP, 1); }

/* ------------------------------------------------------------------------- */
/* Phases                                                                    */
/* ------------------------------------------------------------------------- */
/* Position += Velocity for N entities as a phase (ecs.h section 16): one
   proposing system proposes each entity's velocity as a delta, a summing
   reducer adds it to the position, the phase applies it; against the same
   update made in place by a system (ecs_system_run, a block loop with a
   written term). Timed: one ecs_schedule_run / one ecs_system_run; the
   world, the phase and the system are built untimed. The checksum is the
   world after (bench_ecs_sum). */
static int bench_propose_move(const ecs_system_ctx *ctx) {
    const bench_ecs *b = (const bench_ecs *)ctx->user;
    ecs_component comps[2];
    ecs_iter it;
    comps[0] = b->pos, comps[1] = b->vel;
    for (it = ecs_view_of(ctx->world, 2, comps); ecs_iter_next_block(&it);) {
        const Velocity *v = ECS_BLOCK(&it, 1, Velocity);
        uint32_t j;
        for (j = 0; j < it.count; j++) ecs_propose_set(ctx->proposals, it.entities[j], b->pos, &v[j]);
    }
    return 0;
}
static int bench_sum_deltas(const ecs_reduce *r, void *next) {
    Position *p = (Position *)next;
    uint32_t k;
    for (k = 0; k < r->n; k++) {
        const Velocity *d = (const Velocity *)r->changes[k].value;
        p->x += d->x;
        p->y += d->y;
    }
    return ECS_REDUCE_SET;
}
static int bench_move_in_place(const ecs_system_ctx *ctx) {
    const bench_ecs *b = (const bench_ecs *)ctx->user;
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = b->pos;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = b->vel;
    for (it = ecs_view(ctx->world, &d); ecs_iter_next_block(&it);) {
        Position *p = ECS_BLOCK(&it, 0, Position);
        const Velocity *v = ECS_BLOCK(&it, 1, Velocity);
        uint32_t j;
        for (j = 0; j < it.count; j++) {
            p[j].x += v[j].x;
            p[j].y += v[j].y;
        }
    }
    return 0;
}
static bench_sum bench_update(bench_run *r, int phase) {
    bench_ecs b = bench_ecs_new(NULL);
    ecs_system_desc sd;
    ecs_phase_desc pd;
    const char *phases[1] = {"move"};
    bench_sum s;
    int rc;
    bench_ecs_fill(&b, r->n, NULL);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    sd.name = "move";
    sd.fn = phase ? bench_propose_move : bench_move_in_place;
    sd.user = &b;
    pd.name = "move";
    if (phase ? !ecs_phase_new(b.w, &pd) || !ecs_phase_reducer(b.w, "move", b.pos, bench_sum_deltas, NULL) ||
                    !ecs_phase_system(b.w, "move", &sd) || !ecs_schedule_new(b.w, "step", 1, phases)
              : !ecs_system_new(b.w, &sd))
        bench_die(ecs_last_error_msg(b.w));
    if (phase) ecs_schedule_run(b.w, "step"); /* the buffers' memory, as a game's second step has it */
    else ecs_system_run(b.w, "move");
    bench_start(r);
    rc = phase ? ecs_schedule_run(b.w, "step") : ecs_system_run(b.w, "move");
    bench_stop(r);
    if (rc) bench_die(ecs_last_error_msg(b.w));
    s = bench_ecs_sum(&b);
    ecs_world_free(b.w);
    return s;
}
static bench_sum ecs_phase_update(bench_run *r) { return bench_update(r, 1); }
static bench_sum ecs_update_in_place(bench_run *r) { return bench_update(r, 0); }

/* ------------------------------------------------------------------------- */
/* The table                                                                 */
/* ------------------------------------------------------------------------- */

/* What a row is compared with: a raw baseline, or for the tracked rows
   the untracked ecs.h row (measured once per N, whichever row needs it
   first). */
typedef struct bench_baseline {
    const char *name;
    bench_fn fn;
} bench_baseline;

enum {
    RAW_CREATE, RAW_GET, RAW_ADD_REMOVE, RAW_ITER1, RAW_ITER2, RAW_HALF, RAW_FROZEN, RAW_RARE, RAW_ITER3, RAW_TREE,
    RAW_TREE_MOVED, RAW_SNAPSHOT, RAW_FRAME,
    ECS_ITER2_EACH, ECS_ITER2_BLOCK, ECS_ADD_REMOVE, ECS_CREATE, ECS_DESTROY, ECS_FRAME, ECS_TREE, ECS_PLACED,
    ECS_HALF_EACH, ECS_IN_PLACE, RAW_SCAN1, RAW_SCAN100, ECS_KEYED_ADD, ECS_KEYED_REPLACE, ECS_KEYED_REMOVE,
    ECS_KEYED_LOOP, NBASELINES, NO_TARGET = -1
};

static const bench_baseline BASELINES[NBASELINES] = {
    {"raw create", raw_create},
    {"raw get", raw_get_shuffled},
    {"raw add+rm", raw_add_remove},
    {"raw iter1", raw_iter1},
    {"raw iter2", raw_iter2},
    {"raw i += 2", raw_half},
    {"raw !frozen", raw_frozen},
    {"raw 1%", raw_rare}, /* the 1% of entities a cached query keeps, packed */
    {"raw iter3", raw_iter3},
    {"raw tree", raw_tree_transforms},
    {"raw 1% tree", raw_tree_moved_leaves}, /* the moved leaves only */
    {"memcpy snap", raw_memcpy_snapshot}, /* the snapshot's bytes, for save and load */
    {"raw frame", raw_frame_movement}, /* the movement frame's twin */
    {"ecs iter2/e", ecs_iter2_each},  /* the untracked rows, for the tracked ones */
    {"ecs iter2/b", ecs_iter2_block},
    {"ecs add+rm", ecs_add_remove},
    {"ecs create", ecs_create_add}, /* the ungrouped rows, for the grouped ones */
    {"ecs destroy", ecs_destroy_in_order},
    {"ecs 1 core", ecs_frame_serial}, /* the serial frame, for the parallel one */
    {"ecs tree", ecs_tree_transforms}, /* the full pass, for the tree's edits */
    {"ecs placed", ecs_create_placed}, /* create + Transform + WorldTransform, for the spawn */
    {"ecs mixed/e", ecs_half_each}, /* the per-entity loop, for the block loop (issue 22) */
    {"ecs in place", ecs_update_in_place}, /* a system's update in place, for the phase's */
    {"raw scan", raw_scan_lookup},       /* 100 scans of the storage for a key, for the index */
    {"raw scan 100", raw_scan_range100}, /* ...for a range of 100 keys */
    {"ecs add", ecs_keyed_add},          /* the same work without an index, for the indexed rows */
    {"ecs replace", ecs_keyed_replace},
    {"ecs remove", ecs_keyed_remove},
    {"ecs tracked loop", ecs_keyed_loop},
};

/* A target is a guarantee (met with room to spare when it was set, kept
   since: at N = 1M the table says ok or MISS, and a MISS is a regression to
   look into) or a goal (not met, or met only on a quiet machine; the
   direction work is going: the table says "goal met" or "goal open").
   bench/README.md, "Goals and guarantees", gives each one's reason. */
enum { GUARANTEE, GOAL };

typedef struct bench_row {
    const char *name;
    bench_fn ecs;
    int raw;         /* BASELINES[raw] does the same work with plain arrays */
    int target_raw;  /* the target is stated against BASELINES[target_raw] */
    double target;   /* as ecs min / raw min at N = 1M: at most this */
    int kind;        /* GUARANTEE or GOAL */
} bench_row;

#define TARGET_N 1000000u

static const bench_row ROWS[] = {
    {"create + 2x ECS_ADD", ecs_create_add, RAW_CREATE, NO_TARGET, 0, 0},
    {"create + 2x ECS_ADD, grouped", ecs_create_add_grouped, ECS_CREATE, NO_TARGET, 0, 0},
    {"create_n, one by one", ecs_create_with_each, RAW_CREATE, ECS_CREATE, 1.0, GOAL},
    {"create_bulk, all at once", ecs_create_bulk_all, RAW_CREATE, ECS_CREATE, 1.0, GUARANTEE},
    {"destroy, creation order", ecs_destroy_in_order, RAW_CREATE, NO_TARGET, 0, 0},
    {"destroy, grouped", ecs_destroy_grouped, ECS_DESTROY, NO_TARGET, 0, 0},
    {"get Position, shuffled", ecs_get_shuffled, RAW_GET, RAW_GET, 2.0, GOAL},
    {"get Position, shuffled, handle", ecs_get_shuffled_handle, RAW_GET, RAW_GET, 2.0, GOAL},
    {"add+remove Data", ecs_add_remove, RAW_ADD_REMOVE, NO_TARGET, 0, 0},
    {"add+remove Data, tracked", ecs_add_remove_tracked, RAW_ADD_REMOVE, ECS_ADD_REMOVE, 1.3, GOAL},
    {"add+remove Data, grouped", ecs_add_remove_grouped, ECS_ADD_REMOVE, NO_TARGET, 0, 0},
    {"add+remove Data, cached query", ecs_add_remove_query, ECS_ADD_REMOVE, ECS_ADD_REMOVE, 1.3, GOAL},
    {"iterate 1, per entity", ecs_iter1_each, RAW_ITER1, RAW_ITER1, 1.3, GUARANTEE},
    {"iterate 1, blocks", ecs_iter1_block, RAW_ITER1, RAW_ITER1, 1.05, GUARANTEE},
    {"iterate 2, per entity", ecs_iter2_each, RAW_ITER2, RAW_ITER2, 1.3, GUARANTEE},
    {"iterate 2, blocks", ecs_iter2_block, RAW_ITER2, RAW_ITER2, 1.05, GUARANTEE},
    {"iterate 2, blocks, after a change", ecs_iter2_block_churn, RAW_ITER2, NO_TARGET, 0, 0},
    {"iterate 2, group blocks", ecs_iter2_group, RAW_ITER2, RAW_ITER2, 1.05, GUARANTEE},
    {"iterate 2 tracked, per entity", ecs_tracked_each, RAW_ITER2, ECS_ITER2_EACH, 1.3, GOAL},
    {"iterate 2 tracked, blocks", ecs_tracked_block, RAW_ITER2, ECS_ITER2_BLOCK, 1.3, GOAL},
    {"iterate 2 mixed, per entity", ecs_half_each, RAW_HALF, RAW_HALF, 1.5, GOAL},
    {"iterate 2 mixed, blocks", ecs_half_block, RAW_HALF, ECS_HALF_EACH, 1.0, GOAL},
    {"iterate 2 mixed, group blocks", ecs_half_group, RAW_HALF, RAW_HALF, 1.05, GUARANTEE},
    {"iterate 2 mixed, query, per entity", ecs_half_query_each, RAW_HALF, RAW_HALF, 2.0, GOAL},
    {"iterate 2 mixed, query, blocks", ecs_half_query_block, RAW_HALF, RAW_HALF, 2.0, GOAL},
    {"iterate 2 of 1%, per entity", ecs_rare_each, RAW_RARE, NO_TARGET, 0, 0},
    {"iterate 2 of 1%, query, per entity", ecs_rare_query_each, RAW_RARE, RAW_RARE, 2.0, GOAL},
    {"iterate 2 NOT Frozen, per entity", ecs_frozen_each, RAW_FROZEN, NO_TARGET, 0, 0},
    {"iterate 2 NOT Frozen, blocks", ecs_frozen_block, RAW_FROZEN, NO_TARGET, 0, 0},
    {"iterate 2 NOT Frozen, group blocks", ecs_frozen_group, RAW_FROZEN, NO_TARGET, 0, 0},
    {"iterate 3, per entity", ecs_iter3_each, RAW_ITER3, RAW_ITER3, 1.3, GOAL},
    {"iterate 3, blocks", ecs_iter3_block, RAW_ITER3, RAW_ITER3, 1.05, GUARANTEE},
    {"iterate 3, group blocks", ecs_iter3_group, RAW_ITER3, RAW_ITER3, 1.05, GUARANTEE},
    {"hierarchy transforms, 4-ary", ecs_tree_transforms, RAW_TREE, RAW_TREE, 3.0, GUARANTEE},
    {"hierarchy 1% moved, leaves", ecs_tree_moved_leaves, RAW_TREE_MOVED, ECS_TREE, 0.1, GOAL},
    {"hierarchy 1% moved, any nodes", ecs_tree_moved_any, RAW_TREE, NO_TARGET, 0, 0},
    {"hierarchy 1% moved, ECS_MODIFIED", ecs_tree_moved_tracked, RAW_TREE_MOVED, NO_TARGET, 0, 0},
    {"hierarchy reparent 100+, pass", ecs_tree_reparent, RAW_TREE, ECS_TREE, 2.0, GUARANTEE},
    {"hierarchy spawn under a parent", ecs_tree_spawn, ECS_PLACED, ECS_PLACED, 2.0, GOAL},
    {"movement frame, 1 core", ecs_frame_serial, RAW_FRAME, RAW_FRAME, 1.5, GOAL},
    {"movement frame, 1 core, grouped", ecs_frame_grouped, RAW_FRAME, NO_TARGET, 0, 0},
    {"movement frame, all cores", ecs_frame_parallel, ECS_FRAME, NO_TARGET, 0, 0},
    {"save snapshot, 2 components", ecs_save_snapshot, RAW_SNAPSHOT, RAW_SNAPSHOT, 3.0, GUARANTEE},
    {"load snapshot, 2 components", ecs_load_snapshot, RAW_SNAPSHOT, RAW_SNAPSHOT, 3.0, GOAL},
    {"index: 100 lookups by key", ecs_index_lookup, RAW_SCAN1, RAW_SCAN1, 0.001, GOAL},
    {"index: 100 ranges of 100 keys", ecs_index_range100, RAW_SCAN100, RAW_SCAN100, 0.01, GOAL},
    {"index: 100 views of 100 keys", ecs_index_view100, RAW_SCAN100, NO_TARGET, 0, 0},
    {"index: add, indexed", ecs_keyed_add_indexed, ECS_KEYED_ADD, ECS_KEYED_ADD, 1.5, GOAL},
    {"index: replace, indexed", ecs_keyed_replace_indexed, ECS_KEYED_REPLACE, ECS_KEYED_REPLACE, 1.5, GOAL},
    {"index: remove, indexed", ecs_keyed_remove_indexed, ECS_KEYED_REMOVE, ECS_KEYED_REMOVE, 1.5, GOAL},
    {"index: tracked write loop, indexed", ecs_keyed_loop_indexed, ECS_KEYED_LOOP, ECS_KEYED_LOOP, 1.5, GOAL},
    {"phase: propose + sum reducer", ecs_phase_update, ECS_IN_PLACE, ECS_IN_PLACE, 4.0, GOAL},
};
#define NROWS (sizeof ROWS / sizeof ROWS[0])

/* bytes per entity with Position+Velocity at N = 1M: wave 1 held 45.85; issue
   12 allows 4 more per component (the version in each sparse entry) */
#define MEMORY_TARGET 53.9

#define MAX_REPS 101

typedef struct bench_result {
    double min, med; /* ns per entity */
    bench_sum sum;
    int reps;        /* timed runs: fewer than asked when they would exceed BENCH_BUDGET_NS */
    int done;
    size_t bytes;    /* bytes one run moves (bench_run.bytes), or 0 */
} bench_result;

/* A measurement whose runs would take longer than this in total makes
   fewer runs (at least one): a row that is very slow at a large N still
   shows its number without stalling the table. */
#define BENCH_BUDGET_NS 3000000000.0

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One warm-up run, then `reps` timed runs (fewer if the warm-up shows they
   would exceed BENCH_BUDGET_NS). Every run must give the same checksum. */
static bench_result bench_measure(const char *name, bench_fn fn, uint32_t n, const uint32_t *perm,
                                  int reps) {
    bench_result res;
    double t[MAX_REPS];
    void *keep = NULL;
    void (*keep_free)(void *) = NULL;
    int i;
#ifdef BENCH_CALLGRIND
    CALLGRIND_ZERO_STATS;
#endif
    for (i = -1; i < reps; i++) {
        bench_run r;
        bench_sum s;
        memset(&r, 0, sizeof r);
        r.n = n;
        r.perm = perm;
        r.keep = keep;
        r.keep_free = keep_free;
        s = fn(&r);
        keep = r.keep;
        keep_free = r.keep_free;
        if (!r.stopped) bench_die("a workload did not call bench_start and bench_stop");
        if (i < 0) {
            res.sum = s;
            res.bytes = r.bytes;
            if ((double)r.ns * reps > BENCH_BUDGET_NS)
                reps = (double)r.ns >= BENCH_BUDGET_NS ? 1 : (int)(BENCH_BUDGET_NS / (double)r.ns);
            continue;
        }
        if (s.count != res.sum.count || s.sum != res.sum.sum) {
            fprintf(stderr, "ERROR: %s at N=%lu: checksum changed between runs\n", name,
                    (unsigned long)n);
            bench_failed = 1;
        }
        t[i] = (double)r.ns / (n ? n : 1);
    }
    if (keep_free) keep_free(keep);
#ifdef BENCH_CALLGRIND
    {
        char dump[160];
        snprintf(dump, sizeof dump, "%s|runs=%d|n=%lu", name, reps + 1, (unsigned long)n);
        CALLGRIND_DUMP_STATS_AT(dump);
    }
#endif
    qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
    res.min = t[0];
    res.med = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
    res.reps = reps;
    res.done = 1;
    return res;
}

/* Counting allocator for ecs_desc.allocator: bytes held now and at most. */
typedef struct bench_mem {
    size_t held, peak;
} bench_mem;

static void *bench_mem_alloc(size_t size, void *ctx) {
    bench_mem *m = (bench_mem *)ctx;
    void *p = malloc(size);
    if (p) {
        m->held += size;
        if (m->held > m->peak) m->peak = m->held;
    }
    return p;
}
static void bench_mem_free(void *p, size_t size, void *ctx) {
    ((bench_mem *)ctx)->held -= size;
    free(p);
}

/* e) memory of n entities with Position and Velocity, created one by one,
   counted through the allocator hook; and of the raw arrays. */
static int bench_memory(uint32_t n) {
    bench_mem m = {0, 0};
    ecs_desc desc;
    bench_ecs b;
    raw_world rw = {0};
    bench_sum es, rs;
    double held, peak;
    uint32_t k;
    int met = 1;
    memset(&desc, 0, sizeof desc);
    desc.allocator.alloc = bench_mem_alloc;
    desc.allocator.free = bench_mem_free;
    desc.allocator.ctx = &m;
    b = bench_ecs_new(&desc);
    for (k = 0; k < n; k++) {
        ecs_entity e = ecs_create(b.w);
        ECS_ADD(b.w, e, b.pos, Position, POS0);
        ECS_ADD(b.w, e, b.vel, Velocity, VEL0);
    }
    held = (double)m.held / n;
    peak = (double)m.peak / n;
    for (k = 0; k < n; k++) raw_push(&rw, pos0, vel0);
    es = bench_ecs_sum(&b);
    rs = raw_sum(&rw);
    printf("memory %-27s %8lu  ecs held %6.2f B/entity, peak %6.2f | raw arrays held %6.2f, peak %6.2f",
           "Position+Velocity", (unsigned long)n, held, peak, (double)rw.held / n,
           (double)rw.peak / n);
    if (n == TARGET_N) {
        met = held <= MEMORY_TARGET;
        printf("   target held <= %.1f: %s", MEMORY_TARGET, met ? "ok" : "MISS");
    }
    printf("\n");
    if (es.count != rs.count || es.sum != rs.sum) {
        fprintf(stderr, "ERROR: memory workload at N=%lu: checksum %llu/%llu, raw %llu/%llu\n",
                (unsigned long)n, (unsigned long long)es.count, (unsigned long long)es.sum,
                (unsigned long long)rs.count, (unsigned long long)rs.sum);
        bench_failed = 1;
    }
    raw_free(&rw);
    ecs_world_free(b.w);
    if (m.held != 0) {
        fprintf(stderr, "ERROR: ecs_world_free left %lu bytes allocated\n", (unsigned long)m.held);
        bench_failed = 1;
    }
    return met;
}

static int bench_reps_for(uint32_t n) { return n <= 100000 ? 21 : n <= 1000000 ? 11 : 7; }

/* Where the memory of a run comes from. glibc by default maps big blocks
   fresh from the OS and moves its threshold with the history of frees, so
   whether a run pays page faults (several us each in a VM) depends on what
   ran before it: raw create at 1M varied 12-20 ns/entity that way. Both
   policies below are deterministic:
   warm (default): malloc never maps or trims, so after the warm-up run
       every run reuses memory the process already touched, and the times
       are what the code costs, the same for ecs.h and raw;
   cold (--cold): every block of 128 KiB or more is mapped fresh and
       unmapped on free, so every run pays the first-touch page faults of
       all it allocates, like a program's first create of that many
       entities; realloc then grows raw arrays by remapping, without
       copying (ecs.h's allocator interface has no realloc). */
static const char *bench_memory_policy(int cold) {
#if defined(__GLIBC__)
    if (cold) {
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        mallopt(M_TRIM_THRESHOLD, 128 * 1024);
        return "cold (--cold): blocks >= 128 KiB come fresh from the OS in every run";
    }
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 0x7fffffff);
    return "warm: every run reuses memory touched before (no page faults after warm-up)";
#else
    (void)cold;
    return "the C library's default (not glibc: --cold has no effect)";
#endif
}

static void bench_print_header(const uint32_t *ns, int nn, int reps_override, const char *policy) {
    int i;
    printf("ecs.h benchmark: ecs.h against plain C arrays doing the same work\n");
    printf("build:    %s\n", BENCH_BUILD);
#ifdef __VERSION__
    printf("compiler: %s\n", __VERSION__);
#endif
    printf("ECS_DEBUG=%d (typed macros check sizeof(T); -DNDEBUG turns it off)\n", ECS_DEBUG);
    printf("memory:   %s\n", policy);
    printf("cores:    %u (\"movement frame, all cores\" runs on a pool of that many threads)\n",
           (unsigned)pool_cores());
#if defined(__SANITIZE_ADDRESS__)
    printf("sanitizers on: the times below say nothing about speed\n");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    printf("sanitizers on: the times below say nothing about speed\n");
#endif
#endif
    printf("N:        ");
    for (i = 0; i < nn; i++) printf("%s%lu", i ? ", " : "", (unsigned long)ns[i]);
    printf("\nruns:     1 warm-up, then ");
    for (i = 0; i < nn; i++)
        printf("%s%d", i ? "/" : "", reps_override ? reps_override : bench_reps_for(ns[i]));
    printf(" repetitions\n");
    printf("times in ns per entity; ratio = ecs / raw, from the minima and from the medians;\n");
    printf("targets are ecs min / the named baseline's min, judged at N = %lu\n\n",
           (unsigned long)TARGET_N);
    printf("%-34s %8s %8s %8s  %-11s %8s %8s %10s %10s  %s\n", "workload", "N", "ecs min",
           "ecs med", "baseline", "raw min", "raw med", "ratio(min)", "ratio(med)", "target");
}

int main(int argc, char **argv) {
    static const uint32_t full_ns[] = {10000, 100000, 1000000, 2000000};
    static const uint32_t quick_ns[] = {1000};
    const char *env = getenv("BENCH_QUICK");
    const char *only = NULL;
    FILE *csv = NULL;
    const uint32_t *ns = full_ns;
    uint32_t one_n;
    int nn = 4, reps_override = 0, cold = 0, quick = env && *env && strcmp(env, "0") != 0;
    int i, misses = 0, judged = 0, goals = 0, goals_met = 0;
    size_t row;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--cold")) {
            cold = 1;
        } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            one_n = (uint32_t)strtoul(argv[++i], NULL, 10);
            ns = &one_n;
            nn = 1;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps_override = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) bench_die("--csv: cannot open the file for writing");
            fprintf(csv, "row,workload,n,ecs_min_ns,ecs_med_ns,baseline,baseline_min_ns,baseline_med_ns,"
                         "ratio_min,ratio_med,runs\n");
        } else {
            fprintf(stderr, "usage: %s [--quick] [--cold] [--n N] [--reps R] [--only TEXT] [--csv FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (quick) {
        if (ns == full_ns) {
            ns = quick_ns;
            nn = 1;
        }
        if (!reps_override) reps_override = 3;
    }
    if (reps_override < 0 || reps_override > MAX_REPS) bench_die("--reps: 1 to 101");
    for (i = 0; i < nn; i++)
        if (ns[i] == 0) bench_die("--n: at least 1");

    bench_print_header(ns, nn, reps_override, bench_memory_policy(cold));
    for (i = 0; i < nn; i++) {
        uint32_t n = ns[i];
        int reps = reps_override ? reps_override : bench_reps_for(n), b;
        uint32_t *perm = bench_shuffled(n);
        bench_result ref[NBASELINES];
        memset(ref, 0, sizeof ref);
        for (row = 0; row < NROWS; row++) {
            const bench_row *rw = &ROWS[row];
            bench_result e, *raw = &ref[rw->raw];
            if (only && !strstr(rw->name, only)) continue;
            /* each baseline runs once per N, before its first use */
            for (b = 0; b < NBASELINES; b++)
                if ((b == rw->raw || b == rw->target_raw) && !ref[b].done)
                    ref[b] = bench_measure(BASELINES[b].name, BASELINES[b].fn, n, perm, reps);
            /* a row that is also a baseline (the untracked ecs.h rows) runs once */
            for (b = 0; b < NBASELINES && !(BASELINES[b].fn == rw->ecs && ref[b].done); b++) {}
            e = b < NBASELINES ? ref[b] : bench_measure(rw->name, rw->ecs, n, perm, reps);
            for (b = 0; b < NBASELINES; b++)
                if (BASELINES[b].fn == rw->ecs) ref[b] = e;
            printf("%-34s %8lu %8.4g %8.4g  %-11s %8.4g %8.4g %9.3gx %9.3gx", rw->name, /* (%g: rows of 0.01 ns keep their digits) */
                   (unsigned long)n, e.min, e.med, BASELINES[rw->raw].name, raw->min, raw->med,
                   e.min / raw->min, e.med / raw->med);
            if (e.reps < reps) printf("  (%d run%s)", e.reps, e.reps == 1 ? "" : "s");
            if (rw->target_raw != NO_TARGET) {
                double ratio = e.min / ref[rw->target_raw].min;
                printf("  %s<= %gx %s: %.2fx", rw->kind == GOAL ? "goal " : "", rw->target,
                       BASELINES[rw->target_raw].name, ratio);
                if (n == TARGET_N && rw->kind == GOAL) {
                    goals++;
                    goals_met += ratio <= rw->target;
                    printf(" %s", ratio > rw->target ? "open" : "met");
                } else if (n == TARGET_N) {
                    judged++;
                    misses += ratio > rw->target;
                    printf(" %s", ratio > rw->target ? "MISS" : "ok");
                }
            }
            if (e.bytes && raw->bytes) /* bytes per ns = GB/s, from the minima */
                printf("  | %.1f B/entity: %.2f GB/s, %s %.2f GB/s", (double)e.bytes / n,
                       (double)e.bytes / (e.min * n), BASELINES[rw->raw].name, (double)raw->bytes / (raw->min * n));
            printf("\n");
            if (csv) /* the row as printed; names are quoted (they contain commas) */
                fprintf(csv, "%u,\"%s\",%lu,%.4f,%.4f,\"%s\",%.4f,%.4f,%.4f,%.4f,%d\n", (unsigned)row, rw->name,
                        (unsigned long)n, e.min, e.med, BASELINES[rw->raw].name, raw->min, raw->med,
                        e.min / raw->min, e.med / raw->med, e.reps);
            if (e.sum.count != raw->sum.count || e.sum.sum != raw->sum.sum) {
                fprintf(stderr,
                        "ERROR: %s at N=%lu: checksum %llu entities / sum %llu, but %s gives "
                        "%llu / %llu\n",
                        rw->name, (unsigned long)n, (unsigned long long)e.sum.count,
                        (unsigned long long)e.sum.sum, BASELINES[rw->raw].name,
                        (unsigned long long)raw->sum.count, (unsigned long long)raw->sum.sum);
                bench_failed = 1;
            }
            fflush(stdout);
        }
        if (!only || strstr("memory", only)) {
            if (n == TARGET_N) judged++;
            misses += !bench_memory(n);
        }
        printf("\n");
        free(perm);
    }
    if (judged || goals)
        printf("targets at N = %lu: guarantees %d of %d met%s; goals %d of %d met\n", (unsigned long)TARGET_N,
               judged - misses, judged, misses ? " (MISS rows above)" : "", goals_met, goals);
    else
        printf("targets are judged at N = %lu, not run here\n", (unsigned long)TARGET_N);
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "ERROR: --csv: writing the file failed\n");
        bench_failed = 1;
    }
    if (bench_failed) printf("FAILED: a checksum did not match (see the errors above)\n");
    return bench_failed ? 1 : 0;
}
