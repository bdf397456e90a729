/* Operations on whole entities and on several components at once
   (sections 3, 4, 6, 11 and 14 of ecs.h's documentation):

     ecs_create_id            the entity e itself: slots skipped below it join
                              the free queue in order, a queued slot leaves
                              the queue; refused (INVALID, assert, nothing
                              changed): an alive slot, version 0, above
                              ECS_VERSION_MAX, older than the slot's next;
                              EXHAUSTED beyond desc.max_entities; recorded
                              in ecs_track_created
     ecs_clone                every component copied byte for byte (tags too),
                              on_insert per component, inserted marks, groups
                              exact; a dead entity asserts; all or nothing
     ecs_destroy_all          exactly the entities with c; hooks run; stops at
                              the first refusal
     ecs_entity_components    ids in id order, the full count beyond cap, 0
                              for a dead entity
     ecs_world_clear          every entity destroyed (hooks and tracking run,
                              entities made by hooks go too), everything else
                              kept; refused inside a hook
     ecs_world_free           with on_remove hooks, destroys the entities
                              first as ecs_destroy does: each hook once per
                              value still stored, in component-id order per
                              entity; what ecs_destroy refuses is refused;
                              hooks that free what values own leak nothing,
                              out of memory too (nothing is recorded), and
                              should a destroy still fail the values left
                              get their hooks all the same
     ecs_get_n, _mut_n        all or nothing (out untouched); _mut marks
     ecs_remove_n, _delete_n  a bit mask of what was taken, values to outs,
                              removals vs deletions recorded; bad lists
                              assert and change nothing; out of memory for a
                              record: nothing removed; a hook taking a later
                              component clears its bit
     ecs_track_removed_or_deleted   one list merged by tick, removals first within a
                              tick, the full count beyond cap
     ecs_system_run           one system as a batch of one: a new tick,
                              last_run/now, run_if, flush after; its error
                              code; refused inside a running workload and in
                              hooks; unknown name NOT_FOUND

   ECS_VERSION_MAX is small here so that a retired slot is reachable.
   Run one test alone with `test_entity_ops <test name>`. */
/* its own configuration, so its own build of the implementation (Makefile) */
#define ECS_VERSION_MAX 6u
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "test.h"
#include "../ecs.h"

typedef struct { int v; } A;
typedef struct { int v; } B;
typedef struct { int v; } C;
/* padding after c, so "byte for byte" includes bytes no field names */
typedef struct { char c; int i; double d; } Padded;
typedef struct { unsigned char bytes[100]; } Big;

/* expr must trigger exactly n ECS_ASSERTs, the last containing substr
   (EXPECT_ASSERT for calls whose hooks make several refused calls). */
#define EXPECT_ASSERTS(expr, n, substr)                                                     \
    do {                                                                                    \
        int before_ = test__asserts;                                                        \
        CHECK(expr);                                                                        \
        if (test__asserts != before_ + (n) || !strstr(test__assert_msg, (substr))) {        \
            printf("  %s:%d: expected %d ECS_ASSERTs, the last containing \"%s\", got %d: \"%s\"\n", \
                   __FILE__, __LINE__, (n), (substr), test__asserts - before_, test__assert_msg); \
            test__failed = 1;                                                               \
            return;                                                                         \
        }                                                                                   \
        test__expected += (n);                                                              \
    } while (0)

static ecs_entity id_of(uint32_t index, uint32_t version) { return (ecs_entity)version << 32 | index; }

static void set_hooks(ecs_world *w, ecs_component c, ecs_hook_fn ins, ecs_hook_fn rem, void *user) {
    ecs_hooks h = {0};
    h.on_insert = ins;
    h.on_remove = rem;
    h.user = user;
    ecs_hooks_set(w, c, &h);
}

/* ---- an allocator that can be told to fail -------------------------------- */

typedef struct {
    int fail;            /* every alloc fails while set */
    long budget;         /* > 0: allocs left before every one fails; 0: no limit */
    unsigned long calls; /* alloc calls, failed ones included */
    size_t live;
} falloc;
#define HEADER 16 /* keeps ECS_MAX_ALIGN */
static void *f_alloc(size_t size, void *ctx) {
    falloc *f = (falloc *)ctx;
    unsigned char *p;
    f->calls++;
    if (f->budget > 0 && --f->budget == 0) f->fail = 1;
    if (f->fail || !(p = (unsigned char *)malloc(size + HEADER))) return NULL;
    memcpy(p, &size, sizeof size);
    f->live += size;
    return p + HEADER;
}
static void f_free(void *ptr, size_t size, void *ctx) {
    falloc *f = (falloc *)ctx;
    unsigned char *p = (unsigned char *)ptr - HEADER;
    size_t had;
    memcpy(&had, p, sizeof had);
    f->live -= had;
    (void)size;
    free(p);
}
static ecs_world *world_with(falloc *f, bool track_entities) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    memset(f, 0, sizeof *f);
    d.allocator.alloc = f_alloc;
    d.allocator.free = f_free;
    d.allocator.ctx = f;
    d.track_entities = track_entities;
    return ecs_world_new(&d);
}

/* ==== ecs_create_id ========================================================= */

static void test_create_id_on_a_fresh_world_queues_the_slots_below_it(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_world_stats st;
    uint32_t k;
    ecs_entity e = id_of(5, 3);
    CHECK_EQ(ecs_create_id(w, e), e);
    CHECK(ecs_alive(w, e) && ecs_count(w) == 1);
    CHECK(ecs_world_stats_get(w, &st) && st.slots == 6 && st.free_slots == 5 && st.alive == 1);
    for (k = 0; k < 5; k++) CHECK(!ecs_alive(w, id_of(k, 1))); /* free, not alive */
    /* the skipped slots are handed out first, in index order, at version 1 */
    for (k = 0; k < 5; k++) CHECK_EQ(ecs_create(w), id_of(k, 1));
    CHECK_EQ(ecs_create(w), id_of(6, 1)); /* queue empty: a fresh slot after e's */
    CHECK(ecs_alive(w, e) && ecs_count(w) == 7);
    ecs_world_free(w);
}

static void test_create_id_revives_a_dead_slot_at_its_next_version_or_newer(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity a = ecs_create(w), b = ecs_create(w), e;
    CHECK(a == id_of(0, 1) && b == id_of(1, 1));
    CHECK(ecs_destroy(w, a) && ecs_destroy(w, b)); /* next versions 2; queue 0, 1 */
    e = id_of(0, 4);                               /* newer than the next one (2) */
    CHECK(ecs_create_id(w, e) == e && ecs_alive(w, e));
    CHECK(!ecs_alive(w, a) && !ecs_alive(w, id_of(0, 2)));
    CHECK_EQ(ecs_create_id(w, id_of(1, 2)), id_of(1, 2)); /* exactly the next one */
    CHECK_EQ(ecs_create(w), id_of(2, 1));                 /* 0 and 1 left the queue */
    CHECK(ecs_destroy(w, e));
    CHECK_EQ(ecs_create(w), id_of(0, 5)); /* versions go on from the one given */
    ecs_world_free(w);
}

static void test_create_id_refuses_ids_it_cannot_create_and_changes_nothing(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_world_stats before, after;
    ecs_entity a = ecs_create(w), b = ecs_create(w);
    CHECK(ecs_destroy(w, b)); /* slot 1: next version 2, queued */
    CHECK(ecs_world_stats_get(w, &before));
    EXPECT_ASSERT(ecs_create_id(w, a) == ECS_NULL, "ecs_create_id(entity 0:1"); /* alive */
    CHECK(ecs_last_error(w) == ECS_ERR_INVALID && strstr(ecs_last_error_msg(w), "alive"));
    EXPECT_ASSERT(ecs_create_id(w, id_of(7, 0)) == ECS_NULL, "ecs_create_id"); /* version 0 */
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_create_id(w, ECS_NULL) == ECS_NULL, "ecs_create_id");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_create_id(w, id_of(7, ECS_VERSION_MAX + 1u)) == ECS_NULL, "ecs_create_id");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_create_id(w, id_of(1, 0x80000000u)) == ECS_NULL, "ecs_create_id");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_create_id(w, b) == ECS_NULL, "ecs_create_id(entity 1:1"); /* older than 2 */
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    CHECK(ecs_world_stats_get(w, &after));
    CHECK(after.alive == before.alive && after.slots == before.slots && after.free_slots == before.free_slots);
    CHECK(!ecs_alive(w, b) && !ecs_alive(w, id_of(7, 1)));
    CHECK_EQ(ecs_create(w), id_of(1, 2)); /* the queue is as it was */
    CHECK_EQ(ecs_create(w), id_of(2, 1));
    ecs_world_free(w);
}

