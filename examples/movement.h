/* movement.h - the world and systems of examples/movement.c, in a header so
   that tests/test_movement.c runs the very same code.

   Entities with a Position move by their Velocity inside a box and bounce
   off its walls. Some have no Velocity (they stand still), some are Frozen
   (a tag: they keep their Velocity but don't move), some have a Lifetime
   and are destroyed when it runs out. The time step and the box are
   uniques. One workload, "frame", runs four systems in order:

       integrate  Position += Velocity * dt, for entities that are not Frozen
       bounce     reflects whoever left the box back into it
       expire     counts Lifetimes down; destroys through the command buffer
       report     counts what changed since its previous run (tracking)

   Every number here is a multiple of 1/64 well inside float's 24 bits
   (velocities in 1/16 units, dt = 1/4, positions below 128), so the float
   arithmetic is exact and a test can check positions with ==.

   On several cores: integrate, bounce and report can split their loops
   into slices (ecs_iter_chunk) and hand them to a thread pool; set
   movement.parallel_for (examples/parallel.c). Each slice walks its own
   entities and writes only their values, so the result is the serial one
   to the bit. expire stays serial: the command buffer is one per world. */
#ifndef MOVEMENT_H
#define MOVEMENT_H

#include <stdio.h>
#include "../ecs.h"

typedef struct { float x, y; } Position;
typedef struct { float x, y; } Velocity;  /* units per second */
typedef struct { uint32_t frames; } Lifetime; /* frames left; destroyed when it reaches 0 */

/* uniques */
typedef struct { float dt; } Time;        /* seconds per frame */
typedef struct { float w, h; } Bounds;    /* the box: 0 <= x <= w, 0 <= y <= h */
typedef struct {                          /* what the last frame did */
    uint32_t moved;    /* entities whose Position changed (report) */
    uint32_t bounced;  /* entities whose Velocity changed (report) */
    uint32_t expired;  /* entities destroyed (expire) */
} Stats;

typedef struct movement {
    ecs_world *w;
    ecs_component position, velocity, lifetime, frozen; /* components; frozen is a tag */
    ecs_component time, bounds, stats;                  /* uniques */
    /* Where the loops of integrate, bounce and report run: parallel_for
       (an ecs_parallel_fn, e.g. pool_for of examples/pool.h, with
       parallel_user) runs `slices` slices of each; NULL (movement_init's
       default): the whole loop on the calling thread. */
    ecs_parallel_fn parallel_for;
    void *parallel_user;
    uint32_t slices; /* 1 to MOVEMENT_MAX_SLICES */
} movement;

#define MOVEMENT_MAX_SLICES 64

/* --- loops in slices ------------------------------------------------------
   A system's loop written as slice(ctx, k, n): walk the k-th of n slices
   of the view (ecs_iter_chunk when n > 1) and return a count. */
typedef uint32_t (*movement__slice_fn)(const ecs_system_ctx *ctx, uint32_t k, uint32_t n);

typedef struct movement__slices {
    const ecs_system_ctx *ctx;
    movement__slice_fn slice;
    uint32_t n;
    uint32_t counts[MOVEMENT_MAX_SLICES]; /* each slice writes its own */
} movement__slices;

static inline void movement__run_slice(void *arg, uint32_t k) {
    movement__slices *s = (movement__slices *)arg;
    s->counts[k] = s->slice(s->ctx, k, s->n);
}

/* Runs every slice of a loop, through m->parallel_for if set; returns the
   sum of their counts. */
static inline uint32_t movement__sliced(const ecs_system_ctx *ctx, movement__slice_fn slice) {
    const movement *m = (const movement *)ctx->user;
    movement__slices s;
    uint32_t k, sum = 0;
    s.ctx = ctx;
    s.slice = slice;
    s.n = !m->parallel_for || m->slices < 2 ? 1 : m->slices > MOVEMENT_MAX_SLICES ? MOVEMENT_MAX_SLICES : m->slices;
    if (s.n > 1)
        m->parallel_for(movement__run_slice, &s, s.n, m->parallel_user);
    else
        movement__run_slice(&s, 0);
    for (k = 0; k < s.n; k++) sum += s.counts[k];
    return sum;
}

