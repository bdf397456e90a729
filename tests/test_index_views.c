/* Views with an index term (ecs.h section 14, ecs_view_desc.where): a view
   walks only the entities whose key of an index is a value (any index)
   or in a range (ordered). The index leads the walk when it has fewer
   entities in range than the shortest required term has rows, and then
   an ordered index hands them out in key order; else that term leads and
   the key is tested at each entity. Either way every entity's key is
   tested as the walk reaches it, so a walk never yields an entity whose
   value does not match at that moment. */
#include "test.h"
#include "../ecs.h"

#include <math.h>
#include <stddef.h>

typedef struct Unit {
    int32_t cell;
    float hp;
    char name[8];
} Unit;
typedef struct { float x, y; } Pos;

typedef struct scene {
    ecs_world *w;
    ecs_component unit, pos, frozen;
    ecs_index by_cell, by_hp, by_name; /* hashed, ordered, hashed chars */
    ecs_entity e[200];
} scene;

static ecs_index index_on(ecs_world *w, ecs_component c, uint32_t offset, uint32_t size, int kind, bool ordered) {
    ecs_index_desc d;
    memset(&d, 0, sizeof d);
    d.c = c, d.offset = offset, d.size = size, d.kind = kind, d.ordered = ordered;
    return ecs_index_new(w, &d);
}

/* 200 units: cell k % 10, hp (k * 37) % 200 (distinct), name "u<k % 4>";
   Pos on every even k, Frozen on every k % 3 == 0. */
static scene scene_new(const ecs_desc *desc) {
    scene s;
    uint32_t k;
    s.w = ecs_world_new(desc);
    s.unit = ECS_COMPONENT(s.w, Unit);
    s.pos = ECS_COMPONENT(s.w, Pos);
    s.frozen = ECS_TAG(s.w, "Frozen");
    s.by_cell = index_on(s.w, s.unit, offsetof(Unit, cell), 4, ECS_KEY_INT, false);
    s.by_hp = index_on(s.w, s.unit, offsetof(Unit, hp), 4, ECS_KEY_FLOAT, true);
    s.by_name = index_on(s.w, s.unit, offsetof(Unit, name), 8, ECS_KEY_CHARS, false);
    for (k = 0; k < 200; k++) {
        Unit u;
        memset(&u, 0, sizeof u);
        u.cell = (int32_t)(k % 10);
        u.hp = (float)((k * 37) % 200);
        snprintf(u.name, sizeof u.name, "u%u", k % 4);
        s.e[k] = ecs_create(s.w);
        ecs_add(s.w, s.e[k], s.unit, &u);
        if (k % 2 == 0) ECS_ADD(s.w, s.e[k], s.pos, Pos, {(float)k, 0});
        if (k % 3 == 0) ecs_add(s.w, s.e[k], s.frozen, NULL);
    }
    return s;
}

static const Unit *unit_of(const scene *s, ecs_entity e) { return ECS_GET(s->w, e, s->unit, Unit); }

/* The entities a view yields with ECS_EACH, in the order it yields them. */
static uint32_t walk_each(ecs_world *w, const ecs_view_desc *d, ecs_entity *out) {
    uint32_t n = 0;
    ecs_iter it = ecs_view(w, d);
    ECS_EACH(&it) out[n++] = ecs_iter_entity(&it);
    return n;
}
static uint32_t walk_next(ecs_world *w, const ecs_view_desc *d, ecs_entity *out) {
    uint32_t n = 0;
    ecs_iter it = ecs_view(w, d);
    while (ecs_iter_next(&it)) out[n++] = ecs_iter_entity(&it);
    return n;
}
static uint32_t walk_blocks(ecs_world *w, const ecs_view_desc *d, ecs_entity *out) {
    uint32_t n = 0, j;
    ecs_iter it = ecs_view(w, d);
    while (ecs_iter_next_block(&it))
        for (j = 0; j < it.count; j++) out[n++] = it.entities[j];
    return n;
}
static int by_id(const void *a, const void *b) {
    ecs_entity x = *(const ecs_entity *)a, y = *(const ecs_entity *)b;
    return x < y ? -1 : x > y;
}

