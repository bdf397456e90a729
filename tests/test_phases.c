/* Phases: proposing systems, reducers, deterministic apply (ecs.h section
   16). Every system of a phase reads the world as the phase found it and
   proposes; the proposals of one (component, entity) go to its reducer
   in a fixed order; the phase applies despawns, then reductions, then
   spawns, through the same paths as direct changes - or, on any error,
   nothing at all. */
#include "test.h"
#include "../ecs.h"
#include "../examples/life.h"
#include "../examples/pool.h"

typedef struct { int32_t x, y; } Pos;
typedef struct { int32_t x, y; } Vel;
typedef struct { int32_t v; } Score;

typedef struct fixture {
    ecs_world *w;
    ecs_component pos, vel, score, tag;
    ecs_entity e[8];
    bool tracks_entities;
} fixture;

static void fixture_new(fixture *f, const ecs_desc *desc) {
    uint32_t k;
    memset(f, 0, sizeof *f);
    f->w = ecs_world_new(desc);
    f->tracks_entities = desc && desc->track_entities;
    f->pos = ECS_COMPONENT(f->w, Pos);
    f->vel = ECS_COMPONENT(f->w, Vel);
    f->score = ECS_COMPONENT(f->w, Score);
    f->tag = ecs_register(f->w, "Tag", 0, 1);
    for (k = 0; k < 8; k++) {
        f->e[k] = ecs_create(f->w);
        ECS_ADD(f->w, f->e[k], f->pos, Pos, {(int32_t)k, 0});
        if (k % 2 == 0) ECS_ADD(f->w, f->e[k], f->vel, Vel, {1, (int32_t)k});
    }
}

/* ---- systems the tests share ------------------------------------------- */

/* esc's worked example: every mover proposes its velocity as a delta. */
static int propose_velocity(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    ECS_EACH_VIEW(it, ctx->world, &(ecs_view_desc){.terms = {{f->pos, 0}, {f->vel, 0}}}) {
        const Vel *v = ECS_FIELD(&it, 1, Vel);
        ECS_PROPOSE_SET(ctx->proposals, ecs_iter_entity(&it), f->pos, Pos, {v->x, v->y});
    }
    return 0;
}
static int sum_deltas(const ecs_reduce *r, void *next) {
    Pos *p = (Pos *)next; /* holds the current value */
    uint32_t k;
    for (k = 0; k < r->n; k++) {
        if (!r->changes[k].value) return ECS_REDUCE_REMOVE; /* a removal wins */
        p->x += ((const Pos *)r->changes[k].value)->x;
        p->y += ((const Pos *)r->changes[k].value)->y;
    }
    return ECS_REDUCE_SET;
}

static void test_a_reducer_sums_proposed_deltas_step_after_step(void) {
    fixture f;
    ecs_system_desc sd = {0};
    ecs_phase_desc pd = {0};
    const char *tick[] = {"move"};
    int step;
    fixture_new(&f, NULL);
    pd.name = "move";
    CHECK(ecs_phase_new(f.w, &pd));
    CHECK(ecs_phase_reducer(f.w, "move", f.pos, sum_deltas, NULL));
    sd.name = "velocity";
    sd.fn = propose_velocity;
    sd.user = &f;
    CHECK(ecs_phase_system(f.w, "move", &sd));
    CHECK(ecs_schedule_new(f.w, "tick", 1, tick));
    for (step = 0; step < 3; step++) CHECK_EQ(ecs_schedule_run(f.w, "tick"), 0);
    CHECK_EQ(ECS_GET(f.w, f.e[2], f.pos, Pos)->x, 2 + 3);
    CHECK_EQ(ECS_GET(f.w, f.e[2], f.pos, Pos)->y, 3 * 2);
    CHECK_EQ(ECS_GET(f.w, f.e[1], f.pos, Pos)->x, 1); /* no velocity: no proposal */
    ecs_world_free(f.w);
}

/* ---- order ------------------------------------------------------------- */

typedef struct writer {
    fixture *f;
    int32_t value;
    uint32_t times; /* proposals of its value (value, value + 1, ...) to e[0] */
} writer;
static int write_score(const ecs_system_ctx *ctx) {
    const writer *wr = (const writer *)ctx->user;
    uint32_t k;
    for (k = 0; k < wr->times; k++) ECS_PROPOSE_SET(ctx->proposals, wr->f->e[0], wr->f->score, Score, {wr->value + (int32_t)k});
    return 0;
}
static int32_t seen[16];
static uint32_t nseen;
static int record_order(const ecs_reduce *r, void *next) {
    uint32_t k;
    for (k = 0; k < r->n && nseen < 16; k++) seen[nseen++] = ((const Score *)r->changes[k].value)->v * 10 + (int32_t)r->changes[k].system;
    (void)next;
    return ECS_REDUCE_KEEP;
}

static void add_writers(fixture *f, writer *wr, const char *phase, uint32_t n) {
    uint32_t k;
    for (k = 0; k < n; k++) {
        ecs_system_desc sd = {0};
        char name[2] = {(char)('a' + k), 0};
        sd.name = name;
        sd.fn = write_score;
        sd.user = &wr[k];
        ecs_phase_system(f->w, phase, &sd);
    }
}

static void test_a_reducer_sees_proposals_in_system_order_then_emission_order(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    const char *s[] = {"p"};
    writer wr[2];
    fixture_new(&f, NULL);
    wr[0].f = wr[1].f = &f;
    wr[0].value = 5, wr[0].times = 2;
    wr[1].value = 1, wr[1].times = 1;
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    ecs_phase_reducer(f.w, "p", f.score, record_order, NULL);
    add_writers(&f, wr, "p", 2);
    ecs_schedule_new(f.w, "s", 1, s);
    nseen = 0;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(nseen, 3);
    CHECK_EQ(seen[0], 50); /* system a (0): 5, 6; then system b (1): 1 */
    CHECK_EQ(seen[1], 60);
    CHECK_EQ(seen[2], 11);
    CHECK(!ecs_has(f.w, f.e[0], f.score)); /* KEEP: nothing changed */
    ecs_world_free(f.w);
}

static void test_with_no_reducer_the_last_write_in_that_order_wins(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    const char *s[] = {"p"};
    writer wr[2];
    fixture_new(&f, NULL);
    wr[0].f = wr[1].f = &f;
    wr[0].value = 5, wr[0].times = 2;
    wr[1].value = 1, wr[1].times = 1;
    pd.name = "p"; /* strategy 0: ECS_LAST_WRITE_WINS */
    ecs_phase_new(f.w, &pd);
    add_writers(&f, wr, "p", 2);
    ecs_schedule_new(f.w, "s", 1, s);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(ECS_GET(f.w, f.e[0], f.score, Score)->v, 1); /* system b's, registered last */
    ecs_world_free(f.w);
}

/* Two runs of the same systems, registered in opposite orders, with a
   commutative reducer: the same world. */
static int sum_scores(const ecs_reduce *r, void *next) {
    uint32_t k;
    for (k = 0; k < r->n; k++) ((Score *)next)->v += ((const Score *)r->changes[k].value)->v;
    return ECS_REDUCE_SET;
}
static void test_system_order_does_not_change_a_commutative_result(void) {
    int32_t result[2];
    int run;
    for (run = 0; run < 2; run++) {
        fixture f;
        ecs_phase_desc pd = {0};
        const char *s[] = {"p"};
        writer wr[3];
        uint32_t k;
        fixture_new(&f, NULL);
        for (k = 0; k < 3; k++) {
            wr[run ? 2 - k : k].f = &f;
            wr[run ? 2 - k : k].value = (int32_t)(k + 1) * 100;
            wr[run ? 2 - k : k].times = k + 1;
        }
        pd.name = "p";
        pd.parallel = true;
        ecs_phase_new(f.w, &pd);
        ecs_phase_reducer(f.w, "p", f.score, sum_scores, NULL);
        add_writers(&f, wr, "p", 3);
        ecs_schedule_new(f.w, "s", 1, s);
        CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
        result[run] = ECS_GET(f.w, f.e[0], f.score, Score)->v;
        ecs_world_free(f.w);
    }
    CHECK_EQ(result[0], 100 + (200 + 201) + (300 + 301 + 302));
    CHECK_EQ(result[1], result[0]);
}

/* Systems on a pool, reductions on a pool: the order a reducer sees, and
   so a last-write-wins result, is the same at any thread count. */
