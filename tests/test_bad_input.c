/* The bad-input catalogue (ecs.h section 2), one test per row: each call
   given each bad input listed there returns the documented failure value,
   sets the documented ecs_last_error code, and asserts (or not) as
   documented. An assert's message names the call (it starts with the
   call's name), the entity as "entity index:version" when the call has one,
   and the component by name when the call has one (section 1: "a message
   naming the call, the entity and the component"); it is also the message
   ecs_last_error_msg returns. Tests are named after their row. */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;  /* 8 bytes */
typedef struct { int hp; } Health;    /* 4 bytes */
typedef struct { int t; } Time;

/* ---- checking an answer ---------------------------------------------------------- */


/* expr must hold and assert exactly once, with a message that names call,
   entity ent and component comp (NULL: not checked); the error code must be
   `code` (ECS_OK: not checked) and the recorded message the asserted one. */
#define EXPECT_REFUSED(w, expr, code, call, ent, comp)                                          \
    do {                                                                                        \
        ecs_clear_error(w);                                                                     \
        EXPECT_ASSERT(expr, "");                                                                \
        if (!test_names_or_say(test__assert_msg, (call), (ent), (comp), __FILE__, __LINE__)) {  \
            test__failed = 1;                                                                   \
            return;                                                                             \
        }                                                                                       \
        if ((code) != ECS_OK) CHECK(ecs_last_error(w) == (code));                               \
        CHECK(strcmp(ecs_last_error_msg(w), test__assert_msg) == 0);                            \
    } while (0)

/* expr must hold with no assert (the harness fails unexpected ones) and no error. */
#define EXPECT_QUIET(w, expr)                                                                   \
    do {                                                                                        \
        ecs_clear_error(w);                                                                     \
        CHECK(expr);                                                                            \
        CHECK(ecs_last_error(w) == ECS_OK);                                                     \
    } while (0)

/* expr must hold with no assert, error `code`, and a message naming call. */
#define EXPECT_ERROR(w, expr, code, call)                                                       \
    do {                                                                                        \
        ecs_clear_error(w);                                                                     \
        CHECK(expr);                                                                            \
        CHECK(ecs_last_error(w) == (code));                                                     \
        if (!test_names(ecs_last_error_msg(w), (call), NULL, NULL)) {                                \
            printf("  %s:%d: the error \"%s\" does not name %s\n", __FILE__, __LINE__,          \
                   ecs_last_error_msg(w), (call));                                              \
            test__failed = 1;                                                                   \
            return;                                                                             \
        }                                                                                       \
    } while (0)

/* ---- a world with Pos, Health, the tag Frozen and Time --------------------------- */

/* An allocator that fails every allocation while `failing` is set. */
static int failing;
static void *maybe_alloc(size_t size, void *ctx) {
    (void)ctx;
    return failing ? NULL : malloc(size ? size : 1);
}
static void maybe_free(void *p, size_t size, void *ctx) {
    (void)size, (void)ctx;
    free(p);
}

static ecs_world *w;
static ecs_component pos, health, frozen, tim;
static ecs_entity alive, stale; /* alive has Pos {1, 2} and Health {3}; stale was destroyed */
static char alive_s[ECS_ENTITY_STR], stale_s[ECS_ENTITY_STR];

/* Frees the world; the next setup does it too, so that a test that fails
   half-way does not leak its world. */
static void teardown(void) {
    ecs_world_free(w);
    w = NULL;
}

static void setup_with(ecs_desc *d) {
    teardown();
    failing = 0;
    if (d) {
        d->allocator.alloc = maybe_alloc;
        d->allocator.free = maybe_free;
    }
    w = ecs_world_new(d);
    pos = ECS_COMPONENT(w, Pos);
    health = ECS_COMPONENT(w, Health);
    frozen = ECS_TAG(w, "Frozen");
    tim = ECS_COMPONENT(w, Time);
    stale = ecs_create(w);
    ecs_destroy(w, stale);
    alive = ecs_create(w); /* takes stale's slot: same index, newer version */
    ECS_ADD(w, alive, pos, Pos, {1, 2});
    ECS_ADD(w, alive, health, Health, {3});
    ecs_entity_str(alive, alive_s);
    ecs_entity_str(stale, stale_s);
}
static void setup(void) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    setup_with(&d);
}

#define UNKNOWN 99 /* a component id nobody registered */

/* ---- ecs_world_new --------------------------------------------------------------- */

static void test_world_new_with_alloc_but_no_free_asserts_and_returns_null(void) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = maybe_alloc;
    EXPECT_ASSERT(ecs_world_new(&d) == NULL, "ecs_world_new");
    d.allocator.alloc = NULL;
    d.allocator.free = maybe_free; /* free without alloc: the same mistake */
    EXPECT_ASSERT(ecs_world_new(&d) == NULL, "ecs_world_new");
    CHECK_EQ(strncmp(test__assert_msg, "ecs_world_new", 13), 0);
}

static void test_world_new_out_of_memory_returns_null_without_assert(void) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = maybe_alloc;
    d.allocator.free = maybe_free;
    failing = 1;
    CHECK_PTR_EQ(ecs_world_new(&d), NULL);
    failing = 0;
}

/* ---- ecs_create, ecs_create_n, ecs_create_bulk -------------------------------- */

static void test_create_with_no_slot_left_returns_null_exhausted(void) {
    ecs_desc d;
    ecs_entity out[4];
    memset(&d, 0, sizeof d);
    d.max_entities = 3;
    setup_with(&d); /* one slot in use: stale's, now alive's */
    CHECK(ecs_create(w) != ECS_NULL && ecs_count(w) == 2);
    CHECK(ecs_create(w) != ECS_NULL && ecs_count(w) == 3);
    EXPECT_ERROR(w, ecs_create(w) == ECS_NULL, ECS_ERR_EXHAUSTED, "ecs_create");
    EXPECT_ERROR(w, ecs_create_n(w, 1, &pos, NULL) == ECS_NULL, ECS_ERR_EXHAUSTED, "ecs_create_n");
    EXPECT_ERROR(w, !ecs_create_bulk(w, 2, 1, &pos, NULL, out), ECS_ERR_EXHAUSTED, "ecs_create_bulk");
    CHECK(ecs_count(w) == 3 && ecs_storage_count(ecs_storage_of(w, pos)) == 1);
    teardown();
}

static void test_create_out_of_memory_returns_null_out_of_memory(void) {
    ecs_entity out[20];
    setup();
    failing = 1; /* the slot array (8 slots) is full after 8 creations; storages are small */
    while (ecs_create(w) != ECS_NULL) {}
    EXPECT_ERROR(w, ecs_create(w) == ECS_NULL, ECS_ERR_OUT_OF_MEMORY, "ecs_create");
    EXPECT_ERROR(w, ecs_create_n(w, 1, &tim, NULL) == ECS_NULL, ECS_ERR_OUT_OF_MEMORY, "ecs_create_n");
    EXPECT_ERROR(w, !ecs_create_bulk(w, 20, 1, &pos, NULL, out), ECS_ERR_OUT_OF_MEMORY, "ecs_create_bulk");
    CHECK(ecs_count(w) == 8 && ecs_storage_count(ecs_storage_of(w, tim)) == 0 && ecs_storage_count(ecs_storage_of(w, pos)) == 1);
    failing = 0;
    teardown();
}

static void test_create_with_unknown_or_repeated_component_asserts(void) {
    ecs_component unknown[2] = {pos, UNKNOWN}, zero[1] = {0}, twice[2] = {pos, pos};
    ecs_entity out[3];
    setup();
    EXPECT_REFUSED(w, ecs_create_n(w, 2, unknown, NULL) == ECS_NULL, ECS_OK, "ecs_create_n", NULL,
                   "component #99");
    EXPECT_REFUSED(w, ecs_create_n(w, 1, zero, NULL) == ECS_NULL, ECS_OK, "ecs_create_n", NULL,
                   "unknown component"); /* id 0: no component to name */
    EXPECT_REFUSED(w, ecs_create_n(w, 2, twice, NULL) == ECS_NULL, ECS_OK, "ecs_create_n", NULL, "Pos");
    EXPECT_REFUSED(w, !ecs_create_bulk(w, 3, 2, unknown, NULL, out), ECS_OK, "ecs_create_bulk", NULL,
                   "component #99");
    EXPECT_REFUSED(w, !ecs_create_bulk(w, 3, 2, twice, NULL, out), ECS_OK, "ecs_create_bulk", NULL, "Pos");
    CHECK(ecs_count(w) == 1 && ecs_storage_count(ecs_storage_of(w, pos)) == 1); /* nothing created */
    teardown();
}

