/* The command buffer: changes recorded during a loop, applied in order by
   ecs_flush. */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { int hp; } Health;

static void test_commands_apply_in_recorded_order_at_flush(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity e = ecs_create(w);
    CHECK(ECS_DEFER_ADD(w, e, pos, Pos, {1, 1}));
    CHECK(ecs_defer_delete(w, e, pos));
    CHECK(ECS_DEFER_ADD(w, e, pos, Pos, {3, 3}));
    CHECK(!ecs_has(w, e, pos)); /* nothing happens before the flush */
    CHECK_EQ(ecs_defer_pending(w), 3);
    CHECK_EQ(ecs_flush(w), 3);
    CHECK(ECS_GET(w, e, pos, Pos)->x == 3); /* add, delete, add: the last one wins */
    CHECK(ecs_defer_pending(w) == 0 && ecs_flush(w) == 0);
    ecs_world_free(w);
}

static void test_deferred_add_copies_the_value_at_record_time(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity e = ecs_create(w);
    Pos p = {5, 6};
    CHECK(ecs_defer_add(w, e, pos, &p));
    p.x = 99;
    ecs_flush(w);
    CHECK(ECS_GET(w, e, pos, Pos)->x == 5);
    ecs_world_free(w);
}

static void test_deferred_create_gives_a_usable_id_immediately(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity e = ecs_defer_create(w);
    CHECK(e != ECS_NULL && ecs_alive(w, e));
    CHECK(ECS_DEFER_ADD(w, e, pos, Pos, {7, 0}));
    CHECK(!ecs_has(w, e, pos));
    ecs_flush(w);
    CHECK(ECS_GET(w, e, pos, Pos)->x == 7);
    ecs_world_free(w);
}

static void test_commands_on_entities_destroyed_before_flush_are_skipped(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos), hp = ECS_COMPONENT(w, Health);
    ecs_entity a = ecs_create(w), b = ecs_create(w);
    CHECK(ecs_defer_destroy(w, a));
    CHECK(ECS_DEFER_ADD(w, a, pos, Pos, {1, 1})); /* a dies before this applies */
    CHECK(ECS_DEFER_ADD(w, b, hp, Health, {3}));
    CHECK(ecs_defer_remove(w, b, pos)); /* b has no Pos: nothing to do */
    CHECK(ecs_defer_destroy(w, a));     /* already gone */
    CHECK_EQ(ecs_flush(w), 2);           /* destroy a, add Health to b */
    CHECK(!ecs_alive(w, a) && ECS_GET(w, b, hp, Health)->hp == 3);
    CHECK_EQ(ecs_count(w), 1);
    ecs_world_free(w);
}

static void test_destroying_others_during_a_loop_through_the_buffer(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component hp = ECS_COMPONENT(w, Health);
    ecs_iter it;
    int i, visited = 0;
    for (i = 0; i < 100; i++) ECS_ADD(w, ecs_create(w), hp, Health, {i});
    /* each entity with even hp kills the entity created after it */
    for (it = ecs_view_of(w, 1, &hp); ecs_iter_next(&it); visited++)
        if (ECS_FIELD(&it, 0, Health)->hp % 2 == 0) ecs_defer_destroy(w, ecs_iter_entity(&it) + 1);
    CHECK_EQ(visited, 100); /* nothing changed under the loop */
    CHECK_EQ(ecs_flush(w), 50);
    CHECK(ecs_count(w) == 50 && ecs_storage_count(ecs_storage_of(w, hp)) == 50);
    for (i = 0; i < 50; i++) CHECK_EQ(((const Health *)ecs_storage_data(ecs_storage_of(w, hp)))[i].hp % 2, 0);
    ecs_world_free(w);
}

static void test_deferred_add_to_dead_entity_asserts_at_record_time(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity e = ecs_create(w);
    ecs_destroy(w, e);
    EXPECT_ASSERT(!ECS_DEFER_ADD(w, e, pos, Pos, {1, 1}), "ECS_DEFER_ADD(entity 0:1, Pos): entity is not alive");
    EXPECT_ASSERT(!ecs_defer_delete(w, e, 42), "unknown component");
    CHECK_EQ(ecs_defer_pending(w), 0);
    ecs_world_free(w);
}