/* Every loop form yields the entities pass() says, each once. */
static void check_view(const scene *s, const ecs_view_desc *d, bool (*pass)(const scene *, ecs_entity, const void *),
                       const void *arg) {
    ecs_entity want[200], got[200];
    uint32_t n = 0, k, form;
    for (k = 0; k < 200; k++)
        if (ecs_alive(s->w, s->e[k]) && pass(s, s->e[k], arg)) want[n++] = s->e[k];
    qsort(want, n, sizeof *want, by_id);
    for (form = 0; form < 3; form++) {
        uint32_t m = form == 0 ? walk_each(s->w, d, got) : form == 1 ? walk_next(s->w, d, got) : walk_blocks(s->w, d, got);
        CHECK_EQ(m, n);
        qsort(got, m, sizeof *got, by_id);
        CHECK(memcmp(got, want, (size_t)n * sizeof *want) == 0);
    }
}

static bool in_cell(const scene *s, ecs_entity e, const void *cell) {
    return unit_of(s, e)->cell == *(const int32_t *)cell;
}
static bool in_cell_with_pos(const scene *s, ecs_entity e, const void *cell) {
    return unit_of(s, e)->cell == *(const int32_t *)cell && ecs_has(s->w, e, s->pos) && !ecs_has(s->w, e, s->frozen);
}

static void test_a_key_finds_the_entities_that_also_match_the_other_terms(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    int32_t cell;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.pos, d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = s.frozen, d.terms[1].flags = ECS_NOT;
    d.where.index = s.by_cell;
    for (cell = -1; cell <= 10; cell++) { /* (cells -1 and 10: no entity) */
        d.where.key = &cell;
        check_view(&s, &d, in_cell_with_pos, &cell);
    }
    d.lead = s.pos; /* a named lead walks its storage and tests the key: the same entities */
    cell = 4;
    check_view(&s, &d, in_cell_with_pos, &cell);
    ecs_world_free(s.w);
}

static bool named_u1(const scene *s, ecs_entity e, const void *arg) {
    (void)arg;
    return strcmp(unit_of(s, e)->name, "u1") == 0;
}

static void test_a_view_of_an_index_alone_needs_no_other_term(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    char name[8] = "u1";
    memset(&d, 0, sizeof d);
    d.where.index = s.by_name;
    d.where.key = name;
    check_view(&s, &d, named_u1, NULL);
    ecs_world_free(s.w);
}

typedef struct span {
    float lo, hi;
    uint32_t flags;
} span;
static bool hp_in(const scene *s, ecs_entity e, const void *arg) {
    const span *r = (const span *)arg;
    float hp = unit_of(s, e)->hp;
    return ((r->flags & ECS_RANGE_LO_OPEN) ? hp > r->lo : hp >= r->lo) &&
           ((r->flags & ECS_RANGE_HI_OPEN) ? hp < r->hi : hp <= r->hi);
}

static void test_an_ordered_index_leads_in_key_order(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    ecs_entity got[200];
    uint32_t n, k, flags;
    span r = {20.0f, 60.0f, 0};
    int alone, form;
    memset(&d, 0, sizeof d);
    d.where.index = s.by_hp;
    for (alone = 0; alone < 2; alone++) { /* with a term, and the index alone (whose blocks could merge) */
        d.terms[0].c = alone ? 0 : s.unit;
        for (flags = 0; flags < 4; flags++) {
            r.flags = flags;
            d.where.lo = &r.lo, d.where.hi = &r.hi, d.where.flags = flags;
            check_view(&s, &d, hp_in, &r);
            for (form = 0; form < 3; form++) { /* 40 of 200 entities: the index leads, keys come in order */
                n = form == 0 ? walk_each(s.w, &d, got) : form == 1 ? walk_next(s.w, &d, got) : walk_blocks(s.w, &d, got);
                CHECK_EQ(n, 41u - (flags & 1) - (flags >> 1));
                for (k = 1; k < n; k++) CHECK(unit_of(&s, got[k - 1])->hp < unit_of(&s, got[k])->hp);
            }
        }
    }
    d.terms[0].c = s.unit;
    d.where.lo = NULL, d.where.flags = 0; /* no lower bound */
    r.lo = -1.0f, r.flags = 0;
    check_view(&s, &d, hp_in, &r);
    ecs_world_free(s.w);
}

static void test_writes_in_the_loop_are_seen_as_the_walk_reaches_each_entity(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    int32_t cell = 3, seen = 0, met193 = -1;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.unit, d.terms[0].flags = ECS_WRITE;
    d.where.index = s.by_cell;
    d.where.key = &cell;
    ECS_EACH_VIEW(it, s.w, &d) { /* moves each entity it meets out of cell 3, and entity 193 before it is met */
        Unit *u = ECS_FIELD(&it, 0, Unit);
        CHECK_EQ(u->cell, 3);
        u->cell = 30;
        if (ecs_iter_entity(&it) == s.e[193]) met193 = seen;
        else ECS_GET_MUT(s.w, s.e[193], s.unit, Unit)->cell = 31;
        seen++;
    }
    CHECK_EQ(seen, met193 == 0 ? 20 : 19); /* 193 was met first, or never */
    CHECK_EQ(ecs_index_find(s.w, s.by_cell, &cell, NULL, 0), 0u);
    ECS_EACH_VIEW(it, s.w, &d) seen = -1; /* nothing left in cell 3 */
    CHECK_NE(seen, -1);
    ecs_world_free(s.w);
}