/* ---- ecs_destroy, ecs_strip ------------------------------------------------------ */

static void test_destroy_or_strip_of_null_or_stale_entity_returns_false_quietly(void) {
    setup();
    EXPECT_QUIET(w, !ecs_destroy(w, stale));
    EXPECT_QUIET(w, !ecs_destroy(w, ECS_NULL));
    EXPECT_QUIET(w, ecs_strip(w, stale) == 0);
    EXPECT_QUIET(w, ecs_strip(w, ECS_NULL) == 0);
    EXPECT_QUIET(w, !ecs_destroy(w, ((ecs_entity)1 << 32) | 500u)); /* never created */
    CHECK(ecs_alive(w, alive) && ecs_has(w, alive, pos)); /* the slot's new owner is untouched */
    teardown();
}

/* on_insert and on_remove of Frozen: destroy or strip their own entity. */
static void destroy_own_entity(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    char es[ECS_ENTITY_STR];
    (void)c, (void)value, (void)user;
    ecs_entity_str(e, es);
    EXPECT_REFUSED(hw, !ecs_destroy(hw, e), ECS_ERR_LOCKED, "ecs_destroy", es, NULL);
    EXPECT_REFUSED(hw, ecs_strip(hw, e) == 0, ECS_ERR_LOCKED, "ecs_strip", es, NULL);
    CHECK(ecs_alive(hw, e) && ecs_has(hw, e, pos));
}

static void test_destroy_or_strip_from_its_own_hook_asserts_locked(void) {
    ecs_hooks h = {0};
    ecs_entity e;
    setup();
    memset(&h, 0, sizeof h);
    h.on_insert = destroy_own_entity;
    h.on_remove = destroy_own_entity;
    CHECK(ecs_hooks_set(w, frozen, &h));
    e = ecs_create(w);
    ECS_ADD(w, e, pos, Pos, {0, 0});
    CHECK_PTR_NE(ecs_add(w, e, frozen, NULL), NULL);   /* on_insert */
    CHECK(ecs_remove(w, e, frozen, NULL));        /* on_remove */
    CHECK(ecs_alive(w, e) && ecs_has(w, e, pos) && !ecs_has(w, e, frozen));
    teardown();
}

static void test_destroy_or_strip_out_of_memory_for_tracking_returns_false_out_of_memory(void) {
    ecs_desc d;
    ecs_entity e[9];
    int i;
    memset(&d, 0, sizeof d);
    setup_with(&d);
    CHECK(ecs_track_set(w, pos, ECS_TRACK_DELETION));
    for (i = 0; i < 9; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], pos, Pos, {(float)i, 0});
    }
    for (i = 0; i < 8; i++) CHECK(ecs_delete(w, e[i], pos)); /* the deleted list: 8 of 8 */
    ECS_ADD(w, e[0], pos, Pos, {0, 0});
    failing = 1;
    EXPECT_ERROR(w, !ecs_destroy(w, e[0]), ECS_ERR_OUT_OF_MEMORY, "ecs_destroy");
    EXPECT_ERROR(w, ecs_strip(w, e[8]) == 0, ECS_ERR_OUT_OF_MEMORY, "ecs_strip");
    failing = 0;
    CHECK(ecs_alive(w, e[0]) && ecs_has(w, e[0], pos) && ecs_has(w, e[8], pos)); /* nothing changed */
    teardown();
    /* the world's destroyed list (desc.track_entities) */
    memset(&d, 0, sizeof d);
    d.track_entities = true;
    setup_with(&d);
    for (i = 0; i < 7; i++) CHECK(ecs_destroy(w, ecs_create(w))); /* with setup's: 8 of 8 */
    failing = 1;
    EXPECT_ERROR(w, !ecs_destroy(w, alive), ECS_ERR_OUT_OF_MEMORY, "ecs_destroy");
    failing = 0;
    CHECK(ecs_alive(w, alive) && ecs_has(w, alive, pos));
    teardown();
}

/* ---- ecs_alive, ecs_has, ecs_get, ecs_get_mut ------------------------------------ */

static void test_alive_has_get_get_mut_of_null_or_stale_entity_return_false_quietly(void) {
    setup();
    EXPECT_QUIET(w, !ecs_alive(w, stale) && !ecs_alive(w, ECS_NULL));
    EXPECT_QUIET(w, !ecs_has(w, stale, pos) && !ecs_has(w, ECS_NULL, pos));
    EXPECT_QUIET(w, ecs_get(w, stale, pos) == NULL && ecs_get(w, ECS_NULL, pos) == NULL);
    EXPECT_QUIET(w, ecs_get_mut(w, stale, pos) == NULL && ecs_get_mut(w, ECS_NULL, frozen) == NULL);
    EXPECT_QUIET(w, ECS_GET(w, stale, pos, Pos) == NULL && ECS_GET_MUT(w, stale, pos, Pos) == NULL);
    teardown();
}

static void test_has_get_get_mut_of_unknown_component_assert(void) {
    setup();
    EXPECT_REFUSED(w, !ecs_has(w, alive, UNKNOWN), ECS_OK, "ecs_has", alive_s, "component #99");
    EXPECT_REFUSED(w, ecs_get(w, alive, UNKNOWN) == NULL, ECS_OK, "ecs_get", alive_s, "component #99");
    EXPECT_REFUSED(w, ecs_get_mut(w, alive, 0) == NULL, ECS_OK, "ecs_get_mut", alive_s, "no component");
    teardown();
}

static void test_typed_get_with_wrong_sizeof_asserts(void) {
    setup();
    EXPECT_REFUSED(w, ECS_GET(w, alive, pos, Health) == NULL, ECS_OK, "ECS_GET", alive_s, "Pos");
    EXPECT_REFUSED(w, ECS_GET_MUT(w, alive, health, Pos) == NULL, ECS_OK, "ECS_GET_MUT", alive_s, "Health");
    CHECK_PTR_NE(strstr(test__assert_msg, "sizeof(T)"), NULL);
    teardown();
}

/* ---- ecs_add, ECS_ADD, ECS_SET, ecs_add_n, ecs_add_if_changed ------------------- */

static void test_add_to_stale_entity_asserts_dead_entity(void) {
    Pos p = {5, 5};
    const void *values[1];
    setup();
    values[0] = &p;
    EXPECT_REFUSED(w, ecs_add(w, stale, pos, &p) == NULL, ECS_ERR_DEAD_ENTITY, "ecs_add", stale_s, "Pos");
    EXPECT_REFUSED(w, ECS_ADD(w, stale, pos, Pos, {1, 1}) == NULL, ECS_ERR_DEAD_ENTITY, "ECS_ADD", stale_s, "Pos");
    EXPECT_REFUSED(w, ECS_ADD(w, stale, pos, Pos, p) == NULL, ECS_ERR_DEAD_ENTITY, "ECS_ADD", stale_s, "Pos");
    EXPECT_REFUSED(w, !ecs_add_n(w, stale, 1, &pos, values), ECS_ERR_DEAD_ENTITY, "ecs_add_n", stale_s, "Pos");
    EXPECT_REFUSED(w, !ecs_add_if_changed(w, stale, pos, &p), ECS_ERR_DEAD_ENTITY, "ecs_add_if_changed",
                   stale_s, "Pos");
    EXPECT_REFUSED(w, !ECS_ADD_IF_CHANGED(w, stale, pos, Pos, p), ECS_ERR_DEAD_ENTITY, "ECS_ADD_IF_CHANGED",
                   stale_s, "Pos");
    /* the null entity */
    EXPECT_REFUSED(w, ecs_add(w, ECS_NULL, frozen, NULL) == NULL, ECS_ERR_DEAD_ENTITY, "ecs_add", "null", "Frozen");
    EXPECT_REFUSED(w, !ecs_add_n(w, ECS_NULL, 1, &health, NULL), ECS_ERR_DEAD_ENTITY, "ecs_add_n", "null",
                   "Health");
    /* the slot's new owner was not touched */
    CHECK(ECS_GET(w, alive, pos, Pos)->x == 1 && ecs_storage_count(ecs_storage_of(w, pos)) == 1 && ecs_storage_count(ecs_storage_of(w, frozen)) == 0);
    teardown();
}

