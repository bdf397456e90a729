/* Memory (section 5, "Memory"): what ecs_storage_stats_get / ecs_world_stats_get
   report against what a metering allocator holds, ecs_reserve,
   ecs_storage_reserve and ecs_shrink.

     ecs_world_stats_get.total      every byte the world holds from its
                                allocator: slots, free queue, command buffer,
                                name indexes, entity lists, storages (exact);
                                with systems, workloads and groups, which the
                                doc does not list, at most that
     ecs_storage_stats_get          rows, capacity; value, dense, sparse and
                                tracking bytes as allocated; the storages'
                                totals add up to storage_bytes
     ecs_reserve(w, n)          the next n creates allocate nothing;
                                EXHAUSTED beyond desc.max_entities
     ecs_storage_reserve        the next n adds allocate no rows (a sparse
                                page on its first entity still comes then)
     ecs_shrink                 gives capacity back (the allocator's live
                                bytes drop, rows == capacity, empty pages,
                                lists, slots and command buffer), and every
                                get, view, create and add afterwards is
                                right; refused in hooks; an allocation that
                                fails keeps the bigger array and the world
                                right (every allocation of a shrink, in turn)

   Every world here runs on a meter: an allocator that counts live bytes
   and calls and fails when told to. Run one test alone with
   `test_memory <test name>`. */
#include "test.h"
#include "../ecs.h"
#include "meter.h"

typedef struct { int v; } A;
typedef struct { double x, y, z; } B;
typedef struct { unsigned char bytes[40]; } Big;

/* ---- the meter (tests/meter.h) --------------------------------------------- */

static ecs_world *metered(meter *m, int with_realloc, bool track_entities, uint32_t max_entities) {
    ecs_desc d;
    meter_init(m);
    memset(&d, 0, sizeof d);
    d.allocator = meter_allocator(m, with_realloc);
    d.track_entities = track_entities;
    d.max_entities = max_entities;
    return ecs_world_new(&d);
}

/* ecs_world_stats_get's total against the meter, saying by how much they differ. */
static int total_is_live(const ecs_world *w, const meter *m, int line) {
    ecs_world_stats st;
    if (!ecs_world_stats_get(w, &st)) return 0;
    if (st.total == m->live) return 1;
    printf("  line %d: ecs_world_stats_get total %lu, the allocator holds %lu (%s %lu)\n", line,
           (unsigned long)st.total, (unsigned long)m->live, st.total < m->live ? "missing" : "over by",
           (unsigned long)(st.total < m->live ? m->live - st.total : st.total - m->live));
    return 0;
}
#define TOTAL_IS_LIVE(w, m) CHECK(total_is_live((w), (m), __LINE__))

static size_t storage_total(const ecs_world *w, ecs_component c) {
    ecs_storage_stats s;
    return ecs_storage_stats_get(ecs_storage_of(w, c), &s) ? s.total : 0;
}
static uint32_t capacity_of(const ecs_world *w, ecs_component c) {
    ecs_storage_stats s;
    return ecs_storage_stats_get(ecs_storage_of(w, c), &s) ? s.capacity : 0;
}

/* ==== statistics ============================================================ */

static void record_on_remove(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)hw, (void)e, (void)hc, (void)value;
    ++*(int *)user;
}

