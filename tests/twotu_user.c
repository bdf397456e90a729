/* A file that only includes ecs.h: no implementation, no stb_ds names. */
#include "twotu.h"
#if defined(arrput) || defined(hmput) || defined(shput) || defined(STB_DS_IMPLEMENTATION)
#error "ecs.h leaked stb_ds into a file that only includes the header"
#endif
typedef struct { float x, y; } Pos;

int user_spawn(ecs_world *w, ecs_component pos, int n) {
    int i;
    for (i = 0; i < n; i++) {
        ecs_entity e = ecs_create(w);
        if (!ECS_ADD(w, e, pos, Pos, {(float)i, 0})) return 0;
    }
    return 1;
}

float user_sum_x(const ecs_world *w, ecs_component pos) {
    const Pos *p = (const Pos *)ecs_storage_data(ecs_storage_of(w, pos));
    uint32_t i, n = ecs_storage_count(ecs_storage_of(w, pos));
    float s = 0;
    for (i = 0; i < n; i++) s += p[i].x;
    return s;
}
