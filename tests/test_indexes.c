/* Field indexes (ecs.h section 14): an index on one field of a component
   finds the entities whose value has a key (hashed and ordered indexes)
   or a range of keys (ordered, in key order), and is never out of date:
   every way a value can change - add, replace, remove, delete, strip,
   destroy, clone, bundles, flush, load, world_clear, writes through
   ecs_get_mut, ECS_WRITE view terms of every loop form and
   ecs_add_if_changed - shows in the next answer. The model test below
   checks every index against a scan after every step of random worlds. */
#include "test.h"
#include "../ecs.h"

#include <stddef.h>
#include <time.h>

typedef struct Unit {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f;
    double d;
    char name[6];
    const char *str;
} Unit;

static const char *const WORDS[] = {"ant", "bee", "ant2", "antelope", "", "zebra", "bee", "antelope!"};
#define NWORDS 8

/* ---- the fields, as the model sees them ------------------------------------ */

typedef struct field {
    const char *what;
    uint32_t offset, size;
    int kind;
} field;
#define F(m, kind) {#m, (uint32_t)offsetof(Unit, m), (uint32_t)sizeof(((Unit *)0)->m), kind}
static const field FIELDS[] = {
    F(i8, ECS_KEY_INT),    F(i16, ECS_KEY_INT),  F(i32, ECS_KEY_INT),    F(i64, ECS_KEY_INT),
    F(u8, ECS_KEY_UINT),   F(u16, ECS_KEY_UINT), F(u32, ECS_KEY_UINT),   F(u64, ECS_KEY_UINT),
    F(f, ECS_KEY_FLOAT),   F(d, ECS_KEY_FLOAT),  F(name, ECS_KEY_CHARS), F(str, ECS_KEY_STRING),
};
#undef F
#define NFIELDS (sizeof FIELDS / sizeof FIELDS[0])

/* -1, 0, 1: a's field against b's (a and b point at the fields); 2: one of
   them is not indexed (NaN, NULL string) */
static int field_cmp(const field *f, const void *a, const void *b) {
    if (f->kind == ECS_KEY_CHARS || f->kind == ECS_KEY_STRING) {
        const char *x, *y;
        int c;
        if (f->kind == ECS_KEY_CHARS) x = (const char *)a, y = (const char *)b;
        else memcpy(&x, a, sizeof x), memcpy(&y, b, sizeof y);
        if (!x || !y) return 2;
        c = strncmp(x, y, f->kind == ECS_KEY_CHARS ? f->size : (size_t)-1);
        return (c > 0) - (c < 0);
    }
    if (f->kind == ECS_KEY_FLOAT) {
        double x, y;
        if (f->size == 4) {
            float p, q;
            memcpy(&p, a, 4), memcpy(&q, b, 4);
            x = p, y = q;
        } else {
            memcpy(&x, a, 8), memcpy(&y, b, 8);
        }
        if (x != x || y != y) return 2;
        return (x > y) - (x < y);
    }
    {
        int64_t x = 0, y = 0;
        uint64_t ux = 0, uy = 0;
        if (f->kind == ECS_KEY_INT) {
            if (f->size == 1) x = *(const int8_t *)a, y = *(const int8_t *)b;
            if (f->size == 2) memcpy(&ux, a, 0), x = *(const int16_t *)a, y = *(const int16_t *)b;
            if (f->size == 4) x = *(const int32_t *)a, y = *(const int32_t *)b;
            if (f->size == 8) memcpy(&x, a, 8), memcpy(&y, b, 8);
            return (x > y) - (x < y);
        }
        memcpy(&ux, a, f->size), memcpy(&uy, b, f->size); /* (little- or big-endian: compared as the same width) */
        if (f->size == 1) ux = *(const uint8_t *)a, uy = *(const uint8_t *)b;
        if (f->size == 2) ux = *(const uint16_t *)a, uy = *(const uint16_t *)b;
        if (f->size == 4) ux = *(const uint32_t *)a, uy = *(const uint32_t *)b;
        if (f->size == 8) memcpy(&ux, a, 8), memcpy(&uy, b, 8);
        return (ux > uy) - (ux < uy);
    }
}

/* ---- a random world ----------------------------------------------------------- */

typedef struct model {
    ecs_world *w;
    ecs_component unit, other;
    ecs_index hashed[NFIELDS], ordered[NFIELDS];
    ecs_component both; /* a cached query: Unit and Other */
    uint32_t seed;
    ecs_entity live[256];
    uint32_t nlive;
} model;

static uint32_t rnd(model *m) {
    m->seed = m->seed * 1664525u + 1013904223u;
    return m->seed >> 8;
}