static int order_hash(const ecs_reduce *r, void *next) {
    uint32_t k;
    uint32_t h = 0;
    for (k = 0; k < r->n; k++) h = h * 31u + (uint32_t)((const Score *)r->changes[k].value)->v + r->changes[k].system;
    ((Score *)next)->v = (int32_t)(h >> 1);
    return ECS_REDUCE_SET;
}
static int many_writes(const ecs_system_ctx *ctx) {
    const writer *wr = (const writer *)ctx->user;
    uint32_t k, j;
    for (k = 0; k < 200; k++)
        for (j = 0; j < 8; j++) ECS_PROPOSE_SET(ctx->proposals, wr->f->e[j], wr->f->score, Score, {wr->value + (int32_t)k});
    for (j = 0; j < 8; j++) ECS_PROPOSE_SET(ctx->proposals, wr->f->e[j], wr->f->pos, Pos, {wr->value, (int32_t)j});
    return 0;
}
static void test_threads_do_not_change_what_a_reducer_sees_or_which_write_wins(void) {
    int32_t result[4][2];
    uint32_t threads[4] = {0, 1, 2, 4}, t;
    for (t = 0; t < 4; t++) {
        fixture f;
        ecs_desc d = {0};
        ecs_phase_desc pd = {0};
        const char *s[] = {"p"};
        writer wr[6];
        pool *p = threads[t] ? pool_new(threads[t]) : NULL;
        uint32_t k;
        if (p) d.parallel_for = pool_for, d.parallel_user = p;
        fixture_new(&f, &d);
        pd.name = "p";
        pd.parallel = pd.parallel_reduce = true;
        ecs_phase_new(f.w, &pd);
        ecs_phase_reducer(f.w, "p", f.score, order_hash, NULL);
        for (k = 0; k < 6; k++) {
            ecs_system_desc sd = {0};
            char name[2] = {(char)('a' + k), 0};
            wr[k].f = &f;
            wr[k].value = (int32_t)k * 1000;
            sd.name = name, sd.fn = many_writes, sd.user = &wr[k];
            ecs_phase_system(f.w, "p", &sd);
        }
        ecs_schedule_new(f.w, "s", 1, s);
        CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
        result[t][0] = ECS_GET(f.w, f.e[5], f.score, Score)->v;
        result[t][1] = ECS_GET(f.w, f.e[5], f.pos, Pos)->x;
        ecs_world_free(f.w);
        if (p) pool_free(p);
    }
    CHECK_EQ(result[0][1], 5000); /* system f, registered last, wrote last */
    for (t = 1; t < 4; t++) {
        CHECK_EQ(result[t][0], result[0][0]);
        CHECK_EQ(result[t][1], result[0][1]);
    }
}

/* ---- Life: 100 generations against a plain 2-D array ------------------- */

static void life_reference_step(uint8_t *g, uint32_t w, uint32_t h) {
    uint8_t next[48 * 40];
    uint32_t x, y;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            int dx, dy, n = 0;
            for (dy = -1; dy <= 1; dy++)
                for (dx = -1; dx <= 1; dx++)
                    if (dx || dy) n += g[((y + h + (uint32_t)dy) % h) * w + (x + w + (uint32_t)dx) % w];
            next[y * w + x] = (uint8_t)(n == 3 || (g[y * w + x] && n == 2));
        }
    memcpy(g, next, (size_t)w * h);
}

/* threads 0: no parallel_for; else a pool of that many threads. */
static int life_matches_reference(uint32_t threads, uint32_t parts) {
    enum { W = 48, H = 40 };
    uint8_t ref[W * H];
    uint32_t seed = 12345u, i, x, y;
    pool *p = threads ? pool_new(threads) : NULL;
    ecs_desc desc = {0};
    life L;
    int gen, bad = -1;
    for (i = 0; i < W * H; i++) {
        seed = seed * 1664525u + 1013904223u;
        ref[i] = (uint8_t)((seed >> 24) % 3 == 0);
    }
    if (p) {
        desc.parallel_for = pool_for;
        desc.parallel_user = p;
    }
    if (!life_new(&L, &desc, W, H, ref, parts)) return 0;
    for (gen = 1; gen <= 100 && bad < 0; gen++) {
        if (ecs_schedule_run(L.w, "generation") != 0) bad = gen;
        life_reference_step(ref, W, H);
        for (y = 0; y < H && bad < 0; y++)
            for (x = 0; x < W && bad < 0; x++)
                if (life_alive(&L, x, y) != (ref[y * W + x] != 0)) bad = gen;
    }
    life_free(&L);
    if (p) pool_free(p);
    if (bad >= 0) printf("  life (threads %u, parts %u): generation %d differs\n", threads, parts, bad);
    return bad < 0;
}

static void test_life_matches_a_plain_array_for_100_generations_serially(void) {
    CHECK(life_matches_reference(0, 1));
    CHECK(life_matches_reference(0, 7)); /* parts recorded one after the other */
}
static void test_life_matches_a_plain_array_on_1_2_and_4_threads(void) {
    CHECK(life_matches_reference(1, 4));
    CHECK(life_matches_reference(2, 4));
    CHECK(life_matches_reference(4, 16));
}

/* ---- apply order -------------------------------------------------------- */

typedef struct churn {
    fixture *f;
    ecs_entity spawned_hint;
} churn;
static int propose_churn(const ecs_system_ctx *ctx) {
    fixture *f = ((churn *)ctx->user)->f;
    ecs_component bundle[2];
    const void *values[2];
    Pos p = {100, 100};
    Score sc = {7};
    ECS_PROPOSE_SET(ctx->proposals, f->e[3], f->score, Score, {3});  /* e[3] goes too: dropped */
    ecs_propose_despawn(ctx->proposals, f->e[3]);
    ecs_propose_despawn(ctx->proposals, f->e[3]);                    /* twice: once */
    ecs_propose_remove(ctx->proposals, f->e[0], f->vel);
    ecs_propose_set(ctx->proposals, f->e[1], f->tag, NULL);
    bundle[0] = f->pos, bundle[1] = f->score;
    values[0] = &p, values[1] = &sc;
    ecs_propose_spawn(ctx->proposals, 2, bundle, values);
    return 0;
}
static void test_a_phase_applies_despawns_then_reductions_then_spawns(void) {
    fixture f;
    churn ch;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    uint32_t n = 0;
    const ecs_change *created;
    ecs_desc d = {0};
    d.track_entities = true;
    fixture_new(&f, &d);
    ch.f = &f;
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    sd.name = "churn";
    sd.fn = propose_churn;
    sd.user = &ch;
    ecs_phase_system(f.w, "p", &sd);
    ecs_schedule_new(f.w, "s", 1, s);
    CHECK(ecs_track_set(f.w, f.vel, ECS_TRACK_REMOVAL));
    CHECK(ecs_track_set(f.w, f.pos, ECS_TRACK_DELETION));
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK(!ecs_alive(f.w, f.e[3]));
    CHECK(!ecs_has(f.w, f.e[0], f.vel));
    CHECK(ecs_has(f.w, f.e[1], f.tag));
    CHECK_EQ(ecs_count(f.w), 8u); /* 8 - 1 + 1 */
    created = ecs_track_created(f.w, ecs_step_since(f.w), &n);
    CHECK_EQ(n, 1u);
    CHECK_EQ(ECS_GET(f.w, created[0].entity, f.pos, Pos)->x, 100);
    CHECK_EQ(ECS_GET(f.w, created[0].entity, f.score, Score)->v, 7);
    /* the spawn took e[3]'s slot only after it was despawned */
    CHECK(created[0].entity != f.e[3]);
    ecs_track_removed(f.w, f.vel, ecs_step_since(f.w), &n);
    CHECK_EQ(n, 1u);
    ecs_track_deleted(f.w, f.pos, ecs_step_since(f.w), &n);
    CHECK_EQ(n, 1u); /* e[3]'s position went with it */
    ecs_track_destroyed(f.w, ecs_step_since(f.w), &n);
    CHECK_EQ(n, 1u);
    ecs_world_free(f.w);
}

/* ---- what changed: the last step, and this step so far ----------------- */

