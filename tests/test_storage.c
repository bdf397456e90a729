/* Storages: paged sparse sets. Pages are allocated lazily, so huge and
   scattered indices are cheap; swap-remove keeps every other entity's value
   attached to it and the rows packed; a stale id never reaches the entity
   that reuses its slot. Ends with a randomized test against a naive model
   (ecs.h section 4). */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { int hp; } Health;
typedef struct { char s[20]; } Label; /* alignment 1, odd-ish size */

/* The id a never-recycled slot i gets: version 1. */
static ecs_entity fresh_id(uint32_t i) { return ((ecs_entity)1 << 32) | i; }

/* An allocator hook that counts the bytes the world holds. */
typedef struct {
    size_t outstanding;
} counter;

static void *count_alloc(size_t size, void *ctx) {
    void *p = malloc(size ? size : 1);
    if (p) ((counter *)ctx)->outstanding += size;
    return p;
}
static void count_free(void *p, size_t size, void *ctx) {
    ((counter *)ctx)->outstanding -= size;
    free(p);
}
static ecs_world *counted_world(counter *c) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    memset(c, 0, sizeof *c);
    d.allocator.alloc = count_alloc;
    d.allocator.free = count_free;
    d.allocator.ctx = c;
    return ecs_world_new(&d);
}

/* Checks the storage of c against "has": exactly `expected` rows, each row
   a live entity that has c, whose get() points at that row's data. */
static int storage_is_packed(ecs_world *w, ecs_component c, uint32_t expected) {
    const ecs_entity *ents = ecs_storage_entities(ecs_storage_of(w, c));
    char *data = (char *)ecs_storage_data(ecs_storage_of(w, c));
    size_t size = ecs_component_size(w, c);
    uint32_t r, n = ecs_storage_count(ecs_storage_of(w, c));
    if (n != expected) {
        printf("  storage %s: %u rows, expected %u\n", ecs_component_name(w, c), (unsigned)n,
               (unsigned)expected);
        return 0;
    }
    if (size == 0 && data != NULL) return 0;
    for (r = 0; r < n; r++) {
        if (!ecs_alive(w, ents[r]) || !ecs_has(w, ents[r], c)) return 0;
        if (size && ecs_get(w, ents[r], c) != (void *)(data + r * size)) return 0;
    }
    return 1;
}

/* ---- paging ------------------------------------------------------------ */

#define PAGE_BYTES (ECS__PAGE_SIZE * sizeof(uint64_t)) /* entries hold version and row */
#define NUM_ENTITIES 70000u

static void test_a_huge_index_costs_one_page_not_index_slots(void) {
    counter cnt;
    ecs_world *w = counted_world(&cnt);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    uint32_t i, last = NUM_ENTITIES - 1;
    size_t before, cost;
    for (i = 0; i < NUM_ENTITIES; i++) ecs_create(w);

    before = cnt.outstanding;
    CHECK(ecs_add(w, fresh_id(last), pos, NULL));
    cost = cnt.outstanding - before;
    /* one page of the sparse array and the first rows (page tables cover
       every slot from the entity's creation on: 8 bytes per 4096 slots) */
    CHECK(cost >= PAGE_BYTES && cost < PAGE_BYTES + 1024);
    CHECK_LT(cost, (size_t)last * sizeof(uint32_t) / 4);

    /* neighbours in the same page need no page */
    before = cnt.outstanding;
    CHECK(ecs_add(w, fresh_id(last - 1), pos, NULL) && ecs_add(w, fresh_id(last - 2), pos, NULL));
    CHECK_LT(cnt.outstanding - before, PAGE_BYTES);

    /* an index in an untouched page costs one more page, whatever its index */
    before = cnt.outstanding;
    CHECK(ecs_add(w, fresh_id(5), pos, NULL));
    cost = cnt.outstanding - before;
    CHECK(cost >= PAGE_BYTES && cost < 2 * PAGE_BYTES);
    before = cnt.outstanding;
    CHECK(ecs_add(w, fresh_id(3 * ECS__PAGE_SIZE + 17), pos, NULL));
    cost = cnt.outstanding - before;
    CHECK(cost >= PAGE_BYTES && cost < 2 * PAGE_BYTES);
    ecs_world_free(w);
    CHECK_EQ(cnt.outstanding, 0);
}

