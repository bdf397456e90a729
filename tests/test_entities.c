/* Entities: versioned ids, stale detection, FIFO recycling, retirement,
   exhaustion. */
/* its own configuration, so its own build of the implementation (Makefile) */
#define ECS_VERSION_MAX 4u /* small, so retirement is reachable in a test */
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "test.h"
#include "../ecs.h"

static void test_null_entity_is_zero_and_never_alive(void) {
    ecs_world *w = ecs_world_new(NULL);
    CHECK_EQ(ECS_NULL, 0);
    CHECK(!ecs_alive(w, ECS_NULL));
    CHECK(!ecs_destroy(w, ECS_NULL));
    CHECK_NE(ecs_create(w), ECS_NULL); /* slot 0, version 1: not zero */
    CHECK(!ecs_alive(w, ECS_NULL));
    ecs_world_free(w);
}

static void test_create_gives_distinct_live_ids(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity a = ecs_create(w), b = ecs_create(w);
    CHECK(a != b && ecs_alive(w, a) && ecs_alive(w, b));
    CHECK(ECS_ENTITY_INDEX(a) == 0 && ECS_ENTITY_INDEX(b) == 1);
    CHECK_EQ(ECS_ENTITY_VERSION(a), 1);
    CHECK_EQ(ecs_count(w), 2);
    ecs_world_free(w);
}

static void test_stale_id_is_detected_after_slot_reuse(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity a = ecs_create(w), b;
    CHECK(ecs_destroy(w, a));
    CHECK(!ecs_alive(w, a));
    CHECK(!ecs_destroy(w, a)); /* destroying twice is harmless */
    b = ecs_create(w);         /* the only free slot: reused */
    CHECK_EQ(ECS_ENTITY_INDEX(b), ECS_ENTITY_INDEX(a));
    CHECK_EQ(ECS_ENTITY_VERSION(b), ECS_ENTITY_VERSION(a) + 1);
    CHECK(ecs_alive(w, b) && !ecs_alive(w, a));
    CHECK(!ecs_destroy(w, a) && ecs_alive(w, b)); /* the stale id cannot reach b */
    ecs_world_free(w);
}

static void test_recycling_is_fifo(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity e[4];
    int i;
    for (i = 0; i < 4; i++) e[i] = ecs_create(w);
    ecs_destroy(w, e[2]);
    ecs_destroy(w, e[0]);
    ecs_destroy(w, e[3]);
    /* reused in the order they were freed, not the reverse */
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 2);
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 0);
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 3);
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 4); /* queue empty: a fresh slot */
    ecs_world_free(w);
}

static void test_slot_at_max_version_is_retired_not_wrapped(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity e = ecs_create(w), first = e;
    uint32_t v;
    for (v = 1; v < ECS_VERSION_MAX; v++) { /* versions 1..MAX of slot 0 */
        CHECK(ECS_ENTITY_INDEX(e) == 0 && ECS_ENTITY_VERSION(e) == v);
        ecs_destroy(w, e);
        e = ecs_create(w);
    }
    CHECK_EQ(ECS_ENTITY_VERSION(e), ECS_VERSION_MAX);
    ecs_destroy(w, e); /* retired */
    e = ecs_create(w);
    CHECK_EQ(ECS_ENTITY_INDEX(e), 1); /* slot 0 is never handed out again */
    CHECK(!ecs_alive(w, first));
    CHECK_EQ(ecs_count(w), 1);
    ecs_world_free(w);
}

/* The last id of a retired slot was handed out: a deferred command for it
   is recorded (section 8: a stale id is recorded and skipped) and flush
   skips it, like any command whose entity died. */