static void test_entities_destroyed_during_the_walk_are_not_met(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    int32_t cell = 5;
    uint32_t met = 0, k;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.unit;
    d.where.index = s.by_cell;
    d.where.key = &cell;
    ECS_EACH_VIEW(it, s.w, &d) {
        ecs_entity e = ecs_iter_entity(&it);
        CHECK(ecs_alive(s.w, e));
        CHECK_EQ(ECS_FIELD(&it, 0, Unit)->cell, 5);
        met++;
        for (k = 5; k < 200; k += 10) /* the current one and every other of the cell, once */
            if (s.e[k] != e && ecs_alive(s.w, s.e[k])) {
                CHECK(ecs_destroy(s.w, s.e[k]));
                ECS_ADD(s.w, ecs_create(s.w), s.unit, Unit, {5, 1.0f, "new"}); /* may reuse its index */
                break;
            }
        CHECK(ecs_destroy(s.w, e));
    }
    CHECK_EQ(met, 10u); /* 20 in the cell: each step destroys two */
    ecs_world_free(s.w);
}

static void test_views_of_one_index_nest(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    int32_t cell = 7;
    uint32_t pairs = 0;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.unit;
    d.where.index = s.by_cell;
    d.where.key = &cell;
    ECS_EACH_VIEW(a, s.w, &d) { /* every pair of units of a cell */
        ECS_EACH_VIEW(b, s.w, &d) pairs += ecs_iter_entity(&a) != ecs_iter_entity(&b);
    }
    CHECK_EQ(pairs, 20u * 19u);
    ecs_world_free(s.w);
}

/* A view led by an index whose entries changed (a write to its field)
   rebuilds the index's walk: a walk it led that is still going has its
   rows changed under it, which ECS_DEBUG reports as for a storage; in
   release that walk may skip or repeat entities but stays in bounds. */
static void test_a_view_after_a_write_changes_the_walks_of_its_index(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    int32_t cell = 7;
    uint32_t inner = 0;
    int before;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.unit;
    d.where.index = s.by_cell;
    d.where.key = &cell;
    before = test__asserts;
    ECS_EACH_VIEW(a, s.w, &d) {
        ECS_GET_MUT(s.w, ecs_iter_entity(&a), s.unit, Unit)->cell = 70;
        ECS_EACH_VIEW(b, s.w, &d) inner++;
    }
#if ECS_DEBUG
    CHECK_GT(test__asserts, before); /* (once per rebuild) */
    CHECK(strstr(test__assert_msg, "a view led by an index of it, after a write, changed storage Unit under a live view"));
#endif
    test__expected += test__asserts - before;
    CHECK_GT(inner, 0u);
    ecs_world_free(s.w);
}

/* A write that changes no key (another field, the same key) leaves the
   index's entries, so a view in the loop body lays nothing out again: the
   walk it is nested in goes on, every entity once, nothing reported. */
static void test_writes_that_change_no_key_leave_the_walk_alone(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    char name[8] = "u3";
    int32_t cell = 3;
    uint32_t met = 0, inner = 0, k;
    int before = test__asserts;
    ecs_index by_name_ordered = index_on(s.w, s.unit, offsetof(Unit, name), 8, ECS_KEY_CHARS, true);
    for (k = 0; k < 3; k++) {
        memset(&d, 0, sizeof d);
        d.terms[0].c = s.unit, d.terms[0].flags = ECS_WRITE;
        d.where.index = k == 0 ? s.by_name : k == 1 ? by_name_ordered : s.by_cell;
        d.where.key = k < 2 ? (const void *)name : (const void *)&cell;
        met = inner = 0;
        ECS_EACH_VIEW(it, s.w, &d) {
            Unit *u = ECS_FIELD(&it, 0, Unit);
            u->hp += 1000;                /* another field */
            if (k == 2) u->cell = 3;      /* the same key */
            ECS_EACH_VIEW(in, s.w, &d) inner++;
            met++;
        }
        CHECK_EQ(met, k < 2 ? 50u : 20u); /* name u3: k % 4 == 3; cell 3: k % 10 == 3 */
        CHECK_EQ(inner, met * met);
    }
    CHECK_EQ(test__asserts, before);
    ecs_world_free(s.w);
}