/* One scenario, measured at every step: everything the doc lists. */
static void stats_match_the_allocator(int with_realloc) {
    meter m;
    ecs_world *w = metered(&m, with_realloc, true, 0);
    ecs_component a, b, big, tag;
    static ecs_entity e[6000];
    ecs_hooks h = {0};
    int removed = 0;
    uint32_t k;
    TOTAL_IS_LIVE(w, &m); /* a new world */
    a = ECS_COMPONENT(w, A);
    b = ECS_COMPONENT(w, B);
    big = ECS_COMPONENT(w, Big);
    tag = ECS_TAG(w, "Tag");
    TOTAL_IS_LIVE(w, &m); /* registrations: storages and the name index */
    for (k = 0; k < 40; k++) { /* the name index grows */
        char name[16];
        snprintf(name, sizeof name, "Extra%u", (unsigned)k);
        ecs_register(w, name, 8, 8);
    }
    TOTAL_IS_LIVE(w, &m);
    ecs_track_set(w, a, ECS_TRACK_ALL);
    ecs_track_set(w, tag, ECS_TRACK_ALL);
    ecs_track_set(w, big, ECS_TRACK_DELETION);
    memset(&h, 0, sizeof h);
    h.on_remove = record_on_remove;
    h.user = &removed;
    ecs_hooks_set(w, b, &h);
    for (k = 0; k < 6000; k++) { /* two sparse pages, tick arrays, the created list */
        e[k] = ecs_create(w);
        ECS_ADD(w, e[k], a, A, {(int)k});
        if (k % 2) ECS_ADD(w, e[k], b, B, {1, 2, 3});
        if (k % 3 == 0) ecs_add(w, e[k], big, NULL);
        if (k % 5 == 0) ecs_add(w, e[k], tag, NULL);
    }
    TOTAL_IS_LIVE(w, &m);
    for (k = 0; k < 6000; k += 4) ecs_destroy(w, e[k]); /* free queue, deleted and destroyed lists */
    for (k = 1; k < 6000; k += 4) ecs_remove(w, e[k], a, NULL); /* removed list */
    TOTAL_IS_LIVE(w, &m);
    ECS_UNIQUE_ADD(w, a, A, {5}); /* uniques: a value and a tag */
    ecs_unique_add(w, tag, NULL);
    TOTAL_IS_LIVE(w, &m);
    for (k = 2; k < 200; k += 4) ECS_DEFER_ADD(w, e[k], big, Big, {{1}}); /* the command buffer */
    ecs_defer_destroy(w, e[3]);
    TOTAL_IS_LIVE(w, &m);
    CHECK_GT(ecs_flush(w), 0);
    TOTAL_IS_LIVE(w, &m);
    ecs_unique_remove(w, tag, NULL);
    ecs_track_set(w, tag, 0); /* tick arrays go */
    TOTAL_IS_LIVE(w, &m);
    ecs_shrink(w);
    TOTAL_IS_LIVE(w, &m);
    CHECK_GT(removed, 0);
    ecs_world_free(w);
    CHECK(m.live == 0 && m.bad_frees == 0);
}

static void test_stats_world_total_is_what_the_allocator_holds(void) { stats_match_the_allocator(0); }
static void test_stats_world_total_is_what_the_allocator_holds_with_realloc(void) { stats_match_the_allocator(1); }

static int nothing(const ecs_system_ctx *ctx) {
    (void)ctx;
    return 0;
}

/* Systems, workloads and groups are not in the doc's list of what the
   totals count (nor in any field): the total stays a lower bound. */
static void test_stats_world_total_is_a_lower_bound_with_systems_and_groups(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), tag = ECS_TAG(w, "Tag");
    ecs_world_stats st;
    ecs_system_desc sd;
    ecs_group_desc gd;
    const char *items[2];
    size_t names_before;
    CHECK(ecs_world_stats_get(w, &st));
    names_before = st.name_bytes;
    memset(&sd, 0, sizeof sd);
    sd.fn = nothing;
    sd.name = "first";
    CHECK(ecs_system_new(w, &sd));
    sd.name = "second";
    CHECK(ecs_system_new(w, &sd));
    items[0] = "first", items[1] = "second";
    CHECK(ecs_workload_new(w, "frame", 2, items));
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = a, gd.owned[1] = b, gd.excluded[0] = tag;
    CHECK(ecs_group_new(w, &gd));
    CHECK(ecs_world_stats_get(w, &st));
    CHECK_GT(st.name_bytes, names_before); /* the systems' and workloads' name indexes count */
    CHECK_LE(st.total, m.live);
    ecs_world_free(w);
    CHECK_EQ(m.live, 0);
}

