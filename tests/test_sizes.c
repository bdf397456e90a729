/* Size and count arithmetic: a huge count, size or number of terms is
   refused, or fails cleanly (out of memory, nothing changed); no size is
   ever computed in a type that wraps. Each world here has an allocator that
   records every size it is asked for, refuses those above a limit (so a
   call asking for 16 GiB fails instead of swapping), and checks that every
   free names the size of its block. A wrapped size shows up either as a
   refused request smaller than what the call needs, or as a small block
   that is then overrun (ASan and valgrind see that).

     ecs_create_bulk, count near UINT32_MAX     false, EXHAUSTED or OUT_OF_MEMORY,
                                                nothing created, no refused
                                                request below count * 4 bytes
     creating beyond desc.max_entities          EXHAUSTED, nothing created, no
                                                memory kept
     ecs_register, size above 0xffffffff        0, INVALID, assert
     a component of nearly 4 GiB                every insert: out of memory
     ecs_defer_add of a big component           false, the queue unchanged
     ecs_workload_new, more than 2^24 steps     false, INVALID, assert, no memory
                                                kept (2^24 exactly: allowed, so
                                                here out of memory, all freed)
     ecs_view_of, n > ECS_MAX_TERMS             a view that yields nothing, assert
     ecs_add_n, ecs_create_n (and
     ecs_create_bulk), n > ECS_MAX_TERMS        refused, INVALID, assert, comps
                                                not read past ECS_MAX_TERMS
     ecs_iter_chunk, nchunks near 2^32          the slices still cover every row
                                                exactly once

   Run one test alone with `test_sizes <test name>`. */
#include "test.h"
#include "../ecs.h"
#include "meter.h"

typedef struct { int v; } Val;

/* ---- the metered allocator (tests/meter.h) ---------------------------------------- */

static void meter_mark(meter *m) { m->nlog = 0; }

/* Since the mark: no refused request was smaller than `floor` (a refused
   request is one the call needed; below what the count needs, it was
   computed from a wrapped number). */
static int no_refused_below(const meter *m, size_t floor) {
    unsigned long k;
    for (k = 0; k < m->nlog && k < METER_LOG; k++)
        if (m->log[k] > m->limit && m->log[k] < floor) {
            printf("  a request of %lu bytes (less than %lu): a wrapped size?\n", (unsigned long)m->log[k],
                   (unsigned long)floor);
            return 0;
        }
    return 1;
}

static ecs_world *w;
static meter *mt;
static ecs_component *comps; /* register_many's */

static void teardown(void) {
    free(comps);
    comps = NULL;
    ecs_world_free(w);
    w = NULL;
    if (mt) {
        if (mt->live || mt->bad_frees) printf("  the world kept %lu bytes or freed %lu blocks with a wrong size\n",
                                             (unsigned long)mt->live, mt->bad_frees);
        free(mt);
    }
    mt = NULL;
}

/* A world on a meter refusing requests above `limit`; with_realloc: the
   allocator also grows blocks in place. */
static ecs_world *metered(size_t limit, int with_realloc, uint32_t max_entities, int track_entities) {
    ecs_desc d;
    teardown();
    mt = (meter *)malloc(sizeof *mt);
    meter_init(mt);
    mt->limit = limit;
    memset(&d, 0, sizeof d);
    d.allocator = meter_allocator(mt, with_realloc);
    d.max_entities = max_entities;
    d.track_entities = track_entities != 0;
    w = ecs_world_new(&d);
    return w;
}

/* Frees the world and checks that everything came back. */
#define TEARDOWN_CLEAN()                                                                        \
    do {                                                                                        \
        meter *m_ = mt;                                                                         \
        int clean_;                                                                             \
        mt = NULL;                                                                              \
        ecs_world_free(w);                                                                      \
        w = NULL;                                                                               \
        clean_ = m_->live == 0 && m_->bad_frees == 0;                                           \
        free(m_);                                                                               \
        CHECK(clean_);                                                                          \
    } while (0)

/* expr must hold and assert once with a message that starts with call;
   the error is `code`, with the asserted message. */
