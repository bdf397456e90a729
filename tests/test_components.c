/* Components: registration, name lookup, add (insert or replace), get/has,
   remove/delete/strip/destroy, tags, typed macros, and what each call does
   with a dead entity, an unknown component or a wrong sizeof(T)
   (ecs.h sections 4, 5 and 6). */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;  /* 8 bytes */
typedef struct { int hp; } Health;    /* 4 bytes: a different size than Pos */

/* A world with Pos, Health and the tag "Frozen", registered in that order. */
typedef struct {
    ecs_world *w;
    ecs_component pos, health, frozen;
} fixture;

static fixture fixture_new(void) {
    fixture f;
    f.w = ecs_world_new(NULL);
    f.pos = ECS_COMPONENT(f.w, Pos);
    f.health = ECS_COMPONENT(f.w, Health);
    f.frozen = ECS_TAG(f.w, "Frozen");
    return f;
}

/* ---- registration ------------------------------------------------------ */

static void test_register_gives_ids_from_one_in_order(void) {
    ecs_world *w = ecs_world_new(NULL);
    CHECK_EQ(ecs_component_max(w), 0);
    CHECK_EQ(ECS_COMPONENT(w, Pos), 1);
    CHECK_EQ(ECS_COMPONENT(w, Health), 2);
    CHECK_EQ(ECS_TAG(w, "Frozen"), 3);
    CHECK_EQ(ecs_component_max(w), 3);
    ecs_world_free(w);
}

static void test_register_same_name_and_layout_returns_the_same_id(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos), tag = ECS_TAG(w, "Frozen");
    CHECK_EQ(ECS_COMPONENT(w, Pos), pos);
    CHECK_EQ(ecs_register(w, "Pos", sizeof(Pos), ECS_ALIGNOF(Pos)), pos);
    CHECK_EQ(ECS_TAG(w, "Frozen"), tag);
    CHECK_EQ(ecs_component_max(w), 2); /* nothing new was registered */
    CHECK_EQ(ecs_last_error(w), ECS_OK);
    ecs_world_free(w);
}

static void test_register_same_name_with_other_layout_is_refused(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    EXPECT_ASSERT(ecs_register(w, "Pos", sizeof(Pos) * 2, ECS_ALIGNOF(Pos)) == 0, "Pos");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    ecs_clear_error(w);
    EXPECT_ASSERT(ecs_register(w, "Pos", sizeof(Pos), 1) == 0, "already registered");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ECS_TAG(w, "Pos") == 0, "already registered"); /* a tag is size 0 */
    /* the original registration is untouched */
    CHECK(ecs_component_max(w) == 1 && ecs_lookup(w, "Pos") == pos);
    CHECK_EQ(ecs_component_size(w, pos), sizeof(Pos));
    ecs_world_free(w);
}

static void test_register_refuses_alignment_above_max_align(void) {
    ecs_world *w = ecs_world_new(NULL);
    EXPECT_ASSERT(ecs_register(w, "Huge", ECS_MAX_ALIGN * 2, ECS_MAX_ALIGN * 2) == 0, "Huge");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    CHECK(ecs_component_max(w) == 0 && ecs_lookup(w, "Huge") == 0);
    /* the largest allowed alignment is fine */
    CHECK_EQ(ecs_register(w, "Wide", ECS_MAX_ALIGN, ECS_MAX_ALIGN), 1);
    ecs_world_free(w);
}

static void test_register_refuses_a_missing_name(void) {
    ecs_world *w = ecs_world_new(NULL);
    EXPECT_ASSERT(ecs_register(w, NULL, 4, 4) == 0, "ecs_register");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_register(w, "", 4, 4) == 0, "ecs_register");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    CHECK_EQ(ecs_component_max(w), 0);
    ecs_world_free(w);
}

static void test_register_copies_the_name(void) {
    ecs_world *w = ecs_world_new(NULL);
    char buf[16];
    ecs_component c;
    strcpy(buf, "Velocity");
    c = ecs_register(w, buf, 8, 4);
    strcpy(buf, "Garbage!");
    CHECK_STR_EQ(ecs_component_name(w, c), "Velocity");
    CHECK_EQ(ecs_lookup(w, "Velocity"), c);
    CHECK_EQ(ecs_lookup(w, "Garbage!"), 0);
    ecs_world_free(w);
}

