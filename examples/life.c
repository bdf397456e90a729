/* life.c - Conway's Game of Life as a tick of proposals (ecs.h section 16).

   Each cell is an entity. A generation is one step of the schedule
   "generation" (examples/life.h): in phase "count" the cells propose
   neighbour counts, which a reducer sums; in phase "rule" they propose
   their fate, applied in one pass. Systems only read the world, so the
   cells are emitted in 4 parts on a thread pool, and the result is the
   same as on one thread, bit for bit (tests/test_phases.c checks it). */
#include <stdio.h>
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"
#include "life.h"
#include "pool.h"

enum { W = 12, H = 8 };

static void show(const life *L, int gen) {
    uint32_t x, y;
    printf("generation %d\n", gen);
    for (y = 0; y < H; y++) {
        for (x = 0; x < W; x++) putchar(life_alive(L, x, y) ? '#' : '.');
        putchar('\n');
    }
}

int main(void) {
    static const char *start[H] = {
        ".#..........",
        "..#.........",
        "###.........",
        "............",
        "............",
        "........###.",
        "............",
        "............",
    };
    uint8_t cells[W * H];
    pool *p = pool_new(0);
    ecs_desc desc = {0};
    life L;
    int gen;
    for (gen = 0; gen < W * H; gen++) cells[gen] = start[gen / W][gen % W] == '#';
    desc.parallel_for = pool_for; /* the emitting system's parts run on the pool */
    desc.parallel_user = p;
    if (!p || !life_new(&L, &desc, W, H, cells, 4)) return 1;
    show(&L, 0);
    for (gen = 1; gen <= 4; gen++) {
        if (ecs_schedule_run(L.w, "generation") != 0) {
            printf("failed: %s\n", ecs_last_error_msg(L.w));
            return 1;
        }
        show(&L, gen);
    }
    printf("(a glider moves down-right; the blinker turns)\n");
    life_free(&L);
    pool_free(p);
    return 0;
}
