/* index_model.h - the model of the field indexes and cached queries (ecs.h
   section 14) that tests/test_indexes.c and tests/fuzz/fuzz_index.c share:
   a world with one component, Unit, whose twelve fields (every key kind
   and size: FIELDS) each have a hashed (not floats) and an ordered index,
   and a cached query on Unit and Other.

     model_world(&m, seed)   the world, its indexes and the query
     model_step(&m)          one random change, through one of the ways a
                             value can change (add, replace, ecs_get_mut,
                             add_if_changed, remove, delete, destroy, strip,
                             clone, bundles, flush, written view terms and
                             blocks, world_clear, save + load, raw writes
                             told with ecs_track_mark_modified)
     model_check(&m)         every index and the query against a scan:
                             NULL, or the first mismatch's description

   The includer includes ecs.h first and defines model_step's random
   source, `static uint32_t rnd(model *m)` (declared below): the test uses
   model_lcg (the LCG on m->seed), the fuzzer reads its input's bytes.
   model_check draws its picks from model_lcg in both. The caller frees
   m.w with ecs_world_free. */
#ifndef INDEX_MODEL_H
#define INDEX_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    uint32_t seed; /* the LCG: model_lcg (and the test's rnd) */
    ecs_entity live[256];
    uint32_t nlive;
    uint32_t last_op; /* the case model_step took last (MODEL_OPS) */
} model;

/* model_check's picks (which keys and ranges to ask for): this LCG on
   m->seed, in the test and in the fuzzer. */
static uint32_t model_lcg(model *m) {
    m->seed = m->seed * 1664525u + 1013904223u;
    return m->seed >> 8;
}

/* model_step's random source, defined by the file that includes this
   header: the same LCG in tests/test_indexes.c, the input's bytes in
   tests/fuzz/fuzz_index.c. */
static uint32_t rnd(model *m);

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
    static ecs_entity got[4096], want[4096], expect[4096];
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
            const Unit *key = &units[model_lcg(m) % n];
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
                { /* the key as a view's index term: alone (the index leads), with Unit or with Other (either leads) */
                    ecs_view_desc d;
                    uint32_t t = model_lcg(m) % 3, nv = 0, nx = 0;
                    memset(&d, 0, sizeof d);
                    if (t) d.terms[0].c = t == 1 ? m->unit : m->other;
                    d.where.index = ix;
                    d.where.key = kp;
                    ECS_EACH_VIEW(it, m->w, &d) if (nv < 4096) got[nv++] = ecs_iter_entity(&it);
                    for (j = 0; j < nw; j++)
                        if (t != 2 || ecs_has(m->w, want[j], m->other)) expect[nx++] = want[j];
                    qsort(got, nv < 4096 ? nv : 4096, sizeof *got, by_entity);
                    if (nv != nx || memcmp(got, expect, nx * sizeof *got)) {
                        snprintf(mismatch, sizeof mismatch, "%s %s view (terms %u): %u entities, the scan %u",
                                 h ? "ordered" : "hashed", f->what, t, nv, nx);
                        return mismatch;
                    }
                }
            }
            if (q < 3) { /* a range: lo..hi with each kind of bound, or one end open */
                const Unit *other = &units[model_lcg(m) % n];
                const void *lo = kp, *hi = (const char *)other + f->offset;
                uint32_t flags = model_lcg(m) % 4, open = model_lcg(m) % 4;
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
                { /* the range as a view's index term, alone: the index leads, in key order */
                    ecs_view_desc d;
                    memset(&d, 0, sizeof d);
                    d.where.index = m->ordered[k];
                    d.where.lo = lo, d.where.hi = hi, d.where.flags = flags;
                    ng = 0;
                    ECS_EACH_VIEW(it, m->w, &d) if (ng < 4096) got[ng++] = ecs_iter_entity(&it);
                    if (ng != nw || memcmp(got, want, nw * sizeof *got)) {
                        snprintf(mismatch, sizeof mismatch, "ordered %s range view (flags %u, open %u): %u entities, the scan %u",
                                 f->what, flags, open, ng, nw);
                        return mismatch;
                    }
                }
            }
        }
    }
    return NULL;
}

/* model_step's cases, by number (for messages) */
static const char *const MODEL_OPS[20] = {
    "create",   "create",         "create",       "add (replace)", "ECS_GET_MUT", "add_if_changed", "remove",
    "delete",   "destroy",        "strip",        "clone",         "create_n",    "defer_add+flush", "ECS_EACH write",
    "blocks",   "world_clear?",   "save+load",    "get_mut i32",   "raw write+mark", "raw write+mark"};

/* One random change, through one of the ways a value can change. */
static void model_step(model *m) {
    Unit u = random_unit(m);
    ecs_entity e = pick(m);
    uint32_t op = rnd(m) % 20;
    m->last_op = op;
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
        if (!buf || ecs_save_buffer(m->w, buf, size) != size) {
            free(buf);
            break;
        }
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

#endif
