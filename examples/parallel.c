/* parallel.c - the movement workload of examples/movement.h on every core.

   A thread pool (examples/pool.h: plain C and pthreads, one thread per
   core) does two jobs here:
   - it is the world's parallel_for (ecs_desc), which runs the systems of a
     workload batch side by side. (The "frame" workload has no such batch:
     each of its systems conflicts with the one before; movement.c prints
     why. A workload of independent systems would use it.)
   - it runs the loops of integrate, bounce and report in slices
     (ecs_iter_chunk): movement.parallel_for. That is where the time goes.
   Each slice walks its own entities and writes only their values, so a
   frame comes out exactly as in a serial run: this program runs both,
   world by world, and compares them after every frame.

       parallel              20000 entities, 8 frames
       parallel N [FRAMES]   N entities (default 10 frames), with the wall
                             time of each frame, serial and parallel:
                             `parallel 1000000 10`
*/
#define _POSIX_C_SOURCE 199309L /* clock_gettime in strict C99 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"
#include "movement.h"
#include "pool.h"

enum { BOX_W = 64, BOX_H = 16, SEED = 2026 };

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A world with the movement systems and count entities; desc may be NULL. */
static bool setup(movement *m, const ecs_desc *desc, uint32_t count) {
    ecs_world *w = ecs_world_new(desc);
    return w && movement_init(m, w, BOX_W, BOX_H) && movement_spawn(m, count, SEED);
}

int main(int argc, char **argv) {
    uint32_t count = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 20000;
    uint32_t frames = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : argc > 1 ? 10 : 8;
    int timed = argc > 1;
    double serial_ms = 0, parallel_ms = 0;
    pool *p = pool_new(0); /* one thread per core, this one included */
    movement serial, par;
    ecs_desc desc;
    uint32_t f;

    memset(&desc, 0, sizeof desc);
    desc.parallel_for = pool_for; /* batches of several systems run on the pool */
    desc.parallel_user = p;
    if (!p || !setup(&serial, NULL, count) || !setup(&par, &desc, count)) {
        fprintf(stderr, "parallel: out of memory\n");
        return 1;
    }
    /* the loops of integrate, bounce and report: a few slices per thread,
       so a thread that is held up by something else is not waited for long */
    par.parallel_for = pool_for;
    par.parallel_user = p;
    par.slices = 4 * pool_threads(p);

    printf("%u entities; one world runs the frames serially, the other runs integrate,\n"
           "bounce and report in slices on a thread pool with one thread per core\n", (unsigned)count);
    if (timed) printf("(%u threads, %u slices)\n", (unsigned)pool_threads(p), (unsigned)par.slices);
    for (f = 1; f <= frames; f++) {
        const Stats *s;
        double t0 = now_ms(), t1, t2;
        int rc_serial = movement_frame(&serial), rc_par;
        t1 = now_ms();
        rc_par = movement_frame(&par);
        t2 = now_ms();
        if (rc_serial != 0 || rc_par != 0) {
            fprintf(stderr, "parallel: %s\n", ecs_last_error_msg(rc_serial ? serial.w : par.w));
            return 1;
        }
        s = ECS_UNIQUE_GET(par.w, par.stats, Stats);
        if (!movement_equal(&serial, &par)) {
            printf("frame %2u: the parallel world differs from the serial one\n", (unsigned)f);
            return 1;
        }
        printf("frame %2u: %u alive, %u moved, %u bounced, %u expired; the same as serial", (unsigned)f,
               (unsigned)ecs_count(par.w), (unsigned)s->moved, (unsigned)s->bounced, (unsigned)s->expired);
        if (timed) printf("   %.2f ms serial, %.2f ms parallel", t1 - t0, t2 - t1);
        printf("\n");
        serial_ms += t1 - t0;
        parallel_ms += t2 - t1;
    }
    if (timed && parallel_ms > 0)
        printf("all frames: %.1f ms serial, %.1f ms parallel: %.2fx as fast\n", serial_ms, parallel_ms,
               serial_ms / parallel_ms);
    ecs_world_free(serial.w);
    ecs_world_free(par.w);
    pool_free(p);
    return 0;
}