static void test_huge_and_scattered_indices_hold_their_own_values(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component health = ECS_COMPONENT(w, Health);
    uint32_t i, n = 0;
    for (i = 0; i < NUM_ENTITIES; i++) ecs_create(w);
    /* the last few, and every 997th: spread over every page */
    for (i = 0; i < NUM_ENTITIES; i++)
        if (i % 997 == 0 || i >= NUM_ENTITIES - 5) {
            Health h;
            h.hp = (int)i;
            CHECK(ecs_add(w, fresh_id(i), health, &h));
            n++;
        }
    CHECK(storage_is_packed(w, health, n));
    for (i = 0; i < NUM_ENTITIES; i++) {
        int chosen = i % 997 == 0 || i >= NUM_ENTITIES - 5;
        const Health *h = (const Health *)ecs_get(w, fresh_id(i), health);
        CHECK_EQ(ecs_has(w, fresh_id(i), health), chosen);
        CHECK(chosen ? h && h->hp == (int)i : h == NULL);
    }
    /* destroying the highest ones leaves the scattered ones intact */
    for (i = NUM_ENTITIES - 5; i < NUM_ENTITIES; i++) CHECK(ecs_destroy(w, fresh_id(i)));
    CHECK(storage_is_packed(w, health, n - 5));
    for (i = 0; i < NUM_ENTITIES - 5; i += 997)
        CHECK_EQ(((const Health *)ecs_get(w, fresh_id(i), health))->hp, (int)i);
    ecs_world_free(w);
}

/* ---- swap-remove ------------------------------------------------------- */

#define SWAP_N 300

static void test_swap_remove_keeps_every_other_entity_s_value(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity e[SWAP_N];
    int has[SWAP_N];
    uint32_t count = 0;
    int i, step;
    test_seed(12345);
    for (i = 0; i < SWAP_N; i++) {
        Pos v;
        v.x = (float)i;
        v.y = (float)-i;
        e[i] = ecs_create(w);
        CHECK(ecs_add(w, e[i], pos, &v));
        has[i] = 1;
        count++;
    }
    for (step = 0; step < 2 * SWAP_N; step++) {
        i = (int)test_rand(SWAP_N);
        if (has[i] && test_rand(4) != 0) { /* mostly removals */
            Pos out;
            CHECK(ecs_remove(w, e[i], pos, &out));
            CHECK(out.x == (float)i && out.y == (float)-i);
            has[i] = 0;
            count--;
        } else if (has[i]) {
            CHECK(ecs_delete(w, e[i], pos));
            has[i] = 0;
            count--;
        } else { /* put it back: it lands in the last row */
            Pos v;
            v.x = (float)i;
            v.y = (float)-i;
            CHECK(ecs_add(w, e[i], pos, &v));
            CHECK_EQ(ecs_storage_entities(ecs_storage_of(w, pos))[count], e[i]);
            has[i] = 1;
            count++;
        }
        CHECK(storage_is_packed(w, pos, count));
        for (i = 0; i < SWAP_N; i++) {
            const Pos *p = (const Pos *)ecs_get(w, e[i], pos);
            CHECK_EQ(ecs_has(w, e[i], pos), has[i]);
            CHECK(has[i] ? p && p->x == (float)i && p->y == (float)-i : p == NULL);
        }
    }
    ecs_world_free(w);
}

static void test_removing_the_last_row_moves_nothing(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity a = ecs_create(w), b = ecs_create(w);
    const Pos *pa;
    Pos va = {1, 1}, vb = {2, 2};
    pa = (const Pos *)ecs_add(w, a, pos, &va);
    ecs_add(w, b, pos, &vb);
    CHECK(ecs_delete(w, b, pos));
    CHECK(ecs_get(w, a, pos) == pa && pa->x == 1);
    CHECK(ecs_storage_count(ecs_storage_of(w, pos)) == 1 && ecs_storage_entities(ecs_storage_of(w, pos))[0] == a);
    ecs_world_free(w);
}

