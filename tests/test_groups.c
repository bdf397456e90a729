/* Groups: the entities that have all owned components (and none excluded)
   stay packed in rows 0..len-1 of every owned storage, in the same order. */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { float x, y; } Vel;
typedef struct { int hp; } Health;

static ecs_world *w;
static ecs_component pos, vel, hp, frozen;

static void setup(void) {
    w = ecs_world_new(NULL);
    pos = ECS_COMPONENT(w, Pos);
    vel = ECS_COMPONENT(w, Vel);
    hp = ECS_COMPONENT(w, Health);
    frozen = ECS_TAG(w, "Frozen");
}

static ecs_group pos_vel_not_frozen(void) {
    ecs_group_desc d;
    memset(&d, 0, sizeof d);
    d.owned[0] = pos;
    d.owned[1] = vel;
    d.excluded[0] = frozen;
    return ecs_group_new(w, &d);
}

/* The invariant, checked from scratch: rows 0..len-1 of Pos and Vel hold
   the same entities, exactly those with Pos and Vel and without Frozen. */
static int group_is_exact(ecs_group g) {
    uint32_t len = ecs_group_count(w, g), i, members = 0;
    const ecs_entity *pe = ecs_storage_entities(ecs_storage_of(w, pos)), *ve = ecs_storage_entities(ecs_storage_of(w, vel));
    for (i = 0; i < len; i++) {
        if (pe[i] != ve[i] || ecs_has(w, pe[i], frozen)) return 0;
        if (((const Pos *)ecs_storage_data(ecs_storage_of(w, pos)))[i].x != ((const Vel *)ecs_storage_data(ecs_storage_of(w, vel)))[i].x)
            return 0; /* the test gives each entity Pos.x == Vel.x */
    }
    for (i = 0; i < ecs_storage_count(ecs_storage_of(w, pos)); i++)
        members += ecs_has(w, pe[i], vel) && !ecs_has(w, pe[i], frozen);
    return members == len && ecs_group_entities(w, g) == pe;
}

static ecs_entity spawn(float x, int with_vel, int is_frozen) {
    ecs_entity e = ecs_create(w);
    ECS_ADD(w, e, pos, Pos, {x, 0});
    if (with_vel) ECS_ADD(w, e, vel, Vel, {x, 0});
    if (is_frozen) ecs_add(w, e, frozen, NULL);
    return e;
}

static void test_group_packs_existing_entities_at_creation(void) {
    ecs_group g;
    int i;
    setup();
    for (i = 0; i < 100; i++) spawn((float)i, i % 3 != 0, i % 5 == 0);
    g = pos_vel_not_frozen();
    CHECK_NE(g, 0);
    CHECK_EQ(ecs_group_count(w, g), 53); /* i%3 != 0 and i%5 != 0 */
    CHECK(group_is_exact(g));
    ecs_world_free(w);
}

static void test_every_change_keeps_the_group_exact(void) {
    ecs_entity e[300];
    ecs_group g;
    int i, step;
    setup();
    g = pos_vel_not_frozen();
    test_seed(42);
    for (i = 0; i < 300; i++) e[i] = spawn((float)i, test_rand(2), test_rand(4) == 0);
    for (step = 0; step < 4000; step++) {
        ecs_entity x = e[test_rand(300)];
        float v = (float)ECS_ENTITY_INDEX(x);
        switch (test_rand(9)) {
        case 0: if (ecs_alive(w, x)) ECS_ADD(w, x, vel, Vel, {v, 0}); break;
        case 1: ecs_delete(w, x, vel); break;
        case 2: ecs_remove(w, x, pos, NULL); break;
        case 3: if (ecs_alive(w, x)) ECS_ADD(w, x, pos, Pos, {v, 0}); break;
        case 4: if (ecs_alive(w, x)) ecs_add(w, x, frozen, NULL); break;
        case 5: ecs_delete(w, x, frozen); break;
        case 6: ecs_strip(w, x); break;
        case 7:
            if (ecs_destroy(w, x)) e[ECS_ENTITY_INDEX(x) % 300] = spawn(v, 1, 0);
            break;
        default: {
            ecs_component both[2];
            const void *vals[2];
            Pos p;
            Vel q;
            both[0] = pos, both[1] = vel;
            p.x = q.x = v, p.y = q.y = 0;
            vals[0] = &p, vals[1] = &q;
            if (ecs_alive(w, x)) CHECK(ecs_add_n(w, x, 2, both, vals));
        }
        }
        if (!group_is_exact(g)) {
            printf("  step %d broke the group\n", step);
            CHECK(0);
        }
    }
    ecs_world_free(w);
}

