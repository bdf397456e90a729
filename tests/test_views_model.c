/* Views against a naive model. Random sequences of create, bundles, destroy
   (stale ids too), add/replace, remove/delete, strip, add_n, sort, sort_as
   and command-buffer batches run on a world and on a plain array model of
   it; after every few steps random views (required, ECS_NOT, ECS_ANY and
   ECS_OPTIONAL terms, a forced lead, union views) must visit exactly the
   entities a brute-force scan of the model finds, each once, with every
   field pointing at the entity's value: through ecs_iter_next, through
   ecs_iter_next_block and through every chunk of ecs_iter_chunk. The last
   two tests change the world inside the loop, as far as the rules of
   iteration allow (ecs.h sections 4-9).

   make test runs a fixed list of seeds. For more, one seed at a time:
       SEED=123 ./build/plain/test_views_model              (100x the steps)
       SEED=123 STEPS=20000 ./build/plain/test_views_model
   Every failure names its seed and step. */
#include "test.h"
#include "../ecs.h"

typedef int32_t I32;
typedef struct { int32_t a, b; } Pair;
typedef struct { double x, y, z; } Big;
typedef unsigned char Byte;

#define NC 6          /* I32, Pair, Big, Byte and the tags TagA, TagB */
#define VMAX 24       /* the largest component */
#define MAX_LIVE 300  /* the model never holds more live entities */
#define MAX_SLOTS 512 /* entity indices stay below (slots are reused first) */
#define NDEAD 16
#define MAX_CMDS 16
#define WORLD_STEPS 150

static const char *const comp_names[NC] = {"I32", "Pair", "Big", "Byte", "TagA", "TagB"};

/* ---- the model ---------------------------------------------------------- */
/* One record per entity slot: the id that holds it (or last held it), and
   per component a has-flag and the value bytes. live[] lists the slots of
   the live entities in no particular order. */

typedef struct {
    ecs_entity id;
    int alive;
    unsigned char has[NC];
    unsigned char val[NC][VMAX];
} m_slot;

static struct {
    ecs_world *w;
    ecs_component comp[NC];
    size_t size[NC];
    m_slot slot[MAX_SLOTS];
    uint32_t live[MAX_SLOTS];
    int live_at[MAX_SLOTS]; /* position of a live slot in live[] */
    int nlive;
    ecs_entity dead[NDEAD]; /* recently destroyed ids */
    int ndead;
    /* for failure messages */
    unsigned long long seed;
    int step;
    const char *what;
    char view[160];
} m;