static void test_stats_storage_reports_rows_capacity_and_bytes(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B), tag = ECS_TAG(w, "Tag");
    ecs_storage_stats s, t;
    ecs_world_stats ws;
    ecs_entity e[100], far = ECS_NULL;
    size_t live, sum;
    uint32_t k;
    for (k = 0; k < 100; k++) e[k] = ecs_create(w);
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &s));
    CHECK(s.rows == 0 && s.capacity == 0 && s.value_bytes == 0 && s.dense_bytes == 0 && s.tracking_bytes == 0);
    for (k = 0; k < 20; k++) ECS_ADD(w, e[k], a, A, {(int)k});
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &s));
    CHECK(s.rows == 20 && s.rows == ecs_storage_count(ecs_storage_of(w, a)) && s.capacity >= 20);
    CHECK_EQ(s.value_bytes, (size_t)s.capacity * sizeof(A));
    CHECK_EQ(s.dense_bytes, (size_t)s.capacity * sizeof(ecs_entity));
    CHECK_EQ(s.tracking_bytes, 0);
    CHECK_GE(s.total, s.value_bytes + s.dense_bytes + s.sparse_bytes);
    /* growth: what the allocator gave is what the stats gained */
    live = m.live;
    CHECK(ecs_storage_reserve(ecs_storage_of_mut(w, a), 1000));
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &t));
    CHECK(t.capacity >= 1020 && t.rows == 20);
    CHECK_EQ(t.total - s.total, m.live - live);
    CHECK(t.value_bytes == (size_t)t.capacity * sizeof(A) && t.dense_bytes == (size_t)t.capacity * sizeof(ecs_entity));
    /* tracking: two tick arrays of capacity entries */
    live = m.live;
    ecs_track_set(w, a, ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION);
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &s));
    CHECK_EQ(s.tracking_bytes, 2 * (size_t)s.capacity * sizeof(ecs_tick));
    CHECK(s.tracking_bytes == m.live - live && s.total - t.total == m.live - live);
    /* a sparse page of its own on the first entity of a new page */
    ecs_reserve(w, 5000);
    for (k = 0; k < 5000; k++) far = ecs_create(w);
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &t));
    live = m.live;
    ECS_ADD(w, far, a, A, {1}); /* index 5099: page 1; rows have room */
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &s));
    CHECK_EQ(s.sparse_bytes - t.sparse_bytes, ECS__PAGE_SIZE * sizeof(uint64_t));
    CHECK_EQ(m.live - live, ECS__PAGE_SIZE * sizeof(uint64_t));
    /* a unique counts with the values */
    live = m.live;
    ECS_UNIQUE_ADD(w, b, B, {1, 2, 3});
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, b), &s) && s.value_bytes == sizeof(B) && s.rows == 0);
    CHECK_EQ(m.live - live, sizeof(B));
    ecs_add(w, e[0], tag, NULL);
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, tag), &s) && s.value_bytes == 0 && s.rows == 1 && s.capacity >= 1);
    CHECK_EQ(s.dense_bytes, (size_t)s.capacity * sizeof(ecs_entity));
    /* the storages' totals make storage_bytes */
    CHECK(ecs_world_stats_get(w, &ws));
    sum = storage_total(w, a) + storage_total(w, b) + storage_total(w, tag);
    CHECK(ws.storage_bytes == sum && ws.alive == ecs_count(w) && ws.slots == 5100);
    CHECK(ws.slot_capacity >= ws.slots && ws.free_slots == 0);
    /* refused */
    EXPECT_ASSERT(ecs_storage_of(w, 99) == NULL, "ecs_storage_of");
    EXPECT_ASSERT(!ecs_storage_stats_get(NULL, &s), "ecs_storage_stats_get");
    EXPECT_ASSERT(!ecs_storage_stats_get(ecs_storage_of(w, a), NULL), "ecs_storage_stats_get");
    EXPECT_ASSERT(!ecs_world_stats_get(w, NULL), "ecs_world_stats_get");
    ecs_world_free(w);
    CHECK_EQ(m.live, 0);
}

static void test_stats_world_counts_slots_and_the_free_queue(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_world_stats st;
    ecs_entity e[50];
    uint32_t k;
    for (k = 0; k < 50; k++) e[k] = ecs_create(w);
    for (k = 0; k < 50; k += 5) ecs_destroy(w, e[k]);
    CHECK(ecs_world_stats_get(w, &st));
    CHECK(st.alive == 40 && st.slots == 50 && st.free_slots == 10 && st.slot_capacity >= 50);
    CHECK_GE(st.slot_bytes, (size_t)st.slot_capacity * sizeof(uint32_t) + 10 * sizeof(uint32_t));
    TOTAL_IS_LIVE(w, &m);
    ecs_world_free(w);
}

/* ==== reserve =============================================================== */

