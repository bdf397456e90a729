/* hierarchy.c - a small solar system as a transform hierarchy.

   Builds sun -> planets -> moons with examples/hierarchy.h (the scene's
   components and helpers are in examples/solar.h), turns it for a few
   frames, hands the moon (and the lander on it) to another planet,
   destroys a planet, then a whole subtree, and prints the tree with world
   positions after each step. */
#include <stddef.h>
#include <stdio.h>
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"
#include "hierarchy.h"
#include "solar.h"

static void print_children(const scene *s, ecs_entity e) {
    hierarchy_iter it;
    printf("  children of %s:", name_of(s, e));
    for (it = hierarchy_children(&s->h, e); hierarchy_next(&it);) printf(" %s", name_of(s, it.entity));
    printf("\n");
}

static void print_line(const scene *s, ecs_entity e, int depth, void *ctx) {
    const WorldTransform *t = ECS_GET(s->w, e, s->world, WorldTransform);
    (void)ctx;
    printf("  %*s%-*s (%7.2f, %7.2f) %4.0f deg\n", 2 * depth, "", 12 - 2 * depth, name_of(s, e),
           shown(t->x), shown(t->y), degrees(t->angle));
}

/* Every tree with world positions (examples/solar.h: scene_walk). */
static void print_scene(scene *s, const char *title) {
    printf("%s\n", title);
    scene_walk(s, print_line, NULL);
    printf("\n");
}

/* Bodies found by name through indexes on Name (ecs.h section 14):
   hashed for "which body is called X", ordered for a range of names,
   which a view's index term walks in key order. */
static void find_by_name(scene *s) {
    ecs_index_desc d = {0};
    ecs_view_desc v = {0};
    ecs_index by_name, in_order;
    ecs_entity found[8];
    const char *moon = "moon", *from = "m", *to = "n";
    uint32_t n;
    d.c = s->name;
    d.offset = offsetof(Name, s);
    d.size = sizeof(const char *);
    d.kind = ECS_KEY_STRING;
    by_name = ecs_index_new(s->w, &d);
    d.ordered = true;
    in_order = ecs_index_new(s->w, &d);
    n = ecs_index_find(s->w, by_name, &moon, found, 8);
    printf("   found by name: \"moon\" is %u entity, whose parent is %s\n", n,
           n ? name_of(s, hierarchy_parent_of(&s->h, found[0])) : "-");
    v.terms[0].c = s->name;
    v.where.index = in_order;
    v.where.lo = &from, v.where.hi = &to, v.where.flags = ECS_RANGE_HI_OPEN;
    printf("   names from \"m\" up to \"n\", in order:");
    ECS_EACH_VIEW(it, s->w, &v) printf(" %s", ECS_FIELD(&it, 0, Name)->s);
    printf("\n\n");
}

int main(void) {
    scene s;
    ecs_entity sun, mars, earth, moon;
    hierarchy_result r;
    int frame;

    s.w = ecs_world_new(NULL);
    if (!scene_init(&s)) return 1;

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
    find_by_name(&s);

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