static int fail_at(int line, const char *cond) {
    printf("  %s:%d: seed %llu, step %d, %s: %s failed\n", __FILE__, line, m.seed, m.step, m.what, cond);
    if (m.view[0]) printf("    view: %s\n", m.view);
    if (test__asserts) printf("    last ECS_ASSERT: \"%s\"\n", test__assert_msg);
    return 0;
}
/* In the helpers, which return 1 when everything held. */
#define ENSURE(cond)                                  \
    do {                                              \
        if (!(cond)) return fail_at(__LINE__, #cond); \
    } while (0)

/* A view of the random tests: its description and, per term, the model's
   component and the kind of term. */
enum { T_REQ, T_NOT, T_ANY, T_OPT };

typedef struct {
    ecs_view_desc d;
    int n;
    int comp[ECS_MAX_TERMS]; /* the model's component of each term */
    int kind[ECS_MAX_TERMS];
    int nany, is_union;
} vspec;

#include "model.h"

static void m_set(int i, int c, const void *value) {
    m.slot[i].has[c] = 1;
    if (value)
        memcpy(m.slot[i].val[c], value, m.size[c]);
    else
        memset(m.slot[i].val[c], 0, VMAX);
}

static ecs_entity random_stale(void) {
    return m.ndead ? m.dead[test_rand((unsigned)(m.ndead < NDEAD ? m.ndead : NDEAD))] : ECS_NULL;
}

/* A random bundle: n >= 1 distinct components in a random order, each with
   random bytes or NULL (zeroed). */
typedef struct {
    uint32_t n;
    int which[NC];
    ecs_component comps[NC];
    unsigned char vals[NC][VMAX];
    const void *vp[NC];
} bundle;

static void random_bundle(bundle *b) {
    int order[NC], j, t;
    for (j = 0; j < NC; j++) order[j] = j;
    for (j = NC - 1; j > 0; j--) {
        int k = (int)test_rand((unsigned)j + 1);
        t = order[j], order[j] = order[k], order[k] = t;
    }
    b->n = 1 + test_rand(NC);
    for (j = 0; j < (int)b->n; j++) {
        int c = order[j];
        b->which[j] = c;
        b->comps[j] = m.comp[c];
        random_bytes(b->vals[j], m.size[c]);
        b->vp[j] = test_rand(4) ? b->vals[j] : NULL;
    }
}

static void m_apply_bundle(int i, const bundle *b, int null_values) {
    uint32_t j;
    for (j = 0; j < b->n; j++) m_set(i, b->which[j], null_values ? NULL : b->vp[j]);
}

/* Every live entity has exactly the model's components and values, each
   storage holds exactly them, and the stale ids are dead. */
static int world_matches_model(void) {
    uint32_t count[NC] = {0, 0, 0, 0, 0, 0};
    int k, c;
    ENSURE(ecs_count(m.w) == (uint32_t)m.nlive);
    for (k = 0; k < m.nlive; k++) {
        const m_slot *s = &m.slot[m.live[k]];
        ENSURE(ecs_alive(m.w, s->id));
        for (c = 0; c < NC; c++) {
            ENSURE(ecs_has(m.w, s->id, m.comp[c]) == s->has[c]);
            if (s->has[c] && m.size[c])
                ENSURE(memcmp(ecs_get(m.w, s->id, m.comp[c]), s->val[c], m.size[c]) == 0);
            count[c] += s->has[c];
        }
    }
    for (c = 0; c < NC; c++) ENSURE(ecs_storage_count(ecs_storage_of(m.w, m.comp[c])) == count[c]);
    for (k = 0; k < m.ndead && k < NDEAD; k++) ENSURE(slot_of(m.dead[k]) < 0 && !ecs_alive(m.w, m.dead[k]));
    return 1;
}

/* ---- random steps on world and model ----------------------------------- */

typedef struct {
    int c, descending, bad;
} sort_ctx;

/* Few distinct keys, so stability is tested: a value's first byte mod 4, a
   tag's entity index mod 5. */
static int sort_key(const sort_ctx *s, ecs_entity e, const void *v) {
    return m.size[s->c] ? ((const unsigned char *)v)[0] % 4 : (int)(ECS_ENTITY_INDEX(e) % 5);
}

static int by_key(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    sort_ctx *s = (sort_ctx *)ctx;
    int ia = slot_of(a), ib = slot_of(b), tag = m.size[s->c] == 0, ka, kb;
    /* the comparator sees each entity with its own value (NULL for tags) */
    if (ia < 0 || ib < 0 || (va == NULL) != tag || (vb == NULL) != tag ||
        (!tag && (memcmp(va, m.slot[ia].val[s->c], m.size[s->c]) ||
                  memcmp(vb, m.slot[ib].val[s->c], m.size[s->c])))) {
        s->bad = 1;
        return 0;
    }
    ka = sort_key(s, a, va);
    kb = sort_key(s, b, vb);
    return s->descending ? kb - ka : ka - kb;
}

static int step_sort(void) {
    static uint32_t before[MAX_SLOTS];
    sort_ctx s;
    const ecs_entity *ents;
    uint32_t r, n;
    s.c = (int)test_rand(NC);
    s.descending = (int)test_rand(2);
    s.bad = 0;
    n = ecs_storage_count(ecs_storage_of(m.w, m.comp[s.c]));
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[s.c]));
    for (r = 0; r < n; r++) before[ECS_ENTITY_INDEX(ents[r])] = r;
    ENSURE(ecs_sort(m.w, m.comp[s.c], by_key, &s));
    ENSURE(!s.bad);
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[s.c]));
    ENSURE(ecs_storage_count(ecs_storage_of(m.w, m.comp[s.c])) == n);
    for (r = 0; r + 1 < n; r++) {
        const char *data = (const char *)ecs_storage_data(ecs_storage_of(m.w, m.comp[s.c]));
        const void *va = data ? data + r * m.size[s.c] : NULL;
        const void *vb = data ? data + (r + 1) * m.size[s.c] : NULL;
        int cmp = by_key(ents[r], va, ents[r + 1], vb, &s);
        ENSURE(!s.bad && cmp <= 0);
        if (cmp == 0) ENSURE(before[ECS_ENTITY_INDEX(ents[r])] < before[ECS_ENTITY_INDEX(ents[r + 1])]);
    }
    return 1;
}

