/* What ecs.h says several threads may do at once, done by real threads
   (4 POSIX threads that start each round together at a barrier), each
   result checked against what the world was built to hold:
     1. readers (section 3: any number of threads may read a world while
        nobody writes it): ecs_alive, ecs_has, ecs_get, ECS_GET and storage
        handles on shuffled live, stale and forged ids;
     2. names: ecs_lookup of a thousand names, ecs_component_name/size;
     3. read-only views (ecs_view, ecs_view_of, ECS_EACH, ecs_iter_next,
        ecs_iter_next_block, ecs_visit, read-only chunks) over storages that
        interleave and storages in step: the view engine's in-step memo,
        which walks write (a seqlock, section 7), with more pairs than it
        has entries; and the memo under contention (many short walks),
        where a half-written entry taken for good hands out wrong values;
     4. ecs_iter_chunk (section 7): one view split across the threads,
        each writing the rows it walks (ECS_WRITE), untracked and with
        ECS_TRACK_MODIFICATION, over aligned, probed and group storages:
        every entity is handed out exactly once per round;
     5. a workload batch of four systems (disjoint writes declared) run
        through examples/pool.h as desc.parallel_for (section 15);
     6. other reads of a world: uniques, tracking queries and lists,
        groups, the last error.
   A failure inside a thread is recorded by that thread (test.h's CHECK is
   for the main thread) and reported after the join.

   make test also builds this file under ThreadSanitizer ($(B)/tsan-*):
   there a race report fails the test that was running (__tsan_on_report;
   TSan reports a race once, so a later test that hits it again passes).
   THREADS_PCT scales the rounds (the valgrind build runs 5%); the
   environment variable TEST_THREADS_PCT overrides it (e.g. 1000 for a
   ten times longer hunt). */
#include "test.h"
#include <pthread.h>
#include <stdint.h>
#include "../ecs.h"
#include "../examples/pool.h"

#define NTHREADS 4
#define NENT 20000u
#ifndef THREADS_PCT
#define THREADS_PCT 100
#endif

/* --- ThreadSanitizer: a report fails the current test --------------------------- */
#if defined(__SANITIZE_THREAD__)
#define TT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TT_TSAN 1
#endif
#endif
#ifdef TT_TSAN
/* The runtime calls this (a weak default there) once per report. */
void __tsan_on_report(const void *report);
static int tt_reports;
void __tsan_on_report(const void *report) {
    (void)report;
    __atomic_fetch_add(&tt_reports, 1, __ATOMIC_RELAXED);
}
static int tt_races(void) { return __atomic_load_n(&tt_reports, __ATOMIC_RELAXED); }
#else
static int tt_races(void) { return 0; }
#endif

static void (*tt_current)(void);
static void tt_checked(void) {
    int before = tt_races();
    tt_current();
    if (tt_races() != before) {
        printf("  ThreadSanitizer reported %d race(s) during this test (reports above)\n", tt_races() - before);
        test__failed = 1;
    }
}
#define RUN_T(fn) (tt_current = fn, test__run(#fn, tt_checked))

static uint32_t rounds(uint32_t full) {
    const char *env = getenv("TEST_THREADS_PCT");
    uint64_t pct = env && *env ? (uint64_t)strtoul(env, NULL, 10) : THREADS_PCT;
    uint64_t r = (uint64_t)full * pct / 100;
    return r < 2 ? 2 : r > 1000000 ? 1000000 : (uint32_t)r;
}

/* --- threads ---------------------------------------------------------------------- */

/* A reusable barrier (pthread_barrier_t is optional in POSIX). */
typedef struct tbarrier {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint32_t n, waiting, gen;
} tbarrier;