static void test_register_has_no_fixed_limit_on_types(void) {
    ecs_world *w = ecs_world_new(NULL);
    char name[32];
    ecs_component c;
    ecs_entity e = ecs_create(w);
    for (c = 1; c <= 300; c++) {
        sprintf(name, "Type%u", (unsigned)c);
        CHECK_EQ(ecs_register(w, name, sizeof(int), sizeof(int)), c);
        CHECK_PTR_NE(ecs_add(w, e, c, &c), NULL);
    }
    CHECK_EQ(ecs_component_max(w), 300);
    for (c = 1; c <= 300; c++) {
        sprintf(name, "Type%u", (unsigned)c);
        CHECK_EQ(ecs_lookup(w, name), c);
        CHECK_EQ(*(const ecs_component *)ecs_get(w, e, c), c);
    }
    CHECK_EQ(ecs_strip(w, e), 300);
    ecs_world_free(w);
}

static void test_lookup_finds_names_and_returns_zero_for_unknown(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos, frozen;
    CHECK_EQ(ecs_lookup(w, "Pos"), 0); /* nothing registered yet */
    pos = ECS_COMPONENT(w, Pos);
    frozen = ECS_TAG(w, "Frozen");
    CHECK_EQ(ecs_lookup(w, "Pos"), pos);
    CHECK_EQ(ecs_lookup(w, "Frozen"), frozen);
    CHECK_EQ(ecs_lookup(w, "pos"), 0); /* case matters */
    CHECK_EQ(ecs_lookup(w, "Po"), 0);
    CHECK_EQ(ecs_lookup(w, "Unknown"), 0);
    CHECK_EQ(ecs_last_error(w), ECS_OK); /* not finding a name is no error */
    ecs_world_free(w);
}

static void test_component_name_and_size_describe_the_registration(void) {
    fixture f = fixture_new();
    CHECK_STR_EQ(ecs_component_name(f.w, f.pos), "Pos");
    CHECK_STR_EQ(ecs_component_name(f.w, f.frozen), "Frozen");
    CHECK_EQ(ecs_component_size(f.w, f.pos), sizeof(Pos));
    CHECK_EQ(ecs_component_size(f.w, f.health), sizeof(Health));
    CHECK_EQ(ecs_component_size(f.w, f.frozen), 0);
    EXPECT_ASSERT(ecs_component_name(f.w, 0) == NULL, "unknown component");
    EXPECT_ASSERT(ecs_component_size(f.w, 4) == 0, "unknown component");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
    ecs_world_free(f.w);
}

/* ---- add, get, has ----------------------------------------------------- */

static void test_add_inserts_a_copy_of_the_value(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    Pos v = {1, 2};
    Pos *p;
    CHECK(!ecs_has(f.w, e, f.pos) && ecs_get(f.w, e, f.pos) == NULL);
    p = (Pos *)ecs_add(f.w, e, f.pos, &v);
    CHECK(p != NULL && p != &v && p->x == 1 && p->y == 2);
    v.x = 9; /* the storage holds a copy */
    CHECK(p->x == 1);
    CHECK(ecs_has(f.w, e, f.pos) && ecs_get(f.w, e, f.pos) == p);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.pos)), 1);
    CHECK_EQ(ecs_storage_entities(ecs_storage_of(f.w, f.pos))[0], e);
    CHECK_PTR_EQ(ecs_storage_data(ecs_storage_of(f.w, f.pos)), (void *)p);
    ecs_world_free(f.w);
}

static void test_add_on_a_present_component_replaces_in_place(void) {
    fixture f = fixture_new();
    ecs_entity a = ecs_create(f.w), b = ecs_create(f.w);
    Pos v1 = {1, 1}, v2 = {2, 2}, v3 = {3, 3};
    Pos *pa, *pb;
    pa = (Pos *)ecs_add(f.w, a, f.pos, &v1);
    pb = (Pos *)ecs_add(f.w, b, f.pos, &v2);
    /* replacing keeps the row: same pointer, same count, same order */
    CHECK_PTR_EQ(ecs_add(f.w, a, f.pos, &v3), pa);
    CHECK(pa->x == 3 && pb->x == 2);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.pos)), 2);
    CHECK(ecs_storage_entities(ecs_storage_of(f.w, f.pos))[0] == a && ecs_storage_entities(ecs_storage_of(f.w, f.pos))[1] == b);
    /* replacing with the stored value itself is harmless */
    CHECK(ecs_add(f.w, a, f.pos, pa) == pa && pa->x == 3 && pa->y == 3);
    ecs_world_free(f.w);
}

