/* NULL for every pointer parameter of every public function (the list of
   `grep -n "^ECS_API" ecs.h`, and the inline functions of sections 5-7).

     a NULL world given to a function that is not inline    assert naming the
                                                            call and the world;
                                                            the failure value
     a pointer documented as optional (value: zeroed; out,  what the docs say
     values, values[i], ctx, user, count, run_if; hooks:
     clears; desc of ecs_world_new; out of ecs_create_bulk
     and ecs_workload_plan; name: the default workload;
     comps and items when n is 0), ecs_lookup(w, NULL): 0
     with no error, ecs_world_free(NULL): nothing
     any other NULL pointer                                 the failure value,
                                                            ECS_ERR_INVALID in
                                                            the world if there
                                                            is one, an assert
                                                            naming the call and
                                                            the argument

   Failure values: false, NULL, 0, ECS_NULL, -1 for ecs_workload_run, and
   for the calls that return an iterator one that yields nothing. A NULL
   world leaves every other world alone. Not covered: the inline functions
   that take the world (ecs_alive, ecs_create, ecs_add, ecs_get, ecs_get_mut,
   ecs_has, ecs_remove, ecs_delete, ecs_add_n, ecs_create_n, ecs_storage_of
   and the typed macros over them) and the iterator steps (ecs_iter_next,
   ecs_iter_next_block, ecs_iter_entity), which read their argument first
   thing; section 2 leaves those undefined.

   Run one test alone with `test_null_args <test name>`. */
#include "test.h"
#include "../ecs.h"
#include <ctype.h>

typedef struct { int v; } Val;

/* ---- checking an answer --------------------------------------------------------- */

/* Is `word` in msg, not as part of a longer identifier? */
static int has_word(const char *msg, const char *word) {
    size_t n = strlen(word);
    const char *p;
    for (p = msg; (p = strstr(p, word)) != NULL; p++) {
        int before = p == msg || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (before && after) return 1;
    }
    return 0;
}

/* Does msg start with `call` (then '(' or ':') and name the argument, as
   one of the '|'-separated words of `arg` ("world|w": either)? */
static int names_arg(const char *msg, const char *call, const char *arg) {
    char word[32];
    size_t n = strlen(call);
    const char *a = arg;
    if (strncmp(msg, call, n) != 0 || (msg[n] != '(' && msg[n] != ':')) return 0;
    while (*a) {
        size_t k = strcspn(a, "|");
        snprintf(word, sizeof word, "%.*s", (int)k, a);
        if (has_word(msg, word)) return 1;
        a += k + (a[k] == '|');
    }
    return 0;
}

/* expr must hold and assert exactly once with a message that starts with
   call and names the argument; with a world rw, the error is
   ECS_ERR_INVALID with the asserted message. */
#define EXPECT_ARG_REFUSED(rw, expr, call, arg)                                                 \
    do {                                                                                        \
        ecs_world *rw_ = (rw);                                                                  \
        if (rw_) ecs_clear_error(rw_);                                                          \
        EXPECT_ASSERT(expr, "");                                                                \
        if (!names_arg(test__assert_msg, (call), (arg))) {                                      \
            printf("  %s:%d: the assert \"%s\" does not name %s and %s\n", __FILE__, __LINE__,  \
                   test__assert_msg, (call), (arg));                                            \
            test__failed = 1;                                                                   \
            return;                                                                             \
        }                                                                                       \
        if (rw_) {                                                                              \
            CHECK(ecs_last_error(rw_) == ECS_ERR_INVALID);                                      \
            CHECK(strcmp(ecs_last_error_msg(rw_), test__assert_msg) == 0);                      \
        }                                                                                       \
    } while (0)
#define EXPECT_NO_WORLD(expr, call) EXPECT_ARG_REFUSED(NULL, expr, call, "world|w")

/* expr must hold with no assert (the harness fails unexpected ones) and no error. */
#define EXPECT_QUIET(rw, expr)                                                                  \
    do {                                                                                        \
        ecs_clear_error(rw);                                                                    \
        CHECK(expr);                                                                            \
        CHECK(ecs_last_error(rw) == ECS_OK);                                                    \
    } while (0)

/* An iterator that yields nothing, in each loop form. */
static int yields_nothing(ecs_iter it) {
    ecs_iter a = it, b = it, c = it;
    int n = 0;
    if (ecs_iter_next(&a) || ecs_iter_next_block(&b)) return 0;
    ECS_EACH(&c) n++;
    return n == 0;
}

/* ---- a world ----------------------------------------------------------------------- */

static ecs_world *w;
static ecs_component pos, tag;
static ecs_entity e1, e2; /* e1: Pos {1}; e2: Pos {2} and Tag */

static void teardown(void) {
    ecs_world_free(w);
    w = NULL;
}

static void setup(void) {
    teardown();
    w = ecs_world_new(NULL);
    pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    tag = ecs_register(w, "Tag", 0, 0);
    e1 = ecs_create(w);
    ECS_ADD(w, e1, pos, Val, {1});
    e2 = ecs_create(w);
    ECS_ADD(w, e2, pos, Val, {2});
    ecs_add(w, e2, tag, NULL);
}

