/* examples/movement.h: the systems of examples/movement.c against the same
   rules written again in plain C on arrays. Every frame, every entity's
   Position and Velocity must equal the array simulation exactly (the
   example keeps its arithmetic exact), stay inside the box, frozen and
   still entities must not move, expired entities must be gone, and the
   counts the report system gets from modification tracking must equal the
   counts the simulation makes. */
#include "test.h"
#include "../ecs.h"
#include "../examples/movement.h"

#define BOX_W 64.0f
#define BOX_H 16.0f

static ecs_world *w;
static movement m;

static void setup(void) {
    w = ecs_world_new(NULL);
    movement_init(&m, w, BOX_W, BOX_H);
}

/* --- the model --------------------------------------------------------------- */

typedef struct {
    ecs_entity id;
    int alive, moves, frozen, has_vel, has_life;
    Position p, start;
    Velocity v;
    uint32_t life;
} body;

static body *bodies;
static int nbodies;

/* Copies what movement_spawn made into the arrays. */
static void snapshot(void) {
    const ecs_entity *ids = ecs_storage_entities(ecs_storage_of(w, m.position));
    int i;
    nbodies = (int)ecs_storage_count(ecs_storage_of(w, m.position));
    bodies = (body *)calloc((size_t)nbodies, sizeof *bodies);
    for (i = 0; i < nbodies; i++) {
        body *b = &bodies[i];
        const Velocity *v = ECS_GET(w, ids[i], m.velocity, Velocity);
        const Lifetime *l = ECS_GET(w, ids[i], m.lifetime, Lifetime);
        b->id = ids[i];
        b->alive = 1;
        b->p = b->start = *ECS_GET(w, ids[i], m.position, Position);
        b->has_vel = v != NULL;
        if (v) b->v = *v;
        b->frozen = ecs_has(w, ids[i], m.frozen);
        b->moves = b->has_vel && !b->frozen;
        b->has_life = l != NULL;
        if (l) b->life = l->frames;
    }
}

/* One frame of the rules: move, bounce off the walls, count lifetimes
   down. Returns what report and expire should say. */
static Stats model_frame(float dt) {
    Stats s = {0, 0, 0};
    int i;
    for (i = 0; i < nbodies; i++) {
        body *b = &bodies[i];
        int hit = 0;
        if (!b->alive) continue;
        if (b->moves) {
            b->p.x += b->v.x * dt;
            b->p.y += b->v.y * dt;
            if (b->p.x < 0) b->p.x = -b->p.x, b->v.x = -b->v.x, hit = 1;
            if (b->p.x > BOX_W) b->p.x = 2 * BOX_W - b->p.x, b->v.x = -b->v.x, hit = 1;
            if (b->p.y < 0) b->p.y = -b->p.y, b->v.y = -b->v.y, hit = 1;
            if (b->p.y > BOX_H) b->p.y = 2 * BOX_H - b->p.y, b->v.y = -b->v.y, hit = 1;
        }
        if (b->has_life && --b->life == 0) {
            b->alive = 0;
            s.expired++;
            continue;
        }
        s.moved += (uint32_t)b->moves;
        s.bounced += (uint32_t)hit;
    }
    return s;
}

/* The world agrees with the model, entity by entity. */
static int world_matches_model(void) {
    int i, alive = 0;
    for (i = 0; i < nbodies; i++) {
        const body *b = &bodies[i];
        const Position *p;
        if (ecs_alive(w, b->id) != (b->alive != 0)) return printf("  body %d: alive %d\n", i, b->alive), 0;
        if (!b->alive) continue;
        alive++;
        p = ECS_GET(w, b->id, m.position, Position);
        if (p->x != b->p.x || p->y != b->p.y)
            return printf("  body %d at (%g, %g), model (%g, %g)\n", i, p->x, p->y, b->p.x, b->p.y), 0;
        if (p->x < 0 || p->x > BOX_W || p->y < 0 || p->y > BOX_H) return printf("  body %d outside\n", i), 0;
        if (!b->moves && (p->x != b->start.x || p->y != b->start.y)) return printf("  body %d moved\n", i), 0;
        if (b->has_vel) {
            const Velocity *v = ECS_GET(w, b->id, m.velocity, Velocity);
            if (v->x != b->v.x || v->y != b->v.y) return printf("  body %d velocity\n", i), 0;
        }
        if (b->has_life && ECS_GET(w, b->id, m.lifetime, Lifetime)->frames != b->life) return 0;
    }
    return ecs_count(w) == (uint32_t)alive;
}

