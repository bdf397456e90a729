/* Uniques: one value per component type held by the world, not by an
   entity (time step, input, config). Add inserts or replaces; get on a
   missing unique is a bug and asserts; uniques are always tracked. */
#include "test.h"
#include "../ecs.h"

typedef struct { float dt; } Time;
typedef struct { double x, y; } Gravity;

static ecs_world *w;
static ecs_component time_c, grav;

static void setup(void) {
    w = ecs_world_new(NULL);
    time_c = ECS_COMPONENT(w, Time);
    grav = ECS_COMPONENT(w, Gravity);
}

static void test_unique_add_inserts_then_replaces_in_place(void) {
    Time *t, *again;
    setup();
    CHECK(!ecs_unique_has(w, time_c));
    t = ECS_UNIQUE_ADD(w, time_c, Time, {0.5f});
    CHECK(t != NULL && t->dt == 0.5f);
    CHECK(ecs_unique_has(w, time_c));
    again = ECS_UNIQUE_ADD(w, time_c, Time, {0.25f}); /* replaces: same place */
    CHECK(again == t && t->dt == 0.25f);
    CHECK_PTR_EQ(ecs_unique_get(w, time_c), t);
    CHECK_PTR_EQ(ecs_unique_get_mut(w, time_c), t);
    CHECK(ECS_UNIQUE_GET(w, time_c, Time) == t && ECS_UNIQUE_GET_MUT(w, time_c, Time) == t);
    ecs_world_free(w);
}

/* ECS_UNIQUE_REMOVE, beside ECS_UNIQUE_ADD/GET: the value goes to out
   (T *, or NULL), the unique is gone; under ECS_DEBUG a T of another size
   asserts and removes nothing. */
static void test_typed_unique_remove_gives_the_value_and_checks_its_size(void) {
    Time out = {0};
    setup();
    ECS_UNIQUE_ADD(w, time_c, Time, {0.75f});
#if ECS_DEBUG
    {
        Gravity wrong;
        EXPECT_ASSERT(!ECS_UNIQUE_REMOVE(w, time_c, Gravity, &wrong), "ECS_UNIQUE_REMOVE");
        CHECK(ecs_unique_has(w, time_c));
    }
#endif
    CHECK(ECS_UNIQUE_REMOVE(w, time_c, Time, &out));
    CHECK(out.dt == 0.75f && !ecs_unique_has(w, time_c));
    CHECK(!ECS_UNIQUE_REMOVE(w, time_c, Time, NULL)); /* none left: false, no assert */
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    CHECK(ECS_UNIQUE_REMOVE(w, time_c, Time, NULL) && !ecs_unique_has(w, time_c));
    ecs_world_free(w);
}

static void test_unique_add_with_null_value_zeroes(void) {
    Gravity *g;
    setup();
    ECS_UNIQUE_ADD(w, grav, Gravity, {1.0, -9.8});
    g = (Gravity *)ecs_unique_add(w, grav, NULL);
    CHECK(g != NULL && g->x == 0.0 && g->y == 0.0);
    ecs_world_free(w);
}

static void test_unique_is_not_an_entity_component(void) {
    ecs_entity e;
    const Time *t;
    setup();
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    CHECK(ecs_storage_count(ecs_storage_of(w, time_c)) == 0 && ecs_count(w) == 0);
    e = ecs_create(w);
    ECS_ADD(w, e, time_c, Time, {2.0f}); /* an entity's own Time is separate */
    CHECK(ECS_GET(w, e, time_c, Time)->dt == 2.0f);
    t = ECS_UNIQUE_GET(w, time_c, Time);
    CHECK(t->dt == 1.0f);
    ecs_delete(w, e, time_c);
    CHECK(ecs_unique_has(w, time_c) && ECS_UNIQUE_GET(w, time_c, Time)->dt == 1.0f);
    ecs_world_free(w);
}

static void test_unique_pointer_stays_valid_while_the_storage_grows(void) {
    Time *t;
    int i;
    setup();
    t = ECS_UNIQUE_ADD(w, time_c, Time, {0.125f});
    for (i = 0; i < 1000; i++) ECS_ADD(w, ecs_create(w), time_c, Time, {(float)i});
    CHECK(ecs_unique_get(w, time_c) == t && t->dt == 0.125f);
    ecs_world_free(w);
}

