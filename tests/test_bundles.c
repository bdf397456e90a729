/* Bundles: several components at once. ecs_add_n adds (or replaces) a
   bundle on one entity, ecs_create_n makes one entity with a bundle,
   ecs_create_bulk makes many. All three are all-or-nothing
   (ecs.h section 5). */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { int hp; } Health;

typedef struct {
    ecs_world *w;
    ecs_component pos, health, frozen;
} fixture;

static fixture fixture_new(const ecs_desc *d) {
    fixture f;
    f.w = ecs_world_new(d);
    f.pos = ECS_COMPONENT(f.w, Pos);
    f.health = ECS_COMPONENT(f.w, Health);
    f.frozen = ECS_TAG(f.w, "Frozen");
    return f;
}

static int pos_is(const ecs_world *w, ecs_entity e, ecs_component c, float x, float y) {
    const Pos *p = (const Pos *)ecs_get(w, e, c);
    return p && p->x == x && p->y == y;
}
static int health_is(const ecs_world *w, ecs_entity e, ecs_component c, int hp) {
    const Health *h = (const Health *)ecs_get(w, e, c);
    return h && h->hp == hp;
}

/* ---- ecs_add_n --------------------------------------------------------- */

static void test_add_n_adds_every_component_with_its_value(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e = ecs_create(f.w);
    Pos p = {1, 2};
    Health h = {50};
    ecs_component comps[3];
    const void *values[3];
    comps[0] = f.pos, comps[1] = f.health, comps[2] = f.frozen;
    values[0] = &p, values[1] = &h, values[2] = NULL;
    CHECK(ecs_add_n(f.w, e, 3, comps, values));
    CHECK(pos_is(f.w, e, f.pos, 1, 2) && health_is(f.w, e, f.health, 50));
    CHECK(ecs_has(f.w, e, f.frozen));
    CHECK(ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 1 && ecs_storage_count(ecs_storage_of(f.w, f.frozen)) == 1);
    ecs_world_free(f.w);
}

static void test_add_n_replaces_components_already_present(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e = ecs_create(f.w);
    Pos p0 = {1, 1}, p1 = {7, 8};
    Health h = {3};
    ecs_component comps[2];
    const void *values[2];
    const Pos *before = (const Pos *)ecs_add(f.w, e, f.pos, &p0);
    comps[0] = f.health, comps[1] = f.pos;
    values[0] = &h, values[1] = &p1;
    CHECK(ecs_add_n(f.w, e, 2, comps, values));
    CHECK_PTR_EQ(ecs_get(f.w, e, f.pos), before); /* replaced in place */
    CHECK(pos_is(f.w, e, f.pos, 7, 8) && health_is(f.w, e, f.health, 3));
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.pos)), 1);
    ecs_world_free(f.w);
}

static void test_add_n_with_null_values_zeroes(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e = ecs_create(f.w);
    Pos dirty = {5, 5};
    Health h = {9};
    ecs_component comps[2];
    const void *values[2];
    comps[0] = f.pos, comps[1] = f.health;
    ecs_add(f.w, e, f.pos, &dirty); /* replaced by zeroes below */
    CHECK(ecs_add_n(f.w, e, 2, comps, NULL));
    CHECK(pos_is(f.w, e, f.pos, 0, 0) && health_is(f.w, e, f.health, 0));
    /* values[i] NULL zeroes that one only */
    values[0] = &dirty, values[1] = &h;
    CHECK(ecs_add_n(f.w, e, 2, comps, values));
    values[0] = NULL;
    h.hp = 10;
    CHECK(ecs_add_n(f.w, e, 2, comps, values));
    CHECK(pos_is(f.w, e, f.pos, 0, 0) && health_is(f.w, e, f.health, 10));
    ecs_world_free(f.w);
}

static void test_add_n_of_nothing_succeeds_and_changes_nothing(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e = ecs_create(f.w);
    CHECK(ecs_add_n(f.w, e, 0, NULL, NULL));
    CHECK(!ecs_has(f.w, e, f.pos) && ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 0);
    CHECK_EQ(ecs_last_error(f.w), ECS_OK);
    ecs_world_free(f.w);
}