static void test_create_id_takes_a_queued_slot_out_of_the_queue(void) {
    ecs_world *w = ecs_world_new(NULL);
    uint32_t k;
    for (k = 0; k < 4; k++) ecs_create(w);
    for (k = 1; k < 4; k++) CHECK(ecs_destroy(w, id_of(k, 1))); /* queue: 1, 2, 3 */
    CHECK_EQ(ecs_create_id(w, id_of(2, 2)), id_of(2, 2));
    CHECK_EQ(ecs_create(w), id_of(1, 2));
    CHECK_EQ(ecs_create(w), id_of(3, 2)); /* 2 is not handed out a second time */
    CHECK_EQ(ecs_create(w), id_of(4, 1));
    CHECK(ecs_alive(w, id_of(2, 2)) && ecs_count(w) == 5);
    ecs_world_free(w);
}

/* A model of the free queue (FIFO) and the slots' versions, against random
   creates, destroys and create_ids of queued slots; the ring wraps and
   grows meanwhile. */
#define QN 300
static void test_create_id_keeps_the_free_queue_fifo_through_wraps(void) {
    static uint32_t queue[4 * QN], version[QN]; /* version: the live one, or the next one */
    static bool alive[QN];
    uint32_t qhead = 0, qlen = 0, nslots = 0, step, k;
    ecs_world *w = ecs_world_new(NULL);
    test_seed(15);
    for (step = 0; step < 20000; step++) {
        unsigned op = test_rand(10);
        if (op < 4 && nslots + (qlen == 0) <= QN) { /* create: the queue's head, else a fresh slot */
            ecs_entity e = ecs_create(w);
            uint32_t i = qlen ? queue[qhead] : nslots;
            if (qlen) qhead++, qlen--;
            else version[nslots++] = 1;
            CHECK_EQ(e, id_of(i, version[i]));
            alive[i] = true;
        } else if (op < 8 && nslots) { /* destroy a random live slot */
            uint32_t i = test_rand(nslots);
            if (!alive[i]) continue;
            CHECK(ecs_destroy(w, id_of(i, version[i])));
            alive[i] = false;
            if (version[i] == ECS_VERSION_MAX) continue; /* retired: not queued */
            version[i]++;
            if (qhead + qlen == 4 * QN) { /* compact the model's array */
                memmove(queue, queue + qhead, qlen * sizeof *queue);
                qhead = 0;
            }
            queue[qhead + qlen++] = i;
        } else if (qlen) { /* create_id of a queued slot, at its next version or newer */
            uint32_t at = test_rand(qlen), i = queue[qhead + at];
            uint32_t v = version[i] + test_rand(ECS_VERSION_MAX - version[i] + 1);
            CHECK_EQ(ecs_create_id(w, id_of(i, v)), id_of(i, v));
            memmove(queue + qhead + at, queue + qhead + at + 1, (qlen - at - 1) * sizeof *queue);
            qlen--;
            version[i] = v;
            alive[i] = true;
        }
    }
    /* drain: the queue hands out exactly the model's order, then fresh slots */
    while (qlen) {
        uint32_t i = queue[qhead++];
        qlen--;
        CHECK_EQ(ecs_create(w), id_of(i, version[i]));
        alive[i] = true;
    }
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), nslots);
    for (k = 0; k < nslots; k++) CHECK_EQ(ecs_alive(w, id_of(k, version[k])), alive[k]);
    ecs_world_free(w);
}

static void test_create_id_beyond_max_entities_is_exhausted(void) {
    ecs_desc d;
    ecs_world *w;
    memset(&d, 0, sizeof d);
    d.max_entities = 4;
    w = ecs_world_new(&d);
    CHECK_EQ(ecs_create_id(w, id_of(4, 1)), ECS_NULL); /* no assert: a runtime condition */
    CHECK(ecs_last_error(w) == ECS_ERR_EXHAUSTED && ecs_count(w) == 0);
    CHECK_EQ(ecs_create_id(w, id_of(3, 1)), id_of(3, 1)); /* the last slot allowed */
    CHECK(ecs_create(w) == id_of(0, 1) && ecs_create(w) == id_of(1, 1) && ecs_create(w) == id_of(2, 1));
    ecs_clear_error(w);
    CHECK(ecs_create(w) == ECS_NULL && ecs_last_error(w) == ECS_ERR_EXHAUSTED);
    ecs_world_free(w);
}

static void test_create_id_is_recorded_as_created(void) {
    ecs_desc d;
    ecs_world *w;
    const ecs_change *ch;
    uint32_t n = 99;
    memset(&d, 0, sizeof d);
    d.track_entities = true;
    w = ecs_world_new(&d);
    CHECK_EQ(ecs_create_id(w, id_of(2, 5)), id_of(2, 5));
    ch = ecs_track_created(w, 0, &n);
    CHECK(n == 1 && ch[0].entity == id_of(2, 5)); /* the skipped slots were not created */
    CHECK_EQ(ecs_create(w), id_of(0, 1));
    ch = ecs_track_created(w, 0, &n);
    CHECK(n == 2 && ch[0].entity == id_of(2, 5) && ch[1].entity == id_of(0, 1));
    ecs_world_free(w);
}

/* A slot retired at ECS_VERSION_MAX was used at every version it can have:
   the doc's "older than the slot's next one" has no next one to compare
   with, and section 4 says a stale id never reaches a later entity. The
   retired id must stay dead. */
static void test_create_id_does_not_revive_a_retired_id(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity e = ecs_create(w);
    while (ECS_ENTITY_VERSION(e) < ECS_VERSION_MAX) {
        CHECK(ecs_destroy(w, e));
        e = ecs_create(w);
        CHECK_EQ(ECS_ENTITY_INDEX(e), 0);
    }
    CHECK(ecs_destroy(w, e)); /* slot 0 retired */
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 1);
    {
        int before = test__asserts;
        ecs_entity got = ecs_create_id(w, e);
        bool revived = ecs_alive(w, e);
        ecs_error err = ecs_last_error(w);
        ecs_world_free(w);
        if (got) printf("  ecs_create_id(0:%u) returned %s, the retired id is alive again: %d\n",
                        (unsigned)ECS_VERSION_MAX, got == e ? "it" : "another id", (int)revived);
        CHECK(got == ECS_NULL && !revived && err == ECS_ERR_INVALID);
        CHECK(test__asserts == before + 1 && strstr(test__assert_msg, "ecs_create_id"));
        test__expected++;
    }
}

/* ==== ecs_clone ============================================================= */

static int inserts[8];
static ecs_entity inserted_into;
static void count_insert(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)hw, (void)value, (void)user;
    inserts[hc]++;
    inserted_into = e;
}

static void test_clone_copies_every_component_byte_for_byte(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), tag = ECS_TAG(w, "Tag"), pad = ECS_COMPONENT(w, Padded),
                  big = ECS_COMPONENT(w, Big), unused = ECS_COMPONENT(w, C);
    ecs_component want[4], got[8];
    Padded pv;
    Big bv;
    ecs_entity src = ecs_create(w), other = ecs_create(w), copy;
    uint32_t k;
    memset(&pv, 0xA5, sizeof pv); /* the padding bytes too */
    pv.c = 'x';
    pv.i = -7;
    pv.d = 2.5;
    for (k = 0; k < sizeof bv.bytes; k++) bv.bytes[k] = (unsigned char)(k * 7 + 1);
    ECS_ADD(w, other, a, A, {99}); /* src's rows are not row 0 everywhere */
    ECS_ADD(w, src, a, A, {42});
    ecs_add(w, src, tag, NULL);
    ecs_add(w, src, pad, &pv);
    ecs_add(w, src, big, &bv);
    copy = ecs_clone(w, src);
    CHECK(copy != ECS_NULL && copy != src && ecs_alive(w, copy) && ecs_count(w) == 3);
    want[0] = a, want[1] = tag, want[2] = pad, want[3] = big;
    CHECK(ecs_entity_components(w, copy, got, 8) == 4 && !memcmp(got, want, sizeof want));
    CHECK(!ecs_has(w, copy, unused));
    CHECK_EQ(ECS_GET(w, copy, a, A)->v, 42);
    CHECK(!memcmp(ecs_get(w, copy, pad), &pv, sizeof pv));
    CHECK(!memcmp(ecs_get(w, copy, big), &bv, sizeof bv));
    CHECK_PTR_NE(ecs_get(w, copy, pad), ecs_get(w, src, pad)); /* copies, not shared */
    CHECK(ECS_GET(w, src, a, A)->v == 42 && !memcmp(ecs_get(w, src, big), &bv, sizeof bv));
    /* a clone of an entity without components is an empty entity */
    copy = ecs_clone(w, ecs_create(w));
    CHECK(copy && ecs_alive(w, copy) && ecs_entity_components(w, copy, NULL, 0) == 0);
    ecs_world_free(w);
}