static Unit random_unit(model *m) {
    Unit u;
    uint32_t r = rnd(m);
    int v = (int)(r % 7) - 3; /* few keys: many entities share one */
    memset(&u, 0, sizeof u);
    u.i8 = (int8_t)(v * 40);
    u.i16 = (int16_t)(v * 1000);
    u.i32 = v * 100000;
    u.i64 = (int64_t)v * 5000000000ll;
    u.u8 = (uint8_t)(r % 5 * 60);
    u.u16 = (uint16_t)(r % 4 * 20000);
    u.u32 = r % 6 * 800000000u;
    u.u64 = (uint64_t)(r % 3) << 62;
    u.f = r % 11 == 0 ? 0.0f / 0.0f : r % 13 == 0 ? -0.0f : (float)v * 0.5f; /* NaN and -0 too */
    u.d = r % 9 == 0 ? -1e300 : (double)v / 3;
    memcpy(u.name, WORDS[r % NWORDS], strlen(WORDS[r % NWORDS]) < 6 ? strlen(WORDS[r % NWORDS]) + 1 : 6); /* "antelope" fills it */
    u.str = r % 17 == 0 ? NULL : WORDS[(r >> 4) % NWORDS];
    return u;
}

static bool model_indexes(model *m) {
    uint32_t k;
    for (k = 0; k < NFIELDS; k++) {
        ecs_index_desc d;
        memset(&d, 0, sizeof d);
        d.c = m->unit;
        d.offset = FIELDS[k].offset;
        d.size = FIELDS[k].size;
        d.kind = FIELDS[k].kind;
        m->hashed[k] = d.kind == ECS_KEY_FLOAT ? 0 : ecs_index_new(m->w, &d);
        d.ordered = true;
        m->ordered[k] = ecs_index_new(m->w, &d);
        if (!m->ordered[k] || (d.kind != ECS_KEY_FLOAT && !m->hashed[k])) return false;
    }
    {
        ecs_view_desc q;
        memset(&q, 0, sizeof q);
        q.terms[0].c = m->unit, q.terms[1].c = m->other;
        m->both = ecs_query_new(m->w, "Both", &q);
    }
    return m->both != 0;
}

static void model_world(model *m, uint32_t seed) {
    memset(m, 0, sizeof *m);
    m->seed = seed;
    m->w = ecs_world_new(NULL);
    m->unit = ECS_COMPONENT(m->w, Unit);
    m->other = ecs_register(m->w, "Other", sizeof(int), sizeof(int));
    model_indexes(m);
}

/* The live entities, from the world (ids the model keeps may be stale). */
static void model_refresh(model *m) {
    const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(m->w, m->unit));
    uint32_t k, n = ecs_storage_count(ecs_storage_of(m->w, m->unit));
    m->nlive = 0;
    for (k = 0; k < n && m->nlive < 256; k++) m->live[m->nlive++] = ents[k];
}

static ecs_entity pick(model *m) {
    return m->nlive ? m->live[rnd(m) % m->nlive] : ECS_NULL;
}

static int by_entity(const void *a, const void *b) {
    ecs_entity x = *(const ecs_entity *)a, y = *(const ecs_entity *)b;
    return (x > y) - (x < y);
}

static const field *sort_field;
static const Unit *sort_units;
static const ecs_entity *sort_ents;
static int by_key_then_index(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = field_cmp(sort_field, (const char *)&sort_units[x] + sort_field->offset,
                      (const char *)&sort_units[y] + sort_field->offset);
    if (c) return c;
    return ((uint32_t)sort_ents[x] > (uint32_t)sort_ents[y]) - ((uint32_t)sort_ents[x] < (uint32_t)sort_ents[y]);
}

/* Every index against a scan: equality for the key of every entity (and
   a NaN, a NULL), sets, and (ordered) ranges with every kind of bound, in
   key order. Returns the first mismatch's description, or NULL. */