/* it restricted to slice k of n; false if it cannot be split */
static inline bool movement__slice_of(ecs_iter *it, uint32_t k, uint32_t n) {
    return n < 2 || ecs_iter_chunk(it, k, n);
}

/* --- the systems ----------------------------------------------------------
   A system is a function of its ecs_system_ctx; ctx->user is the movement
   struct with the component ids. Each returns 0 (non-zero would stop the
   workload). */

/* Position += Velocity * dt for every entity with both that is not Frozen.
   The block loop hands out whole arrays (ECS_BLOCK, it.count values
   each), so the inner loop is a plain array loop where the storages are
   in step. ECS_WRITE marks every Position it hands out as modified. */
static inline uint32_t movement__integrate_slice(const ecs_system_ctx *ctx, uint32_t k, uint32_t n) {
    const movement *m = (const movement *)ctx->user;
    float dt = ECS_UNIQUE_GET(ctx->world, m->time, Time)->dt;
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = m->position;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = m->velocity;
    d.terms[2].c = m->frozen;
    d.terms[2].flags = ECS_NOT;
    it = ecs_view(ctx->world, &d);
    if (!movement__slice_of(&it, k, n)) return 0;
    while (ecs_iter_next_block(&it)) {
        Position *p = ECS_BLOCK(&it, 0, Position);
        const Velocity *v = ECS_BLOCK(&it, 1, Velocity);
        uint32_t i;
        for (i = 0; i < it.count; i++) {
            p[i].x += v[i].x * dt;
            p[i].y += v[i].y * dt;
        }
    }
    return 0;
}
static inline int movement_integrate(const ecs_system_ctx *ctx) {
    movement__sliced(ctx, movement__integrate_slice);
    return 0;
}

/* Mirrors *x into [0, max] and turns *v around when it left that range. */
static inline bool movement__reflect(float *x, float *v, float max) {
    if (*x >= 0 && *x <= max) return false;
    *x = *x < 0 ? -*x : 2 * max - *x;
    *v = -*v;
    return true;
}

/* Reflects every moving entity that left the box. The view only reads;
   the few that bounce are written through ECS_GET_MUT, so only they count
   as modified - which is what report's "bounced" counts. (In slices, each
   writes only the entities of its own slice.) */
static inline uint32_t movement__bounce_slice(const ecs_system_ctx *ctx, uint32_t k, uint32_t n) {
    const movement *m = (const movement *)ctx->user;
    const Bounds *b = ECS_UNIQUE_GET(ctx->world, m->bounds, Bounds);
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = m->position;
    d.terms[1].c = m->velocity;
    d.terms[2].c = m->frozen;
    d.terms[2].flags = ECS_NOT;
    it = ecs_view(ctx->world, &d);
    if (!movement__slice_of(&it, k, n)) return 0;
    while (ecs_iter_next(&it)) {
        Position p = *ECS_FIELD(&it, 0, const Position);
        Velocity v = *ECS_FIELD(&it, 1, const Velocity);
        bool hit_x = movement__reflect(&p.x, &v.x, b->w);
        bool hit_y = movement__reflect(&p.y, &v.y, b->h);
        if (hit_x || hit_y) {
            *ECS_GET_MUT(ctx->world, ecs_iter_entity(&it), m->position, Position) = p;
            *ECS_GET_MUT(ctx->world, ecs_iter_entity(&it), m->velocity, Velocity) = v;
        }
    }
    return 0;
}
static inline int movement_bounce(const ecs_system_ctx *ctx) {
    movement__sliced(ctx, movement__bounce_slice);
    return 0;
}

/* Counts every Lifetime down; at 0 the entity is destroyed - through the
   command buffer. (Destroying the entity the loop stands on would be
   allowed, but recording it is the pattern that is always right: it also
   covers destroying *other* entities mid-loop.) The system is declared
   structural, so the workload flushes its commands right after it. */
static inline int movement_expire(const ecs_system_ctx *ctx) {
    const movement *m = (const movement *)ctx->user;
    uint32_t expired = 0;
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = m->lifetime;
    d.terms[0].flags = ECS_WRITE;
    for (it = ecs_view(ctx->world, &d); ecs_iter_next(&it);) {
        Lifetime *life = ECS_FIELD(&it, 0, Lifetime);
        if (--life->frames == 0 && ecs_defer_destroy(ctx->world, ecs_iter_entity(&it))) expired++;
    }
    ECS_UNIQUE_GET_MUT(ctx->world, m->stats, Stats)->expired = expired;
    return 0;
}

