/* Field indexes (ecs.h section 14): an index on one field of a component
   finds the entities whose value has a key (hashed and ordered indexes)
   or a range of keys (ordered, in key order), and is never out of date:
   every way a value can change - add, replace, remove, delete, strip,
   destroy, clone, bundles, flush, load, world_clear, writes through
   ecs_get_mut, ECS_WRITE view terms of every loop form and
   ecs_add_if_changed - shows in the next answer. The model test below
   checks every index against a scan after every step of random worlds
   (the model is tests/index_model.h, which tests/fuzz/fuzz_index.c drives
   from its input's bytes). */
#include "test.h"
#include "../ecs.h"

#include <stddef.h>
#include <time.h>

#include "index_model.h"

/* model_step's random source: the LCG model_check draws from too (one
   sequence per seed, as before the model moved to tests/index_model.h). */
static uint32_t rnd(model *m) { return model_lcg(m); }

/* INDEX_MODEL_SECONDS=n in the environment: keeps going with new seeds for
   n seconds (a long run; make test runs the 12 seeds). */
static void test_every_index_agrees_with_a_scan_after_every_change(void) {
    uint32_t seed, step, seeds = 12;
    const char *secs = getenv("INDEX_MODEL_SECONDS");
    time_t until = secs ? time(NULL) + atol(secs) : 0;
    for (seed = 1; seed <= seeds || (until && time(NULL) < until); seed++) {
        model m;
        model_world(&m, seed);
        for (step = 0; step < 300; step++) {
            const char *bad;
            model_step(&m);
            if (step % 3 == 0 && (bad = model_check(&m)) != NULL) {
                printf("  seed %u, step %u: %s\n", seed, step, bad);
                CHECK(bad == NULL);
            }
        }
        ecs_world_free(m.w);
    }
    if (until) printf("  (%u seeds of 300 steps, no mismatch)\n", seed - 1);
}

/* ---- the API, case by case -------------------------------------------------- */

typedef struct Named {
    char name[16];
    int32_t cell;
    float hp;
} Named;

static ecs_index index_on(ecs_world *w, ecs_component c, uint32_t offset, uint32_t size, int kind, bool ordered) {
    ecs_index_desc d;
    memset(&d, 0, sizeof d);
    d.c = c, d.offset = offset, d.size = size, d.kind = kind, d.ordered = ordered;
    return ecs_index_new(w, &d);
}

static void test_find_by_name_and_by_cell_sees_writes_at_the_next_query(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_index by_name = index_on(w, named, offsetof(Named, name), 16, ECS_KEY_CHARS, false);
    ecs_index by_cell = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    ecs_entity a = ecs_create(w), b = ecs_create(w), out[4];
    int32_t cell = 7;
    CHECK(by_name && by_cell);
    ECS_ADD(w, a, named, Named, {"hero", 7, 1.0f});
    ECS_ADD(w, b, named, Named, {"troll", 7, 2.0f});
    CHECK_EQ(ecs_index_find(w, by_name, "troll", out, 4), 1u);
    CHECK_EQ(out[0], b);
    CHECK_EQ(ecs_index_find(w, by_cell, &cell, out, 4), 2u);
    ECS_GET_MUT(w, b, named, Named)->cell = 8; /* seen at the next query */
    CHECK_EQ(ecs_index_find(w, by_cell, &cell, out, 4), 1u);
    CHECK_EQ(out[0], a);
    CHECK_EQ(ecs_index_find(w, by_cell, &cell, NULL, 0), 1u); /* just the count */
    ecs_destroy(w, a);
    CHECK_EQ(ecs_index_find(w, by_cell, &cell, out, 4), 0u);
    CHECK_EQ(ecs_index_find(w, by_name, "hero", out, 4), 0u);
    CHECK(ecs_index_free(w, by_name));
    EXPECT_ASSERT(ecs_index_find(w, by_name, "troll", out, 4) == 0, "no such index");
    ecs_world_free(w);
}

static void test_an_ordered_index_answers_ranges_in_key_order(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_index by_hp = index_on(w, named, offsetof(Named, hp), 4, ECS_KEY_FLOAT, true);
    ecs_entity e[6], out[8];
    float lo = 2.0f, hi = 4.0f, nan = 0.0f / 0.0f;
    uint32_t k;
    for (k = 0; k < 6; k++) {
        e[k] = ecs_create(w);
        ECS_ADD(w, e[k], named, Named, {"x", 0, (float)(5 - k)}); /* 5, 4, 3, 2, 1, 0 */
    }
    ECS_GET_MUT(w, e[0], named, Named)->hp = nan;               /* in no range, equal to nothing */
    CHECK_EQ(ecs_index_range(w, by_hp, &lo, &hi, 0, out, 8), 3u); /* 2 <= hp <= 4 */
    CHECK_EQ(out[0], e[3]);
    CHECK_EQ(out[1], e[2]);
    CHECK_EQ(out[2], e[1]);
    CHECK_EQ(ecs_index_range(w, by_hp, &lo, &hi, ECS_RANGE_LO_OPEN | ECS_RANGE_HI_OPEN, out, 8), 1u);
    CHECK_EQ(out[0], e[2]);
    CHECK_EQ(ecs_index_range(w, by_hp, NULL, &lo, ECS_RANGE_HI_OPEN, out, 8), 2u); /* hp < 2 */
    CHECK_EQ(out[0], e[5]);
    CHECK_EQ(ecs_index_range(w, by_hp, NULL, NULL, 0, out, 8), 5u); /* all but the NaN, in order */
    CHECK_EQ(out[4], e[1]);
    CHECK_EQ(ecs_index_find(w, by_hp, &nan, out, 8), 0u);
    ecs_world_free(w);
}

