/* Views: the lead storage, filters, iteration rules and structural changes
   during iteration. */
#include "test.h"
#include "../ecs.h"
#include "walk.h"

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

static ecs_entity spawn(float x, int with_vel, int with_hp, int is_frozen) {
    ecs_entity e = ecs_create(w);
    ECS_ADD(w, e, pos, Pos, {x, 0});
    if (with_vel) ECS_ADD(w, e, vel, Vel, {1, 0});
    if (with_hp) ECS_ADD(w, e, hp, Health, {(int)x});
    if (is_frozen) ecs_add(w, e, frozen, NULL);
    return e;
}

/* Every entity of `want` (n of them) was visited exactly once by `got`. */
static int same_set(const ecs_entity *got, int ngot, const ecs_entity *want, int n) {
    int i, j;
    if (ngot != n) return 0;
    for (i = 0; i < n; i++) {
        int hits = 0;
        for (j = 0; j < ngot; j++) hits += got[j] == want[i];
        if (hits != 1) return 0;
    }
    return 1;
}

static void test_view_walks_the_shortest_storage_from_its_last_row(void) {
    ecs_entity e[6], seen[6];
    ecs_component both[2];
    ecs_iter it;
    int i, n = 0;
    setup();
    for (i = 0; i < 6; i++) e[i] = spawn((float)i, 0, 0, 0);
    /* Vel, the shorter storage, gets e4, e1, e2 in that order */
    ECS_ADD(w, e[4], vel, Vel, {0, 0});
    ECS_ADD(w, e[1], vel, Vel, {0, 0});
    ECS_ADD(w, e[2], vel, Vel, {0, 0});
    both[0] = pos;
    both[1] = vel;
    it = ecs_view_of(w, 2, both);
    while (ecs_iter_next(&it)) seen[n++] = ecs_iter_entity(&it);
    CHECK_EQ(n, 3);
    CHECK(seen[0] == e[2] && seen[1] == e[1] && seen[2] == e[4]); /* Vel's rows, last first */
    ecs_world_free(w);
}

static void test_forced_lead_walks_that_storage(void) {
    ecs_entity e[4], seen[4];
    ecs_view_desc d;
    ecs_iter it;
    int i, n = 0;
    setup();
    for (i = 0; i < 4; i++) e[i] = spawn((float)i, 0, 0, 0);
    ECS_ADD(w, e[3], vel, Vel, {0, 0});
    ECS_ADD(w, e[0], vel, Vel, {0, 0});
    memset(&d, 0, sizeof d);
    d.terms[0].c = vel;
    d.terms[1].c = pos;
    d.lead = pos;
    it = ecs_view(w, &d);
    while (ecs_iter_next(&it)) seen[n++] = ecs_iter_entity(&it);
    CHECK(n == 2 && seen[0] == e[3] && seen[1] == e[0]); /* Pos's order, last first */
    d.lead = frozen;                                       /* not a required term */
    EXPECT_ASSERT(!ecs_iter_next((it = ecs_view(w, &d), &it)), "desc.lead is not a required term");
    ecs_world_free(w);
}

static void test_fields_point_at_each_terms_value(void) {
    ecs_component both[2];
    ecs_iter it;
    int i, n = 0;
    setup();
    for (i = 0; i < 10; i++) spawn((float)i, i % 2, 0, 0);
    both[0] = pos;
    both[1] = vel;
    it = ecs_view_of(w, 2, both);
    while (ecs_iter_next(&it)) {
        Pos *p = ECS_FIELD(&it, 0, Pos);
        const Vel *v = ECS_FIELD(&it, 1, Vel);
        CHECK(p == ecs_get_mut(w, ecs_iter_entity(&it), pos) && v == ecs_get(w, ecs_iter_entity(&it), vel));
        CHECK_EQ((int)p->x % 2, 1);
        p->x += v->x; /* writes land in the storage */
        n++;
    }
    CHECK_EQ(n, 5);
    for (i = 0; i < (int)ecs_storage_count(ecs_storage_of(w, pos)); i++) {
        const Pos *p = (const Pos *)ecs_storage_data(ecs_storage_of(w, pos)) + i;
        CHECK_EQ((int)p->x % 2, 0);
    }
    ecs_world_free(w);
}

