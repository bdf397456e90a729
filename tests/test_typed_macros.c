/* Typed macros in debug builds (ECS_DEBUG, on unless NDEBUG; section 6):
   T is checked against the type ECS_COMPONENT registered, not only its
   size, and a failing typed macro's message ends with the caller's place.

     ECS_GET(w, e, pos, Vel)          Pos and Vel have the same size: NULL,
                                      SIZE_MISMATCH, an assert that says
                                      "the type is Vel but the component was
                                      registered as Pos (at file:line)"
     every typed macro                the same: ECS_GET_MUT, ECS_STORAGE_GET,
                                      ECS_STORAGE_GET_MUT, ECS_ADD (nothing
                                      added), ECS_REMOVE (nothing removed),
                                      ECS_FIELD, ECS_BLOCK, ECS_UNIQUE_GET,
                                      ECS_UNIQUE_ADD, ECS_UNIQUE_REMOVE,
                                      ECS_ADD_IF_CHANGED, ECS_DEFER_ADD
                                      (nothing changed, nothing queued)
     ecs_register(w, "name", ...)     a name of your own: no type to compare,
                                      any T of the right size is accepted
     ECS_COMPONENT(w, T)              the name is "T" (ecs_component_name,
                                      ecs_lookup), the same id as
                                      ecs_register(w, "T", ...) */
#define ECS_CALLER_PLACE /* the inline calls name the caller's place too (section 6) */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { float x, y; } Vel; /* the same size as Pos */

static ecs_world *w;
static ecs_component pos, vel, named;
static ecs_entity e;

static void setup(void) {
    w = ecs_world_new(NULL);
    pos = ECS_COMPONENT(w, Pos);
    vel = ECS_COMPONENT(w, Vel);
    named = ecs_register(w, "velocity", sizeof(Vel), ECS_ALIGNOF(Vel));
    e = ecs_create(w);
    ECS_ADD(w, e, pos, Pos, {1, 2});
}

/* The last assert names the wrong type, the registered one and, at its
   end, this file and the line of the call. */
static int says_type_and_place(const char *wrong, const char *registered, int line) {
    char want[128], at[64];
    snprintf(want, sizeof want, "the type is %s but the component was registered as %s", wrong, registered);
    snprintf(at, sizeof at, "test_typed_macros.c:%d)", line);
    if (strstr(test__assert_msg, want) && strstr(test__assert_msg, at)) return 1;
    printf("  the assert \"%s\" does not say \"%s\" and \"%s\"\n", test__assert_msg, want, at);
    return 0;
}

static void test_component_registered_by_type_is_named_by_it(void) {
    setup();
    CHECK_STR_EQ(ecs_component_name(w, pos), "Pos");
    CHECK_EQ(ecs_lookup(w, "Pos"), pos);
    CHECK_EQ(ecs_register(w, "Pos", sizeof(Pos), ECS_ALIGNOF(Pos)), pos);
    CHECK_EQ(ECS_COMPONENT(w, Pos), pos);
    ecs_world_free(w);
}

static void test_get_with_another_type_of_the_same_size_asserts(void) {
    int line;
    setup();
    CHECK(ECS_GET(w, e, pos, Pos)->y == 2);
    CHECK(ECS_GET_MUT(w, e, pos, const Pos)->y == 2); /* const T is T */
    CHECK_PTR_NE(ECS_GET_MUT(w, e, pos, Pos const), NULL);
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_GET(w, e, pos, Vel) == NULL, "ECS_GET(entity ");
    CHECK(says_type_and_place("Vel", "Pos", line));
    CHECK_EQ(ecs_last_error(w), ECS_ERR_SIZE_MISMATCH);
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_GET_MUT(w, e, pos, Vel) == NULL, "ECS_GET_MUT");
    CHECK(says_type_and_place("Vel", "Pos", line));
    ecs_world_free(w);
}

static void test_storage_gets_check_the_type(void) {
    ecs_storage *s;
    int line;
    setup();
    s = ecs_storage_of_mut(w, pos);
    CHECK(ECS_STORAGE_GET(s, e, Pos) != NULL && ECS_STORAGE_GET_MUT(s, e, Pos) != NULL);
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_STORAGE_GET(s, e, Vel) == NULL, "ECS_STORAGE_GET");
    CHECK(says_type_and_place("Vel", "Pos", line));
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_STORAGE_GET_MUT(s, e, Vel) == NULL, "ECS_STORAGE_GET_MUT");
    CHECK(says_type_and_place("Vel", "Pos", line));
    ecs_world_free(w);
}

/* Add and remove fail whole: the entity neither gains nor loses a value,
   on the inline path (room in the storage) as on the first add of a
   storage (its out-of-line path). */