static char mismatch[256];
static const char *model_check(model *m) {
    const ecs_storage *s = ecs_storage_of(m->w, m->unit);
    const Unit *units = (const Unit *)ecs_storage_data(s);
    const ecs_entity *ents = ecs_storage_entities(s);
    uint32_t n = ecs_storage_count(s), k, q, j;
    static ecs_entity got[4096], want[4096];
    static uint32_t order[4096];
    { /* the cached query: a view of its tag has exactly Unit's entities that have Other */
        uint32_t nq = 0, want_n = 0;
        ECS_EACH_VIEW(it, m->w, &(ecs_view_desc){.terms = {{m->both, 0}}}) {
            nq++;
            if (!ecs_has(m->w, ecs_iter_entity(&it), m->other) || !ecs_has(m->w, ecs_iter_entity(&it), m->unit))
                return "a cached query's tag on an entity that does not match";
        }
        for (j = 0; j < n; j++) want_n += ecs_has(m->w, ents[j], m->other);
        if (nq != want_n) {
            snprintf(mismatch, sizeof mismatch, "cached query: %u tagged, %u match", nq, want_n);
            return mismatch;
        }
    }
    for (k = 0; k < NFIELDS; k++) {
        const field *f = &FIELDS[k];
        for (q = 0; q < 6 && n; q++) {
            const Unit *key = &units[rnd(m) % n];
            const void *kp = (const char *)key + f->offset;
            uint32_t nw = 0, ng, h;
            for (j = 0; j < n; j++)
                if (field_cmp(f, (const char *)&units[j] + f->offset, kp) == 0) want[nw++] = ents[j];
            qsort(want, nw, sizeof *want, by_entity);
            for (h = 0; h < 2; h++) {
                ecs_index ix = h ? m->ordered[k] : m->hashed[k];
                if (!ix) continue;
                ng = ecs_index_find(m->w, ix, kp, got, 4096);
                qsort(got, ng < 4096 ? ng : 4096, sizeof *got, by_entity);
                if (ng != nw || memcmp(got, want, nw * sizeof *got)) {
                    snprintf(mismatch, sizeof mismatch, "%s %s find: %u entities, the scan %u", h ? "ordered" : "hashed",
                             f->what, ng, nw);
                    return mismatch;
                }
            }
            if (q < 3) { /* a range: lo..hi with each kind of bound, or one end open */
                const Unit *other = &units[rnd(m) % n];
                const void *lo = kp, *hi = (const char *)other + f->offset;
                uint32_t flags = rnd(m) % 4, open = rnd(m) % 4;
                if (field_cmp(f, lo, hi) == 1) {
                    const void *t = lo;
                    lo = hi, hi = t;
                }
                if (open == 1) lo = NULL;
                if (open == 2) hi = NULL;
                for (nw = 0, j = 0; j < n; j++) {
                    const void *v = (const char *)&units[j] + f->offset;
                    int a = lo ? field_cmp(f, v, lo) : 1, b = hi ? field_cmp(f, v, hi) : -1;
                    if (a == 2 || b == 2 || (lo && field_cmp(f, v, v) == 2)) continue;
                    if ((a > 0 || (a == 0 && !(flags & ECS_RANGE_LO_OPEN))) &&
                        (b < 0 || (b == 0 && !(flags & ECS_RANGE_HI_OPEN))))
                        order[nw++] = j;
                }
                if ((lo && field_cmp(f, lo, lo) == 2) || (hi && field_cmp(f, hi, hi) == 2)) nw = 0; /* a NaN bound */
                sort_field = f, sort_units = units, sort_ents = ents;
                qsort(order, nw, sizeof *order, by_key_then_index);
                for (j = 0; j < nw; j++) want[j] = ents[order[j]];
                ng = ecs_index_range(m->w, m->ordered[k], lo, hi, flags, got, 4096);
                if (ng != nw || memcmp(got, want, nw * sizeof *got)) {
                    snprintf(mismatch, sizeof mismatch, "ordered %s range (flags %u, open %u): %u entities, the scan %u",
                             f->what, flags, open, ng, nw);
                    return mismatch;
                }
            }
        }
    }
    return NULL;
}