static void test_add_n_with_a_component_twice_asserts_and_changes_nothing(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e = ecs_create(f.w);
    Pos p0 = {1, 1}, p1 = {2, 2};
    Health h = {4};
    ecs_component comps[3];
    const void *values[3];
    ecs_add(f.w, e, f.pos, &p0);
    comps[0] = f.pos, comps[1] = f.health, comps[2] = f.pos;
    values[0] = &p1, values[1] = &h, values[2] = &p1;
    EXPECT_ASSERT(!ecs_add_n(f.w, e, 3, comps, values), "ecs_add_n");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_INVALID);
    CHECK(pos_is(f.w, e, f.pos, 1, 1)); /* not replaced */
    CHECK(!ecs_has(f.w, e, f.health));  /* not added */
    ecs_world_free(f.w);
}

static void test_add_n_with_an_unknown_component_asserts_and_changes_nothing(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e = ecs_create(f.w);
    Pos p0 = {1, 1}, p1 = {2, 2};
    ecs_component comps[3];
    const void *values[3];
    ecs_add(f.w, e, f.pos, &p0);
    comps[0] = f.pos, comps[1] = f.health, comps[2] = 77; /* the bad one comes last */
    values[0] = &p1, values[1] = NULL, values[2] = NULL;
    EXPECT_ASSERT(!ecs_add_n(f.w, e, 3, comps, values), "unknown component");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
    CHECK(pos_is(f.w, e, f.pos, 1, 1) && !ecs_has(f.w, e, f.health));
    comps[2] = 0;
    EXPECT_ASSERT(!ecs_add_n(f.w, e, 3, comps, values), "unknown component");
    CHECK(pos_is(f.w, e, f.pos, 1, 1) && !ecs_has(f.w, e, f.health));
    ecs_world_free(f.w);
}

static void test_add_n_on_a_dead_entity_asserts(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e = ecs_create(f.w);
    ecs_component comps[2];
    comps[0] = f.pos, comps[1] = f.health;
    ecs_destroy(f.w, e);
    EXPECT_ASSERT(!ecs_add_n(f.w, e, 2, comps, NULL), "ecs_add_n");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_DEAD_ENTITY);
    EXPECT_ASSERT(!ecs_add_n(f.w, ECS_NULL, 2, comps, NULL), "not alive");
    CHECK(ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 0 && ecs_storage_count(ecs_storage_of(f.w, f.health)) == 0);
    ecs_world_free(f.w);
}

/* ---- ecs_create_n --------------------------------------------------- */

static void test_create_with_makes_a_live_entity_with_the_bundle(void) {
    fixture f = fixture_new(NULL);
    Pos p = {3, 4};
    ecs_component comps[3];
    const void *values[3];
    ecs_entity e;
    comps[0] = f.pos, comps[1] = f.frozen, comps[2] = f.health;
    values[0] = &p, values[1] = NULL, values[2] = NULL;
    e = ecs_create_n(f.w, 3, comps, values);
    CHECK(e != ECS_NULL && ecs_alive(f.w, e) && ecs_count(f.w) == 1);
    CHECK(pos_is(f.w, e, f.pos, 3, 4) && health_is(f.w, e, f.health, 0));
    CHECK(ecs_has(f.w, e, f.frozen));
    /* an empty bundle is a plain create */
    e = ecs_create_n(f.w, 0, NULL, NULL);
    CHECK(e != ECS_NULL && ecs_alive(f.w, e) && !ecs_has(f.w, e, f.pos));
    ecs_world_free(f.w);
}

static void test_create_with_a_bad_bundle_creates_nothing(void) {
    fixture f = fixture_new(NULL);
    ecs_component comps[2];
    ecs_entity e;
    comps[0] = f.pos, comps[1] = f.pos;
    EXPECT_ASSERT(ecs_create_n(f.w, 2, comps, NULL) == ECS_NULL, "listed twice");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_INVALID);
    comps[1] = 12;
    EXPECT_ASSERT(ecs_create_n(f.w, 2, comps, NULL) == ECS_NULL, "unknown component");
    CHECK(ecs_count(f.w) == 0 && ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 0);
    e = ecs_create(f.w); /* no slot was used up */
    CHECK_EQ(ECS_ENTITY_INDEX(e), 0);
    ecs_world_free(f.w);
}

static void test_create_with_failure_names_create_with_in_the_message(void) {
    /* section 1: the assert message names the call the user made */
    fixture f = fixture_new(NULL);
    ecs_component comps[2];
    char msg[256];
    comps[0] = f.health, comps[1] = f.health;
    EXPECT_ASSERT(ecs_create_n(f.w, 2, comps, NULL) == ECS_NULL, "listed twice");
    sprintf(msg, "%.200s", ecs_last_error_msg(f.w)); /* the same text as the assert */
    ecs_world_free(f.w);
    if (!strstr(msg, "ecs_create_n(")) printf("  message: \"%s\"\n", msg);
    CHECK_PTR_NE(strstr(msg, "ecs_create_n("), NULL);
}

