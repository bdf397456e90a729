/* Forged entity ids (section 4): any 64-bit value may be passed where an
   entity is expected, and one that was never handed out is treated like a
   stale id. Every public function that takes an ecs_entity, given values
   that are not a live entity:

     the null entity; a destroyed id; a free slot's version word with its
     free bit (the version's top bit) set; a live id with the top bit set;
     a live id with version + 1; version 0; versions above ECS_VERSION_MAX;
     indices past every slot (on a page nobody has, 0xfffffffe, 0xffffffff);
     UINT64_MAX; a free slot's next id

   answers like a stale id:
     reads (alive, has, get, get_mut, the storage and typed forms,
     was_inserted, was_modified, mark_modified)   false / NULL, no error
     remove, delete, strip, destroy               false / 0, no error,
                                                  ecs_count unchanged
     add, ECS_ADD, add_n, add_if_changed,         failure, ECS_ERR_DEAD_ENTITY,
     ECS_ADD_IF_CHANGED, defer_add, ECS_DEFER_ADD assert naming the id
     defer_destroy, defer_remove, defer_delete    what a stale id gets; the
                                                  flush applies nothing
     ecs_entity_str                               "index:version" ("null")
   and nothing is aliased: no hook runs, nothing is recorded, the next
   ecs_create returns an id unlike every refused value (except a free
   slot's next id, which is exactly what that slot hands out next), and an
   id that becomes valid later inherits nothing from the calls made before
   (no component, no deferred command). Destroying twice never changes
   ecs_count.

   Run one test alone with `test_forged_ids <test name>`. */
#include "test.h"
#include "../ecs.h"

typedef struct { int v; } Val;

/* ---- checking an answer (test_names is in tests/test.h) --------------------------- */

/* expr must hold and assert once naming call, entity e and component comp;
   the error is ECS_ERR_DEAD_ENTITY with the asserted message. */
#define EXPECT_DEAD(expr, call, e, comp)                                                        \
    do {                                                                                        \
        char es_[ECS_ENTITY_STR];                                                               \
        ecs_entity_str((e), es_);                                                               \
        ecs_clear_error(w);                                                                     \
        EXPECT_ASSERT(expr, "");                                                                \
        if (!test_names(test__assert_msg, (call), es_, (comp))) {                                    \
            printf("  %s:%d: the assert \"%s\" does not name %s, entity %s, %s\n", __FILE__,    \
                   __LINE__, test__assert_msg, (call), es_, (comp) ? (const char *)(comp) : "-"); \
            test__failed = 1;                                                                   \
            return;                                                                             \
        }                                                                                       \
        CHECK(ecs_last_error(w) == ECS_ERR_DEAD_ENTITY);                                        \
        CHECK(strcmp(ecs_last_error_msg(w), test__assert_msg) == 0);                            \
    } while (0)

/* expr must hold with no assert (the harness fails unexpected ones) and no error. */
#define EXPECT_QUIET(expr)                                                                      \
    do {                                                                                        \
        ecs_clear_error(w);                                                                     \
        CHECK(expr);                                                                            \
        CHECK(ecs_last_error(w) == ECS_OK);                                                     \
    } while (0)

/* ---- the world and the forged values -------------------------------------------------- */

static ecs_world *w;
static ecs_component pos, tag;
static ecs_entity stale, live, mate; /* stale: slot 0, destroyed once; live: slot 1; mate: slot 2 */
static int hook_calls;

static void count_hook(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)hw, (void)e, (void)c, (void)value, (void)user;
    hook_calls++;
}

#define NFORGED 14
#define NEXT_OF_FREE_SLOT 13 /* forged[13]: slot 0's next id */
static ecs_entity forged[NFORGED];
static const char *const forged_what[NFORGED] = {
    "the null entity",
    "a destroyed id",
    "a free slot's version word, free bit (top bit) set",
    "a live id with the top bit set",
    "a live id with version + 1",
    "version 0 of a live slot",
    "version ECS_VERSION_MAX of a live slot",
    "version 0xffffffff of a live slot",
    "an index past every slot",
    "an index on a page nobody has",
    "index 0xfffffffe",
    "index 0xffffffff",
    "UINT64_MAX",
    "a free slot's next id",
};

