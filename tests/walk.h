/* walk.h - the three loop forms of a view as one call, for tests that
   check a behaviour in each. Include after ecs.h. */
#ifndef WALK_H
#define WALK_H

enum { WALK_NEXT, WALK_EACH, WALK_BLOCKS, WALK_FORMS };

/* Walks it with ecs_iter_next, ECS_EACH or ecs_iter_next_block (form),
   calling step(it, ctx) after each entity (each block: it.count of them);
   returns how many entities were handed out. */
static int walk(ecs_iter *it, int form, void (*step)(ecs_iter *it, void *ctx), void *ctx) {
    int n = 0;
    if (form == WALK_EACH) {
        ECS_EACH(it) {
            n++;
            step(it, ctx);
        }
    } else if (form == WALK_NEXT) {
        while (ecs_iter_next(it)) {
            n++;
            step(it, ctx);
        }
    } else {
        while (ecs_iter_next_block(it)) {
            n += (int)it->count;
            step(it, ctx);
        }
    }
    return n;
}

#endif