static int step_sort_as(void) {
    static ecs_entity want[MAX_SLOTS];
    int c = (int)test_rand(NC), o = (int)test_rand(NC);
    uint32_t r, n = 0, no = ecs_storage_count(ecs_storage_of(m.w, m.comp[o])), nc = ecs_storage_count(ecs_storage_of(m.w, m.comp[c]));
    const ecs_entity *order = ecs_storage_entities(ecs_storage_of(m.w, m.comp[o])), *ents;
    for (r = 0; r < no; r++)
        if (m.slot[ECS_ENTITY_INDEX(order[r])].has[c]) want[n++] = order[r];
    ENSURE(ecs_sort_as(m.w, m.comp[c], m.comp[o]));
    ents = ecs_storage_entities(ecs_storage_of(m.w, m.comp[c]));
    ENSURE(ecs_storage_count(ecs_storage_of(m.w, m.comp[c])) == nc);
    for (r = 0; r < n; r++) ENSURE(ents[r] == want[r]); /* the shared ones first, in order's order */
    return 1;
}

/* A batch of commands, recorded, then applied to the model in order when
   ecs_flush applies them to the world. */
typedef struct {
    int op; /* 0 destroy, 1 add, 2 remove, 3 delete */
    ecs_entity e;
    int c;
    int zero;
    unsigned char v[VMAX];
} command;

static int m_apply_commands(const command *cmd, int n, uint32_t applied) {
    uint32_t want = 0;
    int k;
    for (k = 0; k < n; k++) {
        int i = slot_of(cmd[k].e);
        if (i < 0) continue; /* died before its turn: nothing */
        if (cmd[k].op == 0) {
            m_destroy(i);
            want++;
        } else if (cmd[k].op == 1) {
            m_set(i, cmd[k].c, cmd[k].zero ? NULL : cmd[k].v);
            want++;
        } else if (m.slot[i].has[cmd[k].c]) {
            m.slot[i].has[cmd[k].c] = 0;
            want++;
        }
    }
    ENSURE(applied == want);
    ENSURE(ecs_defer_pending(m.w) == 0);
    return 1;
}

static int record_command(command *cmd, ecs_entity e, int op) {
    cmd->op = op;
    cmd->e = e;
    cmd->c = (int)test_rand(NC);
    cmd->zero = test_rand(4) == 0;
    random_bytes(cmd->v, VMAX);
    if (op == 0) return ecs_defer_destroy(m.w, e);
    if (op == 1) return ecs_defer_add(m.w, e, m.comp[cmd->c], cmd->zero ? NULL : cmd->v);
    if (op == 2) return ecs_defer_remove(m.w, e, m.comp[cmd->c]);
    return ecs_defer_delete(m.w, e, m.comp[cmd->c]);
}

static int step_commands(void) {
    command cmd[MAX_CMDS];
    int n = 0, k, total = 1 + (int)test_rand(MAX_CMDS);
    for (k = 0; k < total; k++) {
        int i = random_live();
        ecs_entity e = i >= 0 ? m.slot[i].id : ECS_NULL;
        unsigned op = test_rand(10);
        if (op == 0 && m.nlive < MAX_LIVE) { /* created now, usable at once */
            e = ecs_defer_create(m.w);
            if (!m_create(e)) return 0;
            op = 1 + test_rand(9);
        }
        if (e == ECS_NULL) continue;
        if (op == 1) { /* a stale id: the command does nothing */
            ecs_entity s = random_stale();
            static const int no_add[3] = {0, 2, 3}; /* adding to a dead id asserts */
            if (s) ENSURE(record_command(&cmd[n++], s, no_add[test_rand(3)]));
            continue;
        }
        /* adds only for entities alive now (a dead one asserts at record
           time); they may die before their turn */
        ENSURE(record_command(&cmd[n], e, op <= 3 ? 0 : op <= 6 ? 1 : op <= 8 ? 2 : 3));
        n++;
    }
    ENSURE(ecs_defer_pending(m.w) == (uint32_t)n);
    return m_apply_commands(cmd, n, ecs_flush(m.w));
}

