/* Sorting a storage, and sorting one to follow another's order. */
#include "test.h"
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"

typedef struct { int key, id; } Item;
typedef struct { float x, y; } Vel;

static int by_key(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    const Item *x = (const Item *)va, *y = (const Item *)vb;
    (void)a;
    (void)b;
    (*(int *)ctx)++;
    return (x->key > y->key) - (x->key < y->key);
}

static void test_sort_orders_rows_and_keeps_data_attached(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component item = ECS_COMPONENT(w, Item);
    ecs_entity e[500];
    const Item *rows;
    int i, calls = 0;
    test_seed(7);
    for (i = 0; i < 500; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], item, Item, {(int)test_rand(50), i});
    }
    for (i = 0; i < 500; i += 3) ecs_delete(w, e[i], item); /* holes: rows not in creation order */
    CHECK(ecs_sort(w, item, by_key, &calls));
    CHECK(calls > 0); /* the context reaches the comparator */
    rows = (const Item *)ecs_storage_data(ecs_storage_of(w, item));
    for (i = 0; i < (int)ecs_storage_count(ecs_storage_of(w, item)); i++) {
        ecs_entity ent = ecs_storage_entities(ecs_storage_of(w, item))[i];
        CHECK(ecs_get(w, ent, item) == &rows[i]); /* sparse follows the move */
        CHECK(rows[i].id == (int)ECS_ENTITY_INDEX(ent)); /* data stayed with its entity */
        if (i) CHECK(rows[i - 1].key <= rows[i].key); /* sorted by key */
    }
    ecs_world_free(w);
}

static void test_sort_is_stable(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component item = ECS_COMPONENT(w, Item);
    const Item *rows;
    int i, calls = 0;
    for (i = 0; i < 100; i++) ECS_ADD(w, ecs_create(w), item, Item, {i % 4, i});
    CHECK(ecs_sort(w, item, by_key, &calls));
    rows = (const Item *)ecs_storage_data(ecs_storage_of(w, item));
    for (i = 1; i < 100; i++)
        CHECK(rows[i - 1].key < rows[i].key || (rows[i - 1].key == rows[i].key && rows[i - 1].id < rows[i].id));
    ecs_world_free(w);
}

static void test_sort_as_puts_shared_entities_first_in_the_others_order(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component item = ECS_COMPONENT(w, Item), vel = ECS_COMPONENT(w, Vel);
    ecs_entity e[200];
    int i, calls = 0, shared = 0;
    test_seed(11);
    for (i = 0; i < 200; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], item, Item, {(int)test_rand(1000), i});
    }
    for (i = 199; i >= 0; i--) /* Vel gets a different order and a subset */
        if (i % 5) ECS_ADD(w, e[i], vel, Vel, {(float)i, 0});
    CHECK(ecs_sort(w, item, by_key, &calls));
    CHECK(ecs_sort_as(w, vel, item));
    /* walking Item's rows, the entities that have Vel appear in Vel's rows
       0, 1, 2... in the same order */
    for (i = 0; i < (int)ecs_storage_count(ecs_storage_of(w, item)); i++) {
        ecs_entity ent = ecs_storage_entities(ecs_storage_of(w, item))[i];
        if (!ecs_has(w, ent, vel)) continue;
        CHECK(ecs_storage_entities(ecs_storage_of(w, vel))[shared] == ent);
        CHECK(((const Vel *)ecs_storage_data(ecs_storage_of(w, vel)))[shared].x == (float)ECS_ENTITY_INDEX(ent));
        shared++;
    }
    CHECK(shared == 160);
    ecs_world_free(w);
}

static void test_sorting_the_walked_storage_during_a_view_asserts(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component item = ECS_COMPONENT(w, Item);
    ecs_iter it;
    int i, calls = 0;
    for (i = 0; i < 10; i++) ECS_ADD(w, ecs_create(w), item, Item, {10 - i, i});
    it = ecs_view_of(w, 1, &item);
    CHECK(ecs_iter_next(&it));
    ecs_sort(w, item, by_key, &calls);
#if ECS_DEBUG
    EXPECT_ASSERT(ecs_iter_next(&it), "ecs_sort changed storage Item under a live view");
#endif
    ecs_world_free(w);
}

int main(void) {
    RUN(test_sort_orders_rows_and_keeps_data_attached);
    RUN(test_sort_is_stable);
    RUN(test_sort_as_puts_shared_entities_first_in_the_others_order);
    RUN(test_sorting_the_walked_storage_during_a_view_asserts);
    return test_summary();
}