static void test_reserve_makes_the_next_n_creates_allocate_nothing(void) {
    meter m;
    int track;
    for (track = 0; track < 2; track++) { /* with track_entities the created list is reserved too */
        ecs_world *w = metered(&m, 0, track != 0, 0);
        ecs_world_stats st;
        unsigned long calls;
        uint32_t k;
        for (k = 0; k < 30; k++) ecs_create(w);
        for (k = 0; k < 30; k += 3) ecs_destroy(w, (ecs_entity)1 << 32 | k); /* 10 queued slots */
        CHECK(ecs_reserve(w, 5000));
        CHECK(ecs_world_stats_get(w, &st) && st.slot_capacity >= 30 + 4990);
        calls = m.calls;
        for (k = 0; k < 5000; k++) CHECK_NE(ecs_create(w), ECS_NULL);
        CHECK_EQ(m.calls, calls); /* not one allocation */
        CHECK_EQ(ecs_count(w), 5020);
        TOTAL_IS_LIVE(w, &m);
        ecs_world_free(w);
        CHECK_EQ(m.live, 0);
    }
}

static void test_reserve_beyond_max_entities_is_exhausted(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 100);
    size_t live = m.live;
    uint32_t k;
    for (k = 0; k < 10; k++) ecs_create(w);
    live = m.live;
    CHECK(!ecs_reserve(w, 91) && ecs_last_error(w) == ECS_ERR_EXHAUSTED);
    CHECK_EQ(m.live, live); /* nothing kept */
    CHECK(ecs_reserve(w, 90)); /* exactly what is left */
    ecs_world_free(w);
}

static void test_storage_reserve_makes_the_next_n_adds_allocate_no_rows(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A), tag = ECS_TAG(w, "Tag");
    ecs_entity e[4000];
    unsigned long calls;
    uint32_t k;
    ecs_track_set(w, a, ECS_TRACK_ALL); /* tick arrays are rows too */
    for (k = 0; k < 4000; k++) e[k] = ecs_create(w); /* all in sparse page 0 */
    ECS_ADD(w, e[0], a, A, {0});                      /* a's page 0 exists */
    ecs_add(w, e[0], tag, NULL);
    CHECK(ecs_storage_reserve(ecs_storage_of_mut(w, a), 3999) && capacity_of(w, a) >= 4000);
    CHECK(ecs_storage_reserve(ecs_storage_of_mut(w, tag), 3999));
    calls = m.calls;
    for (k = 1; k < 4000; k++) {
        ECS_ADD(w, e[k], a, A, {(int)k});
        ecs_add(w, e[k], tag, NULL);
    }
    CHECK_EQ(m.calls, calls);
    CHECK(ecs_storage_count(ecs_storage_of(w, a)) == 4000 && ECS_GET(w, e[3999], a, A)->v == 3999);
    TOTAL_IS_LIVE(w, &m);
    ecs_world_free(w);
    CHECK_EQ(m.live, 0);
}

/* The doc promises rows, not sparse pages: a page is still allocated when
   its first entity arrives, and nothing else is. */
static void test_storage_reserve_leaves_sparse_pages_to_their_first_entity(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A);
    static ecs_entity e[3 * ECS__PAGE_SIZE];
    unsigned long calls;
    size_t live;
    uint32_t k;
    for (k = 0; k < 3 * ECS__PAGE_SIZE; k++) e[k] = ecs_create(w);
    CHECK(ecs_storage_reserve(ecs_storage_of_mut(w, a), 3 * ECS__PAGE_SIZE));
    calls = m.calls;
    live = m.live;
    for (k = 0; k < 3 * ECS__PAGE_SIZE; k++) ECS_ADD(w, e[k], a, A, {(int)k});
    CHECK_EQ(m.calls - calls, 3); /* pages 0, 1 and 2 */
    CHECK_EQ(m.live - live, 3 * ECS__PAGE_SIZE * sizeof(uint64_t));
    TOTAL_IS_LIVE(w, &m);
    EXPECT_ASSERT(ecs_storage_of_mut(w, 42) == NULL, "ecs_storage_of_mut");
    EXPECT_ASSERT(!ecs_storage_reserve(NULL, 10), "ecs_storage_reserve");
    ecs_world_free(w);
}

static void test_storage_reserve_out_of_memory_changes_nothing(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A);
    ecs_entity e = ecs_create(w);
    uint32_t cap;
    size_t live;
    ECS_ADD(w, e, a, A, {7});
    cap = capacity_of(w, a);
    live = m.live;
    m.fail_all = 1;
    CHECK(!ecs_storage_reserve(ecs_storage_of_mut(w, a), 100) && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY);
    m.fail_all = 0;
    CHECK(capacity_of(w, a) == cap && m.live == live && ECS_GET(w, e, a, A)->v == 7);
    ecs_world_free(w);
}

/* ==== shrink ================================================================ */