static void teardown(void) {
    ecs_world_free(w);
    w = NULL;
}

/* Pos (tracked, with hooks that count) and Tag; live has Pos {1} and Tag,
   mate has Pos {2}; slot 0 was destroyed once and is the only free slot. */
static void setup(void) {
    ecs_hooks h = {0};
    teardown();
    w = ecs_world_new(NULL);
    pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    tag = ecs_register(w, "Tag", 0, 0);
    stale = ecs_create(w);
    live = ecs_create(w);
    mate = ecs_create(w);
    ECS_ADD(w, live, pos, Val, {1});
    ecs_add(w, live, tag, NULL);
    ECS_ADD(w, mate, pos, Val, {2});
    ecs_destroy(w, stale);
    ecs_track_set(w, pos, ECS_TRACK_ALL);
    memset(&h, 0, sizeof h);
    h.on_insert = count_hook;
    h.on_remove = count_hook;
    ecs_hooks_set(w, pos, &h);
    ecs_hooks_set(w, tag, &h);
    hook_calls = 0;
    forged[0] = ECS_NULL;
    forged[1] = stale;
    forged[2] = ((ecs_entity)0x80000002u << 32) | 0u;
    forged[3] = live | 0x8000000000000000u;
    forged[4] = live + ((ecs_entity)1 << 32);
    forged[5] = (ecs_entity)ECS_ENTITY_INDEX(live);
    forged[6] = ((ecs_entity)ECS_VERSION_MAX << 32) | ECS_ENTITY_INDEX(live);
    forged[7] = ((ecs_entity)0xffffffffu << 32) | ECS_ENTITY_INDEX(live);
    forged[8] = ((ecs_entity)1 << 32) | 100u;
    forged[9] = ((ecs_entity)1 << 32) | 5000000u;
    forged[10] = ((ecs_entity)1 << 32) | 0xfffffffeu;
    forged[11] = ((ecs_entity)1 << 32) | 0xffffffffu;
    forged[12] = UINT64_MAX;
    forged[13] = ((ecs_entity)2 << 32) | 0u;
}

/* The world is as setup left it: nothing added, removed, recorded or hooked. */
static int untouched(void) {
    uint32_t removed = 9, deleted = 9;
    ecs_track_removed(w, pos, 0, &removed);
    ecs_track_deleted(w, pos, 0, &deleted);
    return ecs_count(w) == 2 && ecs_alive(w, live) && ecs_alive(w, mate) && ECS_GET(w, live, pos, Val)->v == 1 &&
           ecs_has(w, live, tag) && ECS_GET(w, mate, pos, Val)->v == 2 && !ecs_has(w, mate, tag) &&
           ecs_storage_count(ecs_storage_of(w, pos)) == 2 && ecs_storage_count(ecs_storage_of(w, tag)) == 1 &&
           removed == 0 && deleted == 0 && hook_calls == 0 && ecs_defer_pending(w) == 0;
}

/* Runs the checks of one forged value; on a failure, says which. */
#define FOR_EACH_FORGED(k)                                                                      \
    for (k = 0; k < NFORGED && !test__failed; k++)
#define SAY_WHICH(k)                                                                            \
    do {                                                                                        \
        if (test__failed) {                                                                     \
            char s_[ECS_ENTITY_STR];                                                            \
            printf("  (forged id %s: %s)\n", ecs_entity_str(forged[k], s_), forged_what[k]);    \
            return;                                                                             \
        }                                                                                       \
    } while (0)

/* ---- the tests ---------------------------------------------------------------------------- */