static void test_not_optional_and_any_terms(void) {
    ecs_view_desc d;
    ecs_iter it;
    ecs_entity a, c, e;
    int n = 0;
    setup();
    a = spawn(1, 1, 0, 0); /* moving */
    spawn(2, 1, 1, 1);     /* moving, hp, frozen */
    c = spawn(3, 0, 1, 0); /* hp only */
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = frozen;
    d.terms[1].flags = ECS_NOT;
    d.terms[2].c = hp;
    d.terms[2].flags = ECS_OPTIONAL;
    it = ecs_view(w, &d);
    while (ecs_iter_next(&it)) {
        CHECK(ecs_iter_entity(&it) == a || ecs_iter_entity(&it) == c);
        CHECK_PTR_EQ(ecs_field(&it, 1), NULL);
        CHECK_EQ((ECS_FIELD(&it, 2, Health) != NULL), (ecs_iter_entity(&it) == c));
        n++;
    }
    CHECK_EQ(n, 2);
    /* any: Vel or Health */
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = vel;
    d.terms[1].flags = ECS_ANY;
    d.terms[2].c = hp;
    d.terms[2].flags = ECS_ANY;
    e = spawn(4, 0, 0, 0); /* neither */
    n = 0;
    for (it = ecs_view(w, &d); ecs_iter_next(&it); n++) {
        CHECK_NE(ecs_iter_entity(&it), e);
        CHECK_EQ((ECS_FIELD(&it, 1, Vel) != NULL), (ecs_iter_entity(&it) != c));
        CHECK_EQ((ECS_FIELD(&it, 2, Health) != NULL), (ecs_iter_entity(&it) != a));
    }
    CHECK_EQ(n, 3);
    ecs_world_free(w);
}

static void test_union_of_any_terms_visits_each_entity_once(void) {
    ecs_view_desc d;
    ecs_iter it;
    ecs_entity want[3], got[8];
    int n = 0;
    setup();
    want[0] = spawn(1, 1, 0, 0);
    want[1] = spawn(2, 1, 1, 0);
    want[2] = spawn(3, 0, 1, 0);
    spawn(4, 0, 0, 0);
    memset(&d, 0, sizeof d);
    d.terms[0].c = vel;
    d.terms[0].flags = ECS_ANY;
    d.terms[1].c = hp;
    d.terms[1].flags = ECS_ANY;
    for (it = ecs_view(w, &d); ecs_iter_next(&it) && n < 8;) got[n++] = ecs_iter_entity(&it);
    CHECK(same_set(got, n, want, 3));
    EXPECT_ASSERT(!ecs_iter_chunk((it = ecs_view(w, &d), &it), 0, 2), "union view");
    ecs_world_free(w);
}

static void test_view_of_one_storage_visits_every_row(void) {
    ecs_iter it;
    int i, n = 0;
    float sum = 0;
    setup();
    for (i = 0; i < 1000; i++) spawn((float)i, 0, 0, 0);
    for (it = ecs_view_of(w, 1, &pos); ecs_iter_next(&it); n++) sum += ECS_FIELD(&it, 0, Pos)->x;
    CHECK(n == 1000 && sum == 999.0f * 1000.0f / 2.0f);
    ecs_world_free(w);
}

static void test_more_than_eight_terms(void) {
    ecs_component c[12];
    ecs_entity e[3];
    ecs_iter it;
    char name[16];
    int i, k, n = 0;
    w = ecs_world_new(NULL);
    for (k = 0; k < 12; k++) {
        sprintf(name, "C%d", k);
        c[k] = ecs_register(w, name, sizeof(int), sizeof(int));
    }
    for (i = 0; i < 3; i++) {
        e[i] = ecs_create(w);
        for (k = 0; k < 12; k++)
            if (i != 1 || k != 11) *(int *)ecs_add(w, e[i], c[k], NULL) = i * 100 + k;
    }
    for (it = ecs_view_of(w, 12, c); ecs_iter_next(&it); n++) {
        CHECK_NE(ecs_iter_entity(&it), e[1]);
        for (k = 0; k < 12; k++) CHECK_EQ(*ECS_FIELD(&it, (uint32_t)k, int) % 100, k);
    }
    CHECK_EQ(n, 2);
    ecs_world_free(w);
}

static void test_tag_terms_match_without_data(void) {
    ecs_component t[2];
    ecs_iter it;
    int n = 0;
    setup();
    spawn(1, 0, 0, 1);
    spawn(2, 0, 0, 0);
    t[0] = frozen;
    t[1] = pos;
    for (it = ecs_view_of(w, 2, t); ecs_iter_next(&it); n++) {
        CHECK_PTR_NE(ecs_field(&it, 0), NULL);
        CHECK(ECS_FIELD(&it, 1, Pos)->x == 1);
    }
    CHECK_EQ(n, 1);
    ecs_world_free(w);
}

/* The rule users rely on most: the loop may remove components from, or
   destroy, the entity it is on; every other entity is still visited once. */
static void test_removing_the_current_entity_visits_every_other_once(void) {
    int mode;
    for (mode = 0; mode < 4; mode++) {
        ecs_entity all[300], got[300];
        ecs_component both[2];
        ecs_iter it;
        int i, n = 0;
        setup();
        for (i = 0; i < 300; i++) all[i] = spawn((float)i, 1, i % 3 == 0, 0);
        both[0] = pos;
        both[1] = vel;
        for (it = ecs_view_of(w, 2, both); ecs_iter_next(&it);) {
            ecs_entity e = ecs_iter_entity(&it);
            CHECK_LT(n, 300);
            got[n++] = e;
            if (ECS_ENTITY_INDEX(e) % 2) continue; /* every other one */
            if (mode == 0) ecs_destroy(w, e);
            if (mode == 1) ecs_delete(w, e, pos); /* the lead */
            if (mode == 2) ecs_delete(w, e, vel);
            if (mode == 3) ecs_strip(w, e);
        }
        CHECK(same_set(got, n, all, 300));
        CHECK_EQ(ecs_storage_count(ecs_storage_of(w, pos)), (mode == 0 || mode == 1 || mode == 3 ? 150u : 300u));
        ecs_world_free(w);
    }
}