static void test_clone_runs_on_insert_and_marks_inserted(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), tag = ECS_TAG(w, "Tag");
    ecs_entity src = ecs_create(w), copy;
    ecs_tick t;
    ecs_track_set(w, a, ECS_TRACK_ALL);
    ecs_track_set(w, tag, ECS_TRACK_ALL);
    ECS_ADD(w, src, a, A, {1});
    ECS_ADD(w, src, b, B, {2});
    ecs_add(w, src, tag, NULL);
    memset(inserts, 0, sizeof inserts);
    set_hooks(w, a, count_insert, NULL, NULL);
    set_hooks(w, b, count_insert, NULL, NULL);
    set_hooks(w, tag, count_insert, NULL, NULL);
    t = ecs_tick_advance(w);
    copy = ecs_clone(w, src);
    CHECK_NE(copy, ECS_NULL);
    CHECK(inserts[a] == 1 && inserts[b] == 1 && inserts[tag] == 1 && inserted_into == copy);
    CHECK(ecs_track_inserted(w, copy, a, t) && ecs_track_inserted(w, copy, tag, t));
    CHECK(!ecs_track_modified(w, copy, a, t));
    CHECK(!ecs_track_inserted(w, src, a, t) && !ecs_track_modified(w, src, a, t)); /* src only read */
    ecs_world_free(w);
}

static void test_clone_of_a_dead_entity_asserts(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A);
    ecs_entity e = ecs_create(w);
    ECS_ADD(w, e, a, A, {1});
    ecs_destroy(w, e);
    EXPECT_ASSERT(ecs_clone(w, e) == ECS_NULL, "ecs_clone(entity 0:1");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_DEAD_ENTITY);
    EXPECT_ASSERT(ecs_clone(w, ECS_NULL) == ECS_NULL, "ecs_clone");
    CHECK(ecs_count(w) == 0 && ecs_storage_count(ecs_storage_of(w, a)) == 0);
    ecs_world_free(w);
}

static void test_clone_keeps_a_group_exact(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), x = ECS_COMPONENT(w, C);
    ecs_group_desc gd;
    ecs_group g;
    ecs_entity in = ecs_create(w), out = ecs_create(w), lone = ecs_create(w), c1, c2, c3;
    const ecs_entity *ents;
    const A *av;
    const B *bv;
    uint32_t k, n;
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = a, gd.owned[1] = b, gd.excluded[0] = x;
    g = ecs_group_new(w, &gd);
    CHECK_NE(g, 0);
    ECS_ADD(w, lone, a, A, {5});
    ECS_ADD(w, in, a, A, {1});
    ECS_ADD(w, in, b, B, {10});
    ECS_ADD(w, out, a, A, {2});
    ECS_ADD(w, out, b, B, {20});
    ECS_ADD(w, out, x, C, {0});
    CHECK_EQ(ecs_group_count(w, g), 1);
    c1 = ecs_clone(w, in);  /* joins */
    c2 = ecs_clone(w, out); /* has the excluded component: stays out */
    c3 = ecs_clone(w, lone);
    CHECK(c1 && c2 && c3);
    n = ecs_group_count(w, g);
    CHECK_EQ(n, 2);
    ents = ecs_group_entities(w, g);
    av = (const A *)ecs_group_data(w, g, a);
    bv = (const B *)ecs_group_data(w, g, b);
    CHECK((ents[0] == in && ents[1] == c1) || (ents[0] == c1 && ents[1] == in));
    for (k = 0; k < n; k++) /* the rows are aligned: each row's values are its entity's */
        CHECK(av[k].v == 1 && bv[k].v == 10 && ECS_GET(w, ents[k], a, A) == &av[k]);
    CHECK(ECS_GET(w, c2, b, B)->v == 20 && ecs_has(w, c2, x));
    ecs_world_free(w);
}

static void test_clone_out_of_memory_creates_nothing(void) {
    falloc f;
    ecs_world *w = world_with(&f, false);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B);
    ecs_entity src = ecs_create(w), e;
    uint32_t k;
    ECS_ADD(w, src, a, A, {1});
    for (k = 0; k < 8; k++) ECS_ADD(w, ecs_create(w), b, B, {0}); /* b's rows are full */
    ECS_ADD(w, src, b, B, {2}); /* 9 rows: capacity 16 */
    for (k = 0; k < 7; k++) ECS_ADD(w, ecs_create(w), b, B, {0}); /* full again */
    CHECK(ecs_destroy(w, ecs_create(w))); /* a queued slot for the clone (and a free queue) */
    f.fail = 1; /* a is copied (room), b cannot grow */
    CHECK(ecs_clone(w, src) == ECS_NULL && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY);
    f.fail = 0;
    CHECK(ecs_count(w) == 16 && ecs_storage_count(ecs_storage_of(w, a)) == 1);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, b)), 16);
    e = ecs_clone(w, src); /* the allocator healed */
    CHECK(e && ECS_GET(w, e, a, A)->v == 1 && ECS_GET(w, e, b, B)->v == 2);
    ecs_world_free(w);
    CHECK_EQ(f.live, 0);
}

/* ==== ecs_destroy_all ======================================================= */

static int removes[8];
static void count_remove(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)hw, (void)e, (void)value, (void)user;
    removes[hc]++;
}

static void test_destroy_all_destroys_exactly_the_entities_with_c(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), tag = ECS_TAG(w, "Tag");
    ecs_entity e[10];
    uint32_t k;
    for (k = 0; k < 10; k++) {
        e[k] = ecs_create(w);
        if (k % 2) ecs_add(w, e[k], tag, NULL);
        ECS_ADD(w, e[k], a, A, {(int)k});
        if (k % 3 == 0) ECS_ADD(w, e[k], b, B, {(int)k});
    }
    memset(removes, 0, sizeof removes);
    set_hooks(w, a, NULL, count_remove, NULL);
    set_hooks(w, b, NULL, count_remove, NULL);
    set_hooks(w, tag, NULL, count_remove, NULL);
    CHECK_EQ(ecs_destroy_all(w, tag), 5);
    for (k = 0; k < 10; k++) CHECK_EQ(ecs_alive(w, e[k]), (k % 2 == 0));
    CHECK(ecs_count(w) == 5 && ecs_storage_count(ecs_storage_of(w, tag)) == 0);
    /* destroyed whole: their other components went too, through the hooks */
    CHECK(removes[tag] == 5 && removes[a] == 5 && removes[b] == 2); /* b: entities 3 and 9 */
    CHECK(ecs_storage_count(ecs_storage_of(w, a)) == 5 && ecs_storage_count(ecs_storage_of(w, b)) == 2);
    CHECK_EQ(ecs_destroy_all(w, tag), 0); /* nobody has it any more */
    EXPECT_ASSERT(ecs_destroy_all(w, 77) == 0, "ecs_destroy_all");
    CHECK_EQ(ecs_count(w), 5);
    ecs_world_free(w);
}

static uint32_t hook_result;
static ecs_error hook_error;
static ecs_component hook_comp;
static void destroy_all_in_hook(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)e, (void)hc, (void)value, (void)user;
    hook_result = ecs_destroy_all(hw, hook_comp);
    hook_error = ecs_last_error(hw);
}

static void test_destroy_all_stops_at_the_first_refusal(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), tag = ECS_TAG(w, "Tag");
    ecs_entity e0 = ecs_create(w), e1 = ecs_create(w), e2 = ecs_create(w);
    ECS_ADD(w, e0, a, A, {0}); /* row 0: reached last */
    ECS_ADD(w, e1, a, A, {1});
    ECS_ADD(w, e2, a, A, {2});
    hook_comp = a;
    set_hooks(w, tag, destroy_all_in_hook, NULL, NULL);
    /* e0's own hook may not destroy e0: e2 and e1 go, then the refusal */
    EXPECT_ASSERT(ecs_add(w, e0, tag, NULL) != NULL, "ecs_destroy_all(entity 0:1"); /* (it names itself) */
    CHECK(hook_result == 2 && hook_error == ECS_ERR_LOCKED);
    CHECK(ecs_alive(w, e0) && !ecs_alive(w, e1) && !ecs_alive(w, e2) && ECS_GET(w, e0, a, A)->v == 0);
    ecs_world_free(w);
}

/* ==== ecs_entity_components ================================================= */