static void reads_of(ecs_entity f) {
    ecs_storage *s = ecs_storage_of_mut(w, pos);
    const ecs_storage *t = ecs_storage_of(w, tag);
    EXPECT_QUIET(!ecs_alive(w, f));
    EXPECT_QUIET(!ecs_has(w, f, pos) && !ecs_has(w, f, tag));
    EXPECT_QUIET(ecs_get(w, f, pos) == NULL && ecs_get(w, f, tag) == NULL);
    EXPECT_QUIET(ecs_get_mut(w, f, pos) == NULL && ecs_get_mut(w, f, tag) == NULL);
    EXPECT_QUIET(ECS_GET(w, f, pos, Val) == NULL && ECS_GET_MUT(w, f, pos, Val) == NULL);
    EXPECT_QUIET(ecs_storage_get(s, f) == NULL && ecs_storage_get_mut(s, f) == NULL && ecs_storage_get(t, f) == NULL);
    EXPECT_QUIET(ECS_STORAGE_GET(s, f, Val) == NULL && ECS_STORAGE_GET_MUT(s, f, Val) == NULL);
    EXPECT_QUIET(!ecs_storage_has(s, f) && !ecs_storage_has(t, f));
    EXPECT_QUIET(!ecs_track_inserted(w, f, pos, 0) && !ecs_track_inserted(w, f, pos, 1));
    EXPECT_QUIET(!ecs_track_modified(w, f, pos, 0) && !ecs_track_modified(w, f, pos, 1));
    EXPECT_QUIET(!ecs_track_mark_modified(w, f, pos) && !ecs_track_mark_modified(w, f, tag));
}

static void test_forged_ids_read_as_absent(void) {
    int k;
    setup();
    FOR_EACH_FORGED(k) {
        reads_of(forged[k]);
        SAY_WHICH(k);
    }
    CHECK(untouched());
    teardown();
}

static void removals_of(ecs_entity f) {
    Val out = {77};
    EXPECT_QUIET(!ecs_remove(w, f, pos, &out) && out.v == 77);
    EXPECT_QUIET(!ECS_REMOVE(w, f, pos, Val, &out) && out.v == 77);
    EXPECT_QUIET(!ecs_remove(w, f, tag, NULL));
    EXPECT_QUIET(!ecs_delete(w, f, pos) && !ecs_delete(w, f, tag));
    EXPECT_QUIET(ecs_strip(w, f) == 0);
    EXPECT_QUIET(!ecs_destroy(w, f));
    CHECK_EQ(ecs_count(w), 2);
}

static void test_forged_ids_remove_strip_and_destroy_nothing(void) {
    int k;
    setup();
    FOR_EACH_FORGED(k) {
        removals_of(forged[k]);
        SAY_WHICH(k);
    }
    CHECK(untouched());
    teardown();
}

static void adds_of(ecs_entity f) {
    Val v = {9};
    const void *vals[2];
    ecs_component both[2];
    both[0] = pos;
    both[1] = tag;
    vals[0] = &v;
    vals[1] = NULL;
    EXPECT_DEAD(ecs_add(w, f, pos, &v) == NULL, "ecs_add", f, "Pos");
    EXPECT_DEAD(ecs_add(w, f, tag, NULL) == NULL, "ecs_add", f, "Tag");
    EXPECT_DEAD(ECS_ADD(w, f, pos, Val, {9}) == NULL, "ECS_ADD", f, "Pos");
    EXPECT_DEAD(!ecs_add_n(w, f, 2, both, vals), "ecs_add_n", f, NULL);
    EXPECT_DEAD(!ecs_add_if_changed(w, f, pos, &v), "ecs_add_if_changed", f, "Pos");
    EXPECT_DEAD(!ECS_ADD_IF_CHANGED(w, f, pos, Val, {9}), "ECS_ADD_IF_CHANGED", f, "Pos");
    EXPECT_DEAD(!ecs_defer_add(w, f, pos, &v), "ecs_defer_add", f, "Pos");
    EXPECT_DEAD(!ECS_DEFER_ADD(w, f, pos, Val, {9}), "ECS_DEFER_ADD", f, "Pos");
}

static void test_forged_ids_are_refused_by_every_add_with_dead_entity(void) {
    int k;
    setup();
    FOR_EACH_FORGED(k) {
        adds_of(forged[k]);
        SAY_WHICH(k);
    }
    CHECK(untouched()); /* nothing queued either */
    teardown();
}

/* f's destroy, remove and delete commands, each next to the same for a
   stale id: the same answer, error, asserts and growth of the queue; or,
   for a value no entity ever had (which a later entity could get),
   false with nothing recorded, no error and no assert (section 2). */