/* How many entities of slice k of n have c modified in the system's window. */
static inline uint32_t movement__count_modified(const ecs_system_ctx *ctx, ecs_component c, uint32_t k,
                                                uint32_t n) {
    ecs_view_desc d;
    ecs_iter it;
    uint32_t count = 0;
    memset(&d, 0, sizeof d);
    d.terms[0].c = c;
    d.terms[0].flags = ECS_MODIFIED;
    it = ecs_system_view(ctx, &d);
    if (!movement__slice_of(&it, k, n)) return 0;
    while (ecs_iter_next(&it)) count++;
    return count;
}
static inline uint32_t movement__moved_slice(const ecs_system_ctx *ctx, uint32_t k, uint32_t n) {
    return movement__count_modified(ctx, ((const movement *)ctx->user)->position, k, n);
}
static inline uint32_t movement__bounced_slice(const ecs_system_ctx *ctx, uint32_t k, uint32_t n) {
    return movement__count_modified(ctx, ((const movement *)ctx->user)->velocity, k, n);
}

/* Modification tracking: which Positions and Velocities changed since this
   system last ran? ecs_system_view gives ECS_MODIFIED terms the system's
   own window (ctx->last_run .. now), so nothing needs clearing and another
   system asking the same question would get its own answer. Entities
   destroyed since then are not counted: they are gone. */
static inline int movement_report(const ecs_system_ctx *ctx) {
    const movement *m = (const movement *)ctx->user;
    Stats *s = ECS_UNIQUE_GET_MUT(ctx->world, m->stats, Stats);
    s->moved = movement__sliced(ctx, movement__moved_slice);
    s->bounced = movement__sliced(ctx, movement__bounced_slice);
    return 0;
}

/* --- setting up -------------------------------------------------------------- */

/* Registers everything in w, adds the uniques and the "frame" workload.
   m must stay where it is while the workload runs (the systems point at
   it). False if the world ran out of memory. */
static inline bool movement_init(movement *m, ecs_world *w, float width, float height) {
    /* Each system says what it reads and writes, so that the workload can
       tell which ones may run side by side (ecs_workload_plan). */
    ecs_system_desc sys[4];
    static const char *const frame[4] = {"integrate", "bounce", "expire", "report"};
    int i;
    m->w = w;
    m->parallel_for = NULL; /* every loop on the calling thread */
    m->parallel_user = NULL;
    m->slices = 1;
    m->position = ECS_COMPONENT(w, Position);
    m->velocity = ECS_COMPONENT(w, Velocity);
    m->lifetime = ECS_COMPONENT(w, Lifetime);
    m->frozen = ECS_TAG(w, "Frozen");
    m->time = ECS_COMPONENT(w, Time);
    m->bounds = ECS_COMPONENT(w, Bounds);
    m->stats = ECS_COMPONENT(w, Stats);
    if (!m->position || !m->velocity || !m->lifetime || !m->frozen || !m->time || !m->bounds ||
        !m->stats)
        return false;
    /* report asks what was modified: those storages record it */
    if (!ecs_track_set(w, m->position, ECS_TRACK_MODIFICATION) ||
        !ecs_track_set(w, m->velocity, ECS_TRACK_MODIFICATION))
        return false;
    if (!ECS_UNIQUE_ADD(w, m->time, Time, {0.25f}) || !ECS_UNIQUE_ADD(w, m->bounds, Bounds, {width, height}) ||
        !ECS_UNIQUE_ADD(w, m->stats, Stats, {0, 0, 0}))
        return false;

    memset(sys, 0, sizeof sys);
    for (i = 0; i < 4; i++) sys[i].name = frame[i], sys[i].user = m;
    sys[0].fn = movement_integrate;
    sys[0].reads[0] = m->velocity, sys[0].reads[1] = m->frozen, sys[0].reads[2] = m->time;
    sys[0].writes[0] = m->position;
    sys[1].fn = movement_bounce;
    sys[1].reads[0] = m->frozen, sys[1].reads[1] = m->bounds;
    sys[1].writes[0] = m->position, sys[1].writes[1] = m->velocity;
    sys[2].fn = movement_expire;
    sys[2].writes[0] = m->lifetime, sys[2].writes[1] = m->stats;
    sys[2].structural = true; /* it destroys (through commands) */
    sys[3].fn = movement_report;
    sys[3].reads[0] = m->position, sys[3].reads[1] = m->velocity;
    sys[3].writes[0] = m->stats;
    for (i = 0; i < 4; i++)
        if (!ecs_system_new(w, &sys[i])) return false;
    return ecs_workload_new(w, "frame", 4, frame);
}