static ecs_tick modified_seen_in_b;
static int count_modified(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    uint32_t k;
    modified_seen_in_b = 0;
    for (k = 0; k < 8; k++) modified_seen_in_b += ecs_track_modified(ctx->world, f->e[k], f->pos, ecs_step_since(ctx->world));
    return 0;
}
static void test_a_step_s_changes_are_seen_by_later_phases_and_after_it(void) {
    fixture f;
    ecs_phase_desc a = {0}, b = {0};
    ecs_system_desc sa = {0}, sb = {0};
    const char *s[] = {"a", "b"};
    uint32_t k, modified = 0;
    fixture_new(&f, NULL);
    CHECK(ecs_track_set(f.w, f.pos, ECS_TRACK_MODIFICATION));
    a.name = "a", b.name = "b";
    ecs_phase_new(f.w, &a);
    ecs_phase_new(f.w, &b);
    sa.name = "velocity", sa.fn = propose_velocity, sa.user = &f;
    sb.name = "count", sb.fn = count_modified, sb.user = &f;
    ecs_phase_system(f.w, "a", &sa);
    ecs_phase_system(f.w, "b", &sb);
    ecs_schedule_new(f.w, "s", 2, s);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(modified_seen_in_b, 4u); /* phase a moved the 4 movers */
    for (k = 0; k < 8; k++) modified += ecs_track_modified(f.w, f.e[k], f.pos, ecs_step_since(f.w));
    CHECK_EQ(modified, 4u);
    ECS_GET_MUT(f.w, f.e[1], f.pos, Pos)->x = 9; /* after the step: */
    CHECK(ecs_track_modified(f.w, f.e[1], f.pos, ecs_step_since(f.w))); /* (a window, up to now) */
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK(!ecs_track_modified(f.w, f.e[1], f.pos, ecs_step_since(f.w))); /* the next step's window */
    ecs_world_free(f.w);
}

/* ---- conditions ---------------------------------------------------------- */

static bool yes(const ecs_system_ctx *ctx) { (void)ctx; return true; }
static bool no(const ecs_system_ctx *ctx) { (void)ctx; return false; }
static void test_a_system_runs_only_when_its_phase_s_and_its_own_conditions_pass(void) {
    bool (*conds[4][2])(const ecs_system_ctx *) = {{yes, yes}, {yes, no}, {no, yes}, {NULL, NULL}};
    int k;
    for (k = 0; k < 4; k++) {
        fixture f;
        ecs_phase_desc pd = {0};
        ecs_system_desc sd = {0};
        const char *s[] = {"p"};
        fixture_new(&f, NULL);
        pd.name = "p";
        pd.run_if = conds[k][0];
        ecs_phase_new(f.w, &pd);
        ecs_phase_reducer(f.w, "p", f.pos, sum_deltas, NULL);
        sd.name = "velocity", sd.fn = propose_velocity, sd.user = &f, sd.run_if = conds[k][1];
        ecs_phase_system(f.w, "p", &sd);
        ecs_schedule_new(f.w, "s", 1, s);
        CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
        CHECK_EQ(ECS_GET(f.w, f.e[2], f.pos, Pos)->x, k == 0 || k == 3 ? 3 : 2);
        ecs_world_free(f.w);
    }
}

/* ---- exclusive uniques ----------------------------------------------------- */

static int bump_counter(const ecs_system_ctx *ctx) {
    ((Score *)ctx->exclusive)->v++;
    return 0;
}
static int read_counter(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    return ecs_unique_get(ctx->world, f->score) == NULL ? 0 : 1;
}
static int fail_after_bump(const ecs_system_ctx *ctx) {
    (void)ctx;
    return 9;
}
static void test_one_system_may_claim_a_unique_for_the_phase(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc bump = {0}, other = {0};
    const char *s[] = {"p"};
    fixture_new(&f, NULL);
    ECS_UNIQUE_ADD(f.w, f.score, Score, {0});
    CHECK(ecs_track_set(f.w, f.score, ECS_TRACK_MODIFICATION));
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    bump.name = "bump", bump.fn = bump_counter, bump.exclusive = f.score;
    CHECK(ecs_phase_system(f.w, "p", &bump));
    other = bump;
    other.name = "bump2";
    EXPECT_ASSERT(!ecs_phase_system(f.w, "p", &other), "claimed already by system 'bump'");
    other.name = "reader", other.fn = read_counter, other.user = &f, other.exclusive = 0;
    CHECK(ecs_phase_system(f.w, "p", &other));
    ecs_schedule_new(f.w, "s", 1, s);
    EXPECT_ASSERT(ecs_schedule_run(f.w, "s") == 0, "system 'bump' of the running phase claims this unique");
    CHECK_EQ(ECS_UNIQUE_GET(f.w, f.score, Score)->v, 1);
    CHECK(ecs_track_unique_modified(f.w, f.score, ecs_step_since(f.w)));
    ecs_world_free(f.w);
}
static void test_a_failed_phase_gives_the_claimed_unique_its_value_back(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc bump = {0}, fail = {0};
    const char *s[] = {"p"};
    fixture_new(&f, NULL);
    ECS_UNIQUE_ADD(f.w, f.score, Score, {40});
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    bump.name = "bump", bump.fn = bump_counter, bump.exclusive = f.score;
    fail.name = "fail", fail.fn = fail_after_bump;
    ecs_phase_system(f.w, "p", &bump);
    ecs_phase_system(f.w, "p", &fail);
    ecs_schedule_new(f.w, "s", 1, s);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 9);
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_SYSTEM);
    CHECK_STR_EQ(ecs_workload_failed_system(f.w), "fail");
    CHECK(strstr(ecs_last_error_msg(f.w), "phase 'p': system 'fail' returned 9") != NULL);
    CHECK_EQ(ECS_UNIQUE_GET(f.w, f.score, Score)->v, 40);
    ecs_world_free(f.w);
}

/* ---- errors leave the world as it was ----------------------------------- */

/* Everything the tests can see of a fixture's world, as one number. */
static uint64_t digest(const fixture *f) {
    uint64_t h = 1469598103934665603ull;
    uint32_t k, n = 0;
    ecs_component cs[4];
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
    cs[0] = f->pos, cs[1] = f->vel, cs[2] = f->score, cs[3] = f->tag;
    MIX(ecs_count(f->w));
    for (k = 0; k < 8; k++) {
        uint32_t j;
        MIX(ecs_alive(f->w, f->e[k]));
        for (j = 0; j < 4; j++) {
            const unsigned char *v = (const unsigned char *)ecs_get(f->w, f->e[k], cs[j]);
            size_t b;
            MIX(v != NULL);
            for (b = 0; v && j < 3 && b < 8; b++) MIX(v[b % (j == 2 ? 4 : 8)]);
        }
    }
    for (k = 0; k < 4; k++) {
        MIX(ecs_storage_count(ecs_storage_of(f->w, cs[k])));
        if (ecs_track_get(f->w, cs[k]) & ECS_TRACK_REMOVAL) ecs_track_removed(f->w, cs[k], 0, &n), MIX(n);
        if (ecs_track_get(f->w, cs[k]) & ECS_TRACK_DELETION) ecs_track_deleted(f->w, cs[k], 0, &n), MIX(n);
    }
    if (f->tracks_entities) ecs_track_created(f->w, 0, &n), MIX(n);
#undef MIX
    return h;
}