static void test_entity_components_lists_ids_in_id_order(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), tag = ECS_TAG(w, "Tag"), b = ECS_COMPONENT(w, B),
                  c = ECS_COMPONENT(w, C);
    ecs_component out[4] = {0, 0, 0, 0};
    ecs_entity e = ecs_create(w), empty = ecs_create(w), other = ecs_create(w);
    ECS_ADD(w, other, a, A, {0});
    ECS_ADD(w, e, c, C, {3}); /* added in reverse order */
    ecs_add(w, e, tag, NULL);
    ECS_ADD(w, e, a, A, {1});
    CHECK_EQ(ecs_entity_components(w, e, out, 4), 3);
    CHECK(out[0] == a && out[1] == tag && out[2] == c && out[3] == 0);
    out[0] = out[1] = out[2] = 0;
    out[1] = 77; /* beyond cap: untouched */
    CHECK(ecs_entity_components(w, e, out, 1) == 3 && out[0] == a && out[1] == 77);
    CHECK_EQ(ecs_entity_components(w, e, NULL, 0), 3);
    CHECK_EQ(ecs_entity_components(w, empty, out, 4), 0);
    CHECK(ecs_has(w, other, a) && !ecs_has(w, other, b));
    ecs_destroy(w, e);
    out[0] = 77;
    CHECK(ecs_entity_components(w, e, out, 4) == 0 && out[0] == 77); /* dead: 0, nothing written */
    CHECK_EQ(ecs_entity_components(w, ECS_NULL, out, 4), 0);
    EXPECT_ASSERT(ecs_entity_components(w, other, NULL, 4) == 0, "ecs_entity_components");
    ecs_world_free(w);
}

/* ==== ecs_world_clear ======================================================= */

static int clear_spawn_left;
static ecs_component spawn_with;
/* on_remove of a: the first few make a new entity (with spawn_with) meanwhile */
static void spawn_on_remove(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)e, (void)value, (void)user;
    removes[hc]++;
    if (clear_spawn_left > 0) {
        clear_spawn_left--;
        ECS_ADD(hw, ecs_create(hw), spawn_with, C, {-1});
    }
}
static int sys_runs;
static int count_run(const ecs_system_ctx *ctx) {
    (void)ctx;
    sys_runs++;
    return 0;
}

static void test_world_clear_destroys_every_entity_and_keeps_the_rest(void) {
    ecs_desc d;
    ecs_world *w;
    ecs_component a, b, c, tag;
    ecs_group_desc gd;
    ecs_system_desc sd;
    ecs_group g;
    ecs_entity e[10], n;
    uint32_t k, nd = 0, ndestroyed = 0;
    memset(&d, 0, sizeof d);
    d.track_entities = true;
    w = ecs_world_new(&d);
    a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), c = ECS_COMPONENT(w, C), tag = ECS_TAG(w, "Tag");
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = a, gd.owned[1] = b;
    g = ecs_group_new(w, &gd);
    memset(&sd, 0, sizeof sd);
    sd.name = "count";
    sd.fn = count_run;
    CHECK(g && ecs_system_new(w, &sd));
    ECS_UNIQUE_ADD(w, a, A, {123});
    ecs_track_set(w, b, ECS_TRACK_DELETION);
    ecs_track_set(w, c, ECS_TRACK_DELETION);
    sys_runs = 0;
    for (k = 0; k < 10; k++) {
        e[k] = ecs_create(w);
        ECS_ADD(w, e[k], a, A, {(int)k});
        if (k % 2) ECS_ADD(w, e[k], b, B, {(int)k});
        if (k % 5 == 0) ecs_add(w, e[k], tag, NULL);
    }
    CHECK_EQ(ecs_group_count(w, g), 5);
    memset(removes, 0, sizeof removes);
    clear_spawn_left = 3; /* the hooks make 3 entities while the world is cleared: those go too */
    spawn_with = c; /* (not b: a's hooks may not change a's group) */
    set_hooks(w, a, NULL, spawn_on_remove, NULL);
    set_hooks(w, tag, NULL, count_remove, NULL);
    CHECK_EQ(ecs_world_clear(w), 13);
    CHECK(ecs_count(w) == 0 && clear_spawn_left == 0);
    for (k = 0; k < 10; k++) CHECK(!ecs_alive(w, e[k]));
    CHECK(removes[a] == 10 && removes[tag] == 2);
    CHECK(ecs_storage_count(ecs_storage_of(w, a)) == 0 && ecs_storage_count(ecs_storage_of(w, b)) == 0);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, c)), 0);
    CHECK(ecs_track_deleted(w, b, 0, &nd) && nd == 5); /* tracking ran */
    CHECK(ecs_track_deleted(w, c, 0, &nd) && nd == 3); /* the spawned entities' */
    CHECK(ecs_track_destroyed(w, 0, &ndestroyed) && ndestroyed == 13);
    /* the rest is kept */
    CHECK(ecs_lookup(w, "A") == a && ecs_lookup(w, "Tag") == tag);
    CHECK_EQ(ecs_track_get(w, b), ECS_TRACK_DELETION);
    CHECK_EQ(ECS_UNIQUE_GET(w, a, A)->v, 123);
    CHECK(ecs_system_run(w, "count") == 0 && sys_runs == 1);
    CHECK_EQ(ecs_group_count(w, g), 0);
    /* and the world goes on */
    n = ecs_create(w);
    CHECK(n && ecs_alive(w, n) && ecs_count(w) == 1);
    ECS_ADD(w, n, a, A, {7});
    ECS_ADD(w, n, b, B, {8});
    CHECK(ecs_group_count(w, g) == 1 && ecs_group_entities(w, g)[0] == n);
    clear_spawn_left = 0;
    CHECK(ecs_world_clear(w) == 1 && removes[a] == 11 && ecs_count(w) == 0);
    CHECK_EQ(ecs_world_clear(w), 0); /* nothing left */
    ecs_world_free(w);
}

static void clear_in_hook(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)e, (void)hc, (void)value, (void)user;
    hook_result = ecs_world_clear(hw);
    hook_error = ecs_last_error(hw);
}

static void test_world_clear_is_refused_inside_a_hook(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B);
    ecs_entity e = ecs_create(w), f = ecs_create(w);
    ECS_ADD(w, f, b, B, {1});
    set_hooks(w, a, clear_in_hook, NULL, NULL);
    hook_result = 99;
    EXPECT_ASSERT(ECS_ADD(w, e, a, A, {1}) != NULL, "ecs_world_clear");
    CHECK(hook_result == 0 && hook_error == ECS_ERR_LOCKED);
    CHECK(ecs_count(w) == 2 && ecs_has(w, e, a) && ecs_has(w, f, b));
    ecs_world_free(w);
}

/* ==== ecs_world_free ======================================================== */

static int freed_values[8], freed_sum, hook_saw_next, hook_saw_prev;
static ecs_component first_comp, second_comp;
/* counts each on_remove call; for an entity with both, a's hook (id order:
   first) still sees b, and b's no longer sees a, as in ecs_destroy */
static void count_free(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)user;
    freed_values[hc]++;
    if (ecs_component_size(hw, hc)) freed_sum += *(const int *)value;
    if (!ecs_alive(hw, e)) freed_values[0]++; /* must not happen */
    if (hc == first_comp && ecs_has(hw, e, second_comp)) hook_saw_next++;
    if (hc == second_comp && ecs_has(hw, e, first_comp)) hook_saw_prev++;
}

static void test_world_free_runs_on_remove_once_per_value(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), tag = ECS_TAG(w, "Tag");
    ecs_entity e[6];
    uint32_t k;
    for (k = 0; k < 6; k++) {
        e[k] = ecs_create(w);
        ECS_ADD(w, e[k], a, A, {(int)k + 1});
        if (k < 2) ECS_ADD(w, e[k], b, B, {100});
        if (k == 4) ecs_add(w, e[k], tag, NULL);
    }
    memset(freed_values, 0, sizeof freed_values);
    first_comp = a, second_comp = b;
    set_hooks(w, a, NULL, count_free, NULL);
    set_hooks(w, b, NULL, count_free, NULL);
    set_hooks(w, tag, NULL, count_free, NULL);
    ecs_destroy(w, e[5]); /* its value is gone already: no second call */
    ecs_delete(w, e[1], b);
    CHECK(freed_values[a] == 1 && freed_values[b] == 1);
    memset(freed_values, 0, sizeof freed_values);
    freed_sum = hook_saw_next = hook_saw_prev = 0;
    ecs_world_free(w);
    CHECK(freed_values[a] == 5 && freed_values[b] == 1 && freed_values[tag] == 1);
    CHECK_EQ(freed_sum, 1 + 2 + 3 + 4 + 5 + 100);
    CHECK_EQ(freed_values[0], 0);                     /* each ran on a live entity */
    CHECK(hook_saw_next == 1 && hook_saw_prev == 0); /* e[0]: a's hook, then b's */
}

/* A hook that keeps another storage in order: a parent's on_remove
   detaches its child (another entity, another storage), as for
   ecs_destroy; and what ecs_destroy refuses is refused here too. */
