/* Allocator hooks: every byte of a world goes through desc.allocator with
   its ctx, free gets the size alloc got, ecs_world_free returns it all, and
   an allocation failure at any point fails the call that hit it with
   ECS_ERR_OUT_OF_MEMORY and changes nothing (ecs.h sections 2 and 6).
   The component-name index allocates through stb_ds/libc, not the hook
   (documented), so it is not counted here. */
#include "test.h"
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { int hp; } Health;

/* ---- the hooks --------------------------------------------------------- */
/* Each block carries a header with its size, so free can check the size it
   is given. The header keeps ECS_MAX_ALIGN alignment of the user part. */
#define HEADER (sizeof(size_t) > ECS_MAX_ALIGN ? sizeof(size_t) : ECS_MAX_ALIGN)

typedef struct {
    size_t outstanding;     /* bytes allocated and not freed */
    unsigned long calls;    /* alloc calls, failed ones included */
    unsigned long fail_at;  /* fail the alloc call with this number (1-based); 0: none */
    unsigned long failures; /* alloc calls that were failed */
    unsigned long bad_ctx;  /* calls whose ctx was not this struct */
    unsigned long bad_size; /* frees whose size differs from the alloc's */
} hooks;

static hooks *hooks_expected; /* the ctx the world was given */

static void *hook_alloc(size_t size, void *ctx) {
    hooks *h = (hooks *)ctx;
    unsigned char *p;
    if (ctx != hooks_expected) {
        hooks_expected->bad_ctx++;
        return NULL;
    }
    if (++h->calls == h->fail_at) {
        h->failures++;
        return NULL;
    }
    if (!(p = (unsigned char *)malloc(HEADER + size))) return NULL;
    memcpy(p, &size, sizeof size);
    h->outstanding += size;
    return p + HEADER;
}

static void hook_free(void *ptr, size_t size, void *ctx) {
    hooks *h = (hooks *)ctx;
    unsigned char *p = (unsigned char *)ptr - HEADER;
    size_t given;
    if (ctx != hooks_expected) {
        hooks_expected->bad_ctx++;
        return; /* leaks, and valgrind says so */
    }
    memcpy(&given, p, sizeof given);
    if (given != size) h->bad_size++;
    h->outstanding -= given;
    free(p);
}

static ecs_desc hooked_desc(hooks *h) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    memset(h, 0, sizeof *h);
    hooks_expected = h;
    d.allocator.alloc = hook_alloc;
    d.allocator.free = hook_free;
    d.allocator.ctx = h;
    return d;
}

/* Makes the next alloc call fail (only that one). */
static void fail_next_alloc(hooks *h) { h->fail_at = h->calls + 1; }

/* ---- simple cases ------------------------------------------------------ */

static void test_every_allocation_uses_the_hooks_with_their_ctx(void) {
    hooks h;
    ecs_desc d = hooked_desc(&h);
    ecs_world *w = ecs_world_new(&d);
    ecs_component pos = ECS_COMPONENT(w, Pos), frozen = ECS_TAG(w, "Frozen");
    ecs_entity e[100];
    int i;
    CHECK(w != NULL && h.calls > 0 && h.outstanding > 0);
    for (i = 0; i < 100; i++) {
        e[i] = ecs_create(w);
        ecs_add(w, e[i], pos, NULL);
        if (i % 3 == 0) ecs_add(w, e[i], frozen, NULL);
    }
    for (i = 0; i < 100; i += 2) ecs_destroy(w, e[i]);
    CHECK(ecs_create_bulk(w, 50, 1, &pos, NULL, NULL));
    CHECK(h.bad_ctx == 0 && h.bad_size == 0);
    ecs_world_free(w);
    CHECK_EQ(h.outstanding, 0); /* everything came back */
    CHECK(h.bad_ctx == 0 && h.bad_size == 0);
}

static void test_an_empty_world_frees_what_it_allocated(void) {
    hooks h;
    ecs_desc d = hooked_desc(&h);
    ecs_world *w = ecs_world_new(&d);
    CHECK(w != NULL && h.outstanding > 0);
    ecs_world_free(w);
    CHECK(h.outstanding == 0 && h.bad_size == 0);
    ecs_world_free(NULL); /* ignored */
}

static void test_allocator_needs_both_alloc_and_free(void) {
    hooks h;
    ecs_desc d = hooked_desc(&h);
    d.allocator.free = NULL;
    EXPECT_ASSERT(ecs_world_new(&d) == NULL, "allocator");
    d.allocator.free = hook_free;
    d.allocator.alloc = NULL;
    EXPECT_ASSERT(ecs_world_new(&d) == NULL, "allocator");
    CHECK_EQ(h.outstanding, 0);
}