#define N 10000
/* survivors of the big destroy: page 0 and page 1, none in page 2 */
static const uint32_t keep[] = {3, 50, 100, 1000, 2047, 4095, 4096, 5000, 6001, 7777};
#define NKEEP (sizeof keep / sizeof keep[0])

typedef struct {
    meter m;
    ecs_world *w;
    ecs_component a, b, tag, c;
    ecs_entity e[N];
} big_world;

/* Which of them entity k got: a (id 1) all, b (2) every third, the tag (3)
   every fifth, c (4) every seventh from 8000 on (so none is kept). */
static int has(ecs_component c, uint32_t k) {
    return c == 1 || (c == 2 && k % 3 == 0) || (c == 3 && k % 5 == 0) || (c == 4 && k >= 8000 && k % 7 == 0);
}
static int kept(uint32_t k);
/* Sparse pages (of the 3) that held c's entities and hold none after the destroys. */
static int emptied_pages(ecs_component c) {
    int had[3] = {0, 0, 0}, now[3] = {0, 0, 0}, p, n = 0;
    uint32_t k;
    for (k = 0; k < N; k++)
        if (has(c, k)) {
            had[k / ECS__PAGE_SIZE] = 1;
            if (kept(k)) now[k / ECS__PAGE_SIZE] = 1;
        }
    for (p = 0; p < 3; p++) n += had[p] && !now[p];
    return n;
}

/* N entities with a (all), b (every third), tag (every fifth); all but
   the keep[] ones destroyed, tracking lists emptied, a command flushed. */