static int same_stats(const Stats *got, const Stats *want) {
    if (got->moved == want->moved && got->bounced == want->bounced && got->expired == want->expired) return 1;
    printf("  stats: moved %u/%u bounced %u/%u expired %u/%u\n", got->moved, want->moved, got->bounced,
           want->bounced, got->expired, want->expired);
    return 0;
}

static void finish(void) {
    free(bodies);
    bodies = NULL;
    ecs_world_free(w);
}

/* --- tests -------------------------------------------------------------------- */

static void test_spawn_makes_moving_frozen_still_and_mortal_entities_inside_the_box(void) {
    int i, still = 0, frozen = 0, mortal = 0;
    setup();
    CHECK(movement_spawn(&m, 800, 7));
    snapshot();
    CHECK(nbodies == 800 && ecs_count(w) == 800);
    for (i = 0; i < nbodies; i++) {
        const body *b = &bodies[i];
        CHECK(b->p.x >= 0 && b->p.x <= BOX_W && b->p.y >= 0 && b->p.y <= BOX_H);
        CHECK(b->p.x * 16 == (float)(int)(b->p.x * 16)); /* on the 1/16 grid */
        CHECK(!b->has_vel || (b->v.x != 0 && b->v.y != 0));
        CHECK(!b->has_life || (b->life >= 1 && b->life <= 12));
        still += !b->has_vel;
        frozen += b->frozen;
        mortal += b->has_life;
    }
    /* 1 in 8, 1 in 8, 1 in 4: all present, none dominant */
    CHECK(still > 50 && still < 150 && frozen > 50 && frozen < 150 && mortal > 120 && mortal < 280);
    finish();
}

static void test_every_frame_equals_the_plain_array_simulation(void) {
    int f;
    setup();
    CHECK(movement_spawn(&m, 2000, 2026));
    snapshot();
    for (f = 1; f <= 40; f++) {
        Stats want = model_frame(0.25f);
        CHECK_EQ(movement_frame(&m), 0);
        CHECK(world_matches_model());
        CHECK(same_stats(ECS_UNIQUE_GET(w, m.stats, Stats), &want));
    }
    finish();
}

static void test_frozen_and_still_entities_never_move(void) {
    int f, i, n = 0;
    setup();
    CHECK(movement_spawn(&m, 300, 99));
    snapshot();
    for (f = 0; f < 20; f++) CHECK_EQ(movement_frame(&m), 0);
    for (i = 0; i < nbodies; i++) {
        const Position *p = ECS_GET(w, bodies[i].id, m.position, Position);
        if (bodies[i].moves || !p) continue;
        CHECK(p->x == bodies[i].start.x && p->y == bodies[i].start.y);
        n++;
    }
    CHECK_GT(n, 40);
    finish();
}

static void test_a_wall_reflects_position_and_velocity(void) {
    ecs_entity right, left, corner;
    setup();
    right = ecs_create(w);
    ECS_ADD(w, right, m.position, Position, {63.5f, 8});
    ECS_ADD(w, right, m.velocity, Velocity, {4, 0}); /* 1 unit per frame: 64.5 -> 63.5 */
    left = ecs_create(w);
    ECS_ADD(w, left, m.position, Position, {0.25f, 8});
    ECS_ADD(w, left, m.velocity, Velocity, {-2, 0}); /* -0.25 -> 0.25 */
    corner = ecs_create(w);
    ECS_ADD(w, corner, m.position, Position, {0, 16});
    ECS_ADD(w, corner, m.velocity, Velocity, {-1, 1});
    CHECK_EQ(movement_frame(&m), 0);
    CHECK(ECS_GET(w, right, m.position, Position)->x == 63.5f && ECS_GET(w, right, m.velocity, Velocity)->x == -4);
    CHECK(ECS_GET(w, left, m.position, Position)->x == 0.25f && ECS_GET(w, left, m.velocity, Velocity)->x == 2);
    CHECK(ECS_GET(w, corner, m.position, Position)->x == 0.25f && ECS_GET(w, corner, m.position, Position)->y == 15.75f);
    CHECK(ECS_GET(w, corner, m.velocity, Velocity)->x == 1 && ECS_GET(w, corner, m.velocity, Velocity)->y == -1);
    CHECK(ECS_UNIQUE_GET(w, m.stats, Stats)->bounced == 3 && ECS_UNIQUE_GET(w, m.stats, Stats)->moved == 3);
    CHECK_EQ(movement_frame(&m), 0); /* on their way back: nobody bounces */
    CHECK(ECS_UNIQUE_GET(w, m.stats, Stats)->bounced == 0 && ECS_UNIQUE_GET(w, m.stats, Stats)->moved == 3);
    ecs_world_free(w);
}