static void test_deferred_commands_for_a_retired_slots_last_id_are_recorded_and_skipped(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component c = ecs_register(w, "C", sizeof(int), sizeof(int));
    ecs_entity e = ecs_create(w), other;
    while (ECS_ENTITY_VERSION(e) < ECS_VERSION_MAX) {
        ecs_destroy(w, e);
        e = ecs_create(w);
    }
    CHECK_EQ(ECS_ENTITY_INDEX(e), 0);
    CHECK(ecs_destroy(w, e)); /* slot 0 retired; e was its last id */
    other = ecs_create(w);
    CHECK_PTR_NE(ecs_add(w, other, c, NULL), NULL);
    CHECK(ecs_defer_destroy(w, e));
    CHECK(ecs_defer_remove(w, e, c));
    CHECK(ecs_defer_delete(w, e, c));
    CHECK_EQ(ecs_defer_pending(w), 3);
    CHECK_EQ(ecs_flush(w), 0); /* all three skipped */
    CHECK_EQ(ecs_defer_pending(w), 0);
    CHECK(ecs_alive(w, other) && ecs_has(w, other, c) && ecs_count(w) == 1);
    /* an id past the slot's versions was never handed out: not recorded */
    CHECK(!ecs_defer_destroy(w, ((ecs_entity)(ECS_VERSION_MAX + 1u) << 32) | 0u));
    ecs_world_free(w);
}

static void test_max_entities_exhaustion_returns_null_with_error(void) {
    ecs_desc d;
    ecs_world *w;
    memset(&d, 0, sizeof d);
    d.max_entities = 3;
    w = ecs_world_new(&d);
    CHECK(ecs_create(w) && ecs_create(w) && ecs_create(w));
    CHECK_EQ(ecs_create(w), ECS_NULL);
    CHECK_EQ(ecs_last_error(w), ECS_ERR_EXHAUSTED);
    CHECK(strstr(ecs_last_error_msg(w), "ecs_create"));
    ecs_world_free(w);
}

static void test_freed_slots_count_toward_nothing_once_reused(void) {
    ecs_desc d;
    ecs_world *w;
    ecs_entity a;
    memset(&d, 0, sizeof d);
    d.max_entities = 1;
    w = ecs_world_new(&d);
    a = ecs_create(w);
    CHECK_EQ(ecs_create(w), ECS_NULL);
    ecs_destroy(w, a);
    CHECK_NE(ecs_create(w), ECS_NULL); /* the freed slot is reused */
    ecs_world_free(w);
}

static void test_entity_str_prints_index_and_version(void) {
    ecs_world *w = ecs_world_new(NULL);
    char buf[ECS_ENTITY_STR];
    ecs_entity e = ecs_create(w);
    ecs_destroy(w, e);
    e = ecs_create(w);
    CHECK_STR_EQ(ecs_entity_str(e, buf), "0:2");
    CHECK_STR_EQ(ecs_entity_str(ECS_NULL, buf), "null");
    ecs_world_free(w);
}

static void test_many_entities_and_large_indices(void) {
    ecs_world *w = ecs_world_new(NULL);
    uint32_t i, n = 200000;
    ecs_entity last = 0;
    for (i = 0; i < n; i++) last = ecs_create(w);
    CHECK(ECS_ENTITY_INDEX(last) == n - 1 && ecs_count(w) == n);
    for (i = 0; i < n; i += 2) CHECK(ecs_destroy(w, ((ecs_entity)1 << 32) | i));
    CHECK_EQ(ecs_count(w), n / 2);
    for (i = 0; i < n / 2; i++) CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 2 * i);
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_null_entity_is_zero_and_never_alive);
    RUN(test_create_gives_distinct_live_ids);
    RUN(test_stale_id_is_detected_after_slot_reuse);
    RUN(test_recycling_is_fifo);
    RUN(test_slot_at_max_version_is_retired_not_wrapped);
    RUN(test_deferred_commands_for_a_retired_slots_last_id_are_recorded_and_skipped);
    RUN(test_max_entities_exhaustion_returns_null_with_error);
    RUN(test_freed_slots_count_toward_nothing_once_reused);
    RUN(test_entity_str_prints_index_and_version);
    RUN(test_many_entities_and_large_indices);
    return test_summary();
}