static void build(big_world *bw) {
    uint32_t k, j;
    ecs_world *w = bw->w = metered(&bw->m, 0, true, 0);
    bw->a = ECS_COMPONENT(w, A);
    bw->b = ECS_COMPONENT(w, B);
    bw->tag = ECS_TAG(w, "Tag");
    bw->c = ECS_COMPONENT(w, Big); /* ends empty */
    ecs_track_set(w, bw->a, ECS_TRACK_ALL);
    ecs_track_set(w, bw->b, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
    for (k = 0; k < N; k++) {
        B bv;
        bv.x = k, bv.y = -(double)k, bv.z = 0.5;
        bw->e[k] = ecs_create(w);
        ECS_ADD(w, bw->e[k], bw->a, A, {(int)k});
        if (has(bw->b, k)) ecs_add(w, bw->e[k], bw->b, &bv);
        if (has(bw->tag, k)) ecs_add(w, bw->e[k], bw->tag, NULL);
        if (has(bw->c, k)) ecs_add(w, bw->e[k], bw->c, NULL);
    }
    for (k = 0; k < N; k++) {
        for (j = 0; j < NKEEP && keep[j] != k; j++) {}
        if (j == NKEEP) ecs_destroy(w, bw->e[k]);
    }
    ecs_defer_destroy(w, bw->e[keep[0]]);
    ecs_flush(w);
    ecs_track_clear(w, 0, ECS_TRACK_ALL | ECS_TRACK_ENTITIES);
}

static int kept(uint32_t k) {
    uint32_t j;
    for (j = 1; j < NKEEP; j++) /* keep[0] went by the command */
        if (keep[j] == k) return 1;
    return 0;
}

/* Everything a get, a view, a create and an add can see is right. */
static int world_is_right(big_world *bw, int line) {
    ecs_world *w = bw->w;
    ecs_component ab[2];
    ecs_iter it;
    uint32_t k, n = 0, expect_ab = 0;
    ecs_entity fresh[100];
    ab[0] = bw->a, ab[1] = bw->b;
#define WANT(cond)                                                  \
    if (!(cond)) {                                                  \
        printf("  line %d (from %d): %s\n", __LINE__, line, #cond); \
        return 0;                                                   \
    }
    WANT(ecs_count(w) == NKEEP - 1);
    for (k = 0; k < N; k++) {
        ecs_entity e = bw->e[k];
        WANT(ecs_alive(w, e) == kept(k));
        if (!kept(k)) continue;
        WANT(ECS_GET(w, e, bw->a, A) && ECS_GET(w, e, bw->a, A)->v == (int)k);
        WANT(ecs_has(w, e, bw->b) == has(bw->b, k));
        if (has(bw->b, k)) WANT(ECS_GET(w, e, bw->b, B)->x == k && ECS_GET(w, e, bw->b, B)->y == -(double)k);
        WANT(ecs_has(w, e, bw->tag) == has(bw->tag, k));
        WANT(ecs_has(w, e, bw->c) == has(bw->c, k));
        if (has(bw->b, k)) expect_ab++;
    }
    for (it = ecs_view_of(w, 2, ab); ecs_iter_next(&it); n++) {
        ecs_entity e = ecs_iter_entity(&it);
        k = ECS_ENTITY_INDEX(e);
        WANT(kept(k) && ECS_FIELD(&it, 0, A)->v == (int)k && ECS_FIELD(&it, 1, B)->x == k);
    }
    WANT(n == expect_ab);
    /* the world goes on: creates, adds (rows and pages grow again), tracking */
    for (k = 0; k < 100; k++) {
        fresh[k] = ecs_create(w);
        WANT(fresh[k] != ECS_NULL);
        WANT(ECS_ADD(w, fresh[k], bw->a, A, {-(int)k}) != NULL);
        WANT(ECS_ADD(w, fresh[k], bw->c, Big, {{(unsigned char)k}}) != NULL);
    }
    for (k = 0; k < 100; k++) {
        WANT(ECS_GET(w, fresh[k], bw->a, A)->v == -(int)k && ECS_GET(w, fresh[k], bw->c, Big)->bytes[0] == k);
        WANT(ecs_track_inserted(w, fresh[k], bw->a, 0));
    }
    for (k = 0; k < N; k++)
        if (kept(k)) WANT(ECS_GET(w, bw->e[k], bw->a, A)->v == (int)k); /* rows moved by the adds: still right */
    {
        uint32_t nd = 0;
        WANT(ecs_delete(w, bw->e[4095], bw->b)); /* 4095 has b */
        WANT(ecs_track_deleted(w, bw->b, 0, &nd) && nd == 1);
    }
#undef WANT
    return 1;
}

static void test_shrink_gives_memory_back_and_the_world_still_works(void) {
    static big_world bw;
    ecs_world_stats before, after;
    ecs_storage_stats s;
    size_t live, sparse_before[5];
    ecs_component c;
    build(&bw);
    for (c = 1; c <= 4; c++) {
        CHECK(ecs_storage_stats_get(ecs_storage_of(bw.w, c), &s));
        sparse_before[c] = s.sparse_bytes;
    }
    CHECK(ecs_world_stats_get(bw.w, &before));
    live = bw.m.live;
    ecs_shrink(bw.w);
    CHECK_LT(bw.m.live, live);
    CHECK(ecs_world_stats_get(bw.w, &after));
    CHECK_EQ(live - bw.m.live, before.total - after.total);
    TOTAL_IS_LIVE(bw.w, &bw.m);
    for (c = 1; c <= ecs_component_max(bw.w); c++) { /* rows == capacity everywhere */
        CHECK(ecs_storage_stats_get(ecs_storage_of(bw.w, c), &s));
        CHECK_EQ(s.rows, s.capacity);
        CHECK_EQ(s.tracking_bytes, (c == bw.a ? 2 * (size_t)s.capacity * sizeof(ecs_tick) : 0));
    }
    CHECK(ecs_storage_stats_get(ecs_storage_of(bw.w, bw.c), &s) && s.rows == 0 && s.value_bytes == 0 && s.dense_bytes == 0);
    /* sparse pages left with no entity went back, the others stayed */
    for (c = 1; c <= 4; c++) {
        CHECK(ecs_storage_stats_get(ecs_storage_of(bw.w, c), &s));
        CHECK_EQ(sparse_before[c] - s.sparse_bytes, (size_t)emptied_pages(c) * ECS__PAGE_SIZE * sizeof(uint64_t));
    }
    CHECK(emptied_pages(bw.a) == 1 && emptied_pages(bw.b) == 2 && emptied_pages(bw.c) == 2);
    CHECK(after.slot_capacity == after.slots && after.command_bytes == 0);
    CHECK_EQ(after.tracking_bytes, 0); /* the emptied created/destroyed lists */
    CHECK(world_is_right(&bw, __LINE__));
    TOTAL_IS_LIVE(bw.w, &bw.m);
    ecs_world_free(bw.w);
    CHECK(bw.m.live == 0 && bw.m.bad_frees == 0);
}

static void test_shrink_of_an_empty_world_frees_rows_and_slots(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A);
    ecs_world_stats st;
    ecs_storage_stats s;
    ecs_entity e;
    uint32_t k;
    for (k = 0; k < 100; k++) ECS_ADD(w, ecs_create(w), a, A, {1});
    CHECK_EQ(ecs_world_clear(w), 100);
    ecs_shrink(w);
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &s) && s.rows == 0 && s.capacity == 0 && s.value_bytes == 0);
    CHECK(ecs_world_stats_get(w, &st) && st.slots == 100 && st.slot_capacity == 100 && st.free_slots == 100);
    TOTAL_IS_LIVE(w, &m);
    e = ecs_create(w); /* from the free queue */
    CHECK_EQ(e, ((ecs_entity)2 << 32 | 0));
    CHECK(ECS_ADD(w, e, a, A, {9}) && ECS_GET(w, e, a, A)->v == 9);
    ecs_world_free(w);
    CHECK_EQ(m.live, 0);
    /* a world that never had an entity */
    w = metered(&m, 0, false, 0);
    a = ECS_COMPONENT(w, A);
    ecs_shrink(w);
    TOTAL_IS_LIVE(w, &m);
    e = ecs_create(w);
    CHECK(e && ECS_ADD(w, e, a, A, {3}) && ECS_GET(w, e, a, A)->v == 3);
    ecs_world_free(w);
    CHECK_EQ(m.live, 0);
}