static void test_find_any_answers_a_set_of_keys(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_index by_cell = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    int32_t cells[3] = {1, 3, 99};
    ecs_entity out[8];
    uint32_t k;
    for (k = 0; k < 6; k++) ECS_ADD(w, ecs_create(w), named, Named, {"x", (int32_t)k, 0});
    CHECK_EQ(ecs_index_find_any(w, by_cell, 3, cells, out, 8), 2u);
    CHECK_EQ(ECS_GET(w, out[0], named, Named)->cell, 1);
    CHECK_EQ(ECS_GET(w, out[1], named, Named)->cell, 3);
    ecs_world_free(w);
}

static void test_bad_indexes_and_queries_are_refused(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named), tag = ecs_register(w, "Tag", 0, 1);
    ecs_index hashed = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    ecs_entity out[2];
    EXPECT_ASSERT(index_on(w, tag, 0, 4, ECS_KEY_INT, false) == 0, "not inside the value");
    EXPECT_ASSERT(index_on(w, named, 21, 4, ECS_KEY_INT, false) == 0, "not inside the value");
    EXPECT_ASSERT(index_on(w, named, 0, 3, ECS_KEY_INT, false) == 0, "unsupported key");
    EXPECT_ASSERT(index_on(w, named, 0, 4, 99, false) == 0, "unsupported key");
    EXPECT_ASSERT(index_on(w, named, offsetof(Named, hp), 4, ECS_KEY_FLOAT, false) == 0, "ordered only");
    EXPECT_ASSERT(index_on(w, named, 0, 3, ECS_KEY_STRING, false) == 0, "unsupported key"); /* not a pointer's size */
    EXPECT_ASSERT(index_on(w, 99, 0, 4, ECS_KEY_INT, false) == 0, "unknown component");
    EXPECT_ASSERT(ecs_index_new(w, NULL) == 0, "desc is NULL");
    EXPECT_ASSERT(ecs_index_range(w, hashed, NULL, NULL, 0, out, 2) == 0, "needs an ordered index");
    {
        ecs_index ordered = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, true);
        EXPECT_ASSERT(ecs_index_range(w, ordered, NULL, NULL, 4, out, 2) == 0, "range flags 4");
    }
    EXPECT_ASSERT(ecs_index_find(w, hashed, NULL, out, 2) == 0, "key is NULL");
    EXPECT_ASSERT(ecs_index_find(w, hashed, out, NULL, 2) == 0, "out (with cap > 0) is NULL");
    EXPECT_ASSERT(ecs_index_find(w, 77, out, out, 2) == 0, "no such index");
    CHECK_EQ(ECS_INDEX_FIND(w, hashed, int32_t, 3, out, 2), ecs_index_find(w, hashed, &(int32_t){3}, out, 2));
    EXPECT_ASSERT(ECS_INDEX_FIND(w, hashed, int64_t, 3, out, 2) == 0, "a key of 8 bytes for a field of 4");
    EXPECT_ASSERT(ECS_INDEX_FIND(w, hashed, int16_t, 3, out, 2) == 0, "ECS_INDEX_FIND");
    EXPECT_ASSERT(!ecs_index_free(w, 0), "no such index");
    CHECK(ecs_track_set(w, named, 0));
    CHECK(ecs_track_get(w, named) & ECS_TRACK_MODIFICATION); /* an indexed storage stays tracked */
    ecs_world_free(w);
}

/* A write through a pointer is learned of when the pointer is handed out;
   the first query after that reads the value and the next reads it again
   (section 14), so the loop that queries, then writes the entity it is
   at, is seen. */
static void test_a_write_after_a_query_in_the_loop_body_is_seen_by_the_next_query(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_index hashed = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    ecs_index ordered = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, true);
    ecs_view_desc d;
    ecs_entity a = ecs_create(w), out[8];
    int32_t one = 1, two = 2, three = 3;
    uint32_t k, seen = 0;
    for (k = 0; k < 4; k++) ECS_ADD(w, k ? ecs_create(w) : a, named, Named, {"x", 1, 0});
    memset(&d, 0, sizeof d);
    d.terms[0].c = named, d.terms[0].flags = ECS_WRITE;
    ECS_EACH_VIEW(it, w, &d) { /* each body: the units of cell 1, then this one moves to cell 2 */
        seen += ecs_index_find(w, hashed, &one, NULL, 0) + ecs_index_find(w, ordered, &two, NULL, 0);
        ECS_FIELD(&it, 0, Named)->cell = 2;
    }
    CHECK_EQ(seen, 4u + 3 + 2 + 1 + 0 + 1 + 2 + 3); /* cell 1 loses one unit a body, cell 2 gains it a body late */
    CHECK_EQ(ecs_index_find(w, hashed, &one, out, 8), 0u);
    CHECK_EQ(ecs_index_find(w, hashed, &two, out, 8), 4u);
    CHECK_EQ(ecs_index_find(w, ordered, &two, out, 8), 4u);
    {
        Named *p = ECS_GET_MUT(w, a, named, Named); /* handed out, a query, then the write */
        CHECK_EQ(ecs_index_find(w, hashed, &two, out, 8), 4u);
        p->cell = 3;
    }
    CHECK_EQ(ecs_index_find(w, hashed, &three, out, 8), 1u);
    CHECK_EQ(out[0], a);
    CHECK_EQ(ecs_index_range(w, ordered, &three, NULL, 0, out, 8), 1u);
    ecs_world_free(w);
}

/* A write made after two queries since its pointer was handed out is not
   seen until the entity is marked again, but no query ever answers with
   an entity whose value does not match - not even an ordered index on
   strings whose string became NULL. */
