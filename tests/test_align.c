/* A world whose allocator guarantees 64-byte blocks (ECS_MAX_ALIGN 64):
   a component registered with alignment 64 gets values at multiples of 64
   everywhere ecs.h hands one out (section 1, ECS_MAX_ALIGN): rows, the
   unique, and in a phase the proposed values and the reducer's next
   buffer (section 16), which are carved from one scratch block. */
#define ECS_MAX_ALIGN 64
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "test.h"
#include "../ecs.h"

#include <stdint.h>

typedef struct { int64_t v[8]; } Big; /* 64 bytes, registered with alignment 64 */

/* Blocks aligned to 64 from malloc: the address malloc gave sits just
   below the block. */
static void *align_alloc(size_t size, void *ctx) {
    unsigned char *raw = (unsigned char *)malloc(size + 64 + sizeof(void *)), *p;
    (void)ctx;
    if (!raw) return NULL;
    p = raw + sizeof(void *);
    p += (64 - (uintptr_t)p % 64) % 64;
    memcpy(p - sizeof(void *), &raw, sizeof raw);
    return p;
}
static void align_free(void *p, size_t size, void *ctx) {
    void *raw;
    (void)size, (void)ctx;
    if (!p) return;
    memcpy(&raw, (unsigned char *)p - sizeof(void *), sizeof raw);
    free(raw);
}
static void *align_realloc(void *p, size_t old, size_t size, void *ctx) {
    void *q = align_alloc(size, ctx);
    if (q && p) memcpy(q, p, old < size ? old : size);
    if (q) align_free(p, old, ctx);
    return q;
}

static ecs_world *aligned_world(void) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = align_alloc;
    d.allocator.free = align_free;
    d.allocator.realloc = align_realloc;
    return ecs_world_new(&d);
}

static int misaligned; /* pointers a reducer saw off a multiple of 64 */
static ecs_component big;
static int sum_firsts(const ecs_reduce *r, void *next) {
    uint32_t k;
    misaligned += (uintptr_t)next % 64 != 0;
    for (k = 0; k < r->n; k++) {
        misaligned += (uintptr_t)r->changes[k].value % 64 != 0;
        ((Big *)next)->v[0] += ((const Big *)r->changes[k].value)->v[0];
    }
    return ECS_REDUCE_SET;
}
static int propose_ones(const ecs_system_ctx *ctx) {
    ecs_iter it = ecs_view_of(ctx->world, 1, &big);
    Big one;
    memset(&one, 0, sizeof one);
    one.v[0] = 1;
    while (ecs_iter_next(&it))
        if (!ecs_propose_set(ctx->proposals, ecs_iter_entity(&it), big, &one)) return 1;
    return 0;
}

static void test_values_rows_and_uniques_are_aligned(void) {
    ecs_world *w = aligned_world();
    ecs_component small = ecs_register(w, "Small", 1, 1);
    ecs_entity e;
    Big b;
    int i;
    memset(&b, 0, sizeof b);
    big = ecs_register(w, "Big", sizeof(Big), 64);
    CHECK(big != 0);
    for (i = 0; i < 5; i++) {
        e = ecs_create(w);
        CHECK(ecs_add(w, e, small, NULL) && ecs_add(w, e, big, &b));
        CHECK_EQ((uintptr_t)ecs_get(w, e, big) % 64, 0u);
    }
    CHECK(ecs_unique_add(w, big, &b));
    CHECK_EQ((uintptr_t)ecs_unique_get(w, big) % 64, 0u);
    ecs_world_free(w);
}

/* Three systems propose for every entity (so values of several records
   and buckets follow each other in the scratch block); the reducer checks
   each pointer it gets and sums. */
static void test_a_phase_hands_reducers_aligned_values(void) {
    ecs_world *w = aligned_world();
    ecs_phase_desc pd;
    ecs_system_desc sd;
    const char *phases[1] = {"step"};
    const char *names[3] = {"a", "b", "c"};
    ecs_entity e[7];
    Big b;
    int i;
    memset(&b, 0, sizeof b);
    ecs_register(w, "Pad", 24, 8); /* an odd size before it */
    big = ecs_register(w, "Big", sizeof(Big), 64);
    for (i = 0; i < 7; i++) CHECK(ecs_add(w, e[i] = ecs_create(w), big, &b));
    memset(&pd, 0, sizeof pd);
    pd.name = "step";
    CHECK(ecs_phase_new(w, &pd) && ecs_phase_reducer(w, "step", big, sum_firsts, NULL));
    for (i = 0; i < 3; i++) {
        memset(&sd, 0, sizeof sd);
        sd.name = names[i];
        sd.fn = propose_ones;
        CHECK(ecs_phase_system(w, "step", &sd));
    }
    CHECK(ecs_schedule_new(w, "tick", 1, phases));
    misaligned = 0;
    CHECK_EQ(ecs_schedule_run(w, "tick"), 0);
    CHECK_EQ(misaligned, 0);
    for (i = 0; i < 7; i++) CHECK_EQ(((const Big *)ecs_get(w, e[i], big))->v[0], 3);
    ecs_world_free(w);
}

/* ECS_COMPONENT's alignment is the ABI's (C11 _Alignof, C++ alignof) in
   every language mode, so that files built as C99, C11 and C++ register a
   type alike: on i386, GNU __alignof__ said 8 for a double in C99 where
   C11 and C++ say 4 (the second registration was refused). */
struct probe_double { char c; double v; };
struct probe_u64 { char c; uint64_t v; };
static void test_alignment_is_the_abi_s_in_every_language_mode(void) {
    ecs_world *w = ecs_world_new(NULL);
    CHECK_EQ(ECS_ALIGNOF(double), offsetof(struct probe_double, v));
    CHECK_EQ(ECS_ALIGNOF(uint64_t), offsetof(struct probe_u64, v));
    CHECK(ecs_register(w, "Health", sizeof(double), ECS_ALIGNOF(double)) ==
          ecs_register(w, "Health", sizeof(double), offsetof(struct probe_double, v)));
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_values_rows_and_uniques_are_aligned);
    RUN(test_a_phase_hands_reducers_aligned_values);
    RUN(test_alignment_is_the_abi_s_in_every_language_mode);
    return test_summary();
}