static void test_removing_a_middle_row_moves_the_last_row_into_it(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity a = ecs_create(w), b = ecs_create(w), c = ecs_create(w);
    Pos va = {1, 1}, vb = {2, 2}, vc = {3, 3};
    ecs_add(w, a, pos, &va);
    ecs_add(w, b, pos, &vb);
    ecs_add(w, c, pos, &vc);
    CHECK(ecs_delete(w, a, pos));
    /* row 0 now holds c, the former last row; b stays in row 1 */
    CHECK(ecs_storage_entities(ecs_storage_of(w, pos))[0] == c && ecs_storage_entities(ecs_storage_of(w, pos))[1] == b);
    CHECK(((const Pos *)ecs_storage_data(ecs_storage_of(w, pos)))[0].x == 3);
    CHECK(((const Pos *)ecs_get(w, c, pos))->x == 3 && ((const Pos *)ecs_get(w, b, pos))->x == 2);
    ecs_world_free(w);
}

/* ---- stale ids --------------------------------------------------------- */

static void test_stale_id_never_reaches_the_entity_that_reuses_its_slot(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos), frozen = ECS_TAG(w, "Frozen");
    ecs_entity a = ecs_create(w), b;
    Pos va = {1, 1}, vb = {2, 2}, out = {9, 9};
    ecs_add(w, a, pos, &va);
    ecs_add(w, a, frozen, NULL);
    ecs_destroy(w, a);
    b = ecs_create(w);
    CHECK_EQ(ECS_ENTITY_INDEX(b), ECS_ENTITY_INDEX(a)); /* same slot, same sparse entry */
    ecs_add(w, b, pos, &vb);
    ecs_add(w, b, frozen, NULL);
    CHECK(!ecs_has(w, a, pos) && ecs_get(w, a, pos) == NULL && ecs_get_mut(w, a, pos) == NULL);
    CHECK(!ecs_has(w, a, frozen) && ecs_get(w, a, frozen) == NULL);
    CHECK(!ecs_remove(w, a, pos, &out) && out.x == 9);
    CHECK(!ecs_delete(w, a, frozen));
    CHECK_EQ(ecs_strip(w, a), 0);
    CHECK(!ecs_destroy(w, a));
    EXPECT_ASSERT(ecs_add(w, a, pos, &va) == NULL, "not alive");
    /* b was never touched */
    CHECK(ecs_alive(w, b) && ecs_has(w, b, frozen));
    CHECK(((const Pos *)ecs_get(w, b, pos))->x == 2);
    CHECK(ecs_storage_count(ecs_storage_of(w, pos)) == 1 && ecs_storage_count(ecs_storage_of(w, frozen)) == 1);
    ecs_world_free(w);
}

static void test_new_occupant_of_a_slot_starts_with_no_components(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos), frozen = ECS_TAG(w, "Frozen");
    ecs_entity a = ecs_create(w), b;
    ecs_add(w, a, pos, NULL);
    ecs_add(w, a, frozen, NULL);
    ecs_destroy(w, a);
    b = ecs_create(w);
    CHECK_EQ(ECS_ENTITY_INDEX(b), ECS_ENTITY_INDEX(a));
    CHECK(!ecs_has(w, b, pos) && !ecs_has(w, b, frozen));
    CHECK(ecs_storage_count(ecs_storage_of(w, pos)) == 0 && ecs_storage_count(ecs_storage_of(w, frozen)) == 0);
    ecs_world_free(w);
}

/* ---- randomized model test --------------------------------------------- */
/* A naive model: an array of live entities with a has-flag and the bytes of
   each component, the FIFO of free slots and each slot's next version.
   Every step does one random operation on both and compares everything. */

#define NCOMP 4       /* Pos, Health, Label, and the tag Frozen */
#define MAX_LIVE 40
#define MAX_SLOTS 64
#define NDEAD 16
#define VAL_MAX 24