static void test_chunks_of_an_index_walk_cover_it_once(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    span r = {0.0f, 99.0f, 0};
    uint32_t k, c, total = 0, seen[200];
    memset(seen, 0, sizeof seen);
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.unit;
    d.where.index = s.by_hp;
    d.where.lo = &r.lo, d.where.hi = &r.hi;
    for (c = 0; c < 3; c++) {
        ecs_iter it = ecs_view(s.w, &d);
        CHECK(ecs_iter_chunk(&it, c, 3));
        ECS_EACH(&it) {
            for (k = 0; k < 200 && s.e[k] != ecs_iter_entity(&it); k++) {}
            CHECK_LT(k, 200u);
            CHECK(hp_in(&s, s.e[k], &r));
            seen[k]++, total++;
        }
    }
    CHECK_EQ(total, 100u);
    for (k = 0; k < 200; k++) CHECK_LE(seen[k], 1u);
    ecs_world_free(s.w);
}

/* Beside a group: a view of the group's storages with an index term walks
   the group's rows when they are fewer, else the index; the same entities. */
static bool hp_in_with_pos(const scene *s, ecs_entity e, const void *arg) {
    return hp_in(s, e, arg) && ecs_has(s->w, e, s->pos);
}
static void test_an_index_term_beside_a_group(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    ecs_group_desc g;
    span wide = {0.0f, 190.0f, 0}, narrow = {10.0f, 12.0f, 0};
    memset(&g, 0, sizeof g);
    g.owned[0] = s.unit, g.owned[1] = s.pos;
    CHECK(ecs_group_new(s.w, &g) != 0);
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.unit, d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = s.pos;
    d.where.index = s.by_hp;
    d.where.lo = &wide.lo, d.where.hi = &wide.hi; /* 191 of 200 in range, 100 in the group: the group leads */
    check_view(&s, &d, hp_in_with_pos, &wide);
    d.where.lo = &narrow.lo, d.where.hi = &narrow.hi; /* 3 in range: the index leads */
    check_view(&s, &d, hp_in_with_pos, &narrow);
    ecs_world_free(s.w);
}

/* The other term kinds work beside an index term as in any view: ECS_ANY
   (one of them), ECS_OPTIONAL (a value or NULL), ECS_MODIFIED (since). */
static void test_any_optional_and_modified_terms_beside_an_index_term(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    ecs_tick since;
    int32_t cell = 4;
    uint32_t n = 0, k;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.pos, d.terms[0].flags = ECS_ANY;
    d.terms[1].c = s.frozen, d.terms[1].flags = ECS_ANY;
    d.where.index = s.by_cell;
    d.where.key = &cell;
    ECS_EACH_VIEW(it, s.w, &d) { /* cell 4: k = 4, 14, ...; Pos on all (even), so all 20 */
        CHECK(ecs_field(&it, 0) != NULL || ecs_has(s.w, ecs_iter_entity(&it), s.frozen));
        n++;
    }
    CHECK_EQ(n, 20u);
    cell = 5; /* odd k: no Pos; Frozen on k % 3 == 0 (15, 45, 75...): 7 of 20 */
    n = 0;
    ECS_EACH_VIEW(it, s.w, &d) n++;
    CHECK_EQ(n, 7u);
    d.terms[0].flags = ECS_OPTIONAL, d.terms[1].c = 0;
    n = 0;
    ECS_EACH_VIEW(it, s.w, &d) n += ecs_field(&it, 0) == NULL; /* cell 5: no Pos */
    CHECK_EQ(n, 20u);
    CHECK(ecs_track_set(s.w, s.pos, ECS_TRACK_MODIFICATION));
    since = ecs_tick_advance(s.w);
    for (k = 4; k < 200; k += 40) ECS_GET_MUT(s.w, s.e[k], s.pos, Pos)->y = 1; /* 5 of cell 4 */
    cell = 4;
    d.terms[0].flags = ECS_MODIFIED, d.since = since;
    n = 0;
    ECS_EACH_VIEW(it, s.w, &d) {
        CHECK(ECS_FIELD(&it, 0, Pos)->y == 1);
        n++;
    }
    CHECK_EQ(n, 5u);
    ecs_world_free(s.w);
}