typedef struct Label {
    const char *text;
} Label;
static void test_a_write_after_two_queries_is_seen_once_marked_and_never_answered_wrongly(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named), label = ECS_COMPONENT(w, Label);
    ecs_index by_cell = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    ecs_index by_text = index_on(w, label, 0, sizeof(const char *), ECS_KEY_STRING, true);
    ecs_entity a = ecs_create(w), b = ecs_create(w), c = ecs_create(w), out[4];
    const char *ka = "abcdefgh-a", *kb = "abcdefgh-b", *kc = "abcdefgh-c";
    int32_t one = 1, four = 4;
    Named *p;
    Label *l;
    ECS_ADD(w, a, named, Named, {"x", 1, 0});
    ECS_ADD(w, a, label, Label, {ka});
    ECS_ADD(w, b, label, Label, {kb});
    ECS_ADD(w, c, label, Label, {kc});
    p = ECS_GET_MUT(w, a, named, Named);
    CHECK_EQ(ecs_index_find(w, by_cell, &one, out, 4), 1u);
    CHECK_EQ(ecs_index_find(w, by_cell, &one, out, 4), 1u);
    p->cell = 4;                                              /* after two queries: not taken in */
    CHECK_EQ(ecs_index_find(w, by_cell, &one, out, 4), 0u);   /* a's value is not 1: never answered */
    CHECK_EQ(ecs_index_find(w, by_cell, &four, out, 4), 0u);  /* ...and 4 is not known yet */
    CHECK(ecs_track_mark_modified(w, a, named));
    CHECK_EQ(ecs_index_find(w, by_cell, &four, out, 4), 1u);
    CHECK_EQ(out[0], a);
    l = ECS_GET_MUT(w, b, label, Label);
    CHECK_EQ(ecs_index_find(w, by_text, &kb, out, 4), 1u);
    CHECK_EQ(ecs_index_find(w, by_text, &kb, out, 4), 1u);
    l->text = NULL;                                           /* not indexed, and not taken in */
    CHECK_EQ(ecs_index_find(w, by_text, &kb, out, 4), 0u);   /* (compared safely: no strcmp of NULL) */
    CHECK_EQ(ecs_index_find(w, by_text, &kc, out, 4), 1u);
    CHECK(ecs_track_mark_modified(w, b, label));
    CHECK_EQ(ecs_index_range(w, by_text, NULL, NULL, 0, out, 4), 2u);
    CHECK_EQ(out[0], a);
    CHECK_EQ(out[1], c);
    ecs_world_free(w);
}

/* Ordered string keys are their first 8 bytes: names that share them
   are one key, in the order of their strings when last read. A name
   written unseen (after two queries) puts that order out, but hides no
   other entity: each one of the key is still found, in an equality
   query or a range. */
static void test_a_name_written_unseen_hides_no_other_name_of_its_key(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_index by_name = index_on(w, named, offsetof(Named, name), 16, ECS_KEY_CHARS, true);
    ecs_entity e[3], out[4];
    char key[16] = "aaaaaaaa3", lo[16] = "aaaaaaaa0", hi[16] = "aaaaaaaa2";
    uint32_t k;
    Named *p;
    for (k = 0; k < 3; k++) {
        e[k] = ecs_create(w);
        ECS_ADD(w, e[k], named, Named, {"aaaaaaaa1", 0, 0});
        ECS_GET_MUT(w, e[k], named, Named)->name[8] = (char)('1' + k);
    }
    CHECK_EQ(ecs_index_find(w, by_name, key, out, 4), 1u);
    p = ECS_GET_MUT(w, e[1], named, Named);
    CHECK_EQ(ecs_index_find(w, by_name, key, out, 4), 1u);
    CHECK_EQ(ecs_index_find(w, by_name, key, out, 4), 1u);
    p->name[8] = '9'; /* "aaaaaaaa2" -> "aaaaaaaa9", after two queries: not taken in */
    CHECK_EQ(ecs_index_find(w, by_name, key, out, 4), 1u); /* e[2], never written */
    CHECK_EQ(out[0], e[2]);
    CHECK_EQ(ecs_index_range(w, by_name, lo, NULL, 0, out, 4), 3u); /* all three: "...1", "...9", "...3" */
    CHECK_EQ(ecs_index_range(w, by_name, lo, hi, 0, out, 4), 1u);   /* "...1" only: e[1]'s is "...9" now */
    CHECK_EQ(out[0], e[0]);
    CHECK_EQ(ecs_index_range(w, by_name, lo, key, ECS_RANGE_HI_OPEN, out, 4), 1u);
    CHECK_EQ(out[0], e[0]);
    ecs_world_free(w);
}

/* A hook's writes to its value count as writes through a pointer handed
   out as the hook starts: in a bundle of several entities, each hook that
   queries once and then writes is seen, however many queries the hooks
   before it made. */
static ecs_index hooked_ix;
static void query_then_write(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) {
    int32_t zero = 0;
    (void)e, (void)c, (void)u;
    ecs_index_find(w, hooked_ix, &zero, NULL, 0);
    ((Named *)v)->cell = 7;
}
static void test_a_hook_s_write_after_one_query_is_seen_in_every_bundle(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_entity ids[4], out[8];
    ecs_hooks h = {0};
    int32_t seven = 7;
    hooked_ix = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    h.on_insert = h.on_replace = query_then_write;
    ecs_hooks_set(w, named, &h);
    CHECK_EQ(ecs_create_bulk(w, 4, 1, &named, NULL, ids), true);
    CHECK_EQ(ecs_index_find(w, hooked_ix, &seven, out, 8), 4u);
    ECS_ADD(w, ids[0], named, Named, {"x", 1, 0}); /* a replace: on_replace writes 7 again */
    CHECK_EQ(ecs_index_find(w, hooked_ix, &seven, out, 8), 4u);
    ecs_world_free(w);
}

/* An index keeps its component's modification tracking on: loading a
   snapshot saved from a world that did not track it leaves it on. */