/* ---- ecs_create_bulk --------------------------------------------------- */

static void test_create_bulk_makes_count_distinct_live_entities_with_the_bundle(void) {
    fixture f = fixture_new(NULL);
    Pos p = {1, 2};
    Health h = {8};
    ecs_component comps[3];
    const void *values[3];
    ecs_entity out[100];
    int i, j;
    comps[0] = f.pos, comps[1] = f.health, comps[2] = f.frozen;
    values[0] = &p, values[1] = &h, values[2] = NULL;
    CHECK(ecs_create_bulk(f.w, 100, 3, comps, values, out));
    CHECK_EQ(ecs_count(f.w), 100);
    for (i = 0; i < 100; i++) {
        CHECK(out[i] != ECS_NULL && ecs_alive(f.w, out[i]));
        for (j = 0; j < i; j++) CHECK_NE(out[j], out[i]);
        CHECK(pos_is(f.w, out[i], f.pos, 1, 2) && health_is(f.w, out[i], f.health, 8));
        CHECK(ecs_has(f.w, out[i], f.frozen));
    }
    CHECK(ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 100 && ecs_storage_count(ecs_storage_of(f.w, f.frozen)) == 100);
    /* each got its own copy */
    ((Pos *)ecs_get_mut(f.w, out[0], f.pos))->x = 9;
    CHECK(pos_is(f.w, out[1], f.pos, 1, 2));
    ecs_world_free(f.w);
}

static void test_create_bulk_with_null_values_zeroes(void) {
    fixture f = fixture_new(NULL);
    Pos p = {1, 2};
    ecs_component comps[2];
    const void *values[2];
    ecs_entity out[4];
    int i;
    comps[0] = f.pos, comps[1] = f.health;
    CHECK(ecs_create_bulk(f.w, 4, 2, comps, NULL, out));
    for (i = 0; i < 4; i++)
        CHECK(pos_is(f.w, out[i], f.pos, 0, 0) && health_is(f.w, out[i], f.health, 0));
    values[0] = &p, values[1] = NULL;
    CHECK(ecs_create_bulk(f.w, 4, 2, comps, values, out));
    for (i = 0; i < 4; i++)
        CHECK(pos_is(f.w, out[i], f.pos, 1, 2) && health_is(f.w, out[i], f.health, 0));
    ecs_world_free(f.w);
}

static void test_create_bulk_reuses_free_slots_fifo_then_fresh_ones(void) {
    fixture f = fixture_new(NULL);
    ecs_entity e[5], out[4];
    int i;
    for (i = 0; i < 5; i++) e[i] = ecs_create(f.w);
    ecs_destroy(f.w, e[3]);
    ecs_destroy(f.w, e[1]);
    CHECK(ecs_create_bulk(f.w, 4, 1, &f.pos, NULL, out));
    CHECK(ECS_ENTITY_INDEX(out[0]) == 3 && ECS_ENTITY_VERSION(out[0]) == 2);
    CHECK(ECS_ENTITY_INDEX(out[1]) == 1 && ECS_ENTITY_VERSION(out[1]) == 2);
    CHECK(ECS_ENTITY_INDEX(out[2]) == 5 && ECS_ENTITY_VERSION(out[2]) == 1);
    CHECK_EQ(ECS_ENTITY_INDEX(out[3]), 6);
    CHECK(!ecs_alive(f.w, e[3]) && !ecs_alive(f.w, e[1])); /* old ids stay stale */
    CHECK_EQ(ecs_count(f.w), 7);
    ecs_world_free(f.w);
}

