/* The thread pool of examples/pool.h, and the movement workload of
   examples/movement.h run in slices on it (examples/parallel.c): every
   frame gives the world the serial run gives, to the bit. */
#include "test.h"
#include <time.h>
#include "../ecs.h"
#include "../examples/movement.h"
#include "../examples/pool.h"

/* --- the pool ----------------------------------------------------------------- */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t all_in;
    uint32_t runs[1000];   /* per index: how often it ran */
    uint32_t inside, most; /* jobs running now; most at once */
    uint32_t wait_for;     /* a job waits (up to 5 s) until this many run at once */
} pool_probe;

static void probe_init(pool_probe *pr, uint32_t wait_for) {
    memset(pr, 0, sizeof *pr);
    pthread_mutex_init(&pr->lock, NULL);
    pthread_cond_init(&pr->all_in, NULL);
    pr->wait_for = wait_for;
}
static void probe_free(pool_probe *pr) {
    pthread_cond_destroy(&pr->all_in);
    pthread_mutex_destroy(&pr->lock);
}

static void probe_job(void *arg, uint32_t i) {
    pool_probe *pr = (pool_probe *)arg;
    pthread_mutex_lock(&pr->lock);
    pr->runs[i]++;
    if (++pr->inside > pr->most) pr->most = pr->inside;
    if (pr->inside >= pr->wait_for) pthread_cond_broadcast(&pr->all_in);
    if (pr->wait_for) {
        time_t give_up = time(NULL) + 5;
        while (pr->most < pr->wait_for && time(NULL) < give_up) {
            struct timespec t;
            t.tv_sec = time(NULL) + 1;
            t.tv_nsec = 0;
            pthread_cond_timedwait(&pr->all_in, &pr->lock, &t);
        }
    }
    pr->inside--;
    pthread_mutex_unlock(&pr->lock);
}

static void test_pool_runs_every_index_once(void) {
    uint32_t threads, i;
    for (threads = 1; threads <= 4; threads++) {
        pool *p = pool_new(threads);
        pool_probe pr;
        CHECK(p && pool_threads(p) == threads);
        probe_init(&pr, 0);
        pool_for(probe_job, &pr, 1000, p);
        for (i = 0; i < 1000; i++) CHECK_EQ(pr.runs[i], 1);
        pool_for(probe_job, &pr, 3, p); /* the pool is reusable */
        CHECK(pr.runs[0] == 2 && pr.runs[2] == 2 && pr.runs[3] == 1);
        pool_for(probe_job, &pr, 0, p);
        probe_free(&pr);
        pool_free(p);
    }
}

/* Every job waits until all of them run at once: only a pool that really
   runs them on pool_threads() threads passes without the 5 s timeout. */
static void test_pool_runs_a_job_on_every_thread_at_once(void) {
    pool *p = pool_new(4);
    pool_probe pr;
    CHECK(p && pool_threads(p) == 4);
    probe_init(&pr, 4);
    pool_for(probe_job, &pr, 4, p);
    CHECK_EQ(pr.most, 4);
    probe_free(&pr);
    pool_free(p);
}

typedef struct {
    pool *p;
    pool_probe *pr;
} nested;
static void nested_job(void *arg, uint32_t i) {
    nested *n = (nested *)arg;
    (void)i;
    pool_for(probe_job, n->pr, 10, n->p); /* the pool is busy: runs here */
}

static void test_pool_for_inside_a_job_runs_on_the_calling_thread(void) {
    pool *p = pool_new(3);
    pool_probe pr;
    nested n;
    uint32_t i;
    CHECK(p);
    probe_init(&pr, 0);
    n.p = p;
    n.pr = &pr;
    pool_for(nested_job, &n, 6, p);
    for (i = 0; i < 10; i++) CHECK_EQ(pr.runs[i], 6);
    probe_free(&pr);
    pool_free(p);
}

/* --- the movement workload in slices ------------------------------------------------- */

static bool setup(movement *m, const ecs_desc *desc, uint32_t count) {
    ecs_world *w = ecs_world_new(desc);
    return w && movement_init(m, w, 64, 16) && movement_spawn(m, count, 7);
}