static void test_loading_a_snapshot_keeps_an_indexed_component_tracked(void) {
    ecs_world *from = ecs_world_new(NULL), *w = ecs_world_new(NULL);
    ecs_component f = ECS_COMPONENT(from, Named), named = ECS_COMPONENT(w, Named);
    ecs_index by_cell = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    ecs_entity e = ecs_create(from), out[2];
    int32_t one = 1, two = 2;
    size_t n;
    void *buf;
    ECS_ADD(from, e, f, Named, {"x", 1, 0});
    CHECK_EQ(ecs_track_get(from, f), 0u);
    n = ecs_save_buffer(from, NULL, 0);
    buf = malloc(n);
    CHECK(buf && ecs_save_buffer(from, buf, n) == n);
    CHECK(ecs_load(w, buf, n));
    CHECK(ecs_track_get(w, named) & ECS_TRACK_MODIFICATION);
    CHECK_EQ(ecs_index_find(w, by_cell, &one, out, 2), 1u);
    ECS_GET_MUT(w, e, named, Named)->cell = 2;
    CHECK_EQ(ecs_index_find(w, by_cell, &two, out, 2), 1u);
    CHECK_EQ(ecs_index_find(w, by_cell, &one, out, 2), 0u);
    free(buf);
    ecs_world_free(from);
    ecs_world_free(w);
}

/* A hashed index too big for the caches (from 2^19 keys: a table of 2^20
   buckets) loads the buckets of its sync a few entities ahead: the same
   answers, through add, a write of every key and remove. */
static void test_a_big_hashed_index_answers_as_a_small_one(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_index by_cell = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    uint32_t k, n = (1u << 19) + 100;
    int32_t key = 77;
    ecs_entity out[2];
    for (k = 0; k < n; k++) ECS_ADD(w, ecs_create(w), named, Named, {"x", (int32_t)k, 0});
    CHECK_EQ(ecs_index_find(w, by_cell, &key, out, 2), 1u);
    CHECK_EQ(ECS_GET(w, out[0], named, Named)->cell, 77);
    ECS_EACH_VIEW(it, w, &(ecs_view_desc){.terms = {{named, ECS_WRITE}}}) ECS_FIELD(&it, 0, Named)->cell += 1;
    CHECK_EQ(ecs_index_find(w, by_cell, &key, out, 2), 1u);
    CHECK_EQ(ECS_GET(w, out[0], named, Named)->cell, 77); /* (the one that had 76) */
    ecs_remove(w, out[0], named, NULL);
    CHECK_EQ(ecs_index_find(w, by_cell, &key, out, 2), 0u);
    key = (int32_t)n;
    CHECK_EQ(ecs_index_find(w, by_cell, &key, out, 2), 1u);
    ecs_world_free(w);
}

/* ---- out of memory ------------------------------------------------------------ */

static void test_out_of_memory_in_an_index_never_gives_a_wrong_answer(void) {
    long at;
    for (at = 0; at < 12; at++) {
        budget b = {-1};
        ecs_desc d = {0};
        ecs_world *w;
        ecs_component named;
        ecs_index by_cell, by_hp;
        ecs_entity out[64];
        int32_t cell = 3;
        uint32_t k, n;
        float lo = 10.0f;
        d.allocator.alloc = budget_alloc, d.allocator.free = budget_free, d.allocator.ctx = &b;
        w = ecs_world_new(&d);
        named = ECS_COMPONENT(w, Named);
        by_cell = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
        by_hp = index_on(w, named, offsetof(Named, hp), 4, ECS_KEY_FLOAT, true);
        for (k = 0; k < 40; k++) ECS_ADD(w, ecs_create(w), named, Named, {"x", (int32_t)(k % 5), (float)k});
        b.left = at; /* the indexes' first build, and then writes, run out */
        n = ecs_index_find(w, by_cell, &cell, out, 64);
        CHECK(n == 8 || (n == 0 && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY));
        for (k = 0; k < 40; k += 4) ECS_GET_MUT(w, ecs_storage_entities(ecs_storage_of(w, named))[k], named, Named)->cell = 3;
        n = ecs_index_range(w, by_hp, &lo, NULL, 0, out, 64);
        CHECK(n == 30 || (n == 0 && ecs_last_error(w) == ECS_ERR_OUT_OF_MEMORY));
        b.left = -1; /* memory again: right answers */
        CHECK_EQ(ecs_index_find(w, by_cell, &cell, out, 64), 8u + 8u);
        CHECK_EQ(ecs_index_range(w, by_hp, &lo, NULL, 0, out, 64), 30u);
        ecs_world_free(w);
    }
}

/* An ecs_index_new that runs out of memory changes nothing: the
   component's tracking stays as it was, and its first index made later
   works. */
static void test_an_index_that_could_not_be_made_changes_nothing(void) {
    long at;
    int failures = 0;
    for (at = 0;; at++) {
        budget b = {-1};
        ecs_desc d = {0};
        ecs_world *w;
        ecs_component named;
        ecs_index ix;
        ecs_entity out[4];
        int32_t cell = 2;
        d.allocator.alloc = budget_alloc, d.allocator.free = budget_free, d.allocator.ctx = &b;
        w = ecs_world_new(&d);
        named = ECS_COMPONENT(w, Named);
        ECS_ADD(w, ecs_create(w), named, Named, {"x", 2, 0});
        b.left = at;
        ix = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
        b.left = -1;
        if (ix) {
            ecs_world_free(w);
            break;
        }
        failures++;
        CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
        CHECK_EQ(ecs_track_get(w, named), 0u); /* as before the call */
        ix = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
        CHECK(ix != 0);
        CHECK_EQ(ecs_index_find(w, ix, &cell, out, 4), 1u);
        ecs_world_free(w);
    }
    CHECK(failures >= 2);
}

/* Inside a hook of the indexed component, making or freeing one of its
   indexes is refused (the hook holds its value; the paths run its
   listeners), and the index keeps working. */