static void test_world_new_returns_null_when_it_cannot_allocate(void) {
    hooks h;
    ecs_desc d = hooked_desc(&h);
    fail_next_alloc(&h);
    CHECK_PTR_EQ(ecs_world_new(&d), NULL); /* a runtime condition: no assert */
    CHECK(h.failures == 1 && h.outstanding == 0);
}

static void test_a_failed_add_leaves_no_trace_and_a_retry_works(void) {
    hooks h;
    ecs_desc d = hooked_desc(&h);
    ecs_world *w = ecs_world_new(&d);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity e = ecs_create(w);
    Pos v = {1, 2};
    fail_next_alloc(&h);
    CHECK_PTR_EQ(ecs_add(w, e, pos, &v), NULL);
    CHECK_EQ(h.failures, 1);
    CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
    CHECK_PTR_NE(strstr(ecs_last_error_msg(w), "ecs_add"), NULL);
    CHECK(!ecs_has(w, e, pos) && ecs_storage_count(ecs_storage_of(w, pos)) == 0 && ecs_alive(w, e));
    CHECK_PTR_NE(ecs_add(w, e, pos, &v), NULL); /* the allocator healed */
    CHECK(((const Pos *)ecs_get(w, e, pos))->y == 2);
    ecs_world_free(w);
    CHECK_EQ(h.outstanding, 0);
}

static void test_destroy_retires_the_slot_when_the_free_queue_cannot_grow(void) {
    hooks h;
    ecs_desc d = hooked_desc(&h);
    ecs_world *w = ecs_world_new(&d);
    ecs_entity a = ecs_create(w), b = ecs_create(w), c;
    fail_next_alloc(&h); /* the first destroy allocates the free-slot queue */
    CHECK(ecs_destroy(w, a)); /* destroy cannot fail */
    CHECK_EQ(h.failures, 1);
    CHECK(!ecs_alive(w, a) && ecs_count(w) == 1);
    c = ecs_create(w);
    CHECK_EQ(ECS_ENTITY_INDEX(c), 2); /* slot 0 was retired, not queued */
    CHECK(ecs_destroy(w, b));        /* the allocator healed: slot 1 is queued */
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 1);
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(w)), 3); /* slot 0 is never handed out again */
    ecs_world_free(w);
    CHECK_EQ(h.outstanding, 0);
}

/* ecs_destroy_all reserves its records first, as ecs_world_clear does: out
   of memory at any of its allocations, it destroys nothing (not the
   entities before the one whose record could not be made). */
static void test_destroy_all_out_of_memory_destroys_nothing(void) {
    hooks h;
    ecs_desc d = hooked_desc(&h);
    ecs_world *w;
    ecs_component pos, hp;
    ecs_entity e[40];
    unsigned long k, at;
    uint32_t i, n = 0, deleted;
    d.track_entities = true;
    w = ecs_world_new(&d);
    pos = ECS_COMPONENT(w, Pos), hp = ECS_COMPONENT(w, Health);
    ecs_track_set(w, pos, ECS_TRACK_ALL);
    ecs_track_set(w, hp, ECS_TRACK_DELETION);
    for (i = 0; i < 40; i++) {
        e[i] = ecs_create(w);
        ECS_ADD(w, e[i], pos, Pos, {(float)i, 0});
        if (i % 2) ECS_ADD(w, e[i], hp, Health, {(int)i});
    }
    for (k = 1;; k++) {
        at = h.calls;
        h.fail_at = at + k;
        n = ecs_destroy_all(w, pos);
        h.fail_at = 0;
        if (h.calls < at + k || n) break; /* no allocation k, or only the free queue's (a slot retired): through */
        CHECK_EQ(n, 0u);
        CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
        CHECK_EQ(ecs_count(w), 40u);
        for (i = 0; i < 40; i++) CHECK(ecs_alive(w, e[i]) && ecs_has(w, e[i], pos));
        CHECK(ecs_track_deleted(w, pos, 0, &deleted) == NULL || deleted == 0);
    }
    CHECK(k > 1); /* some allocation was failed */
    CHECK_EQ(n, 40u);
    CHECK_EQ(ecs_count(w), 0u);
    ecs_track_deleted(w, hp, 0, &deleted);
    CHECK_EQ(deleted, 20u);
    ecs_world_free(w);
    CHECK_EQ(h.outstanding, 0);
}