/* A tiny deterministic generator, so every run (and the test) sees the
   same world. */
static inline uint32_t movement__rand(uint32_t *state, uint32_t n) {
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state % n;
}

/* count entities, placed at random on a 1/16 grid inside the box:
   1 in 8 stands still (no Velocity), 1 in 8 is Frozen, the rest move at
   1/16 to 8 units per second on each axis; 1 in 4 lives 1 to 12 frames.
   Each is created with its whole bundle at once (ecs_create_n). */
static inline bool movement_spawn(movement *m, uint32_t count, uint32_t seed) {
    const Bounds *b = ECS_UNIQUE_GET(m->w, m->bounds, Bounds);
    uint32_t rng = seed ? seed : 1, gw = (uint32_t)(b->w * 16), gh = (uint32_t)(b->h * 16), i;
    for (i = 0; i < count; i++) {
        ecs_component comps[4];
        const void *values[4];
        uint32_t n = 0, kind = movement__rand(&rng, 8);
        Position p;
        Velocity v;
        Lifetime life;
        p.x = (float)movement__rand(&rng, gw + 1) / 16;
        p.y = (float)movement__rand(&rng, gh + 1) / 16;
        v.x = (float)(1 + movement__rand(&rng, 128)) / 16 * (movement__rand(&rng, 2) ? 1 : -1);
        v.y = (float)(1 + movement__rand(&rng, 128)) / 16 * (movement__rand(&rng, 2) ? 1 : -1);
        life.frames = 1 + movement__rand(&rng, 12);
        comps[n] = m->position, values[n++] = &p;
        if (kind != 0) comps[n] = m->velocity, values[n++] = &v;
        if (kind == 1) comps[n] = m->frozen, values[n++] = NULL;
        if (movement__rand(&rng, 4) == 0) comps[n] = m->lifetime, values[n++] = &life;
        if (ecs_create_n(m->w, n, comps, values) == ECS_NULL) return false;
    }
    return true;
}

/* One frame: the whole workload. 0, or what a failing system returned. */
static inline int movement_frame(movement *m) { return ecs_workload_run(m->w, "frame"); }

/* True if a and b hold the same world, to the bit: as many entities alive,
   the same rows of Position, Velocity and Lifetime in the same order (the
   same entities, the same values), and the same Stats. A run in slices
   must give exactly what the serial run gives (examples/parallel.c,
   tests/test_parallel.c). */
static inline bool movement_equal(const movement *a, const movement *b) {
    const ecs_component ca[3] = {a->position, a->velocity, a->lifetime};
    const ecs_component cb[3] = {b->position, b->velocity, b->lifetime};
    int i;
    if (ecs_count(a->w) != ecs_count(b->w) ||
        memcmp(ECS_UNIQUE_GET(a->w, a->stats, Stats), ECS_UNIQUE_GET(b->w, b->stats, Stats), sizeof(Stats)) != 0)
        return false;
    for (i = 0; i < 3; i++) {
        const ecs_storage *sa = ecs_storage_of(a->w, ca[i]), *sb = ecs_storage_of(b->w, cb[i]);
        uint32_t n = ecs_storage_count(sa);
        size_t size = ecs_component_size(a->w, ca[i]);
        if (n != ecs_storage_count(sb) || size != ecs_component_size(b->w, cb[i]) ||
            (n && (memcmp(ecs_storage_entities(sa), ecs_storage_entities(sb), n * sizeof(ecs_entity)) != 0 ||
                   memcmp(ecs_storage_data(sa), ecs_storage_data(sb), n * size) != 0)))
            return false;
    }
    return true;
}

#endif /* MOVEMENT_H */