static ecs_index hook_ix;
static int hook_refusals;
static void make_and_free_indexes(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) {
    (void)e, (void)v, (void)u;
    hook_refusals += !ecs_index_free(w, hook_ix);
    hook_refusals += !index_on(w, c, offsetof(Named, hp), 4, ECS_KEY_FLOAT, true);
}
static void test_an_index_is_not_made_or_freed_inside_a_hook_of_its_component(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component named = ECS_COMPONENT(w, Named);
    ecs_hooks h = {0};
    ecs_entity e = ecs_create(w), out[2];
    int32_t cell = 5;
    int asserts = test__asserts;
    hook_ix = index_on(w, named, offsetof(Named, cell), 4, ECS_KEY_INT, false);
    h.on_insert = h.on_remove = make_and_free_indexes;
    ecs_hooks_set(w, named, &h);
    hook_refusals = 0;
    ECS_ADD(w, e, named, Named, {"x", 5, 0});
    CHECK_EQ(ecs_index_find(w, hook_ix, &cell, out, 2), 1u);
    CHECK(ecs_remove(w, e, named, NULL));
    CHECK_EQ(ecs_index_find(w, hook_ix, &cell, out, 2), 0u);
    CHECK_EQ(hook_refusals, 4);
    CHECK_EQ(test__asserts - asserts, 4);
    test__expected += 4;
    CHECK(strstr(test__assert_msg, "a hook of this storage is running") != NULL);
    ecs_world_free(w);
}

/* ---- cached queries (ecs.h section 14) ------------------------------------------ */

typedef struct { float x, y; } QPos;
typedef struct { float x, y; } QVel;

static int tag_order(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    (void)va, (void)vb, (void)ctx;
    return a < b ? -1 : a > b;
}
static void test_a_cached_query_keeps_exactly_the_matching_entities(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, QPos), vel = ECS_COMPONENT(w, QVel), frozen = ecs_register(w, "Frozen", 0, 1);
    ecs_view_desc d;
    ecs_component moving;
    ecs_entity e[10];
    uint32_t k, n;
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos, d.terms[1].c = vel, d.terms[2].c = frozen, d.terms[2].flags = ECS_NOT;
    for (k = 0; k < 10; k++) {
        e[k] = ecs_create(w);
        ECS_ADD(w, e[k], pos, QPos, {(float)k, 0});
        if (k % 2 == 0) ECS_ADD(w, e[k], vel, QVel, {1, 0});
    }
    ecs_add(w, e[4], frozen, NULL);
    CHECK((moving = ecs_query_new(w, "Moving", &d)) != 0);
    /* a view with the tag walks the tag's rows: 0, 2, 6, 8 */
    memset(&d, 0, sizeof d);
    d.terms[0].c = moving, d.terms[1].c = pos, d.terms[1].flags = ECS_WRITE, d.terms[2].c = vel;
    n = 0;
    ECS_EACH_VIEW(it, w, &d) {
        ECS_FIELD(&it, 1, QPos)->x += ECS_FIELD(&it, 2, QVel)->x;
        n++;
    }
    CHECK_EQ(n, 4u);
    CHECK(ECS_GET(w, e[2], pos, QPos)->x == 3.0f);
    CHECK(!ecs_has(w, e[4], moving));
    ecs_remove(w, e[4], frozen, NULL); /* joins */
    ecs_add(w, e[1], vel, NULL);     /* joins */
    ecs_add(w, e[0], frozen, NULL);  /* leaves */
    ecs_remove(w, e[2], vel, NULL);  /* leaves */
    ecs_destroy(w, e[6]);            /* leaves */
    CHECK(ecs_has(w, e[4], moving) && ecs_has(w, e[1], moving) && ecs_has(w, e[8], moving));
    CHECK(!ecs_has(w, e[0], moving) && !ecs_has(w, e[2], moving));
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, moving)), 3u);
    EXPECT_ASSERT(ecs_add(w, e[3], moving, NULL) == NULL, "the world keeps it");
    EXPECT_ASSERT(!ecs_remove(w, e[4], moving, NULL), "the world keeps it");
    EXPECT_ASSERT(!ecs_defer_add(w, e[3], moving, NULL), "the world keeps it"); /* refused when recorded */
    EXPECT_ASSERT(!ecs_defer_remove(w, e[4], moving), "the world keeps it");
    CHECK_EQ(ecs_defer_pending(w), 0u);
    CHECK(ecs_has(w, e[4], moving));
    /* ecs_sort_as adds and removes nothing and calls nothing back: the tag's
       rows may take Position's order; ecs_sort's comparator could change the terms */
    EXPECT_ASSERT(!ecs_sort(w, moving, tag_order, NULL), "the world keeps it");
    CHECK(ecs_sort_as(w, moving, pos));
    {
        const ecs_entity *tag = ecs_storage_entities(ecs_storage_of(w, moving));
        const ecs_entity *p = ecs_storage_entities(ecs_storage_of(w, pos));
        uint32_t j = 0;
        for (k = 0; k < ecs_storage_count(ecs_storage_of(w, pos)); k++)
            if (ecs_has(w, p[k], moving)) CHECK_EQ(tag[j++], p[k]);
        CHECK_EQ(j, 3u);
    }
    ecs_world_free(w);
}