typedef struct { ecs_entity child; } Parent;
typedef struct { ecs_entity parent; } Child;
static ecs_component parent_comp, child_comp;
static int detached, refusals, calls;
static void detach_child(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    const Parent *p = (const Parent *)value;
    (void)user;
    calls++;
    if (ecs_has(hw, p->child, child_comp) && ecs_remove(hw, p->child, child_comp, NULL)) detached++;
    /* refused: adding to the entity being destroyed, removing from the
       hook's own storage, destroying its own entity, freeing the world */
    if (!ecs_add(hw, e, child_comp, NULL) && ecs_last_error(hw) == ECS_ERR_LOCKED) refusals++;
    if (!ecs_delete(hw, e, hc) && ecs_last_error(hw) == ECS_ERR_LOCKED) refusals++;
    if (!ecs_destroy(hw, e) && ecs_last_error(hw) == ECS_ERR_LOCKED) refusals++;
    ecs_world_free(hw);
    if (ecs_last_error(hw) == ECS_ERR_LOCKED && ecs_alive(hw, e)) refusals++;
}

static void test_world_free_runs_hooks_as_ecs_destroy_does(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity parent, child;
    Parent p;
    Child c;
    parent_comp = ECS_COMPONENT(w, Parent);
    child_comp = ECS_COMPONENT(w, Child);
    parent = ecs_create(w);
    child = ecs_create(w);
    p.child = child;
    c.parent = parent;
    ecs_add(w, parent, parent_comp, &p);
    ecs_add(w, child, child_comp, &c);
    set_hooks(w, parent_comp, NULL, detach_child, NULL);
    calls = detached = refusals = 0;
    /* four refused calls in the one hook call, each an assert */
    EXPECT_ASSERTS((ecs_world_free(w), 1), 4, "ecs_world_free");
    CHECK(calls == 1 && detached == 1 && refusals == 4);
}

/* A component that owns heap memory, released by its on_remove hook. The
   buffers are listed here too, so a test can tell (and clean up) what the
   world failed to release. */
typedef struct { char *buf; } Owner;
#define MAXBUF 256
static char *buffers[MAXBUF];
static int live_buffers, spawn_owners;
static ecs_component owner_comp, spawn_comp; /* spawn_comp: another storage, same hook */
static Owner new_owner(void) {
    Owner o;
    int k;
    o.buf = (char *)malloc(32);
    for (k = 0; k < MAXBUF && o.buf; k++)
        if (!buffers[k]) {
            buffers[k] = o.buf;
            live_buffers++;
            break;
        }
    return o;
}
static int second_calls; /* on_remove for a value already released */
static int entity_whole;  /* on_remove found its entity with other components (not being destroyed) */
static void release_owner(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    Owner *o = (Owner *)value;
    int k;
    (void)hc, (void)user;
    if (!o->buf) second_calls++;
    if (ecs_entity_components(hw, e, NULL, 0) > 1) entity_whole++;
    for (k = 0; k < MAXBUF; k++)
        if (buffers[k] == o->buf && o->buf) buffers[k] = NULL, live_buffers--;
    free(o->buf);
    o->buf = NULL;
    if (spawn_owners > 0 && hc == owner_comp) { /* entities created by hooks meanwhile go too */
        Owner n = new_owner();
        spawn_owners--;
        ecs_add(hw, ecs_create(hw), spawn_comp, &n);
    }
}
static int release_leftovers(void) { /* what a failed test left behind */
    int k, n = 0;
    for (k = 0; k < MAXBUF; k++)
        if (buffers[k]) free(buffers[k]), buffers[k] = NULL, n++;
    live_buffers = 0;
    return n;
}

static void test_world_free_lets_hooks_release_what_values_own(void) {
    ecs_world *w = ecs_world_new(NULL);
    uint32_t k;
    owner_comp = ECS_COMPONENT(w, Owner);
    spawn_comp = ecs_register(w, "Spawned", sizeof(Owner), ECS_ALIGNOF(Owner));
    live_buffers = spawn_owners = 0;
    set_hooks(w, owner_comp, NULL, release_owner, NULL);
    set_hooks(w, spawn_comp, NULL, release_owner, NULL);
    for (k = 0; k < 100; k++) {
        Owner o = new_owner();
        ecs_entity e = ecs_create(w);
        ecs_add(w, e, owner_comp, &o);
        if (k % 3 == 0) ecs_destroy(w, e);
    }
    CHECK_EQ(live_buffers, 66);
    spawn_owners = 5; /* the hooks make 5 more owners while the world goes */
    ecs_world_free(w); /* valgrind/ASan see no leak */
    CHECK_EQ(live_buffers, 0);
    CHECK_EQ(spawn_owners, 0);
    CHECK_EQ(release_leftovers(), 0);
}

/* Out of memory for a deletion record (the storage tracks deletion) makes
   ecs_destroy fail; ecs_world_free must still release every value its
   hooks own. */
static void test_world_free_releases_owned_values_even_out_of_memory(void) {
    falloc f;
    ecs_world *w = world_with(&f, false);
    uint32_t k;
    int leaked;
    owner_comp = ECS_COMPONENT(w, Owner);
    live_buffers = spawn_owners = 0;
    set_hooks(w, owner_comp, NULL, release_owner, NULL);
    ecs_track_set(w, owner_comp, ECS_TRACK_DELETION);
    for (k = 0; k < 16; k++) {
        Owner o = new_owner();
        ecs_add(w, ecs_create(w), owner_comp, &o);
    }
    for (k = 0; k < 8; k++) ecs_destroy(w, id_of(k, 1)); /* the deletion list: 8 of 8 */
    CHECK_EQ(live_buffers, 8);
    f.fail = 1; /* no room for a 9th deletion record */
    ecs_world_free(w);
    leaked = release_leftovers();
    CHECK_EQ(f.live, 0);
    if (leaked) printf("  %d of 8 owned values never reached on_remove\n", leaked);
    CHECK_EQ(leaked, 0);
}

/* ==== ecs_get_n, ecs_get_mut_n ============================================= */

static void test_get_n_is_all_or_nothing(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), c = ECS_COMPONENT(w, C),
                  tag = ECS_TAG(w, "Tag");
    ecs_component abt[3], abc[3];
    const void *out[3], *sentinel = &out;
    ecs_entity e = ecs_create(w);
    abt[0] = a, abt[1] = b, abt[2] = tag;
    abc[0] = a, abc[1] = b, abc[2] = c;
    ECS_ADD(w, e, a, A, {1});
    ECS_ADD(w, e, b, B, {2});
    ecs_add(w, e, tag, NULL);
    CHECK(ecs_get_n(w, e, 3, abt, out));
    CHECK(out[0] == ecs_get(w, e, a) && out[1] == ecs_get(w, e, b) && out[2] != NULL);
    CHECK(((const A *)out[0])->v == 1 && ((const B *)out[1])->v == 2);
    out[0] = out[1] = out[2] = sentinel;
    CHECK(!ecs_get_n(w, e, 3, abc, out)); /* lacks c: nothing written */
    CHECK(out[0] == sentinel && out[1] == sentinel && out[2] == sentinel);
    ecs_destroy(w, e);
    CHECK(!ecs_get_n(w, e, 2, abt, out) && out[0] == sentinel); /* dead: no assert */
    CHECK(ecs_get_n(w, ecs_create(w), 0, abt, out)); /* nothing asked: all present */
    abc[2] = 99;
    EXPECT_ASSERT(!ecs_get_n(w, e, 3, abc, out), "ecs_get_n");
    CHECK_PTR_EQ(out[0], sentinel);
    ecs_world_free(w);
}

static void test_get_mut_n_marks_modified_only_when_it_succeeds(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), c = ECS_COMPONENT(w, C);
    ecs_component ab[2], ac[2];
    void *out[2], *sentinel = &out;
    ecs_entity e = ecs_create(w);
    ecs_tick t;
    ab[0] = a, ab[1] = b;
    ac[0] = a, ac[1] = c;
    ecs_track_set(w, a, ECS_TRACK_ALL);
    ecs_track_set(w, b, ECS_TRACK_ALL);
    ECS_ADD(w, e, a, A, {1});
    ECS_ADD(w, e, b, B, {2});
    t = ecs_tick_advance(w);
    out[0] = out[1] = sentinel;
    CHECK(!ecs_get_mut_n(w, e, 2, ac, out)); /* lacks c: a is not marked either */
    CHECK(out[0] == sentinel && out[1] == sentinel && !ecs_track_modified(w, e, a, t));
    CHECK(ecs_get_n(w, e, 2, ab, (const void **)out) && !ecs_track_modified(w, e, a, t)); /* reads never mark */
    CHECK(ecs_get_mut_n(w, e, 2, ab, out));
    ((A *)out[0])->v = 10;
    ((B *)out[1])->v = 20;
    CHECK(ecs_track_modified(w, e, a, t) && ecs_track_modified(w, e, b, t));
    CHECK(ECS_GET(w, e, a, A)->v == 10 && ECS_GET(w, e, b, B)->v == 20);
    ecs_world_free(w);
}

/* ==== ecs_remove_n, ecs_delete_n ========================================== */

