/* movement.c - entities moving and bouncing in a box: systems in a
   workload, uniques, an ECS_NOT filter, modification tracking and the
   command buffer. The systems are in examples/movement.h.

       movement                 24 entities, 8 frames, with pictures
       movement N [FRAMES]      N entities (default 10 frames), with the
                                time per frame: `movement 1000000 10`
*/
#include <stdlib.h>
#include <time.h>
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"
#include "movement.h"

enum { BOX_W = 64, BOX_H = 16 };

/* The box as text, two units of height per row: 'o' moves, '#' is frozen,
   '+' has no velocity. Reads the Position storage directly. */
static void draw(const movement *m) {
    char rows[BOX_H / 2][BOX_W + 1];
    const ecs_entity *ids = ecs_storage_entities(ecs_storage_of(m->w, m->position));
    const Position *p = (const Position *)ecs_storage_data(ecs_storage_of(m->w, m->position));
    uint32_t i, n = ecs_storage_count(ecs_storage_of(m->w, m->position));
    int r;
    memset(rows, '.', sizeof rows);
    for (r = 0; r < BOX_H / 2; r++) rows[r][BOX_W] = 0;
    for (i = 0; i < n; i++) {
        int col = (int)p[i].x, row = (BOX_H - 1 - (int)p[i].y) / 2;
        col = col < 0 ? 0 : col >= BOX_W ? BOX_W - 1 : col;
        row = row < 0 ? 0 : row >= BOX_H / 2 ? BOX_H / 2 - 1 : row;
        rows[row][col] = !ecs_has(m->w, ids[i], m->velocity) ? '+' : ecs_has(m->w, ids[i], m->frozen) ? '#' : 'o';
    }
    for (r = 0; r < BOX_H / 2; r++) printf("    |%s|\n", rows[r]);
}

/* The workload's batches: which systems could run side by side, and why
   each of the others could not join the batch before it. */
static void print_plan(const ecs_world *w) {
    ecs_plan_step steps[8];
    uint32_t i, n = ecs_workload_plan(w, "frame", steps, 8);
    printf("workload \"frame\":\n");
    for (i = 0; i < n; i++)
        printf("  batch %u: %-9s %s\n", (unsigned)steps[i].batch, steps[i].system,
               *steps[i].reason ? steps[i].reason : "(first)");
}

int main(int argc, char **argv) {
    uint32_t count = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 24;
    uint32_t frames = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : argc > 1 ? 10 : 8;
    int timed = argc > 1, pictures = count <= 100 && !timed;
    uint32_t f;
    movement m;
    ecs_world *w = ecs_world_new(NULL);
    clock_t t0 = clock();

    if (!w || !movement_init(&m, w, BOX_W, BOX_H) || !movement_spawn(&m, count, 2026)) {
        fprintf(stderr, "movement: out of memory\n");
        return 1;
    }
    print_plan(w);
    printf("%u entities in a %dx%d box, dt = %g s", (unsigned)ecs_count(w), BOX_W, BOX_H,
           (double)ECS_UNIQUE_GET(w, m.time, Time)->dt);
    if (timed) printf(" (spawned in %.1f ms)", 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (pictures) printf("; o moves, # is frozen, + has no velocity");
    printf("\n");
    if (pictures) draw(&m);

    for (f = 1; f <= frames; f++) {
        const Stats *s;
        t0 = clock();
        if (movement_frame(&m) != 0) {
            fprintf(stderr, "movement: %s\n", ecs_last_error_msg(w));
            return 1;
        }
        s = ECS_UNIQUE_GET(w, m.stats, Stats);
        printf("frame %2u: %u alive, %u moved, %u bounced, %u expired", (unsigned)f,
               (unsigned)ecs_count(w), (unsigned)s->moved, (unsigned)s->bounced, (unsigned)s->expired);
        if (timed) printf("   %.2f ms", 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC);
        printf("\n");
        if (pictures && (f % 4 == 0 || f == frames)) draw(&m);
    }
    ecs_world_free(w);
    return 0;
}