static void test_group_arrays_make_a_plain_loop(void) {
    ecs_group g;
    uint32_t i, n;
    Pos *p;
    const Vel *v;
    setup();
    g = pos_vel_not_frozen();
    for (i = 0; i < 1000; i++) spawn((float)i, i % 2, 0);
    n = ecs_group_count(w, g);
    p = (Pos *)ecs_group_data(w, g, pos);
    v = (const Vel *)ecs_group_data(w, g, vel);
    CHECK_EQ(n, 500);
    for (i = 0; i < n; i++) p[i].y += v[i].x; /* pos.y = x for movers */
    for (i = 0; i < ecs_storage_count(ecs_storage_of(w, pos)); i++) {
        ecs_entity e = ecs_storage_entities(ecs_storage_of(w, pos))[i];
        CHECK(ECS_GET(w, e, pos, Pos)->y == (ecs_has(w, e, vel) ? ECS_GET(w, e, pos, Pos)->x : 0));
    }
    EXPECT_ASSERT(ecs_group_data(w, g, hp) == NULL, "not a storage this group owns");
    ecs_world_free(w);
}

static void test_a_storage_has_one_owner(void) {
    ecs_group_desc d;
    setup();
    CHECK(pos_vel_not_frozen());
    memset(&d, 0, sizeof d);
    d.owned[0] = hp;
    d.owned[1] = vel;
    EXPECT_ASSERT(ecs_group_new(w, &d) == 0, "already owned by another group");
    d.owned[1] = 0; /* Health alone, excluding Frozen too: fine */
    d.excluded[0] = frozen;
    CHECK_NE(ecs_group_new(w, &d), 0);
    ecs_world_free(w);
}

static int by_x(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    float x = ((const Pos *)va)->x, y = ((const Pos *)vb)->x;
    (void)a, (void)b, (void)ctx;
    return (x < y) - (x > y); /* descending */
}

static void test_only_the_group_sorts_its_storages(void) {
    ecs_group g;
    uint32_t i;
    setup();
    g = pos_vel_not_frozen();
    for (i = 0; i < 50; i++) spawn((float)((i * 7) % 50), 1, i % 10 == 0);
    EXPECT_ASSERT(!ecs_sort(w, pos, by_x, NULL), "owned by a group");
    EXPECT_ASSERT(!ecs_sort_as(w, vel, hp), "owned by a group");
    CHECK(ecs_group_sort(w, g, pos, by_x, NULL));
    CHECK(group_is_exact(g)); /* Vel followed Pos */
    for (i = 1; i < ecs_group_count(w, g); i++)
        CHECK(((const Pos *)ecs_group_data(w, g, pos))[i - 1].x >= ((const Pos *)ecs_group_data(w, g, pos))[i].x);
    ecs_world_free(w);
}

static void test_view_over_the_group_terms_walks_the_group(void) {
    ecs_view_desc d;
    ecs_group g;
    ecs_iter it;
    uint32_t n = 0, blocks = 0, rows = 0;
    int i;
    setup();
    for (i = 0; i < 1000; i++) spawn((float)i, i % 2, i % 4 == 1);
    g = pos_vel_not_frozen();
    memset(&d, 0, sizeof d);
    d.terms[0].c = vel;
    d.terms[1].c = frozen;
    d.terms[1].flags = ECS_NOT;
    d.terms[2].c = pos;
    d.terms[2].flags = ECS_WRITE;
    for (it = ecs_view(w, &d); ecs_iter_next(&it); n++) {
        CHECK(ecs_has(w, ecs_iter_entity(&it), vel) && !ecs_has(w, ecs_iter_entity(&it), frozen));
        CHECK_PTR_EQ(ECS_FIELD(&it, 2, Pos), ecs_get(w, ecs_iter_entity(&it), pos));
    }
    CHECK(n == ecs_group_count(w, g) && n == 250);
    for (it = ecs_view(w, &d); ecs_iter_next_block(&it); blocks++) rows += it.count;
    CHECK(blocks == 1 && rows == 250); /* one block: the group's rows */
    ecs_world_free(w);
}

static void test_tracking_stamps_move_with_their_rows(void) {
    ecs_group g;
    ecs_entity e[20];
    ecs_tick t;
    int i;
    setup();
    ecs_track_set(w, pos, ECS_TRACK_MODIFICATION);
    for (i = 0; i < 20; i++) e[i] = spawn((float)i, 0, 0);
    g = pos_vel_not_frozen();
    t = ecs_tick_advance(w);
    ECS_GET_MUT(w, e[17], pos, Pos)->y = 1; /* modified after t */
    for (i = 19; i >= 0; i--) ECS_ADD(w, e[i], vel, Vel, {(float)i, 0}); /* joins move rows */
    CHECK(ecs_group_count(w, g) == 20 && group_is_exact(g));
    for (i = 0; i < 20; i++) CHECK_EQ(ecs_track_modified(w, e[i], pos, t), (i == 17));
    ecs_world_free(w);
}

static void test_removing_the_current_entity_during_a_group_walk(void) {
    ecs_view_desc d;
    ecs_group g;
    ecs_iter it;
    int i, n = 0;
    setup();
    g = pos_vel_not_frozen();
    for (i = 0; i < 200; i++) spawn((float)i, 1, 0);
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = vel;
    d.terms[2].c = frozen;
    d.terms[2].flags = ECS_NOT;
    for (it = ecs_view(w, &d); ecs_iter_next(&it); n++) {
        if (ECS_ENTITY_INDEX(ecs_iter_entity(&it)) % 3 == 0) ecs_destroy(w, ecs_iter_entity(&it));
        else if (ECS_ENTITY_INDEX(ecs_iter_entity(&it)) % 3 == 1) ecs_delete(w, ecs_iter_entity(&it), vel);
    }
    CHECK_EQ(n, 200);
    CHECK(ecs_group_count(w, g) == 66 && group_is_exact(g));
    ecs_world_free(w);
}