/* Section 7: ecs_iter_entity stays right after the body changed storages -
   also when the body destroyed the current entity or took the walked
   (lead) component from it: it still names that entity, not the one that
   took its row. In both per-entity forms. */
static void test_iter_entity_names_the_current_entity_after_the_body_took_it(void) {
    int mode, form;
    for (form = 0; form < 2; form++)
        for (mode = 0; mode < 3; mode++) {
            ecs_component both[2];
            ecs_iter it;
            int i, n = 0, wrong = 0;
            setup();
            for (i = 0; i < 50; i++) spawn((float)i, 1, 0, 0);
            both[0] = pos;
            both[1] = vel;
            it = ecs_view_of(w, 2, both);
            if (form == 0) {
                while (ecs_iter_next(&it)) {
                    ecs_entity e = ecs_iter_entity(&it);
                    n++;
                    if (ECS_ENTITY_INDEX(e) % 2) continue; /* every other one: the last row moves into its row */
                    if (mode == 0) ecs_destroy(w, e);
                    if (mode == 1) ecs_delete(w, e, pos); /* the lead */
                    if (mode == 2) ecs_strip(w, e);
                    wrong += ecs_iter_entity(&it) != e;
                }
            } else {
                ECS_EACH(&it) {
                    ecs_entity e = ecs_iter_entity(&it);
                    n++;
                    if (ECS_ENTITY_INDEX(e) % 2) continue; /* every other one: the last row moves into its row */
                    if (mode == 0) ecs_destroy(w, e);
                    if (mode == 1) ecs_delete(w, e, pos);
                    if (mode == 2) ecs_strip(w, e);
                    wrong += ecs_iter_entity(&it) != e;
                }
            }
            CHECK_EQ(n, 50);
            CHECK_EQ(wrong, 0);
            ecs_world_free(w);
        }
}

static void test_adding_during_iteration_never_visits_new_entities(void) {
    ecs_iter it;
    int i, n = 0;
    setup();
    for (i = 0; i < 100; i++) spawn((float)i, 0, 0, 0);
    for (it = ecs_view_of(w, 1, &pos); ecs_iter_next(&it); n++) {
        CHECK(ECS_FIELD(&it, 0, Pos)->x < 100); /* spawned ones have x >= 1000 */
        spawn(1000.0f + (float)n, 1, 1, 0);     /* grows Pos: its data moves */
    }
    CHECK(n == 100 && ecs_storage_count(ecs_storage_of(w, pos)) == 200);
    ecs_world_free(w);
}

static void test_entity_gaining_a_match_below_the_cursor_is_visited(void) {
    ecs_entity e[10];
    ecs_view_desc d;
    ecs_iter it;
    int i, n = 0, saw_e0 = 0;
    setup();
    for (i = 0; i < 10; i++) e[i] = spawn((float)i, i != 0, 0, 0);
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = vel;
    d.lead = pos; /* walk Pos: e0 is its row 0, visited last */
    for (it = ecs_view(w, &d); ecs_iter_next(&it); n++) {
        if (ecs_iter_entity(&it) == e[9]) ECS_ADD(w, e[0], vel, Vel, {0, 0});
        saw_e0 |= ecs_iter_entity(&it) == e[0];
    }
    CHECK(n == 10 && saw_e0);
    ecs_world_free(w);
}

static void test_forbidden_change_during_iteration_asserts_naming_storage_and_call(void) {
    ecs_entity e[10];
    ecs_iter it;
    int i, n = 0;
    setup();
    for (i = 0; i < 10; i++) e[i] = spawn((float)i, 0, 0, 0);
    it = ecs_view_of(w, 1, &pos);
    CHECK(ecs_iter_next(&it) && ecs_iter_entity(&it) == e[9]);
    ecs_destroy(w, e[2]); /* another entity of the walked storage */
#if ECS_DEBUG
    EXPECT_ASSERT(ecs_iter_next(&it), "ecs_destroy changed storage Pos under a live view");
#else
    CHECK(ecs_iter_next(&it));
#endif
    n = 2;
    while (ecs_iter_next(&it)) n++; /* still memory-safe afterwards */
    CHECK_LE(n, 10);
    ecs_world_free(w);
}