static void test_add_with_null_value_zeroes_on_insert_and_on_replace(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    Pos v = {5, 6};
    Pos *p;
    /* dirty the storage's memory first, so zeroing is visible */
    ecs_add(f.w, e, f.pos, &v);
    ecs_delete(f.w, e, f.pos);
    p = (Pos *)ecs_add(f.w, e, f.pos, NULL);
    CHECK(p && p->x == 0 && p->y == 0);
    p->x = 7;
    p->y = 8;
    CHECK_PTR_EQ(ecs_add(f.w, e, f.pos, NULL), p);
    CHECK(p->x == 0 && p->y == 0);
    ecs_world_free(f.w);
}

static void test_get_mut_writes_through_to_the_stored_value(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    Pos *m;
    ecs_add(f.w, e, f.pos, NULL);
    m = (Pos *)ecs_get_mut(f.w, e, f.pos);
    CHECK(m != NULL && (const void *)m == ecs_get(f.w, e, f.pos));
    m->x = 4;
    CHECK(((const Pos *)ecs_get(f.w, e, f.pos))->x == 4);
    ecs_world_free(f.w);
}

static void test_get_and_has_on_stale_or_null_entity_are_quiet(void) {
    fixture f = fixture_new();
    ecs_entity a = ecs_create(f.w), b;
    ecs_add(f.w, a, f.pos, NULL);
    ecs_destroy(f.w, a);
    b = ecs_create(f.w); /* reuses a's slot */
    ecs_add(f.w, b, f.pos, NULL);
    CHECK_EQ(ECS_ENTITY_INDEX(a), ECS_ENTITY_INDEX(b));
    /* no assert (the harness would fail the test) and no error */
    CHECK(!ecs_has(f.w, a, f.pos));
    CHECK_PTR_EQ(ecs_get(f.w, a, f.pos), NULL);
    CHECK_PTR_EQ(ecs_get_mut(f.w, a, f.pos), NULL);
    CHECK(!ecs_has(f.w, ECS_NULL, f.pos));
    CHECK_PTR_EQ(ecs_get(f.w, ECS_NULL, f.pos), NULL);
    CHECK_PTR_EQ(ecs_get_mut(f.w, ECS_NULL, f.frozen), NULL);
    /* an index that was never handed out */
    CHECK_PTR_EQ(ecs_get(f.w, ((ecs_entity)1 << 32) | 12345u, f.pos), NULL);
    CHECK_EQ(ecs_last_error(f.w), ECS_OK);
    ecs_world_free(f.w);
}

static void test_pointers_into_one_storage_survive_changes_to_another(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w), others[100];
    const Pos *p;
    Pos v = {1, 2};
    int i;
    p = (const Pos *)ecs_add(f.w, e, f.pos, &v);
    for (i = 0; i < 100; i++) {
        others[i] = ecs_create(f.w);
        ecs_add(f.w, others[i], f.health, NULL); /* grows Health many times */
    }
    for (i = 0; i < 100; i += 3) ecs_delete(f.w, others[i], f.health);
    ecs_add(f.w, e, f.health, NULL);
    CHECK(ecs_get(f.w, e, f.pos) == p && p->x == 1 && p->y == 2);
    ecs_world_free(f.w);
}

/* An allocator that keeps freed blocks (filled with 0xdd) until the test
   ends, so code that reads a block after freeing it sees garbage instead of
   tripping ASan/valgrind, and the CHECK that follows reports it. */
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
static void quarantine_release(quarantine *q) {
    while (q->n) free(q->blocks[--q->n]);
}

static void test_add_copies_a_value_read_from_the_same_storage(void) {
    /* ecs_add(w, b, c, ecs_get(w, a, c)): the pointer is valid when the call
       starts (section 7); inserting may grow the storage and move it, but b
       must still get a's value. */
    quarantine q;
    ecs_desc d;
    ecs_world *w;
    ecs_component pos;
    ecs_entity a, e;
    Pos v = {3, 4};
    const Pos *got;
    int i, copied;
    memset(&q, 0, sizeof q);
    memset(&d, 0, sizeof d);
    d.allocator.alloc = quarantine_alloc;
    d.allocator.free = quarantine_free;
    d.allocator.ctx = &q;
    w = ecs_world_new(&d);
    pos = ECS_COMPONENT(w, Pos);
    a = ecs_create(w);
    ecs_add(w, a, pos, &v);
    for (i = 0; i < 20; i++) { /* crosses the growth at 8 and 16 rows */
        e = ecs_create(w);
        CHECK_PTR_NE(ecs_add(w, e, pos, ecs_get(w, a, pos)), NULL);
        got = (const Pos *)ecs_get(w, e, pos);
        copied = got->x == 3 && got->y == 4;
        if (!copied) {
            printf("  copy #%d into a storage of %u rows read a freed block\n", i,
                   (unsigned)ecs_storage_count(ecs_storage_of(w, pos)) - 1);
            ecs_world_free(w);
            quarantine_release(&q);
            CHECK(copied);
        }
    }
    ecs_world_free(w);
    quarantine_release(&q);
}