static void test_add_of_unknown_component_asserts(void) {
    ecs_component comps[2];
    Health h = {1};
    setup();
    comps[0] = health;
    comps[1] = UNKNOWN;
    EXPECT_REFUSED(w, ecs_add(w, alive, UNKNOWN, NULL) == NULL, ECS_ERR_UNKNOWN_COMPONENT, "ecs_add", alive_s,
                   "component #99");
    EXPECT_REFUSED(w, ECS_ADD(w, alive, 0, Pos, {1, 1}) == NULL, ECS_ERR_UNKNOWN_COMPONENT, "ECS_ADD", alive_s,
                   "no component");
    EXPECT_REFUSED(w, ECS_ADD(w, alive, UNKNOWN, Health, h) == NULL, ECS_ERR_UNKNOWN_COMPONENT, "ECS_ADD",
                   alive_s, "component #99");
    EXPECT_REFUSED(w, !ecs_add_n(w, alive, 2, comps, NULL), ECS_ERR_UNKNOWN_COMPONENT, "ecs_add_n", alive_s,
                   "component #99");
    EXPECT_REFUSED(w, !ecs_add_if_changed(w, alive, UNKNOWN, NULL), ECS_ERR_UNKNOWN_COMPONENT,
                   "ecs_add_if_changed", alive_s, "component #99");
    CHECK_EQ(ECS_GET(w, alive, health, Health)->hp, 3); /* add_n changed nothing */
    teardown();
}

static void test_add_with_wrong_sizeof_asserts_size_mismatch(void) {
    Health h = {7};
    setup();
    EXPECT_REFUSED(w, ECS_ADD(w, alive, pos, Health, {1}) == NULL, ECS_ERR_SIZE_MISMATCH, "ECS_ADD", alive_s, "Pos");
    EXPECT_REFUSED(w, ECS_ADD(w, alive, pos, Health, h) == NULL, ECS_ERR_SIZE_MISMATCH, "ECS_ADD", alive_s, "Pos");
    EXPECT_REFUSED(w, !ECS_ADD_IF_CHANGED(w, alive, pos, Health, h), ECS_ERR_SIZE_MISMATCH, "ECS_ADD_IF_CHANGED",
                   alive_s, "Pos");
    EXPECT_REFUSED(w, ECS_ADD(w, alive, tim, Pos, {1, 1}) == NULL, ECS_ERR_SIZE_MISMATCH, "ECS_ADD", alive_s,
                   "Time"); /* an insert is refused too */
    CHECK(ECS_GET(w, alive, pos, Pos)->x == 1 && !ecs_has(w, alive, tim));
    teardown();
}

/* on_insert of Pos: inserts into Pos (locked) with each call of the row. */
static ecs_entity other;
static void add_into_own_storage(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    Pos p = {4, 4};
    const void *values[1];
    char os[ECS_ENTITY_STR];
    (void)e, (void)value, (void)user;
    values[0] = &p;
    ecs_entity_str(other, os);
    EXPECT_REFUSED(hw, ecs_add(hw, other, c, &p) == NULL, ECS_ERR_LOCKED, "ecs_add", os, "Pos");
    EXPECT_REFUSED(hw, ECS_ADD(hw, other, c, Pos, {1, 1}) == NULL, ECS_ERR_LOCKED, "ECS_ADD", os, "Pos");
    EXPECT_REFUSED(hw, ECS_ADD(hw, other, c, Pos, p) == NULL, ECS_ERR_LOCKED, "ECS_ADD", os, "Pos");
    EXPECT_REFUSED(hw, !ecs_add_n(hw, other, 1, &c, values), ECS_ERR_LOCKED, "ecs_add_n", os, "Pos");
    EXPECT_REFUSED(hw, !ecs_add_if_changed(hw, other, c, &p), ECS_ERR_LOCKED, "ecs_add_if_changed", os, "Pos");
}

/* on_remove of Health: adds Pos to its own entity, which is being stripped. */
static void add_to_stripped_entity(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    Pos p = {4, 4};
    const void *values[1];
    char es[ECS_ENTITY_STR];
    (void)c, (void)value, (void)user;
    values[0] = &p;
    ecs_entity_str(e, es);
    EXPECT_REFUSED(hw, ecs_add(hw, e, pos, &p) == NULL, ECS_ERR_LOCKED, "ecs_add", es, "Pos");
    EXPECT_REFUSED(hw, ECS_ADD(hw, e, pos, Pos, {1, 1}) == NULL, ECS_ERR_LOCKED, "ECS_ADD", es, "Pos");
    EXPECT_REFUSED(hw, ECS_ADD(hw, e, pos, Pos, p) == NULL, ECS_ERR_LOCKED, "ECS_ADD", es, "Pos");
    EXPECT_REFUSED(hw, !ecs_add_n(hw, e, 1, &pos, values), ECS_ERR_LOCKED, "ecs_add_n", es, "Pos");
    EXPECT_REFUSED(hw, !ecs_add_if_changed(hw, e, pos, &p), ECS_ERR_LOCKED, "ecs_add_if_changed", es, "Pos");
}

static void test_add_under_a_hook_lock_or_to_an_entity_being_stripped_asserts_locked(void) {
    ecs_hooks h = {0};
    ecs_entity e, f;
    setup();
    memset(&h, 0, sizeof h);
    h.on_insert = add_into_own_storage;
    CHECK(ecs_hooks_set(w, pos, &h));
    other = ecs_create(w);
    e = ecs_create(w);
    CHECK_PTR_NE(ECS_ADD(w, e, pos, Pos, {1, 1}), NULL);
    CHECK(!ecs_has(w, other, pos) && ecs_storage_count(ecs_storage_of(w, pos)) == 2);
    CHECK(ecs_hooks_set(w, pos, NULL));
    memset(&h, 0, sizeof h);
    h.on_remove = add_to_stripped_entity;
    CHECK(ecs_hooks_set(w, health, &h));
    ECS_ADD(w, e, health, Health, {1});
    CHECK(ecs_delete(w, e, pos));
    CHECK(ecs_strip(w, e) == 1 && !ecs_has(w, e, pos)); /* being stripped */
    f = ecs_create(w);
    ECS_ADD(w, f, health, Health, {1});
    CHECK(ecs_destroy(w, f) && ecs_storage_count(ecs_storage_of(w, pos)) == 1); /* being destroyed */
    teardown();
}

static void test_add_out_of_memory_returns_failure_out_of_memory(void) {
    Time t = {1};
    const void *values[1];
    ecs_desc d;
    memset(&d, 0, sizeof d);
    setup_with(&d);
    values[0] = &t;
    failing = 1; /* Time has no rows yet: any insert must allocate */
    EXPECT_ERROR(w, ecs_add(w, alive, tim, &t) == NULL, ECS_ERR_OUT_OF_MEMORY, "ecs_add");
    EXPECT_ERROR(w, ECS_ADD(w, alive, tim, Time, {2}) == NULL, ECS_ERR_OUT_OF_MEMORY, "ECS_ADD");
    EXPECT_ERROR(w, ECS_ADD(w, alive, tim, Time, t) == NULL, ECS_ERR_OUT_OF_MEMORY, "ECS_ADD");
    EXPECT_ERROR(w, !ecs_add_n(w, alive, 1, &tim, values), ECS_ERR_OUT_OF_MEMORY, "ecs_add_n");
    EXPECT_ERROR(w, !ecs_add_if_changed(w, alive, tim, &t), ECS_ERR_OUT_OF_MEMORY, "ecs_add_if_changed");
    failing = 0;
    CHECK(!ecs_has(w, alive, tim) && ecs_storage_count(ecs_storage_of(w, tim)) == 0);
    teardown();
}

/* ---- ecs_remove, ECS_REMOVE, ecs_delete ------------------------------------------ */

static void test_remove_or_delete_of_null_or_stale_entity_returns_false_quietly(void) {
    Pos out = {7, 7};
    setup();
    EXPECT_QUIET(w, !ecs_remove(w, stale, pos, &out) && !ecs_remove(w, ECS_NULL, pos, &out));
    EXPECT_QUIET(w, !ECS_REMOVE(w, stale, pos, Pos, &out));
    EXPECT_QUIET(w, !ecs_delete(w, stale, pos) && !ecs_delete(w, ECS_NULL, frozen));
    CHECK(out.x == 7 && ecs_has(w, alive, pos)); /* the slot's new owner keeps its Pos */
    teardown();
}