static void test_bad_index_terms_are_refused(void) {
    scene s = scene_new(NULL);
    ecs_view_desc d;
    ecs_iter it;
    float nan_key = (float)NAN, lo = 1.0f;
    int32_t cell = 1;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.unit;
    d.where.index = 99;
    d.where.key = &cell;
    EXPECT_ASSERT((it = ecs_view(s.w, &d), 1), "no such index");
    CHECK(!ecs_iter_next(&it));
    d.where.index = s.by_cell, d.where.key = NULL, d.where.lo = &cell;
    EXPECT_ASSERT((it = ecs_view(s.w, &d), 1), "needs an ordered index");
    CHECK(!ecs_iter_next(&it));
    d.where.index = s.by_hp, d.where.lo = &lo, d.where.flags = 4;
    EXPECT_ASSERT((it = ecs_view(s.w, &d), 1), "range flags");
    CHECK(!ecs_iter_next(&it));
    d.where.flags = 0, d.where.key = &nan_key; /* a NaN: nothing, and no error */
    ecs_clear_error(s.w);
    it = ecs_view(s.w, &d);
    CHECK(!ecs_iter_next(&it));
    CHECK_EQ(ecs_last_error(s.w), ECS_OK);
    ecs_world_free(s.w);
}


/* Out of memory for the index's walk, a view with a required term walks
   that term instead, one with none the indexed storage: the same entities. */
static void test_out_of_memory_a_storage_leads_instead(void) {
    budget b = {-1};
    ecs_desc desc;
    scene s;
    ecs_view_desc d;
    int32_t cell = 2;
    memset(&desc, 0, sizeof desc);
    desc.allocator.alloc = budget_alloc, desc.allocator.free = budget_free, desc.allocator.ctx = &b;
    s = scene_new(&desc);
    memset(&d, 0, sizeof d);
    d.terms[0].c = s.pos;
    d.terms[1].c = s.frozen, d.terms[1].flags = ECS_NOT;
    d.where.index = s.by_cell;
    d.where.key = &cell;
    b.left = 0;
    check_view(&s, &d, in_cell_with_pos, &cell);
    memset(&d.terms, 0, sizeof d.terms); /* no term to lead: Unit's storage does */
    check_view(&s, &d, in_cell, &cell);
    CHECK_EQ(ecs_last_error(s.w), ECS_OK);
    b.left = -1;
    check_view(&s, &d, in_cell, &cell);
    ecs_world_free(s.w);
}

/* ecs_index_free in the body of a walk with an index term, led by the
   index or by a storage: the walk ends at its next step (assert), never
   reading the freed index. */
static void test_freeing_an_index_during_a_walk_that_uses_it_ends_the_walk(void) {
    int form;
    for (form = 0; form < 4; form++) { /* led by the index / by Unit; ECS_EACH / blocks */
        scene s = scene_new(NULL);
        ecs_view_desc v;
        ecs_iter it;
        int32_t cell = 3;
        uint32_t met = 0;
        memset(&v, 0, sizeof v);
        v.terms[0].c = s.unit;
        v.lead = form & 1 ? s.unit : 0;
        v.where.index = s.by_cell, v.where.key = &cell;
        it = ecs_view(s.w, &v);
        if (form & 2) {
            while (ecs_iter_next_block(&it)) {
                if (!met) CHECK(ecs_index_free(s.w, s.by_cell));
                met += it.count;
            }
        } else {
            ECS_EACH(&it) {
                if (!met) CHECK(ecs_index_free(s.w, s.by_cell));
                met++;
            }
        }
        CHECK_EQ(met, 1u); /* 20 units have cell 3: the walk ended after the first */
        CHECK(strstr(test__assert_msg, "an index was freed during a walk") != NULL);
        test__expected++;
        ecs_world_free(s.w);
    }
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_a_key_finds_the_entities_that_also_match_the_other_terms);
    RUN(test_a_view_of_an_index_alone_needs_no_other_term);
    RUN(test_an_ordered_index_leads_in_key_order);
    RUN(test_writes_in_the_loop_are_seen_as_the_walk_reaches_each_entity);
    RUN(test_entities_destroyed_during_the_walk_are_not_met);
    RUN(test_views_of_one_index_nest);
    RUN(test_a_view_after_a_write_changes_the_walks_of_its_index);
    RUN(test_writes_that_change_no_key_leave_the_walk_alone);
    RUN(test_chunks_of_an_index_walk_cover_it_once);
    RUN(test_an_index_term_beside_a_group);
    RUN(test_any_optional_and_modified_terms_beside_an_index_term);
    RUN(test_bad_index_terms_are_refused);
    RUN(test_out_of_memory_a_storage_leads_instead);
    RUN(test_freeing_an_index_during_a_walk_that_uses_it_ends_the_walk);
    return test_summary();
}