/* ---- remove, delete, strip, destroy ----------------------------------- */

static void test_remove_copies_the_value_out_and_returns_true(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    Pos v = {1, 2}, out = {0, 0};
    ecs_add(f.w, e, f.pos, &v);
    ecs_add(f.w, e, f.health, NULL);
    CHECK(ecs_remove(f.w, e, f.pos, &out));
    CHECK(out.x == 1 && out.y == 2);
    CHECK(!ecs_has(f.w, e, f.pos) && ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 0);
    CHECK(ecs_has(f.w, e, f.health) && ecs_alive(f.w, e)); /* the rest stays */
    ecs_world_free(f.w);
}

static void test_remove_of_an_absent_component_returns_false_and_leaves_out_alone(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w), dead = ecs_create(f.w);
    Pos out = {7, 7};
    ecs_add(f.w, dead, f.pos, NULL);
    ecs_destroy(f.w, dead);
    CHECK(!ecs_remove(f.w, e, f.pos, &out));
    CHECK(!ecs_remove(f.w, dead, f.pos, &out)); /* stale: false, no assert */
    CHECK(!ecs_remove(f.w, ECS_NULL, f.pos, &out));
    CHECK(out.x == 7 && out.y == 7);
    CHECK_EQ(ecs_last_error(f.w), ECS_OK);
    ecs_world_free(f.w);
}

static void test_remove_with_null_out_discards_the_value(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    ecs_add(f.w, e, f.pos, NULL);
    CHECK(ecs_remove(f.w, e, f.pos, NULL));
    CHECK(!ecs_has(f.w, e, f.pos));
    CHECK(!ecs_remove(f.w, e, f.pos, NULL));
    ecs_world_free(f.w);
}

static void test_delete_discards_the_value_and_returns_whether_it_was_there(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w), other = ecs_create(f.w);
    Pos v = {4, 5};
    ecs_add(f.w, e, f.pos, NULL);
    ecs_add(f.w, other, f.pos, &v);
    CHECK(ecs_delete(f.w, e, f.pos));
    CHECK(!ecs_has(f.w, e, f.pos) && ecs_alive(f.w, e));
    CHECK(!ecs_delete(f.w, e, f.pos)); /* already gone */
    CHECK(((const Pos *)ecs_get(f.w, other, f.pos))->x == 4);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.pos)), 1);
    ecs_destroy(f.w, other);
    CHECK(!ecs_delete(f.w, other, f.pos)); /* stale: false, no assert */
    CHECK_EQ(ecs_last_error(f.w), ECS_OK);
    ecs_world_free(f.w);
}

static void test_strip_deletes_every_component_and_keeps_the_entity(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w), other = ecs_create(f.w), dead;
    ecs_add(f.w, e, f.pos, NULL);
    ecs_add(f.w, e, f.health, NULL);
    ecs_add(f.w, e, f.frozen, NULL);
    ecs_add(f.w, other, f.pos, NULL);
    CHECK_EQ(ecs_strip(f.w, e), 3);
    CHECK(ecs_alive(f.w, e) && ecs_count(f.w) == 2);
    CHECK(!ecs_has(f.w, e, f.pos) && !ecs_has(f.w, e, f.health) && !ecs_has(f.w, e, f.frozen));
    CHECK(ecs_has(f.w, other, f.pos));
    CHECK_EQ(ecs_strip(f.w, e), 0); /* nothing left */
    /* and the entity can take components again */
    CHECK_PTR_NE(ecs_add(f.w, e, f.health, NULL), NULL);
    dead = ecs_create(f.w);
    ecs_destroy(f.w, dead);
    CHECK_EQ(ecs_strip(f.w, dead), 0); /* stale: 0, no assert */
    CHECK_EQ(ecs_strip(f.w, ECS_NULL), 0);
    ecs_world_free(f.w);
}