/* Checks inside systems (which return int): counted, then checked. */
static int sys_failed;
#define SYS_CHECK(cond) \
    do { \
        if (!(cond)) printf("  %s:%d: SYS_CHECK(%s) failed\n", __FILE__, __LINE__, #cond), sys_failed++; \
    } while (0)

typedef struct bad {
    fixture *f;
    int what; /* 0 dead entity, 1 unknown component, 2 a size mismatch */
} bad;
static int propose_badly(const ecs_system_ctx *ctx) {
    const bad *b = (const bad *)ctx->user;
    ecs_entity dead = b->f->e[7];
    propose_churn(ctx); /* (valid proposals first: none of them may land) */
    if (b->what == 0) SYS_CHECK(!ecs_propose_set(ctx->proposals, dead, b->f->pos, NULL));
    if (b->what == 1) SYS_CHECK(!ecs_propose_set(ctx->proposals, b->f->e[0], 999, NULL));
    if (b->what == 2) SYS_CHECK(!ECS_PROPOSE_SET(ctx->proposals, b->f->e[0], b->f->pos, Score, {1}));
    SYS_CHECK(!ecs_propose_remove(ctx->proposals, b->f->e[0], b->f->pos)); /* the buffer stays failed */
    return 0;
}

static void run_bad(int what, const char *expect, ecs_error err) {
    fixture f;
    bad b;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    uint64_t before;
    ecs_tick t0;
    ecs_desc d = {0};
    d.track_entities = true;
    fixture_new(&f, &d);
    ecs_track_set(f.w, f.vel, ECS_TRACK_ALL);
    ecs_destroy(f.w, f.e[7]);
    b.f = &f, b.what = what;
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    sd.name = "bad", sd.fn = propose_badly, sd.user = &b;
    ecs_phase_system(f.w, "p", &sd);
    ecs_schedule_new(f.w, "s", 1, s);
    before = digest(&f);
    t0 = ecs_tick_advance(f.w);
    sys_failed = 0;
    EXPECT_ASSERT(ecs_schedule_run(f.w, "s") == -1, expect);
    CHECK_EQ(sys_failed, 0);
    CHECK(ecs_tick_advance(f.w) > t0 + 1); /* only the clock is not undone: the phase's ticks stay taken */
    CHECK_EQ(ecs_last_error(f.w), err);
    CHECK(strstr(ecs_last_error_msg(f.w), "phase 'p', system 'bad'") != NULL);
    CHECK_STR_EQ(ecs_workload_failed_system(f.w), "bad");
    CHECK_EQ(digest(&f), before);
    ecs_world_free(f.w);
}
static void test_a_proposal_for_a_dead_entity_fails_the_phase_and_changes_nothing(void) {
    run_bad(0, "proposal for an entity that is not alive", ECS_ERR_DEAD_ENTITY);
    CHECK(strstr(test__assert_msg, "(entity 7:1") != NULL); /* names the entity */
}
static void test_a_proposal_of_an_unknown_component_fails_the_phase(void) {
    run_bad(1, "proposal of an unknown component", ECS_ERR_UNKNOWN_COMPONENT);
    CHECK(strstr(test__assert_msg, "component #999") != NULL);
}
static void test_a_proposed_value_of_the_wrong_size_fails_the_phase(void) {
    run_bad(2, "sizeof(T) is not the registered size", ECS_ERR_INVALID);
}

static int fail_on_e2(const ecs_reduce *r, void *next) {
    (void)next;
    return r->entity == ((const fixture *)r->user)->e[2] ? -5 : ECS_REDUCE_SET;
}
static void test_a_failing_reducer_fails_the_phase_naming_the_entity(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    uint64_t before;
    fixture_new(&f, NULL);
    pd.name = "p";
    pd.parallel_reduce = true;
    ecs_phase_new(f.w, &pd);
    ecs_phase_reducer(f.w, "p", f.pos, fail_on_e2, &f);
    sd.name = "velocity", sd.fn = propose_velocity, sd.user = &f;
    ecs_phase_system(f.w, "p", &sd);
    ecs_schedule_new(f.w, "s", 1, s);
    before = digest(&f);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), -1);
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_SYSTEM);
    CHECK(strstr(ecs_last_error_msg(f.w), "(entity 2:1, Pos): phase 'p', proposed by system 'velocity': the reducer returned -5") != NULL);
    CHECK_EQ(digest(&f), before);
    ecs_world_free(f.w);
}

static void test_under_reducer_required_a_component_with_no_reducer_fails_the_phase(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    uint64_t before;
    fixture_new(&f, NULL);
    pd.name = "p";
    pd.strategy = ECS_REDUCER_REQUIRED;
    ecs_phase_new(f.w, &pd);
    sd.name = "velocity", sd.fn = propose_velocity, sd.user = &f;
    ecs_phase_system(f.w, "p", &sd);
    ecs_schedule_new(f.w, "s", 1, s);
    before = digest(&f);
    EXPECT_ASSERT(ecs_schedule_run(f.w, "s") == -1, "(ECS_REDUCER_REQUIRED), proposed by system 'velocity': no reducer");
    CHECK(strstr(test__assert_msg, "(entity 0:1, Pos)") != NULL);
    CHECK_EQ(digest(&f), before);
    CHECK(ecs_phase_reducer(f.w, "p", f.pos, sum_deltas, NULL));
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    ecs_world_free(f.w);
}

/* ---- the world is read-only while a phase's systems run ---------------- */

static int try_to_write(const ecs_system_ctx *ctx);
static int by_x(ecs_entity ea, const void *a, ecs_entity eb, const void *b, void *ctx) {
    (void)ea, (void)eb, (void)ctx;
    return (((const Pos *)a)->x > ((const Pos *)b)->x) - (((const Pos *)a)->x < ((const Pos *)b)->x);
}
/* The rest of section 2's row for a phase system: every call that changes
   the world, or what is attached to its storages, is refused with a
   message that says why (a phase's systems run, not a hook). */
static bool refused_for_phase(ecs_world *w, bool failed, const char *call) {
    const char *m = ecs_last_error_msg(w);
    bool ok = failed && (ecs_last_error(w) == ECS_ERR_LOCKED || ecs_last_error(w) == ECS_ERR_INVALID) &&
              strncmp(m, call, strlen(call)) == 0 &&
              (strstr(m, "a phase's system") || strstr(m, "a workload or schedule is already running"));
    if (!ok) printf("  %s: %s\n", call, m);
    ecs_clear_error(w);
    return ok;
}
static bool try_to_change_the_setup(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    ecs_world *w = ctx->world;
    ecs_group_desc g = {{0}, {0}};
    ecs_index_desc ix = {0};
    ecs_hooks h = {0};
    ecs_system_desc sd = {0};
    ecs_phase_desc pd = {0};
    unsigned char snap[8] = {0};
    int ok = 0, before = test__asserts;
    g.owned[0] = f->pos, g.owned[1] = f->vel;
    ix.c = f->pos, ix.size = sizeof(float), ix.kind = ECS_KEY_FLOAT, ix.ordered = true;
    sd.name = "new", sd.fn = try_to_write;
    pd.name = "new";
    ok += refused_for_phase(w, ecs_clone(w, f->e[0]) == ECS_NULL, "ecs_clone(entity 0:1)");
    ok += refused_for_phase(w, ecs_world_clear(w) == 0, "ecs_world_clear");
    ok += refused_for_phase(w, !ecs_serial_set(w, f->pos, NULL), "ecs_serial_set(Pos)");
    ok += refused_for_phase(w, !ecs_component_print_set(w, f->pos, NULL), "ecs_component_print_set(Pos)");
    ok += refused_for_phase(w, !ecs_workload_set_default(w, NULL), "ecs_workload_set_default");
    /* (names the entity it was given, and no component: the phase refuses, not a storage) */
    ok += refused_for_phase(w, ecs_strip(w, f->e[0]) == 0 && !strstr(ecs_last_error_msg(w), "Pos"), "ecs_strip(entity 0:1):");
    ok += refused_for_phase(w, ecs_destroy_all(w, f->vel) == 0, "ecs_destroy_all");
    ok += refused_for_phase(w, !ecs_track_set(w, f->pos, ECS_TRACK_ALL), "ecs_track_set(Pos)");
    ecs_track_clear(w, 0, ECS_TRACK_ALL);
    ok += refused_for_phase(w, true, "ecs_track_clear");
    ok += refused_for_phase(w, !ecs_sort(w, f->pos, by_x, NULL), "ecs_sort(Pos)");
    ok += refused_for_phase(w, ecs_group_new(w, &g) == 0, "ecs_group_new(Pos)");
    ok += refused_for_phase(w, ecs_index_new(w, &ix) == 0, "ecs_index_new(Pos)");
    ok += refused_for_phase(w, !ecs_hooks_set(w, f->pos, &h), "ecs_hooks_set(Pos)");
    ok += refused_for_phase(w, !ecs_reserve(w, 100), "ecs_reserve");
    ok += refused_for_phase(w, !ecs_storage_reserve(ecs_storage_of_mut(w, f->pos), 100), "ecs_storage_reserve(Pos)");
    ok += refused_for_phase(w, ecs_flush(w) == 0, "ecs_flush");
    ok += refused_for_phase(w, !ecs_load(w, snap, sizeof snap), "ecs_load");
    ok += refused_for_phase(w, !ecs_system_new(w, &sd), "ecs_system_new");
    ok += refused_for_phase(w, !ecs_phase_new(w, &pd), "ecs_phase_new");
    test__expected += test__asserts - before; /* (each asserts: counted by the test) */
    return ok == 19 && test__asserts - before == 19;
}
static int try_to_write(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    ecs_world *w = ctx->world;
    int refused = 0;
    refused += ECS_ADD(w, f->e[1], f->vel, Vel, {0, 0}) == NULL;  /* an insertion */
    refused += !ecs_remove(w, f->e[0], f->vel, NULL);
    refused += ecs_create(w) == ECS_NULL;
    refused += !ecs_destroy(w, f->e[5]);
    refused += !ecs_defer_destroy(w, f->e[5]);
    refused += ecs_unique_get_mut(w, f->score) == NULL;
    refused += ecs_workload_run(w, NULL) == -1;
    refused += ecs_schedule_run(w, "s") == -1;
    refused += ecs_register(w, "Late", 4, 4) == 0;                /* a new component: its storage unlocked */
    refused += ecs_register(w, "Pos", sizeof(Pos), 4) == f->pos;  /* (an existing one is only looked up) */
    refused += ecs_query_new(w, "Q", &(ecs_view_desc){.terms = {{f->pos, 0}}}) == 0;
    refused += ecs_create_id(w, ((ecs_entity)1 << 32) | 100) == ECS_NULL;
    refused += ecs_tick_advance(w) == 0;
    ecs_shrink(w); /* (moves arrays other systems may be reading) */
    refused += ecs_last_error(w) == ECS_ERR_LOCKED && strstr(ecs_last_error_msg(w), "ecs_shrink: a phase's systems") != NULL;
    return refused == 14 && try_to_change_the_setup(ctx) ? 0 : 1;
}
static void test_a_phase_system_that_writes_the_world_directly_is_refused(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    fixture_new(&f, NULL);
    ECS_UNIQUE_ADD(f.w, f.score, Score, {1});
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    sd.name = "writer", sd.fn = try_to_write, sd.user = &f;
    ecs_phase_system(f.w, "p", &sd);
    ecs_schedule_new(f.w, "s", 1, s);
    test__asserts = 0;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(test__asserts, 13 + 19); /* one assert each (the 19 of the setup counted there) */
    test__expected += 13;
    {
        ecs_component late = ecs_register(f.w, "Late", 4, 4); /* after the phase: a storage like any */
        int32_t v = 1;
        CHECK(late != 0 && ecs_add(f.w, f.e[1], late, &v) != NULL);
    }
    CHECK(ecs_alive(f.w, f.e[5]));
    CHECK(ecs_has(f.w, f.e[0], f.vel));
    CHECK(!ecs_has(f.w, f.e[1], f.vel));
    CHECK_EQ(ecs_count(f.w), 8u);
    CHECK_EQ(ecs_defer_pending(f.w), 0u);
    ecs_world_free(f.w);
}