/* Joining moves the entity to row len of every owned storage: while a view
   walks one of them, a join below the cursor would skip or repeat rows, so
   such adds are deferred (section 7); the debug check names the storage. */
static void test_joining_the_walked_group_during_a_loop_asserts(void) {
    ecs_entity e[15];
    ecs_iter it;
    int i, who;
    for (who = 0; who < 2; who++) {
        setup();
        pos_vel_not_frozen();
        for (i = 0; i < 15; i++) e[i] = spawn((float)i, i < 10, 0); /* rows 10..14: not members */
        it = ecs_view_of(w, 1, &pos); /* walks Pos, owned by the group */
        CHECK(ecs_iter_next(&it) && ecs_iter_entity(&it) == e[14]);
        if (who == 0)
            ECS_ADD(w, e[12], vel, Vel, {12, 0}); /* another entity joins: rows 10 and 12 swap */
        else
            ECS_ADD(w, e[14], vel, Vel, {14, 0}); /* the current one joins: rows 10 and 14 swap */
#if ECS_DEBUG
        EXPECT_ASSERT(ecs_iter_next(&it), "changed storage Pos under a live view");
#endif
        ecs_world_free(w);
    }
}

/* Leaving moves rows as joining does: an add of an excluded component to
   another entity (or a remove of an owned one) while a view walks the
   group's storages is a change the rules forbid (section 7), and the debug
   check names it, though the body only added. */
static void test_another_entity_leaving_the_walked_group_during_a_loop_asserts(void) {
    ecs_entity e[10];
    ecs_iter it;
    int i;
    setup();
    pos_vel_not_frozen();
    for (i = 0; i < 10; i++) e[i] = spawn((float)i, 1, 0); /* all members */
    it = ecs_view_of(w, 2, (ecs_component[]){pos, vel});
    CHECK(ecs_iter_next(&it) && ecs_iter_entity(&it) == e[9]);
    ecs_add(w, e[2], frozen, NULL); /* e[2] leaves: the group's last row moves into its place */
#if ECS_DEBUG
    EXPECT_ASSERT(ecs_iter_next(&it), "ecs_add changed storage");
    CHECK(strstr(test__assert_msg, "joining or leaving a group or query") != NULL);
#endif
    ecs_world_free(w);
}

/* The same change through the command buffer is applied after the loop. */
static void test_deferred_joins_are_safe(void) {
    ecs_iter it;
    ecs_group g;
    int i, n = 0;
    setup();
    g = pos_vel_not_frozen();
    for (i = 0; i < 15; i++) spawn((float)i, i < 10, 0);
    for (it = ecs_view_of(w, 1, &pos); ecs_iter_next(&it); n++)
        if (!ecs_has(w, ecs_iter_entity(&it), vel)) ECS_DEFER_ADD(w, ecs_iter_entity(&it), vel, Vel, {ECS_GET(w, ecs_iter_entity(&it), pos, Pos)->x, 0});
    CHECK(n == 15 && ecs_flush(w) == 5);
    CHECK(ecs_group_count(w, g) == 15 && group_is_exact(g));
    ecs_world_free(w);
}

static int inserted;
static void on_insert(ecs_world *ww, ecs_entity e, ecs_component c, void *v, void *u) {
    (void)ww, (void)e, (void)c, (void)v, (void)u;
    inserted++;
}

static void test_hooks_and_commands_work_on_grouped_storages(void) {
    ecs_hooks h = {0};
    ecs_group g;
    ecs_entity e;
    setup();
    g = pos_vel_not_frozen();
    memset(&h, 0, sizeof h);
    h.on_insert = on_insert;
    ecs_hooks_set(w, vel, &h);
    e = spawn(1, 1, 0);
    CHECK(inserted == 1 && ecs_group_count(w, g) == 1);
    CHECK(ecs_defer_add(w, e, frozen, NULL) && ecs_flush(w) == 1);
    CHECK(ecs_group_count(w, g) == 0 && group_is_exact(g));
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_group_packs_existing_entities_at_creation);
    RUN(test_every_change_keeps_the_group_exact);
    RUN(test_group_arrays_make_a_plain_loop);
    RUN(test_a_storage_has_one_owner);
    RUN(test_only_the_group_sorts_its_storages);
    RUN(test_view_over_the_group_terms_walks_the_group);
    RUN(test_tracking_stamps_move_with_their_rows);
    RUN(test_removing_the_current_entity_during_a_group_walk);
    RUN(test_joining_the_walked_group_during_a_loop_asserts);
    RUN(test_another_entity_leaving_the_walked_group_during_a_loop_asserts);
    RUN(test_deferred_joins_are_safe);
    RUN(test_hooks_and_commands_work_on_grouped_storages);
    return test_summary();
}