static void tb_init(tbarrier *b, uint32_t n) {
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    b->n = n;
    b->waiting = b->gen = 0;
}
static void tb_free(tbarrier *b) {
    pthread_cond_destroy(&b->cond);
    pthread_mutex_destroy(&b->lock);
}
static void tb_wait(tbarrier *b) {
    uint32_t gen;
    pthread_mutex_lock(&b->lock);
    gen = b->gen;
    if (++b->waiting == b->n) {
        b->waiting = 0;
        b->gen++;
        pthread_cond_broadcast(&b->cond);
    } else
        while (gen == b->gen) pthread_cond_wait(&b->cond, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

typedef struct worker {
    pthread_t th;
    uint32_t id;
    void *shared;
    uint32_t fails;
    uint64_t done;  /* what it did: calls made, entities visited */
    uint64_t at;    /* where it is (round, query, entity), for the message */
    char msg[240];
} worker;

static void wfail(worker *wk, int line, const char *what) {
    if (!wk->fails++)
        snprintf(wk->msg, sizeof wk->msg, "%s:%d: thread %u (at %llu): WCHECK(%s) failed", __FILE__, line,
                 (unsigned)wk->id, (unsigned long long)wk->at, what);
}
/* CHECK for a worker thread: records the first failure, counts the rest. */
#define WCHECK(wk, cond)                                   \
    do {                                                   \
        if (!(cond)) wfail((wk), __LINE__, #cond);         \
    } while (0)

/* Runs fn on NTHREADS threads; the failures they recorded, printed. */
static uint32_t run_workers(void *(*fn)(void *), void *shared, worker *wk, uint64_t *done) {
    uint32_t t, started = 0, fails = 0;
    for (t = 0; t < NTHREADS; t++) {
        memset(&wk[t], 0, sizeof wk[t]);
        wk[t].id = t;
        wk[t].shared = shared;
    }
    for (t = 0; t < NTHREADS; t++, started++)
        if (pthread_create(&wk[t].th, NULL, fn, &wk[t]) != 0) break;
    if (started < NTHREADS) { /* the started ones wait at a barrier for NTHREADS: cannot go on */
        printf("  pthread_create failed after %u threads\n", (unsigned)started);
        exit(1);
    }
    if (done) *done = 0;
    for (t = 0; t < NTHREADS; t++) {
        pthread_join(wk[t].th, NULL);
        if (wk[t].fails) printf("  %s (%u failures in this thread)\n", wk[t].msg, (unsigned)wk[t].fails);
        fails += wk[t].fails;
        if (done) *done += wk[t].done;
    }
    return fails;
}

/* --- values that name their entity and component ---------------------------------- */

typedef struct Val {
    uint64_t key;
    uint32_t idx, comp;
} Val;

static uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static uint64_t key_of(ecs_entity e, ecs_component c) { return mix64(mix64(e) + c); }
static Val val_of(ecs_entity e, ecs_component c) {
    Val v;
    v.key = key_of(e, c);
    v.idx = (uint32_t)e;
    v.comp = c;
    return v;
}
static bool val_ok(const Val *v, ecs_entity e, ecs_component c) {
    return v && v->key == key_of(e, c) && v->idx == (uint32_t)e && v->comp == c;
}
static ecs_component reg_val(ecs_world *w, const char *name) {
    return ecs_register(w, name, sizeof(Val), ECS_ALIGNOF(Val));
}

/* ============================================================================== */
/* 1. ecs_alive / ecs_has / ecs_get / storage handles on live, stale, forged ids    */
/* ============================================================================== */

typedef struct query {
    ecs_entity e;
    uint8_t alive, a, b, t;
} query;

typedef struct readers {
    tbarrier bar;
    ecs_world *w;
    ecs_component a, b, t;
    query *q;
    uint32_t nq, alive, nb, rounds;
    uint64_t bsum;
} readers;

static void *readers_thread(void *arg) {
    worker *wk = (worker *)arg;
    readers *sh = (readers *)wk->shared;
    ecs_world *w = sh->w;
    uint32_t r, j;
    for (r = 0; r < sh->rounds; r++) {
        const ecs_storage *sa, *sb, *st;
        uint32_t start = (uint32_t)(((uint64_t)sh->nq * wk->id / NTHREADS + (uint64_t)r * 7919u) % sh->nq);
        bool down = ((r + wk->id) & 1u) != 0;
        tb_wait(&sh->bar);
        sa = ecs_storage_of(w, sh->a);
        sb = ecs_storage_of(w, sh->b);
        st = ecs_storage_of(w, sh->t);
        WCHECK(wk, sa && sb && st);
        if (!sa || !sb || !st) continue;
        for (j = 0; j < sh->nq; j++) {
            uint32_t at = down ? (start + sh->nq - j) % sh->nq : (start + j) % sh->nq;
            const query *q = &sh->q[at];
            ecs_entity e = q->e;
            const Val *pa, *pb;
            wk->at = at;
            WCHECK(wk, ecs_alive(w, e) == (bool)q->alive);
            pa = (const Val *)ecs_get(w, e, sh->a);
            WCHECK(wk, q->a ? val_ok(pa, e, sh->a) : pa == NULL);
            WCHECK(wk, ecs_has(w, e, sh->a) == (bool)q->a);
            WCHECK(wk, ECS_GET(w, e, sh->a, Val) == pa);
            WCHECK(wk, ECS_STORAGE_GET(sa, e, Val) == pa);
            WCHECK(wk, ecs_storage_has(sa, e) == (bool)q->a);
            pb = ECS_GET(w, e, sh->b, Val);
            WCHECK(wk, q->b ? val_ok(pb, e, sh->b) : pb == NULL);
            WCHECK(wk, ecs_storage_get(sb, e) == (const void *)pb);
            WCHECK(wk, ecs_has(w, e, sh->b) == (bool)q->b);
            WCHECK(wk, ecs_has(w, e, sh->t) == (bool)q->t);
            WCHECK(wk, (ecs_get(w, e, sh->t) != NULL) == (bool)q->t);
            WCHECK(wk, ecs_storage_has(st, e) == (bool)q->t);
            WCHECK(wk, (ecs_storage_get(st, e) != NULL) == (bool)q->t);
        }
        wk->done += sh->nq;
        /* the packed arrays, read whole */
        wk->at = r;
        WCHECK(wk, ecs_count(w) == sh->alive);
        WCHECK(wk, ecs_storage_count(sb) == sh->nb);
        {
            const ecs_entity *ents = ecs_storage_entities(sb);
            const Val *vals = (const Val *)ecs_storage_data(sb);
            uint64_t sum = 0;
            uint32_t i, n = ecs_storage_count(sb), bad = 0;
            for (i = 0; i < n; i++) {
                sum += vals[i].key;
                bad += !val_ok(&vals[i], ents[i], sh->b) || ecs_storage_get(sb, ents[i]) != (const void *)&vals[i];
            }
            WCHECK(wk, sum == sh->bsum && bad == 0);
            WCHECK(wk, ecs_storage_data(st) == NULL && ecs_storage_count(st) > 0);
        }
    }
    return NULL;
}

static void test_get_has_alive_on_live_stale_and_forged_ids(void) {
    readers sh;
    worker wk[NTHREADS];
    ecs_entity *ids = (ecs_entity *)malloc(NENT * sizeof *ids), *cur = (ecs_entity *)calloc(NENT, sizeof *cur);
    uint32_t i, k, nfresh = NENT / 10, cap = NENT + NENT / 10 + 4000, fails;
    uint64_t done;
    CHECK(ids && cur);
    memset(&sh, 0, sizeof sh);
    sh.q = (query *)calloc(cap, sizeof *sh.q);
    CHECK(sh.q);
    sh.w = ecs_world_new(NULL);
    CHECK(sh.w);
    sh.a = reg_val(sh.w, "A");
    sh.b = reg_val(sh.w, "B");
    sh.t = ECS_TAG(sh.w, "T");
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ids[i] = ecs_create(sh.w);
        CHECK(ECS_ADD(sh.w, e, sh.a, Val, val_of(e, sh.a)));
        if (i % 2 == 0) CHECK(ECS_ADD(sh.w, e, sh.b, Val, val_of(e, sh.b)));
        if (i % 3 == 0) CHECK(ecs_add(sh.w, e, sh.t, NULL));
    }
    for (i = 0; i < NENT; i++) { /* every fifth dies: stale ids */
        query *q = &sh.q[sh.nq++];
        q->e = ids[i];
        if (i % 5 == 4) {
            CHECK(ecs_destroy(sh.w, ids[i]));
            continue;
        }
        cur[i] = ids[i];
        q->alive = q->a = 1;
        q->b = i % 2 == 0;
        q->t = i % 3 == 0;
    }
    for (i = 0; i < nfresh; i++) { /* new entities in the oldest freed slots (version 2) */
        ecs_entity e = ecs_create(sh.w);
        query *q = &sh.q[sh.nq++];
        CHECK(ECS_ENTITY_INDEX(e) < NENT && ECS_ENTITY_VERSION(e) == 2 && !cur[ECS_ENTITY_INDEX(e)]);
        cur[ECS_ENTITY_INDEX(e)] = e;
        CHECK(ECS_ADD(sh.w, e, sh.a, Val, val_of(e, sh.a)));
        CHECK(ECS_ADD(sh.w, e, sh.b, Val, val_of(e, sh.b)));
        q->e = e;
        q->alive = q->a = q->b = 1;
    }
    /* forged: past every slot, versions never handed out, above the maximum,
       the version a free slot's next entity will get, null, all ones */
    for (k = 0; k < 500; k++) {
        uint32_t idx = (k * 37u) % NENT;
        ecs_entity live = cur[idx] ? cur[idx] : ids[idx];
        sh.q[sh.nq++].e = ((ecs_entity)1 << 32) | (NENT + k * 131u);
        sh.q[sh.nq++].e = ((ecs_entity)(k + 1) << 32) | (0xfffffffeu - k * 4099u);
        sh.q[sh.nq++].e = live + ((ecs_entity)1 << 32);
        sh.q[sh.nq++].e = (live & 0xffffffffu) | ((ecs_entity)(0x80000000u | k) << 32);
        sh.q[sh.nq++].e = (live & 0xffffffffu) | ((ecs_entity)0x7fffffffu << 32);
        sh.q[sh.nq++].e = live & 0xffffffffu; /* version 0 */
    }
    for (i = 0; i < NENT && sh.nq + 2 < cap; i++)
        if (i % 5 == 4 && !cur[i]) sh.q[sh.nq++].e = ((ecs_entity)2 << 32) | i; /* a free slot's next version */
    sh.q[sh.nq++].e = ECS_NULL;
    sh.q[sh.nq++].e = ~(ecs_entity)0;
    for (i = sh.nq - 1; i > 0; i--) { /* shuffle */
        query tmp = sh.q[i];
        k = test_rand(i + 1);
        sh.q[i] = sh.q[k];
        sh.q[k] = tmp;
    }
    for (i = 0; i < sh.nq; i++) {
        sh.alive += sh.q[i].alive;
        sh.nb += sh.q[i].b;
        if (sh.q[i].b) sh.bsum += key_of(sh.q[i].e, sh.b);
    }
    CHECK(sh.alive == NENT - NENT / 5 + nfresh && ecs_count(sh.w) == sh.alive);
    sh.rounds = rounds(100);
    tb_init(&sh.bar, NTHREADS);
    fails = run_workers(readers_thread, &sh, wk, &done);
    tb_free(&sh.bar);
    CHECK_EQ(fails, 0);
    CHECK_EQ(done, (uint64_t)NTHREADS * sh.rounds * sh.nq);
    CHECK_EQ(ecs_last_error(sh.w), ECS_OK); /* no reader recorded an error */
    ecs_world_free(sh.w);
    free(sh.q);
    free(ids);
    free(cur);
}

/* ============================================================================== */
/* 2. ecs_lookup, ecs_component_name, ecs_component_size                             */
/* ============================================================================== */

#define NNAMES 1000u

typedef struct names {
    tbarrier bar;
    ecs_world *w;
    char name[NNAMES][24], unknown[NNAMES][24];
    ecs_component id[NNAMES];
    size_t size[NNAMES];
    uint32_t rounds;
} names;

static void *names_thread(void *arg) {
    worker *wk = (worker *)arg;
    names *sh = (names *)wk->shared;
    uint32_t r, j;
    for (r = 0; r < sh->rounds; r++) {
        tb_wait(&sh->bar);
        wk->at = r;
        WCHECK(wk, ecs_component_max(sh->w) == NNAMES);
        WCHECK(wk, ecs_lookup(sh->w, NULL) == 0 && ecs_lookup(sh->w, "") == 0);
        for (j = 0; j < NNAMES; j++) {
            uint32_t i = (j * 389u + wk->id * 97u + r * 13u) % NNAMES; /* each thread its own order */
            ecs_component c = ecs_lookup(sh->w, sh->name[i]);
            const char *nm = ecs_component_name(sh->w, sh->id[i]);
            wk->at = i;
            WCHECK(wk, c == sh->id[i]);
            WCHECK(wk, nm && !strcmp(nm, sh->name[i]));
            WCHECK(wk, ecs_component_size(sh->w, sh->id[i]) == sh->size[i]);
            WCHECK(wk, ecs_lookup(sh->w, sh->unknown[i]) == 0);
            WCHECK(wk, ecs_storage_of(sh->w, sh->id[i]) != NULL);
        }
        wk->done += NNAMES;
    }
    return NULL;
}

static void test_lookup_and_component_names_from_every_thread(void) {
    names *sh = (names *)calloc(1, sizeof *sh);
    worker wk[NTHREADS];
    uint32_t i, fails;
    uint64_t done;
    CHECK(sh);
    sh->w = ecs_world_new(NULL);
    CHECK(sh->w);
    for (i = 0; i < NNAMES; i++) {
        snprintf(sh->name[i], sizeof sh->name[i], "comp.%u", (unsigned)i);
        snprintf(sh->unknown[i], sizeof sh->unknown[i], i % 2 ? "comp.%u" : "Comp.%u", (unsigned)(i % 2 ? NNAMES + i : i));
        sh->size[i] = (i % 4) * 8; /* 0: a tag */
        sh->id[i] = ecs_register(sh->w, sh->name[i], sh->size[i], 8);
        CHECK_EQ(sh->id[i], i + 1);
    }
    sh->rounds = rounds(200);
    tb_init(&sh->bar, NTHREADS);
    fails = run_workers(names_thread, sh, wk, &done);
    tb_free(&sh->bar);
    CHECK_EQ(fails, 0);
    CHECK_EQ(done, (uint64_t)NTHREADS * sh->rounds * NNAMES);
    CHECK_EQ(ecs_last_error(sh->w), ECS_OK);
    ecs_world_free(sh->w);
    free(sh);
}

/* ============================================================================== */
/* 3. read-only views at once: interleaved storages and storages in step           */
/* ============================================================================== */

#define NSTEP 12u /* pairs in step with A: more than the memo's 8 entries */

/* What each entity of the views world has (entity index i, all version 1). */
typedef struct vworld {
    ecs_world *w;
    ecs_component a, b, c, d, t[NSTEP];
} vworld;

static bool vw_has(const vworld *vw, ecs_component c, uint32_t i) {
    if (c == vw->b) return i % 2 == 0;
    if (c == vw->c) return i % 3 == 0;
    if (c == vw->d) return i % 5 == 0;
    return true; /* a and every t[] */
}

/* T[k] holds every entity, in step with A in rows 0..n-1; above, each
   triple of rows has its first two swapped and its third in step, so a
   run may start at a row in step with rows out of step below it: only a
   memo entry that is right for (A, T[k]) keeps the walk from taking the
   whole run as aligned. */
typedef struct rows_plan {
    uint32_t n, total; /* in step below n, of total rows */
} rows_plan;
static uint32_t vw_row_of(uint32_t i, const rows_plan *p) {
    uint32_t d = i - p->n;
    if (i < p->n || d % 3 == 2) return i;
    return d % 3 == 0 ? (i + 1 < p->total ? i + 1 : i) : i - 1;
}
static int vw_by_row(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    const rows_plan *p = (const rows_plan *)ctx;
    uint32_t ra = vw_row_of(ECS_ENTITY_INDEX(a), p), rb = vw_row_of(ECS_ENTITY_INDEX(b), p);
    (void)va, (void)vb;
    return ra < rb ? -1 : ra > rb;
}
/* Sorts t so (see above); false unless its rows are as planned. */
static bool sort_in_step_below(ecs_world *w, ecs_component t, uint32_t n, uint32_t total) {
    rows_plan p;
    const ecs_storage *s = ecs_storage_of(w, t);
    uint32_t i;
    p.n = n;
    p.total = total;
    if (!s || ecs_storage_count(s) != total || !ecs_sort(w, t, vw_by_row, &p)) return false;
    for (i = 0; i < total; i++)
        if ((ecs_storage_entities(s)[i] == (((ecs_entity)1 << 32) | i)) != (i < n || (i - n) % 3 == 2)) return false;
    return true;
}

static bool vw_build(vworld *vw) {
    uint32_t i, k;
    char nm[16];
    memset(vw, 0, sizeof *vw);
    if (!(vw->w = ecs_world_new(NULL))) return false;
    vw->a = reg_val(vw->w, "A");
    vw->b = reg_val(vw->w, "B");
    vw->c = ECS_TAG(vw->w, "C");
    vw->d = reg_val(vw->w, "D");
    for (k = 0; k < NSTEP; k++) {
        snprintf(nm, sizeof nm, "T%u", (unsigned)k);
        vw->t[k] = reg_val(vw->w, nm);
    }
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ecs_create(vw->w);
        if (ECS_ENTITY_INDEX(e) != i || !ECS_ADD(vw->w, e, vw->a, Val, val_of(e, vw->a)) ||
            !ECS_ADD(vw->w, e, vw->b, Val, val_of(e, vw->b)))
            return false;
        for (k = 0; k < NSTEP; k++)
            if (!ECS_ADD(vw->w, e, vw->t[k], Val, val_of(e, vw->t[k]))) return false;
        if (i % 5 == 0 && !ECS_ADD(vw->w, e, vw->d, Val, val_of(e, vw->d))) return false;
    }
    for (i = NENT; i-- > 0;) /* C added last to first: its rows match no other storage's */
        if (i % 3 == 0 && !ecs_add(vw->w, ((ecs_entity)1 << 32) | i, vw->c, NULL)) return false;
    for (i = 1; i < NENT; i += 2) /* B leaves the odd ones: swap-remove interleaves it */
        if (!ecs_delete(vw->w, ((ecs_entity)1 << 32) | i, vw->b)) return false;
    for (k = 1; k < NSTEP; k++)
        if (!sort_in_step_below(vw->w, vw->t[k], NENT - k * 1500u, NENT)) return false;
    return true;
}

typedef struct vcase {
    ecs_view_desc d;
    uint32_t nterms, count; /* count, sum: what a walk must yield */
    uint64_t sum;
    bool union_view;
} vcase;

static bool vcase_match(const vworld *vw, const vcase *vc, uint32_t i) {
    uint32_t k, anys = 0, any_present = 0;
    for (k = 0; k < vc->nterms; k++) {
        uint32_t f = vc->d.terms[k].flags;
        bool has = vw_has(vw, vc->d.terms[k].c, i);
        if (f & ECS_NOT) {
            if (has) return false;
        } else if (f & ECS_ANY) {
            anys++;
            any_present += has;
        } else if (!(f & ECS_OPTIONAL) && !has)
            return false;
    }
    return !anys || any_present;
}

static void vcase_finish(const vworld *vw, vcase *vc) {
    uint32_t i;
    for (vc->nterms = 0; vc->nterms < ECS_MAX_TERMS && vc->d.terms[vc->nterms].c; vc->nterms++) {}
    vc->count = 0;
    vc->sum = 0;
    for (i = 0; i < NENT; i++)
        if (vcase_match(vw, vc, i)) {
            vc->count++;
            vc->sum += mix64(((ecs_entity)1 << 32) | i);
        }
}

typedef struct views {
    tbarrier bar;
    vworld vw;
    vcase cases[NSTEP + 8];
    uint32_t ncases, rounds;
} views;

/* One entity handed out: matches, and every field is its own value. */
typedef struct vcheck {
    worker *wk;
    const views *sh;
    const vcase *vc;
    uint32_t count;
    uint64_t sum;
} vcheck;

static void check_entity(vcheck *ck, ecs_entity e, void *const *fields) {
    const vworld *vw = &ck->sh->vw;
    const vcase *vc = ck->vc;
    uint32_t k, i = ECS_ENTITY_INDEX(e);
    ck->wk->at = e;
    WCHECK(ck->wk, ECS_ENTITY_VERSION(e) == 1 && i < NENT && vcase_match(vw, vc, i));
    if (i >= NENT) return;
    for (k = 0; k < vc->nterms; k++) {
        ecs_component c = vc->d.terms[k].c;
        if (vc->d.terms[k].flags & ECS_NOT) continue;
        if (!vw_has(vw, c, i))
            WCHECK(ck->wk, fields[k] == NULL);
        else if (c == vw->c)
            WCHECK(ck->wk, fields[k] != NULL);
        else
            WCHECK(ck->wk, val_ok((const Val *)fields[k], e, c));
    }
    ck->count++;
    ck->sum += mix64(e);
}

static void check_iter_entity(vcheck *ck, ecs_iter *it) {
    void *fields[ECS_MAX_TERMS];
    uint32_t k;
    for (k = 0; k < ck->vc->nterms; k++) fields[k] = ecs_field(it, k);
    check_entity(ck, ecs_iter_entity(it), fields);
}

static void each_fn(ecs_iter *it, void *ctx) { check_iter_entity((vcheck *)ctx, it); }

/* Walks vc in loop form `form`; the entities it yields are checked. */
static void walk_case(vcheck *ck, ecs_world *w, uint32_t form) {
    const vcase *vc = ck->vc;
    ecs_iter it;
    uint32_t k, j, n;
    if (vc->union_view && form >= 4) form = 0; /* a union view cannot be split */
    switch (form) {
    case 0:
        it = ecs_view(w, &vc->d);
        ECS_EACH(&it) { check_iter_entity(ck, &it); }
        break;
    case 1: { /* ecs_view_of when every term is required */
        ecs_component comps[ECS_MAX_TERMS];
        bool plain = true;
        for (k = 0; k < vc->nterms; k++) {
            comps[k] = vc->d.terms[k].c;
            plain &= vc->d.terms[k].flags == 0;
        }
        it = plain ? ecs_view_of(w, vc->nterms, comps) : ecs_view(w, &vc->d);
        while (ecs_iter_next(&it)) check_iter_entity(ck, &it);
        break;
    }
    case 2:
        for (it = ecs_view(w, &vc->d); ecs_iter_next_block(&it);) {
            void *blocks[ECS_MAX_TERMS], *fields[ECS_MAX_TERMS];
            for (k = 0; k < vc->nterms; k++) blocks[k] = ecs_block(&it, k);
            for (j = 0; j < it.count; j++) {
                for (k = 0; k < vc->nterms; k++) {
                    ecs_component c = vc->d.terms[k].c;
                    size_t size = c == ck->sh->vw.c ? 0 : sizeof(Val);
                    fields[k] = blocks[k] ? (char *)blocks[k] + j * size : NULL; /* absent: a block of one */
                }
                check_entity(ck, it.entities[j], fields);
            }
        }
        break;
    case 3:
        n = ecs_visit(w, &vc->d, each_fn, ck);
        WCHECK(ck->wk, n == vc->count);
        break;
    default: /* read-only chunks, one after the other: many short walks */
        for (j = 0; j < 8; j++) {
            it = ecs_view(w, &vc->d);
            WCHECK(ck->wk, ecs_iter_chunk(&it, j, 8));
            ECS_EACH(&it) { check_iter_entity(ck, &it); }
        }
        break;
    }
}

static void *views_thread(void *arg) {
    worker *wk = (worker *)arg;
    views *sh = (views *)wk->shared;
    uint32_t r;
    for (r = 0; r < sh->rounds; r++) {
        /* odd rounds: the in-step pairs (cases 0..NSTEP-1, more than the memo
           holds), each thread its own; even rounds: any case. Every other
           pair of rounds all threads walk in the same loop form. */
        uint32_t half = r / 2, c = r % 2 ? (half + wk->id * 3u) % NSTEP : (half + wk->id * 5u) % sh->ncases;
        vcheck ck;
        ck.wk = wk;
        ck.sh = sh;
        ck.vc = &sh->cases[c];
        ck.count = 0;
        ck.sum = 0;
        tb_wait(&sh->bar);
        walk_case(&ck, sh->vw.w, (half + (half % 2 ? wk->id : 0)) % 5);
        wk->at = ((uint64_t)r << 32) | c;
        WCHECK(wk, ck.count == ck.vc->count && ck.sum == ck.vc->sum);
        wk->done += ck.count;
    }
    return NULL;
}

static void test_read_only_views_on_every_thread(void) {
    views *sh = (views *)calloc(1, sizeof *sh);
    vworld *vw;
    worker wk[NTHREADS];
    uint32_t k, fails;
    uint64_t done;
    vcase *vc;
    CHECK(sh);
    vw = &sh->vw;
    CHECK(vw_build(vw));
    for (k = 0; k < NSTEP; k++) { /* A and T[k]: in step below NENT - 1500 k, every third row above */
        vc = &sh->cases[sh->ncases++];
        vc->d.terms[0].c = vw->a;
        vc->d.terms[1].c = vw->t[k];
    }
    vc = &sh->cases[sh->ncases++]; /* interleaved: B leads, A probed */
    vc->d.terms[0].c = vw->a;
    vc->d.terms[1].c = vw->b;
    vc = &sh->cases[sh->ncases++];
    vc->d.terms[0].c = vw->a;
    vc->d.terms[1].c = vw->b;
    vc->d.terms[2] = (ecs_term){vw->c, ECS_NOT};
    vc = &sh->cases[sh->ncases++];
    vc->d.terms[0].c = vw->a;
    vc->d.terms[1] = (ecs_term){vw->b, ECS_OPTIONAL};
    vc->d.terms[2].c = vw->d;
    vc = &sh->cases[sh->ncases++];
    vc->d.terms[0].c = vw->b;
    vc->d.terms[1] = (ecs_term){vw->c, ECS_ANY};
    vc->d.terms[2] = (ecs_term){vw->d, ECS_ANY};
    vc = &sh->cases[sh->ncases++]; /* a union view */
    vc->d.terms[0] = (ecs_term){vw->c, ECS_ANY};
    vc->d.terms[1] = (ecs_term){vw->d, ECS_ANY};
    vc->union_view = true;
    vc = &sh->cases[sh->ncases++]; /* several in step at once, a filter, an optional */
    vc->d.terms[0].c = vw->a;
    vc->d.terms[1].c = vw->t[0];
    vc->d.terms[2].c = vw->t[5];
    vc->d.terms[3].c = vw->t[NSTEP - 1];
    vc->d.terms[4] = (ecs_term){vw->d, ECS_OPTIONAL};
    vc->d.terms[5] = (ecs_term){vw->c, ECS_NOT};
    vc = &sh->cases[sh->ncases++]; /* T[3] forced as the lead */
    vc->d.terms[0].c = vw->a;
    vc->d.terms[1].c = vw->t[3];
    vc->d.terms[2].c = vw->t[7];
    vc->d.lead = vw->t[3];
    for (k = 0; k < sh->ncases; k++) vcase_finish(vw, &sh->cases[k]);
    CHECK(sh->cases[0].count == NENT && sh->cases[NSTEP].count == NENT / 2);
    { /* the serial walks agree with the construction */
        worker self;
        vcheck ck;
        uint32_t form;
        memset(&self, 0, sizeof self);
        for (k = 0; k < sh->ncases; k++)
            for (form = 0; form < 5; form++) {
                ck.wk = &self;
                ck.sh = sh;
                ck.vc = &sh->cases[k];
                ck.count = 0;
                ck.sum = 0;
                walk_case(&ck, vw->w, form);
                if (self.fails || ck.count != ck.vc->count || ck.sum != ck.vc->sum)
                    printf("  serial walk: case %u form %u: %u of %u entities; %s\n", (unsigned)k, (unsigned)form,
                           (unsigned)ck.count, (unsigned)ck.vc->count, self.msg);
                CHECK(!self.fails && ck.count == ck.vc->count && ck.sum == ck.vc->sum);
            }
    }
    sh->rounds = rounds(300);
    tb_init(&sh->bar, NTHREADS);
    fails = run_workers(views_thread, sh, wk, &done);
    tb_free(&sh->bar);
    CHECK_EQ(fails, 0);
    CHECK_GT(done, (uint64_t)sh->rounds * NENT / 2);
    CHECK_EQ(ecs_last_error(vw->w), ECS_OK);
    ecs_world_free(vw->w);
    free(sh);
}

/* The memo under contention: many short walks of 16 pairs (8 entries),
   so entries are read while other threads rewrite them. Half the pairs
   are in step all the way (their entries say n = MEMO_ENT); the others
   only below n < MEMO_ENT, with their top row in step. A walk of one of
   those first probes rows 64..MEMO_ENT-1 (one probe run: 256 rows), then
   finds rows 0..63 in step (its entry: n = 64); had it taken n = MEMO_ENT
   from a half-written entry, it would hand out the values of other
   entities. Every storage was sorted once, so all change counts are
   equal: only the seqlock tells a good entry from a half-written one. */
#define MEMO_ENT 320u
#define MEMO_PAIRS 16u

typedef struct memo_stress {
    tbarrier bar;
    ecs_world *w;
    ecs_component a, s[MEMO_PAIRS];
    uint32_t rounds;
} memo_stress;

static void *memo_thread(void *arg) {
    worker *wk = (worker *)arg;
    memo_stress *sh = (memo_stress *)wk->shared;
    uint64_t rng = 0x9e3779b97f4a7c15ull * (wk->id + 1);
    uint32_t r, j;
    for (r = 0; r < sh->rounds; r++) {
        tb_wait(&sh->bar);
        for (j = 0; j < 64; j++) {
            ecs_component both[2];
            ecs_iter it;
            uint32_t n = 0;
            uint64_t sum = 0;
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            both[0] = sh->a;
            both[1] = sh->s[rng % MEMO_PAIRS];
            it = ecs_view_of(sh->w, 2, both);
            ECS_EACH(&it) {
                ecs_entity e = ecs_iter_entity(&it);
                const Val *v = ECS_FIELD(&it, 1, Val);
                sum += v->key ^ key_of(e, both[1]); /* 0 when v is e's own */
                n++;
            }
            wk->at = ((uint64_t)r << 32) | both[1];
            WCHECK(wk, n == MEMO_ENT && sum == 0);
            wk->done++;
        }
    }
    return NULL;
}

static void test_in_step_memo_under_contention(void) {
    memo_stress sh;
    worker wk[NTHREADS];
    uint32_t i, k, fails;
    uint64_t done;
    char nm[16];
    memset(&sh, 0, sizeof sh);
    sh.w = ecs_world_new(NULL);
    CHECK(sh.w);
    sh.a = reg_val(sh.w, "A");
    for (k = 0; k < MEMO_PAIRS; k++) {
        snprintf(nm, sizeof nm, "S%u", (unsigned)k);
        sh.s[k] = reg_val(sh.w, nm);
    }
    for (i = 0; i < MEMO_ENT; i++) {
        ecs_entity e = ecs_create(sh.w);
        CHECK(ECS_ADD(sh.w, e, sh.a, Val, val_of(e, sh.a)));
        for (k = 0; k < MEMO_PAIRS; k++) CHECK(ECS_ADD(sh.w, e, sh.s[k], Val, val_of(e, sh.s[k])));
    }
    for (k = 0; k < MEMO_PAIRS; k++) /* odd k: (MEMO_ENT - n) % 3 == 0, the top row in step */
        CHECK(sort_in_step_below(sh.w, sh.s[k], k % 2 ? MEMO_ENT - 3 * (4 + k) : MEMO_ENT, MEMO_ENT));
    sh.rounds = rounds(400);
    tb_init(&sh.bar, NTHREADS);
    fails = run_workers(memo_thread, &sh, wk, &done);
    tb_free(&sh.bar);
    CHECK_EQ(fails, 0);
    CHECK_EQ(done, (uint64_t)NTHREADS * sh.rounds * 64);
    ecs_world_free(sh.w);
}

/* ============================================================================== */
/* 4. ecs_iter_chunk: one view split across threads, each writing its own rows     */
/* ============================================================================== */

typedef struct Acc {
    uint64_t key;
    uint32_t visits, acc;
} Acc;

enum { CH_ALIGNED, CH_NOT, CH_LEAD_OTHER, CH_OPTIONAL, CH_GROUP, CH_INDEX, CH_CASES };
#define CH_LO 1000u /* CH_INDEX: the entities whose V.idx is in CH_LO..CH_HI, through an ordered index */
#define CH_HI 15000u

typedef struct chunks {
    tbarrier bar;
    ecs_world *w;
    ecs_component acc, v, s, c, g1, g2, gx;
    ecs_group g;
    ecs_index vix;
    uint32_t lo, hi;
    ecs_view_desc d;
    uint32_t kase, rounds;
    ecs_component written, read; /* the written term's component; the read one's (0: none) */
} chunks;

/* Who has what (entity index i, version 1). */
static bool ch_has(const chunks *sh, ecs_component c, uint32_t i) {
    if (c == sh->s) return i % 3 == 0;
    if (c == sh->c) return i % 7 == 0;
    if (c == sh->g1) return i % 4 != 3;
    if (c == sh->g2) return i % 2 == 0;
    if (c == sh->gx) return i % 6 == 0;
    return true; /* acc, v */
}
static bool ch_match(const chunks *sh, uint32_t i) {
    switch (sh->kase) {
    case CH_ALIGNED: return true;
    case CH_NOT: return !ch_has(sh, sh->c, i);
    case CH_LEAD_OTHER: return ch_has(sh, sh->s, i);
    case CH_OPTIONAL: return true;
    case CH_INDEX: return i >= CH_LO && i <= CH_HI;
    default: return ch_has(sh, sh->g1, i) && ch_has(sh, sh->g2, i) && !ch_has(sh, sh->gx, i);
    }
}
/* What one visit adds to the written value's acc. */
static uint32_t ch_add(const chunks *sh, uint32_t i) {
    ecs_entity e = ((ecs_entity)1 << 32) | i;
    switch (sh->kase) {
    case CH_ALIGNED:
    case CH_NOT:
    case CH_INDEX: return (uint32_t)key_of(e, sh->v);
    case CH_LEAD_OTHER: return (uint32_t)key_of(e, sh->s);
    case CH_OPTIONAL: return ch_has(sh, sh->s, i) ? (uint32_t)key_of(e, sh->s) : 1u;
    default: return (uint32_t)key_of(e, sh->g2);
    }
}

/* One entity of a chunk: its fields are its own; the written one counts the visit. */
static void ch_visit(worker *wk, const chunks *sh, ecs_entity e, Acc *a, const Val *rd) {
    uint32_t i = ECS_ENTITY_INDEX(e);
    ecs_entity other = ((ecs_entity)1 << 32) | ((i * 7919u + 13u) % NENT);
    wk->at = e;
    WCHECK(wk, ECS_ENTITY_VERSION(e) == 1 && i < NENT && ch_match(sh, i));
    WCHECK(wk, a && a->key == key_of(e, sh->written));
    WCHECK(wk, rd ? val_ok(rd, e, sh->read) : sh->kase == CH_OPTIONAL && !ch_has(sh, sh->s, i));
    if (a) {
        a->visits++;
        a->acc += rd ? (uint32_t)rd->key : 1u;
    }
    /* threads may read anything: another entity's read-only component */
    WCHECK(wk, val_ok(ECS_GET(sh->w, other, sh->v, Val), other, sh->v));
    wk->done++;
}

static void *chunks_thread(void *arg) {
    worker *wk = (worker *)arg;
    chunks *sh = (chunks *)wk->shared;
    static const uint32_t nchunks[] = {4, 7, 16, 3, 64};
    uint32_t r, k, wt = sh->kase == CH_LEAD_OTHER ? 1 : 0, rt = 1 - wt; /* written, read term */
    for (r = 0; r < sh->rounds; r++) {
        uint32_t n = nchunks[r % 5], form = (r / 5 + wk->id) % 3;
        tb_wait(&sh->bar);
        for (k = wk->id; k < n; k += NTHREADS) {
            ecs_iter it = ecs_view(sh->w, &sh->d);
            wk->at = ((uint64_t)r << 32) | k;
            WCHECK(wk, ecs_iter_chunk(&it, k, n));
            if (sh->kase == CH_INDEX) { /* an up-to-date index's queries only read it */
                uint32_t key = CH_LO + r * 7u + k, lo = CH_LO, hi = CH_LO + 9u;
                WCHECK(wk, ecs_index_find(sh->w, sh->vix, &key, NULL, 0) == 1);
                WCHECK(wk, ecs_index_range(sh->w, sh->vix, &lo, &hi, 0, NULL, 0) == 10);
            }
            if (form == 0) {
                ECS_EACH(&it) {
                    ch_visit(wk, sh, ecs_iter_entity(&it), ECS_FIELD(&it, wt, Acc), ECS_FIELD(&it, rt, Val));
                }
            } else if (form == 1) {
                while (ecs_iter_next(&it))
                    ch_visit(wk, sh, ecs_iter_entity(&it), (Acc *)ecs_field(&it, wt), (const Val *)ecs_field(&it, rt));
            } else
                while (ecs_iter_next_block(&it)) {
                    Acc *a = ECS_BLOCK(&it, wt, Acc);
                    const Val *v = ECS_BLOCK(&it, rt, Val);
                    uint32_t j;
                    for (j = 0; j < it.count; j++) ch_visit(wk, sh, it.entities[j], a + j, v ? v + j : NULL);
                }
        }
    }
    return NULL;
}

static bool ch_build(chunks *sh) {
    uint32_t i;
    ecs_group_desc gd;
    memset(sh, 0, sizeof *sh);
    if (!(sh->w = ecs_world_new(NULL))) return false;
    sh->acc = ecs_register(sh->w, "Acc", sizeof(Acc), ECS_ALIGNOF(Acc));
    sh->v = reg_val(sh->w, "V");
    sh->s = reg_val(sh->w, "S");
    sh->c = ECS_TAG(sh->w, "C");
    sh->g1 = ecs_register(sh->w, "G1", sizeof(Acc), ECS_ALIGNOF(Acc));
    sh->g2 = reg_val(sh->w, "G2");
    sh->gx = ECS_TAG(sh->w, "GX");
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = sh->g1;
    gd.owned[1] = sh->g2;
    gd.excluded[0] = sh->gx;
    if (!(sh->g = ecs_group_new(sh->w, &gd))) return false;
    {
        ecs_index_desc xd;
        memset(&xd, 0, sizeof xd);
        xd.c = sh->v, xd.offset = offsetof(Val, idx), xd.size = 4, xd.kind = ECS_KEY_UINT, xd.ordered = true;
        if (!(sh->vix = ecs_index_new(sh->w, &xd))) return false;
        sh->lo = CH_LO, sh->hi = CH_HI;
    }
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ecs_create(sh->w);
        Acc a;
        if (ECS_ENTITY_INDEX(e) != i) return false;
        a.key = key_of(e, sh->acc);
        a.visits = a.acc = 0;
        if (!ECS_ADD(sh->w, e, sh->acc, Acc, a) || !ECS_ADD(sh->w, e, sh->v, Val, val_of(e, sh->v))) return false;
        a.key = key_of(e, sh->g1);
        if (ch_has(sh, sh->g1, i) && !ECS_ADD(sh->w, e, sh->g1, Acc, a)) return false;
        if (ch_has(sh, sh->g2, i) && !ECS_ADD(sh->w, e, sh->g2, Val, val_of(e, sh->g2))) return false;
        if (ch_has(sh, sh->gx, i) && !ecs_add(sh->w, e, sh->gx, NULL)) return false;
    }
    for (i = NENT; i-- > 0;) { /* added last to first: interleaved with acc and v */
        ecs_entity e = ((ecs_entity)1 << 32) | i;
        if (ch_has(sh, sh->s, i) && !ECS_ADD(sh->w, e, sh->s, Val, val_of(e, sh->s))) return false;
        if (ch_has(sh, sh->c, i) && !ecs_add(sh->w, e, sh->c, NULL)) return false;
    }
    return true;
}