#define EXPECT_REFUSED(expr, code, call)                                                        \
    do {                                                                                        \
        size_t n_ = strlen(call);                                                               \
        ecs_clear_error(w);                                                                     \
        EXPECT_ASSERT(expr, "");                                                                \
        if (strncmp(test__assert_msg, (call), n_) != 0 ||                                       \
            (test__assert_msg[n_] != '(' && test__assert_msg[n_] != ':')) {                     \
            printf("  %s:%d: the assert \"%s\" does not name %s\n", __FILE__, __LINE__,         \
                   test__assert_msg, (call));                                                   \
            test__failed = 1;                                                                   \
            return;                                                                             \
        }                                                                                       \
        CHECK(ecs_last_error(w) == (code));                                                     \
        CHECK(strcmp(ecs_last_error_msg(w), test__assert_msg) == 0);                            \
    } while (0)

/* expr must hold with no assert and error `code`, recorded under call. */
#define EXPECT_ERROR(expr, code, call)                                                          \
    do {                                                                                        \
        ecs_clear_error(w);                                                                     \
        CHECK(expr);                                                                            \
        CHECK(ecs_last_error(w) == (code));                                                     \
        CHECK(strncmp(ecs_last_error_msg(w), (call), strlen(call)) == 0);                       \
    } while (0)

/* ---- entity counts ------------------------------------------------------------------- */

static int hook_calls;
static void count_hook(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)hw, (void)e, (void)c, (void)value, (void)user;
    hook_calls++;
}

/* Every row of c's storage belongs to a live entity that has c there. */
static int storage_ok(ecs_component c) {
    const ecs_storage *s = ecs_storage_of(w, c);
    const ecs_entity *ents = ecs_storage_entities(s);
    uint32_t r;
    for (r = 0; r < ecs_storage_count(s); r++)
        if (!ecs_alive(w, ents[r]) || !ecs_has(w, ents[r], c)) return 0;
    return 1;
}

/* Configurations: with or without a realloc hook; ids kept by the call
   itself (a hook on the bundle and out NULL); entity tracking; free slots
   queued. Counts: the largest max_entities allows, and others near 2^32
   and 2^31. None can be allocated under the limit. */
static void test_create_bulk_of_nearly_uint32_max_entities_fails_cleanly_without_wrapping(void) {
    static const uint32_t counts[] = {0xfffffffeu, 0xfffffff0u, 0x80000001u, 0x40000001u, 0x20000001u};
    int cfg, k;
    for (cfg = 0; cfg < 5; cfg++)
        for (k = 0; k < (int)(sizeof counts / sizeof counts[0]); k++) {
            ecs_component pos, tag, both[2];
            ecs_entity first, ids[4];
            uint32_t count = counts[k], i;
            const Val v = {3};
            const void *vals[2];
            metered((size_t)64 << 20, cfg == 1, 0, cfg == 3);
            pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
            tag = ecs_register(w, "Tag", 0, 0);
            both[0] = pos;
            both[1] = tag;
            vals[0] = &v;
            vals[1] = NULL;
            first = ecs_create_n(w, 2, both, vals);
            if (cfg == 2) {
                ecs_hooks h = {0};
                memset(&h, 0, sizeof h);
                h.on_insert = count_hook;
                ecs_hooks_set(w, tag, &h);
            }
            if (cfg == 4) /* five free slots queued */
                for (i = 0; i < 5; i++) ecs_destroy(w, ecs_create(w));
            hook_calls = 0;
            meter_mark(mt);
            ecs_clear_error(w);
            CHECK(!ecs_create_bulk(w, count, 2, both, vals, NULL));
            CHECK(ecs_last_error(w) == ECS_ERR_EXHAUSTED || ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY);
            CHECK_EQ(strncmp(ecs_last_error_msg(w), "ecs_create_bulk", 15), 0);
            CHECK(no_refused_below(mt, (size_t)count * 4)); /* 4 bytes: a slot's version, the least per entity */
            CHECK(ecs_count(w) == 1 && hook_calls == 0);
            CHECK(ecs_storage_count(ecs_storage_of(w, pos)) == 1 && ecs_storage_count(ecs_storage_of(w, tag)) == 1);
            CHECK_EQ(ECS_GET(w, first, pos, Val)->v, 3);
            /* and the world works on */
            CHECK(ecs_create_bulk(w, 4, 2, both, vals, ids) && ecs_count(w) == 5);
            CHECK(ECS_GET(w, ids[3], pos, Val)->v == 3 && storage_ok(pos) && storage_ok(tag));
            TEARDOWN_CLEAN();
            if (test__failed) {
                printf("  (configuration %d, count 0x%lx)\n", cfg, (unsigned long)count);
                return;
            }
        }
}