/* The schedule "s" of one phase "p" with one system (and c's reducer when
   reduce is set). */
static bool one_phase(fixture *f, const char *name, ecs_system_fn fn, ecs_component c, ecs_reducer_fn reduce) {
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    pd.name = "p";
    sd.name = name, sd.fn = fn, sd.user = f;
    return ecs_phase_new(f->w, &pd) && (!reduce || ecs_phase_reducer(f->w, "p", c, reduce, NULL)) &&
           ecs_phase_system(f->w, "p", &sd) && ecs_schedule_new(f->w, "s", 1, s);
}

/* A reducer reads proposed values in place: they are aligned as any
   component may need (here 16 bytes, ECS_MAX_ALIGN on 64-bit). */
typedef struct Wide {
    long double v;
} Wide;
static ecs_component wide_c;
static int propose_wide(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    Wide x;
    x.v = 1.5L;
    return !ecs_propose_set(ctx->proposals, f->e[0], wide_c, &x) || !ecs_propose_set(ctx->proposals, f->e[0], wide_c, &x);
}
static int misaligned;
static int sum_wide(const ecs_reduce *r, void *next) {
    uint32_t k;
    for (k = 0; k < r->n; k++) {
        misaligned += ((uintptr_t)r->changes[k].value % ECS_ALIGNOF(Wide)) != 0;
        ((Wide *)next)->v += ((const Wide *)r->changes[k].value)->v;
    }
    return ECS_REDUCE_SET;
}
static void test_a_reducer_reads_proposed_values_aligned_for_their_component(void) {
    fixture f;
    fixture_new(&f, NULL);
    CHECK((wide_c = ecs_register(f.w, "Wide", sizeof(Wide), ECS_ALIGNOF(Wide))) != 0);
    CHECK(one_phase(&f, "wide", propose_wide, wide_c, sum_wide));
    misaligned = 0;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(misaligned, 0);
    CHECK(((const Wide *)ecs_get(f.w, f.e[0], wide_c))->v == 3.0L);
    ecs_world_free(f.w);
}

/* A spawn bundle with a cached query's tag is a bad proposal: the phase
   fails and nothing of it is applied. */
static ecs_component spawn_tag;
static int spawn_the_tag(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    ECS_PROPOSE_SET(ctx->proposals, f->e[0], f->pos, Pos, {42, 0});
    ecs_propose_spawn(ctx->proposals, 1, &spawn_tag, NULL); /* (refused: the phase fails) */
    return 0;
}
static void test_a_spawn_of_a_cached_query_s_tag_fails_the_phase(void) {
    fixture f;
    fixture_new(&f, NULL);
    CHECK((spawn_tag = ecs_query_new(f.w, "Moving", &(ecs_view_desc){.terms = {{f.pos, 0}, {f.vel, 0}}})) != 0);
    CHECK(one_phase(&f, "spawner", spawn_the_tag, 0, NULL));
    EXPECT_ASSERT(ecs_schedule_run(f.w, "s") != 0, "a cached query's tag");
    CHECK_EQ(ECS_GET(f.w, f.e[0], f.pos, Pos)->x, 0);
    CHECK_EQ(ecs_count(f.w), 8u);
    ecs_world_free(f.w);
}

/* A phase's changes are stamped after its systems ran: each system sees,
   at its next run, what its own phase applied. */
static int seen_modified;
static int watch_pos(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    ecs_view_desc d;
    memset(&d, 0, sizeof d);
    d.terms[0] = (ecs_term){f->pos, ECS_MODIFIED};
    d.since = ctx->last_run;
    ECS_EACH_VIEW(it, ctx->world, &d) seen_modified++;
    return 0;
}
static void test_a_system_sees_what_its_own_phase_applied(void) {
    fixture f;
    ecs_system_desc sd = {0};
    int step;
    fixture_new(&f, NULL);
    CHECK(ecs_track_set(f.w, f.pos, ECS_TRACK_MODIFICATION));
    CHECK(one_phase(&f, "velocity", propose_velocity, f.pos, sum_deltas));
    sd.name = "watcher", sd.fn = watch_pos, sd.user = &f;
    CHECK(ecs_phase_system(f.w, "p", &sd));
    seen_modified = 0;
    for (step = 0; step < 3; step++) CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(seen_modified, 2 * 4); /* the 4 movers, at the 2nd and 3rd runs */
    ecs_world_free(f.w);
}

/* A unique tag (no bytes) claimed by a system of a phase that fails: the
   claim gives back nothing, and nothing is read to do so. */
static int claim_and_fail(const ecs_system_ctx *ctx) { return ctx->exclusive ? 1 : 2; }
static void test_a_failed_phase_that_claimed_a_unique_tag_gives_back_nothing(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component t = ecs_register(w, "Paused", 0, 0);
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    CHECK(ecs_unique_add(w, t, NULL) != NULL);
    pd.name = "p";
    CHECK(ecs_phase_new(w, &pd));
    sd.name = "claims", sd.fn = claim_and_fail, sd.exclusive = t;
    CHECK(ecs_phase_system(w, "p", &sd));
    CHECK(ecs_schedule_new(w, "s", 1, s));
    CHECK_EQ(ecs_schedule_run(w, "s"), 1); /* (UBSan: no memcpy from NULL) */
    CHECK(ecs_unique_has(w, t));
    ecs_world_free(w);
}

/* ---- hooks and groups see a phase's changes as direct ones -------------- */