static void test_remove_or_delete_of_unknown_component_asserts(void) {
    Pos out = {7, 7};
    setup();
    EXPECT_REFUSED(w, !ecs_remove(w, alive, UNKNOWN, &out), ECS_OK, "ecs_remove", alive_s, "component #99");
    EXPECT_REFUSED(w, !ECS_REMOVE(w, alive, 0, Pos, &out), ECS_OK, "ECS_REMOVE", alive_s, "no component");
    EXPECT_REFUSED(w, !ecs_delete(w, alive, UNKNOWN), ECS_OK, "ecs_delete", alive_s, "component #99");
    CHECK(out.x == 7);
    teardown();
}

static void test_typed_remove_with_wrong_sizeof_asserts_size_mismatch(void) {
    Health out = {7};
    setup();
    EXPECT_REFUSED(w, !ECS_REMOVE(w, alive, pos, Health, &out), ECS_ERR_SIZE_MISMATCH, "ECS_REMOVE", alive_s, "Pos");
    CHECK(out.hp == 7 && ecs_has(w, alive, pos));
    teardown();
}

/* on_insert of Pos: removes Pos from `other` (locked) with each call of the row. */
static void remove_from_own_storage(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    Pos out = {0, 0};
    char os[ECS_ENTITY_STR];
    (void)e, (void)value, (void)user;
    ecs_entity_str(other, os);
    EXPECT_REFUSED(hw, !ecs_remove(hw, other, c, &out), ECS_ERR_LOCKED, "ecs_remove", os, "Pos");
    EXPECT_REFUSED(hw, !ECS_REMOVE(hw, other, c, Pos, &out), ECS_ERR_LOCKED, "ECS_REMOVE", os, "Pos");
    EXPECT_REFUSED(hw, !ecs_delete(hw, other, c), ECS_ERR_LOCKED, "ecs_delete", os, "Pos");
}

static void test_remove_or_delete_under_a_hook_lock_asserts_locked(void) {
    ecs_hooks h = {0};
    ecs_entity e;
    setup();
    other = alive;
    memset(&h, 0, sizeof h);
    h.on_insert = remove_from_own_storage;
    CHECK(ecs_hooks_set(w, pos, &h));
    e = ecs_create(w);
    CHECK_PTR_NE(ECS_ADD(w, e, pos, Pos, {1, 1}), NULL);
    CHECK(ecs_has(w, alive, pos) && ecs_storage_count(ecs_storage_of(w, pos)) == 2);
    teardown();
}

static void test_remove_or_delete_out_of_memory_for_tracking_returns_false_out_of_memory(void) {
    ecs_desc d;
    ecs_entity e[10];
    int i;
    memset(&d, 0, sizeof d);
    setup_with(&d);
    CHECK(ecs_track_set(w, pos, ECS_TRACK_REMOVAL | ECS_TRACK_DELETION));
    for (i = 0; i < 10; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], pos, Pos, {(float)i, 0});
    }
    for (i = 0; i < 8; i++) CHECK(ecs_remove(w, e[i], pos, NULL) && ECS_ADD(w, e[i], pos, Pos, {0, 0}));
    for (i = 0; i < 8; i++) CHECK(ecs_delete(w, e[i], pos) && ECS_ADD(w, e[i], pos, Pos, {0, 0}));
    failing = 1; /* both lists are 8 of 8 */
    EXPECT_ERROR(w, !ecs_remove(w, e[8], pos, NULL), ECS_ERR_OUT_OF_MEMORY, "ecs_remove");
    EXPECT_ERROR(w, !ECS_REMOVE(w, e[8], pos, Pos, NULL), ECS_ERR_OUT_OF_MEMORY, "ECS_REMOVE");
    EXPECT_ERROR(w, !ecs_delete(w, e[9], pos), ECS_ERR_OUT_OF_MEMORY, "ecs_delete");
    failing = 0;
    CHECK(ecs_has(w, e[8], pos) && ecs_has(w, e[9], pos));
    teardown();
}

/* ---- ecs_register, ecs_lookup, names and storages --------------------------------- */

static void test_register_without_name_or_with_bad_size_align_or_taken_name_asserts_invalid(void) {
    setup();
    EXPECT_REFUSED(w, ecs_register(w, NULL, 4, 4) == 0, ECS_ERR_INVALID, "ecs_register", NULL, NULL);
    EXPECT_REFUSED(w, ecs_register(w, "", 4, 4) == 0, ECS_ERR_INVALID, "ecs_register", NULL, NULL);
    EXPECT_REFUSED(w, ecs_register(w, "NoAlign", 4, 0) == 0, ECS_ERR_INVALID, "ecs_register", NULL, "NoAlign");
    EXPECT_REFUSED(w, ecs_register(w, "OddAlign", 6, 3) == 0, ECS_ERR_INVALID, "ecs_register", NULL, "OddAlign");
    EXPECT_REFUSED(w, ecs_register(w, "Ragged", 6, 4) == 0, ECS_ERR_INVALID, "ecs_register", NULL, "Ragged");
    EXPECT_REFUSED(w, ecs_register(w, "Wide", ECS_MAX_ALIGN * 2, ECS_MAX_ALIGN * 2) == 0, ECS_ERR_INVALID,
                   "ecs_register", NULL, "Wide");
    if (sizeof(size_t) > 4)
        EXPECT_REFUSED(w, ecs_register(w, "Huge", (size_t)0xffffffffu + 1u, 1) == 0, ECS_ERR_INVALID,
                       "ecs_register", NULL, "Huge");
    EXPECT_REFUSED(w, ecs_register(w, "Pos", sizeof(Pos) * 2, ECS_ALIGNOF(Pos)) == 0, ECS_ERR_INVALID,
                   "ecs_register", NULL, "Pos");
    EXPECT_REFUSED(w, ecs_register(w, "Pos", sizeof(Pos), 1) == 0, ECS_ERR_INVALID, "ecs_register", NULL, "Pos");
    EXPECT_REFUSED(w, ECS_TAG(w, "Health") == 0, ECS_ERR_INVALID, "ecs_register", NULL, "Health");
    CHECK(ecs_component_max(w) == 4 && ecs_component_size(w, pos) == sizeof(Pos));
    teardown();
}

static void test_lookup_of_null_or_unknown_name_returns_zero_quietly(void) {
    setup();
    EXPECT_QUIET(w, ecs_lookup(w, NULL) == 0);
    EXPECT_QUIET(w, ecs_lookup(w, "Nobody") == 0 && ecs_lookup(w, "") == 0 && ecs_lookup(w, "pos") == 0);
    teardown();
}

static void test_component_name_size_and_storage_calls_of_unknown_component_assert(void) {
    setup();
    EXPECT_REFUSED(w, ecs_component_name(w, UNKNOWN) == NULL, ECS_OK, "ecs_component_name", NULL, "component #99");
    EXPECT_REFUSED(w, ecs_component_size(w, 0) == 0, ECS_OK, "ecs_component_size", NULL, "unknown component");
    EXPECT_REFUSED(w, ecs_storage_of(w, UNKNOWN) == NULL, ECS_OK, "ecs_storage_of", NULL, "component #99");
    EXPECT_REFUSED(w, ecs_storage_of(w, 0) == NULL, ECS_OK, "ecs_storage_of", NULL, "unknown component");
    teardown();
}

/* A NULL storage (what ecs_storage_of answered for an unknown component)
   is refused by every call that takes one; there is no world to record in. */
static void test_storage_calls_on_a_null_storage_assert(void) {
    setup();
    EXPECT_ASSERT(ecs_storage_count(NULL) == 0, "ecs_storage_count: the storage is NULL");
    EXPECT_ASSERT(ecs_storage_entities(NULL) == NULL, "ecs_storage_entities: the storage is NULL");
    EXPECT_ASSERT(ecs_storage_data(NULL) == NULL, "ecs_storage_data: the storage is NULL");
    EXPECT_ASSERT(ecs_storage_get(NULL, alive) == NULL, "ecs_storage_get: the storage is NULL");
    EXPECT_ASSERT(ecs_storage_get_mut(NULL, alive) == NULL, "ecs_storage_get_mut: the storage is NULL");
    EXPECT_ASSERT(!ecs_storage_has(NULL, alive), "ecs_storage_has: the storage is NULL");
    teardown();
}

/* ---- views ------------------------------------------------------------------------- */