/* Counting allocator that can be told to fail. */
static int fail_now;
static void *fail_alloc(size_t n, void *ctx) { (void)ctx; return fail_now ? NULL : malloc(n); }
static void fail_free(void *p, size_t n, void *ctx) { (void)ctx; (void)n; free(p); }

static void test_flush_out_of_memory_keeps_the_rest_queued(void) {
    ecs_desc d;
    ecs_world *w;
    ecs_component pos;
    ecs_entity e[3];
    int i;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = fail_alloc;
    d.allocator.free = fail_free;
    w = ecs_world_new(&d);
    pos = ECS_COMPONENT(w, Pos);
    for (i = 0; i < 3; i++) CHECK(ECS_DEFER_ADD(w, e[i] = ecs_create(w), pos, Pos, {(float)i, 0}));
    fail_now = 1; /* the first add needs the storage's first allocation */
    CHECK_EQ(ecs_flush(w), 0);
    CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
    CHECK_EQ(ecs_defer_pending(w), 3);
    fail_now = 0;
    CHECK_EQ(ecs_flush(w), 3);
    for (i = 0; i < 3; i++) CHECK(ECS_GET(w, e[i], pos, Pos)->x == (float)i);
    ecs_world_free(w);
    /* a destroy that cannot reserve its record stops the flush too, named ecs_flush */
    d.track_entities = true;
    w = ecs_world_new(&d);
    CHECK(ecs_defer_destroy(w, e[0] = ecs_create(w)));
    fail_now = 1;
    CHECK_EQ(ecs_flush(w), 0);
    fail_now = 0;
    CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
    CHECK(strncmp(ecs_last_error_msg(w), "ecs_flush(entity 0:1)", 21) == 0);
    CHECK(ecs_defer_pending(w) == 1 && ecs_alive(w, e[0]));
    CHECK(ecs_flush(w) == 1 && !ecs_alive(w, e[0]));
    ecs_world_free(w);
}

/* A failure inside a command (here a hook's call) is the last error after
   the flush, code and message together, though later commands went
   through; a destroy the flush applies is named ecs_flush. */
static ecs_component health_c;
static void add_to_nobody(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) {
    (void)e, (void)c, (void)v, (void)u;
    ecs_add(w, ECS_NULL, health_c, NULL); /* fails: DEAD, asserts */
}
static void test_a_failure_inside_a_flush_stays_the_last_error(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_hooks h = {0};
    ecs_entity a = ecs_create(w), b = ecs_create(w);
    health_c = ECS_COMPONENT(w, Health);
    h.on_insert = add_to_nobody;
    ecs_hooks_set(w, pos, &h);
    CHECK(ECS_DEFER_ADD(w, a, pos, Pos, {1, 1}));
    CHECK(ECS_DEFER_ADD(w, b, health_c, Health, {5}));
    CHECK(ecs_defer_destroy(w, b));
    CHECK_EQ(ecs_flush(w), 3);
    test__expected++; /* the hook's assert */
    CHECK_EQ(ecs_last_error(w), ECS_ERR_DEAD_ENTITY);
    CHECK_STR_EQ(ecs_last_error_msg(w), "ecs_add(entity null, Health): entity is not alive");
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_commands_apply_in_recorded_order_at_flush);
    RUN(test_deferred_add_copies_the_value_at_record_time);
    RUN(test_deferred_create_gives_a_usable_id_immediately);
    RUN(test_commands_on_entities_destroyed_before_flush_are_skipped);
    RUN(test_destroying_others_during_a_loop_through_the_buffer);
    RUN(test_deferred_add_to_dead_entity_asserts_at_record_time);
    RUN(test_flush_out_of_memory_keeps_the_rest_queued);
    RUN(test_a_failure_inside_a_flush_stays_the_last_error);
    return test_summary();
}
