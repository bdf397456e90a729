/* solar.h - the small solar system of examples/hierarchy.c and
   examples/save_load.c: its components, how a body is made, one frame of
   turning, and a walk over the trees in print order.

   Include after ecs.h and hierarchy.h. Every function is static. */
#ifndef SOLAR_H
#define SOLAR_H

#include <math.h>
#include <string.h>

#define DEG (3.14159265f / 180.0f)

typedef struct { const char *s; } Name;
typedef struct { float per_frame; } Spin; /* radians added to Transform.angle each frame */

typedef struct scene {
    ecs_world *w;
    hierarchy h; /* the hooks point at it: it stays here while the world lives */
    ecs_component name, spin, local, world;
} scene;

/* Registers the scene's components in s->w: Parent and Child
   (hierarchy_init), then Name, Spin, Transform, WorldTransform. */
static bool scene_init(scene *s) {
    if (!s->w || !hierarchy_init(&s->h, s->w)) return false;
    s->name = ECS_COMPONENT(s->w, Name);
    s->spin = ECS_COMPONENT(s->w, Spin);
    s->local = ECS_COMPONENT(s->w, Transform);
    s->world = ECS_COMPONENT(s->w, WorldTransform);
    return s->name && s->spin && s->local && s->world;
}

/* A body `distance` away from its parent (a root if parent is ECS_NULL),
   turning spin_degrees per frame. */
static ecs_entity body(scene *s, const char *name, ecs_entity parent, float distance, float spin_degrees) {
    ecs_entity e = parent ? hierarchy_attach_new(&s->h, parent) : ecs_create(s->w);
    ECS_ADD(s->w, e, s->name, Name, {name});
    ECS_ADD(s->w, e, s->local, Transform, {distance, 0, 0});
    ECS_ADD(s->w, e, s->world, WorldTransform, {0, 0, 0});
    if (spin_degrees != 0) ECS_ADD(s->w, e, s->spin, Spin, {spin_degrees * DEG});
    return e;
}

static const char *name_of(const scene *s, ecs_entity e) {
    const Name *n = ECS_GET(s->w, e, s->name, Name);
    return n ? n->s : "?";
}

/* One frame: every spinning body turns its own frame, so whatever orbits
   it (its children) turns with it once the transforms are updated. */
static void turn(scene *s) {
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = s->local;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = s->spin;
    for (it = ecs_view(s->w, &d); ecs_iter_next(&it);)
        ECS_FIELD(&it, 0, Transform)->angle += ECS_FIELD(&it, 1, Spin)->per_frame;
}

/* Sibling order by distance from the parent (hierarchy_sort_children_by). */
static int by_distance(ecs_entity a, ecs_entity b, void *ctx) {
    const scene *s = (const scene *)ctx;
    float da = ECS_GET(s->w, a, s->local, Transform)->x, db = ECS_GET(s->w, b, s->local, Transform)->x;
    return (da > db) - (da < db);
}

static double shown(float v) { return v > -0.005f && v < 0.005f ? 0.0 : v; } /* no "-0.00" */
static double degrees(float radians) { return fmod(shown(radians / DEG) + 360.0, 360.0); }

/* Updates the world transforms, then calls line(s, e, depth, ctx) for
   every body in print order: roots by entity index, each subtree
   depth-first with its depth. */
static void scene_walk(scene *s, void (*line)(const scene *s, ecs_entity e, int depth, void *ctx), void *ctx) {
    ecs_entity roots[16];
    uint32_t nroots = 0, i, j, n = ecs_storage_count(ecs_storage_of(s->w, s->name));
    const ecs_entity *all = ecs_storage_entities(ecs_storage_of(s->w, s->name));
    hierarchy_update_transforms(&s->h, s->local, s->world);
    for (i = 0; i < n && nroots < 16; i++) {
        ecs_entity e = all[i];
        if (hierarchy_parent_of(&s->h, e)) continue;
        for (j = nroots++; j > 0 && ECS_ENTITY_INDEX(roots[j - 1]) > ECS_ENTITY_INDEX(e); j--)
            roots[j] = roots[j - 1];
        roots[j] = e;
    }
    for (i = 0; i < nroots; i++) {
        hierarchy_iter d;
        line(s, roots[i], 0, ctx);
        for (d = hierarchy_descendants(&s->h, roots[i]); hierarchy_next(&d);) {
            hierarchy_iter up;
            int depth = 0;
            for (up = hierarchy_ancestors(&s->h, d.entity); hierarchy_next(&up);) depth++;
            line(s, d.entity, depth, ctx);
        }
    }
}

#endif /* SOLAR_H */