/* desc.max_entities bounds every way of creating; a refused creation
   keeps no memory. */
static void test_creating_beyond_max_entities_is_refused_exhausted_and_keeps_no_memory(void) {
    ecs_component pos;
    ecs_entity ids[1000];
    size_t live;
    uint32_t i;
    metered((size_t)64 << 20, 0, 1000, 0);
    pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    for (i = 0; i < 10; i++) ecs_create(w);
    live = mt->live;
    EXPECT_ERROR(!ecs_create_bulk(w, 991, 1, &pos, NULL, ids), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
    EXPECT_ERROR(!ecs_create_bulk(w, UINT32_MAX, 1, &pos, NULL, NULL), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
    EXPECT_ERROR(!ecs_create_bulk(w, 0x80000000u, 0, NULL, NULL, NULL), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
    CHECK(mt->live == live && ecs_count(w) == 10 && ecs_storage_count(ecs_storage_of(w, pos)) == 0);
    CHECK(ecs_create_bulk(w, 0, 1, &pos, NULL, ids) && ecs_count(w) == 10); /* zero: nothing to do */
    CHECK(ecs_create_bulk(w, 990, 1, &pos, NULL, ids) && ecs_count(w) == 1000);
    live = mt->live;
    EXPECT_ERROR(ecs_create(w) == ECS_NULL, ECS_ERR_EXHAUSTED, "ecs_create");
    EXPECT_ERROR(ecs_create_n(w, 1, &pos, NULL) == ECS_NULL, ECS_ERR_EXHAUSTED, "ecs_create_n");
    EXPECT_ERROR(!ecs_create_bulk(w, 1, 1, &pos, NULL, ids), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
    ecs_clear_error(w);
    CHECK(ecs_defer_create(w) == ECS_NULL && ecs_last_error(w) == ECS_ERR_EXHAUSTED);
    CHECK(mt->live == live && ecs_count(w) == 1000);
    /* freed slots are reused, up to the same bound */
    for (i = 0; i < 5; i++) CHECK(ecs_destroy(w, ids[i]));
    EXPECT_ERROR(!ecs_create_bulk(w, 6, 1, &pos, NULL, ids), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
    CHECK(ecs_count(w) == 995 && ecs_create_bulk(w, 5, 1, &pos, NULL, ids) && ecs_count(w) == 1000);
    for (i = 0; i < 5; i++) CHECK_LT(ECS_ENTITY_INDEX(ids[i]), 1000);
    EXPECT_ERROR(ecs_create(w) == ECS_NULL, ECS_ERR_EXHAUSTED, "ecs_create");
    CHECK(storage_ok(pos) && ecs_storage_count(ecs_storage_of(w, pos)) == 990);
    TEARDOWN_CLEAN();
    /* no bound given, or one past what ids can hold: index 0xffffffff is never handed out */
    for (i = 0; i < 2; i++) {
        metered((size_t)64 << 20, 0, i ? UINT32_MAX : 0, 0);
        pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
        ecs_create(w);
        live = mt->live;
        EXPECT_ERROR(!ecs_create_bulk(w, UINT32_MAX, 1, &pos, NULL, NULL), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
        EXPECT_ERROR(!ecs_create_bulk(w, UINT32_MAX - 1, 0, NULL, NULL, NULL), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
        CHECK(mt->live == live && ecs_count(w) == 1);
        TEARDOWN_CLEAN();
    }
}

/* ---- component sizes ------------------------------------------------------------------- */

static void test_register_refuses_sizes_above_0xffffffff(void) {
    uint32_t before;
    size_t live;
    metered((size_t)64 << 20, 0, 0, 0);
    ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    before = ecs_component_max(w);
    live = mt->live;
    if (sizeof(size_t) > 4) {
        EXPECT_REFUSED(ecs_register(w, "Huge", (size_t)0xffffffffu + 1u, 1) == 0, ECS_ERR_INVALID, "ecs_register");
        EXPECT_REFUSED(ecs_register(w, "Huge", (size_t)0xffffffffu + 16u, 16) == 0, ECS_ERR_INVALID, "ecs_register");
        EXPECT_REFUSED(ecs_register(w, "Huge", (size_t)-1 / 2 + 1, 8) == 0, ECS_ERR_INVALID, "ecs_register");
        EXPECT_REFUSED(ecs_register(w, "Huge", (size_t)-1, 1) == 0, ECS_ERR_INVALID, "ecs_register");
        EXPECT_REFUSED(ecs_register(w, "Huge", (size_t)-16, 16) == 0, ECS_ERR_INVALID, "ecs_register");
        CHECK_PTR_NE(strstr(test__assert_msg, "Huge"), NULL);
    } /* with a 32-bit size_t every size is at most 0xffffffff: accepted, and adds fail cleanly (below) */
    CHECK(ecs_component_max(w) == before && ecs_lookup(w, "Huge") == 0 && mt->live == live);
    TEARDOWN_CLEAN();
}

/* A size that passes ecs_register but that no allocator will give rows
   for: every insert fails out of memory, asking for at least the size. If
   the registration itself is refused, that is an answer too. */
static ecs_component register_big(const char *name, size_t size, size_t align) {
    ecs_component c;
    int before = test__asserts;
    ecs_clear_error(w);
    c = ecs_register(w, name, size, align);
    if (!c && test__asserts == before + 1 && ecs_last_error(w) == ECS_ERR_INVALID) test__expected++;
    return c;
}

static void test_a_component_of_nearly_4_gib_fails_cleanly_everywhere(void) {
    static const size_t sizes[] = {0x7ffffff8u, 0xfffffff0u};
    ecs_component big, pos, both[2];
    ecs_entity e, ids[2];
    int k;
    for (k = 0; k < 2; k++) {
        size_t size = sizes[k];
        metered((size_t)64 << 20, k, 0, 0);
        pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
        e = ecs_create(w);
        ECS_ADD(w, e, pos, Val, {1});
        if (!(big = register_big("Big", size, 16))) {
            TEARDOWN_CLEAN();
            continue;
        }
        both[0] = pos;
        both[1] = big;
        CHECK_EQ(ecs_component_size(w, big), size);
        meter_mark(mt);
        EXPECT_ERROR(ecs_add(w, e, big, NULL) == NULL, ECS_ERR_OUT_OF_MEMORY, "ecs_add");
        EXPECT_ERROR(!ecs_add_n(w, e, 2, both, NULL), ECS_ERR_OUT_OF_MEMORY, "ecs_add_n");
        EXPECT_ERROR(!ecs_add_if_changed(w, e, big, NULL), ECS_ERR_OUT_OF_MEMORY, "ecs_add_if_changed");
        EXPECT_ERROR(ecs_create_n(w, 2, both, NULL) == ECS_NULL, ECS_ERR_OUT_OF_MEMORY, "ecs_create_n");
        EXPECT_ERROR(!ecs_create_bulk(w, 2, 2, both, NULL, ids), ECS_ERR_OUT_OF_MEMORY, "ecs_create_bulk");
        EXPECT_ERROR(ecs_unique_add(w, big, NULL) == NULL, ECS_ERR_OUT_OF_MEMORY, "ecs_unique_add");
        CHECK(no_refused_below(mt, size));
        CHECK(ecs_count(w) == 1 && !ecs_has(w, e, big) && ECS_GET(w, e, pos, Val)->v == 1);
        CHECK(ecs_storage_count(ecs_storage_of(w, big)) == 0 && ecs_storage_count(ecs_storage_of(w, pos)) == 1);
        CHECK(!ecs_unique_has(w, big) && ecs_track_set(w, big, ECS_TRACK_ALL)); /* no rows: nothing to allocate */
        TEARDOWN_CLEAN();
        if (test__failed) {
            printf("  (size 0x%lx)\n", (unsigned long)size);
            return;
        }
    }
}

/* A command is a record of its header and the value, padded: its length
   must not wrap for a size near 2^32 (0xffffffe8 + 24 bytes of header is
   2^32). The queue keeps its earlier command, and the flush applies it. */
static void test_defer_add_of_a_big_component_with_a_failing_allocator_leaves_the_queue_unchanged(void) {
    static const size_t sizes[] = {0x7ffffff8u, 0xffffffe0u, 0xfffffff0u, 0xffffffe8u, 0xfffffff8u};
    int k;
    for (k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        size_t size = sizes[k];
        ecs_component pos, big;
        ecs_entity e;
        int before;
        metered((size_t)64 << 20, k % 2, 0, 0);
        pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
        e = ecs_create(w);
        if (!(big = register_big("Big", size, 8))) {
            TEARDOWN_CLEAN();
            continue;
        }
        CHECK(ECS_DEFER_ADD(w, e, pos, Val, {5}) && ecs_defer_pending(w) == 1);
        meter_mark(mt);
        ecs_clear_error(w);
        before = test__asserts;
        CHECK(!ecs_defer_add(w, e, big, NULL));
        /* out of memory, or refused as too big for a command (INVALID, with an assert) */
        CHECK(ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY || ecs_last_error(w) == ECS_ERR_INVALID);
        CHECK_EQ(test__asserts - before, (ecs_last_error(w) == ECS_ERR_INVALID));
        test__expected += test__asserts - before;
        CHECK_EQ(strncmp(ecs_last_error_msg(w), "ecs_defer_add", 13), 0);
        CHECK(no_refused_below(mt, size));
        CHECK_EQ(ecs_defer_pending(w), 1);
        CHECK(ecs_flush(w) == 1 && ECS_GET(w, e, pos, Val)->v == 5 && !ecs_has(w, e, big));
        CHECK_EQ(ecs_defer_pending(w), 0);
        TEARDOWN_CLEAN();
        if (test__failed) {
            printf("  (size 0x%lx)\n", (unsigned long)size);
            return;
        }
    }
}

/* ---- workload steps ------------------------------------------------------------------------ */

static int noop(const ecs_system_ctx *ctx) {
    (void)ctx;
    return 0;
}

/* A workload of `steps` steps of the system "s", named name. */
static int repeat(const char *name, const char *item, uint32_t n) {
    const char **items = (const char **)malloc(n * sizeof *items);
    uint32_t i;
    int ok;
    for (i = 0; i < n; i++) items[i] = item;
    ok = ecs_workload_new(w, name, n, items);
    free(items);
    return ok;
}

/* 65536 items of 257 steps each, and 256 of 256 x 257: more than 2^24
   steps once expanded. Refused before anything is allocated. */
static void test_workload_new_above_2_24_steps_is_refused_invalid_and_keeps_no_memory(void) {
    const char *one[1] = {"s"};
    ecs_system_desc d;
    const char **items;
    size_t live;
    uint32_t i;
    metered((size_t)64 << 20, 0, 0, 0);
    memset(&d, 0, sizeof d);
    d.name = "s";
    d.fn = noop;
    CHECK(ecs_system_new(w, &d));
    CHECK(repeat("inner", "s", 257) && ecs_workload_plan(w, "inner", NULL, 0) == 257);
    CHECK(repeat("mid", "inner", 256) && ecs_workload_plan(w, "mid", NULL, 0) == 256u * 257u);
    items = (const char **)malloc(65536 * sizeof *items);
    for (i = 0; i < 65536; i++) items[i] = "inner";
    live = mt->live;
    meter_mark(mt);
    EXPECT_REFUSED(!ecs_workload_new(w, "outer", 65536, items), ECS_ERR_INVALID, "ecs_workload_new");
    CHECK_EQ(mt->live, live);
    for (i = 0; i < 256; i++) items[i] = "mid";
    EXPECT_REFUSED(!ecs_workload_new(w, "outer", 256, items), ECS_ERR_INVALID, "ecs_workload_new");
    for (i = 255; i < 512; i++) items[i] = "s"; /* 255 x 65792 + 257 = 2^24 + 1 */
    EXPECT_REFUSED(!ecs_workload_new(w, "outer", 512, items), ECS_ERR_INVALID, "ecs_workload_new");
    CHECK_EQ(mt->live, live);
    free(items);
    CHECK(ecs_workload_new(w, "outer", 1, one)); /* the name was not taken */
    CHECK(ecs_workload_plan(w, "outer", NULL, 0) == 1 && ecs_workload_run(w, "outer") == 0);
    TEARDOWN_CLEAN();
}

/* Exactly 2^24 steps is allowed; with the allocator's limit below what
   that takes (132 bytes a step), it fails out of memory and frees what it
   took. */
static void test_workload_new_of_exactly_2_24_steps_out_of_memory_frees_what_it_took(void) {
    const char *one[1] = {"s"};
    ecs_system_desc d;
    const char **items;
    size_t live;
    uint32_t i;
    metered((size_t)32 << 20, 0, 0, 0);
    memset(&d, 0, sizeof d);
    d.name = "s";
    d.fn = noop;
    CHECK(ecs_system_new(w, &d) && repeat("inner", "s", 256));
    items = (const char **)malloc(65536 * sizeof *items);
    for (i = 0; i < 65536; i++) items[i] = "inner";
    live = mt->live;
    meter_mark(mt);
    EXPECT_ERROR(!ecs_workload_new(w, "exact", 65536, items), ECS_ERR_OUT_OF_MEMORY, "ecs_workload_new");
    free(items);
    CHECK(mt->live == live && mt->refused > 0);
    CHECK(no_refused_below(mt, (size_t)1 << 24)); /* no step array sized from a wrapped count */
    CHECK(ecs_workload_new(w, "exact", 1, one)); /* the name was not taken */
    TEARDOWN_CLEAN();
}

/* ---- numbers of terms ------------------------------------------------------------------------- */

#define NCOMPS (ECS_MAX_TERMS + 1)

static void register_many(void) {
    char name[16];
    int i;
    metered((size_t)64 << 20, 0, 0, 0);
    comps = (ecs_component *)malloc(NCOMPS * sizeof *comps); /* exactly NCOMPS: reading past them is caught */
    for (i = 0; i < NCOMPS; i++) {
        snprintf(name, sizeof name, "C%d", i);
        comps[i] = ecs_register(w, name, sizeof(Val), ECS_ALIGNOF(Val));
    }
}

static void test_view_of_with_more_than_max_terms_is_refused(void) {
    ecs_iter it;
    ecs_entity e;
    register_many();
    e = ecs_create(w);
    CHECK(ecs_add_n(w, e, ECS_MAX_TERMS, comps, NULL)); /* ECS_MAX_TERMS is fine */
    it = ecs_view_of(w, ECS_MAX_TERMS, comps);
    CHECK(ecs_iter_next(&it) && ecs_iter_entity(&it) == e && !ecs_iter_next(&it));
    ecs_add(w, e, comps[ECS_MAX_TERMS], NULL);
    EXPECT_REFUSED((it = ecs_view_of(w, NCOMPS, comps), !ecs_iter_next(&it)), ECS_ERR_INVALID, "ecs_view_of");
    EXPECT_REFUSED((it = ecs_view_of(w, UINT32_MAX, comps), !ecs_iter_next(&it)), ECS_ERR_INVALID, "ecs_view_of");
    EXPECT_REFUSED((it = ecs_view_of(w, 0x80000000u, comps), !ecs_iter_next_block(&it)), ECS_ERR_INVALID,
                   "ecs_view_of");
    free(comps);
    comps = NULL;
    TEARDOWN_CLEAN();
}

/* A bundle is not limited to ECS_MAX_TERMS (that is a view's limit), but it
   lists each registered component at most once: a count above
   ecs_component_max is refused before comps is read past its end. */
static void test_bundles_take_more_than_max_terms_but_not_more_than_registered(void) {
    ecs_entity e, ids[3];
    int i;
    register_many();
    e = ecs_create(w);
    EXPECT_REFUSED(!ecs_add_n(w, e, UINT32_MAX, comps, NULL), ECS_ERR_INVALID, "ecs_add_n");
    EXPECT_REFUSED(!ecs_add_n(w, e, NCOMPS + 1, comps, NULL), ECS_ERR_INVALID, "ecs_add_n");
    EXPECT_REFUSED(ecs_create_n(w, UINT32_MAX, comps, NULL) == ECS_NULL, ECS_ERR_INVALID, "ecs_create_n");
    EXPECT_REFUSED(!ecs_create_bulk(w, 3, UINT32_MAX, comps, NULL, ids), ECS_ERR_INVALID, "ecs_create_bulk");
    CHECK_EQ(ecs_count(w), 1);
    for (i = 0; i < NCOMPS; i++) CHECK_EQ(ecs_storage_count(ecs_storage_of(w, comps[i])), 0);
    CHECK(ecs_add_n(w, e, NCOMPS, comps, NULL)); /* ECS_MAX_TERMS + 1 distinct components */
    CHECK_NE(ecs_create_n(w, NCOMPS, comps, NULL), ECS_NULL);
    CHECK(ecs_create_bulk(w, 3, NCOMPS, comps, NULL, ids));
    CHECK_EQ(ecs_count(w), 5);
    for (i = 0; i < NCOMPS; i++) CHECK(ecs_has(w, e, comps[i]) && ecs_has(w, ids[2], comps[i]) &&
                                       ecs_storage_count(ecs_storage_of(w, comps[i])) == 5);
    free(comps);
    comps = NULL;
    TEARDOWN_CLEAN();
}

/* ---- iterator slices ---------------------------------------------------------------------------- */

/* 70000 rows in 70001 slices: rows * k passes 2^32 for k above 61356, so a
   32-bit product would misplace the later slices. Every row is walked by
   exactly one slice. */
static void test_iter_chunk_with_nchunks_past_2_32_over_rows_covers_every_row_once(void) {
    enum { ROWS = 70000 };
    ecs_component pos;
    unsigned char *seen;
    uint32_t n = ROWS + 1, k, total = 0, most = 0;
    ecs_iter it;
    metered((size_t)64 << 20, 0, 0, 0);
    pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    CHECK(ecs_create_bulk(w, ROWS, 1, &pos, NULL, NULL));
    for (k = 0; k < ROWS; k++) ((Val *)ecs_storage_data(ecs_storage_of(w, pos)))[k].v = (int)k;
    seen = (unsigned char *)calloc(ROWS, 1);
    for (k = 0; k < n; k++) {
        uint32_t got = 0;
        it = ecs_view_of(w, 1, &pos);
        CHECK(ecs_iter_chunk(&it, k, n));
        while (ecs_iter_next(&it)) {
            seen[ECS_FIELD(&it, 0, Val)->v]++;
            got++;
        }
        total += got;
        most = got > most ? got : most;
    }
    for (k = 0; k < ROWS; k++) CHECK_EQ(seen[k], 1);
    CHECK(total == ROWS && most == 1);
    /* near 2^32 slices of 70000 rows: none holds two rows */
    for (k = 0; k < 8; k++) {
        static const uint32_t at[8] = {0, 1, 0x55555555u, 0x7fffffffu, 0x80000000u, 0xfffffff0u, 0xfffffffdu,
                                       0xfffffffeu};
        uint32_t got = 0;
        it = ecs_view_of(w, 1, &pos);
        CHECK(ecs_iter_chunk(&it, at[k], UINT32_MAX));
        while (ecs_iter_next(&it)) got++;
        CHECK_LE(got, 1);
    }
    free(seen);
    TEARDOWN_CLEAN();
}


int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_create_bulk_of_nearly_uint32_max_entities_fails_cleanly_without_wrapping);
    RUN(test_creating_beyond_max_entities_is_refused_exhausted_and_keeps_no_memory);
    RUN(test_register_refuses_sizes_above_0xffffffff);
    RUN(test_a_component_of_nearly_4_gib_fails_cleanly_everywhere);
    RUN(test_defer_add_of_a_big_component_with_a_failing_allocator_leaves_the_queue_unchanged);
    RUN(test_workload_new_above_2_24_steps_is_refused_invalid_and_keeps_no_memory);
    RUN(test_workload_new_of_exactly_2_24_steps_out_of_memory_frees_what_it_took);
    RUN(test_view_of_with_more_than_max_terms_is_refused);
    RUN(test_iter_chunk_with_nchunks_past_2_32_over_rows_covers_every_row_once);
    /* last: while these are not refused, the calls with n = UINT32_MAX read
       past comps (ASan ends the process) */
    RUN(test_bundles_take_more_than_max_terms_but_not_more_than_registered);
    teardown();
    return test_summary();
}