static void test_shrink_empties_tracking_lists_to_their_count(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A);
    ecs_storage_stats s;
    ecs_entity e[40];
    ecs_tick t;
    const ecs_change *ch;
    uint32_t k, n;
    ecs_track_set(w, a, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
    for (k = 0; k < 40; k++) ECS_ADD(w, e[k] = ecs_create(w), a, A, {(int)k});
    for (k = 0; k < 30; k++) ecs_remove(w, e[k], a, NULL);
    t = ecs_tick_advance(w);
    for (k = 30; k < 33; k++) ecs_delete(w, e[k], a);
    ecs_track_clear_until(w, a, ECS_TRACK_REMOVAL, t); /* 30 removals dropped */
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &s));
    CHECK_EQ(s.tracking_bytes, 32 * sizeof(ecs_change) + 8 * (sizeof(ecs_change) + sizeof(A)));
    ecs_shrink(w);
    CHECK(ecs_storage_stats_get(ecs_storage_of(w, a), &s));
    CHECK_EQ(s.tracking_bytes, 3 * (sizeof(ecs_change) + sizeof(A))); /* removed: none left */
    TOTAL_IS_LIVE(w, &m);
    ch = ecs_track_deleted(w, a, 0, &n);
    CHECK(n == 3 && ch[0].entity == e[30] && ((const A *)ecs_track_deleted_value(w, a, &ch[2]))->v == 32);
    ecs_remove(w, e[35], a, NULL); /* the lists grow again */
    CHECK(ecs_track_removed(w, a, 0, &n) && n == 1);
    ecs_world_free(w);
    CHECK_EQ(m.live, 0);
}

static int shrink_errors;
static uint32_t cap_in_hook;
static ecs_component shrink_watch;
static void shrink_in_hook(ecs_world *hw, ecs_entity e, ecs_component hc, void *value, void *user) {
    (void)e, (void)hc, (void)value, (void)user;
    ecs_shrink(hw);
    if (ecs_last_error(hw) == ECS_ERR_LOCKED) shrink_errors++;
    cap_in_hook = capacity_of(hw, shrink_watch);
}

static void test_shrink_is_refused_in_a_hook(void) {
    meter m;
    ecs_world *w = metered(&m, 0, false, 0);
    ecs_component a = ECS_COMPONENT(w, A), b = ECS_COMPONENT(w, B);
    ecs_hooks h = {0};
    ecs_entity e[100];
    uint32_t k, cap;
    size_t live;
    for (k = 0; k < 100; k++) ECS_ADD(w, e[k] = ecs_create(w), b, B, {1, 2, 3});
    for (k = 10; k < 100; k++) ecs_destroy(w, e[k]);
    cap = capacity_of(w, b);
    CHECK_GE(cap, 100);
    memset(&h, 0, sizeof h);
    h.on_insert = shrink_in_hook;
    ecs_hooks_set(w, a, &h);
    shrink_watch = b;
    shrink_errors = 0;
    live = m.live;
    EXPECT_ASSERT(ECS_ADD(w, e[0], a, A, {1}) != NULL, "ecs_shrink");
    CHECK(shrink_errors == 1 && cap_in_hook == cap && capacity_of(w, b) == cap);
    CHECK_GT(m.live, live); /* only grown (a's first row), nothing given back */
    ecs_hooks_set(w, a, NULL);
    ecs_shrink(w); /* outside the hook: fine */
    CHECK(capacity_of(w, b) == 10 && ECS_GET(w, e[9], b, B)->z == 3);
    ecs_world_free(w);
}