/* "Release builds stay memory-safe": a body that destroys most other
   entities and gives the memory back (ecs_shrink) leaves the walk's
   current row far past the arrays' new end. The next step asserts under
   ECS_DEBUG; after that (or in release) the walk is cut at the arrays'
   end: no read or write out of bounds (ASan), no more entities than
   there were. Each loop form, over storages in step and interleaved, with
   a written term whose storage tracks modification (the marks are arrays
   too). */
static void destroy_most_at_first_step(ecs_iter *it, void *e) {
    int i;
    (void)it;
    if (ecs_alive(w, ((ecs_entity *)e)[0])) {
        for (i = 0; i < 12; i++) ecs_destroy(w, ((ecs_entity *)e)[i]); /* not the current one (e[15]) */
        ecs_shrink(w);
    }
}
static void test_a_forbidden_change_leaves_the_walk_in_bounds(void) {
    int form, layout;
    for (layout = 0; layout < 2; layout++)
        for (form = 0; form < WALK_FORMS; form++) {
            ecs_entity e[16];
            ecs_view_desc d;
            ecs_iter it;
            int i, before;
            setup();
            ecs_track_set(w, pos, ECS_TRACK_MODIFICATION);
            for (i = 0; i < 16; i++) e[i] = spawn((float)i, !layout || i % 2 == 0, 0, 0);
            memset(&d, 0, sizeof d);
            d.terms[0].c = pos;
            d.terms[0].flags = ECS_WRITE;
            d.terms[1].c = vel;
            d.lead = pos;
            it = ecs_view(w, &d);
            before = test__asserts;
            CHECK_LE(walk(&it, form, destroy_most_at_first_step, e), (layout ? 8 : 16));
            CHECK(!ecs_alive(w, e[0]) && ecs_alive(w, e[15])); /* the body ran */
#if ECS_DEBUG
            CHECK(test__asserts > before && strstr(test__assert_msg, "under a live view"));
            test__expected += test__asserts - before;
#else
            CHECK_EQ(test__asserts, before);
#endif
            ecs_world_free(w);
        }
}

static void test_block_iteration_hands_out_arrays(void) {
    ecs_component both[2];
    ecs_iter it;
    int i, rows = 0;
    setup();
    for (i = 0; i < 1000; i++) spawn((float)i, i % 7 != 0, 0, 0); /* holes in Vel */
    both[0] = pos;
    both[1] = vel;
    for (it = ecs_view_of(w, 2, both); ecs_iter_next_block(&it);) {
        Pos *p = ECS_BLOCK(&it, 0, Pos);
        const Vel *v = ECS_BLOCK(&it, 1, Vel);
        uint32_t j;
        CHECK_GT(it.count, 0);
        for (j = 0; j < it.count; j++) {
            CHECK(ecs_get(w, it.entities[j], pos) == &p[j]);
            CHECK(ecs_get(w, it.entities[j], vel) == &v[j] || it.count == 1);
            p[j].x = -1;
        }
        rows += (int)it.count;
    }
    CHECK_EQ(rows, 1000 - 143);
    for (i = 0; i < 1000; i++) {
        const Pos *p = (const Pos *)ecs_storage_data(ecs_storage_of(w, pos)) + i;
        CHECK_EQ((p->x == -1), ecs_has(w, ecs_storage_entities(ecs_storage_of(w, pos))[i], vel));
    }
    ecs_world_free(w);
}

/* Pos + Vel, NOT Frozen over storages in step: the Frozen rows cut the
   walk into blocks of the rows between them, not blocks of one. */
static void test_blocks_of_a_not_term_span_the_rows_between_its_entities(void) {
    ecs_view_desc d;
    ecs_iter it;
    int i, rows = 0, blocks = 0, frozen_seen = 0;
    uint32_t widest = 0;
    setup();
    for (i = 0; i < 100; i++) spawn((float)i, 1, 0, i % 10 == 0); /* 10 frozen, 9 rows between them */
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = vel;
    d.terms[2].c = frozen;
    d.terms[2].flags = ECS_NOT;
    for (it = ecs_view(w, &d); ecs_iter_next_block(&it); blocks++) {
        Pos *p = ECS_BLOCK(&it, 0, Pos);
        const Vel *v = ECS_BLOCK(&it, 1, Vel);
        uint32_t j;
        for (j = 0; j < it.count; j++) {
            CHECK(ecs_get(w, it.entities[j], pos) == &p[j]);
            CHECK(ecs_get(w, it.entities[j], vel) == &v[j]);
            frozen_seen += ecs_has(w, it.entities[j], frozen);
            p[j].y = 1;
        }
        widest = it.count > widest ? it.count : widest;
        rows += (int)it.count;
    }
    CHECK(rows == 90 && frozen_seen == 0);
    CHECK(blocks == 10 && widest == 9);
    for (i = 0; i < 100; i++) /* each entity's own Pos was reached, the frozen ones' not */
        CHECK_EQ((((const Pos *)ecs_storage_data(ecs_storage_of(w, pos)))[i].y == 1), (i % 10 != 0));
    ecs_world_free(w);
}