/* report counts what tracking recorded since its previous run - so a change
   made between two frames, outside any system, shows up in the next one. */
static void test_report_counts_changes_since_its_previous_run(void) {
    int i, touched = 0;
    Stats want;
    setup();
    CHECK(movement_spawn(&m, 200, 5));
    snapshot();
    want = model_frame(0.25f);
    CHECK_EQ(movement_frame(&m), 0);
    CHECK(same_stats(ECS_UNIQUE_GET(w, m.stats, Stats), &want));
    /* between frames, nudge three entities that do not move by themselves */
    for (i = 0; i < nbodies && touched < 3; i++) {
        if (bodies[i].moves || !bodies[i].alive || (bodies[i].has_life && bodies[i].life == 1)) continue;
        ECS_GET_MUT(w, bodies[i].id, m.position, Position)->x += 0; /* a write, even of the same value */
        touched++;
    }
    CHECK_EQ(touched, 3);
    want = model_frame(0.25f);
    CHECK_EQ(movement_frame(&m), 0);
    want.moved += 3;
    CHECK(same_stats(ECS_UNIQUE_GET(w, m.stats, Stats), &want));
    want = model_frame(0.25f); /* and only once */
    CHECK_EQ(movement_frame(&m), 0);
    CHECK(same_stats(ECS_UNIQUE_GET(w, m.stats, Stats), &want));
    finish();
}

static void test_expired_entities_are_gone_after_the_frame(void) {
    int f, i, expired = 0;
    setup();
    CHECK(movement_spawn(&m, 400, 11));
    snapshot();
    for (f = 1; f <= 12; f++) {
        Stats want = model_frame(0.25f);
        CHECK_EQ(movement_frame(&m), 0);
        CHECK_EQ(ecs_defer_pending(w), 0); /* the workload flushed the destroys */
        CHECK_EQ(ECS_UNIQUE_GET(w, m.stats, Stats)->expired, want.expired);
        expired += (int)want.expired;
    }
    /* every Lifetime was 1..12 frames: all mortal entities are gone */
    for (i = 0; i < nbodies; i++) CHECK_EQ(ecs_alive(w, bodies[i].id), !bodies[i].has_life);
    CHECK(expired > 50 && ecs_storage_count(ecs_storage_of(w, m.lifetime)) == 0);
    CHECK_EQ(ecs_count(w), (uint32_t)(nbodies - expired));
    finish();
}

static void test_the_workload_runs_the_four_systems_in_order_in_four_batches(void) {
    ecs_plan_step steps[8];
    uint32_t n;
    setup();
    n = ecs_workload_plan(w, "frame", steps, 8);
    CHECK_EQ(n, 4);
    CHECK(strcmp(steps[0].system, "integrate") == 0 && steps[0].batch == 0);
    CHECK(strcmp(steps[1].system, "bounce") == 0 && steps[1].batch == 1);
    CHECK(strcmp(steps[2].system, "expire") == 0 && steps[2].batch == 2);
    CHECK(strcmp(steps[3].system, "report") == 0 && steps[3].batch == 3);
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_spawn_makes_moving_frozen_still_and_mortal_entities_inside_the_box);
    RUN(test_every_frame_equals_the_plain_array_simulation);
    RUN(test_frozen_and_still_entities_never_move);
    RUN(test_a_wall_reflects_position_and_velocity);
    RUN(test_report_counts_changes_since_its_previous_run);
    RUN(test_expired_entities_are_gone_after_the_frame);
    RUN(test_the_workload_runs_the_four_systems_in_order_in_four_batches);
    return test_summary();
}