static void test_add_and_remove_with_another_type_change_nothing(void) {
    ecs_entity f;
    Vel out = {0, 0};
    int line;
    setup();
    f = ecs_create(w);
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_ADD(w, f, pos, Vel, {3, 4}) == NULL, "ECS_ADD");
    CHECK(says_type_and_place("Vel", "Pos", line));
    CHECK(!ecs_has(w, f, pos) && ecs_storage_count(ecs_storage_of(w, pos)) == 1);
    CHECK_PTR_NE(ECS_ADD(w, f, vel, Vel, {3, 4}), NULL); /* vel's first add, with its own type */
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_ADD(w, e, vel, Pos, {5, 6}) == NULL, "ECS_ADD");
    CHECK(says_type_and_place("Pos", "Vel", line));
    CHECK(!ecs_has(w, e, vel));
    line = __LINE__ + 1;
    EXPECT_ASSERT(!ECS_REMOVE(w, e, pos, Vel, &out), "ECS_REMOVE");
    CHECK(says_type_and_place("Vel", "Pos", line));
    CHECK(ecs_has(w, e, pos) && out.x == 0 && ECS_GET(w, e, pos, Pos)->x == 1);
    CHECK(ECS_REMOVE(w, e, pos, Pos, NULL) && !ecs_has(w, e, pos));
    ecs_world_free(w);
}

static void test_fields_check_the_type_in_both_loop_forms(void) {
    ecs_iter it;
    int line, n = 0;
    setup();
    it = ecs_view_of(w, 1, &pos);
    ECS_EACH(&it) {
        CHECK(ECS_FIELD(&it, 0, Pos)->x == 1);
        line = __LINE__ + 1;
        EXPECT_ASSERT(ECS_FIELD(&it, 0, Vel) == NULL, "ECS_FIELD");
        CHECK(says_type_and_place("Vel", "Pos", line));
        n++;
    }
    CHECK_EQ(n, 1);
    for (it = ecs_view_of(w, 1, &pos); ecs_iter_next_block(&it);) {
        CHECK_PTR_NE(ECS_BLOCK(&it, 0, Pos), NULL);
        line = __LINE__ + 1;
        EXPECT_ASSERT(ECS_BLOCK(&it, 0, Vel) == NULL, "ECS_BLOCK");
        CHECK(says_type_and_place("Vel", "Pos", line));
    }
    ecs_world_free(w);
}

static void test_unique_get_checks_the_type(void) {
    int line;
    setup();
    CHECK_PTR_NE(ECS_UNIQUE_ADD(w, pos, Pos, {7, 8}), NULL);
    CHECK(ECS_UNIQUE_GET(w, pos, Pos)->x == 7);
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_UNIQUE_GET(w, pos, Vel) == NULL, "ECS_UNIQUE_GET");
    CHECK(says_type_and_place("Vel", "Pos", line));
    ecs_world_free(w);
}

/* The typed writes that go out of line check T as well, and change
   nothing when it is not the registered type. */
static void test_unique_add_remove_add_if_changed_and_defer_add_check_the_type(void) {
    int line;
    Vel out = {0, 0};
    setup();
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_UNIQUE_ADD(w, pos, Vel, {7, 8}) == NULL, "ECS_UNIQUE_ADD");
    CHECK(says_type_and_place("Vel", "Pos", line));
    CHECK(!ecs_unique_has(w, pos));
    CHECK_PTR_NE(ECS_UNIQUE_ADD(w, pos, Pos, {7, 8}), NULL);
    line = __LINE__ + 1;
    EXPECT_ASSERT(!ECS_UNIQUE_REMOVE(w, pos, Vel, &out), "ECS_UNIQUE_REMOVE");
    CHECK(says_type_and_place("Vel", "Pos", line));
    CHECK(ecs_unique_has(w, pos) && out.x == 0);
    CHECK_PTR_NE(ECS_ADD(w, e, pos, Pos, {1, 2}), NULL);
    line = __LINE__ + 1;
    EXPECT_ASSERT(!ECS_ADD_IF_CHANGED(w, e, pos, Vel, {3, 4}), "ECS_ADD_IF_CHANGED");
    CHECK(says_type_and_place("Vel", "Pos", line));
    CHECK(ECS_GET(w, e, pos, Pos)->x == 1);
    line = __LINE__ + 1;
    EXPECT_ASSERT(!ECS_DEFER_ADD(w, e, pos, Vel, {5, 6}), "ECS_DEFER_ADD");
    CHECK(says_type_and_place("Vel", "Pos", line));
    CHECK_EQ(ecs_defer_pending(w), 0);
    CHECK(ECS_DEFER_ADD(w, e, pos, Pos, {5, 6}));
    CHECK_EQ(ecs_flush(w), 1);
    CHECK(ECS_GET(w, e, pos, Pos)->x == 5);
    ecs_world_free(w);
}

/* With ECS_CALLER_PLACE the inline calls that can assert name the
   caller's place too (in C, under ECS_DEBUG, macros mask them); the
   functions stay callable. */