static int inserted_hooks, replaced_hooks, removed_hooks;
static void on_insert(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) { (void)w, (void)e, (void)c, (void)v, (void)u; inserted_hooks++; }
static void on_replace(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) { (void)w, (void)e, (void)c, (void)v, (void)u; replaced_hooks++; }
static void on_remove(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) { (void)w, (void)e, (void)c, (void)v, (void)u; removed_hooks++; }
static int give_everyone_velocity(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    uint32_t k;
    for (k = 0; k < 8; k++) ECS_PROPOSE_SET(ctx->proposals, f->e[k], f->vel, Vel, {2, 2});
    ecs_propose_remove(ctx->proposals, f->e[6], f->pos);
    return 0;
}
static void test_hooks_and_groups_follow_a_phase_s_changes(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    ecs_group_desc gd = {{0}, {0}};
    ecs_hooks h = {0};
    const char *s[] = {"p"};
    ecs_group g;
    fixture_new(&f, NULL);
    h.on_insert = on_insert, h.on_replace = on_replace, h.on_remove = on_remove;
    ecs_hooks_set(f.w, f.vel, &h);
    ecs_hooks_set(f.w, f.pos, &h);
    gd.owned[0] = f.pos, gd.owned[1] = f.vel;
    g = ecs_group_new(f.w, &gd);
    CHECK_EQ(ecs_group_count(f.w, g), 4u);
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    sd.name = "all", sd.fn = give_everyone_velocity, sd.user = &f;
    ecs_phase_system(f.w, "p", &sd);
    ecs_schedule_new(f.w, "s", 1, s);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(inserted_hooks, 4);
    CHECK_EQ(replaced_hooks, 4);
    CHECK_EQ(removed_hooks, 1);
    CHECK_EQ(ecs_group_count(f.w, g), 7u); /* all 8 have both, but e[6] lost Pos */
    ecs_world_free(f.w);
}

/* Commands that hooks of a phase's apply record are flushed after it, as
   after a workload's batch: the next phase sees them. */
static ecs_component tag_of_new_velocity;
static uint32_t tagged_seen;
static void tag_on_insert(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) {
    (void)c, (void)v, (void)u;
    ecs_defer_add(w, e, tag_of_new_velocity, NULL);
}
static int count_tagged(const ecs_system_ctx *ctx) {
    tagged_seen = ecs_storage_count(ecs_storage_of(ctx->world, tag_of_new_velocity));
    return 0;
}
static void test_commands_hooks_record_in_an_apply_are_flushed_before_the_next_phase(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    ecs_hooks h = {0};
    const char *s[] = {"give", "count"};
    uint32_t k;
    fixture_new(&f, NULL);
    tag_of_new_velocity = f.tag;
    h.on_insert = tag_on_insert;
    ecs_hooks_set(f.w, f.vel, &h);
    pd.name = "give";
    ecs_phase_new(f.w, &pd);
    pd.name = "count";
    ecs_phase_new(f.w, &pd);
    sd.name = "all", sd.fn = give_everyone_velocity, sd.user = &f;
    ecs_phase_system(f.w, "give", &sd);
    sd.name = "count", sd.fn = count_tagged;
    ecs_phase_system(f.w, "count", &sd);
    ecs_schedule_new(f.w, "s", 2, s);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(tagged_seen, 4u); /* the 4 that got Vel in "give", tagged before "count" ran */
    CHECK_EQ(ecs_defer_pending(f.w), 0u);
    for (k = 0; k < 8; k++) CHECK_EQ(ecs_has(f.w, f.e[k], f.tag), k % 2 == 1);
    ecs_world_free(f.w);
}

/* ---- out of memory at every allocation of a phase ------------------------ */

typedef struct counting {
    unsigned long calls, fail_at;
} counting;
static void *counting_alloc(size_t size, void *ctx) {
    counting *c = (counting *)ctx;
    return ++c->calls == c->fail_at ? NULL : malloc(size);
}
static void counting_free(void *p, size_t size, void *ctx) {
    (void)size, (void)ctx;
    free(p);
}
/* A phase system's refused destroy takes no memory first (with created and
   destroyed entities tracked, a destroy reserves its record): it is
   refused before anything, and the refusal is IN_PHASE, not an out of
   memory that would hide the mistake. */
static counting destroy_count;
static int destroy_in_phase(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    unsigned long before = destroy_count.calls;
    bool refused = !ecs_destroy(ctx->world, f->e[1]);
    return refused && destroy_count.calls == before && ecs_last_error(ctx->world) == ECS_ERR_LOCKED ? 0 : 1;
}
static void test_a_refused_destroy_in_a_phase_allocates_nothing(void) {
    fixture f;
    ecs_desc d;
    memset(&d, 0, sizeof d);
    d.track_entities = true;
    d.allocator.alloc = counting_alloc, d.allocator.free = counting_free, d.allocator.ctx = &destroy_count;
    fixture_new(&f, &d);
    CHECK(one_phase(&f, "destroyer", destroy_in_phase, 0, NULL));
    test__asserts = 0;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(test__asserts, 1);
    test__expected++;
    CHECK(ecs_alive(f.w, f.e[1]));
    ecs_world_free(f.w);
}

static void test_out_of_memory_anywhere_in_a_phase_changes_nothing(void) {
    unsigned long at;
    uint64_t expected = 0;
    int failures = 0;
    for (at = 0;; at++) {
        counting cnt = {0, 0};
        fixture f;
        churn ch;
        ecs_desc d = {0};
        ecs_phase_desc pd = {0};
        ecs_system_desc sa = {0}, sb = {0};
        const char *s[] = {"p"};
        uint64_t before;
        int rc;
        bool reached;
        d.allocator.alloc = counting_alloc;
        d.allocator.free = counting_free;
        d.allocator.ctx = &cnt;
        d.track_entities = true;
        fixture_new(&f, &d);
        ecs_track_set(f.w, f.vel, ECS_TRACK_ALL);
        ecs_track_set(f.w, f.pos, ECS_TRACK_ALL);
        ch.f = &f;
        pd.name = "p";
        ecs_phase_new(f.w, &pd);
        ecs_phase_reducer(f.w, "p", f.pos, sum_deltas, NULL);
        sa.name = "churn", sa.fn = propose_churn, sa.user = &ch;
        sb.name = "all", sb.fn = give_everyone_velocity, sb.user = &f;
        ecs_phase_system(f.w, "p", &sa);
        ecs_phase_system(f.w, "p", &sb);
        CHECK(ecs_schedule_new(f.w, "s", 1, s));
        before = digest(&f);
        cnt.fail_at = at ? cnt.calls + at : 0;
        rc = ecs_schedule_run(f.w, "s");
        if (!at) {
            CHECK_EQ(rc, 0);
            expected = digest(&f);
        } else if (rc) {
            CHECK_EQ(ecs_last_error(f.w), ECS_ERR_OUT_OF_MEMORY);
            CHECK_EQ(digest(&f), before);
            failures++;
        } else {
            CHECK_EQ(digest(&f), expected);
        }
        reached = cnt.calls >= cnt.fail_at;
        cnt.fail_at = 0;
        ecs_world_free(f.w);
        if (at && !reached) break; /* past the last allocation of the run */
    }
    CHECK(failures >= 5);
    printf("  (%d allocations of the phase failed in turn)\n", failures);
}

/* All-or-nothing holds for the phase's own changes, not for what hooks do
   with them: room is reserved for every outcome before the apply, but a
   hook that runs in the apply can use it up. A later change of the phase
   that then runs out of memory is reported, ecs_schedule_run returns -1,
   and what was applied stays. Here the despawn of e[7] runs a hook that
   fills Score's rows to the last reserved one; the reduction that gives
   e[0] a Score then needs more, and the allocator has none left. */