/* The model: random changes, the tag against "has the terms" after each. */
static void test_a_cached_query_agrees_with_its_terms_after_random_changes(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component c[4], q;
    ecs_view_desc d;
    ecs_entity live[64];
    uint32_t seed = 7, step, k, nlive = 0;
    c[0] = ecs_register(w, "A", 4, 4), c[1] = ecs_register(w, "B", 0, 1), c[2] = ecs_register(w, "C", 8, 8);
    c[3] = ecs_register(w, "D", 0, 1);
    memset(&d, 0, sizeof d);
    d.terms[0].c = c[0], d.terms[1].c = c[1], d.terms[2].c = c[2], d.terms[2].flags = ECS_NOT;
    CHECK((q = ecs_query_new(w, "Q", &d)) != 0);
    for (step = 0; step < 3000; step++) {
        uint32_t r = (seed = seed * 1664525u + 1013904223u) >> 8, comp = c[r % 3];
        ecs_entity e = nlive ? live[(r >> 4) % nlive] : ECS_NULL;
        switch ((r >> 12) % 8) {
        case 0: if (nlive < 64) live[nlive++] = ecs_create(w); break;
        case 1: case 2: if (e) ecs_add(w, e, comp, NULL); break;
        case 3: case 4: if (e) ecs_remove(w, e, comp, NULL); break;
        case 5: if (e && ecs_destroy(w, e)) { uint32_t at = (r >> 4) % nlive; live[at] = live[--nlive]; } break;
        case 6: if (e) ecs_clone(w, e); break;
        default: if (e) ecs_add(w, e, c[3], NULL), ecs_defer_remove(w, e, comp), ecs_flush(w); break;
        }
        for (k = 0; k < nlive; k++) {
            bool match = ecs_has(w, live[k], c[0]) && ecs_has(w, live[k], c[1]) && !ecs_has(w, live[k], c[2]);
            if (match != ecs_has(w, live[k], q)) {
                printf("  step %u: entity %u: matches %d, tagged %d\n", step, (unsigned)live[k], match, !match);
                CHECK(match == ecs_has(w, live[k], q));
            }
        }
        if (step % 10 == 0) { /* a view led by the tag, with the query's terms (the tag B and NOT C are not
                                 tested: the tag implies them) and D: its entities, with A's value */
            ecs_view_desc v;
            uint32_t n = 0, want = 0;
            memset(&v, 0, sizeof v);
            v.terms[0].c = q, v.terms[1].c = c[0], v.terms[2].c = c[1], v.terms[3].c = c[2], v.terms[3].flags = ECS_NOT;
            v.terms[4].c = c[3], v.terms[4].flags = step % 20 ? ECS_OPTIONAL : 0;
            ECS_EACH_VIEW(it, w, &v) {
                ecs_entity e = ecs_iter_entity(&it);
                CHECK(ecs_has(w, e, q) && (step % 20 || ecs_has(w, e, c[3])));
                CHECK(ecs_field(&it, 1) == ecs_get(w, e, c[0]));
                n++;
            }
            for (k = 0; k < nlive; k++) want += ecs_has(w, live[k], q) && (step % 20 || ecs_has(w, live[k], c[3]));
            CHECK_GE(n, want); /* (clones are not in live[]: at least those) */
            for (k = 0, want = 0; k < ecs_storage_count(ecs_storage_of(w, q)); k++)
                want += step % 20 || ecs_has(w, ecs_storage_entities(ecs_storage_of(w, q))[k], c[3]);
            CHECK_EQ(n, want);
        }
    }
    ecs_world_free(w);
}

/* A cached query holds its matching entities from the moment it is made
   (and right after a load), before any view of it. */
static void test_a_cached_query_is_filled_when_made(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ecs_register(w, "Pos", 8, 4), vel = ecs_register(w, "Vel", 8, 4), q;
    ecs_entity a = ecs_create(w), b = ecs_create(w), c = ecs_create(w);
    ecs_view_desc d;
    ecs_add(w, a, pos, NULL), ecs_add(w, a, vel, NULL);
    ecs_add(w, b, pos, NULL), ecs_add(w, b, vel, NULL);
    ecs_add(w, c, pos, NULL);
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos, d.terms[1].c = vel;
    CHECK((q = ecs_query_new(w, "Moving", &d)) != 0);
    CHECK(ecs_has(w, a, q) && ecs_has(w, b, q) && !ecs_has(w, c, q));
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, q)), 2u);
    {
        size_t n = ecs_save_buffer(w, NULL, 0);
        void *buf = malloc(n);
        CHECK(buf && ecs_save_buffer(w, buf, n) == n);
        ecs_remove(w, a, vel, NULL);
        CHECK(!ecs_has(w, a, q));
        ecs_world_clear(w);
        CHECK(!ecs_has(w, a, q));
        CHECK(ecs_load(w, buf, n));
        free(buf);
    }
    CHECK(ecs_has(w, a, q) && ecs_has(w, b, q) && !ecs_has(w, c, q));
    CHECK_EQ(ecs_destroy_all(w, q), 2u);
    ecs_world_free(w);
}

/* A snapshot whose tag was tracked where it was saved (a plain tag) does
   not load into a world that keeps that tag as a cached query: the world
   never tracks a query's tag (ecs_track_set refuses it), so the load is
   refused as damaged, naming the tag, and the world stays as it was. */
static void test_a_snapshot_tracking_a_query_s_tag_is_refused(void) {
    ecs_world *a = ecs_world_new(NULL), *w = ecs_world_new(NULL);
    ecs_component pa = ecs_register(a, "P", 4, 4), qa = ecs_register(a, "Q", 0, 1), p, q;
    ecs_entity e = ecs_create(a);
    ecs_view_desc d;
    size_t n;
    void *buf;
    CHECK(ecs_track_set(a, qa, ECS_TRACK_ALL));
    CHECK(ecs_add(a, e, pa, NULL) && ecs_add(a, e, qa, NULL));
    n = ecs_save_buffer(a, NULL, 0);
    buf = malloc(n);
    CHECK(buf && ecs_save_buffer(a, buf, n) == n);
    p = ecs_register(w, "P", 4, 4);
    memset(&d, 0, sizeof d);
    d.terms[0].c = p;
    CHECK((q = ecs_query_new(w, "Q", &d)) != 0);
    CHECK(!ecs_load(w, buf, n));
    CHECK_EQ(ecs_last_error(w), ECS_ERR_FORMAT);
    CHECK(strstr(ecs_last_error_msg(w), "tracking of a tag this world keeps as a cached query") != NULL);
    CHECK(strstr(ecs_last_error_msg(w), "Q") != NULL);
    CHECK_EQ(ecs_count(w), 0u);
    CHECK_EQ(ecs_track_get(w, q), 0u);
    CHECK(ecs_track_set(a, qa, 0)); /* saved untracked, it loads, and the query is rebuilt */
    CHECK(ecs_save_buffer(a, buf, n) <= n);
    CHECK(ecs_load(w, buf, ecs_save_buffer(a, NULL, 0)));
    CHECK(ecs_has(w, e, q) && ecs_has(w, e, p));
    CHECK(ecs_remove(w, e, p, NULL) && !ecs_has(w, e, q));
    free(buf);
    ecs_world_free(a);
    ecs_world_free(w);
}