/* Runs case `kase` for rounds; then every entity the view matches was
   visited once a round (and marked modified when tracked), no other one. */
static bool ch_run(chunks *sh, uint32_t kase, bool tracked) {
    worker wk[NTHREADS];
    ecs_tick since;
    uint32_t i, expect = 0, fails, bad = 0;
    uint64_t done;
    ecs_iter it;
    sh->kase = kase;
    sh->written = kase == CH_GROUP ? sh->g1 : sh->acc;
    sh->read = kase == CH_GROUP ? sh->g2 : kase == CH_LEAD_OTHER || kase == CH_OPTIONAL ? sh->s : sh->v;
    memset(&sh->d, 0, sizeof sh->d);
    switch (kase) {
    case CH_ALIGNED:
        sh->d.terms[0] = (ecs_term){sh->acc, ECS_WRITE};
        sh->d.terms[1].c = sh->v;
        break;
    case CH_NOT:
        sh->d.terms[0] = (ecs_term){sh->acc, ECS_WRITE};
        sh->d.terms[1].c = sh->v;
        sh->d.terms[2] = (ecs_term){sh->c, ECS_NOT};
        break;
    case CH_LEAD_OTHER: /* S leads (fewer), the written Acc is looked up row by row */
        sh->d.terms[0].c = sh->s;
        sh->d.terms[1] = (ecs_term){sh->acc, ECS_WRITE};
        break;
    case CH_OPTIONAL:
        sh->d.terms[0] = (ecs_term){sh->acc, ECS_WRITE};
        sh->d.terms[1] = (ecs_term){sh->s, ECS_OPTIONAL};
        break;
    case CH_INDEX: /* the index on V leads (14,001 of 20,000): every thread makes views of it, up to date */
        sh->d.terms[0] = (ecs_term){sh->acc, ECS_WRITE};
        sh->d.terms[1].c = sh->v;
        sh->d.where.index = sh->vix;
        sh->d.where.lo = &sh->lo, sh->d.where.hi = &sh->hi;
        it = ecs_view(sh->w, &sh->d); /* (brought up to date here, before the threads) */
        break;
    default: /* the group's rows */
        sh->d.terms[0] = (ecs_term){sh->g1, ECS_WRITE};
        sh->d.terms[1].c = sh->g2;
        sh->d.terms[2] = (ecs_term){sh->gx, ECS_NOT};
        break;
    }
    { /* reset the written values */
        const ecs_storage *s = ecs_storage_of(sh->w, sh->written);
        Acc *a = (Acc *)ecs_storage_data(s);
        for (i = 0; i < ecs_storage_count(s); i++) a[i].visits = a[i].acc = 0;
    }
    if (!ecs_track_set(sh->w, sh->written, tracked ? ECS_TRACK_MODIFICATION : 0)) return false;
    since = ecs_tick_advance(sh->w);
    tb_init(&sh->bar, NTHREADS);
    fails = run_workers(chunks_thread, sh, wk, &done);
    tb_free(&sh->bar);
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ((ecs_entity)1 << 32) | i;
        const Acc *a = ECS_GET(sh->w, e, sh->written, Acc);
        bool m = ch_match(sh, i);
        expect += m;
        if (!a) continue;
        if (a->visits != (m ? sh->rounds : 0) || a->acc != (m ? sh->rounds * ch_add(sh, i) : 0)) {
            if (!bad++)
                printf("  case %u%s: entity %u visited %u times (acc %u), expected %u (acc %u)\n", (unsigned)kase,
                       tracked ? " tracked" : "", (unsigned)i, (unsigned)a->visits, (unsigned)a->acc,
                       m ? (unsigned)sh->rounds : 0u, m ? (unsigned)(sh->rounds * ch_add(sh, i)) : 0u);
        }
        if (tracked && ecs_track_modified(sh->w, e, sh->written, since) != m) {
            if (!bad++)
                printf("  case %u tracked: entity %u %smarked modified\n", (unsigned)kase, (unsigned)i, m ? "not " : "");
        }
    }
    if (tracked) { /* the modified filter sees exactly the visited ones */
        ecs_view_desc d;
        uint32_t n = 0;
        memset(&d, 0, sizeof d);
        d.terms[0] = (ecs_term){sh->written, ECS_MODIFIED};
        d.since = since;
        for (it = ecs_view(sh->w, &d); ecs_iter_next(&it);) n++;
        if (n != expect) printf("  case %u tracked: %u modified, expected %u\n", (unsigned)kase, (unsigned)n, (unsigned)expect), bad++;
    }
    if (done != (uint64_t)sh->rounds * expect)
        printf("  case %u%s: %llu visits, expected %llu\n", (unsigned)kase, tracked ? " tracked" : "",
               (unsigned long long)done, (unsigned long long)sh->rounds * expect), bad++;
    return fails == 0 && bad == 0 && expect > 0;
}