/* Walks Pos + Vel in blocks: every entity once, each field its own value
   (Pos.x and Vel.y both hold the entity's number). */
static int blocks_hold_each_entitys_values(int n) {
    ecs_component both[2];
    ecs_iter it;
    int rows = 0, ok = 1;
    both[0] = pos;
    both[1] = vel;
    for (it = ecs_view_of(w, 2, both); ecs_iter_next_block(&it);) {
        const Pos *p = ECS_BLOCK(&it, 0, Pos);
        const Vel *v = ECS_BLOCK(&it, 1, Vel);
        uint32_t j;
        for (j = 0; j < it.count; j++) ok &= p[j].x == v[j].y && ecs_get(w, it.entities[j], vel) == &v[j];
        rows += (int)it.count;
    }
    return ok && rows == n;
}

/* By x, except that 100 and 101 trade places: a sort that moves 2 rows. */
static float swapped_key(float x) { return x == 100 ? 101 : x == 101 ? 100 : x; }
static int cmp_two_swapped(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    float x = swapped_key(((const Pos *)va)->x), y = swapped_key(((const Pos *)vb)->x);
    (void)a, (void)b, (void)ctx;
    return x < y ? -1 : x > y;
}

/* A walk remembers that two storages hold the same entities row for row,
   so the next walk need not compare them again; every change of a row
   but an append must make it look again. */
static void test_storages_found_in_step_are_rechecked_after_any_row_moves(void) {
    ecs_entity e[300];
    ecs_group_desc g;
    int i;
    setup();
    for (i = 0; i < 300; i++) {
        e[i] = spawn((float)i, 0, 0, 0);
        ECS_ADD(w, e[i], vel, Vel, {0, (float)i});
    }
    CHECK(blocks_hold_each_entitys_values(300)); /* in step: remembered */
    CHECK(blocks_hold_each_entitys_values(300));
    for (i = 300; i < 310; i++) { /* appending keeps rows 0..299 in step */
        ecs_entity x = spawn((float)i, 0, 0, 0);
        ECS_ADD(w, x, vel, Vel, {0, (float)i});
    }
    CHECK(blocks_hold_each_entitys_values(310));
    CHECK(ecs_sort(w, pos, cmp_two_swapped, NULL)); /* a sort that moves two rows */
    CHECK(blocks_hold_each_entitys_values(310));
    CHECK(ecs_sort_as(w, pos, vel) && blocks_hold_each_entitys_values(310));
    CHECK(ecs_remove(w, e[5], vel, NULL)); /* a swap-remove: the last row moves up */
    ECS_ADD(w, e[5], vel, Vel, {0, 5});
    CHECK(blocks_hold_each_entitys_values(310));
    CHECK(ecs_sort_as(w, pos, vel) && blocks_hold_each_entitys_values(310));
    memset(&g, 0, sizeof g); /* a group owning Pos and Health moves Pos rows */
    g.owned[0] = pos;
    g.owned[1] = hp;
    CHECK_NE(ecs_group_new(w, &g), 0);
    for (i = 0; i < 300; i += 3) ECS_ADD(w, e[i], hp, Health, {i});
    CHECK(blocks_hold_each_entitys_values(310));
    ecs_world_free(w);
}

/* A bulk create remembers the storages of its bundle as in step, so the
   first walk over the batch compares no entity arrays, but only when
   they held the same entities before: Pos and Vel with three different
   entities each are not, and the walk must find that out itself. */
static void test_bulk_create_remembers_storages_in_step_only_when_they_were(void) {
    int round, i;
    for (round = 0; round < 2; round++) {
        ecs_entity ids[100];
        ecs_component both[2];
        const Pos p0 = {0, 0};
        const Vel v0 = {0, 0};
        const void *values[2];
        both[0] = pos;
        both[1] = vel;
        values[0] = &p0;
        values[1] = &v0;
        setup();
        for (i = 0; round && i < 3; i++) { /* equal counts, other entities */
            spawn(1000.0f + (float)i, 0, 0, 0);
            ECS_ADD(w, ecs_create(w), vel, Vel, {0, -1});
        }
        CHECK(ecs_create_bulk(w, 100, 2, both, values, ids));
        for (i = 0; i < 100; i++) { /* values only: no row moves */
            ECS_GET_MUT(w, ids[i], pos, Pos)->x = (float)i;
            ECS_GET_MUT(w, ids[i], vel, Vel)->y = (float)i;
        }
        CHECK(blocks_hold_each_entitys_values(100));
        CHECK(ecs_remove(w, ids[7], vel, NULL)); /* a swap-remove ends it */
        CHECK(blocks_hold_each_entitys_values(99));
        ecs_world_free(w);
    }
}