/* One random operation on the world and the model. */
static int step(void) {
    unsigned op = test_rand(m.nlive ? 24 : 3);
    int i = random_live(), c = (int)test_rand(NC);
    ecs_entity e = i >= 0 ? m.slot[i].id : ECS_NULL;
    bundle b;
    if (op <= 2 && m.nlive >= MAX_LIVE) op = 3; /* full: destroy instead */
    switch (op) {
    case 0: /* create */
        return m_create(ecs_create(m.w));
    case 1: { /* create_with: a bundle; the whole values array may be NULL */
        int null_values = test_rand(5) == 0;
        random_bundle(&b);
        e = ecs_create_n(m.w, b.n, b.comps, null_values ? NULL : b.vp);
        if (!m_create(e)) return 0;
        m_apply_bundle((int)ECS_ENTITY_INDEX(e), &b, null_values);
        return 1;
    }
    case 2: { /* create_bulk: many entities filled together, so views find
                 long aligned blocks */
        ecs_entity out[64];
        uint32_t k, count = 1 + test_rand(64);
        if (m.nlive + (int)count > MAX_LIVE) return 1;
        random_bundle(&b);
        ENSURE(ecs_create_bulk(m.w, count, b.n, b.comps, b.vp, out));
        for (k = 0; k < count; k++) {
            if (!m_create(out[k])) return 0;
            m_apply_bundle((int)ECS_ENTITY_INDEX(out[k]), &b, 0);
        }
        return 1;
    }
    case 3:
    case 4: /* destroy */
        ENSURE(ecs_destroy(m.w, e));
        m_destroy(i);
        return 1;
    case 5: { /* destroy a run of entities, to keep the count moving; now
                 and then all of them, and refill with one big bundle: every
                 storage in step, more than 256 rows */
        int k, n = test_rand(8) ? (int)test_rand(40) : m.nlive;
        for (k = 0; k < n && m.nlive; k++) {
            i = random_live();
            ENSURE(ecs_destroy(m.w, m.slot[i].id));
            m_destroy(i);
        }
        if (m.nlive == 0) {
            static ecs_entity out[MAX_LIVE];
            uint32_t count = MAX_LIVE - test_rand(40);
            random_bundle(&b);
            ENSURE(ecs_create_bulk(m.w, count, b.n, b.comps, b.vp, out));
            for (k = 0; k < (int)count; k++) {
                if (!m_create(out[k])) return 0;
                m_apply_bundle((int)ECS_ENTITY_INDEX(out[k]), &b, 0);
            }
        }
        return 1;
    }
    case 6: { /* stale ids miss quietly */
        ecs_entity s = random_stale();
        if (s) {
            ENSURE(!ecs_destroy(m.w, s) && ecs_strip(m.w, s) == 0);
            ENSURE(!ecs_delete(m.w, s, m.comp[c]) && !ecs_remove(m.w, s, m.comp[c], NULL));
            ENSURE(!ecs_has(m.w, s, m.comp[c]) && ecs_get(m.w, s, m.comp[c]) == NULL);
        }
        return 1;
    }
    case 7:
    case 8:
    case 9:
    case 10: { /* add or replace; the value may be NULL, or another entity's
                  value in the same storage (which this add may move) */
        unsigned char v[VMAX];
        const void *src = v;
        int other = random_live();
        random_bytes(v, VMAX);
        if (test_rand(5) == 0) src = NULL;
        if (test_rand(5) == 0 && m.size[c] && m.slot[other].has[c]) {
            src = ecs_get(m.w, m.slot[other].id, m.comp[c]);
            memcpy(v, m.slot[other].val[c], m.size[c]);
        }
        ENSURE(ecs_add(m.w, e, m.comp[c], src) != NULL);
        m_set(i, c, src ? v : NULL);
        return 1;
    }
    case 11:
    case 12: { /* remove hands out the value */
        unsigned char out[VMAX];
        memset(out, 0xee, sizeof out);
        ENSURE(ecs_remove(m.w, e, m.comp[c], out) == m.slot[i].has[c]);
        if (m.slot[i].has[c] && m.size[c]) ENSURE(memcmp(out, m.slot[i].val[c], m.size[c]) == 0);
        m.slot[i].has[c] = 0;
        return 1;
    }
    case 13:
    case 14: /* delete */
        ENSURE(ecs_delete(m.w, e, m.comp[c]) == m.slot[i].has[c]);
        m.slot[i].has[c] = 0;
        return 1;
    case 15: { /* strip */
        uint32_t n = 0;
        for (c = 0; c < NC; c++) n += m.slot[i].has[c];
        ENSURE(ecs_strip(m.w, e) == n && ecs_alive(m.w, e));
        memset(m.slot[i].has, 0, sizeof m.slot[i].has);
        return 1;
    }
    case 16:
    case 17: /* add_n: insert some, replace others */
        random_bundle(&b);
        ENSURE(ecs_add_n(m.w, e, b.n, b.comps, b.vp));
        m_apply_bundle(i, &b, 0);
        return 1;
    case 18:
        return step_sort();
    case 19:
    case 20:
        return step_sort_as();
    default:
        return step_commands();
    }
}