static void test_chunks_hand_out_every_entity_once_across_threads(void) {
    chunks *sh = (chunks *)calloc(1, sizeof *sh);
    uint32_t kase;
    CHECK(sh);
    CHECK(ch_build(sh));
    sh->rounds = rounds(60);
    for (kase = 0; kase < CH_CASES; kase++) {
        CHECK(ch_run(sh, kase, false));
        CHECK(ch_run(sh, kase, true));
    }
    CHECK_EQ(ecs_last_error(sh->w), ECS_OK);
    ecs_world_free(sh->w);
    free(sh);
}

/* ============================================================================== */
/* 5. a workload batch of four systems through a thread pool (parallel_for)         */
/* ============================================================================== */

typedef struct { int32_t x, y; } Pos;
typedef struct { int32_t x, y; } Vel;
typedef struct { int32_t hp, regen_seen; } Hp;
typedef struct { int32_t amount, pad; } Regen;
typedef struct { uint32_t frames, sum; } Age;
typedef struct { int64_t velsum; uint32_t regens, runs; } Stats;
typedef struct { uint64_t modified_seen, hp_sum; uint32_t runs, pad; } Score;

typedef struct game {
    ecs_world *w;
    ecs_component pos, vel, hp, regen, age, stats, score;
    pool *pool;
    uint32_t calls, jobs; /* parallel_for: how often, how many systems */
} game;