/* The view of d yields nothing, one way or another, and asserts once for
   each ecs_view call naming comp. */
#define EXPECT_BAD_VIEW(d, comp)                                                                 \
    do {                                                                                         \
        ecs_iter it_;                                                                            \
        EXPECT_REFUSED(w, (it_ = ecs_view(w, &(d)), !ecs_iter_next(&it_)), ECS_OK, "ecs_view", NULL, (comp)); \
        EXPECT_REFUSED(w, (it_ = ecs_view(w, &(d)), !ecs_iter_next_block(&it_)), ECS_OK, "ecs_view", NULL, (comp)); \
    } while (0)

static ecs_view_desc desc2(ecs_component a, uint32_t fa, ecs_component b, uint32_t fb) {
    ecs_view_desc d;
    memset(&d, 0, sizeof d);
    d.terms[0].c = a;
    d.terms[0].flags = fa;
    d.terms[1].c = b;
    d.terms[1].flags = fb;
    return d;
}

static void test_view_with_unknown_or_repeated_component_bad_flags_no_required_term_untracked_filter_or_bad_lead_yields_nothing_and_asserts(void) {
    ecs_view_desc d;
    setup();
    d = desc2(pos, 0, UNKNOWN, 0);
    EXPECT_BAD_VIEW(d, "component #99");
    d = desc2(pos, 0, pos, ECS_OPTIONAL);
    EXPECT_BAD_VIEW(d, "Pos");
    d = desc2(pos, 0, health, ECS_NOT | ECS_WRITE);
    EXPECT_BAD_VIEW(d, "Health");
    d = desc2(pos, 0, health, ECS_OPTIONAL | ECS_ANY);
    EXPECT_BAD_VIEW(d, "Health");
    d = desc2(pos, 0, health, ECS_OPTIONAL | ECS_MODIFIED);
    EXPECT_BAD_VIEW(d, "Health");
    d = desc2(pos, 1u << 12, health, 0);
    EXPECT_BAD_VIEW(d, "Pos");
    d = desc2(pos, ECS_NOT, health, ECS_OPTIONAL); /* no required and no ECS_ANY term */
    EXPECT_BAD_VIEW(d, NULL);
    memset(&d, 0, sizeof d); /* no term at all */
    EXPECT_BAD_VIEW(d, NULL);
    d = desc2(pos, ECS_INSERTED, health, 0); /* Pos does not track insertion */
    EXPECT_BAD_VIEW(d, "Pos");
    d = desc2(pos, 0, health, ECS_OPTIONAL);
    d.lead = health;
    EXPECT_BAD_VIEW(d, "Health");
    d.lead = frozen; /* not a term at all */
    EXPECT_BAD_VIEW(d, "Frozen");
    teardown();
}

static void test_view_of_with_unknown_or_repeated_component_yields_nothing_and_asserts_naming_ecs_view_of(void) {
    ecs_component unknown[2] = {pos, UNKNOWN}, twice[2] = {pos, pos};
    ecs_iter it;
    setup();
    EXPECT_REFUSED(w, (it = ecs_view_of(w, 2, unknown), !ecs_iter_next(&it)), ECS_OK, "ecs_view_of", NULL,
                   "component #99");
    EXPECT_REFUSED(w, (it = ecs_view_of(w, 2, twice), !ecs_iter_next(&it)), ECS_OK, "ecs_view_of", NULL, "Pos");
    teardown();
}

static int by_x(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    (void)a, (void)b, (void)ctx;
    return ((const Pos *)va)->x < ((const Pos *)vb)->x ? -1 : ((const Pos *)va)->x > ((const Pos *)vb)->x;
}

static void test_iter_next_after_a_forbidden_change_asserts(void) {
    ecs_entity e[4];
    ecs_iter it;
    char cur[ECS_ENTITY_STR];
    int i;
    setup();
    for (i = 0; i < 4; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], pos, Pos, {(float)(10 - i), 0});
    }
    /* rows: alive, e0..e3; the walk starts at the last row (e3) */
    it = ecs_view_of(w, 1, &pos);
    CHECK(ecs_iter_next(&it) && ecs_iter_entity(&it) == e[3]);
    ecs_entity_str(ecs_iter_entity(&it), cur);
    CHECK(ecs_destroy(w, e[0])); /* another entity, not yet visited */
    EXPECT_REFUSED(w, ecs_iter_next(&it) || 1, ECS_OK, "ecs_iter_next", cur, "Pos");
    CHECK_PTR_NE(strstr(test__assert_msg, "ecs_destroy"), NULL);
    while (ecs_iter_next(&it)) {}
    it = ecs_view_of(w, 1, &pos);
    CHECK(ecs_iter_next(&it));
    ecs_entity_str(ecs_iter_entity(&it), cur);
    CHECK(ecs_sort(w, pos, by_x, NULL)); /* sorting the walked storage */
    EXPECT_REFUSED(w, ecs_iter_next(&it) || 1, ECS_OK, "ecs_iter_next", cur, "Pos");
    CHECK_PTR_NE(strstr(test__assert_msg, "ecs_sort"), NULL);
    teardown();
}

static void test_field_with_bad_index_or_wrong_sizeof_asserts(void) {
    ecs_iter it;
    char cur[ECS_ENTITY_STR];
    setup();
    it = ecs_view_of(w, 1, &pos);
    CHECK(ecs_iter_next(&it) && ecs_iter_entity(&it) == alive);
    ecs_entity_str(ecs_iter_entity(&it), cur);
    EXPECT_REFUSED(w, ECS_FIELD(&it, 1, Pos) == NULL, ECS_OK, "ECS_FIELD", cur, NULL);
    EXPECT_REFUSED(w, ECS_FIELD(&it, 0, Health) == NULL, ECS_OK, "ECS_FIELD", cur, "Pos");
    CHECK(ECS_FIELD(&it, 0, Pos)->x == 1);
    teardown();
}

static void test_ecs_field_with_bad_index_asserts_naming_ecs_field(void) {
    ecs_iter it;
    char cur[ECS_ENTITY_STR];
    setup();
    it = ecs_view_of(w, 1, &pos);
    CHECK(ecs_iter_next(&it));
    ecs_entity_str(ecs_iter_entity(&it), cur);
    EXPECT_REFUSED(w, ecs_field(&it, 3) == NULL, ECS_OK, "ecs_field", cur, NULL);
    teardown();
}

static void test_iter_chunk_of_a_union_view_out_of_range_or_after_the_first_next_asserts(void) {
    ecs_view_desc d;
    ecs_iter it;
    setup();
    d = desc2(pos, ECS_ANY, health, ECS_ANY);
    it = ecs_view(w, &d);
    EXPECT_REFUSED(w, !ecs_iter_chunk(&it, 0, 2), ECS_OK, "ecs_iter_chunk", NULL, NULL);
    it = ecs_view_of(w, 1, &pos);
    EXPECT_REFUSED(w, !ecs_iter_chunk(&it, 2, 2), ECS_OK, "ecs_iter_chunk", NULL, NULL);
    EXPECT_REFUSED(w, !ecs_iter_chunk(&it, 0, 0), ECS_OK, "ecs_iter_chunk", NULL, NULL);
    CHECK(ecs_iter_next(&it));
    EXPECT_REFUSED(w, !ecs_iter_chunk(&it, 0, 2), ECS_OK, "ecs_iter_chunk", NULL, NULL);
    teardown();
}

/* ---- the command buffer ------------------------------------------------------------ */

static void test_defer_add_to_stale_entity_or_of_unknown_component_asserts(void) {
    setup();
    EXPECT_REFUSED(w, !ecs_defer_add(w, stale, pos, NULL), ECS_ERR_DEAD_ENTITY, "ecs_defer_add", stale_s, "Pos");
    EXPECT_REFUSED(w, !ECS_DEFER_ADD(w, stale, pos, Pos, {1, 1}), ECS_ERR_DEAD_ENTITY, "ECS_DEFER_ADD", stale_s,
                   "Pos");
    EXPECT_REFUSED(w, !ecs_defer_add(w, alive, UNKNOWN, NULL), ECS_ERR_UNKNOWN_COMPONENT, "ecs_defer_add",
                   alive_s, "component #99");
    CHECK_EQ(ecs_defer_pending(w), 0); /* nothing recorded */
    teardown();
}