typedef struct {
    ecs_entity id;
    int has[NCOMP];
    unsigned char val[NCOMP][VAL_MAX];
} m_entity;

typedef struct {
    ecs_component comp[NCOMP];
    size_t size[NCOMP];
    m_entity live[MAX_LIVE];
    int nlive;
    ecs_entity dead[NDEAD]; /* recently destroyed ids */
    int ndead;
    uint32_t version[MAX_SLOTS];
    uint32_t freeq[MAX_SLOTS], fq_head, fq_len, nslots;
} model;

static void random_value(unsigned char *v, size_t size) {
    size_t i;
    for (i = 0; i < size; i++) v[i] = (unsigned char)test_rand(256);
}

static ecs_entity model_next_id(const model *m) {
    uint32_t i = m->fq_len ? m->freeq[m->fq_head % MAX_SLOTS] : m->nslots;
    return ((ecs_entity)(m->fq_len ? m->version[i] : 1) << 32) | i;
}

static void model_create(model *m, ecs_entity id) {
    m_entity *e = &m->live[m->nlive++];
    memset(e, 0, sizeof *e);
    e->id = id;
    if (m->fq_len) {
        m->fq_head++;
        m->fq_len--;
    } else {
        m->nslots++;
    }
}

static void model_destroy(model *m, int k) {
    uint32_t i = ECS_ENTITY_INDEX(m->live[k].id);
    m->version[i] = ECS_ENTITY_VERSION(m->live[k].id) + 1;
    m->freeq[(m->fq_head + m->fq_len++) % MAX_SLOTS] = i;
    m->dead[m->ndead++ % NDEAD] = m->live[k].id;
    m->live[k] = m->live[--m->nlive];
}

static int world_matches_model(ecs_world *w, const model *m) {
    int k, c;
    uint32_t per_comp[NCOMP] = {0, 0, 0, 0};
    if (ecs_count(w) != (uint32_t)m->nlive) return 0;
    for (k = 0; k < m->nlive; k++) {
        const m_entity *e = &m->live[k];
        if (!ecs_alive(w, e->id)) return 0;
        for (c = 0; c < NCOMP; c++) {
            const void *p = ecs_get(w, e->id, m->comp[c]);
            if (ecs_has(w, e->id, m->comp[c]) != e->has[c] || (p != NULL) != e->has[c]) {
                printf("  entity %d: has(%s) should be %d\n", k, ecs_component_name(w, m->comp[c]),
                       e->has[c]);
                return 0;
            }
            if (e->has[c] && m->size[c] && memcmp(p, e->val[c], m->size[c]) != 0) {
                printf("  entity %d: wrong %s value\n", k, ecs_component_name(w, m->comp[c]));
                return 0;
            }
            per_comp[c] += (uint32_t)e->has[c];
        }
    }
    for (c = 0; c < NCOMP; c++)
        if (!storage_is_packed(w, m->comp[c], per_comp[c])) return 0;
    for (k = 0; k < m->ndead && k < NDEAD; k++) {
        if (ecs_alive(w, m->dead[k])) return 0;
        for (c = 0; c < NCOMP; c++)
            if (ecs_has(w, m->dead[k], m->comp[c]) || ecs_get(w, m->dead[k], m->comp[c])) return 0;
    }
    return 1;
}