static void test_create_bulk_across_pages_and_scattered_free_slots(void) {
    /* free slots spread over several sparse pages, then fresh slots that
       cross page boundaries: every new entity gets the bundle */
    fixture f = fixture_new(NULL);
    uint32_t i, total = 3 * ECS__PAGE_SIZE, nfree = 0, count;
    ecs_entity *out;
    Health h = {6};
    const void *values[2];
    ecs_component comps[2];
    for (i = 0; i < total; i++) ecs_create(f.w);
    for (i = 7; i < total; i += 1001, nfree++) ecs_destroy(f.w, ((ecs_entity)1 << 32) | i);
    count = nfree + 2 * ECS__PAGE_SIZE + 3;
    out = (ecs_entity *)malloc(count * sizeof *out);
    comps[0] = f.health, comps[1] = f.frozen;
    values[0] = &h, values[1] = NULL;
    CHECK(out && ecs_create_bulk(f.w, count, 2, comps, values, out));
    for (i = 0; i < count; i++) {
        uint32_t want = i < nfree ? 7 + 1001 * i : total + (i - nfree);
        if (ECS_ENTITY_INDEX(out[i]) != want || !health_is(f.w, out[i], f.health, 6) ||
            !ecs_has(f.w, out[i], f.frozen)) {
            printf("  entity #%u (index %u)\n", (unsigned)i, (unsigned)ECS_ENTITY_INDEX(out[i]));
            free(out);
            ecs_world_free(f.w);
            CHECK(0);
        }
    }
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.health)), count);
    CHECK_EQ(ecs_count(f.w), total - nfree + count);
    free(out);
    ecs_world_free(f.w);
}

static void test_create_bulk_out_may_be_null(void) {
    fixture f = fixture_new(NULL);
    CHECK(ecs_create_bulk(f.w, 10, 1, &f.frozen, NULL, NULL));
    CHECK(ecs_count(f.w) == 10 && ecs_storage_count(ecs_storage_of(f.w, f.frozen)) == 10);
    ecs_world_free(f.w);
}

static void test_create_bulk_of_zero_entities_succeeds_and_creates_nothing(void) {
    fixture f = fixture_new(NULL);
    ecs_entity out[1] = {12345};
    CHECK(ecs_create_bulk(f.w, 0, 1, &f.pos, NULL, out));
    CHECK(ecs_count(f.w) == 0 && ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 0);
    CHECK_EQ(out[0], 12345);
    CHECK_EQ(ecs_last_error(f.w), ECS_OK);
    ecs_world_free(f.w);
}

static void test_create_bulk_beyond_max_entities_creates_nothing(void) {
    ecs_desc d;
    fixture f;
    ecs_entity e[4], out[3];
    int i;
    memset(&d, 0, sizeof d);
    d.max_entities = 5;
    f = fixture_new(&d);
    for (i = 0; i < 4; i++) e[i] = ecs_create(f.w);
    ecs_destroy(f.w, e[0]); /* 3 alive, 1 free slot, 1 fresh slot left */
    CHECK(!ecs_create_bulk(f.w, 3, 1, &f.pos, NULL, out));
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_EXHAUSTED); /* a runtime condition: no assert */
    CHECK(ecs_count(f.w) == 3 && ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 0);
    CHECK(ecs_create_bulk(f.w, 2, 1, &f.pos, NULL, out)); /* exactly what is left */
    CHECK(ECS_ENTITY_INDEX(out[0]) == 0 && ECS_ENTITY_INDEX(out[1]) == 4);
    CHECK(ecs_count(f.w) == 5 && ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 2);
    CHECK_EQ(ecs_create_n(f.w, 1, &f.pos, NULL), ECS_NULL);
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_EXHAUSTED);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.pos)), 2);
    ecs_world_free(f.w);
}

static void test_create_bulk_with_a_bad_bundle_asserts_and_creates_nothing(void) {
    fixture f = fixture_new(NULL);
    ecs_component comps[2];
    ecs_entity out[3];
    comps[0] = f.health, comps[1] = f.health;
    EXPECT_ASSERT(!ecs_create_bulk(f.w, 3, 2, comps, NULL, out), "listed twice");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_INVALID);
    comps[1] = 0;
    EXPECT_ASSERT(!ecs_create_bulk(f.w, 3, 2, comps, NULL, out), "unknown component");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
    CHECK(ecs_count(f.w) == 0 && ecs_storage_count(ecs_storage_of(f.w, f.health)) == 0);
    ecs_world_free(f.w);
}

/* An allocator that keeps freed blocks (filled with 0xdd) until the test
   ends, so a read of a freed block shows up as garbage in a CHECK instead
   of tripping ASan/valgrind. */
#define QUARANTINE_MAX 64
typedef struct {
    void *blocks[QUARANTINE_MAX];
    int n;
} quarantine;