static void test_defer_calls_out_of_memory_return_false_and_record_nothing(void) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    setup_with(&d);
    failing = 1; /* the buffer has no memory yet */
    EXPECT_ERROR(w, !ecs_defer_destroy(w, alive), ECS_ERR_OUT_OF_MEMORY, "ecs_defer_destroy");
    EXPECT_ERROR(w, !ecs_defer_add(w, alive, pos, NULL), ECS_ERR_OUT_OF_MEMORY, "ecs_defer_add");
    EXPECT_ERROR(w, !ecs_defer_remove(w, alive, pos), ECS_ERR_OUT_OF_MEMORY, "ecs_defer_remove");
    EXPECT_ERROR(w, !ecs_defer_delete(w, alive, pos), ECS_ERR_OUT_OF_MEMORY, "ecs_defer_delete");
    while (ecs_create(w) != ECS_NULL) {} /* the slot array is full */
    ecs_clear_error(w); /* ecs_defer_create is ecs_create: its message says "ecs_create" */
    CHECK(ecs_defer_create(w) == ECS_NULL && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY);
    failing = 0;
    CHECK(ecs_defer_pending(w) == 0 && ecs_flush(w) == 0);
    CHECK(ecs_alive(w, alive) && ecs_has(w, alive, pos));
    teardown();
}

static void test_flush_skips_commands_whose_entity_died_meanwhile(void) {
    ecs_entity a, b;
    setup();
    a = ecs_create(w);
    b = ecs_create(w);
    ECS_ADD(w, b, pos, Pos, {1, 1});
    CHECK(ecs_defer_add(w, a, pos, NULL) && ecs_defer_remove(w, b, pos) && ecs_defer_destroy(w, a));
    CHECK(ecs_defer_delete(w, alive, frozen)); /* alive never had Frozen */
    CHECK(ecs_defer_add(w, alive, health, NULL));
    ecs_destroy(w, a);
    ecs_destroy(w, b);
    EXPECT_QUIET(w, ecs_flush(w) == 1); /* only the add to alive took effect */
    CHECK(ecs_defer_pending(w) == 0 && ECS_GET(w, alive, health, Health)->hp == 0);
    teardown();
}

static void test_flush_out_of_memory_stops_and_keeps_the_rest_queued(void) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    setup_with(&d);
    CHECK(ecs_defer_add(w, alive, health, NULL)); /* a replace: needs no memory */
    CHECK(ECS_DEFER_ADD(w, alive, tim, Time, {5})); /* an insert into an empty storage */
    CHECK(ecs_defer_delete(w, alive, pos));
    failing = 1;
    EXPECT_ERROR(w, ecs_flush(w) == 1, ECS_ERR_OUT_OF_MEMORY, "ecs_flush");
    failing = 0;
    CHECK(ecs_defer_pending(w) == 2 && ecs_has(w, alive, pos) && !ecs_has(w, alive, tim));
    CHECK_EQ(ecs_flush(w), 2); /* the retry completes */
    CHECK(ecs_defer_pending(w) == 0 && !ecs_has(w, alive, pos) && ECS_GET(w, alive, tim, Time)->t == 5);
    teardown();
}

/* ---- sorting ------------------------------------------------------------------------ */

static void test_sort_or_sort_as_of_unknown_or_group_owned_storage_asserts(void) {
    ecs_group_desc gd;
    setup();
    EXPECT_REFUSED(w, !ecs_sort(w, UNKNOWN, by_x, NULL), ECS_OK, "ecs_sort", NULL, "component #99");
    EXPECT_REFUSED(w, !ecs_sort_as(w, UNKNOWN, pos), ECS_OK, "ecs_sort_as", NULL, "component #99");
    EXPECT_REFUSED(w, !ecs_sort_as(w, pos, UNKNOWN), ECS_OK, "ecs_sort_as", NULL, "component #99");
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = pos;
    gd.owned[1] = health;
    CHECK_NE(ecs_group_new(w, &gd), 0);
    EXPECT_REFUSED(w, !ecs_sort(w, pos, by_x, NULL), ECS_OK, "ecs_sort", NULL, "Pos");
    EXPECT_REFUSED(w, !ecs_sort_as(w, health, tim), ECS_OK, "ecs_sort_as", NULL, "Health");
    teardown();
}

static void test_sort_out_of_memory_returns_false_and_moves_nothing(void) {
    ecs_desc d;
    ecs_entity e[5], before[6];
    int i;
    memset(&d, 0, sizeof d);
    setup_with(&d);
    for (i = 0; i < 5; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], pos, Pos, {(float)(5 - i), 0});
        if (i % 2) ECS_ADD(w, e[i], health, Health, {i});
    }
    memcpy(before, ecs_storage_entities(ecs_storage_of(w, pos)), sizeof before);
    failing = 1;
    EXPECT_ERROR(w, !ecs_sort(w, pos, by_x, NULL), ECS_ERR_OUT_OF_MEMORY, "ecs_sort");
    CHECK_EQ(memcmp(before, ecs_storage_entities(ecs_storage_of(w, pos)), sizeof before), 0);
    CHECK(ecs_sort_as(w, health, pos)); /* needs no memory */
    failing = 0;
    CHECK(ecs_sort(w, pos, by_x, NULL) && ecs_storage_entities(ecs_storage_of(w, pos))[0] == alive);
    teardown();
}

/* ---- uniques ------------------------------------------------------------------------ */

static void test_unique_calls_of_unknown_component_assert(void) {
    setup();
    EXPECT_REFUSED(w, ecs_unique_add(w, UNKNOWN, NULL) == NULL, ECS_OK, "ecs_unique_add", NULL, "component #99");
    EXPECT_REFUSED(w, ecs_unique_get(w, UNKNOWN) == NULL, ECS_OK, "ecs_unique_get", NULL, "component #99");
    EXPECT_REFUSED(w, ecs_unique_get_mut(w, 0) == NULL, ECS_OK, "ecs_unique_get_mut", NULL, "unknown component");
    EXPECT_REFUSED(w, !ecs_unique_has(w, UNKNOWN), ECS_OK, "ecs_unique_has", NULL, "component #99");
    EXPECT_REFUSED(w, !ecs_unique_remove(w, UNKNOWN, NULL), ECS_OK, "ecs_unique_remove", NULL, "component #99");
    EXPECT_REFUSED(w, !ecs_track_unique_inserted(w, UNKNOWN, 0), ECS_OK, "ecs_track_unique_inserted", NULL,
                   "component #99");
    EXPECT_REFUSED(w, !ecs_track_unique_modified(w, UNKNOWN, 0), ECS_OK, "ecs_track_unique_modified", NULL,
                   "component #99");
    EXPECT_REFUSED(w, ECS_UNIQUE_ADD(w, UNKNOWN, Time, {1}) == NULL, ECS_OK, "ECS_UNIQUE_ADD", NULL,
                   "component #99");
    EXPECT_REFUSED(w, ECS_UNIQUE_GET(w, UNKNOWN, Time) == NULL, ECS_OK, "ECS_UNIQUE_GET", NULL, "component #99");
    EXPECT_REFUSED(w, ECS_UNIQUE_GET_MUT(w, UNKNOWN, Time) == NULL, ECS_OK, "ECS_UNIQUE_GET_MUT", NULL,
                   "component #99");
    teardown();
}

static void test_unique_get_without_a_unique_value_asserts_not_found(void) {
    setup();
    EXPECT_REFUSED(w, ecs_unique_get(w, tim) == NULL, ECS_ERR_NOT_FOUND, "ecs_unique_get", NULL, "Time");
    EXPECT_REFUSED(w, ecs_unique_get_mut(w, tim) == NULL, ECS_ERR_NOT_FOUND, "ecs_unique_get_mut", NULL, "Time");
    EXPECT_REFUSED(w, ECS_UNIQUE_GET(w, tim, Time) == NULL, ECS_ERR_NOT_FOUND, "ECS_UNIQUE_GET", NULL, "Time");
    EXPECT_REFUSED(w, ECS_UNIQUE_GET_MUT(w, tim, Time) == NULL, ECS_ERR_NOT_FOUND, "ECS_UNIQUE_GET_MUT", NULL,
                   "Time");
    CHECK(ECS_UNIQUE_ADD(w, tim, Time, {1}) != NULL && ecs_unique_remove(w, tim, NULL));
    EXPECT_REFUSED(w, ecs_unique_get(w, tim) == NULL, ECS_ERR_NOT_FOUND, "ecs_unique_get", NULL, "Time");
    teardown();
}