static budget *hook_budget;
static fixture *hook_f;
static void fill_score_rows(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) {
    ecs_storage_stats st;
    uint32_t k;
    (void)e, (void)c, (void)v, (void)u;
    for (k = 1;; k++) { /* e[1], then new entities */
        CHECK_EQ(ecs_storage_stats_get(ecs_storage_of(w, hook_f->score), &st), true);
        if (st.rows == st.capacity) break;
        CHECK(ECS_ADD(w, k == 1 ? hook_f->e[1] : ecs_create(w), hook_f->score, Score, {(int32_t)k}) != NULL);
    }
    CHECK_EQ(ecs_storage_stats_get(ecs_storage_of(w, hook_f->score), &st), true);
    CHECK_EQ(st.rows, st.capacity); /* the reserved row is taken */
    hook_budget->left = 0; /* and allocations fail from here on */
}
static int score_e0_despawn_e7(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    return !ECS_PROPOSE_SET(ctx->proposals, f->e[0], f->score, Score, {99}) || !ecs_propose_despawn(ctx->proposals, f->e[7]);
}
static void test_a_hook_that_uses_the_phase_s_room_makes_a_later_change_fail_reported(void) {
    budget b = {-1};
    fixture f;
    ecs_desc d = {0};
    ecs_hooks h = {0};
    d.allocator.alloc = budget_alloc, d.allocator.free = budget_free, d.allocator.ctx = &b;
    fixture_new(&f, &d);
    hook_budget = &b, hook_f = &f;
    h.on_remove = fill_score_rows;
    ecs_hooks_set(f.w, f.pos, &h);
    CHECK(one_phase(&f, "score", score_e0_despawn_e7, 0, NULL));
    CHECK_EQ(ecs_schedule_run(f.w, "s"), -1);
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_OUT_OF_MEMORY);
    CHECK(!ecs_alive(f.w, f.e[7]));                    /* the despawn stays applied */
    CHECK(!ecs_has(f.w, f.e[0], f.score));             /* the reduction that failed is not */
    CHECK(ecs_has(f.w, f.e[1], f.score));              /* what the hook did stays */
    b.left = -1;
    h.on_remove = NULL;
    ecs_hooks_set(f.w, f.pos, &h);
    ecs_world_free(f.w);
}

/* A system's non-zero result is the step's, whatever its value: -2 (or
   -1) as any other, with the claimed unique given back. */
static int bump_and_return_minus_2(const ecs_system_ctx *ctx) {
    ((Score *)ctx->exclusive)->v += 100;
    return -2;
}
static void test_a_system_result_of_minus_2_fails_the_phase_as_any_other(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *s[] = {"p"};
    ecs_tick before;
    fixture_new(&f, NULL);
    ECS_UNIQUE_ADD(f.w, f.score, Score, {7});
    CHECK(ecs_track_set(f.w, f.score, ECS_TRACK_MODIFICATION));
    pd.name = "p";
    ecs_phase_new(f.w, &pd);
    sd.name = "sys", sd.fn = bump_and_return_minus_2, sd.exclusive = f.score;
    ecs_phase_system(f.w, "p", &sd);
    ecs_schedule_new(f.w, "s", 1, s);
    before = ecs_tick_advance(f.w);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), -2);
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_SYSTEM);
    CHECK_EQ(ECS_UNIQUE_GET(f.w, f.score, Score)->v, 7);              /* given back */
    CHECK(!ecs_track_unique_modified(f.w, f.score, before));         /* and not stamped */
    ecs_world_free(f.w);
}

/* The claim holds while the phase's systems run and its reducers, not
   while the conditions are asked: a run_if may read the unique, whether
   the claimant runs this step or not. */
static int claimant_runs;
static bool claimant_condition(const ecs_system_ctx *ctx) { (void)ctx; return claimant_runs != 0; }
static int reads_seen;
static const fixture *reader_f;
static bool reads_the_unique(const ecs_system_ctx *ctx) {
    reads_seen += ecs_unique_get(ctx->world, reader_f->score) != NULL;
    return true;
}
static int do_nothing(const ecs_system_ctx *ctx) { (void)ctx; return 0; }
static void test_the_conditions_may_read_a_claimed_unique_at_every_step(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc reader = {0}, claimant = {0};
    const char *s[] = {"p"};
    int step;
    fixture_new(&f, NULL);
    ECS_UNIQUE_ADD(f.w, f.score, Score, {0});
    reader_f = &f;
    pd.name = "p", pd.run_if = reads_the_unique;
    ecs_phase_new(f.w, &pd);
    reader.name = "reader", reader.fn = do_nothing, reader.run_if = reads_the_unique;
    claimant.name = "claimant", claimant.fn = bump_counter, claimant.run_if = claimant_condition;
    claimant.exclusive = f.score;
    ecs_phase_system(f.w, "p", &reader); /* (asked before the claimant is) */
    ecs_phase_system(f.w, "p", &claimant);
    ecs_schedule_new(f.w, "s", 1, s);
    reads_seen = 0;
    for (step = 0; step < 4; step++) {
        claimant_runs = step % 2;
        CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    }
    CHECK_EQ(reads_seen, 8); /* the phase's and the reader's, 4 times, never refused */
    CHECK_EQ(ECS_UNIQUE_GET(f.w, f.score, Score)->v, 2);
    ecs_world_free(f.w);
}

/* Only a running phase system proposes: the same buffer kept and used
   from a hook in the apply, or from a reducer, is refused (its records
   are being read), as is a split into 0 parts. */
static ecs_proposals *kept;
static int keep_and_propose(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    SYS_CHECK(!ecs_proposals_split(ctx->proposals, 0)); /* (fails the phase) */
    SYS_CHECK(!ECS_PROPOSE_SET(ctx->proposals, f->e[1], f->score, Score, {1})); /* (refused after it) */
    return 0;
}
static int keep_and_propose_well(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    kept = ctx->proposals;
    return !ECS_PROPOSE_SET(ctx->proposals, f->e[1], f->score, Score, {1});
}
static int propose_into_kept(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    return kept && ECS_PROPOSE_SET(kept, f->e[2], f->score, Score, {5}) ? 1 : 0;
}
static int refused_in_hook;
static void propose_from_hook(ecs_world *w, ecs_entity e, ecs_component c, void *v, void *u) {
    (void)w, (void)v, (void)u;
    refused_in_hook += !ecs_propose_set(kept, e, c, NULL) && ecs_last_error(w) == ECS_ERR_LOCKED;
}
static int propose_from_reducer(const ecs_reduce *r, void *next) {
    refused_in_hook += !ecs_propose_remove(kept, r->entity, r->component);
    memcpy(next, r->changes[r->n - 1].value, sizeof(Score));
    return ECS_REDUCE_SET;
}
static void test_only_a_running_phase_system_proposes(void) {
    fixture f;
    ecs_hooks h = {0};
    ecs_system_desc sd = {0};
    int asserts;
    fixture_new(&f, NULL);
    CHECK(one_phase(&f, "split0", keep_and_propose, 0, NULL));
    sys_failed = 0;
    EXPECT_ASSERT(ecs_schedule_run(f.w, "s") == -1, "split twice, a part split, or 0 parts");
    CHECK_EQ(sys_failed, 0);
    CHECK(!ecs_has(f.w, f.e[1], f.score));
    ecs_world_free(f.w);

    fixture_new(&f, NULL);
    h.on_insert = propose_from_hook;
    ecs_hooks_set(f.w, f.score, &h);
    CHECK(one_phase(&f, "keeper", keep_and_propose_well, f.score, propose_from_reducer));
    refused_in_hook = 0;
    asserts = test__asserts;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(test__asserts - asserts, 2); /* both refusals asserted */
    test__expected += 2;
    CHECK_EQ(refused_in_hook, 2);
    CHECK(strstr(test__assert_msg, "only a phase's system, while it runs, proposes") != NULL);
    CHECK_EQ(ECS_GET(f.w, f.e[1], f.score, Score)->v, 1);
    ecs_world_free(f.w);

    fixture_new(&f, NULL); /* another system of the phase, before or after the keeper: not its buffer */
    CHECK(one_phase(&f, "keeper", keep_and_propose_well, 0, NULL));
    sd.name = "thief", sd.fn = propose_into_kept, sd.user = &f;
    CHECK(ecs_phase_system(f.w, "p", &sd));
    kept = NULL;
    asserts = test__asserts;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0); /* (the keeper ran first: its buffer is done) */
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(test__asserts - asserts, 2);
    test__expected += 2;
    CHECK(!ecs_has(f.w, f.e[2], f.score)); /* the thief's proposal was refused */
    ecs_world_free(f.w);
}

/* A split's parts take proposals during the run that split them, however
   many systems were registered since the last run; a part used by
   another system of the phase (the same step: the pointer is still
   good) is refused. */