/* ---- random views --------------------------------------------------------- */

/* Union views: only ECS_ANY terms (2-4), sometimes with an ECS_NOT or an
   ECS_OPTIONAL term. Others: 1-4 required terms, 0-2 ECS_NOT, sometimes a
   group of 2-3 ECS_ANY and some ECS_OPTIONAL terms, in a random order, and
   sometimes a forced lead. */
static void random_view(vspec *v, int is_union) {
    static const char *const mark[] = {"", "!", "|", "?"};
    int order[NC], kinds[NC], j, k, t, n = 0, len;
    memset(v, 0, sizeof *v);
    v->is_union = is_union;
    for (j = 0; j < NC; j++) order[j] = j;
    for (j = NC - 1; j > 0; j--) {
        k = (int)test_rand((unsigned)j + 1);
        t = order[j], order[j] = order[k], order[k] = t;
    }
    if (is_union) {
        int nany = 2 + (int)test_rand(3);
        for (j = 0; j < nany; j++) kinds[n++] = T_ANY;
        if (test_rand(3) == 0) kinds[n++] = T_NOT;
        if (test_rand(3) == 0) kinds[n++] = T_OPT;
    } else {
        int nreq = 1 + (int)test_rand(4), nnot = (int)test_rand(3);
        for (j = 0; j < nreq; j++) kinds[n++] = T_REQ;
        for (j = 0; j < nnot && n < NC; j++) kinds[n++] = T_NOT;
        if (n + 2 <= NC && test_rand(2)) {
            int nany = 2 + (int)test_rand(2);
            for (j = 0; j < nany && n < NC; j++) kinds[n++] = T_ANY;
        }
        while (n < NC && test_rand(3) == 0) kinds[n++] = T_OPT;
    }
    for (j = n - 1; j > 0; j--) { /* the order of the terms is random too */
        k = (int)test_rand((unsigned)j + 1);
        t = kinds[j], kinds[j] = kinds[k], kinds[k] = t;
    }
    v->n = n;
    len = sprintf(m.view, "%s[", is_union ? "union " : "");
    for (j = 0; j < n; j++) {
        uint32_t f = kinds[j] == T_NOT   ? ECS_NOT
                     : kinds[j] == T_ANY ? ECS_ANY
                     : kinds[j] == T_OPT ? ECS_OPTIONAL
                                         : 0;
        if (kinds[j] != T_NOT && test_rand(4) == 0) f |= ECS_WRITE;
        v->comp[j] = order[j];
        v->kind[j] = kinds[j];
        v->d.terms[j].c = m.comp[order[j]];
        v->d.terms[j].flags = f;
        v->nany += kinds[j] == T_ANY;
        len += sprintf(m.view + len, "%s%s%s", j ? " " : "", mark[kinds[j]], comp_names[order[j]]);
    }
    if (!is_union && test_rand(3) == 0) {
        do j = (int)test_rand((unsigned)n);
        while (kinds[j] != T_REQ);
        v->d.lead = m.comp[order[j]];
        len += sprintf(m.view + len, "] lead %s", comp_names[order[j]]);
    } else {
        len += sprintf(m.view + len, "]");
    }
    sprintf(m.view + len, ", %d live", m.nlive);
}

/* ecs_view, or for a plain list of required terms now and then the
   shorthand ecs_view_of (the same view). */
static ecs_iter open_view(const vspec *v) {
    ecs_component comps[ECS_MAX_TERMS];
    int k;
    for (k = 0; k < v->n && v->kind[k] == T_REQ; k++) comps[k] = v->d.terms[k].c;
    if (k < v->n || v->d.lead || test_rand(2)) return ecs_view(m.w, &v->d);
    return ecs_view_of(m.w, (uint32_t)v->n, comps);
}