static void test_destroy_removes_the_entity_from_every_storage(void) {
    fixture f = fixture_new();
    ecs_entity a = ecs_create(f.w), b = ecs_create(f.w);
    Pos pa = {1, 1}, pb = {2, 2};
    Health hb = {20};
    ecs_add(f.w, a, f.pos, &pa);
    ecs_add(f.w, a, f.health, NULL);
    ecs_add(f.w, a, f.frozen, NULL);
    ecs_add(f.w, b, f.pos, &pb);
    ecs_add(f.w, b, f.health, &hb);
    CHECK(ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 2 && ecs_storage_count(ecs_storage_of(f.w, f.health)) == 2 &&
          ecs_storage_count(ecs_storage_of(f.w, f.frozen)) == 1);
    CHECK(ecs_destroy(f.w, a));
    CHECK(ecs_storage_count(ecs_storage_of(f.w, f.pos)) == 1 && ecs_storage_count(ecs_storage_of(f.w, f.health)) == 1 &&
          ecs_storage_count(ecs_storage_of(f.w, f.frozen)) == 0);
    CHECK(ecs_storage_entities(ecs_storage_of(f.w, f.pos))[0] == b && ecs_storage_entities(ecs_storage_of(f.w, f.health))[0] == b);
    CHECK(((const Pos *)ecs_get(f.w, b, f.pos))->x == 2);
    CHECK_EQ(((const Health *)ecs_get(f.w, b, f.health))->hp, 20);
    ecs_world_free(f.w);
}

/* ---- tags -------------------------------------------------------------- */

static void test_tags_record_membership_without_data(void) {
    fixture f = fixture_new();
    ecs_entity a = ecs_create(f.w), b = ecs_create(f.w);
    int sentinel = 42;
    CHECK(ecs_get(f.w, a, f.frozen) == NULL && !ecs_has(f.w, a, f.frozen));
    CHECK_PTR_NE(ecs_add(f.w, a, f.frozen, NULL), NULL);
    CHECK_PTR_NE(ecs_add(f.w, a, f.frozen, &sentinel), NULL); /* already there: still fine */
    CHECK(ecs_has(f.w, a, f.frozen) && ecs_get(f.w, a, f.frozen) != NULL);
    CHECK(!ecs_has(f.w, b, f.frozen) && ecs_get(f.w, b, f.frozen) == NULL);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.frozen)), 1);
    CHECK_EQ(ecs_storage_entities(ecs_storage_of(f.w, f.frozen))[0], a);
    CHECK_PTR_EQ(ecs_storage_data(ecs_storage_of(f.w, f.frozen)), NULL);
    /* removing a tag has no value to copy: out is not written */
    CHECK(ecs_remove(f.w, a, f.frozen, &sentinel));
    CHECK_EQ(sentinel, 42);
    CHECK(!ecs_has(f.w, a, f.frozen) && ecs_get(f.w, a, f.frozen) == NULL);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.frozen)), 0);
    ecs_world_free(f.w);
}

/* ---- bad input (section 6) --------------------------------------------- */

static void test_add_on_a_dead_entity_asserts_naming_call_entity_and_component(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    char want[64], eb[ECS_ENTITY_STR];
    ecs_destroy(f.w, e);
    /* documented shape: "ecs_add(entity 3:2, Pos): entity is not alive" */
    sprintf(want, "ecs_add(entity %s, Pos)", ecs_entity_str(e, eb));
    CHECK_STR_EQ(eb, "0:1");
    EXPECT_ASSERT(ecs_add(f.w, e, f.pos, NULL) == NULL, want);
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_DEAD_ENTITY);
    CHECK_PTR_NE(strstr(ecs_last_error_msg(f.w), want), NULL);
    CHECK_PTR_NE(strstr(ecs_last_error_msg(f.w), "not alive"), NULL);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.pos)), 0);
    ecs_clear_error(f.w);
    EXPECT_ASSERT(ecs_add(f.w, ECS_NULL, f.frozen, NULL) == NULL, "ecs_add(entity null, Frozen)");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_DEAD_ENTITY);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.frozen)), 0);
    ecs_world_free(f.w);
}

static void test_assert_message_is_the_recorded_error_message(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    ecs_destroy(f.w, e);
    EXPECT_ASSERT(ecs_add(f.w, e, f.health, NULL) == NULL, "Health");
    CHECK_STR_EQ(test__assert_msg, ecs_last_error_msg(f.w));
    ecs_world_free(f.w);
}