static void test_unique_remove_copies_out_and_forgets_the_value(void) {
    Gravity out = {0, 0};
    setup();
    ECS_UNIQUE_ADD(w, grav, Gravity, {3.0, 4.0});
    CHECK(ecs_unique_remove(w, grav, &out));
    CHECK(out.x == 3.0 && out.y == 4.0);
    CHECK(!ecs_unique_has(w, grav));
    CHECK(!ecs_unique_remove(w, grav, &out)); /* nothing left: false, no assert */
    ECS_UNIQUE_ADD(w, grav, Gravity, {5.0, 6.0});
    CHECK(ecs_unique_remove(w, grav, NULL)); /* out may be NULL */
    CHECK(!ecs_unique_has(w, grav));
    ecs_world_free(w);
}

static void test_missing_unique_returns_null_and_asserts_not_found(void) {
    setup();
    EXPECT_ASSERT(ecs_unique_get(w, time_c) == NULL, "no unique value");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_NOT_FOUND);
    ecs_clear_error(w);
    EXPECT_ASSERT(ecs_unique_get_mut(w, time_c) == NULL, "no unique value");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_NOT_FOUND);
    EXPECT_ASSERT(ECS_UNIQUE_GET(w, time_c, Time) == NULL, "ECS_UNIQUE_GET");
    EXPECT_ASSERT(ECS_UNIQUE_GET_MUT(w, time_c, Time) == NULL, "ECS_UNIQUE_GET_MUT");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_NOT_FOUND);
    /* after a remove it is missing again */
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    ecs_unique_remove(w, time_c, NULL);
    EXPECT_ASSERT(ecs_unique_get(w, time_c) == NULL, "no unique value");
    ecs_world_free(w);
}

static void test_typed_unique_macros_check_the_size(void) {
    setup();
    EXPECT_ASSERT(ECS_UNIQUE_ADD(w, time_c, Gravity, {1.0, 2.0}) == NULL, "sizeof(T) is 16");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_SIZE_MISMATCH);
    CHECK(!ecs_unique_has(w, time_c)); /* nothing was added */
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    EXPECT_ASSERT(ECS_UNIQUE_GET(w, time_c, Gravity) == NULL, "ECS_UNIQUE_GET");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_SIZE_MISMATCH);
    {
        ecs_tick s = ecs_tick_advance(w);
        EXPECT_ASSERT(ECS_UNIQUE_GET_MUT(w, time_c, Gravity) == NULL, "ECS_UNIQUE_GET_MUT");
        CHECK(!ecs_track_unique_modified(w, time_c, s)); /* a failed get_mut marks nothing */
    }
    CHECK(ECS_UNIQUE_GET(w, time_c, Time)->dt == 1.0f);
    ecs_world_free(w);
}

static void test_unknown_component_asserts(void) {
    setup();
    EXPECT_ASSERT(ecs_unique_add(w, 99, NULL) == NULL, "unknown component");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_UNKNOWN_COMPONENT);
    EXPECT_ASSERT(!ecs_unique_has(w, 99), "unknown component");
    EXPECT_ASSERT(ecs_unique_get(w, 0) == NULL, "unknown component");
    EXPECT_ASSERT(!ecs_unique_remove(w, 99, NULL), "unknown component");
    ecs_world_free(w);
}

static void test_a_tag_can_be_a_unique(void) {
    ecs_component paused;
    setup();
    paused = ECS_TAG(w, "Paused");
    CHECK_PTR_NE(ecs_unique_add(w, paused, NULL), NULL);
    CHECK(ecs_unique_has(w, paused) && ecs_unique_get(w, paused) != NULL);
    CHECK(ecs_unique_remove(w, paused, NULL));
    CHECK(!ecs_unique_has(w, paused));
    ecs_world_free(w);
}

/* --- tracking ------------------------------------------------------------ */

