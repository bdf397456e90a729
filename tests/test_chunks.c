/* Range-split iteration: K threads each walk one chunk of a view's lead
   range; together they visit exactly what the serial walk visits. */
#include "test.h"
#include <pthread.h>
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { float x, y; } Vel;

#define NTHREADS 4
static ecs_world *w;
static ecs_component pos, vel;

typedef struct {
    uint32_t k;
    uint32_t visited;
} job;

/* Integrates Pos += Vel on its chunk: writes only the iterated component. */
static void *integrate(void *arg) {
    job *j = (job *)arg;
    ecs_component both[2];
    ecs_iter it;
    both[0] = pos;
    both[1] = vel;
    it = ecs_view_of(w, 2, both);
    if (!ecs_iter_chunk(&it, j->k, NTHREADS)) return NULL;
    while (ecs_iter_next(&it)) {
        Pos *p = ECS_FIELD(&it, 0, Pos);
        const Vel *v = ECS_FIELD(&it, 1, Vel);
        p->x += v->x;
        p->y += v->y;
        j->visited++;
    }
    return NULL;
}

static void build(void) {
    int i;
    w = ecs_world_new(NULL);
    pos = ECS_COMPONENT(w, Pos);
    vel = ECS_COMPONENT(w, Vel);
    for (i = 0; i < 10007; i++) {
        ecs_entity e = ecs_create(w);
        ECS_ADD(w, e, pos, Pos, {(float)i, 0});
        if (i % 3) ECS_ADD(w, e, vel, Vel, {1, (float)(i % 7)});
    }
}

static void test_parallel_chunks_equal_the_serial_walk(void) {
    pthread_t th[NTHREADS];
    job jobs[NTHREADS];
    Pos *serial;
    uint32_t k, total = 0, n, i;
    /* serial reference */
    build();
    for (k = 0; k < NTHREADS; k++) {
        jobs[k].k = k;
        jobs[k].visited = 0;
    }
    {
        job all = {0, 0};
        ecs_component both[2];
        ecs_iter it;
        both[0] = pos;
        both[1] = vel;
        for (it = ecs_view_of(w, 2, both); ecs_iter_next(&it); all.visited++) {
            ECS_FIELD(&it, 0, Pos)->x += ECS_FIELD(&it, 1, Vel)->x;
            ECS_FIELD(&it, 0, Pos)->y += ECS_FIELD(&it, 1, Vel)->y;
        }
        n = ecs_storage_count(ecs_storage_of(w, pos));
        serial = (Pos *)malloc(n * sizeof *serial);
        memcpy(serial, ecs_storage_data(ecs_storage_of(w, pos)), n * sizeof *serial);
        CHECK_EQ(all.visited, 10007 - 3336);
        ecs_world_free(w);
    }
    /* the same world, built again, integrated by 4 threads */
    build();
    for (k = 0; k < NTHREADS; k++) CHECK_EQ(pthread_create(&th[k], NULL, integrate, &jobs[k]), 0);
    for (k = 0; k < NTHREADS; k++) {
        pthread_join(th[k], NULL);
        CHECK_GT(jobs[k].visited, 0);
        total += jobs[k].visited;
    }
    CHECK_EQ(total, 10007 - 3336);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, pos)), n);
    for (i = 0; i < n; i++) {
        const Pos *p = (const Pos *)ecs_storage_data(ecs_storage_of(w, pos)) + i;
        CHECK(p->x == serial[i].x && p->y == serial[i].y);
    }
    free(serial);
    ecs_world_free(w);
}

static void test_chunks_partition_the_lead_range(void) {
    uint32_t k, n = 0;
    ecs_iter it;
    build();
    for (k = 0; k < 5; k++) {
        it = ecs_view_of(w, 1, &pos);
        CHECK(ecs_iter_chunk(&it, k, 5));
        while (ecs_iter_next(&it)) n++;
    }
    CHECK_EQ(n, 10007);
    it = ecs_view_of(w, 1, &pos);
    EXPECT_ASSERT(!ecs_iter_chunk(&it, 5, 5), "needs k < nchunks");
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_parallel_chunks_equal_the_serial_walk);
    RUN(test_chunks_partition_the_lead_range);
    return test_summary();
}