static void test_remove_n_returns_a_mask_and_copies_values_out(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), c = ECS_COMPONENT(w, C),
                  tag = ECS_TAG(w, "Tag");
    ecs_component list[4];
    A av = {0};
    B bv = {77};
    C cv = {0};
    void *outs[4];
    ecs_entity e = ecs_create(w);
    list[0] = a, list[1] = b, list[2] = c, list[3] = tag;
    outs[0] = &av, outs[1] = &bv, outs[2] = &cv, outs[3] = NULL;
    ECS_ADD(w, e, a, A, {1});
    ECS_ADD(w, e, c, C, {3});
    ecs_add(w, e, tag, NULL);
    CHECK_EQ(ecs_remove_n(w, e, 4, list, outs), (1u | 4u | 8u)); /* b was not there */
    CHECK(av.v == 1 && cv.v == 3 && bv.v == 77);
    CHECK(ecs_entity_components(w, e, NULL, 0) == 0 && ecs_alive(w, e));
    CHECK_EQ(ecs_remove_n(w, e, 4, list, outs), 0); /* nothing left: no error, no assert */
    ECS_ADD(w, e, a, A, {5});
    ECS_ADD(w, e, b, B, {6});
    CHECK_EQ(ecs_remove_n(w, e, 2, list, NULL), 3u); /* outs may be NULL */
    ECS_ADD(w, e, b, B, {6});
    CHECK(ecs_delete_n(w, e, 3, list) == 2u && !ecs_has(w, e, b));
    ecs_destroy(w, e);
    CHECK(ecs_remove_n(w, e, 4, list, outs) == 0 && ecs_delete_n(w, e, 4, list) == 0); /* dead: no assert */
    ecs_world_free(w);
}

static void test_remove_n_records_removals_and_delete_n_deletions(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B);
    ecs_component ab[2];
    const ecs_change *ch;
    uint32_t n;
    ecs_entity e = ecs_create(w), f = ecs_create(w);
    ab[0] = a, ab[1] = b;
    ecs_track_set(w, a, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
    ecs_track_set(w, b, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
    ECS_ADD(w, e, a, A, {1});
    ECS_ADD(w, e, b, B, {2});
    ECS_ADD(w, f, a, A, {3});
    ECS_ADD(w, f, b, B, {4});
    CHECK_EQ(ecs_remove_n(w, e, 2, ab, NULL), 3u);
    CHECK_EQ(ecs_delete_n(w, f, 2, ab), 3u);
    ch = ecs_track_removed(w, a, 0, &n);
    CHECK(n == 1 && ch[0].entity == e);
    ch = ecs_track_removed(w, b, 0, &n);
    CHECK(n == 1 && ch[0].entity == e);
    ch = ecs_track_deleted(w, a, 0, &n);
    CHECK(n == 1 && ch[0].entity == f && ((const A *)ecs_track_deleted_value(w, a, &ch[0]))->v == 3);
    ch = ecs_track_deleted(w, b, 0, &n);
    CHECK(n == 1 && ch[0].entity == f && ((const B *)ecs_track_deleted_value(w, b, &ch[0]))->v == 4);
    ecs_world_free(w);
}

static void test_remove_n_with_a_bad_list_asserts_and_changes_nothing(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component comps[ECS_MAX_TERMS + 1], list[3];
    ecs_entity e = ecs_create(w);
    uint32_t k;
    char name[8];
    for (k = 0; k <= ECS_MAX_TERMS; k++) {
        snprintf(name, sizeof name, "C%u", (unsigned)k);
        comps[k] = ecs_register(w, name, sizeof(int), sizeof(int));
        ecs_add(w, e, comps[k], NULL);
    }
    list[0] = comps[0], list[1] = comps[1], list[2] = comps[0]; /* comps[0] twice */
    EXPECT_ASSERT(ecs_remove_n(w, e, 3, list, NULL) == 0, "ecs_remove_n");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_delete_n(w, e, 3, list) == 0, "ecs_delete_n");
    list[2] = 999; /* unknown */
    EXPECT_ASSERT(ecs_remove_n(w, e, 3, list, NULL) == 0, "ecs_remove_n");
    EXPECT_ASSERT(ecs_delete_n(w, e, 3, list) == 0, "ecs_delete_n");
    list[2] = 0; /* "no component" is unknown too */
    EXPECT_ASSERT(ecs_delete_n(w, e, 3, list) == 0, "ecs_delete_n");
    EXPECT_ASSERT(ecs_remove_n(w, e, ECS_MAX_TERMS + 1, comps, NULL) == 0, "ecs_remove_n");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_delete_n(w, e, ECS_MAX_TERMS + 1, comps) == 0, "ecs_delete_n");
    CHECK_EQ(ecs_entity_components(w, e, NULL, 0), ECS_MAX_TERMS + 1); /* nothing was taken */
    CHECK_EQ(ecs_delete_n(w, e, ECS_MAX_TERMS, comps), 0xffffu); /* exactly the most: fine */
    CHECK(ecs_entity_components(w, e, NULL, 0) == 1 && ecs_has(w, e, comps[ECS_MAX_TERMS]));
    ecs_world_free(w);
}

static void test_remove_n_out_of_memory_for_a_record_removes_nothing(void) {
    falloc f;
    ecs_world *w = world_with(&f, false);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B);
    ecs_component ab[2], ba[2];
    ecs_entity e = ecs_create(w), x;
    A av = {0};
    B bv = {0};
    void *outs[2];
    uint32_t k, n;
    ab[0] = a, ab[1] = b;
    ba[0] = b, ba[1] = a;
    outs[0] = &av, outs[1] = &bv;
    ecs_track_set(w, a, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
    ecs_track_set(w, b, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
    x = ecs_create(w);
    ECS_ADD(w, x, a, A, {0});
    ecs_remove(w, x, a, NULL); /* a's removed list: room for 7 more */
    for (k = 0; k < 8; k++) { /* b's removed and deleted lists: full */
        ECS_ADD(w, x, b, B, {0});
        ecs_remove(w, x, b, NULL);
        ECS_ADD(w, x, b, B, {0});
        ecs_delete(w, x, b);
    }
    ECS_ADD(w, e, a, A, {1});
    ECS_ADD(w, e, b, B, {2});
    f.fail = 1;
    CHECK(ecs_remove_n(w, e, 2, ab, outs) == 0 && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY);
    CHECK(ecs_remove_n(w, e, 2, ba, outs) == 0 && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY);
    CHECK(ecs_delete_n(w, e, 2, ab) == 0 && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY);
    /* nothing was removed, recorded or copied out */
    CHECK(ECS_GET(w, e, a, A)->v == 1 && ECS_GET(w, e, b, B)->v == 2 && av.v == 0 && bv.v == 0);
    CHECK(ecs_track_removed(w, a, 0, &n) && n == 1);
    CHECK(ecs_track_removed(w, b, 0, &n) && n == 8);
    ecs_track_deleted(w, a, 0, &n);
    CHECK_EQ(n, 0);
    f.fail = 0;
    CHECK(ecs_remove_n(w, e, 2, ab, outs) == 3u && av.v == 1 && bv.v == 2);
    CHECK(ecs_track_removed(w, a, 0, &n) && n == 2);
    CHECK(ecs_track_removed(w, b, 0, &n) && n == 9);
    ecs_world_free(w);
}

static ecs_component take_later;
static void remove_later_on_remove(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)hc, (void)value, (void)user;
    ecs_remove(hw, e, take_later, NULL); /* another storage, on its own entity: allowed */
}

static void test_remove_n_mask_leaves_out_what_a_hook_took(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), c = ECS_COMPONENT(w, C);
    ecs_component abc[3];
    B bv = {55};
    C cv = {0};
    void *outs[3];
    const ecs_change *ch;
    uint32_t n;
    ecs_entity e = ecs_create(w);
    abc[0] = a, abc[1] = b, abc[2] = c;
    outs[0] = NULL, outs[1] = &bv, outs[2] = &cv;
    ecs_track_set(w, b, ECS_TRACK_REMOVAL);
    ECS_ADD(w, e, a, A, {1});
    ECS_ADD(w, e, b, B, {2});
    ECS_ADD(w, e, c, C, {3});
    take_later = b;
    set_hooks(w, a, NULL, remove_later_on_remove, NULL);
    CHECK_EQ(ecs_remove_n(w, e, 3, abc, outs), (1u | 4u)); /* b went in a's hook, not by this call */
    CHECK(!ecs_has(w, e, a) && !ecs_has(w, e, b) && !ecs_has(w, e, c));
    CHECK(bv.v == 55 && cv.v == 3);
    ch = ecs_track_removed(w, b, 0, &n);
    CHECK(n == 1 && ch[0].entity == e); /* recorded once, by the hook's removal */
    ecs_world_free(w);
}

static uint32_t nested_mask;
static ecs_entity nested_target;
static ecs_component nested_list[2];
static void remove_n_in_hook(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)e, (void)hc, (void)value, (void)user;
    nested_mask = ecs_remove_n(hw, nested_target, 2, nested_list, NULL);
    hook_error = ecs_last_error(hw);
}