static void deferred_of(ecs_entity f) {
    uint32_t before = ecs_defer_pending(w), pf, ps;
    bool rf, rs;
    ecs_error ef, es;
#define COMPARE(expr_f, expr_s)                                                                 \
    do {                                                                                        \
        int af_, as_;                                                                           \
        ecs_clear_error(w);                                                                     \
        af_ = test__asserts;                                                                    \
        rf = (expr_f);                                                                          \
        af_ = test__asserts - af_;                                                              \
        ef = ecs_last_error(w);                                                                 \
        pf = ecs_defer_pending(w);                                                              \
        ecs_clear_error(w);                                                                     \
        as_ = test__asserts;                                                                    \
        rs = (expr_s);                                                                          \
        as_ = test__asserts - as_;                                                              \
        es = ecs_last_error(w);                                                                 \
        ps = ecs_defer_pending(w);                                                              \
        test__expected += af_ + as_;                                                            \
        CHECK((!rf && ef == ECS_OK && af_ == 0 && pf == before) ||                                \
              (rf == rs && ef == es && af_ == as_ && pf - before == ps - pf));                  \
        before = ps;                                                                            \
    } while (0)
    COMPARE(ecs_defer_destroy(w, f), ecs_defer_destroy(w, stale));
    COMPARE(ecs_defer_remove(w, f, pos), ecs_defer_remove(w, stale, pos));
    COMPARE(ecs_defer_delete(w, f, tag), ecs_defer_delete(w, stale, tag));
#undef COMPARE
}

static void test_forged_ids_in_deferred_commands_answer_like_a_stale_id_and_the_flush_applies_nothing(void) {
    int k;
    setup();
    FOR_EACH_FORGED(k) {
        deferred_of(forged[k]);
        SAY_WHICH(k);
    }
    EXPECT_QUIET(ecs_flush(w) == 0 && ecs_defer_pending(w) == 0);
    CHECK(untouched());
    teardown();
}

static void test_entity_str_formats_any_64_bit_value(void) {
    char *buf = (char *)malloc(ECS_ENTITY_STR); /* exactly the documented size: ASan sees any overflow */
    static const char *const want[NFORGED] = {
        "null", "0:1", "0:2147483650", "1:2147483649", "1:2", "1:0", "1:2147483647", "1:4294967295",
        "100:1", "5000000:1", "4294967294:1", "4294967295:1", "4294967295:4294967295", "0:2",
    };
    int k;
    setup();
    CHECK_PTR_NE(buf, NULL);
    FOR_EACH_FORGED(k) {
        CHECK_PTR_EQ(ecs_entity_str(forged[k], buf), buf);
        if (strcmp(buf, want[k]) != 0) {
            printf("  %s:%d: ecs_entity_str gave \"%s\", not \"%s\"\n", __FILE__, __LINE__, buf, want[k]);
            test__failed = 1;
        }
        SAY_WHICH(k);
    }
    free(buf);
    teardown();
}

/* After every refused call above, the next ecs_create: a new id, unlike
   each refused value (slot 0's next id excepted: it is exactly that id),
   with no component. */
static void test_the_next_entity_differs_from_every_refused_forged_id_and_inherits_nothing(void) {
    ecs_entity e;
    int k;
    setup();
    FOR_EACH_FORGED(k) {
        reads_of(forged[k]);
        removals_of(forged[k]);
        adds_of(forged[k]);
        deferred_of(forged[k]);
        SAY_WHICH(k);
    }
    ecs_flush(w);
    CHECK(untouched());
    e = ecs_create(w);
    CHECK(e != ECS_NULL && ecs_alive(w, e) && ecs_count(w) == 3);
    for (k = 0; k < NFORGED; k++)
        if (k != NEXT_OF_FREE_SLOT && e == forged[k]) {
            printf("  %s:%d: ecs_create returned a refused id (%s)\n", __FILE__, __LINE__, forged_what[k]);
            test__failed = 1;
        }
    CHECK_EQ(e, forged[NEXT_OF_FREE_SLOT]); /* why that one is excepted */
    CHECK(!ecs_has(w, e, pos) && !ecs_has(w, e, tag) && ecs_get(w, e, pos) == NULL);
    CHECK(!ecs_track_inserted(w, e, pos, 0) && hook_calls == 0);
    CHECK(ECS_GET(w, live, pos, Val)->v == 1 && ECS_GET(w, mate, pos, Val)->v == 2);
    teardown();
}