/* A loop over {P, Moving} led by P reads the query's tag by P's rows: an
   add of Frozen to another entity makes it leave the query (Moving loses
   its row, the last one moves in), which the rules forbid in a loop
   (section 7) as removing another entity's component. The debug check
   names the tag; deferred, the add is applied after the loop and every
   entity is visited as it matched. */
static void test_another_entity_leaving_a_query_whose_tag_is_walked_asserts(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component p = ecs_register(w, "P", 4, 4), frozen = ecs_register(w, "Frozen", 0, 1), moving;
    ecs_view_desc q, d;
    ecs_entity e[4];
    ecs_iter it;
    int i, n = 0;
    memset(&q, 0, sizeof q);
    q.terms[0].c = p, q.terms[1].c = frozen, q.terms[1].flags = ECS_NOT;
    CHECK((moving = ecs_query_new(w, "Moving", &q)) != 0);
    for (i = 0; i < 4; i++) CHECK(ecs_add(w, e[i] = ecs_create(w), p, &i));
    memset(&d, 0, sizeof d);
    d.terms[0].c = p, d.terms[1].c = moving, d.lead = p;
    it = ecs_view(w, &d);
    CHECK(ecs_iter_next(&it) && ecs_iter_entity(&it) == e[3]);
    CHECK(ecs_add(w, e[0], frozen, NULL));
#if ECS_DEBUG
    EXPECT_ASSERT(ecs_iter_next(&it), "ecs_add changed storage Moving under a live view");
#endif
    CHECK(ecs_remove(w, e[0], frozen, NULL));
    it = ecs_view(w, &d);
    while (ecs_iter_next(&it)) {
        n++;
        CHECK(ecs_has(w, ecs_iter_entity(&it), moving));
        if (ecs_iter_entity(&it) == e[3]) CHECK(ecs_defer_add(w, e[0], frozen, NULL));
    }
    CHECK_EQ(n, 4);
    CHECK(ecs_flush(w) && !ecs_has(w, e[0], moving));
    ecs_world_free(w);
}

/* A walk led by a query's tag trusts the query's required tags (it does
   not test them, nor read them by row): taking such a tag from the current
   entity, or destroying it, is a change the rules allow, and ECS_DEBUG's
   step check says nothing, whatever order the tag's own rows are in. */
static void test_a_walk_led_by_a_query_s_tag_lets_the_current_entity_lose_a_term(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ecs_register(w, "Pos", 8, 4), enemy = ecs_register(w, "Enemy", 0, 1), q;
    ecs_view_desc d;
    ecs_entity e[10];
    int i, mode, before = test__asserts;
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos, d.terms[1].c = enemy;
    CHECK((q = ecs_query_new(w, "Q", &d)) != 0);
    for (mode = 0; mode < 2; mode++) {
        ecs_iter it;
        int n = 0;
        for (i = 0; i < 10; i++) CHECK(ecs_add(w, e[i] = ecs_create(w), enemy, NULL)); /* Enemy's rows in order */
        for (i = 9; i >= 0; i--) CHECK(ecs_add(w, e[i], pos, NULL));                  /* Q's reversed */
        memset(&d, 0, sizeof d);
        d.terms[0].c = q, d.terms[1].c = pos, d.terms[2].c = enemy, d.lead = q;
        it = ecs_view(w, &d);
        while (ecs_iter_next(&it)) {
            ecs_entity cur = ecs_iter_entity(&it);
            n++;
            CHECK(mode ? ecs_destroy(w, cur) : ecs_remove(w, cur, enemy, NULL));
        }
        CHECK_EQ(n, 10);
        CHECK_EQ(ecs_storage_count(ecs_storage_of(w, q)), 0u);
    }
    CHECK_EQ(test__asserts, before);
    ecs_world_free(w);
}

/* A group neither owns nor excludes a cached query's tag (the world adds
   and removes the tag inside other changes): LOCKED, assert, no group;
   excluding the query's own terms says the same. */
static void test_a_group_over_a_query_s_tag_is_refused(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ecs_register(w, "Pos", 8, 4), frozen = ecs_register(w, "Frozen", 0, 1), q;
    ecs_view_desc d;
    ecs_group_desc g;
    memset(&d, 0, sizeof d);
    d.terms[0].c = frozen;
    CHECK((q = ecs_query_new(w, "IsFrozen", &d)) != 0);
    memset(&g, 0, sizeof g);
    g.owned[0] = pos, g.excluded[0] = q;
    EXPECT_ASSERT(ecs_group_new(w, &g) == 0, "ecs_group_new(IsFrozen): a cached query's tag");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_LOCKED);
    g.owned[0] = q, g.excluded[0] = 0;
    EXPECT_ASSERT(ecs_group_new(w, &g) == 0, "a cached query's tag");
    g.owned[0] = pos, g.excluded[0] = frozen;
    CHECK(ecs_group_new(w, &g) != 0);
    ecs_world_free(w);
}

static void remove_hook_makes_a_query(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    ecs_view_desc d;
    (void)e, (void)c, (void)value;
    memset(&d, 0, sizeof d);
    d.terms[0].c = *(ecs_component *)user;
    EXPECT_ASSERT(ecs_query_new(w, "InHook", &d) == 0, "a hook of this storage is running");
}
static void tag_hook(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)w, (void)e, (void)c, (void)value, (void)user;
}

/* The queries that could not be kept are refused: one whose own tag is
   one of its terms, one taking over a tag that has hooks, one made from
   inside a hook of one of its terms. */