static void test_remove_n_refused_for_one_storage_takes_none(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B);
    ecs_entity e = ecs_create(w), other = ecs_create(w);
    ECS_ADD(w, other, a, A, {1});
    ECS_ADD(w, other, b, B, {2});
    nested_target = other;
    nested_list[0] = a, nested_list[1] = b;
    set_hooks(w, b, remove_n_in_hook, NULL, NULL);
    nested_mask = 99;
    /* inside b's hook, b is locked: a (listed first, allowed) must stay too */
    EXPECT_ASSERT(ECS_ADD(w, e, b, B, {3}) != NULL, "ecs_remove_n");
    CHECK(nested_mask == 0 && hook_error == ECS_ERR_LOCKED);
    CHECK(ECS_GET(w, other, a, A)->v == 1 && ECS_GET(w, other, b, B)->v == 2);
    ecs_world_free(w);
}

/* ==== ecs_track_removed_or_deleted =============================================== */

static void test_removed_or_deleted_merges_by_tick_removals_first(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B);
    ecs_entity e[6];
    ecs_change out[8];
    ecs_tick t1, t2;
    uint32_t k;
    ecs_track_set(w, a, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
    for (k = 0; k < 6; k++) {
        e[k] = ecs_create(w);
        ECS_ADD(w, e[k], a, A, {(int)k});
    }
    ecs_delete(w, e[0], a); /* tick T1: deleted first, then removed */
    ecs_remove(w, e[1], a, NULL);
    ecs_destroy(w, e[2]);   /* a deletion */
    t1 = ecs_tick_advance(w);
    ecs_remove(w, e[3], a, NULL); /* tick T2 */
    ecs_delete(w, e[4], a);
    ecs_remove(w, e[5], a, NULL);
    t2 = ecs_tick_advance(w);
    memset(out, 0, sizeof out);
    CHECK_EQ(ecs_track_removed_or_deleted(w, a, 0, out, 8), 6);
    CHECK(out[0].entity == e[1] && out[0].tick == t1); /* removals first within a tick */
    CHECK(out[1].entity == e[0] && out[1].tick == t1);
    CHECK(out[2].entity == e[2] && out[2].tick == t1);
    CHECK(out[3].entity == e[3] && out[3].tick == t2);
    CHECK(out[4].entity == e[5] && out[4].tick == t2);
    CHECK(out[5].entity == e[4] && out[5].tick == t2);
    CHECK_EQ(out[6].entity, 0);
    /* since: only later entries */
    CHECK(ecs_track_removed_or_deleted(w, a, t1, out, 8) == 3 && out[0].entity == e[3] && out[2].entity == e[4]);
    CHECK_EQ(ecs_track_removed_or_deleted(w, a, t2, out, 8), 0);
    /* a smaller cap: the full count, only cap entries written */
    memset(out, 0, sizeof out);
    CHECK_EQ(ecs_track_removed_or_deleted(w, a, 0, out, 2), 6);
    CHECK(out[0].entity == e[1] && out[1].entity == e[0] && out[2].entity == 0);
    CHECK_EQ(ecs_track_removed_or_deleted(w, a, 0, NULL, 0), 6);
    /* one kind tracked: that list alone */
    ecs_track_set(w, b, ECS_TRACK_DELETION);
    ECS_ADD(w, e[5], b, B, {0});
    ecs_delete(w, e[5], b);
    CHECK(ecs_track_removed_or_deleted(w, b, 0, out, 8) == 1 && out[0].entity == e[5]);
    ecs_world_free(w);
}

static void test_removed_or_deleted_needs_removal_or_deletion_tracked(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ECS_COMPONENT(w, A);
    ecs_change out[2];
    ecs_track_set(w, a, ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION);
    EXPECT_ASSERT(ecs_track_removed_or_deleted(w, a, 0, out, 2) == 0, "ecs_track_removed_or_deleted");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_track_removed_or_deleted(w, 42, 0, out, 2) == 0, "ecs_track_removed_or_deleted");
    ecs_track_set(w, a, ECS_TRACK_REMOVAL);
    EXPECT_ASSERT(ecs_track_removed_or_deleted(w, a, 0, NULL, 2) == 0, "ecs_track_removed_or_deleted");
    ecs_world_free(w);
}

/* ==== ecs_system_run ======================================================= */

typedef struct {
    int runs;
    ecs_tick last_run[4], now[4];
    uint32_t seen[4];        /* entities its view saw as inserted since its last run */
    int run_if_answer;
    int result;
    ecs_entity defer_to;     /* records an add of c to it */
    uint32_t pending_inside; /* ecs_defer_pending inside the system */
    bool has_inside;
    int inner;               /* what a nested ecs_system_run returned */
    ecs_error inner_error;
} probe;
static ecs_component probe_comp, probe_deferred;

static int probe_system(const ecs_system_ctx *ctx) {
    probe *p = (probe *)ctx->user;
    ecs_view_desc d;
    ecs_iter it;
    uint32_t n = 0;
    if (p->runs < 4) {
        p->last_run[p->runs] = ctx->last_run;
        p->now[p->runs] = ctx->now;
    }
    memset(&d, 0, sizeof d);
    d.terms[0].c = probe_comp;
    d.terms[0].flags = ECS_INSERTED;
    for (it = ecs_system_view(ctx, &d); ecs_iter_next(&it);) n++;
    if (p->runs < 4) p->seen[p->runs] = n;
    if (p->defer_to) {
        ECS_DEFER_ADD(ctx->world, p->defer_to, probe_deferred, B, {9});
        p->pending_inside = ecs_defer_pending(ctx->world);
        p->has_inside = ecs_has(ctx->world, p->defer_to, probe_deferred);
    }
    p->runs++;
    return p->result;
}
static bool probe_run_if(const ecs_system_ctx *ctx) { return ((probe *)ctx->user)->run_if_answer != 0; }

static ecs_world *system_world(probe *p, bool with_run_if) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_system_desc d;
    probe_comp = ECS_COMPONENT(w, A);
    probe_deferred = ECS_COMPONENT(w, B);
    ecs_track_set(w, probe_comp, ECS_TRACK_ALL);
    memset(p, 0, sizeof *p);
    p->run_if_answer = 1;
    memset(&d, 0, sizeof d);
    d.name = "probe";
    d.fn = probe_system;
    d.user = p;
    d.run_if = with_run_if ? probe_run_if : NULL;
    d.structural = true;
    ecs_system_new(w, &d);
    return w;
}

static void test_system_run_runs_one_system_as_a_batch_of_one(void) {
    probe p;
    ecs_world *w = system_world(&p, false);
    ecs_entity e = ecs_create(w);
    ecs_tick before;
    ECS_ADD(w, e, probe_comp, A, {1});
    before = ecs_tick_advance(w);
    CHECK(ecs_system_run(w, "probe") == 0 && p.runs == 1);
    CHECK(p.last_run[0] == 1 && p.now[0] > before); /* never ran: 1; a new tick */
    CHECK_EQ(p.seen[0], 1);                          /* what changed before it first ran */
    CHECK(!ecs_track_inserted(w, e, probe_comp, p.now[0]));
    e = ecs_create(w);
    ECS_ADD(w, e, probe_comp, A, {2});
    CHECK(ecs_track_inserted(w, e, probe_comp, p.now[0])); /* after a run: newer than its now */
    CHECK(ecs_system_run(w, "probe") == 0 && p.runs == 2);
    CHECK(p.last_run[1] == p.now[0] && p.now[1] > p.now[0]);
    CHECK_EQ(p.seen[1], 1); /* only the entity added since its last run */
    CHECK(ecs_system_run(w, "probe") == 0 && p.seen[2] == 0 && p.last_run[2] == p.now[1]);
    ecs_world_free(w);
}

static void test_system_run_matches_a_workload_of_that_system(void) {
    probe p;
    ecs_world *w = system_world(&p, false);
    const char *items[1];
    ecs_tick t;
    items[0] = "probe";
    CHECK(ecs_workload_new(w, "just_probe", 1, items));
    t = ecs_tick_advance(w);
    CHECK_EQ(ecs_workload_run(w, "just_probe"), 0);
    CHECK_EQ(p.now[0], t + 2); /* the batch's tick: one advance after t's */
    t = ecs_tick_advance(w);
    CHECK_EQ(ecs_system_run(w, "probe"), 0);
    CHECK(p.now[1] == t + 2 && p.last_run[1] == p.now[0]); /* the same clock and window */
    ecs_world_free(w);
}