/* ---- every allocation fails once --------------------------------------- */
/* A scripted workload runs against a model once per allocation: run k fails
   the k-th alloc call. The call that hits the failure must return its
   failure value with ECS_ERR_OUT_OF_MEMORY (destroy instead succeeds and
   retires the slot), the world must still equal the model, and the same
   call retried with the allocator healed must work. Runs stop when the
   whole workload completes without reaching allocation k. */

enum { POS, HEALTH, FROZEN, NCOMP };
#define BIT(c) (1 << (c))
#define MAX_HANDLES 4200

typedef struct {
    ecs_entity id;
    int alive;
    int has[NCOMP];
    int val[NCOMP]; /* Pos {v, -v}, Health {v}; tags have none */
} m_entity;

typedef struct {
    ecs_component comp[NCOMP];
    int nreg;                     /* comp[0..nreg-1] are registered */
    m_entity e[MAX_HANDLES];      /* by handle: creation order */
    int n, nalive;
    uint32_t retired[8];          /* slots retired by a failed queue growth */
    int nretired;
} model;

static const char *const comp_names[NCOMP] = {"Pos", "Health", "Frozen"};
static const size_t comp_sizes[NCOMP] = {sizeof(Pos), sizeof(Health), 0};

typedef enum { REGISTER, CREATE, ADD, REMOVE, DELETE, STRIP, ADD_N, CREATE_WITH, CREATE_BULK, DESTROY } op;

/* handle: the entity (by creation order; -1: the newest); comps: a
   component or a mask of BIT(c); count: entities; v: the first value */
typedef struct {
    op what;
    int handle, comps, count, v;
} cmd;

static const cmd script[] = {
    {REGISTER, 0, POS, 0, 0},
    {REGISTER, 0, HEALTH, 0, 0},
    {REGISTER, 0, FROZEN, 0, 0},
    {CREATE, 0, 0, 0, 0},
    {CREATE, 0, 0, 0, 0},
    {CREATE, 0, 0, 0, 0},
    {ADD, 0, POS, 0, 1},
    {ADD, 1, POS, 0, 2},
    {ADD, 2, POS, 0, 3},
    {ADD, 0, HEALTH, 0, 10},
    {ADD, 0, FROZEN, 0, 0},
    {ADD, 0, POS, 0, 4}, /* replace */
    {REMOVE, 1, POS, 0, 0},
    {ADD_N, 1, BIT(POS) | BIT(HEALTH) | BIT(FROZEN), 0, 20},
    {ADD_N, 0, BIT(POS) | BIT(HEALTH), 0, 30}, /* replaces both */
    {CREATE_WITH, 0, BIT(POS) | BIT(FROZEN), 0, 40},
    {CREATE_BULK, 0, BIT(POS) | BIT(HEALTH), 20, 50}, /* storages grow */
    {DESTROY, 2, 0, 0, 0},                            /* the free queue appears */
    {DESTROY, 5, 0, 0, 0},
    {DESTROY, 0, 0, 0, 0},
    {CREATE, 0, 0, 0, 0}, /* reuses a slot */
    {CREATE_BULK, 0, BIT(FROZEN), 10, 0},
    {DELETE, 4, HEALTH, 0, 0},
    {STRIP, 6, 0, 0, 0},
    {ADD, 3, HEALTH, 0, 60},
    {CREATE_WITH, 0, 0, 0, 0},
    {CREATE_BULK, 0, 0, ECS__PAGE_SIZE, 0}, /* plain entities into the next page */
    {ADD, -1, POS, 0, 70},                 /* the first row of a new page */
    {ADD_N, -2, BIT(HEALTH) | BIT(FROZEN), 0, 80},
    {DESTROY, 7, 0, 0, 0},
    {ADD, 8, HEALTH, 0, 90},
};
#define NSCRIPT ((int)(sizeof script / sizeof script[0]))

static ecs_entity bulk_out[ECS__PAGE_SIZE + 32];

static void value_of(int c, int v, Pos *p, Health *h, const void **out) {
    p->x = (float)v, p->y = (float)-v;
    h->hp = v;
    *out = c == POS ? (const void *)p : c == HEALTH ? (const void *)h : NULL;
}