/* Every allocation a shrink makes fails in turn (the k-th, for k = 1, 2...
   until a shrink completes without reaching k): each time the arrays it
   could not copy keep their size, the statistics still match the
   allocator, and the world is right. */
static void test_shrink_out_of_memory_keeps_the_bigger_arrays(void) {
    static big_world bw;
    unsigned long k;
    int reached = 1;
    for (k = 1; reached; k++) {
        ecs_world_stats before, after;
        ecs_storage_stats s[5], t;
        ecs_component c;
        build(&bw);
        CHECK(ecs_world_stats_get(bw.w, &before));
        for (c = 1; c <= 4; c++) CHECK(ecs_storage_stats_get(ecs_storage_of(bw.w, c), &s[c]));
        bw.m.fail_at = bw.m.calls + k;
        ecs_shrink(bw.w); /* nothing to report: the bigger arrays stay */
        reached = bw.m.refused > 0;
        bw.m.fail_at = 0;
        CHECK(ecs_world_stats_get(bw.w, &after));
        CHECK(after.slot_capacity == before.slot_capacity || after.slot_capacity == after.slots);
        for (c = 1; c <= 4; c++) {
            CHECK(ecs_storage_stats_get(ecs_storage_of(bw.w, c), &t));
            CHECK_EQ(t.rows, s[c].rows);
            CHECK(t.capacity == s[c].capacity || t.capacity == t.rows);
        }
        if (!total_is_live(bw.w, &bw.m, __LINE__) || !world_is_right(&bw, __LINE__)) {
            printf("  (allocation %lu of the shrink failed)\n", k);
            CHECK(0);
        }
        ecs_world_free(bw.w);
        CHECK(bw.m.live == 0 && bw.m.bad_frees == 0);
    }
    CHECK_GT(k, 4); /* the shrink allocated several times: the loop meant something */
    /* every allocation failing: nothing shrinks but the frees */
    {
        ecs_world_stats before, after;
        ecs_component c;
        uint32_t caps[5];
        build(&bw);
        CHECK(ecs_world_stats_get(bw.w, &before));
        for (c = 1; c <= 4; c++) caps[c] = capacity_of(bw.w, c);
        bw.m.fail_all = 1;
        ecs_shrink(bw.w);
        bw.m.fail_all = 0;
        CHECK(ecs_world_stats_get(bw.w, &after));
        CHECK_EQ(after.slot_capacity, before.slot_capacity);
        for (c = 1; c <= 4; c++) { /* an empty storage needs no copy: its arrays just go */
            ecs_storage_stats t;
            CHECK(ecs_storage_stats_get(ecs_storage_of(bw.w, c), &t));
            CHECK_EQ(t.capacity, (t.rows ? caps[c] : 0));
        }
        TOTAL_IS_LIVE(bw.w, &bw.m);
        CHECK(world_is_right(&bw, __LINE__));
        ecs_world_free(bw.w);
        CHECK_EQ(bw.m.live, 0);
    }
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_stats_world_total_is_what_the_allocator_holds);
    RUN(test_stats_world_total_is_what_the_allocator_holds_with_realloc);
    RUN(test_stats_world_total_is_a_lower_bound_with_systems_and_groups);
    RUN(test_stats_storage_reports_rows_capacity_and_bytes);
    RUN(test_stats_world_counts_slots_and_the_free_queue);
    RUN(test_reserve_makes_the_next_n_creates_allocate_nothing);
    RUN(test_reserve_beyond_max_entities_is_exhausted);
    RUN(test_storage_reserve_makes_the_next_n_adds_allocate_no_rows);
    RUN(test_storage_reserve_leaves_sparse_pages_to_their_first_entity);
    RUN(test_storage_reserve_out_of_memory_changes_nothing);
    RUN(test_shrink_gives_memory_back_and_the_world_still_works);
    RUN(test_shrink_of_an_empty_world_frees_rows_and_slots);
    RUN(test_shrink_empties_tracking_lists_to_their_count);
    RUN(test_shrink_is_refused_in_a_hook);
    RUN(test_shrink_out_of_memory_keeps_the_bigger_arrays);
    return test_summary();
}
