/* hierarchy.c - a small solar system as a transform hierarchy.

   Builds sun -> planets -> moons with examples/hierarchy.h, turns it for a
   few frames, hands the moon (and the lander on it) to another planet,
   destroys a planet, then a whole subtree, and prints the tree with world
   positions after each step. */
#include <stdio.h>
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"
#include "hierarchy.h"

#define DEG (3.14159265f / 180.0f)

typedef struct { const char *s; } Name;
typedef struct { float per_frame; } Spin; /* radians added to Transform.angle each frame */

typedef struct scene {
    ecs_world *w;
    hierarchy h; /* the hooks point at it: it stays here while the world lives */
    ecs_component name, spin, local, world;
} scene;

/* A body `distance` away from its parent (a root if parent is ECS_NULL). */
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

/* Sibling order by distance from the parent. */
static int by_distance(ecs_entity a, ecs_entity b, void *ctx) {
    const scene *s = (const scene *)ctx;
    float da = ECS_GET(s->w, a, s->local, Transform)->x, db = ECS_GET(s->w, b, s->local, Transform)->x;
    return (da > db) - (da < db);
}

static double shown(float v) { return v > -0.005f && v < 0.005f ? 0.0 : v; } /* no "-0.00" */
static double degrees(float radians) { return fmod(shown(radians / DEG) + 360.0, 360.0); }

static void print_children(const scene *s, ecs_entity e) {
    hierarchy_iter it;
    printf("  children of %s:", name_of(s, e));
    for (it = hierarchy_children(&s->h, e); hierarchy_next(&it);) printf(" %s", name_of(s, it.entity));
    printf("\n");
}

static void print_line(const scene *s, ecs_entity e, int depth) {
    const WorldTransform *t = ECS_GET(s->w, e, s->world, WorldTransform);
    printf("  %*s%-*s (%7.2f, %7.2f) %4.0f deg\n", 2 * depth, "", 12 - 2 * depth, name_of(s, e),
           shown(t->x), shown(t->y), degrees(t->angle));
}

/* Updates the world transforms, then prints every tree: roots by entity
   index, each subtree depth-first with its depth as indentation. */
static void print_scene(scene *s, const char *title) {
    ecs_entity roots[16];
    uint32_t nroots = 0, i, j;
    const ecs_entity *all = ecs_storage_entities(ecs_storage_of(s->w, s->name));
    hierarchy_update_transforms(&s->h, s->local, s->world);
    for (i = 0; i < ecs_storage_count(ecs_storage_of(s->w, s->name)) && nroots < 16; i++) {
        ecs_entity e = all[i];
        if (hierarchy_parent_of(&s->h, e)) continue;
        for (j = nroots++; j > 0 && ECS_ENTITY_INDEX(roots[j - 1]) > ECS_ENTITY_INDEX(e); j--)
            roots[j] = roots[j - 1];
        roots[j] = e;
    }
    printf("%s\n", title);
    for (i = 0; i < nroots; i++) {
        hierarchy_iter d;
        print_line(s, roots[i], 0);
        for (d = hierarchy_descendants(&s->h, roots[i]); hierarchy_next(&d);) {
            hierarchy_iter up;
            int depth = 0;
            for (up = hierarchy_ancestors(&s->h, d.entity); hierarchy_next(&up);) depth++;
            print_line(s, d.entity, depth);
        }
    }
    printf("\n");
}

int main(void) {
    scene s;
    ecs_entity sun, mars, earth, moon;
    hierarchy_result r;
    int frame;

    s.w = ecs_world_new(NULL);
    if (!s.w || !hierarchy_init(&s.h, s.w)) return 1;
    s.name = ECS_COMPONENT(s.w, Name);
    s.spin = ECS_COMPONENT(s.w, Spin);
    s.local = ECS_COMPONENT(s.w, Transform);
    s.world = ECS_COMPONENT(s.w, WorldTransform);

    /* distances are along the parent's x axis; spins in degrees per frame */
    sun = body(&s, "sun", ECS_NULL, 0, 10);
    mars = body(&s, "mars", sun, 16, 30);
    body(&s, "phobos", mars, 1, 0);
    earth = body(&s, "earth", sun, 10, 90);
    moon = body(&s, "moon", earth, 2, 45);
    body(&s, "lander", moon, 0.5f, 0);
    body(&s, "station", earth, 1, 0);

    printf("1. built (children are kept in the order they were attached)\n");
    print_children(&s, sun);
    hierarchy_sort_children_by(&s.h, sun, by_distance, &s);
    print_children(&s, sun);
    print_scene(&s, "   sorted by distance; world positions:");

    for (frame = 1; frame <= 3; frame++) turn(&s);
    print_scene(&s, "2. after 3 frames: each body turned; children turn with their parent");

    hierarchy_attach(&s.h, moon, mars); /* moves the moon with the lander on it */
    print_scene(&s, "3. attach(moon, mars): the moon's subtree moves along");

    r = hierarchy_attach(&s.h, sun, moon);
    printf("4. attach(sun, moon) refused: %s\n\n", hierarchy_result_str(r));

    ecs_destroy(s.w, earth);
    print_scene(&s, "5. ecs_destroy(earth): the station is orphaned, placed by its own Transform");

    hierarchy_destroy_all(&s.h, mars);
    print_scene(&s, "6. hierarchy_destroy_all(mars): mars, phobos, the moon and the lander are gone");
    printf("entities alive: %u\n", (unsigned)ecs_count(s.w));

    ecs_world_free(s.w);
    return 0;
}