/* ---- tracking ----------------------------------------------------------------------- */

static void test_track_of_unknown_component_or_with_bad_flags_asserts(void) {
    setup();
    EXPECT_REFUSED(w, !ecs_track_set(w, UNKNOWN, ECS_TRACK_ALL), ECS_OK, "ecs_track_set", NULL, "component #99");
    EXPECT_REFUSED(w, !ecs_track_set(w, pos, ECS_TRACK_ENTITIES), ECS_OK, "ecs_track_set", NULL, "Pos");
    EXPECT_REFUSED(w, !ecs_track_set(w, pos, 1u << 9), ECS_OK, "ecs_track_set", NULL, "Pos");
    CHECK_EQ(ecs_track_get(w, pos), 0);
    teardown();
}

static void test_track_out_of_memory_returns_false_and_changes_nothing(void) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    setup_with(&d);
    CHECK(ecs_track_set(w, pos, ECS_TRACK_REMOVAL));
    failing = 1; /* Pos has rows: tick arrays must be allocated */
    ecs_clear_error(w);
    CHECK(!ecs_track_set(w, pos, ECS_TRACK_INSERTION | ECS_TRACK_REMOVAL));
    CHECK(!ecs_track_set(w, pos, ECS_TRACK_ALL));
    failing = 0;
    CHECK_EQ(ecs_track_get(w, pos), ECS_TRACK_REMOVAL);
    teardown();
}

static void test_tracking_queries_on_a_storage_not_tracking_them_assert_invalid(void) {
    uint32_t n = 77;
    ecs_change fake;
    setup();
    CHECK(ecs_track_set(w, health, ECS_TRACK_INSERTION));
    EXPECT_REFUSED(w, !ecs_track_inserted(w, alive, pos, 0), ECS_ERR_INVALID, "ecs_track_inserted", alive_s, "Pos");
    EXPECT_REFUSED(w, !ecs_track_modified(w, alive, health, 0), ECS_ERR_INVALID, "ecs_track_modified", alive_s,
                   "Health");
    EXPECT_REFUSED(w, ecs_track_removed(w, pos, 0, &n) == NULL, ECS_ERR_INVALID, "ecs_track_removed", NULL, "Pos");
    CHECK_EQ(n, 0);
    n = 77;
    EXPECT_REFUSED(w, ecs_track_deleted(w, health, 0, &n) == NULL, ECS_ERR_INVALID, "ecs_track_deleted", NULL, "Health");
    CHECK_EQ(n, 0);
    fake.entity = alive;
    fake.tick = 1;
    EXPECT_REFUSED(w, ecs_track_deleted_value(w, pos, &fake) == NULL, ECS_ERR_INVALID, "ecs_track_deleted_value", NULL, "Pos");
    n = 77;
    EXPECT_REFUSED(w, ecs_track_created(w, 0, &n) == NULL, ECS_ERR_INVALID, "ecs_track_created", NULL, NULL);
    CHECK_EQ(n, 0);
    EXPECT_REFUSED(w, ecs_track_destroyed(w, 0, &n) == NULL, ECS_ERR_INVALID, "ecs_track_destroyed", NULL, NULL);
    teardown();
}

/* ---- hooks --------------------------------------------------------------------------- */

static void set_own_hooks(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    ecs_hooks h = {0};
    (void)e, (void)value, (void)user;
    memset(&h, 0, sizeof h);
    EXPECT_REFUSED(hw, !ecs_hooks_set(hw, c, &h), ECS_ERR_LOCKED, "ecs_hooks_set", NULL, "Frozen");
    EXPECT_REFUSED(hw, !ecs_hooks_set(hw, c, NULL), ECS_ERR_LOCKED, "ecs_hooks_set", NULL, "Frozen");
}

static void test_set_hooks_while_its_hook_runs_asserts_locked(void) {
    ecs_hooks h = {0};
    setup();
    memset(&h, 0, sizeof h);
    h.on_insert = set_own_hooks;
    CHECK(ecs_hooks_set(w, frozen, &h));
    CHECK_PTR_NE(ecs_add(w, alive, frozen, NULL), NULL);
    CHECK(ecs_hooks_set(w, frozen, NULL)); /* outside the hook: fine */
    teardown();
}

/* ---- groups --------------------------------------------------------------------------- */

static void test_group_new_with_owned_twice_unknown_repeated_or_nothing_owned_asserts(void) {
    ecs_group_desc d;
    setup();
    memset(&d, 0, sizeof d);
    d.owned[0] = pos;
    CHECK_EQ(ecs_group_new(w, &d), 1);
    d.owned[1] = health; /* Pos is owned by group 1 */
    EXPECT_REFUSED(w, ecs_group_new(w, &d) == 0, ECS_OK, "ecs_group_new", NULL, "Pos");
    d.owned[0] = health;
    d.owned[1] = UNKNOWN;
    EXPECT_REFUSED(w, ecs_group_new(w, &d) == 0, ECS_OK, "ecs_group_new", NULL, "component #99");
    d.owned[1] = tim;
    d.excluded[0] = UNKNOWN;
    EXPECT_REFUSED(w, ecs_group_new(w, &d) == 0, ECS_OK, "ecs_group_new", NULL, "component #99");
    d.excluded[0] = health; /* owned and excluded */
    EXPECT_REFUSED(w, ecs_group_new(w, &d) == 0, ECS_OK, "ecs_group_new", NULL, "Health");
    d.excluded[0] = 0;
    d.owned[1] = health; /* owned twice in one desc */
    EXPECT_REFUSED(w, ecs_group_new(w, &d) == 0, ECS_OK, "ecs_group_new", NULL, "Health");
    memset(&d, 0, sizeof d);
    d.excluded[0] = frozen;
    EXPECT_REFUSED(w, ecs_group_new(w, &d) == 0, ECS_OK, "ecs_group_new", NULL, NULL);
    d.owned[0] = health; /* nothing was half-made: Health is still free */
    CHECK_EQ(ecs_group_new(w, &d), 2);
    teardown();
}

static void test_group_calls_with_bad_group_or_a_component_it_does_not_own_assert(void) {
    ecs_group_desc d;
    ecs_group g;
    setup();
    memset(&d, 0, sizeof d);
    d.owned[0] = pos;
    g = ecs_group_new(w, &d);
    EXPECT_REFUSED(w, ecs_group_count(w, 0) == 0, ECS_OK, "ecs_group_count", NULL, NULL);
    EXPECT_REFUSED(w, ecs_group_entities(w, g + 1) == NULL, ECS_OK, "ecs_group_entities", NULL, NULL);
    EXPECT_REFUSED(w, ecs_group_data(w, 7, pos) == NULL, ECS_OK, "ecs_group_data", NULL, NULL);
    EXPECT_REFUSED(w, !ecs_group_sort(w, 0, pos, by_x, NULL), ECS_OK, "ecs_group_sort", NULL, NULL);
    EXPECT_REFUSED(w, ecs_group_data(w, g, health) == NULL, ECS_OK, "ecs_group_data", NULL, "Health");
    EXPECT_REFUSED(w, ecs_group_data(w, g, UNKNOWN) == NULL, ECS_OK, "ecs_group_data", NULL, "component #99");
    EXPECT_REFUSED(w, !ecs_group_sort(w, g, health, by_x, NULL), ECS_OK, "ecs_group_sort", NULL, "Health");
    teardown();
}

/* ---- systems and workloads ------------------------------------------------------------ */

static int ok_system(const ecs_system_ctx *ctx) {
    (void)ctx;
    return 0;
}
static int failing_system(const ecs_system_ctx *ctx) {
    (void)ctx;
    return 42;
}
static int nested_run_result;
static void run_nested(ecs_world *hw) {
    EXPECT_REFUSED(hw, (nested_run_result = ecs_workload_run(hw, "inner")) == -1, ECS_ERR_INVALID,
                   "ecs_workload_run", NULL, NULL);
}
static int running_system(const ecs_system_ctx *ctx) {
    run_nested(ctx->world);
    return 0;
}

static ecs_system_desc sys(const char *name, ecs_system_fn fn) {
    ecs_system_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.fn = fn;
    return d;
}