/* The brute-force scan: does model slot i match? */
static int model_matches(const vspec *v, int i) {
    int k, any = 0;
    for (k = 0; k < v->n; k++) {
        int has = m.slot[i].has[v->comp[k]];
        if ((v->kind[k] == T_REQ && !has) || (v->kind[k] == T_NOT && has)) return 0;
        any |= v->kind[k] == T_ANY && has;
    }
    return any || !v->nany;
}

/* The same question asked of the world. */
static int world_matches(const vspec *v, ecs_entity e) {
    int k, any = 0;
    for (k = 0; k < v->n; k++) {
        int has = ecs_has(m.w, e, m.comp[v->comp[k]]);
        if ((v->kind[k] == T_REQ && !has) || (v->kind[k] == T_NOT && has)) return 0;
        any |= v->kind[k] == T_ANY && has;
    }
    return any || !v->nany;
}

/* Every field of the current entity of an ecs_iter_next loop (model slot
   i); ecs_field and the typed ECS_FIELD agree. */
static int fields_are_right(const vspec *v, ecs_iter *it, int i) {
    int k;
    for (k = 0; k < v->n; k++) {
        void *p = ecs_field(it, (uint32_t)k);
        if (!field_is_right(v, k, i, p)) return 0;
        switch (v->comp[k]) {
        case 0: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, I32) == p); break;
        case 1: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, Pair) == p); break;
        case 2: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, Big) == p); break;
        case 3: ENSURE((void *)ECS_FIELD(it, (uint32_t)k, Byte) == p); break;
        default: break;
        }
    }
    return 1;
}

/* The current entity: live, wanted by the scan, seen for the first time. */
static int yield_is_right(const vspec *v, ecs_iter *it, const unsigned char *want, int *seen) {
    int i = slot_of(ecs_iter_entity(it));
    ENSURE(i >= 0);
    ENSURE(want[i]);
    ENSURE(seen[i]++ == 0);
    return fields_are_right(v, it, i);
}

static int run_next(const vspec *v, ecs_iter *it, const unsigned char *want, int *seen) {
    while (ecs_iter_next(it))
        if (!yield_is_right(v, it, want, seen)) return 0;
    return 1;
}

static int run_blocks(const vspec *v, ecs_iter *it, const unsigned char *want, int *seen) {
    while (ecs_iter_next_block(it))
        if (!block_is_right(v, it, want, seen)) return 0;
    return 1;
}

/* One random view, walked every way, against the scan. */
static int view_matches_scan(int is_union) {
    static unsigned char want[MAX_SLOTS];
    static int seen[MAX_SLOTS];
    vspec v;
    ecs_iter it;
    uint32_t nwant = 0, each = 0;
    int k, asserts = test__asserts;
    random_view(&v, is_union);
    memset(want, 0, sizeof want);
    for (k = 0; k < m.nlive; k++) nwant += want[m.live[k]] = (unsigned char)model_matches(&v, (int)m.live[k]);

    m.what = "ecs_iter_next";
    memset(seen, 0, sizeof seen);
    it = open_view(&v);
    if (!run_next(&v, &it, want, seen) || !every_wanted_seen_once(want, seen)) return 0;

    m.what = "ecs_iter_next_block";
    memset(seen, 0, sizeof seen);
    it = open_view(&v);
    if (!run_blocks(&v, &it, want, seen) || !every_wanted_seen_once(want, seen)) return 0;

    if (!is_union) { /* every chunk of K, some walked by blocks: together, each once */
        uint32_t K = 1 + test_rand(7), kk;
        m.what = "ecs_iter_chunk";
        memset(seen, 0, sizeof seen);
        for (kk = 0; kk < K; kk++) {
            it = open_view(&v);
            ENSURE(ecs_iter_chunk(&it, kk, K));
            if (!(test_rand(2) ? run_next(&v, &it, want, seen) : run_blocks(&v, &it, want, seen))) return 0;
        }
        if (!every_wanted_seen_once(want, seen)) return 0;
    }

    m.what = "ecs_visit";
    if (test_rand(4) == 0) ENSURE(ecs_visit(m.w, &v.d, count_each, &each) == nwant && each == nwant);
    ENSURE(test__asserts == asserts);
    m.view[0] = 0;
    return 1;
}