static int says_place(const char *call, int line) {
    char at[64];
    snprintf(at, sizeof at, "test_typed_macros.c:%d)", line);
    if (strncmp(test__assert_msg, call, strlen(call)) == 0 && strstr(test__assert_msg, at)) return 1;
    printf("  the assert \"%s\" does not start with \"%s\" and say \"%s\"\n", test__assert_msg, call, at);
    return 0;
}
static void test_inline_calls_name_the_callers_place(void) {
    ecs_component unknown = 99;
    ecs_iter it;
    const void *(*get)(const ecs_world *, ecs_entity, ecs_component) = &ecs_get;
    int line, n = 0;
    setup();
    CHECK_PTR_NE(ECS_ADD(w, e, pos, Pos, {1, 2}), NULL);
    line = __LINE__ + 1;
    EXPECT_ASSERT(ecs_get(w, e, unknown) == NULL, "ecs_get");
    CHECK(says_place("ecs_get(", line));
    line = __LINE__ + 1;
    EXPECT_ASSERT(ecs_get_mut(w, e, unknown) == NULL, "ecs_get_mut");
    CHECK(says_place("ecs_get_mut(", line));
    line = __LINE__ + 1;
    EXPECT_ASSERT(ecs_add(w, e, unknown, NULL) == NULL, "ecs_add");
    CHECK(says_place("ecs_add(", line));
    CHECK_PTR_NE(ecs_add(w, e, pos, &(Pos){3, 4}), NULL); /* a compound literal's commas */
    line = __LINE__ + 1;
    EXPECT_ASSERT(!ecs_has(w, e, unknown), "ecs_has");
    CHECK(says_place("ecs_has(", line));
    line = __LINE__ + 1;
    EXPECT_ASSERT(!ecs_remove(w, e, unknown, NULL), "ecs_remove");
    CHECK(says_place("ecs_remove(", line));
    line = __LINE__ + 1;
    EXPECT_ASSERT(!ecs_delete(w, e, unknown), "ecs_delete");
    CHECK(says_place("ecs_delete(", line));
    line = __LINE__ + 1;
    EXPECT_ASSERT(ecs_storage_get(NULL, e) == NULL, "ecs_storage_get");
    CHECK(says_place("ecs_storage_get", line));
    for (it = ecs_view_of(w, 1, &pos); ecs_iter_next(&it); n++) {
        line = __LINE__ + 1;
        EXPECT_ASSERT(ecs_field(&it, 5) == NULL, "ecs_field");
        CHECK(says_place("ecs_field", line));
    }
    CHECK_EQ(n, 1);
    CHECK(get(w, e, pos) == ECS_GET(w, e, pos, Pos) && (ecs_get)(w, e, pos) == get(w, e, pos));
    ecs_world_free(w);
}

/* A component registered under a name of its own has no C type to
   compare: any T of its size reads it, as before. */
static void test_component_registered_by_name_checks_only_the_size(void) {
    setup();
    CHECK_PTR_NE(ECS_ADD(w, e, named, Vel, {1, 1}), NULL);
    CHECK(ECS_GET(w, e, named, Pos) != NULL && ECS_GET(w, e, named, Vel) != NULL);
    EXPECT_ASSERT(ECS_GET(w, e, named, int) == NULL, "sizeof(T) is");
    ecs_world_free(w);
}

/* A T that is a macro is compared as written, at registration and at
   use alike (bench.c renames movement.h's Position this way). */
typedef struct { float x, y; } real_pos;
#define Spelled real_pos
static void test_a_type_named_by_a_macro_is_compared_as_written(void) {
    ecs_component c;
    ecs_entity f;
    setup();
    c = ECS_COMPONENT(w, Spelled);
    CHECK_STR_EQ(ecs_component_name(w, c), "Spelled");
    f = ecs_create(w);
    CHECK(ECS_ADD(w, f, c, Spelled, {1, 2}) != NULL);
    CHECK(ECS_GET(w, f, c, Spelled)->y == 2);
    EXPECT_ASSERT(ECS_GET(w, f, c, real_pos) == NULL, "the type is real_pos but the component was registered as Spelled");
    ecs_world_free(w);
}

/* A size mismatch says so (the type check comes after it), also with the
   caller's place. */
static void test_a_wrong_size_is_still_reported_as_a_size(void) {
    int line;
    setup();
    line = __LINE__ + 1;
    EXPECT_ASSERT(ECS_GET(w, e, pos, int) == NULL, "ECS_GET");
    CHECK_PTR_EQ(strstr(test__assert_msg, "the type is"), NULL);
    {
        char at[64];
        snprintf(at, sizeof at, "test_typed_macros.c:%d)", line);
        CHECK_PTR_NE(strstr(test__assert_msg, at), NULL);
    }
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_component_registered_by_type_is_named_by_it);
    RUN(test_get_with_another_type_of_the_same_size_asserts);
    RUN(test_storage_gets_check_the_type);
    RUN(test_add_and_remove_with_another_type_change_nothing);
    RUN(test_fields_check_the_type_in_both_loop_forms);
    RUN(test_unique_get_checks_the_type);
    RUN(test_inline_calls_name_the_callers_place);
    RUN(test_unique_add_remove_add_if_changed_and_defer_add_check_the_type);
    RUN(test_component_registered_by_name_checks_only_the_size);
    RUN(test_a_wrong_size_is_still_reported_as_a_size);
    RUN(test_a_type_named_by_a_macro_is_compared_as_written);
    return test_summary();
}