static void *quarantine_alloc(size_t size, void *ctx) {
    (void)ctx;
    return malloc(size ? size : 1);
}
static void quarantine_free(void *p, size_t size, void *ctx) {
    quarantine *q = (quarantine *)ctx;
    memset(p, 0xdd, size);
    if (q->n < QUARANTINE_MAX)
        q->blocks[q->n++] = p;
    else
        free(p);
}

static void test_bundle_values_may_be_read_from_an_existing_entity(void) {
    /* cloning a prefab: the values point into the storages the new entities
       are added to. They are valid when the call starts (section 7), so
       every clone must get the prefab's values even when a storage grows. */
    quarantine q;
    ecs_desc d;
    fixture f;
    ecs_entity prefab, out[20];
    ecs_component comps[2];
    const void *values[2];
    Pos p = {3, 4};
    Health h = {99};
    int i, ok = 1;
    memset(&q, 0, sizeof q);
    memset(&d, 0, sizeof d);
    d.allocator.alloc = quarantine_alloc;
    d.allocator.free = quarantine_free;
    d.allocator.ctx = &q;
    f = fixture_new(&d);
    prefab = ecs_create(f.w);
    ecs_add(f.w, prefab, f.pos, &p);
    ecs_add(f.w, prefab, f.health, &h);
    comps[0] = f.pos, comps[1] = f.health;
    values[0] = ecs_get(f.w, prefab, f.pos), values[1] = ecs_get(f.w, prefab, f.health);
    CHECK(ecs_create_bulk(f.w, 20, 2, comps, values, out)); /* grows both storages */
    for (i = 0; i < 20; i++)
        ok = ok && pos_is(f.w, out[i], f.pos, 3, 4) && health_is(f.w, out[i], f.health, 99);
    ecs_world_free(f.w);
    while (q.n) free(q.blocks[--q.n]);
    if (!ok) printf("  a clone read the prefab's value from a freed block\n");
    CHECK(ok);
}

/* Section 15: replacing a value never moves its storage. A bundle that
   replaces one component and inserts another grows only the second, even
   when the first storage is full. */
static void test_add_n_replacing_in_a_full_storage_does_not_move_it(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos), health = ECS_COMPONENT(w, Health);
    ecs_component comps[2];
    const void *values[2];
    Pos p = {7, 8};
    Health h = {9};
    ecs_entity e = ECS_NULL;
    const Pos *before;
    int i;
    for (i = 0; i < 8; i++) { /* 8 rows: the first capacity, full */
        e = ecs_create(w);
        ECS_ADD(w, e, pos, Pos, {1, 2});
    }
    before = ECS_GET(w, e, pos, Pos);
    comps[0] = pos;
    comps[1] = health;
    values[0] = &p;
    values[1] = &h;
    CHECK(ecs_add_n(w, e, 2, comps, values));
    CHECK(ECS_GET(w, e, pos, Pos) == before && before->x == 7 && ECS_GET(w, e, health, Health)->hp == 9);
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_add_n_adds_every_component_with_its_value);
    RUN(test_add_n_replaces_components_already_present);
    RUN(test_add_n_with_null_values_zeroes);
    RUN(test_add_n_of_nothing_succeeds_and_changes_nothing);
    RUN(test_add_n_with_a_component_twice_asserts_and_changes_nothing);
    RUN(test_add_n_with_an_unknown_component_asserts_and_changes_nothing);
    RUN(test_add_n_on_a_dead_entity_asserts);
    RUN(test_create_with_makes_a_live_entity_with_the_bundle);
    RUN(test_create_with_a_bad_bundle_creates_nothing);
    RUN(test_create_with_failure_names_create_with_in_the_message);
    RUN(test_create_bulk_makes_count_distinct_live_entities_with_the_bundle);
    RUN(test_create_bulk_with_null_values_zeroes);
    RUN(test_create_bulk_reuses_free_slots_fifo_then_fresh_ones);
    RUN(test_create_bulk_across_pages_and_scattered_free_slots);
    RUN(test_create_bulk_out_may_be_null);
    RUN(test_create_bulk_of_zero_entities_succeeds_and_creates_nothing);
    RUN(test_create_bulk_beyond_max_entities_creates_nothing);
    RUN(test_create_bulk_with_a_bad_bundle_asserts_and_creates_nothing);
    RUN(test_bundle_values_may_be_read_from_an_existing_entity);
    RUN(test_add_n_replacing_in_a_full_storage_does_not_move_it);
    return test_summary();
}