static void test_field_size_and_index_are_checked(void) {
    ecs_iter it;
    setup();
    spawn(1, 0, 0, 0);
    it = ecs_view_of(w, 1, &pos);
    CHECK(ecs_iter_next(&it));
#if ECS_DEBUG
    EXPECT_ASSERT(ECS_FIELD(&it, 0, Health) == NULL, "sizeof(T) is 4 but");
    EXPECT_ASSERT(ECS_FIELD(&it, 1, Pos) == NULL, "field 1 of a view with 1 terms");
#endif
    ecs_world_free(w);
}

static void test_bad_view_descriptions_assert(void) {
    ecs_view_desc d;
    ecs_iter it;
    setup();
    spawn(1, 1, 0, 0);
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = pos;
    EXPECT_ASSERT(!ecs_iter_next((it = ecs_view(w, &d), &it)), "listed twice");
    d.terms[1].c = 99;
    EXPECT_ASSERT(!ecs_iter_next((it = ecs_view(w, &d), &it)), "unknown component");
    d.terms[1].c = vel;
    d.terms[1].flags = ECS_NOT | ECS_WRITE;
    EXPECT_ASSERT(!ecs_iter_next((it = ecs_view(w, &d), &it)), "invalid combination");
    d.terms[0].flags = ECS_NOT;
    d.terms[1].flags = ECS_NOT;
    EXPECT_ASSERT(!ecs_iter_next((it = ecs_view(w, &d), &it)), "needs a required or ECS_ANY term");
    ecs_world_free(w);
}

static void count_cb(ecs_iter *it, void *ctx) { *(float *)ctx += ECS_FIELD(it, 0, Pos)->x; }

static void test_each_calls_back_once_per_match(void) {
    ecs_view_desc d;
    float sum = 0;
    int i;
    setup();
    for (i = 1; i <= 4; i++) spawn((float)i, i > 2, 0, 0);
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = vel;
    CHECK(ecs_visit(w, &d, count_cb, &sum) == 2 && sum == 7);
    ecs_world_free(w);
}

/* A field taken after the body grew the walked storage (its arrays moved)
   is the current entity's value in the new arrays: ECS_FIELD and
   ECS_BLOCK read the storage's array at each call. Under ASan a field
   read from the old arrays would be a heap-use-after-free. (The new
   arrays may land where old ones were: the allocator may hand a freed
   block back. So the arrays must have moved at least once in each loop,
   not at every step.) */
static void test_fields_taken_after_a_change_that_moved_the_arrays_are_right(void) {
    ecs_iter it;
    int i, n = 0, moved = 0;
    setup();
    for (i = 1; i <= 3; i++) spawn((float)i, 1, 0, 0);
    it = ecs_view_of(w, 1, &pos);
    ECS_EACH(&it) {
        ecs_entity cur = ecs_iter_entity(&it);
        float x = ECS_FIELD(&it, 0, Pos)->x;
        const void *old = ecs_storage_data(ecs_storage_of(w, pos));
        for (i = 0; i < 200; i++) spawn(1000, 0, 0, 0); /* grows pos: its arrays move */
        moved += ecs_storage_data(ecs_storage_of(w, pos)) != old;
        CHECK_PTR_EQ(ECS_FIELD(&it, 0, Pos), ECS_GET_MUT(w, cur, pos, Pos));
        CHECK(ECS_FIELD(&it, 0, Pos)->x == x);
        n++;
    }
    CHECK_EQ(n, 3);
    CHECK(moved > 0);
    n = moved = 0;
    for (it = ecs_view_of(w, 1, &vel); ecs_iter_next_block(&it);) {
        ecs_entity first = it.entities[0];
        const void *old = ecs_storage_data(ecs_storage_of(w, vel));
        for (i = 0; i < 200; i++) ECS_ADD(w, ecs_create(w), vel, Vel, {5, 5});
        moved += ecs_storage_data(ecs_storage_of(w, vel)) != old;
        CHECK_PTR_EQ(ECS_BLOCK(&it, 0, Vel), ECS_GET_MUT(w, first, vel, Vel));
        n += (int)it.count;
    }
    CHECK_EQ(n, 3);
    CHECK(moved > 0);
    ecs_world_free(w);
}

/* ECS_EACH_VIEW declares its iterator: one statement walks a view made for
   it, with the descriptor written in place (a compound literal), and
   break leaves it like any loop. */
static void test_each_view_declares_its_iterator(void) {
    ecs_entity seen[4];
    int n = 0, i;
    float sum = 0;
    setup();
    for (i = 1; i <= 4; i++) spawn((float)i, i > 2, 0, 0);
    ECS_EACH_VIEW(it, w, &(ecs_view_desc){.terms = {{pos, ECS_WRITE}, {vel, 0}}}) {
        Pos *p = ECS_FIELD(&it, 0, Pos);
        p->x += ECS_FIELD(&it, 1, Vel)->x;
        sum += p->x;
        seen[n++] = ecs_iter_entity(&it);
    }
    CHECK(n == 2 && sum == 3 + 1 + 4 + 1);
    CHECK(ECS_GET(w, seen[0], pos, Pos)->x + ECS_GET(w, seen[1], pos, Pos)->x == 9);
    n = 0;
    ECS_EACH_VIEW(it, w, &(ecs_view_desc){.terms = {{pos, 0}}}) {
        if (++n == 3) break;
    }
    CHECK_EQ(n, 3);
    ecs_world_free(w);
}