static void counting_for(void (*job)(void *arg, uint32_t i), void *arg, uint32_t n, void *user) {
    game *g = (game *)user;
    g->calls++; /* ecs_workload_run's thread */
    g->jobs += n;
    pool_for(job, arg, n, g->pool);
}

static int sys_move(const ecs_system_ctx *ctx) { /* writes Pos, reads Vel: ECS_EACH */
    const game *g = (const game *)ctx->user;
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0] = (ecs_term){g->pos, ECS_WRITE};
    d.terms[1].c = g->vel;
    it = ecs_system_view(ctx, &d);
    ECS_EACH(&it) {
        Pos *p = ECS_FIELD(&it, 0, Pos);
        const Vel *v = ECS_FIELD(&it, 1, Vel);
        p->x += v->x;
        p->y += v->y;
    }
    return 0;
}

static int sys_heal(const ecs_system_ctx *ctx) { /* writes Hp, reads Regen: blocks, Regen interleaved */
    const game *g = (const game *)ctx->user;
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0] = (ecs_term){g->hp, ECS_WRITE};
    d.terms[1].c = g->regen;
    for (it = ecs_system_view(ctx, &d); ecs_iter_next_block(&it);) {
        Hp *h = ECS_BLOCK(&it, 0, Hp);
        const Regen *r = ECS_BLOCK(&it, 1, Regen);
        uint32_t j;
        for (j = 0; j < it.count; j++) {
            h[j].hp += r[j].amount;
            h[j].regen_seen++;
        }
    }
    return 0;
}