/* The world is as setup left it. */
static int untouched(void) {
    return ecs_count(w) == 2 && ecs_storage_count(ecs_storage_of(w, pos)) == 2 && ECS_GET(w, e1, pos, Val)->v == 1 &&
           ECS_GET(w, e2, pos, Val)->v == 2 && ecs_has(w, e2, tag) && !ecs_has(w, e1, tag) &&
           ecs_component_max(w) == 2 && ecs_defer_pending(w) == 0;
}

static int calls;
static void count_call(ecs_iter *it, void *ctx) {
    (void)it;
    calls++;
    if (ctx) ++*(int *)ctx;
}

static int by_v(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    (void)a, (void)b;
    if (ctx) ++*(int *)ctx;
    return ((const Val *)va)->v - ((const Val *)vb)->v;
}

static int ran;
static int run_system(const ecs_system_ctx *ctx) {
    ran++;
    return ctx->user == NULL ? 0 : 1;
}

static ecs_system_desc sys(const char *name, ecs_system_fn fn) {
    ecs_system_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.fn = fn;
    return d;
}

/* ---- 2. errors, 3. world --------------------------------------------------------------- */

static void test_null_world_to_the_error_calls_asserts(void) {
    const char *msg;
    setup();
    EXPECT_NO_WORLD((ecs_last_error(NULL), 1), "ecs_last_error");
    EXPECT_NO_WORLD((msg = ecs_last_error_msg(NULL), 1), "ecs_last_error_msg");
    CHECK(msg == NULL || strlen(msg) < 1000); /* NULL, or a string */
    EXPECT_NO_WORLD((ecs_clear_error(NULL), 1), "ecs_clear_error");
    CHECK(ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

static void test_world_new_with_null_desc_makes_the_default_world(void) {
    ecs_world *d = ecs_world_new(NULL);
    ecs_component c;
    ecs_entity e;
    CHECK_PTR_NE(d, NULL);
    c = ecs_register(d, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    e = ecs_create(d);
    CHECK(c == 1 && e != ECS_NULL && ECS_ADD(d, e, c, Val, {3}) != NULL && ecs_count(d) == 1);
    CHECK_EQ(ecs_last_error(d), ECS_OK);
    ecs_world_free(d);
}

static void test_world_free_of_null_does_nothing(void) {
    ecs_world_free(NULL); /* no assert (the harness would fail it), no crash */
    CHECK_EQ(test__asserts, 0);
}

/* ---- 4. entities -------------------------------------------------------------------- */

static void test_null_world_to_the_entity_calls_asserts(void) {
    setup();
    EXPECT_NO_WORLD(!ecs_destroy(NULL, e1), "ecs_destroy");
    EXPECT_NO_WORLD(ecs_count(NULL) == 0, "ecs_count");
    CHECK(ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

static void test_entity_str_with_null_buf_is_refused(void) {
    setup();
    EXPECT_ARG_REFUSED(NULL, ecs_entity_str(e1, NULL) == NULL, "ecs_entity_str", "buf");
    EXPECT_ARG_REFUSED(NULL, ecs_entity_str(ECS_NULL, NULL) == NULL, "ecs_entity_str", "buf");
    teardown();
}

/* ---- 5. components and storages ---------------------------------------------------- */

static void test_null_world_to_the_component_calls_asserts(void) {
    setup();
    EXPECT_NO_WORLD(ecs_register(NULL, "Vel", 4, 4) == 0, "ecs_register");
    EXPECT_NO_WORLD(ecs_lookup(NULL, "Pos") == 0, "ecs_lookup");
    EXPECT_NO_WORLD(ecs_component_name(NULL, pos) == NULL, "ecs_component_name");
    EXPECT_NO_WORLD(ecs_component_size(NULL, pos) == 0, "ecs_component_size");
    EXPECT_NO_WORLD(ecs_component_max(NULL) == 0, "ecs_component_max");
    CHECK(ecs_last_error(w) == ECS_OK && untouched() && ecs_lookup(w, "Vel") == 0);
    teardown();
}

static void test_register_with_null_name_is_refused_invalid(void) {
    setup();
    EXPECT_ARG_REFUSED(w, ecs_register(w, NULL, sizeof(Val), ECS_ALIGNOF(Val)) == 0, "ecs_register", "name");
    EXPECT_ARG_REFUSED(w, ecs_register(w, NULL, 0, 0) == 0, "ecs_register", "name");
    CHECK(untouched());
    teardown();
}

static void test_lookup_of_null_name_returns_zero_quietly(void) {
    setup();
    EXPECT_QUIET(w, ecs_lookup(w, NULL) == 0);
    teardown();
}

static void test_storage_calls_with_null_storage_are_refused(void) {
    setup();
    EXPECT_ARG_REFUSED(NULL, ecs_storage_get(NULL, e1) == NULL, "ecs_storage_get", "s|storage");
    EXPECT_ARG_REFUSED(NULL, ecs_storage_get_mut(NULL, e1) == NULL, "ecs_storage_get_mut", "s|storage");
    EXPECT_ARG_REFUSED(NULL, !ecs_storage_has(NULL, e1), "ecs_storage_has", "s|storage");
    EXPECT_ARG_REFUSED(NULL, ecs_storage_count(NULL) == 0, "ecs_storage_count", "s|storage");
    EXPECT_ARG_REFUSED(NULL, ecs_storage_entities(NULL) == NULL, "ecs_storage_entities", "s|storage");
    EXPECT_ARG_REFUSED(NULL, ecs_storage_data(NULL) == NULL, "ecs_storage_data", "s|storage");
    EXPECT_ARG_REFUSED(NULL, ECS_STORAGE_GET(NULL, e1, Val) == NULL, "ECS_STORAGE_GET", "s|storage");
    EXPECT_ARG_REFUSED(NULL, ECS_STORAGE_GET_MUT(NULL, e1, Val) == NULL, "ECS_STORAGE_GET_MUT", "s|storage");
    CHECK(ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

/* ---- 6. component operations -------------------------------------------------------- */

static void test_null_world_to_the_component_operations_asserts(void) {
    ecs_entity out[2];
    setup();
    EXPECT_NO_WORLD(ecs_strip(NULL, e1) == 0, "ecs_strip");
    EXPECT_NO_WORLD(!ecs_create_bulk(NULL, 2, 1, &pos, NULL, out), "ecs_create_bulk");
    EXPECT_NO_WORLD(!ecs_add_if_changed(NULL, e1, pos, NULL), "ecs_add_if_changed");
    EXPECT_NO_WORLD(!ECS_ADD_IF_CHANGED(NULL, e1, pos, Val, {5}), "ECS_ADD_IF_CHANGED");
    CHECK(ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

static void test_null_comps_with_components_to_add_is_refused_invalid(void) {
    ecs_entity out[2];
    const Val v = {9};
    const void *vals[2];
    setup();
    vals[0] = vals[1] = &v;
    EXPECT_ARG_REFUSED(w, !ecs_add_n(w, e1, 2, NULL, vals), "ecs_add_n", "comps");
    EXPECT_ARG_REFUSED(w, ecs_create_n(w, 1, NULL, NULL) == ECS_NULL, "ecs_create_n", "comps");
    EXPECT_ARG_REFUSED(w, !ecs_create_bulk(w, 2, 2, NULL, vals, out), "ecs_create_bulk", "comps");
    CHECK(untouched());
    teardown();
}

static void test_null_optional_arguments_of_component_operations_behave_as_documented(void) {
    ecs_component both[2];
    const Val v = {9};
    const void *vals[2];
    ecs_entity e, ids[3];
    Val out = {0};
    setup();
    both[0] = pos;
    both[1] = tag;
    /* value NULL: zeroed */
    e = ecs_create(w);
    EXPECT_QUIET(w, ecs_add(w, e, pos, NULL) != NULL && ECS_GET(w, e, pos, Val)->v == 0);
    ECS_GET_MUT(w, e1, pos, Val)->v = 5;
    EXPECT_QUIET(w, ecs_add(w, e1, pos, NULL) != NULL && ECS_GET(w, e1, pos, Val)->v == 0); /* a replace too */
    EXPECT_QUIET(w, ecs_add_if_changed(w, e2, pos, NULL) && ECS_GET(w, e2, pos, Val)->v == 0);
    EXPECT_QUIET(w, !ecs_add_if_changed(w, e2, pos, NULL)); /* already zero: no change */
    /* out NULL: the value is dropped */
    EXPECT_QUIET(w, ecs_remove(w, e, pos, NULL) && !ecs_has(w, e, pos));
    EXPECT_QUIET(w, ECS_REMOVE(w, e2, pos, Val, NULL) && !ecs_has(w, e2, pos));
    EXPECT_QUIET(w, ecs_remove(w, e2, tag, &out) && out.v == 0); /* a tag leaves out alone */
    /* values NULL, values[i] NULL: zeroed */
    EXPECT_QUIET(w, ecs_add_n(w, e, 2, both, NULL) && ECS_GET(w, e, pos, Val)->v == 0 && ecs_has(w, e, tag));
    ecs_strip(w, e);
    vals[0] = NULL;
    vals[1] = &v;
    EXPECT_QUIET(w, ecs_add_n(w, e, 2, both, vals) && ECS_GET(w, e, pos, Val)->v == 0);
    EXPECT_QUIET(w, (e = ecs_create_n(w, 2, both, NULL)) != ECS_NULL && ECS_GET(w, e, pos, Val)->v == 0);
    /* out NULL: the ids are not kept */
    EXPECT_QUIET(w, ecs_create_bulk(w, 3, 2, both, NULL, NULL));
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, tag)), 5);
    EXPECT_QUIET(w, ecs_create_bulk(w, 3, 1, &pos, NULL, ids) && ECS_GET(w, ids[2], pos, Val)->v == 0);
    /* comps NULL with no component: plain entities */
    EXPECT_QUIET(w, ecs_add_n(w, e1, 0, NULL, NULL) && ecs_has(w, e1, pos));
    EXPECT_QUIET(w, (e = ecs_create_n(w, 0, NULL, NULL)) != ECS_NULL && ecs_alive(w, e));
    EXPECT_QUIET(w, ecs_create_bulk(w, 3, 0, NULL, NULL, ids) && ecs_alive(w, ids[0]) && ecs_alive(w, ids[2]));
    CHECK_EQ(ecs_count(w), 2 + 1 + 1 + 3 + 3 + 1 + 3);
    teardown();
}

/* ---- 7. views ------------------------------------------------------------------------- */

static void test_null_world_to_the_view_calls_asserts_and_yields_nothing(void) {
    ecs_view_desc d;
    ecs_iter it;
    setup();
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    calls = 0;
    EXPECT_NO_WORLD((it = ecs_view(NULL, &d), 1), "ecs_view");
    CHECK(yields_nothing(it));
    EXPECT_NO_WORLD((it = ecs_view_of(NULL, 1, &pos), 1), "ecs_view_of");
    CHECK(yields_nothing(it));
    /* a call that fails on such a view records its error nowhere: that
       view's world is shared by every thread that made one */
    EXPECT_ASSERT(!ecs_iter_chunk(&it, 3, 2), "ecs_iter_chunk");
    CHECK(ecs_last_error(it.world) == ECS_OK && ecs_last_error_msg(it.world)[0] == 0);
    EXPECT_NO_WORLD(ecs_visit(NULL, &d, count_call, NULL) == 0, "ecs_visit");
    CHECK(calls == 0 && ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

static void test_null_view_arguments_are_refused_invalid(void) {
    ecs_view_desc d;
    ecs_iter it;
    int n = 0;
    setup();
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    calls = 0;
    EXPECT_ARG_REFUSED(w, (it = ecs_view(w, NULL), 1), "ecs_view", "desc");
    CHECK(yields_nothing(it));
    EXPECT_ARG_REFUSED(w, (it = ecs_view_of(w, 2, NULL), 1), "ecs_view_of", "comps");
    CHECK(yields_nothing(it));
    EXPECT_ARG_REFUSED(w, ecs_visit(w, NULL, count_call, &n) == 0, "ecs_visit", "desc");
    EXPECT_ARG_REFUSED(w, ecs_visit(w, &d, NULL, &n) == 0, "ecs_visit", "fn");
    CHECK(calls == 0 && n == 0);
    EXPECT_ARG_REFUSED(NULL, !ecs_iter_chunk(NULL, 0, 2), "ecs_iter_chunk", "it|iterator");
    CHECK(untouched());
    teardown();
}

static void test_null_iterator_to_field_and_block_is_refused(void) {
    setup();
    EXPECT_ARG_REFUSED(NULL, ecs_field((ecs_iter *)NULL, 0) == NULL, "ecs_field", "it|iterator");
    EXPECT_ARG_REFUSED(NULL, ecs_block((ecs_iter *)NULL, 0) == NULL, "ecs_block", "it|iterator");
    EXPECT_ARG_REFUSED(NULL, ECS_FIELD((ecs_iter *)NULL, 0, Val) == NULL, "ECS_FIELD", "it|iterator");
    EXPECT_ARG_REFUSED(NULL, ECS_BLOCK((ecs_iter *)NULL, 0, Val) == NULL, "ECS_BLOCK", "it|iterator");
    teardown();
}

static void count_with_null_ctx(ecs_iter *it, void *ctx) {
    (void)it;
    if (ctx == NULL) calls++;
}

static void test_each_passes_a_null_ctx_through(void) {
    ecs_view_desc d;
    setup();
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    calls = 0;
    EXPECT_QUIET(w, ecs_visit(w, &d, count_with_null_ctx, NULL) == 2 && calls == 2);
    teardown();
}

/* ---- 8. command buffer ---------------------------------------------------------------- */

static void test_null_world_to_the_command_calls_asserts(void) {
    setup();
    EXPECT_NO_WORLD(ecs_defer_create(NULL) == ECS_NULL, "ecs_defer_create");
    EXPECT_NO_WORLD(!ecs_defer_destroy(NULL, e1), "ecs_defer_destroy");
    EXPECT_NO_WORLD(!ecs_defer_add(NULL, e1, pos, NULL), "ecs_defer_add");
    EXPECT_NO_WORLD(!ECS_DEFER_ADD(NULL, e1, pos, Val, {3}), "ECS_DEFER_ADD");
    EXPECT_NO_WORLD(!ecs_defer_remove(NULL, e1, pos), "ecs_defer_remove");
    EXPECT_NO_WORLD(!ecs_defer_delete(NULL, e1, pos), "ecs_defer_delete");
    EXPECT_NO_WORLD(ecs_defer_pending(NULL) == 0, "ecs_defer_pending");
    EXPECT_NO_WORLD(ecs_flush(NULL) == 0, "ecs_flush");
    CHECK(ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

static void test_defer_add_of_a_null_value_records_zeroes(void) {
    ecs_entity e;
    setup();
    e = ecs_create(w);
    EXPECT_QUIET(w, ecs_defer_add(w, e, pos, NULL) && ecs_defer_add(w, e1, pos, NULL));
    EXPECT_QUIET(w, ecs_flush(w) == 2 && ECS_GET(w, e, pos, Val)->v == 0 && ECS_GET(w, e1, pos, Val)->v == 0);
    teardown();
}

/* ---- 9. sorting ------------------------------------------------------------------------- */

static void test_null_world_to_the_sort_calls_asserts(void) {
    setup();
    EXPECT_NO_WORLD(!ecs_sort(NULL, pos, by_v, NULL), "ecs_sort");
    EXPECT_NO_WORLD(!ecs_sort_as(NULL, tag, pos), "ecs_sort_as");
    CHECK(ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

static void test_sort_with_null_cmp_is_refused_invalid_and_moves_nothing(void) {
    ecs_component empty;
    const ecs_entity *rows;
    int n = 0;
    setup();
    ECS_GET_MUT(w, e1, pos, Val)->v = 50; /* e1, e2 are out of order */
    rows = ecs_storage_entities(ecs_storage_of(w, pos));
    EXPECT_ARG_REFUSED(w, !ecs_sort(w, pos, NULL, NULL), "ecs_sort", "cmp|comparator");
    CHECK(rows[0] == e1 && rows[1] == e2);
    empty = ecs_register(w, "Empty", sizeof(Val), ECS_ALIGNOF(Val));
    EXPECT_ARG_REFUSED(w, !ecs_sort(w, empty, NULL, NULL), "ecs_sort", "cmp|comparator"); /* nothing to sort */
    /* ctx NULL is the comparator's business */
    EXPECT_QUIET(w, ecs_sort(w, pos, by_v, NULL) && rows[0] == e2 && rows[1] == e1);
    EXPECT_QUIET(w, ecs_sort(w, pos, by_v, &n) && n > 0);
    teardown();
}

/* ---- 10. uniques ------------------------------------------------------------------------ */

static void test_null_world_to_the_unique_calls_asserts(void) {
    setup();
    EXPECT_NO_WORLD(ecs_unique_add(NULL, pos, NULL) == NULL, "ecs_unique_add");
    EXPECT_NO_WORLD(ECS_UNIQUE_ADD(NULL, pos, Val, {1}) == NULL, "ECS_UNIQUE_ADD");
    EXPECT_NO_WORLD(ecs_unique_get(NULL, pos) == NULL, "ecs_unique_get");
    EXPECT_NO_WORLD(ECS_UNIQUE_GET(NULL, pos, Val) == NULL, "ECS_UNIQUE_GET");
    EXPECT_NO_WORLD(ecs_unique_get_mut(NULL, pos) == NULL, "ecs_unique_get_mut");
    EXPECT_NO_WORLD(ECS_UNIQUE_GET_MUT(NULL, pos, Val) == NULL, "ECS_UNIQUE_GET_MUT");
    EXPECT_NO_WORLD(!ecs_unique_has(NULL, pos), "ecs_unique_has");
    EXPECT_NO_WORLD(!ecs_unique_remove(NULL, pos, NULL), "ecs_unique_remove");
    CHECK(ecs_last_error(w) == ECS_OK && untouched() && !ecs_unique_has(w, pos));
    teardown();
}

static void test_null_value_and_out_of_the_unique_calls_behave_as_documented(void) {
    setup();
    EXPECT_QUIET(w, ECS_UNIQUE_ADD(w, pos, Val, {4}) != NULL);
    EXPECT_QUIET(w, ecs_unique_add(w, pos, NULL) != NULL && ECS_UNIQUE_GET(w, pos, Val)->v == 0);
    EXPECT_QUIET(w, ecs_unique_remove(w, pos, NULL) && !ecs_unique_has(w, pos));
    teardown();
}

/* ---- 11. tracking ------------------------------------------------------------------------ */

static void test_null_world_to_the_tracking_calls_asserts(void) {
    ecs_change fake;
    uint32_t n = 7;
    setup();
    fake.entity = e1;
    fake.tick = 1;
    EXPECT_NO_WORLD(!ecs_track_set(NULL, pos, ECS_TRACK_ALL), "ecs_track_set");
    EXPECT_NO_WORLD(ecs_track_get(NULL, pos) == 0, "ecs_track_get");
    EXPECT_NO_WORLD(ecs_tick_advance(NULL) == 0, "ecs_tick_advance");
    EXPECT_NO_WORLD(!ecs_track_mark_modified(NULL, e1, pos), "ecs_track_mark_modified");
    EXPECT_NO_WORLD(!ecs_track_inserted(NULL, e1, pos, 0), "ecs_track_inserted");
    EXPECT_NO_WORLD(!ecs_track_modified(NULL, e1, pos, 0), "ecs_track_modified");
    EXPECT_NO_WORLD(!ecs_track_unique_inserted(NULL, pos, 0), "ecs_track_unique_inserted");
    EXPECT_NO_WORLD(!ecs_track_unique_modified(NULL, pos, 0), "ecs_track_unique_modified");
    EXPECT_NO_WORLD(ecs_track_removed(NULL, pos, 0, &n) == NULL, "ecs_track_removed");
    EXPECT_NO_WORLD(ecs_track_deleted(NULL, pos, 0, &n) == NULL, "ecs_track_deleted");
    EXPECT_NO_WORLD(ecs_track_deleted_value(NULL, pos, &fake) == NULL, "ecs_track_deleted_value");
    EXPECT_NO_WORLD(ecs_track_created(NULL, 0, &n) == NULL, "ecs_track_created");
    EXPECT_NO_WORLD(ecs_track_destroyed(NULL, 0, &n) == NULL, "ecs_track_destroyed");
    EXPECT_NO_WORLD((ecs_track_clear(NULL, pos, ECS_TRACK_ALL), 1), "ecs_track_clear");
    EXPECT_NO_WORLD((ecs_track_clear_until(NULL, pos, ECS_TRACK_ALL, 5), 1), "ecs_track_clear_until");
    CHECK(ecs_last_error(w) == ECS_OK && untouched() && ecs_track_get(w, pos) == 0);
    teardown();
}

static void test_deleted_value_of_a_null_entry_is_refused_invalid(void) {
    setup();
    CHECK(ecs_track_set(w, pos, ECS_TRACK_DELETION) && ecs_delete(w, e1, pos));
    EXPECT_ARG_REFUSED(w, ecs_track_deleted_value(w, pos, NULL) == NULL, "ecs_track_deleted_value", "entry");
    teardown();
}

static void test_tracking_lists_with_a_null_count_still_answer(void) {
    ecs_desc d;
    const ecs_change *l;
    uint32_t n;
    memset(&d, 0, sizeof d);
    d.track_entities = true;
    teardown();
    w = ecs_world_new(&d);
    pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    CHECK(ecs_track_set(w, pos, ECS_TRACK_ALL));
    e1 = ecs_create(w);
    ECS_ADD(w, e1, pos, Val, {1});
    e2 = ecs_create(w);
    ECS_ADD(w, e2, pos, Val, {2});
    CHECK(ecs_remove(w, e1, pos, NULL) && ecs_destroy(w, e2));
    l = ecs_track_removed(w, pos, 0, &n);
    EXPECT_QUIET(w, ecs_track_removed(w, pos, 0, NULL) == l && n == 1 && l[0].entity == e1);
    l = ecs_track_deleted(w, pos, 0, &n);
    EXPECT_QUIET(w, ecs_track_deleted(w, pos, 0, NULL) == l && n == 1 && l[0].entity == e2);
    l = ecs_track_created(w, 0, &n);
    EXPECT_QUIET(w, ecs_track_created(w, 0, NULL) == l && n == 2 && l[1].entity == e2);
    l = ecs_track_destroyed(w, 0, &n);
    EXPECT_QUIET(w, ecs_track_destroyed(w, 0, NULL) == l && n == 1 && l[0].entity == e2);
    teardown();
}

/* ---- 12. hooks ------------------------------------------------------------------------------ */

static int hook_calls;
static void count_hook(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)hw, (void)e, (void)c, (void)value;
    if (user == NULL) hook_calls++; /* user NULL is passed through */
}

static void test_null_world_to_hooks_set_asserts(void) {
    ecs_hooks h = {0};
    setup();
    memset(&h, 0, sizeof h);
    h.on_insert = count_hook;
    EXPECT_NO_WORLD(!ecs_hooks_set(NULL, pos, &h), "ecs_hooks_set");
    EXPECT_NO_WORLD(!ecs_hooks_set(NULL, pos, NULL), "ecs_hooks_set");
    CHECK(ecs_last_error(w) == ECS_OK && untouched());
    teardown();
}

static void test_hooks_set_with_null_hooks_clears_them(void) {
    ecs_hooks h = {0};
    setup();
    memset(&h, 0, sizeof h);
    h.on_insert = count_hook; /* on_remove NULL: none */
    hook_calls = 0;
    EXPECT_QUIET(w, ecs_hooks_set(w, tag, &h));
    CHECK(ecs_add(w, e1, tag, NULL) != NULL && hook_calls == 1 && ecs_remove(w, e1, tag, NULL));
    EXPECT_QUIET(w, ecs_hooks_set(w, tag, NULL));
    CHECK(ecs_add(w, e1, tag, NULL) != NULL && hook_calls == 1);
    teardown();
}

/* ---- 13. groups ------------------------------------------------------------------------------- */

static void test_null_world_to_the_group_calls_asserts(void) {
    ecs_group_desc gd;
    setup();
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = pos;
    EXPECT_NO_WORLD(ecs_group_new(NULL, &gd) == 0, "ecs_group_new");
    CHECK_EQ(ecs_group_new(w, &gd), 1); /* nothing was made elsewhere */
    EXPECT_NO_WORLD(ecs_group_count(NULL, 1) == 0, "ecs_group_count");
    EXPECT_NO_WORLD(ecs_group_entities(NULL, 1) == NULL, "ecs_group_entities");
    EXPECT_NO_WORLD(ecs_group_data(NULL, 1, pos) == NULL, "ecs_group_data");
    EXPECT_NO_WORLD(!ecs_group_sort(NULL, 1, pos, by_v, NULL), "ecs_group_sort");
    CHECK(ecs_last_error(w) == ECS_OK && ecs_group_count(w, 1) == 2);
    teardown();
}

static void test_group_new_with_null_desc_is_refused_invalid(void) {
    ecs_group_desc gd;
    setup();
    EXPECT_ARG_REFUSED(w, ecs_group_new(w, NULL) == 0, "ecs_group_new", "desc|d");
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = pos;
    CHECK(ecs_group_new(w, &gd) == 1 && untouched()); /* no group was made */
    teardown();
}

static void test_group_sort_with_null_cmp_is_refused_invalid(void) {
    ecs_group_desc gd;
    const ecs_entity *rows;
    setup();
    ECS_GET_MUT(w, e1, pos, Val)->v = 50;
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = pos;
    CHECK_EQ(ecs_group_new(w, &gd), 1);
    rows = ecs_group_entities(w, 1);
    CHECK(rows[0] == e1 && rows[1] == e2);
    EXPECT_ARG_REFUSED(w, !ecs_group_sort(w, 1, pos, NULL, NULL), "ecs_group_sort", "cmp|comparator");
    CHECK(rows[0] == e1 && rows[1] == e2);
    EXPECT_QUIET(w, ecs_group_sort(w, 1, pos, by_v, NULL) && rows[0] == e2 && rows[1] == e1);
    teardown();
}

/* ---- 14. systems and workloads ---------------------------------------------------------------- */

static void test_null_world_to_the_system_and_workload_calls_asserts(void) {
    ecs_system_desc d = sys("a", run_system);
    const char *items[1] = {"a"};
    ecs_plan_step plan[1];
    setup();
    CHECK(ecs_system_new(w, &d) && ecs_workload_new(w, "frame", 1, items));
    d = sys("b", run_system);
    ran = 0;
    EXPECT_NO_WORLD(!ecs_system_new(NULL, &d), "ecs_system_new");
    EXPECT_NO_WORLD(!ecs_workload_new(NULL, "other", 1, items), "ecs_workload_new");
    EXPECT_NO_WORLD(ecs_workload_run(NULL, "frame") == -1, "ecs_workload_run");
    EXPECT_NO_WORLD(ecs_workload_run(NULL, NULL) == -1, "ecs_workload_run");
    EXPECT_NO_WORLD(!ecs_workload_set_default(NULL, "frame"), "ecs_workload_set_default");
    EXPECT_NO_WORLD(ecs_workload_plan(NULL, "frame", plan, 1) == 0, "ecs_workload_plan");
    EXPECT_NO_WORLD(ecs_workload_failed_system(NULL) == NULL, "ecs_workload_failed_system");
    CHECK(ran == 0 && ecs_last_error(w) == ECS_OK && untouched());
    CHECK(ecs_system_new(w, &d) && ecs_workload_new(w, "other", 1, items)); /* the names are still free */
    teardown();
}

static void test_system_new_with_null_desc_name_or_fn_is_refused_invalid(void) {
    ecs_system_desc d;
    const char *items[1] = {"a"};
    setup();
    EXPECT_ARG_REFUSED(w, !ecs_system_new(w, NULL), "ecs_system_new", "desc|d");
    d = sys(NULL, run_system);
    EXPECT_ARG_REFUSED(w, !ecs_system_new(w, &d), "ecs_system_new", "name");
    d = sys("a", NULL);
    EXPECT_ARG_REFUSED(w, !ecs_system_new(w, &d), "ecs_system_new", "fn");
    /* nothing was added: "a" is free, and the first system */
    d = sys("a", run_system);
    CHECK(ecs_system_new(w, &d) && ecs_workload_new(w, "frame", 1, items));
    CHECK_EQ(ecs_workload_plan(w, "frame", NULL, 0), 1);
    teardown();
}

static void test_null_optional_fields_of_a_system_desc_are_fine(void) {
    ecs_system_desc d = sys("a", run_system); /* user NULL, run_if NULL, no reads or writes */
    const char *items[1] = {"a"};
    setup();
    ran = 0;
    EXPECT_QUIET(w, ecs_system_new(w, &d) && ecs_workload_new(w, "frame", 1, items));
    EXPECT_QUIET(w, ecs_workload_run(w, "frame") == 0 && ran == 1); /* it saw user NULL */
    teardown();
}

static void test_workload_new_with_null_name_items_or_item_is_refused_invalid(void) {
    ecs_system_desc d = sys("a", run_system);
    const char *items[2] = {"a", NULL}, *one[1] = {"a"};
    setup();
    CHECK(ecs_system_new(w, &d));
    EXPECT_ARG_REFUSED(w, !ecs_workload_new(w, NULL, 1, one), "ecs_workload_new", "name");
    EXPECT_ARG_REFUSED(w, !ecs_workload_new(w, "frame", 2, NULL), "ecs_workload_new", "items");
    EXPECT_ARG_REFUSED(w, !ecs_workload_new(w, "frame", 2, items), "ecs_workload_new", "items");
    CHECK(ecs_workload_new(w, "frame", 1, items)); /* nothing was added: the name is free */
    CHECK_EQ(ecs_workload_plan(w, "frame", NULL, 0), 1);
    /* no items at all: an empty workload */
    EXPECT_QUIET(w, ecs_workload_new(w, "empty", 0, NULL) && ecs_workload_plan(w, "empty", NULL, 0) == 0);
    EXPECT_QUIET(w, ecs_workload_run(w, "empty") == 0);
    teardown();
}

static void test_null_workload_name_means_the_default_workload(void) {
    ecs_system_desc d = sys("a", run_system);
    const char *items[1] = {"a"};
    ecs_plan_step plan[2];
    setup();
    CHECK(ecs_system_new(w, &d));
    d = sys("b", run_system);
    CHECK(ecs_system_new(w, &d));
    CHECK(ecs_workload_new(w, "first", 1, items)); /* the default: the first one */
    items[0] = "b";
    CHECK(ecs_workload_new(w, "second", 1, items));
    ran = 0;
    EXPECT_QUIET(w, ecs_workload_run(w, NULL) == 0 && ran == 1);
    EXPECT_QUIET(w, ecs_workload_plan(w, NULL, plan, 2) == 1 && strcmp(plan[0].system, "a") == 0);
    EXPECT_QUIET(w, ecs_workload_set_default(w, NULL)); /* sets the default to itself */
    EXPECT_QUIET(w, ecs_workload_plan(w, NULL, plan, 2) == 1 && strcmp(plan[0].system, "a") == 0);
    EXPECT_QUIET(w, ecs_workload_set_default(w, "second"));
    EXPECT_QUIET(w, ecs_workload_plan(w, NULL, plan, 2) == 1 && strcmp(plan[0].system, "b") == 0);
    /* out NULL: only the count */
    EXPECT_QUIET(w, ecs_workload_plan(w, "first", NULL, 2) == 1);
    teardown();
}

static void test_system_view_with_null_ctx_or_desc_is_refused(void) {
    ecs_system_ctx ctx;
    ecs_view_desc d;
    ecs_iter it;
    setup();
    memset(&ctx, 0, sizeof ctx);
    ctx.world = w;
    ctx.last_run = 1;
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    EXPECT_ARG_REFUSED(NULL, (it = ecs_system_view(NULL, &d), 1), "ecs_system_view", "ctx");
    CHECK(yields_nothing(it));
    EXPECT_ARG_REFUSED(w, (it = ecs_system_view(&ctx, NULL), 1), "ecs_system_view", "desc");
    CHECK(yields_nothing(it));
    it = ecs_system_view(&ctx, &d); /* and with both */
    CHECK(ecs_iter_next(&it) && ecs_iter_next(&it) && !ecs_iter_next(&it));
    teardown();
}


int main(int argc, char **argv) {
    test_only(argc, argv);
    /* 2, 3: errors and the world */
    RUN(test_null_world_to_the_error_calls_asserts);
    RUN(test_world_new_with_null_desc_makes_the_default_world);
    RUN(test_world_free_of_null_does_nothing);
    /* 4: entities */
    RUN(test_null_world_to_the_entity_calls_asserts);
    RUN(test_entity_str_with_null_buf_is_refused);
    /* 5: components and storages */
    RUN(test_null_world_to_the_component_calls_asserts);
    RUN(test_register_with_null_name_is_refused_invalid);
    RUN(test_lookup_of_null_name_returns_zero_quietly);
    RUN(test_storage_calls_with_null_storage_are_refused);
    /* 6: component operations */
    RUN(test_null_world_to_the_component_operations_asserts);
    RUN(test_null_comps_with_components_to_add_is_refused_invalid);
    RUN(test_null_optional_arguments_of_component_operations_behave_as_documented);
    /* 7: views */
    RUN(test_null_world_to_the_view_calls_asserts_and_yields_nothing);
    RUN(test_null_view_arguments_are_refused_invalid);
    RUN(test_null_iterator_to_field_and_block_is_refused);
    RUN(test_each_passes_a_null_ctx_through);
    /* 8: command buffer */
    RUN(test_null_world_to_the_command_calls_asserts);
    RUN(test_defer_add_of_a_null_value_records_zeroes);
    /* 9: sorting */
    RUN(test_null_world_to_the_sort_calls_asserts);
    RUN(test_sort_with_null_cmp_is_refused_invalid_and_moves_nothing);
    /* 10: uniques */
    RUN(test_null_world_to_the_unique_calls_asserts);
    RUN(test_null_value_and_out_of_the_unique_calls_behave_as_documented);
    /* 11: tracking */
    RUN(test_null_world_to_the_tracking_calls_asserts);
    RUN(test_deleted_value_of_a_null_entry_is_refused_invalid);
    RUN(test_tracking_lists_with_a_null_count_still_answer);
    /* 12: hooks */
    RUN(test_null_world_to_hooks_set_asserts);
    RUN(test_hooks_set_with_null_hooks_clears_them);
    /* 13: groups */
    RUN(test_null_world_to_the_group_calls_asserts);
    RUN(test_group_new_with_null_desc_is_refused_invalid);
    RUN(test_group_sort_with_null_cmp_is_refused_invalid);
    /* 14: systems and workloads */
    RUN(test_null_world_to_the_system_and_workload_calls_asserts);
    RUN(test_system_new_with_null_desc_name_or_fn_is_refused_invalid);
    RUN(test_null_optional_fields_of_a_system_desc_are_fine);
    RUN(test_workload_new_with_null_name_items_or_item_is_refused_invalid);
    RUN(test_null_workload_name_means_the_default_workload);
    RUN(test_system_view_with_null_ctx_or_desc_is_refused);
    teardown();
    return test_summary();
}