/* Velocity taken from every odd entity in creation order leaves Vel's rows
   out of step with Pos's: Pos + Vel and Pos + NOT Frozen are probe runs
   with one term to test, which ECS_EACH walks on its own state
   (ecs__each_next). It hands out the same entities, with the same values,
   as ecs_iter_next and ecs_iter_next_block; the current entity can be
   destroyed, another can grow a storage, and break stops the walk. */
static void test_each_over_interleaved_storages_matches_the_other_loop_forms(void) {
    enum { N = 600 };
    ecs_entity e[N], seen[N], other[N];
    ecs_view_desc d;
    ecs_iter it;
    int i, k, n, m, nnot;
    setup();
    for (i = 0; i < N; i++) e[i] = spawn((float)i, 1, 0, i % 3 == 0);
    for (i = 1; i < N; i += 2) CHECK(ecs_delete(w, e[i], vel));
    for (i = 0; i < N; i += 2) ECS_GET_MUT(w, e[i], vel, Vel)->x = (float)(2 * i);
    CHECK_NE(ecs_storage_entities(ecs_storage_of(w, vel))[1], e[2]); /* out of step */
    for (k = 0; k < 2; k++) { /* Pos + Vel, then Pos + NOT Frozen */
        memset(&d, 0, sizeof d);
        d.terms[0].c = pos;
        d.terms[1].c = k ? frozen : vel;
        d.terms[1].flags = k ? ECS_NOT : 0;
        n = 0;
        it = ecs_view(w, &d);
        ECS_EACH(&it) {
            const Pos *p = ECS_FIELD(&it, 0, Pos);
            ecs_entity x = ecs_iter_entity(&it);
            i = (int)p->x;
            CHECK(n < N && e[i] == x && (k ? i % 3 != 0 : i % 2 == 0));
            if (!k) CHECK(ECS_FIELD(&it, 1, Vel)->x == (float)(2 * i));
            seen[n++] = x;
        }
        m = 0;
        for (it = ecs_view(w, &d); ecs_iter_next(&it);) other[m++] = ecs_iter_entity(&it);
        CHECK(n == (k ? N - N / 3 : N / 2) && same_set(seen, n, other, m));
        m = 0;
        for (it = ecs_view(w, &d); ecs_iter_next_block(&it);)
            for (i = 0; i < (int)it.count; i++) other[m++] = it.entities[i];
        CHECK(same_set(seen, n, other, m));
    }
    /* changes inside the loop: every fourth match destroyed, every fifth
       gives another entity Health (Health grows: arrays move) */
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = vel;
    n = nnot = 0;
    it = ecs_view(w, &d);
    ECS_EACH(&it) {
        ecs_entity x = ecs_iter_entity(&it);
        CHECK(ECS_FIELD(&it, 1, Vel)->x == 2 * ECS_FIELD(&it, 0, Pos)->x);
        seen[n] = x;
        if (n % 5 == 0) ECS_ADD(w, e[(n * 14 + 1) % N], hp, Health, {n}); /* odd: never walked */
        if (n % 4 == 0) {
            CHECK(ecs_destroy(w, x));
            nnot++;
        }
        n++;
    }
    CHECK(n == N / 2 && same_set(seen, n, seen, n)); /* each once */
    /* creating entities in the body: past 32768 slots every storage's page
       table is replaced, which a probe run's state holds (found by review:
       a use-after-free before the tables moved the epoch) */
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[1].c = frozen;
    d.terms[1].flags = ECS_NOT;
    for (k = 0; k < 2; k++) {
        uint32_t before = ecs_count(w);
        n = 0;
        it = ecs_view(w, &d);
        ECS_EACH(&it) {
            if (n++ == 0)
                for (i = 0; i < 40000; i++) CHECK(ecs_create(w));
        }
        CHECK(n > 0 && ecs_count(w) == before + 40000);
        m = 0;
        for (it = ecs_view(w, &d); ecs_iter_next(&it);) m++;
        CHECK_EQ(n, m); /* the new entities have no Pos: nothing more to visit */
        d.terms[1].c = vel; /* then a required tested term */
        d.terms[1].flags = 0;
    }
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, vel)), (uint32_t)(N / 2 - nnot));
    n = 0;
    it = ecs_view(w, &d);
    ECS_EACH(&it) {
        if (++n == 7) break;
    }
    CHECK_EQ(n, 7);
    ecs_world_free(w);
}

/* In a union view every entity comes once with each ANY term's value or
   NULL, in every loop form: ECS_FIELD of a term the entity lacks is NULL
   also in the runs after the first ANY term's, where that term is tested
   for absence entity by entity. */