static void age_fn(ecs_iter *it, void *ctx) {
    Age *a = ECS_FIELD(it, 0, Age);
    const Vel *v = ECS_FIELD(it, 1, Vel);
    (void)ctx;
    a->frames++;
    a->sum += (uint32_t)(v->x + v->y);
}
static int sys_age(const ecs_system_ctx *ctx) { /* writes Age, reads Vel: ecs_visit */
    const game *g = (const game *)ctx->user;
    ecs_view_desc d;
    memset(&d, 0, sizeof d);
    d.terms[0] = (ecs_term){g->age, ECS_WRITE};
    d.terms[1].c = g->vel;
    return ecs_visit(ctx->world, &d, age_fn, NULL) == NENT ? 0 : 1;
}

static void stats_fn(ecs_iter *it, void *ctx) {
    Stats *st = (Stats *)ctx;
    st->regens += ECS_FIELD(it, 1, Regen) != NULL;
}
static int sys_stats(const ecs_system_ctx *ctx) { /* writes the Stats unique, reads Vel and Regen */
    const game *g = (const game *)ctx->user;
    Stats *st = ECS_UNIQUE_GET_MUT(ctx->world, g->stats, Stats);
    ecs_component both[2];
    ecs_view_desc d;
    ecs_iter it;
    if (!st) return 1;
    both[0] = g->vel;
    both[1] = g->regen;
    for (it = ecs_view_of(ctx->world, 1, both); ecs_iter_next(&it);) {
        const Vel *v = ECS_FIELD(&it, 0, Vel);
        st->velsum += v->x + v->y;
    }
    memset(&d, 0, sizeof d);
    d.terms[0].c = g->vel;
    d.terms[1] = (ecs_term){g->regen, ECS_OPTIONAL};
    ecs_visit(ctx->world, &d, stats_fn, st);
    st->runs++;
    return 0;
}

static int sys_score(const ecs_system_ctx *ctx) { /* the next batch: reads Pos and Hp, writes Score */
    const game *g = (const game *)ctx->user;
    Score *sc = ECS_UNIQUE_GET_MUT(ctx->world, g->score, Score);
    ecs_view_desc d;
    ecs_iter it;
    if (!sc) return 1;
    memset(&d, 0, sizeof d);
    d.terms[0] = (ecs_term){g->pos, ECS_MODIFIED}; /* since this system last ran */
    it = ecs_system_view(ctx, &d);
    ECS_EACH(&it) { sc->modified_seen++; }
    memset(&d, 0, sizeof d);
    d.terms[0].c = g->hp;
    for (it = ecs_system_view(ctx, &d); ecs_iter_next_block(&it);) {
        const Hp *h = ECS_BLOCK(&it, 0, Hp);
        uint32_t j;
        for (j = 0; j < it.count; j++) sc->hp_sum += (uint64_t)h[j].hp;
    }
    sc->runs++;
    return 0;
}

static Pos pos0(uint32_t i) { Pos p; p.x = (int32_t)(i % 1000); p.y = -(int32_t)(i % 77); return p; }
static Vel vel0(uint32_t i) { Vel v; v.x = (int32_t)(i % 5) - 2; v.y = (int32_t)(i % 3) + 1; return v; }
static Regen regen0(uint32_t i) { Regen r; r.amount = (int32_t)(i % 4) + 1; r.pad = 0; return r; }

static bool game_build(game *g, bool parallel) {
    static const char *const batch[5] = {"move", "heal", "age", "stats", "score"};
    ecs_system_fn fns[5] = {sys_move, sys_heal, sys_age, sys_stats, sys_score};
    ecs_desc desc;
    ecs_system_desc sd;
    uint32_t i;
    memset(&desc, 0, sizeof desc);
    if (parallel) {
        desc.parallel_for = counting_for;
        desc.parallel_user = g;
    }
    if (!(g->w = ecs_world_new(&desc))) return false;
    g->pos = ECS_COMPONENT(g->w, Pos);
    g->vel = ECS_COMPONENT(g->w, Vel);
    g->hp = ECS_COMPONENT(g->w, Hp);
    g->regen = ECS_COMPONENT(g->w, Regen);
    g->age = ECS_COMPONENT(g->w, Age);
    g->stats = ECS_COMPONENT(g->w, Stats);
    g->score = ECS_COMPONENT(g->w, Score);
    if (!ecs_track_set(g->w, g->pos, ECS_TRACK_MODIFICATION) || !ecs_track_set(g->w, g->hp, ECS_TRACK_MODIFICATION))
        return false;
    if (!ECS_UNIQUE_ADD(g->w, g->stats, Stats, {0, 0, 0}) || !ECS_UNIQUE_ADD(g->w, g->score, Score, {0, 0, 0, 0}))
        return false;
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ecs_create(g->w);
        Hp h;
        Age a;
        h.hp = (int32_t)(i % 100);
        h.regen_seen = 0;
        a.frames = a.sum = 0;
        if (!ECS_ADD(g->w, e, g->pos, Pos, pos0(i)) || !ECS_ADD(g->w, e, g->vel, Vel, vel0(i)) ||
            !ECS_ADD(g->w, e, g->hp, Hp, h) || !ECS_ADD(g->w, e, g->age, Age, a))
            return false;
    }
    for (i = NENT; i-- > 0;) /* Regen on every other entity, last to first: interleaved with Hp */
        if (i % 2 == 0 && !ECS_ADD(g->w, ((ecs_entity)1 << 32) | i, g->regen, Regen, regen0(i))) return false;
    for (i = 0; i < 5; i++) {
        memset(&sd, 0, sizeof sd);
        sd.name = batch[i];
        sd.fn = fns[i];
        sd.user = g;
        switch (i) {
        case 0: sd.writes[0] = g->pos; sd.reads[0] = g->vel; break;
        case 1: sd.writes[0] = g->hp; sd.reads[0] = g->regen; break;
        case 2: sd.writes[0] = g->age; sd.reads[0] = g->vel; break;
        case 3: sd.writes[0] = g->stats; sd.reads[0] = g->vel; sd.reads[1] = g->regen; break;
        default: sd.writes[0] = g->score; sd.reads[0] = g->pos; sd.reads[1] = g->hp; break;
        }
        if (!ecs_system_new(g->w, &sd)) return false;
    }
    return ecs_workload_new(g->w, "frame", 5, batch);
}