static int world_matches_model(ecs_world *w, const model *m) {
    int k, c;
    uint32_t per_comp[NCOMP] = {0, 0, 0};
    if (ecs_count(w) != (uint32_t)m->nalive || ecs_component_max(w) != (uint32_t)m->nreg) {
        printf("  %u entities, %u components; the model has %d, %d\n", (unsigned)ecs_count(w),
               (unsigned)ecs_component_max(w), m->nalive, m->nreg);
        return 0;
    }
    for (c = 0; c < m->nreg; c++)
        if (ecs_lookup(w, comp_names[c]) != m->comp[c]) return 0;
    for (c = m->nreg; c < NCOMP; c++)
        if (ecs_lookup(w, comp_names[c]) != 0) return 0;
    for (k = 0; k < m->n; k++) {
        const m_entity *e = &m->e[k];
        if (ecs_alive(w, e->id) != e->alive) {
            printf("  handle %d: alive should be %d\n", k, e->alive);
            return 0;
        }
        if (!e->alive) continue;
        for (c = 0; c < m->nreg; c++) {
            const void *p = ecs_get(w, e->id, m->comp[c]);
            if ((p != NULL) != e->has[c]) {
                printf("  handle %d: has %s should be %d\n", k, comp_names[c], e->has[c]);
                return 0;
            }
            if (e->has[c] && ((c == POS && ((const Pos *)p)->x != (float)e->val[c]) ||
                              (c == HEALTH && ((const Health *)p)->hp != e->val[c]))) {
                printf("  handle %d: wrong %s value\n", k, comp_names[c]);
                return 0;
            }
            per_comp[c] += (uint32_t)e->has[c];
        }
    }
    for (c = 0; c < m->nreg; c++)
        if (ecs_storage_count(ecs_storage_of(w, m->comp[c])) != per_comp[c]) {
            printf("  storage %s has %u rows; the model %u\n", comp_names[c],
                   (unsigned)ecs_storage_count(ecs_storage_of(w, m->comp[c])), (unsigned)per_comp[c]);
            return 0;
        }
    return 1;
}

/* A new entity must not sit in a retired slot; records it in the model. */
static int model_create(model *m, ecs_entity id, int mask, int v) {
    m_entity *e = &m->e[m->n++];
    int c, r;
    for (r = 0; r < m->nretired; r++)
        if (ECS_ENTITY_INDEX(id) == m->retired[r]) return 0;
    memset(e, 0, sizeof *e);
    e->id = id;
    e->alive = 1;
    for (c = 0; c < NCOMP; c++)
        if (mask & BIT(c)) e->has[c] = 1, e->val[c] = v + c;
    m->nalive++;
    return 1;
}

/* Runs one command. Returns 1 when it succeeded (model updated), 0 when
   an injected failure made it fail (model untouched), -1 on a mismatch. */