/* ---- changes inside the loop ------------------------------------------------ */
/* Section 7: the loop may change values anywhere, add components to any
   entity, create entities, and remove components from or destroy the
   current entity; changes to other entities go through the command buffer.
   Then every entity is visited at most once and matches when it is
   yielded, entities created in the loop are never visited, and no other
   entity is skipped: one that matched at the start and still matches at
   the end was visited exactly once. A union view walks its ANY storages
   one after the other, so inside its loop only destroying the current
   entity, changing values and deferring are allowed (section 7), and only
   those are drawn. */

static int change_inside_loop(const vspec *v, int is_union, ecs_entity cur, command *cmd, int *ncmd,
                              ecs_entity *born) {
    int nchanges = (int)test_rand(4), j;
    for (j = 0; j < nchanges; j++) {
        int i = slot_of(cur), t = random_live(), c = (int)test_rand(NC);
        unsigned op = test_rand(16);
        unsigned char val[VMAX];
        random_bytes(val, VMAX);
        if (is_union && ((op >= 1 && op <= 10) || (op == 0 && i < 0))) continue; /* only: destroy the current one, defer, set values */
        if (op == 0 && i >= 0) { /* destroy the current entity */
            ENSURE(ecs_destroy(m.w, cur));
            m_destroy(i);
        } else if (op <= 2 && i >= 0) { /* remove one of its components, often one of the view's */
            if (test_rand(2)) c = v->comp[test_rand((unsigned)v->n)];
            if (op == 1)
                ENSURE(ecs_remove(m.w, cur, m.comp[c], val) == m.slot[i].has[c]);
            else
                ENSURE(ecs_delete(m.w, cur, m.comp[c]) == m.slot[i].has[c]);
            m.slot[i].has[c] = 0;
        } else if (op == 3 && i >= 0) { /* strip it */
            uint32_t n = 0;
            for (c = 0; c < NC; c++) n += m.slot[i].has[c];
            ENSURE(ecs_strip(m.w, cur) == n);
            memset(m.slot[i].has, 0, sizeof m.slot[i].has);
        } else if (op <= 7 && t >= 0) { /* add to any entity (or replace) */
            if (test_rand(4) == 0 && i >= 0) t = i;
            ENSURE(ecs_add(m.w, m.slot[t].id, m.comp[c], val) != NULL);
            m_set(t, c, val);
        } else if (op <= 8 && t >= 0) { /* add a bundle to any entity */
            bundle b;
            random_bundle(&b);
            ENSURE(ecs_add_n(m.w, m.slot[t].id, b.n, b.comps, b.vp));
            m_apply_bundle(t, &b, 0);
        } else if (op <= 10 && m.nlive < MAX_LIVE) { /* create, often with the view's components */
            ecs_entity e;
            if (test_rand(2)) {
                bundle b;
                random_bundle(&b);
                e = ecs_create_n(m.w, b.n, b.comps, b.vp);
                if (!m_create(e)) return 0;
                m_apply_bundle((int)ECS_ENTITY_INDEX(e), &b, 0);
            } else {
                e = ecs_create(m.w);
                if (!m_create(e)) return 0;
            }
            born[ECS_ENTITY_INDEX(e)] = e;
        } else if (op <= 12 && t >= 0 && *ncmd < MAX_CMDS) { /* other entities: deferred */
            ENSURE(record_command(&cmd[*ncmd], m.slot[t].id, (int)test_rand(4)));
            ++*ncmd;
        } else if (t >= 0 && m.size[c] && m.slot[t].has[c]) { /* change a value in place */
            memcpy(ecs_get_mut(m.w, m.slot[t].id, m.comp[c]), val, m.size[c]);
            m_set(t, c, val);
        }
    }
    return 1;
}