static void test_destroying_twice_never_changes_the_count(void) {
    ecs_entity again;
    setup();
    CHECK(ecs_destroy(w, live) && ecs_count(w) == 1);
    EXPECT_QUIET(!ecs_destroy(w, live) && ecs_count(w) == 1);
    EXPECT_QUIET(!ecs_destroy(w, live | 0x8000000000000000u) && ecs_count(w) == 1);
    EXPECT_QUIET(!ecs_destroy(w, live + ((ecs_entity)1 << 32)) && ecs_count(w) == 1); /* slot 1's next id */
    EXPECT_QUIET(ecs_strip(w, live) == 0 && ecs_count(w) == 1);
    again = ecs_create(w); /* slot 0 */
    CHECK(again != ECS_NULL && ecs_count(w) == 2);
    EXPECT_QUIET(!ecs_destroy(w, stale) && !ecs_destroy(w, live) && ecs_count(w) == 2);
    CHECK(ecs_destroy(w, again) && !ecs_destroy(w, again) && ecs_count(w) == 1);
    CHECK(ecs_alive(w, mate) && ECS_GET(w, mate, pos, Val)->v == 2);
    teardown();
}

/* Ids that are not alive now but will be: slot 0's next id (the head of
   the free queue) and the next fresh slot's. What was refused or recorded
   for them before they existed does not reach the entities that get them. */
static void test_an_id_that_becomes_valid_later_inherits_nothing_from_before(void) {
    ecs_entity f1, f2, a, b;
    Val v = {9};
    setup();
    f1 = forged[NEXT_OF_FREE_SLOT];
    f2 = ((ecs_entity)1 << 32) | 3u; /* slots 0..2 are taken: the next fresh one */
    EXPECT_DEAD(ecs_add(w, f1, pos, &v) == NULL, "ecs_add", f1, "Pos");
    EXPECT_DEAD(!ecs_add_n(w, f2, 1, &tag, NULL), "ecs_add_n", f2, "Tag");
    EXPECT_DEAD(!ecs_defer_add(w, f2, pos, &v), "ecs_defer_add", f2, "Pos");
    ecs_defer_destroy(w, f1);      /* recorded or not, like for a stale id */
    ecs_defer_delete(w, f1, pos);
    ecs_defer_remove(w, f2, pos);
    a = ecs_create(w);
    b = ecs_create(w);
    CHECK(a == f1 && b == f2); /* they did become valid */
    CHECK(!ecs_has(w, a, pos) && !ecs_has(w, a, tag) && !ecs_has(w, b, pos) && !ecs_has(w, b, tag));
    CHECK(ECS_ADD(w, a, pos, Val, {10}) && ecs_add(w, a, tag, NULL) && ECS_ADD(w, b, pos, Val, {11}));
    ecs_flush(w); /* the commands were for ids that were not alive then */
    CHECK(ecs_alive(w, a) && ECS_GET(w, a, pos, Val)->v == 10 && ecs_has(w, a, tag));
    CHECK(ecs_alive(w, b) && ECS_GET(w, b, pos, Val)->v == 11);
    CHECK_EQ(ecs_count(w), 4);
    teardown();
}


int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_forged_ids_read_as_absent);
    RUN(test_forged_ids_remove_strip_and_destroy_nothing);
    RUN(test_forged_ids_are_refused_by_every_add_with_dead_entity);
    RUN(test_forged_ids_in_deferred_commands_answer_like_a_stale_id_and_the_flush_applies_nothing);
    RUN(test_entity_str_formats_any_64_bit_value);
    RUN(test_the_next_entity_differs_from_every_refused_forged_id_and_inherits_nothing);
    RUN(test_destroying_twice_never_changes_the_count);
    RUN(test_an_id_that_becomes_valid_later_inherits_nothing_from_before);
    teardown();
    return test_summary();
}
