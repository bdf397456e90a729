/* quickstart.c - the README's quick start as a program, with printf lines
   that show what each step did. */
#include <stdio.h>
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { float x, y; } Vel;

int main(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos), vel = ECS_COMPONENT(w, Vel);
    ecs_entity e = ecs_create(w);
    ECS_ADD(w, e, pos, Pos, {0, 0});            /* add or replace */
    ECS_ADD(w, e, vel, Vel, {1, 2});
    const Pos *p = ECS_GET(w, e, pos, Pos);     /* NULL if absent or e is stale */
    printf("quickstart: entity %s has Pos {%g, %g}\n", ecs_entity_str(e, (char[ECS_ENTITY_STR]){0}),
           (double)p->x, (double)p->y);         /* use p before the next add/remove of Pos */
    Pos out; ecs_remove(w, e, pos, &out);       /* takes it out */
    printf("quickstart: removed Pos {%g, %g}; has Pos: %d, has Vel: %d\n", (double)out.x,
           (double)out.y, ecs_has(w, e, pos), ecs_has(w, e, vel));
    ecs_destroy(w, e);
    printf("quickstart: destroyed; alive: %d, entities: %u\n", ecs_alive(w, e), (unsigned)ecs_count(w));
    ecs_world_free(w);
    return 0;
}