static void test_union_fields_of_absent_terms_are_null_in_every_loop(void) {
    ecs_view_desc d;
    ecs_iter it;
    int i, n = 0, both = 0;
    setup();
    for (i = 0; i < 40; i++) spawn((float)i, i % 3 == 0, i % 2 == 0, 0);
    memset(&d, 0, sizeof d);
    d.terms[0].c = vel;
    d.terms[0].flags = ECS_ANY;
    d.terms[1].c = hp;
    d.terms[1].flags = ECS_ANY;
    it = ecs_view(w, &d);
    ECS_EACH(&it) {
        ecs_entity e = ecs_iter_entity(&it);
        Vel *v = ECS_FIELD(&it, 0, Vel);
        Health *h = ECS_FIELD(&it, 1, Health);
        CHECK(v == ecs_get(w, e, vel) && h == ecs_get(w, e, hp));
        CHECK(v || h);
        both += v && h;
        n++;
    }
    CHECK_EQ(n, 27); /* i % 3 == 0 or i % 2 == 0, of 0..39 */
    CHECK_EQ(both, 7);
    for (n = 0, it = ecs_view(w, &d); ecs_iter_next(&it); n++) {
        ecs_entity e = ecs_iter_entity(&it);
        CHECK(ECS_FIELD(&it, 0, Vel) == ecs_get(w, e, vel) && ECS_FIELD(&it, 1, Health) == ecs_get(w, e, hp));
    }
    CHECK_EQ(n, 27);
    ecs_world_free(w);
}

/* A block loop whose only test is a filter on the lead's two tick arrays
   (ECS_INSERTED | ECS_MODIFIED) gives blocks of matching entities only:
   neighbours join a block when they pass the filter themselves. */
static void test_blocks_of_a_filter_hold_only_entities_that_pass_it(void) {
    ecs_view_desc d;
    ecs_iter it;
    ecs_entity e[16];
    int i, n = 0;
    setup();
    CHECK(ecs_track_set(w, hp, ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION));
    for (i = 0; i < 16; i++) e[i] = spawn((float)i, 0, 1, 0);
    ecs_track_clear(w, hp, ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION);
    ecs_tick_advance(w);
    for (i = 0; i < 16; i++)
        if (i % 5 == 0 || i % 5 == 1) ecs_get_mut(w, e[i], hp); /* 0 1 5 6 10 11 15 */
    memset(&d, 0, sizeof d);
    d.terms[0].c = hp;
    d.terms[0].flags = ECS_INSERTED | ECS_MODIFIED;
    for (it = ecs_view(w, &d); ecs_iter_next_block(&it);) {
        uint32_t j;
        for (j = 0; j < it.count; j++, n++) {
            for (i = 0; i < 16 && e[i] != it.entities[j]; i++) {}
            CHECK(i < 16 && (i % 5 == 0 || i % 5 == 1));
            CHECK(ECS_BLOCK(&it, 0, Health) + j == ecs_get(w, e[i], hp));
        }
    }
    CHECK_EQ(n, 7);
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_view_walks_the_shortest_storage_from_its_last_row);
    RUN(test_forced_lead_walks_that_storage);
    RUN(test_fields_point_at_each_terms_value);
    RUN(test_not_optional_and_any_terms);
    RUN(test_union_of_any_terms_visits_each_entity_once);
    RUN(test_union_fields_of_absent_terms_are_null_in_every_loop);
    RUN(test_blocks_of_a_filter_hold_only_entities_that_pass_it);
    RUN(test_view_of_one_storage_visits_every_row);
    RUN(test_more_than_eight_terms);
    RUN(test_tag_terms_match_without_data);
    RUN(test_removing_the_current_entity_visits_every_other_once);
    RUN(test_iter_entity_names_the_current_entity_after_the_body_took_it);
    RUN(test_adding_during_iteration_never_visits_new_entities);
    RUN(test_entity_gaining_a_match_below_the_cursor_is_visited);
    RUN(test_forbidden_change_during_iteration_asserts_naming_storage_and_call);
    RUN(test_a_forbidden_change_leaves_the_walk_in_bounds);
    RUN(test_block_iteration_hands_out_arrays);
    RUN(test_blocks_of_a_not_term_span_the_rows_between_its_entities);
    RUN(test_storages_found_in_step_are_rechecked_after_any_row_moves);
    RUN(test_bulk_create_remembers_storages_in_step_only_when_they_were);
    RUN(test_field_size_and_index_are_checked);
    RUN(test_bad_view_descriptions_assert);
    RUN(test_each_calls_back_once_per_match);
    RUN(test_each_view_declares_its_iterator);
    RUN(test_fields_taken_after_a_change_that_moved_the_arrays_are_right);
    RUN(test_each_over_interleaved_storages_matches_the_other_loop_forms);
    return test_summary();
}