static void test_workload_batch_runs_through_a_pthread_pool(void) {
    game par, ser;
    ecs_plan_step plan[5];
    uint32_t f, i, frames = rounds(150), bad = 0;
    int64_t velsum = 0;
    uint64_t hp_sum = 0;
    memset(&par, 0, sizeof par);
    memset(&ser, 0, sizeof ser);
    par.pool = pool_new(NTHREADS);
    CHECK(par.pool && pool_threads(par.pool) == NTHREADS);
    CHECK(game_build(&par, true) && game_build(&ser, false));
    CHECK_EQ(ecs_workload_plan(par.w, "frame", plan, 5), 5);
    for (i = 0; i < 4; i++) CHECK_EQ(plan[i].batch, plan[0].batch); /* one batch of four */
    CHECK_NE(plan[4].batch, plan[0].batch);
    for (f = 0; f < frames; f++) {
        CHECK_EQ(ecs_workload_run(par.w, "frame"), 0);
        CHECK_EQ(ecs_workload_run(ser.w, NULL), 0);
    }
    CHECK(par.calls == frames && par.jobs == 4 * frames); /* the batch went through parallel_for */
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ((ecs_entity)1 << 32) | i;
        const Pos *p = ECS_GET(par.w, e, par.pos, Pos), *sp = ECS_GET(ser.w, e, ser.pos, Pos);
        const Hp *h = ECS_GET(par.w, e, par.hp, Hp), *sh = ECS_GET(ser.w, e, ser.hp, Hp);
        const Age *a = ECS_GET(par.w, e, par.age, Age), *sa = ECS_GET(ser.w, e, ser.age, Age);
        Pos p0 = pos0(i);
        Vel v = vel0(i);
        int32_t regen = i % 2 == 0 ? regen0(i).amount : 0;
        if (!p || !h || !a || !sp || !sh || !sa || p->x != p0.x + (int32_t)frames * v.x ||
            p->y != p0.y + (int32_t)frames * v.y || h->hp != (int32_t)(i % 100) + (int32_t)frames * regen ||
            h->regen_seen != (regen ? (int32_t)frames : 0) || a->frames != frames ||
            a->sum != frames * (uint32_t)(v.x + v.y) || memcmp(p, sp, sizeof *p) || memcmp(h, sh, sizeof *h) ||
            memcmp(a, sa, sizeof *a)) {
            if (!bad++) printf("  entity %u differs from the closed form or the serial world\n", (unsigned)i);
        }
        velsum += v.x + v.y;
        hp_sum += (uint64_t)frames * (i % 100) + (uint64_t)frames * (frames + 1) / 2 * (uint64_t)regen;
    }
    CHECK_EQ(bad, 0);
    {
        const Stats *st = ECS_UNIQUE_GET(par.w, par.stats, Stats);
        const Score *sc = ECS_UNIQUE_GET(par.w, par.score, Score), *ssc = ECS_UNIQUE_GET(ser.w, ser.score, Score);
        CHECK(st && st->runs == frames && st->velsum == velsum * frames && st->regens == frames * (NENT / 2));
        CHECK(sc && sc->runs == frames && sc->modified_seen == (uint64_t)frames * NENT);
        CHECK(ssc && !memcmp(sc, ssc, sizeof *sc));
        CHECK_EQ(sc->hp_sum, hp_sum); /* each frame's sum of Hp, after that frame's healing */
    }
    CHECK_EQ(ecs_last_error(par.w), ECS_OK);
    ecs_world_free(par.w);
    ecs_world_free(ser.w);
    pool_free(par.pool);
}

/* A batch that writes an indexed component, then a batch of four systems
   that read it through views with an index term and ecs_index_find: the
   world brings its indexes up to date before a batch runs at once, and
   views made then leave the index alone (section 14). */
typedef struct Cell { int32_t cell, pad; } Cell;
typedef struct cells {
    ecs_world *w;
    ecs_component cell;
    ecs_index by_cell, in_order;
    pool *pool;
    uint32_t seen[4], found[4];
} cells;
static int sys_shift(const ecs_system_ctx *ctx) { /* every entity to the next of 50 cells */
    cells *c = (cells *)ctx->user;
    ecs_view_desc d;
    memset(&d, 0, sizeof d);
    d.terms[0] = (ecs_term){c->cell, ECS_WRITE};
    ECS_EACH_VIEW(it, ctx->world, &d) ECS_FIELD(&it, 0, Cell)->cell = (ECS_FIELD(&it, 0, Cell)->cell + 1) % 50;
    return 0;
}
static int sys_count(const ecs_system_ctx *ctx) { /* reader k: cell 7 (hashed) or cells 7..8 (ordered) */
    cells *c = (cells *)((void **)ctx->user)[0];
    uint32_t k = (uint32_t)(uintptr_t)((void **)ctx->user)[1], n = 0;
    int32_t lo = 7, hi = 8;
    ecs_view_desc d;
    memset(&d, 0, sizeof d);
    d.where.index = k % 2 ? c->in_order : c->by_cell;
    if (k % 2) d.where.lo = &lo, d.where.hi = &hi;
    else d.where.key = &lo;
    if (k >= 2) d.terms[0].c = c->cell; /* (with a term: the index leads, being shorter) */
    ECS_EACH_VIEW(it, ctx->world, &d) n += (uint32_t)(ECS_GET(ctx->world, ecs_iter_entity(&it), c->cell, Cell)->cell - lo) <= (uint32_t)(hi - lo);
    c->seen[k] += n;
    c->found[k] += ecs_index_find(ctx->world, c->by_cell, &hi, NULL, 0);
    return 0;
}
static void test_views_of_an_index_in_a_workload_batch(void) {
    cells c;
    void *user[4][2];
    const char *items[] = {"shift", "r0", "r1", "r2", "r3"};
    ecs_desc desc;
    ecs_index_desc x;
    ecs_system_desc sd;
    uint32_t k, frames = rounds(40);
    memset(&c, 0, sizeof c);
    memset(&desc, 0, sizeof desc);
    c.pool = pool_new(NTHREADS);
    desc.parallel_for = pool_for, desc.parallel_user = c.pool;
    CHECK(c.pool && (c.w = ecs_world_new(&desc)) != NULL);
    c.cell = ECS_COMPONENT(c.w, Cell);
    memset(&x, 0, sizeof x);
    x.c = c.cell, x.offset = offsetof(Cell, cell), x.size = 4, x.kind = ECS_KEY_INT;
    CHECK((c.by_cell = ecs_index_new(c.w, &x)) != 0);
    x.ordered = true;
    CHECK((c.in_order = ecs_index_new(c.w, &x)) != 0);
    for (k = 0; k < NENT; k++) ECS_ADD(c.w, ecs_create(c.w), c.cell, Cell, {(int32_t)(k % 50), 0});
    memset(&sd, 0, sizeof sd);
    sd.name = "shift", sd.fn = sys_shift, sd.user = &c, sd.writes[0] = c.cell;
    CHECK(ecs_system_new(c.w, &sd));
    for (k = 0; k < 4; k++) {
        user[k][0] = &c, user[k][1] = (void *)(uintptr_t)k;
        memset(&sd, 0, sizeof sd);
        sd.name = items[k + 1], sd.fn = sys_count, sd.user = user[k], sd.reads[0] = c.cell;
        CHECK(ecs_system_new(c.w, &sd));
    }
    CHECK(ecs_workload_new(c.w, "frame", 5, items));
    for (k = 0; k < frames; k++) CHECK_EQ(ecs_workload_run(c.w, "frame"), 0);
    for (k = 0; k < 4; k++) { /* NENT / 50 entities a cell, every frame */
        CHECK_EQ(c.seen[k], frames * (NENT / 50) * (k % 2 ? 2u : 1u));
        CHECK_EQ(c.found[k], frames * (NENT / 50));
    }
    CHECK_EQ(ecs_last_error(c.w), ECS_OK);
    ecs_world_free(c.w);
    pool_free(c.pool);
}

/* A cached query that is not up to date when a batch of systems that view
   it starts (here: its tag could not grow, out of memory) is brought up to
   date by the world before the batch, so the systems only read it. */
typedef struct qbatch {
    ecs_component a, b, q;
    uint32_t seen[4];
} qbatch;
static int sys_count_query(const ecs_system_ctx *ctx) {
    qbatch *qb = (qbatch *)((void **)ctx->user)[0];
    uint32_t k = (uint32_t)(uintptr_t)((void **)ctx->user)[1], n = 0;
    ECS_EACH_VIEW(it, ctx->world, &(ecs_view_desc){.terms = {{qb->q, 0}}}) n++;
    qb->seen[k] = n;
    return 0;
}
static void test_views_of_a_cached_query_in_a_workload_batch(void) {
    qbatch qb;
    budget bud = {-1};
    void *user[4][2];
    const char *items[] = {"r0", "r1", "r2", "r3"};
    ecs_desc desc;
    ecs_system_desc sd;
    ecs_world *w;
    ecs_entity *e = (ecs_entity *)malloc(NENT * sizeof *e);
    pool *p = pool_new(NTHREADS);
    uint32_t k, matching = 0;
    memset(&qb, 0, sizeof qb);
    memset(&desc, 0, sizeof desc);
    desc.parallel_for = pool_for, desc.parallel_user = p;
    desc.allocator.alloc = budget_alloc, desc.allocator.free = budget_free, desc.allocator.ctx = &bud;
    CHECK(e && p && (w = ecs_world_new(&desc)) != NULL);
    qb.a = ecs_register(w, "A", 4, 4), qb.b = ecs_register(w, "B", 0, 1);
    for (k = 0; k < NENT; k++) e[k] = ecs_create(w), ecs_add(w, e[k], qb.a, NULL);
    for (k = 0; k < NENT; k += 64) ecs_add(w, e[k], qb.b, NULL); /* (B's pages, for every entity) */
    CHECK(ecs_storage_reserve(ecs_storage_of_mut(w, qb.b), NENT));
    CHECK((qb.q = ecs_query_new(w, "AB", &(ecs_view_desc){.terms = {{qb.a, 0}, {qb.b, 0}}})) != 0);
    bud.left = 0; /* the tag cannot grow: the query breaks */
    for (k = 0; k < NENT; k += 2) ecs_add(w, e[k], qb.b, NULL);
    bud.left = -1;
    for (k = 0; k < NENT; k++) matching += ecs_has(w, e[k], qb.b);
    CHECK(ecs_storage_count(ecs_storage_of(w, qb.q)) < matching); /* (broken, as meant) */
    for (k = 0; k < 4; k++) {
        user[k][0] = &qb, user[k][1] = (void *)(uintptr_t)k;
        memset(&sd, 0, sizeof sd);
        sd.name = items[k], sd.fn = sys_count_query, sd.user = user[k], sd.reads[0] = qb.q;
        CHECK(ecs_system_new(w, &sd));
    }
    CHECK(ecs_workload_new(w, "readers", 4, items));
    ecs_clear_error(w);
    CHECK_EQ(ecs_workload_run(w, "readers"), 0);
    for (k = 0; k < 4; k++) CHECK_EQ(qb.seen[k], matching);
    CHECK_EQ(ecs_last_error(w), ECS_OK);
    ecs_world_free(w);
    pool_free(p);
    free(e);
}