/* One random change, through one of the ways a value can change. */
static void model_step(model *m) {
    Unit u = random_unit(m);
    ecs_entity e = pick(m);
    uint32_t op = rnd(m) % 20;
    switch (op) {
    case 0: case 1: case 2: { /* a new entity */
        ecs_entity x = ecs_create(m->w);
        ecs_add(m->w, x, m->unit, &u);
        if (rnd(m) % 2) ecs_add(m->w, x, m->other, NULL);
        break;
    }
    case 3: if (e) ecs_add(m->w, e, m->unit, &u); break; /* replace */
    case 4: if (e) *ECS_GET_MUT(m->w, e, m->unit, Unit) = u; break;
    case 5: if (e) ecs_add_if_changed(m->w, e, m->unit, &u); break;
    case 6: if (e) ecs_remove(m->w, e, m->unit, NULL); break;
    case 7: if (e) ecs_delete(m->w, e, m->unit); break;
    case 8: if (e) ecs_destroy(m->w, e); break;
    case 9: if (e) ecs_strip(m->w, e); break;
    case 10: if (e) ecs_clone(m->w, e); break;
    case 11: { /* a bundle */
        ecs_component comps[2];
        const void *values[2];
        comps[0] = m->other, comps[1] = m->unit;
        values[0] = NULL, values[1] = &u;
        ecs_create_n(m->w, 2, comps, values);
        break;
    }
    case 12: if (e) ecs_defer_add(m->w, e, m->unit, &u), ecs_flush(m->w); break;
    case 13: { /* ECS_EACH over a written term: every third entity gets a new value */
        ecs_view_desc d;
        uint32_t k = 0;
        memset(&d, 0, sizeof d);
        d.terms[0].c = m->unit, d.terms[0].flags = ECS_WRITE;
        ECS_EACH_VIEW(it, m->w, &d) if (k++ % 3 == 0) *ECS_FIELD(&it, 0, Unit) = random_unit(m);
        break;
    }
    case 14: { /* blocks, in two chunks */
        ecs_view_desc d;
        uint32_t c, j;
        memset(&d, 0, sizeof d);
        d.terms[0].c = m->unit, d.terms[0].flags = ECS_WRITE;
        d.terms[1].c = m->other;
        for (c = 0; c < 2; c++) {
            ecs_iter it = ecs_view(m->w, &d);
            ecs_iter_chunk(&it, c, 2);
            while (ecs_iter_next_block(&it))
                for (j = 0; j < it.count; j += 2) ECS_BLOCK(&it, 0, Unit)[j] = random_unit(m);
        }
        break;
    }
    case 15: if (rnd(m) % 8 == 0) ecs_world_clear(m->w); break;
    case 16: { /* save, and load into a new world whose indexes exist before the load */
        size_t size = ecs_save_buffer(m->w, NULL, 0);
        void *buf = malloc(size);
        model fresh;
        if (!buf || ecs_save_buffer(m->w, buf, size) != size) break;
        fresh = *m;
        fresh.w = ecs_world_new(NULL);
        fresh.unit = ECS_COMPONENT(fresh.w, Unit);
        fresh.other = ecs_register(fresh.w, "Other", sizeof(int), sizeof(int));
        model_indexes(&fresh);
        if (ecs_load(fresh.w, buf, size)) {
            ecs_world_free(m->w);
            *m = fresh;
        } else {
            ecs_world_free(fresh.w);
        }
        free(buf);
        break;
    }
    case 17: if (e) ecs_get_mut(m->w, e, m->unit) ? ((Unit *)ecs_get_mut(m->w, e, m->unit))->i32 += 100000 : 0; break;
    default: { /* a write through the raw array, told with ecs_track_mark_modified */
        Unit *data = (Unit *)ecs_storage_data(ecs_storage_of(m->w, m->unit));
        uint32_t row = ecs_storage_count(ecs_storage_of(m->w, m->unit));
        if (!row) break;
        row = rnd(m) % row;
        data[row] = u;
        ecs_track_mark_modified(m->w, ecs_storage_entities(ecs_storage_of(m->w, m->unit))[row], m->unit);
        break;
    }
    }
    model_refresh(m);
}

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
    EXPECT_ASSERT(ecs_index_find(w, hashed, NULL, out, 2) == 0, "key is NULL");
    EXPECT_ASSERT(ecs_index_find(w, hashed, out, NULL, 2) == 0, "out (with cap > 0) is NULL");
    EXPECT_ASSERT(ecs_index_find(w, 77, out, out, 2) == 0, "no such index");
    EXPECT_ASSERT(!ecs_index_free(w, 0), "no such index");
    CHECK(ecs_track_set(w, named, 0));
    CHECK(ecs_track_get(w, named) & ECS_TRACK_MODIFICATION); /* an indexed storage stays tracked */
    ecs_world_free(w);
}

/* ---- out of memory ------------------------------------------------------------ */

typedef struct budget {
    long left; /* allocations still allowed; < 0: any */
} budget;
static void *budget_alloc(size_t size, void *ctx) {
    budget *b = (budget *)ctx;
    if (b->left == 0) return NULL;
    if (b->left > 0) b->left--;
    return malloc(size);
}
static void budget_free(void *p, size_t size, void *ctx) {
    (void)size, (void)ctx;
    free(p);
}
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

/* ---- cached queries (ecs.h section 14) ------------------------------------------ */

typedef struct { float x, y; } QPos;
typedef struct { float x, y; } QVel;

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
    CHECK(ecs_has(w, e[4], moving));
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
    }
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_find_by_name_and_by_cell_sees_writes_at_the_next_query);
    RUN(test_an_ordered_index_answers_ranges_in_key_order);
    RUN(test_find_any_answers_a_set_of_keys);
    RUN(test_bad_indexes_and_queries_are_refused);
    RUN(test_out_of_memory_in_an_index_never_gives_a_wrong_answer);
    RUN(test_every_index_agrees_with_a_scan_after_every_change);
    RUN(test_a_cached_query_keeps_exactly_the_matching_entities);
    RUN(test_a_cached_query_agrees_with_its_terms_after_random_changes);
    return test_summary();
}