static void test_unique_insert_counts_as_inserted_not_modified(void) {
    ecs_tick s;
    setup();
    CHECK_EQ(ecs_track_get(w, time_c), 0); /* uniques are tracked anyway */
    s = ecs_tick_advance(w);
    CHECK(!ecs_track_unique_inserted(w, time_c, s)); /* no unique yet */
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    CHECK(ecs_track_unique_inserted(w, time_c, s));
    CHECK(!ecs_track_unique_modified(w, time_c, s));
    CHECK(!ecs_track_unique_inserted(w, time_c, ecs_tick_advance(w))); /* nothing after a newer stamp */
    ecs_world_free(w);
}

static void test_unique_replace_and_get_mut_mark_modified_get_does_not(void) {
    ecs_tick s;
    setup();
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    s = ecs_tick_advance(w);
    (void)ecs_unique_get(w, time_c);
    (void)ECS_UNIQUE_GET(w, time_c, Time);
    (void)ecs_unique_has(w, time_c);
    CHECK(!ecs_track_unique_modified(w, time_c, s));
    ((Time *)ecs_unique_get_mut(w, time_c))->dt += 1.0f;
    CHECK(ecs_track_unique_modified(w, time_c, s));
    s = ecs_tick_advance(w);
    ECS_UNIQUE_GET_MUT(w, time_c, Time)->dt = 2.0f;
    CHECK(ecs_track_unique_modified(w, time_c, s));
    s = ecs_tick_advance(w);
    ECS_UNIQUE_ADD(w, time_c, Time, {3.0f}); /* replacing: modified, not inserted */
    CHECK(ecs_track_unique_modified(w, time_c, s));
    CHECK(!ecs_track_unique_inserted(w, time_c, s));
    ecs_world_free(w);
}

static void test_unique_default_window_is_since_the_last_clear(void) {
    setup();
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    CHECK(ecs_track_unique_inserted(w, time_c, 0)); /* since tracking began */
    ecs_track_clear(w, time_c, ECS_TRACK_INSERTION);
    CHECK(!ecs_track_unique_inserted(w, time_c, 0));
    CHECK(!ecs_track_unique_modified(w, time_c, 0));
    ecs_unique_get_mut(w, time_c);
    CHECK(ecs_track_unique_modified(w, time_c, 0));
    ecs_track_clear(w, time_c, ECS_TRACK_INSERTION); /* the other window stays */
    CHECK(ecs_track_unique_modified(w, time_c, 0));
    ecs_track_clear(w, 0, ECS_TRACK_MODIFICATION); /* c = 0: every storage */
    CHECK(!ecs_track_unique_modified(w, time_c, 0));
    ecs_world_free(w);
}

static void test_unique_removed_then_added_again_is_inserted_again(void) {
    ecs_tick s;
    setup();
    ECS_UNIQUE_ADD(w, time_c, Time, {1.0f});
    ecs_unique_get_mut(w, time_c);
    ecs_unique_remove(w, time_c, NULL);
    s = ecs_tick_advance(w);
    CHECK(!ecs_track_unique_inserted(w, time_c, 0) && !ecs_track_unique_modified(w, time_c, 0));
    ECS_UNIQUE_ADD(w, time_c, Time, {2.0f});
    CHECK(ecs_track_unique_inserted(w, time_c, s));
    CHECK(!ecs_track_unique_modified(w, time_c, s));
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_unique_add_inserts_then_replaces_in_place);
    RUN(test_unique_add_with_null_value_zeroes);
    RUN(test_typed_unique_remove_gives_the_value_and_checks_its_size);
    RUN(test_unique_is_not_an_entity_component);
    RUN(test_unique_pointer_stays_valid_while_the_storage_grows);
    RUN(test_unique_remove_copies_out_and_forgets_the_value);
    RUN(test_missing_unique_returns_null_and_asserts_not_found);
    RUN(test_typed_unique_macros_check_the_size);
    RUN(test_unknown_component_asserts);
    RUN(test_a_tag_can_be_a_unique);
    RUN(test_unique_insert_counts_as_inserted_not_modified);
    RUN(test_unique_replace_and_get_mut_mark_modified_get_does_not);
    RUN(test_unique_default_window_is_since_the_last_clear);
    RUN(test_unique_removed_then_added_again_is_inserted_again);
    return test_summary();
}