static void test_cached_queries_that_could_not_be_kept_are_refused(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ecs_register(w, "Pos", 8, 4), foo = ecs_register(w, "Foo", 0, 1);
    ecs_component bar = ecs_register(w, "Bar", 0, 1);
    ecs_entity e = ecs_create(w);
    ecs_hooks h;
    ecs_view_desc d;
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos, d.terms[1] = (ecs_term){foo, ECS_NOT};
    EXPECT_ASSERT(ecs_query_new(w, "Foo", &d) == 0, "a cached query needs"); /* (its own tag: it would flip forever) */
    memset(&h, 0, sizeof h);
    h.on_insert = tag_hook;
    CHECK(ecs_hooks_set(w, bar, &h));
    d.terms[1].c = 0;
    EXPECT_ASSERT(ecs_query_new(w, "Bar", &d) == 0, "has no hooks, groups, tracking or queued commands");
    CHECK(ecs_defer_add(w, e, foo, NULL)); /* a command for a plain tag, then a query taking it over: */
    EXPECT_ASSERT(ecs_query_new(w, "Foo", &d) == 0, "queued commands"); /* (it would fail at the flush) */
    CHECK_EQ(ecs_flush(w), 1u);
    CHECK(ecs_remove(w, e, foo, NULL));
    CHECK(ecs_query_new(w, "Foo", &d) != 0); /* once flushed */
    memset(&h, 0, sizeof h);
    h.on_remove = remove_hook_makes_a_query, h.user = &pos;
    CHECK(ecs_hooks_set(w, pos, &h));
    ecs_add(w, e, pos, NULL);
    CHECK(ecs_remove(w, e, pos, NULL));
    CHECK_EQ(ecs_lookup(w, "InHook"), 0u);
    ecs_world_free(w);
}

static uint32_t count_view(ecs_world *w, const ecs_view_desc *d) {
    uint32_t n = 0;
    ECS_EACH_VIEW(it, w, d) n++;
    return n;
}

/* Out of memory while the tag is kept, a view of the query rebuilds it;
   one that cannot yields nothing rather than some of the matches. */
static void test_a_view_of_a_query_that_cannot_be_rebuilt_yields_nothing(void) {
    budget b = {-1};
    bool had[100];
    ecs_desc wd;
    ecs_world *w;
    ecs_component pos, vel, q;
    ecs_view_desc d;
    ecs_entity e[100];
    uint32_t k, n;
    memset(&wd, 0, sizeof wd);
    wd.allocator.alloc = budget_alloc, wd.allocator.free = budget_free, wd.allocator.ctx = &b;
    w = ecs_world_new(&wd);
    pos = ecs_register(w, "Pos", 8, 4), vel = ecs_register(w, "Vel", 8, 4);
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos, d.terms[1].c = vel;
    CHECK((q = ecs_query_new(w, "Q", &d)) != 0);
    for (k = 0; k < 100; k++) e[k] = ecs_create(w), ecs_add(w, e[k], pos, NULL);
    for (k = 0; k < 200; k++) ecs_add(w, ecs_create(w), vel, NULL); /* (Vel's rows have room) */
    b.left = 0;                                                     /* from here every allocation fails */
    for (k = 0; k < 100; k++) ecs_add(w, e[k], vel, NULL);          /* the tag cannot grow: the query breaks */
    memset(&d, 0, sizeof d);
    d.terms[0].c = q;
    ecs_clear_error(w);
    CHECK_EQ(count_view(w, &d), 0u);
    CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
    CHECK_EQ(ecs_destroy_all(w, q), 0u); /* nor is a tag that lags acted on */
    CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
    b.left = -1;
    for (k = 0, n = 0; k < 100; k++) n += had[k] = ecs_has(w, e[k], vel); /* (those whose add found room) */
    CHECK(n > 0);
    CHECK_EQ(ecs_destroy_all(w, q), n); /* every match: the tag is rebuilt first */
    for (k = 0; k < 100; k++) CHECK_EQ(ecs_alive(w, e[k]), !had[k]);
    CHECK_EQ(count_view(w, &d), 0u);
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_find_by_name_and_by_cell_sees_writes_at_the_next_query);
    RUN(test_an_ordered_index_answers_ranges_in_key_order);
    RUN(test_find_any_answers_a_set_of_keys);
    RUN(test_a_write_after_a_query_in_the_loop_body_is_seen_by_the_next_query);
    RUN(test_a_write_after_two_queries_is_seen_once_marked_and_never_answered_wrongly);
    RUN(test_a_name_written_unseen_hides_no_other_name_of_its_key);
    RUN(test_a_hook_s_write_after_one_query_is_seen_in_every_bundle);
    RUN(test_loading_a_snapshot_keeps_an_indexed_component_tracked);
    RUN(test_a_big_hashed_index_answers_as_a_small_one);
    RUN(test_bad_indexes_and_queries_are_refused);
    RUN(test_out_of_memory_in_an_index_never_gives_a_wrong_answer);
    RUN(test_an_index_that_could_not_be_made_changes_nothing);
    RUN(test_an_index_is_not_made_or_freed_inside_a_hook_of_its_component);
    RUN(test_every_index_agrees_with_a_scan_after_every_change);
    RUN(test_a_cached_query_keeps_exactly_the_matching_entities);
    RUN(test_a_cached_query_agrees_with_its_terms_after_random_changes);
    RUN(test_a_cached_query_is_filled_when_made);
    RUN(test_cached_queries_that_could_not_be_kept_are_refused);
    RUN(test_a_snapshot_tracking_a_query_s_tag_is_refused);
    RUN(test_another_entity_leaving_a_query_whose_tag_is_walked_asserts);
    RUN(test_a_group_over_a_query_s_tag_is_refused);
    RUN(test_a_walk_led_by_a_query_s_tag_lets_the_current_entity_lose_a_term);
    RUN(test_a_view_of_a_query_that_cannot_be_rebuilt_yields_nothing);
    return test_summary();
}