static ecs_proposals *kept_part;
static int split_and_propose(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    int asserts = test__asserts;
    SYS_CHECK(ecs_proposals_split(ctx->proposals, 4));
    kept_part = ecs_proposals_part(ctx->proposals, 3);
    SYS_CHECK(ecs_proposals_part(ctx->proposals, 4) == NULL); /* k < parts */
    SYS_CHECK(test__asserts == asserts + 1 && strstr(test__assert_msg, "ecs_proposals_part: no such part"));
    test__expected++;
    return !ECS_PROPOSE_SET(ecs_proposals_part(ctx->proposals, 1), f->e[1], f->score, Score, {7});
}
static int propose_into_kept_part(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    SYS_CHECK(!ECS_PROPOSE_SET(kept_part, f->e[3], f->score, Score, {42}));
    return 0;
}
static void test_parts_take_proposals_only_in_the_run_that_split_them(void) {
    fixture f;
    ecs_system_desc sd = {0};
    char name[16];
    int k, asserts;
    fixture_new(&f, NULL);
    sys_failed = 0;
    CHECK(one_phase(&f, "splitter", split_and_propose, 0, NULL));
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    sd.fn = do_nothing;
    for (k = 0; k < 40; k++) { /* (the phase's systems and their buffers move) */
        snprintf(name, sizeof name, "idle%d", k);
        sd.name = name;
        CHECK(ecs_phase_system(f.w, "p", &sd));
    }
    sd.name = "late", sd.fn = propose_into_kept_part, sd.user = &f;
    CHECK(ecs_phase_system(f.w, "p", &sd));
    ecs_remove(f.w, f.e[1], f.score, NULL);
    asserts = test__asserts;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(test__asserts - asserts, 2); /* the splitter's part 4 (counted there), and the late system's use of its part */
    test__expected++;
    CHECK_EQ(sys_failed, 0);
    CHECK_EQ(ECS_GET(f.w, f.e[1], f.score, Score)->v, 7);
    CHECK(!ecs_has(f.w, f.e[3], f.score));
    ecs_world_free(f.w);
}

/* A phase that despawns and spawns reuses the despawned slots, as
   ecs_destroy then ecs_create would: at max_entities it fits; one spawn
   more than there is room for fails the phase, naming it, and nothing
   is applied. */
static int despawns, spawns;
static int despawn_and_spawn(const ecs_system_ctx *ctx) {
    const fixture *f = (const fixture *)ctx->user;
    int k;
    for (k = 0; k < despawns; k++) ecs_propose_despawn(ctx->proposals, f->e[k]);
    for (k = 0; k < spawns; k++) ecs_propose_spawn(ctx->proposals, 1, &f->score, NULL);
    return 0;
}
static void test_spawns_reuse_the_slots_of_the_phase_s_despawns(void) {
    fixture f;
    ecs_desc d = {0};
    uint64_t before;
    d.max_entities = 8;
    fixture_new(&f, &d); /* 8 alive: full */
    CHECK(one_phase(&f, "swap", despawn_and_spawn, 0, NULL));
    despawns = 2, spawns = 2;
    CHECK_EQ(ecs_schedule_run(f.w, "s"), 0);
    CHECK_EQ(ecs_count(f.w), 8u);
    CHECK(!ecs_alive(f.w, f.e[0]) && !ecs_alive(f.w, f.e[1]));
    CHECK_EQ(ecs_storage_count(ecs_storage_of(f.w, f.score)), 2u);
    despawns = 0, spawns = 1; /* (e[0], e[1] are gone: the despawns would fail) */
    before = digest(&f);
    CHECK_EQ(ecs_schedule_run(f.w, "s"), -1);
    CHECK_EQ(ecs_last_error(f.w), ECS_ERR_EXHAUSTED);
    CHECK(strstr(ecs_last_error_msg(f.w), "phase 'p': its spawns need more entity slots") != NULL);
    CHECK_EQ(digest(&f), before);
    ecs_world_free(f.w);
}

/* ---- bad arguments ----------------------------------------------------------- */

static void test_registration_and_recording_refuse_bad_arguments(void) {
    fixture f;
    ecs_phase_desc pd = {0};
    ecs_system_desc sd = {0};
    const char *none[] = {"nope"};
    fixture_new(&f, NULL);
    EXPECT_ASSERT(!ecs_phase_new(f.w, NULL), "desc is NULL");
    EXPECT_ASSERT(!ecs_phase_new(f.w, &pd), "needs a name");
    pd.name = "p";
    CHECK(ecs_phase_new(f.w, &pd));
    EXPECT_ASSERT(!ecs_phase_new(f.w, &pd), "needs a name not taken");
    EXPECT_ASSERT(!ecs_schedule_new(f.w, "p", 0, NULL), "needs a name not taken");
    EXPECT_ASSERT(!ecs_schedule_new(f.w, "s", 1, none), "no phase named 'nope'");
    EXPECT_ASSERT(!ecs_schedule_new(f.w, "s", 1, NULL), "phases is NULL");
    EXPECT_ASSERT(!ecs_phase_system(f.w, "p", &sd), "needs a name and fn");
    EXPECT_ASSERT(!ecs_phase_system(f.w, "q", &sd), "no phase named 'q'");
    sd.name = "x", sd.fn = propose_velocity, sd.exclusive = 77;
    EXPECT_ASSERT(!ecs_phase_system(f.w, "p", &sd), "unknown component");
    EXPECT_ASSERT(!ecs_phase_reducer(f.w, "p", 77, sum_deltas, NULL), "unknown component");
    CHECK(ecs_phase_reducer(f.w, "p", f.pos, NULL, NULL)); /* none to take off: fine */
    EXPECT_ASSERT(ecs_schedule_run(f.w, "s") == -1, "no schedule named 's'");
    EXPECT_ASSERT(!ecs_propose_set(NULL, f.e[0], f.pos, NULL), "proposals is NULL");
    EXPECT_ASSERT(ecs_proposals_part(NULL, 0) == NULL, "ecs_proposals_part: proposals is NULL");
    EXPECT_ASSERT(ecs_phase_new(NULL, &pd) == false, "world is NULL");
    CHECK(ecs_schedule_new(f.w, "empty", 0, NULL));
    CHECK_EQ(ecs_schedule_run(f.w, "empty"), 0);
    ecs_world_free(f.w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_a_reducer_sums_proposed_deltas_step_after_step);
    RUN(test_a_reducer_sees_proposals_in_system_order_then_emission_order);
    RUN(test_with_no_reducer_the_last_write_in_that_order_wins);
    RUN(test_system_order_does_not_change_a_commutative_result);
    RUN(test_threads_do_not_change_what_a_reducer_sees_or_which_write_wins);
    RUN(test_life_matches_a_plain_array_for_100_generations_serially);
    RUN(test_life_matches_a_plain_array_on_1_2_and_4_threads);
    RUN(test_a_phase_applies_despawns_then_reductions_then_spawns);
    RUN(test_a_step_s_changes_are_seen_by_later_phases_and_after_it);
    RUN(test_a_system_runs_only_when_its_phase_s_and_its_own_conditions_pass);
    RUN(test_one_system_may_claim_a_unique_for_the_phase);
    RUN(test_a_failed_phase_gives_the_claimed_unique_its_value_back);
    RUN(test_a_proposal_for_a_dead_entity_fails_the_phase_and_changes_nothing);
    RUN(test_a_proposal_of_an_unknown_component_fails_the_phase);
    RUN(test_a_proposed_value_of_the_wrong_size_fails_the_phase);
    RUN(test_a_failing_reducer_fails_the_phase_naming_the_entity);
    RUN(test_under_reducer_required_a_component_with_no_reducer_fails_the_phase);
    RUN(test_a_phase_system_that_writes_the_world_directly_is_refused);
    RUN(test_hooks_and_groups_follow_a_phase_s_changes);
    RUN(test_commands_hooks_record_in_an_apply_are_flushed_before_the_next_phase);
    RUN(test_a_refused_destroy_in_a_phase_allocates_nothing);
    RUN(test_out_of_memory_anywhere_in_a_phase_changes_nothing);
    RUN(test_a_hook_that_uses_the_phase_s_room_makes_a_later_change_fail_reported);
    RUN(test_a_system_result_of_minus_2_fails_the_phase_as_any_other);
    RUN(test_the_conditions_may_read_a_claimed_unique_at_every_step);
    RUN(test_only_a_running_phase_system_proposes);
    RUN(test_parts_take_proposals_only_in_the_run_that_split_them);
    RUN(test_spawns_reuse_the_slots_of_the_phase_s_despawns);
    RUN(test_registration_and_recording_refuse_bad_arguments);
    RUN(test_a_reducer_reads_proposed_values_aligned_for_their_component);
    RUN(test_a_spawn_of_a_cached_query_s_tag_fails_the_phase);
    RUN(test_a_system_sees_what_its_own_phase_applied);
    RUN(test_a_failed_phase_that_claimed_a_unique_tag_gives_back_nothing);
    return test_summary();
}
