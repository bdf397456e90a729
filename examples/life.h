/* life.h - Conway's Game of Life on a periodic grid, as a schedule of two
   phases of proposing systems (ecs.h section 16, esc's model):

     "count"  every cell proposes 0 to its own neighbour count, and every
              live cell proposes 1 to each of its 8 neighbours'; the
              reducer life_sum adds them up. The emitting system splits
              its view into parts (ecs_iter_chunk) and records each part
              into its own buffer (ecs_proposals_part), through the world's
              parallel_for when there is one.
     "rule"   every cell whose fate changes proposes to add or remove the
              Alive tag (no reducer: the last write wins, and there is
              only one).

   Both phases read the world as the previous one left it, so the result
   does not depend on system order or on the thread count.
   examples/life.c prints a few generations; tests/test_phases.c compares
   100 generations with a plain 2-D array, serial and threaded. */
#ifndef LIFE_H
#define LIFE_H

#include <stdint.h>
#include <string.h>
#include "../ecs.h"

typedef struct LifeCell { int32_t x, y; } LifeCell;
typedef struct LifeCount { uint8_t n; } LifeCount;

typedef struct life {
    ecs_world *w;
    ecs_component cell, count, alive; /* alive: a tag */
    uint32_t width, height, parts;    /* parts: slices of the emitting view */
    ecs_entity *grid;                 /* grid[y * width + x] */
} life;

/* The reducer of the neighbour count: the sum of what was proposed. */
static int life_sum(const ecs_reduce *r, void *next) {
    uint32_t k, n = 0;
    for (k = 0; k < r->n; k++) n += ((const LifeCount *)r->changes[k].value)->n;
    ((LifeCount *)next)->n = (uint8_t)n;
    return ECS_REDUCE_SET;
}

typedef struct life_emit_job {
    const ecs_system_ctx *ctx;
    life *L;
} life_emit_job;

/* Part k of the emitting system: a slice of the cells, its own buffer. */
static void life_emit_part(void *arg, uint32_t k) {
    life_emit_job *job = (life_emit_job *)arg;
    life *L = job->L;
    ecs_proposals *out = ecs_proposals_part(job->ctx->proposals, k);
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = L->cell;
    d.terms[1].c = L->alive;
    d.terms[1].flags = ECS_OPTIONAL;
    it = ecs_system_view(job->ctx, &d);
    ecs_iter_chunk(&it, k, L->parts);
    ECS_EACH(&it) {
        const LifeCell *c = ECS_FIELD(&it, 0, LifeCell);
        LifeCount zero = {0}, one = {1};
        int dx, dy;
        ecs_propose_set(out, ecs_iter_entity(&it), L->count, &zero);
        if (!ecs_field(&it, 1)) continue;
        for (dy = -1; dy <= 1; dy++)
            for (dx = -1; dx <= 1; dx++) {
                uint32_t x = (uint32_t)((c->x + dx + (int32_t)L->width) % (int32_t)L->width);
                uint32_t y = (uint32_t)((c->y + dy + (int32_t)L->height) % (int32_t)L->height);
                if (dx || dy) ecs_propose_set(out, L->grid[y * L->width + x], L->count, &one);
            }
    }
}

static int life_emit(const ecs_system_ctx *ctx) {
    life *L = (life *)ctx->user;
    life_emit_job job;
    uint32_t k;
    job.ctx = ctx;
    job.L = L;
    if (!ecs_proposals_split(ctx->proposals, L->parts)) return 0; /* (the phase reports why) */
    if (L->parts > 1 && L->w->parallel_for)
        L->w->parallel_for(life_emit_part, &job, L->parts, L->w->parallel_user);
    else
        for (k = 0; k < L->parts; k++) life_emit_part(&job, k);
    return 0;
}

static int life_rule(const ecs_system_ctx *ctx) {
    life *L = (life *)ctx->user;
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = L->count;
    d.terms[1].c = L->alive;
    d.terms[1].flags = ECS_OPTIONAL;
    it = ecs_system_view(ctx, &d);
    ECS_EACH(&it) {
        uint8_t n = ECS_FIELD(&it, 0, LifeCount)->n;
        bool alive = ecs_field(&it, 1) != NULL, next = n == 3 || (alive && n == 2);
        if (next && !alive) ecs_propose_set(ctx->proposals, ecs_iter_entity(&it), L->alive, NULL);
        if (!next && alive) ecs_propose_remove(ctx->proposals, ecs_iter_entity(&it), L->alive);
    }
    return 0;
}

/* A width x height grid, cell (x, y) alive where cells[y * width + x];
   the schedule "generation" runs one step. desc: the world's (threads). */
static bool life_new(life *L, const ecs_desc *desc, uint32_t width, uint32_t height, const uint8_t *cells,
                     uint32_t parts) {
    const char *phases[2] = {"count", "rule"};
    ecs_phase_desc count, rule;
    ecs_system_desc emit, decide;
    uint32_t x, y;
    memset(L, 0, sizeof *L);
    if (!(L->w = ecs_world_new(desc))) return false;
    L->cell = ECS_COMPONENT(L->w, LifeCell);
    L->count = ECS_COMPONENT(L->w, LifeCount);
    L->alive = ecs_register(L->w, "Alive", 0, 1);
    L->width = width;
    L->height = height;
    L->parts = parts ? parts : 1;
    if (!(L->grid = (ecs_entity *)malloc((size_t)width * height * sizeof *L->grid))) return false;
    for (y = 0; y < height; y++)
        for (x = 0; x < width; x++) {
            LifeCell c;
            ecs_entity e = L->grid[y * width + x] = ecs_create(L->w);
            c.x = (int32_t)x;
            c.y = (int32_t)y;
            ecs_add(L->w, e, L->cell, &c);
            if (cells[y * width + x]) ecs_add(L->w, e, L->alive, NULL);
        }
    memset(&count, 0, sizeof count);
    count.name = "count";
    count.strategy = ECS_REDUCER_REQUIRED; /* a count nobody reduces is a bug */
    rule = count;
    rule.name = "rule";
    rule.strategy = ECS_LAST_WRITE_WINS;
    memset(&emit, 0, sizeof emit);
    emit.name = "emit";
    emit.fn = life_emit;
    emit.user = L;
    decide = emit;
    decide.name = "decide";
    decide.fn = life_rule;
    return ecs_phase_new(L->w, &count) && ecs_phase_new(L->w, &rule) &&
           ecs_phase_reducer(L->w, "count", L->count, life_sum, NULL) && ecs_phase_system(L->w, "count", &emit) &&
           ecs_phase_system(L->w, "rule", &decide) && ecs_schedule_new(L->w, "generation", 2, phases);
}

static bool life_alive(const life *L, uint32_t x, uint32_t y) {
    return ecs_has(L->w, L->grid[y * L->width + x], L->alive);
}

static void life_free(life *L) {
    ecs_world_free(L->w);
    free(L->grid);
}

#endif