static void test_unknown_component_fails_every_call_with_an_assert(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    ecs_component bad[2];
    Pos out = {0, 0};
    int i;
    bad[0] = 0;                              /* "no component" */
    bad[1] = ecs_component_max(f.w) + 1;   /* never registered */
    for (i = 0; i < 2; i++) {
        ecs_component c = bad[i];
        ecs_clear_error(f.w);
        EXPECT_ASSERT(ecs_add(f.w, e, c, NULL) == NULL, "unknown component");
        CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
        ecs_clear_error(f.w);
        EXPECT_ASSERT(!ecs_remove(f.w, e, c, &out), "ecs_remove");
        CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
        ecs_clear_error(f.w);
        EXPECT_ASSERT(!ecs_delete(f.w, e, c), "ecs_delete");
        CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
        ecs_clear_error(f.w);
        EXPECT_ASSERT(ecs_get(f.w, e, c) == NULL, "ecs_get");
        CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
        ecs_clear_error(f.w);
        EXPECT_ASSERT(ecs_get_mut(f.w, e, c) == NULL, "ecs_get_mut");
        CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
        ecs_clear_error(f.w);
        EXPECT_ASSERT(!ecs_has(f.w, e, c), "ecs_has");
        CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
    }
    CHECK_EQ(ecs_component_max(f.w), 3); /* nothing was registered on the way */
    ecs_world_free(f.w);
}

static void test_unknown_component_is_named_by_its_id_in_the_message(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    EXPECT_ASSERT(ecs_add(f.w, e, 99, NULL) == NULL, "99");
    ecs_world_free(f.w);
}

/* ---- typed macros ------------------------------------------------------ */

static void test_typed_macros_add_set_get_and_remove_values(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    Health h = {30};
    Pos out = {0, 0};
    Pos *p = ECS_ADD(f.w, e, f.pos, Pos, {1, 2});
    CHECK(p && p->x == 1 && p->y == 2);
    CHECK(ECS_ADD(f.w, e, f.pos, Pos, {3, 4}) == p && p->x == 3); /* replace */
    CHECK_EQ(ECS_ADD(f.w, e, f.health, Health, h)->hp, 30);
    CHECK_EQ(ECS_GET(f.w, e, f.health, Health)->hp, 30);
    ECS_GET_MUT(f.w, e, f.pos, Pos)->y = 9;
    CHECK(ECS_GET(f.w, e, f.pos, Pos)->y == 9);
    CHECK(ECS_REMOVE(f.w, e, f.pos, Pos, &out) && out.x == 3 && out.y == 9);
    CHECK_PTR_EQ(ECS_GET(f.w, e, f.pos, Pos), NULL);
    CHECK(!ECS_REMOVE(f.w, e, f.pos, Pos, &out));
    ecs_world_free(f.w);
}

static int macro_arg_evaluations;
static ecs_entity counted(ecs_entity e) {
    macro_arg_evaluations++;
    return e;
}

static void test_typed_macros_evaluate_each_argument_once(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    Health h = {1};
    Pos out;
    macro_arg_evaluations = 0;
    ECS_ADD(f.w, counted(e), f.pos, Pos, {1, 2});
    ECS_ADD(f.w, counted(e), f.health, Health, h);
    (void)ECS_GET(f.w, counted(e), f.pos, Pos);
    (void)ECS_GET_MUT(f.w, counted(e), f.pos, Pos);
    (void)ECS_REMOVE(f.w, counted(e), f.pos, Pos, &out);
    CHECK_EQ(macro_arg_evaluations, 5);
    ecs_world_free(f.w);
}

static void test_typed_macros_assert_when_sizeof_differs(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    Health h = {5};
    Health out = {77};
    ecs_add(f.w, e, f.pos, NULL);
    /* Health is 4 bytes, Pos was registered with 8 */
    EXPECT_ASSERT(ECS_ADD(f.w, e, f.pos, Health, {1}) == NULL, "sizeof(T) is");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_SIZE_MISMATCH);
    EXPECT_ASSERT(ECS_ADD(f.w, e, f.pos, Health, h) == NULL, "sizeof(T) is");
    EXPECT_ASSERT(ECS_GET(f.w, e, f.pos, Health) == NULL, "sizeof(T) is");
    EXPECT_ASSERT(ECS_GET_MUT(f.w, e, f.pos, Health) == NULL, "sizeof(T) is");
    EXPECT_ASSERT(!ECS_REMOVE(f.w, e, f.pos, Health, &out), "sizeof(T) is");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_SIZE_MISMATCH);
    CHECK_EQ(out.hp, 77);
    /* a mismatched insert does not insert */
    EXPECT_ASSERT(ECS_ADD(f.w, e, f.health, Pos, {1, 2}) == NULL, "sizeof(T) is 8");
    CHECK(!ecs_has(f.w, e, f.health));
    CHECK(ecs_has(f.w, e, f.pos)); /* and the failed remove left Pos */
    ecs_world_free(f.w);
}