static int run_cmd(ecs_world *w, model *m, hooks *h, const cmd *cmd) {
    unsigned long failures = h->failures;
    int k = cmd->handle < 0 ? m->n + cmd->handle : cmd->handle;
    m_entity *e = &m->e[k];
    ecs_component comps[NCOMP];
    const void *values[NCOMP];
    Pos pv[NCOMP];
    Health hv[NCOMP];
    uint32_t n = 0;
    int c, ok = 0, i;
    for (c = 0; c < NCOMP; c++)
        if (cmd->comps & BIT(c)) {
            comps[n] = m->comp[c];
            value_of(c, cmd->v + c, &pv[n], &hv[n], &values[n]);
            n++;
        }
    ecs_clear_error(w);
    switch (cmd->what) {
    case REGISTER:
        c = cmd->comps;
        ok = ecs_register(w, comp_names[c], comp_sizes[c], comp_sizes[c] ? 4 : 0) ==
             (ecs_component)(m->nreg + 1);
        if (ok && h->failures == failures) {
            m->comp[m->nreg] = (ecs_component)(m->nreg + 1);
            m->nreg++;
        }
        break;
    case CREATE: {
        ecs_entity id = ecs_create(w);
        ok = id != ECS_NULL;
        if (ok && h->failures == failures && !model_create(m, id, 0, 0)) return -1;
        break;
    }
    case ADD: {
        Pos p;
        Health hh;
        const void *v;
        c = cmd->comps;
        value_of(c, cmd->v, &p, &hh, &v);
        ok = ecs_add(w, e->id, m->comp[c], v) != NULL;
        if (ok && h->failures == failures) e->has[c] = 1, e->val[c] = cmd->v;
        break;
    }
    case REMOVE: {
        Pos out = {0, 0};
        c = cmd->comps;
        ok = ecs_remove(w, e->id, m->comp[c], &out);
        if (ok && out.x != (float)e->val[c]) return -1;
        if (ok) e->has[c] = 0;
        break;
    }
    case DELETE:
        c = cmd->comps;
        ok = ecs_delete(w, e->id, m->comp[c]);
        if (ok) e->has[c] = 0;
        break;
    case STRIP:
        ok = ecs_strip(w, e->id) == (uint32_t)(e->has[0] + e->has[1] + e->has[2]);
        if (ok) memset(e->has, 0, sizeof e->has);
        break;
    case ADD_N:
        ok = ecs_add_n(w, e->id, n, comps, values);
        if (ok && h->failures == failures)
            for (c = 0; c < NCOMP; c++)
                if (cmd->comps & BIT(c)) e->has[c] = 1, e->val[c] = cmd->v + c;
        break;
    case CREATE_WITH: {
        ecs_entity id = ecs_create_n(w, n, comps, values);
        ok = id != ECS_NULL;
        if (ok && h->failures == failures && !model_create(m, id, cmd->comps, cmd->v)) return -1;
        break;
    }
    case CREATE_BULK:
        ok = ecs_create_bulk(w, (uint32_t)cmd->count, n, comps, values, bulk_out);
        if (ok && h->failures == failures)
            for (i = 0; i < cmd->count; i++)
                if (!model_create(m, bulk_out[i], cmd->comps, cmd->v)) return -1;
        break;
    case DESTROY:
        /* cannot fail; when the free queue cannot grow the slot is retired */
        if (!ecs_destroy(w, e->id)) return -1;
        if (h->failures != failures) m->retired[m->nretired++] = ECS_ENTITY_INDEX(e->id);
        e->alive = 0;
        m->nalive--;
        return 1;
    }
    if (h->failures == failures) return ok ? 1 : -1;
    /* an allocation failed inside the call */
    if (ok || ecs_last_error(w) != ECS_ERR_OUT_OF_MEMORY) {
        printf("  returned %s, error %d after an allocation failed\n", ok ? "success" : "failure",
               (int)ecs_last_error(w));
        return -1;
    }
    return 0;
}

/* One run with the fail_at-th alloc call failing. Returns 1 if the run
   behaved; *reached says whether allocation fail_at happened at all. */
static int run_workload(unsigned long fail_at, int *reached) {
    static model m;
    hooks h;
    ecs_desc d = hooked_desc(&h);
    ecs_world *w;
    int s, r, good = 1;
    memset(&m, 0, sizeof m);
    h.fail_at = fail_at;
    if (!(w = ecs_world_new(&d))) { /* the world itself failed: retry */
        if (h.failures != 1 || h.outstanding != 0) return 0;
        w = ecs_world_new(&d);
    }
    for (s = 0; s < NSCRIPT && good; s++) {
        r = run_cmd(w, &m, &h, &script[s]);
        if (r == 0) { /* failed cleanly: nothing may have changed */
            if (!world_matches_model(w, &m)) r = -1;
            else r = run_cmd(w, &m, &h, &script[s]); /* healed: must work */
        }
        if (r != 1 || !world_matches_model(w, &m)) {
            printf("  fail_at %lu: script step %d went wrong\n", fail_at, s);
            good = 0;
        }
    }
    ecs_world_free(w);
    if (h.outstanding != 0 || h.bad_size || h.bad_ctx) {
        printf("  fail_at %lu: %lu bytes not returned, %lu bad sizes, %lu bad ctx\n", fail_at,
               (unsigned long)h.outstanding, h.bad_size, h.bad_ctx);
        good = 0;
    }
    *reached = h.failures > 0;
    return good;
}

static void test_every_allocation_failure_leaves_the_world_consistent(void) {
    unsigned long k;
    int reached = 1;
    for (k = 1; reached; k++) {
        CHECK(run_workload(k, &reached));
        CHECK_LT(k, 100000);
    }
    /* the workload allocates often enough for this to mean something */
    CHECK_GT(k, 10);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_every_allocation_uses_the_hooks_with_their_ctx);
    RUN(test_an_empty_world_frees_what_it_allocated);
    RUN(test_allocator_needs_both_alloc_and_free);
    RUN(test_world_new_returns_null_when_it_cannot_allocate);
    RUN(test_a_failed_add_leaves_no_trace_and_a_retry_works);
    RUN(test_destroy_retires_the_slot_when_the_free_queue_cannot_grow);
    RUN(test_destroy_all_out_of_memory_destroys_nothing);
    RUN(test_every_allocation_failure_leaves_the_world_consistent);
    return test_summary();
}
