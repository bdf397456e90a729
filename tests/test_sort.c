/* Sorting a storage, and sorting one to follow another's order. */
#include "test.h"
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
    CHECK_GT(calls, 0); /* the context reaches the comparator */
    rows = (const Item *)ecs_storage_data(ecs_storage_of(w, item));
    for (i = 0; i < (int)ecs_storage_count(ecs_storage_of(w, item)); i++) {
        ecs_entity ent = ecs_storage_entities(ecs_storage_of(w, item))[i];
        CHECK(ecs_get(w, ent, item) == &rows[i]); /* sparse follows the move */
        CHECK_EQ(rows[i].id, (int)ECS_ENTITY_INDEX(ent)); /* data stayed with its entity */
        if (i) CHECK_LE(rows[i - 1].key, rows[i].key); /* sorted by key */
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
        CHECK_EQ(ecs_storage_entities(ecs_storage_of(w, vel))[shared], ent);
        CHECK(((const Vel *)ecs_storage_data(ecs_storage_of(w, vel)))[shared].x == (float)ECS_ENTITY_INDEX(ent));
        shared++;
    }
    CHECK_EQ(shared, 160);
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

/* A comparator may call into the world, but rows of the storages being
   sorted may not come or go: the sort would move rows that are gone. */
typedef struct { ecs_world *w; const ecs_entity *victims; int next, n, refused; ecs_component take; } meddler;

static int by_key_meddling(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    meddler *m = (meddler *)ctx;
    const Item *x = (const Item *)va, *y = (const Item *)vb;
    (void)a;
    (void)b;
    if (m->next < m->n) {
        ecs_entity v = m->victims[m->next++];
        bool ok = m->take ? ecs_delete(m->w, v, m->take) : ecs_destroy(m->w, v);
        m->refused += !ok && ecs_last_error(m->w) == ECS_ERR_LOCKED;
        ecs_clear_error(m->w);
    }
    return (x->key > y->key) - (x->key < y->key);
}

static void test_a_comparator_cannot_destroy_entities_of_the_storage_being_sorted(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component item = ECS_COMPONENT(w, Item), vel = ECS_COMPONENT(w, Vel);
    ecs_entity e[40], loose = ecs_create(w); /* has no Item: destroying it is fine */
    meddler m = {0};
    const Item *rows;
    int i;
    for (i = 0; i < 40; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], item, Item, {(i * 7) % 40, i});
    }
    ECS_ADD(w, loose, vel, Vel, {1, 1});
    m.w = w;
    m.victims = e;
    m.n = 3;
    test__expected += 3; /* each refusal asserts */
    CHECK(ecs_sort(w, item, by_key_meddling, &m));
    CHECK_EQ(m.refused, 3);
    CHECK(ecs_count(w) == 41 && ecs_storage_count(ecs_storage_of(w, item)) == 40);
    rows = (const Item *)ecs_storage_data(ecs_storage_of(w, item));
    for (i = 1; i < 40; i++) CHECK_LE(rows[i - 1].key, rows[i].key);
    m.victims = &loose; /* an entity the sort does not touch */
    m.next = 0;
    m.n = 1;
    m.refused = 0;
    CHECK(ecs_sort(w, item, by_key_meddling, &m));
    CHECK(m.refused == 0 && !ecs_alive(w, loose));
    ecs_world_free(w);
}

static void test_a_group_comparator_cannot_make_entities_join_or_leave_the_group(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component item = ECS_COMPONENT(w, Item), vel = ECS_COMPONENT(w, Vel), frozen = ECS_TAG(w, "Frozen");
    ecs_entity e[40], frozen_ones[2];
    ecs_group_desc gd;
    ecs_group g;
    meddler m = {0};
    const Item *rows;
    const ecs_entity *members;
    uint32_t i;
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = item;
    gd.owned[1] = vel;
    gd.excluded[0] = frozen;
    for (i = 0; i < 40; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], item, Item, {(int)(i * 7) % 40, (int)i});
        ECS_ADD(w, e[i], vel, Vel, {0, 0});
        if (i & 1) ecs_add(w, e[i], frozen, NULL);
    }
    g = ecs_group_new(w, &gd);
    CHECK_EQ(ecs_group_count(w, g), 20);
    m.w = w;
    frozen_ones[0] = e[1];
    frozen_ones[1] = e[3];
    m.victims = frozen_ones; /* deleting Frozen would join them to the group */
    m.n = 2;
    m.take = frozen;
    test__expected += 2;
    CHECK(ecs_group_sort(w, g, item, by_key_meddling, &m));
    CHECK(m.refused == 2 && ecs_group_count(w, g) == 20);
    rows = (const Item *)ecs_group_data(w, g, item);
    members = ecs_group_entities(w, g);
    for (i = 0; i < 20; i++) {
        CHECK(!ecs_has(w, members[i], frozen) && ecs_get(w, members[i], item) == &rows[i]);
        if (i) CHECK_LE(rows[i - 1].key, rows[i].key);
    }
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_sort_orders_rows_and_keeps_data_attached);
    RUN(test_sort_is_stable);
    RUN(test_sort_as_puts_shared_entities_first_in_the_others_order);
    RUN(test_sorting_the_walked_storage_during_a_view_asserts);
    RUN(test_a_comparator_cannot_destroy_entities_of_the_storage_being_sorted);
    RUN(test_a_group_comparator_cannot_make_entities_join_or_leave_the_group);
    return test_summary();
}