static void test_random_operations_match_a_naive_model(void) {
    ecs_world *w = ecs_world_new(NULL);
    model m;
    int step, k, c;
    memset(&m, 0, sizeof m);
    m.comp[0] = ECS_COMPONENT(w, Pos);
    m.comp[1] = ECS_COMPONENT(w, Health);
    m.comp[2] = ECS_COMPONENT(w, Label);
    m.comp[3] = ECS_TAG(w, "Frozen");
    for (c = 0; c < NCOMP; c++) m.size[c] = ecs_component_size(w, m.comp[c]);
    test_seed(20261121);
    for (step = 0; step < 4000; step++) {
        unsigned op = test_rand(m.nlive ? 9 : 1); /* only create when empty */
        m_entity *e;
        k = m.nlive ? (int)test_rand((unsigned)m.nlive) : 0;
        e = &m.live[k];
        c = (int)test_rand(NCOMP);
        switch (op) {
        case 0: /* create, while there is room in the model */
            if (m.nlive < MAX_LIVE) {
                ecs_entity want = model_next_id(&m), got = ecs_create(w);
                CHECK_EQ(got, want);
                model_create(&m, got);
            }
            break;
        case 1: /* destroy */
            CHECK(ecs_destroy(w, e->id));
            model_destroy(&m, k);
            break;
        case 2:
        case 3: { /* add: insert or replace, sometimes zeroed */
            unsigned char v[VAL_MAX];
            int zero = test_rand(5) == 0;
            random_value(v, m.size[c]);
            CHECK_PTR_NE(ecs_add(w, e->id, m.comp[c], zero ? NULL : v), NULL);
            if (zero) memset(v, 0, sizeof v);
            memcpy(e->val[c], v, m.size[c]);
            e->has[c] = 1;
            break;
        }
        case 4: { /* remove: returns the value */
            unsigned char out[VAL_MAX];
            memset(out, 0xee, sizeof out);
            CHECK_EQ(ecs_remove(w, e->id, m.comp[c], out), e->has[c]);
            if (e->has[c] && m.size[c]) CHECK_EQ(memcmp(out, e->val[c], m.size[c]), 0);
            e->has[c] = 0;
            break;
        }
        case 5: /* delete */
            CHECK_EQ(ecs_delete(w, e->id, m.comp[c]), e->has[c]);
            e->has[c] = 0;
            break;
        case 6: { /* strip */
            uint32_t n = 0;
            for (c = 0; c < NCOMP; c++) n += (uint32_t)e->has[c];
            CHECK_EQ(ecs_strip(w, e->id), n);
            memset(e->has, 0, sizeof e->has);
            CHECK(ecs_alive(w, e->id));
            break;
        }
        case 7: { /* add_n of a random subset, in a random order */
            ecs_component comps[NCOMP] = {0, 0, 0, 0};
            unsigned char vals[NCOMP][VAL_MAX];
            const void *vp[NCOMP] = {NULL, NULL, NULL, NULL};
            uint32_t n = 0;
            int first = (int)test_rand(NCOMP), j;
            for (j = 0; j < NCOMP; j++) {
                int cc = (first + j) % NCOMP;
                if (test_rand(2)) continue;
                comps[n] = m.comp[cc];
                random_value(vals[n], m.size[cc]);
                vp[n] = vals[n];
                memcpy(e->val[cc], vals[n], m.size[cc]);
                e->has[cc] = 1;
                n++;
            }
            CHECK(ecs_add_n(w, e->id, n, comps, vp));
            break;
        }
        default: /* a stale id: every call misses quietly */
            if (m.ndead) {
                ecs_entity s = m.dead[test_rand((unsigned)(m.ndead < NDEAD ? m.ndead : NDEAD))];
                CHECK(!ecs_remove(w, s, m.comp[c], NULL) && !ecs_delete(w, s, m.comp[c]));
                CHECK(ecs_strip(w, s) == 0 && !ecs_destroy(w, s));
            }
            break;
        }
        if (!world_matches_model(w, &m)) {
            printf("  step %d (op %u) diverged from the model\n", step, op);
            CHECK(0);
        }
    }
    CHECK_GT(m.nslots, MAX_LIVE / 2); /* the run did exercise slot reuse */
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_a_huge_index_costs_one_page_not_index_slots);
    RUN(test_huge_and_scattered_indices_hold_their_own_values);
    RUN(test_swap_remove_keeps_every_other_entity_s_value);
    RUN(test_removing_the_last_row_moves_nothing);
    RUN(test_removing_a_middle_row_moves_the_last_row_into_it);
    RUN(test_stale_id_never_reaches_the_entity_that_reuses_its_slot);
    RUN(test_new_occupant_of_a_slot_starts_with_no_components);
    RUN(test_random_operations_match_a_naive_model);
    return test_summary();
}