static void test_system_add_without_name_or_fn_or_with_a_taken_name_asserts_invalid(void) {
    ecs_system_desc d;
    const char *items[1] = {"a"};
    setup();
    d = sys(NULL, ok_system);
    EXPECT_REFUSED(w, !ecs_system_new(w, &d), ECS_ERR_INVALID, "ecs_system_new", NULL, NULL);
    d = sys("", ok_system);
    EXPECT_REFUSED(w, !ecs_system_new(w, &d), ECS_ERR_INVALID, "ecs_system_new", NULL, NULL);
    d = sys("a", NULL);
    EXPECT_REFUSED(w, !ecs_system_new(w, &d), ECS_ERR_INVALID, "ecs_system_new", NULL, NULL);
    EXPECT_REFUSED(w, !ecs_system_new(w, NULL), ECS_ERR_INVALID, "ecs_system_new", NULL, NULL);
    d = sys("a", ok_system);
    CHECK(ecs_system_new(w, &d));
    EXPECT_REFUSED(w, !ecs_system_new(w, &d), ECS_ERR_INVALID, "ecs_system_new", NULL, NULL);
    CHECK(ecs_workload_new(w, "frame", 1, items));
    d = sys("frame", ok_system); /* taken by a workload */
    EXPECT_REFUSED(w, !ecs_system_new(w, &d), ECS_ERR_INVALID, "ecs_system_new", NULL, NULL);
    teardown();
}

static void test_workload_add_with_unknown_item_or_taken_name_asserts(void) {
    ecs_system_desc d;
    const char *items[2] = {"a", "nobody"};
    setup();
    d = sys("a", ok_system);
    CHECK(ecs_system_new(w, &d));
    EXPECT_REFUSED(w, !ecs_workload_new(w, "frame", 2, items), ECS_ERR_NOT_FOUND, "ecs_workload_new", NULL, NULL);
    CHECK_PTR_NE(strstr(test__assert_msg, "nobody"), NULL);
    CHECK(ecs_workload_new(w, "frame", 1, items));
    EXPECT_REFUSED(w, !ecs_workload_new(w, "frame", 1, items), ECS_ERR_INVALID, "ecs_workload_new", NULL, NULL);
    EXPECT_REFUSED(w, !ecs_workload_new(w, "a", 1, items), ECS_ERR_INVALID, "ecs_workload_new", NULL, NULL);
    CHECK_EQ(ecs_workload_plan(w, "frame", NULL, 0), 1);
    teardown();
}

static void test_workload_run_of_an_unknown_workload_or_from_inside_a_run_asserts(void) {
    ecs_system_desc d;
    const char *outer[1] = {"runner"}, *inner[1] = {"a"};
    setup();
    EXPECT_REFUSED(w, ecs_workload_run(w, NULL) == -1, ECS_ERR_NOT_FOUND, "ecs_workload_run", NULL, NULL);
    EXPECT_REFUSED(w, ecs_workload_run(w, "nobody") == -1, ECS_ERR_NOT_FOUND, "ecs_workload_run", NULL, NULL);
    d = sys("a", ok_system);
    CHECK(ecs_system_new(w, &d));
    d = sys("runner", running_system);
    CHECK(ecs_system_new(w, &d));
    CHECK(ecs_workload_new(w, "outer", 1, outer) && ecs_workload_new(w, "inner", 1, inner));
    nested_run_result = 0;
    CHECK(ecs_workload_run(w, "outer") == 0 && nested_run_result == -1);
    teardown();
}

static void test_workload_run_returns_what_a_failing_system_returned_without_assert(void) {
    ecs_system_desc d;
    const char *items[2] = {"bad", "after"};
    setup();
    d = sys("bad", failing_system);
    CHECK(ecs_system_new(w, &d));
    d = sys("after", ok_system);
    d.structural = true; /* its own batch: not run after the failure */
    CHECK(ecs_system_new(w, &d));
    CHECK(ecs_workload_new(w, "frame", 2, items));
    EXPECT_ERROR(w, ecs_workload_run(w, "frame") == 42, ECS_ERR_SYSTEM, "ecs_workload_run");
    CHECK_PTR_NE(strstr(ecs_last_error_msg(w), "bad"), NULL);
    CHECK(ecs_workload_failed_system(w) != NULL && strcmp(ecs_workload_failed_system(w), "bad") == 0);
    teardown();
}

/* The catalogue's last row, "any call / NULL world / undefined (not
   checked)", promises nothing to test. */

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_world_new_with_alloc_but_no_free_asserts_and_returns_null);
    RUN(test_world_new_out_of_memory_returns_null_without_assert);
    RUN(test_create_with_no_slot_left_returns_null_exhausted);
    RUN(test_create_out_of_memory_returns_null_out_of_memory);
    RUN(test_create_with_unknown_or_repeated_component_asserts);
    RUN(test_destroy_or_strip_of_null_or_stale_entity_returns_false_quietly);
    RUN(test_destroy_or_strip_from_its_own_hook_asserts_locked);
    RUN(test_destroy_or_strip_out_of_memory_for_tracking_returns_false_out_of_memory);
    RUN(test_alive_has_get_get_mut_of_null_or_stale_entity_return_false_quietly);
    RUN(test_has_get_get_mut_of_unknown_component_assert);
    RUN(test_typed_get_with_wrong_sizeof_asserts);
    RUN(test_add_to_stale_entity_asserts_dead_entity);
    RUN(test_add_of_unknown_component_asserts);
    RUN(test_add_with_wrong_sizeof_asserts_size_mismatch);
    RUN(test_add_under_a_hook_lock_or_to_an_entity_being_stripped_asserts_locked);
    RUN(test_add_out_of_memory_returns_failure_out_of_memory);
    RUN(test_remove_or_delete_of_null_or_stale_entity_returns_false_quietly);
    RUN(test_remove_or_delete_of_unknown_component_asserts);
    RUN(test_typed_remove_with_wrong_sizeof_asserts_size_mismatch);
    RUN(test_remove_or_delete_under_a_hook_lock_asserts_locked);
    RUN(test_remove_or_delete_out_of_memory_for_tracking_returns_false_out_of_memory);
    RUN(test_register_without_name_or_with_bad_size_align_or_taken_name_asserts_invalid);
    RUN(test_lookup_of_null_or_unknown_name_returns_zero_quietly);
    RUN(test_component_name_size_and_storage_calls_of_unknown_component_assert);
    RUN(test_storage_calls_on_a_null_storage_assert);
    RUN(test_view_with_unknown_or_repeated_component_bad_flags_no_required_term_untracked_filter_or_bad_lead_yields_nothing_and_asserts);
    RUN(test_view_of_with_unknown_or_repeated_component_yields_nothing_and_asserts_naming_ecs_view_of);
    RUN(test_iter_next_after_a_forbidden_change_asserts);
    RUN(test_field_with_bad_index_or_wrong_sizeof_asserts);
    RUN(test_ecs_field_with_bad_index_asserts_naming_ecs_field);
    RUN(test_iter_chunk_of_a_union_view_out_of_range_or_after_the_first_next_asserts);
    RUN(test_defer_add_to_stale_entity_or_of_unknown_component_asserts);
    RUN(test_defer_calls_out_of_memory_return_false_and_record_nothing);
    RUN(test_flush_skips_commands_whose_entity_died_meanwhile);
    RUN(test_flush_out_of_memory_stops_and_keeps_the_rest_queued);
    RUN(test_sort_or_sort_as_of_unknown_or_group_owned_storage_asserts);
    RUN(test_sort_out_of_memory_returns_false_and_moves_nothing);
    RUN(test_unique_calls_of_unknown_component_assert);
    RUN(test_unique_get_without_a_unique_value_asserts_not_found);
    RUN(test_track_of_unknown_component_or_with_bad_flags_asserts);
    RUN(test_track_out_of_memory_returns_false_and_changes_nothing);
    RUN(test_tracking_queries_on_a_storage_not_tracking_them_assert_invalid);
    RUN(test_set_hooks_while_its_hook_runs_asserts_locked);
    RUN(test_group_new_with_owned_twice_unknown_repeated_or_nothing_owned_asserts);
    RUN(test_group_calls_with_bad_group_or_a_component_it_does_not_own_assert);
    RUN(test_system_add_without_name_or_fn_or_with_a_taken_name_asserts_invalid);
    RUN(test_workload_add_with_unknown_item_or_taken_name_asserts);
    RUN(test_workload_run_of_an_unknown_workload_or_from_inside_a_run_asserts);
    RUN(test_workload_run_returns_what_a_failing_system_returned_without_assert);
    teardown();
    return test_summary();
}
