/* pool.h - a small thread pool in plain C (POSIX threads; on Windows,
   mingw-w64's winpthreads), shaped like ecs.h's parallel_for hook, so it
   plugs into a world as is:

       pool *p = pool_new(0);            one thread per core, the caller included
       ecs_desc desc = {0};
       desc.parallel_for = pool_for;     a workload batch's systems run on it
       desc.parallel_user = p;
       pool_for(job, arg, n, p);         job(arg, i) for i = 0..n-1 on every
                                         thread; returns when all are done
       pool_free(p);

   The indices are handed out one at a time from a counter, so uneven jobs
   even out, and the calling thread takes its share. A pool_for called
   while the pool is busy (from inside a job, or from another thread) runs
   its jobs on the calling thread: nesting is safe and never deadlocks.
   examples/parallel.c uses it for the movement workload. */
#ifndef POOL_H
#define POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(_WIN32)
#include <windows.h>
#else
#include <unistd.h>
#endif

typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work;          /* a job was posted, or the pool closes */
    pthread_cond_t done;          /* the job's last index finished */
    pthread_t *workers;
    uint32_t nthreads;            /* workers + the caller */
    /* the job being run, all under lock */
    void (*job)(void *arg, uint32_t i);
    void *arg;
    uint32_t n, next, finished;   /* indices: count, next to hand out, done */
    uint64_t posted;              /* jobs posted so far: a worker joins each once */
    bool busy, closing;
} pool;

/* The number of cores the system has online (at least 1). */
static inline uint32_t pool_cores(void) {
#if defined(_WIN32)
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwNumberOfProcessors ? (uint32_t)si.dwNumberOfProcessors : 1;
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1;
#endif
}

/* Runs the current job's indices until none is left to hand out. Called
   with the lock held; returns with it held. */
static inline void pool__drain(pool *p) {
    void (*job)(void *, uint32_t) = p->job;
    void *arg = p->arg;
    while (p->next < p->n) {
        uint32_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        job(arg, i);
        pthread_mutex_lock(&p->lock);
        if (++p->finished == p->n) pthread_cond_signal(&p->done);
    }
}

static inline void *pool__worker(void *arg) {
    pool *p = (pool *)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->closing && p->posted == seen) pthread_cond_wait(&p->work, &p->lock);
        if (p->closing) break;
        seen = p->posted;
        pool__drain(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* A pool of nthreads threads, the caller of pool_for included (so
   nthreads - 1 workers); 0: pool_cores(). NULL if out of memory. If the
   system refuses to start a thread, the pool runs with those it has. */
static inline pool *pool_new(uint32_t nthreads) {
    pool *p = (pool *)calloc(1, sizeof *p);
    uint32_t i;
    if (!p) return NULL;
    if (!nthreads) nthreads = pool_cores();
    p->workers = (pthread_t *)calloc(nthreads, sizeof *p->workers);
    if (!p->workers) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->nthreads = 1;
    for (i = 1; i < nthreads; i++)
        if (pthread_create(&p->workers[p->nthreads - 1], NULL, pool__worker, p) == 0) p->nthreads++;
    return p;
}

/* The number of threads that run jobs, the caller included. */
static inline uint32_t pool_threads(const pool *p) { return p->nthreads; }

/* job(arg, i) for every i in 0..n-1, on the pool's threads and this one;
   returns when every call has returned. The signature is ecs_parallel_fn:
   user is the pool. */
static inline void pool_for(void (*job)(void *arg, uint32_t i), void *arg, uint32_t n, void *user) {
    pool *p = (pool *)user;
    uint32_t i;
    pthread_mutex_lock(&p->lock);
    if (p->busy || p->nthreads < 2 || n < 2) { /* nested, no workers, or nothing to share */
        pthread_mutex_unlock(&p->lock);
        for (i = 0; i < n; i++) job(arg, i);
        return;
    }
    p->busy = true;
    p->job = job;
    p->arg = arg;
    p->n = n;
    p->next = p->finished = 0;
    p->posted++;
    pthread_cond_broadcast(&p->work);
    pool__drain(p);
    while (p->finished < p->n) pthread_cond_wait(&p->done, &p->lock);
    p->busy = false;
    pthread_mutex_unlock(&p->lock);
}

/* Stops and joins the workers, frees the pool. NULL is ignored. */
static inline void pool_free(pool *p) {
    uint32_t i;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->closing = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (i = 0; i + 1 < p->nthreads; i++) pthread_join(p->workers[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p->workers);
    free(p);
}

#endif /* POOL_H */