static void test_system_run_respects_run_if(void) {
    probe p;
    ecs_world *w = system_world(&p, true);
    p.run_if_answer = 0;
    CHECK(ecs_system_run(w, "probe") == 0 && p.runs == 0); /* skipped: not an error */
    CHECK_EQ(ecs_last_error(w), ECS_OK);
    p.run_if_answer = 1;
    CHECK(ecs_system_run(w, "probe") == 0 && p.runs == 1);
    CHECK_EQ(p.last_run[0], 1); /* the skipped run left last_run alone */
    p.run_if_answer = 0;
    CHECK(ecs_system_run(w, "probe") == 0 && p.runs == 1);
    p.run_if_answer = 1;
    CHECK(ecs_system_run(w, "probe") == 0 && p.runs == 2 && p.last_run[1] == p.now[0]);
    ecs_world_free(w);
}

static void test_system_run_flushes_commands_after_the_system(void) {
    probe p;
    ecs_world *w = system_world(&p, false);
    ecs_entity e = ecs_create(w);
    p.defer_to = e;
    CHECK_EQ(ecs_system_run(w, "probe"), 0);
    CHECK(p.pending_inside == 1 && !p.has_inside); /* queued while it ran */
    CHECK(ecs_defer_pending(w) == 0 && ECS_GET(w, e, probe_deferred, B)->v == 9);
    ecs_world_free(w);
}

static void test_system_run_returns_the_system_error(void) {
    probe p;
    ecs_world *w = system_world(&p, false);
    ecs_entity e = ecs_create(w);
    p.result = 3;
    p.defer_to = e;
    CHECK_EQ(ecs_system_run(w, "probe"), 3); /* no assert: a runtime condition */
    CHECK(ecs_last_error(w) == ECS_ERR_SYSTEM && strstr(ecs_last_error_msg(w), "probe"));
    CHECK(ecs_workload_failed_system(w) && !strcmp(ecs_workload_failed_system(w), "probe"));
    CHECK(ecs_has(w, e, probe_deferred)); /* its commands are still flushed */
    p.result = 0;
    CHECK(ecs_system_run(w, "probe") == 0 && ecs_workload_failed_system(w) == NULL);
    ecs_world_free(w);
}

static int nested_run(const ecs_system_ctx *ctx) {
    probe *p = (probe *)ctx->user;
    p->inner = ecs_system_run(ctx->world, "probe");
    p->inner_error = ecs_last_error(ctx->world);
    return 0;
}

static void test_system_run_is_refused_while_a_workload_runs(void) {
    probe p;
    ecs_world *w = system_world(&p, false);
    ecs_system_desc d;
    const char *items[1];
    memset(&d, 0, sizeof d);
    d.name = "nested";
    d.fn = nested_run;
    d.user = &p;
    CHECK(ecs_system_new(w, &d));
    items[0] = "nested";
    CHECK(ecs_workload_new(w, "outer", 1, items));
    EXPECT_ASSERT(ecs_workload_run(w, "outer") == 0, "ecs_system_run");
    CHECK(p.inner == -1 && p.inner_error == ECS_ERR_INVALID && p.runs == 0);
    /* from a system that ecs_system_run itself runs: refused the same way */
    p.inner = 0;
    EXPECT_ASSERT(ecs_system_run(w, "nested") == 0, "ecs_system_run");
    CHECK(p.inner == -1 && p.inner_error == ECS_ERR_INVALID && p.runs == 0);
    CHECK(ecs_system_run(w, "probe") == 0 && p.runs == 1); /* afterwards: fine */
    ecs_world_free(w);
}

static int hook_run_result;
static void system_run_in_hook(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)e, (void)hc, (void)value, (void)user;
    hook_run_result = ecs_system_run(hw, "probe");
    hook_error = ecs_last_error(hw);
}

static void test_system_run_is_refused_in_hooks_and_for_unknown_names(void) {
    probe p;
    ecs_world *w = system_world(&p, false);
    set_hooks(w, probe_deferred, system_run_in_hook, NULL, NULL);
    EXPECT_ASSERT(ECS_ADD(w, ecs_create(w), probe_deferred, B, {0}) != NULL, "ecs_system_run");
    CHECK(hook_run_result == -1 && hook_error == ECS_ERR_LOCKED && p.runs == 0);
    EXPECT_ASSERT(ecs_system_run(w, "nobody") == -1, "ecs_system_run");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_NOT_FOUND);
    EXPECT_ASSERT(ecs_system_run(w, NULL) == -1, "ecs_system_run");
    CHECK_EQ(p.runs, 0);
    ecs_world_free(w);
}

/* Should the clear fail while the world is freed (here: entities of more
   than 32 components need a list of their storages, which ecs_world_clear
   takes before it destroys anything, and the allocator has run dry), the
   values left get their on_remove hooks all the same, each once, with
   their entities whole. */
static void test_world_free_runs_the_hooks_of_values_left_when_its_clear_fails(void) {
    falloc f;
    ecs_world *w = world_with(&f, false);
    uint32_t k;
    int leaked;
    for (k = 0; k < 300; k++) {
        char name[8];
        snprintf(name, sizeof name, "P%u", (unsigned)k);
        ecs_register(w, name, sizeof(int), sizeof(int));
    }
    owner_comp = ECS_COMPONENT(w, Owner);
    live_buffers = spawn_owners = second_calls = entity_whole = 0;
    set_hooks(w, owner_comp, NULL, release_owner, NULL);
    for (k = 0; k < 10; k++) {
        Owner o = new_owner();
        ecs_entity e = ecs_create(w);
        uint32_t j;
        ecs_add(w, e, owner_comp, &o);
        for (j = 0; j < 40; j++) ecs_add(w, e, 1 + k + j, NULL);
    }
    ecs_destroy(w, ecs_create(w)); /* the free queue exists: the clear allocates only its list */
    f.budget = 1; /* the next allocation fails, and every one after it */
    ecs_world_free(w);
    leaked = release_leftovers();
    CHECK_EQ(entity_whole, 10); /* nothing was destroyed: every value reached with its entity whole */
    CHECK_EQ(f.live, 0);
    CHECK_EQ(second_calls, 0);
    if (leaked) printf("  %d of 10 owned values never reached on_remove\n", leaked);
    CHECK_EQ(leaked, 0);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_create_id_on_a_fresh_world_queues_the_slots_below_it);
    RUN(test_create_id_revives_a_dead_slot_at_its_next_version_or_newer);
    RUN(test_create_id_refuses_ids_it_cannot_create_and_changes_nothing);
    RUN(test_create_id_takes_a_queued_slot_out_of_the_queue);
    RUN(test_create_id_keeps_the_free_queue_fifo_through_wraps);
    RUN(test_create_id_beyond_max_entities_is_exhausted);
    RUN(test_create_id_is_recorded_as_created);
    RUN(test_create_id_does_not_revive_a_retired_id);
    RUN(test_clone_copies_every_component_byte_for_byte);
    RUN(test_clone_runs_on_insert_and_marks_inserted);
    RUN(test_clone_of_a_dead_entity_asserts);
    RUN(test_clone_keeps_a_group_exact);
    RUN(test_clone_out_of_memory_creates_nothing);
    RUN(test_destroy_all_destroys_exactly_the_entities_with_c);
    RUN(test_destroy_all_stops_at_the_first_refusal);
    RUN(test_entity_components_lists_ids_in_id_order);
    RUN(test_world_clear_destroys_every_entity_and_keeps_the_rest);
    RUN(test_world_clear_is_refused_inside_a_hook);
    RUN(test_world_free_runs_on_remove_once_per_value);
    RUN(test_world_free_runs_hooks_as_ecs_destroy_does);
    RUN(test_world_free_lets_hooks_release_what_values_own);
    RUN(test_world_free_releases_owned_values_even_out_of_memory);
    RUN(test_world_free_runs_the_hooks_of_values_left_when_its_clear_fails);
    RUN(test_get_n_is_all_or_nothing);
    RUN(test_get_mut_n_marks_modified_only_when_it_succeeds);
    RUN(test_remove_n_returns_a_mask_and_copies_values_out);
    RUN(test_remove_n_records_removals_and_delete_n_deletions);
    RUN(test_remove_n_with_a_bad_list_asserts_and_changes_nothing);
    RUN(test_remove_n_out_of_memory_for_a_record_removes_nothing);
    RUN(test_remove_n_mask_leaves_out_what_a_hook_took);
    RUN(test_remove_n_refused_for_one_storage_takes_none);
    RUN(test_removed_or_deleted_merges_by_tick_removals_first);
    RUN(test_removed_or_deleted_needs_removal_or_deletion_tracked);
    RUN(test_system_run_runs_one_system_as_a_batch_of_one);
    RUN(test_system_run_matches_a_workload_of_that_system);
    RUN(test_system_run_respects_run_if);
    RUN(test_system_run_flushes_commands_after_the_system);
    RUN(test_system_run_returns_the_system_error);
    RUN(test_system_run_is_refused_while_a_workload_runs);
    RUN(test_system_run_is_refused_in_hooks_and_for_unknown_names);
    return test_summary();
}