/* ---- error state ------------------------------------------------------- */

static void test_errors_are_set_by_failures_and_kept_through_successes(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w), dead = ecs_create(f.w);
    char msg[256];
    CHECK(ecs_last_error(f.w) == ECS_OK && strcmp(ecs_last_error_msg(f.w), "") == 0);
    ecs_destroy(f.w, dead);
    EXPECT_ASSERT(ecs_add(f.w, dead, f.pos, NULL) == NULL, "not alive");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_DEAD_ENTITY);
    strcpy(msg, ecs_last_error_msg(f.w));
    /* successful calls, and quiet misses, leave the error alone */
    CHECK_PTR_NE(ecs_add(f.w, e, f.pos, NULL), NULL);
    CHECK(ecs_get(f.w, e, f.pos) != NULL && ecs_has(f.w, e, f.pos));
    CHECK(ecs_remove(f.w, e, f.pos, NULL));
    CHECK(!ecs_remove(f.w, e, f.pos, NULL));
    CHECK_NE(ecs_create(f.w), ECS_NULL);
    CHECK_NE(ecs_register(f.w, "Other", 4, 4), 0);
    CHECK_EQ(ecs_lookup(f.w, "Missing"), 0);
    CHECK(!ecs_destroy(f.w, dead));
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_DEAD_ENTITY);
    CHECK_STR_EQ(ecs_last_error_msg(f.w), msg);
    /* a later failure overwrites it */
    EXPECT_ASSERT(ecs_get(f.w, e, 0) == NULL, "unknown component");
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_UNKNOWN_COMPONENT);
    CHECK_PTR_NE(strstr(ecs_last_error_msg(f.w), "ecs_get"), NULL);
    ecs_world_free(f.w);
}

static void test_quiet_misses_set_no_error(void) {
    fixture f = fixture_new();
    ecs_entity dead = ecs_create(f.w);
    ecs_destroy(f.w, dead);
    CHECK(!ecs_has(f.w, dead, f.pos) && ecs_get(f.w, dead, f.pos) == NULL);
    CHECK(!ecs_remove(f.w, dead, f.pos, NULL) && !ecs_delete(f.w, dead, f.pos));
    CHECK(ecs_strip(f.w, dead) == 0 && !ecs_destroy(f.w, dead));
    CHECK(!ecs_alive(f.w, dead));
    CHECK(ecs_last_error(f.w) == ECS_OK && strcmp(ecs_last_error_msg(f.w), "") == 0);
    ecs_world_free(f.w);
}

static void test_clear_error_resets_code_and_message(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w);
    EXPECT_ASSERT(!ecs_delete(f.w, e, 42), "unknown component");
    CHECK(ecs_last_error(f.w) != ECS_OK && strlen(ecs_last_error_msg(f.w)) > 0);
    ecs_clear_error(f.w);
    CHECK_EQ(ecs_last_error(f.w), ECS_OK);
    CHECK_STR_EQ(ecs_last_error_msg(f.w), "");
    ecs_world_free(f.w);
}

/* ---- printing an entity ----------------------------------------------- */

static size_t print_pos(const void *value, char *buf, size_t cap) {
    const Pos *p = (const Pos *)value;
    return (size_t)snprintf(buf, cap, "%g, %g", p->x, p->y);
}

/* ecs_entity_print: the id, then the components in id order, with a value
   where a print function was set; snprintf's contract for the buffer. */