/* Runs `frames` frames of a serial world and of one whose loops run in
   `slices` slices on p; the worlds must be equal after every frame. */
static bool same_as_serial(pool *p, uint32_t count, uint32_t slices, uint32_t frames) {
    movement serial, par;
    ecs_desc desc;
    bool same;
    uint32_t f;
    memset(&desc, 0, sizeof desc);
    desc.parallel_for = pool_for;
    desc.parallel_user = p;
    if (!setup(&serial, NULL, count) || !setup(&par, &desc, count)) return false;
    par.parallel_for = pool_for;
    par.parallel_user = p;
    par.slices = slices;
    same = movement_equal(&serial, &par);
    for (f = 0; f < frames && same; f++)
        same = movement_frame(&serial) == 0 && movement_frame(&par) == 0 && movement_equal(&serial, &par);
    if (same && ecs_count(par.w) == 0) same = false; /* a world emptied by a bug would compare equal */
    ecs_world_free(serial.w);
    ecs_world_free(par.w);
    return same;
}

static void test_movement_in_slices_equals_the_serial_run(void) {
    static const uint32_t slices[] = {2, 3, 8, 17, MOVEMENT_MAX_SLICES};
    pool *p = pool_new(4);
    uint32_t i;
    CHECK(p);
    for (i = 0; i < sizeof slices / sizeof slices[0]; i++) CHECK(same_as_serial(p, 5000, slices[i], 12));
    CHECK(same_as_serial(p, 24, 8, 12)); /* fewer entities than some slices have rows */
    pool_free(p);
}

/* The equality check itself sees a difference of one value. */
static void test_movement_equal_sees_one_changed_position(void) {
    movement a, b;
    Position *pos;
    CHECK(setup(&a, NULL, 100) && setup(&b, NULL, 100));
    CHECK(movement_equal(&a, &b));
    pos = (Position *)ecs_storage_data(ecs_storage_of(b.w, b.position));
    pos[50].x += 1.0f / 64;
    CHECK(!movement_equal(&a, &b));
    ecs_world_free(a.w);
    ecs_world_free(b.w);
}

/* As the world's parallel_for, the pool runs the systems of a batch side by side. */
static int count_system(const ecs_system_ctx *ctx) {
    pool_probe *pr = (pool_probe *)ctx->user;
    probe_job(pr, 0);
    return 0;
}

static void test_pool_as_parallel_for_runs_a_batch_at_once(void) {
    pool *p = pool_new(2);
    pool_probe pr;
    ecs_desc desc;
    ecs_world *w;
    ecs_system_desc sys;
    static const char *const both[2] = {"a", "b"};
    ecs_component ca, cb;
    CHECK(p);
    probe_init(&pr, 2); /* each system waits for the other */
    memset(&desc, 0, sizeof desc);
    desc.parallel_for = pool_for;
    desc.parallel_user = p;
    w = ecs_world_new(&desc);
    ca = ecs_register(w, "A", 4, 4);
    cb = ecs_register(w, "B", 4, 4);
    memset(&sys, 0, sizeof sys);
    sys.fn = count_system;
    sys.user = &pr;
    sys.name = "a";
    sys.writes[0] = ca;
    CHECK(ecs_system_new(w, &sys));
    sys.name = "b";
    sys.writes[0] = cb;
    CHECK(ecs_system_new(w, &sys));
    CHECK(ecs_workload_new(w, "both", 2, both));
    CHECK_EQ(ecs_workload_run(w, "both"), 0);
    CHECK(pr.runs[0] == 2 && pr.most == 2);
    ecs_world_free(w);
    probe_free(&pr);
    pool_free(p);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_pool_runs_every_index_once);
    RUN(test_pool_runs_a_job_on_every_thread_at_once);
    RUN(test_pool_for_inside_a_job_runs_on_the_calling_thread);
    RUN(test_movement_equal_sees_one_changed_position);
    RUN(test_movement_in_slices_equals_the_serial_run);
    RUN(test_pool_as_parallel_for_runs_a_batch_at_once);
    return test_summary();
}