/* ============================================================================== */
/* 6. other reads: uniques, tracking queries and lists, groups, the last error     */
/* ============================================================================== */

typedef struct misc {
    tbarrier bar;
    ecs_world *w;
    ecs_component u, m, g1, g2, gx;
    ecs_group g;
    ecs_tick s0, s1, s2;
    uint32_t nremoved, ndeleted, ncreated, ndestroyed, ngroup, nmod, rounds;
    uint64_t removed_sum, deleted_sum, group_sum;
    ecs_error err;
    char err_msg[256];
} misc;

/* entity i (version 1): M unless i % 7 == 0 (removed) or i % 11 == 0 (deleted);
   destroyed when i % 7 == 0 and i is odd; M modified when even */
static bool misc_has_m(uint32_t i) { return i % 7 != 0 && i % 11 != 0; }
static bool misc_alive(uint32_t i) { return !(i % 7 == 0 && i % 2 == 1); }
static bool misc_in_group(uint32_t i) { return i % 2 == 0 && i % 6 != 0; }

static void *misc_thread(void *arg) {
    worker *wk = (worker *)arg;
    misc *sh = (misc *)wk->shared;
    ecs_world *w = sh->w;
    uint32_t r, i, n;
    for (r = 0; r < sh->rounds; r++) {
        const ecs_change *ch;
        uint64_t sum = 0;
        uint32_t from = (r * 2003u + wk->id * 5001u) % NENT;
        tb_wait(&sh->bar);
        wk->at = r;
        WCHECK(wk, val_ok(ECS_UNIQUE_GET(w, sh->u, Val), 0, sh->u));
        WCHECK(wk, ecs_unique_get(w, sh->u) == ECS_UNIQUE_GET(w, sh->u, Val));
        WCHECK(wk, ecs_unique_has(w, sh->u) && !ecs_unique_has(w, sh->m));
        WCHECK(wk, ecs_track_get(w, sh->m) == ECS_TRACK_ALL && ecs_track_get(w, sh->g1) == 0);
        WCHECK(wk, ecs_last_error(w) == sh->err && !strcmp(ecs_last_error_msg(w), sh->err_msg));
        for (i = from; i < from + 2500u; i++) { /* a slice of the entities */
            uint32_t x = i % NENT;
            ecs_entity e = ((ecs_entity)1 << 32) | x;
            bool has = misc_has_m(x);
            wk->at = x;
            WCHECK(wk, ecs_alive(w, e) == misc_alive(x));
            WCHECK(wk, ecs_track_inserted(w, e, sh->m, sh->s0) == has && !ecs_track_inserted(w, e, sh->m, sh->s1));
            WCHECK(wk, ecs_track_modified(w, e, sh->m, sh->s1) == (has && x % 2 == 0));
            WCHECK(wk, !ecs_track_modified(w, e, sh->m, sh->s2));
        }
        ch = ecs_track_removed(w, sh->m, sh->s2, &n);
        WCHECK(wk, ch && n == sh->nremoved);
        for (i = 0, sum = 0; ch && i < n; i++) sum += ch[i].entity;
        WCHECK(wk, sum == sh->removed_sum);
        ch = ecs_track_deleted(w, sh->m, sh->s2, &n);
        WCHECK(wk, ch && n == sh->ndeleted);
        for (i = 0, sum = 0; ch && i < n; i++) {
            sum += ch[i].entity;
            WCHECK(wk, val_ok((const Val *)ecs_track_deleted_value(w, sh->m, &ch[i]), ch[i].entity, sh->m));
        }
        WCHECK(wk, sum == sh->deleted_sum);
        WCHECK(wk, ecs_track_created(w, 0, &n) && n == sh->ncreated);
        WCHECK(wk, ecs_track_destroyed(w, 0, &n) && n == sh->ndestroyed);
        /* the group: counts, arrays, and a view over it (one aligned block) */
        n = ecs_group_count(w, sh->g);
        WCHECK(wk, n == sh->ngroup);
        {
            const ecs_entity *ents = ecs_group_entities(w, sh->g);
            const Val *a = (const Val *)ecs_group_data(w, sh->g, sh->g1), *b = (const Val *)ecs_group_data(w, sh->g, sh->g2);
            ecs_view_desc d;
            ecs_iter it;
            uint32_t blocks = 0, seen = 0;
            WCHECK(wk, ents && a && b);
            for (i = 0, sum = 0; ents && a && b && i < n; i++) {
                sum += ents[i];
                WCHECK(wk, val_ok(&a[i], ents[i], sh->g1) && val_ok(&b[i], ents[i], sh->g2));
            }
            WCHECK(wk, sum == sh->group_sum);
            memset(&d, 0, sizeof d);
            d.terms[0].c = sh->g1;
            d.terms[1].c = sh->g2;
            d.terms[2] = (ecs_term){sh->gx, ECS_NOT};
            for (it = ecs_view(w, &d); ecs_iter_next_block(&it); blocks++) seen += it.count;
            WCHECK(wk, blocks == 1 && seen == sh->ngroup);
            memset(&d, 0, sizeof d);
            d.terms[0] = (ecs_term){sh->m, ECS_MODIFIED};
            d.since = sh->s1;
            seen = 0;
            it = ecs_view(w, &d);
            ECS_EACH(&it) { seen++; }
            WCHECK(wk, seen == sh->nmod);
        }
        {
            char buf[ECS_ENTITY_STR];
            WCHECK(wk, !strcmp(ecs_entity_str(((ecs_entity)3 << 32) | 12, buf), "12:3"));
        }
        wk->done++;
    }
    return NULL;
}

static void test_other_reads_uniques_tracking_groups_errors(void) {
    misc *sh = (misc *)calloc(1, sizeof *sh);
    worker wk[NTHREADS];
    ecs_desc desc;
    ecs_group_desc gd;
    uint32_t i, fails;
    uint64_t done;
    CHECK(sh);
    memset(&desc, 0, sizeof desc);
    desc.track_entities = true;
    sh->w = ecs_world_new(&desc);
    CHECK(sh->w);
    sh->u = reg_val(sh->w, "U");
    sh->m = reg_val(sh->w, "M");
    sh->g1 = reg_val(sh->w, "G1");
    sh->g2 = reg_val(sh->w, "G2");
    sh->gx = ECS_TAG(sh->w, "GX");
    CHECK(ECS_UNIQUE_ADD(sh->w, sh->u, Val, val_of(0, sh->u)));
    CHECK(ecs_track_set(sh->w, sh->m, ECS_TRACK_ALL));
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = sh->g1;
    gd.owned[1] = sh->g2;
    gd.excluded[0] = sh->gx;
    CHECK_NE((sh->g = ecs_group_new(sh->w, &gd)), 0);
    sh->s0 = ecs_tick_advance(sh->w);
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ecs_create(sh->w);
        CHECK_EQ(ECS_ENTITY_INDEX(e), i);
        CHECK(ECS_ADD(sh->w, e, sh->m, Val, val_of(e, sh->m)));
        if (i % 2 == 0) {
            CHECK(ECS_ADD(sh->w, e, sh->g1, Val, val_of(e, sh->g1)));
            CHECK(ECS_ADD(sh->w, e, sh->g2, Val, val_of(e, sh->g2)));
        }
        if (i % 6 == 0) CHECK(ecs_add(sh->w, e, sh->gx, NULL));
        if (misc_in_group(i)) {
            sh->ngroup++;
            sh->group_sum += e;
        }
    }
    sh->ncreated = NENT;
    sh->s1 = ecs_tick_advance(sh->w);
    for (i = 0; i < NENT; i += 2) CHECK(ecs_get_mut(sh->w, ((ecs_entity)1 << 32) | i, sh->m));
    sh->s2 = ecs_tick_advance(sh->w);
    for (i = 0; i < NENT; i++) {
        ecs_entity e = ((ecs_entity)1 << 32) | i;
        if (i % 7 == 0) {
            CHECK(ecs_remove(sh->w, e, sh->m, NULL));
            sh->nremoved++;
            sh->removed_sum += e;
        } else if (i % 11 == 0) {
            CHECK(ecs_delete(sh->w, e, sh->m));
            sh->ndeleted++;
            sh->deleted_sum += e;
        } else if (i % 2 == 0)
            sh->nmod++;
        if (!misc_alive(i)) { /* only M, already removed: no deletion recorded */
            CHECK(ecs_destroy(sh->w, e));
            sh->ndestroyed++;
        }
    }
    /* a recorded error, which every thread reads */
    EXPECT_ASSERT(ecs_add(sh->w, ((ecs_entity)1 << 32) | 7, sh->m, NULL) == NULL, "not alive");
    sh->err = ecs_last_error(sh->w);
    snprintf(sh->err_msg, sizeof sh->err_msg, "%s", ecs_last_error_msg(sh->w));
    CHECK(sh->err == ECS_ERR_DEAD_ENTITY && sh->err_msg[0]);
    sh->rounds = rounds(60);
    tb_init(&sh->bar, NTHREADS);
    fails = run_workers(misc_thread, sh, wk, &done);
    tb_free(&sh->bar);
    CHECK_EQ(fails, 0);
    CHECK_EQ(done, (uint64_t)NTHREADS * sh->rounds);
    ecs_world_free(sh->w);
    free(sh);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN_T(test_get_has_alive_on_live_stale_and_forged_ids);
    RUN_T(test_lookup_and_component_names_from_every_thread);
    RUN_T(test_read_only_views_on_every_thread);
    RUN_T(test_in_step_memo_under_contention);
    RUN_T(test_chunks_hand_out_every_entity_once_across_threads);
    RUN_T(test_workload_batch_runs_through_a_pthread_pool);
    RUN_T(test_views_of_an_index_in_a_workload_batch);
    RUN_T(test_views_of_a_cached_query_in_a_workload_batch);
    RUN_T(test_other_reads_uniques_tracking_groups_errors);
    return test_summary();
}