static void test_entity_print_names_the_id_components_and_printed_values(void) {
    fixture f = fixture_new();
    ecs_entity e = ecs_create(f.w), d;
    char buf[128], small[10];
    size_t n;
    ECS_ADD(f.w, e, f.pos, Pos, {1.5f, -2});
    ECS_ADD(f.w, e, f.health, Health, {3});
    ecs_add(f.w, e, f.frozen, NULL);
    n = ecs_entity_print(f.w, e, buf, sizeof buf);
    CHECK(strcmp(buf, "0:1 {Pos, Health, Frozen}") == 0 && n == strlen(buf));
    CHECK(ecs_component_print_set(f.w, f.pos, print_pos));
    n = ecs_entity_print(f.w, e, buf, sizeof buf);
    CHECK(strcmp(buf, "0:1 {Pos (1.5, -2), Health, Frozen}") == 0 && n == strlen(buf));
    CHECK_EQ(ecs_entity_print(f.w, e, NULL, 0), n);         /* sizing a buffer */
    CHECK_EQ(ecs_entity_print(f.w, e, small, sizeof small), n);
    CHECK_STR_EQ(small, "0:1 {Pos ");               /* cut, terminated */
    d = ecs_create(f.w);
    CHECK(ecs_entity_print(f.w, d, buf, sizeof buf) && strcmp(buf, "1:1 {}") == 0);
    ecs_destroy(f.w, d);
    CHECK(ecs_entity_print(f.w, d, buf, sizeof buf) && strcmp(buf, "1:1 (not alive)") == 0);
    CHECK(ecs_entity_print(f.w, ECS_NULL, buf, sizeof buf) && strcmp(buf, "null (not alive)") == 0);
    EXPECT_ASSERT(ecs_entity_print(f.w, e, NULL, 5) == 0, "ecs_entity_print");
    EXPECT_ASSERT(!ecs_component_print_set(f.w, f.frozen, print_pos), "a tag has no value to print");
    EXPECT_ASSERT(!ecs_component_print_set(f.w, 99, print_pos), "ecs_component_print_set");
    CHECK(ecs_component_print_set(f.w, f.pos, NULL));
    CHECK(ecs_entity_print(f.w, e, buf, sizeof buf) && strcmp(buf, "0:1 {Pos, Health, Frozen}") == 0);
    ecs_world_free(f.w);
}

/* Without ECS_CALLER_PLACE the calls are functions only (the API has no
   lower-case function-like macros), and their messages name the call, the
   entity and the component, not a place. */
#if defined(ecs_add) || defined(ecs_has) || defined(ecs_get) || defined(ecs_get_mut) || defined(ecs_remove) || \
    defined(ecs_delete) || defined(ecs_storage_get) || defined(ecs_storage_get_mut) || defined(ecs_field) ||      \
    defined(ecs_block)
#error "a call of the API is a macro without ECS_CALLER_PLACE"
#endif
static void test_calls_are_functions_whose_messages_name_call_entity_and_component(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_entity e = ecs_create(w);
    const void *(*get)(const ecs_world *, ecs_entity, ecs_component) = ecs_get;
    EXPECT_ASSERT(get(w, e, 77) == NULL, "ecs_get(entity 0:1, component #77)");
    CHECK_PTR_EQ(strstr(test__assert_msg, "(at "), NULL);
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_register_gives_ids_from_one_in_order);
    RUN(test_register_same_name_and_layout_returns_the_same_id);
    RUN(test_register_same_name_with_other_layout_is_refused);
    RUN(test_register_refuses_alignment_above_max_align);
    RUN(test_register_refuses_a_missing_name);
    RUN(test_register_copies_the_name);
    RUN(test_register_has_no_fixed_limit_on_types);
    RUN(test_lookup_finds_names_and_returns_zero_for_unknown);
    RUN(test_component_name_and_size_describe_the_registration);
    RUN(test_add_inserts_a_copy_of_the_value);
    RUN(test_add_on_a_present_component_replaces_in_place);
    RUN(test_add_with_null_value_zeroes_on_insert_and_on_replace);
    RUN(test_get_mut_writes_through_to_the_stored_value);
    RUN(test_get_and_has_on_stale_or_null_entity_are_quiet);
    RUN(test_pointers_into_one_storage_survive_changes_to_another);
    RUN(test_add_copies_a_value_read_from_the_same_storage);
    RUN(test_remove_copies_the_value_out_and_returns_true);
    RUN(test_remove_of_an_absent_component_returns_false_and_leaves_out_alone);
    RUN(test_remove_with_null_out_discards_the_value);
    RUN(test_delete_discards_the_value_and_returns_whether_it_was_there);
    RUN(test_strip_deletes_every_component_and_keeps_the_entity);
    RUN(test_destroy_removes_the_entity_from_every_storage);
    RUN(test_tags_record_membership_without_data);
    RUN(test_add_on_a_dead_entity_asserts_naming_call_entity_and_component);
    RUN(test_assert_message_is_the_recorded_error_message);
    RUN(test_unknown_component_fails_every_call_with_an_assert);
    RUN(test_unknown_component_is_named_by_its_id_in_the_message);
    RUN(test_typed_macros_add_set_get_and_remove_values);
    RUN(test_typed_macros_evaluate_each_argument_once);
    RUN(test_typed_macros_assert_when_sizeof_differs);
    RUN(test_errors_are_set_by_failures_and_kept_through_successes);
    RUN(test_quiet_misses_set_no_error);
    RUN(test_clear_error_resets_code_and_message);
    RUN(test_entity_print_names_the_id_components_and_printed_values);
    RUN(test_calls_are_functions_whose_messages_name_call_entity_and_component);
    return test_summary();
}