static int view_with_changes_inside(int is_union) {
    static int seen[MAX_SLOTS];
    static ecs_entity start[MAX_SLOTS], born[MAX_SLOTS];
    command cmd[MAX_CMDS];
    int k, ncmd = 0, asserts = test__asserts;
    vspec v;
    ecs_iter it;
    random_view(&v, is_union);
    memset(seen, 0, sizeof seen);
    memset(start, 0, sizeof start);
    memset(born, 0, sizeof born);
    for (k = 0; k < m.nlive; k++) {
        uint32_t i = m.live[k];
        if (model_matches(&v, (int)i)) start[i] = m.slot[i].id;
    }
    m.what = "changes inside an ecs_iter_next loop";
    for (it = open_view(&v); ecs_iter_next(&it);) {
        int i = slot_of(ecs_iter_entity(&it));
        ENSURE(test__asserts == asserts);
        ENSURE(i >= 0);
        ENSURE(born[i] != ecs_iter_entity(&it)); /* created during the loop */
        ENSURE(seen[i]++ == 0);       /* twice */
        ENSURE(world_matches(&v, ecs_iter_entity(&it)) && model_matches(&v, i));
        if (!fields_are_right(&v, &it, i)) return 0;
        if (!change_inside_loop(&v, is_union, ecs_iter_entity(&it), cmd, &ncmd, born)) return 0;
    }
    ENSURE(test__asserts == asserts);
    for (k = 0; k < m.nlive; k++) { /* nobody skipped */
        uint32_t i = m.live[k];
        if (start[i] == m.slot[i].id && model_matches(&v, (int)i)) ENSURE(seen[i] == 1);
    }
    m.what = "the commands recorded inside the loop";
    ENSURE(ecs_defer_pending(m.w) == (uint32_t)ncmd);
    if (!m_apply_commands(cmd, ncmd, ecs_flush(m.w))) return 0;
    m.view[0] = 0;
    m.what = "the world after the loop";
    return world_matches_model();
}

/* ---- the tests -------------------------------------------------------------- */

/* make test: these seeds, `steps` steps each (about 1 s under valgrind) */
static unsigned long long seeds[] = {1, 2, 3, 20261121};
static int nseeds = (int)(sizeof seeds / sizeof seeds[0]), steps = 120;

static void new_world(void) {
    static const size_t align[NC] = {ECS_ALIGNOF(I32), ECS_ALIGNOF(Pair), ECS_ALIGNOF(Big), 1, 0, 0};
    static const size_t size[NC] = {sizeof(I32), sizeof(Pair), sizeof(Big), sizeof(Byte), 0, 0};
    int c;
    ecs_world_free(m.w);
    memset(m.slot, 0, sizeof m.slot);
    m.nlive = m.ndead = 0;
    m.w = ecs_world_new(NULL);
    for (c = 0; c < NC; c++) {
        m.comp[c] = ecs_register(m.w, comp_names[c], size[c], align[c]);
        m.size[c] = size[c];
    }
}

/* Runs `steps` random steps, in a fresh world every WORLD_STEPS (storages
   never shrink: a young world is where adds move arrays); after every few
   steps, `check`. */
static int run_seed(unsigned long long seed, int (*check)(void)) {
    int ok = 1;
    memset(&m, 0, sizeof m);
    m.seed = seed;
    test_seed(seed);
    for (m.step = 0; ok && m.step < steps; m.step++) {
        if (m.step % WORLD_STEPS == 0) new_world();
        m.what = "a step";
        ok = step();
        if (ok && test_rand(4) == 0) {
            m.what = "the world against the model";
            ok = world_matches_model() && check();
        }
    }
    ecs_world_free(m.w);
    m.w = NULL;
    return ok;
}

static int check_views(void) { return view_matches_scan(0) && view_matches_scan(1); }
static int check_changes(void) { return view_with_changes_inside(0); }
static int check_union_changes(void) { return view_with_changes_inside(1); }

static void test_random_views_visit_exactly_the_entities_a_scan_finds(void) {
    int s;
    for (s = 0; s < nseeds; s++) CHECK(run_seed(seeds[s], check_views));
}

static void test_changes_inside_a_loop_skip_and_repeat_nothing(void) {
    int s;
    for (s = 0; s < nseeds; s++) CHECK(run_seed(seeds[s], check_changes));
}

static void test_changes_inside_a_union_loop_skip_and_repeat_nothing(void) {
    int s;
    for (s = 0; s < nseeds; s++) CHECK(run_seed(seeds[s], check_union_changes));
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    const char *seed = getenv("SEED"), *n = getenv("STEPS");
    int i;
    if (seed) {
        seeds[0] = strtoull(seed, NULL, 0);
        nseeds = 1;
        steps *= 100;
    }
    if (n) steps = atoi(n);
    printf("seeds:");
    for (i = 0; i < nseeds; i++) printf(" %llu", seeds[i]);
    printf(", %d steps each\n", steps);
    fflush(stdout); /* in the log even if a sanitizer ends the process */
    RUN(test_random_views_visit_exactly_the_entities_a_scan_finds);
    RUN(test_changes_inside_a_loop_skip_and_repeat_nothing);
    RUN(test_changes_inside_a_union_loop_skip_and_repeat_nothing);
    return test_summary();
}
