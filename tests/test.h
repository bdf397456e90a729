/* test.h - the tiny harness every test file uses.

   A test file includes this first, then ecs.h (with ECS_IMPLEMENTATION in
   exactly one file of the binary). ECS_ASSERT is redirected to a recorder,
   so a test can check that a programmer error asserts *and* that the call
   still returns its documented failure value:

       EXPECT_ASSERT(ecs_add(w, stale, pos, NULL) == NULL, "not alive");

   An ECS_ASSERT that a test did not expect fails that test. main() runs the
   tests with RUN(name) and ends with `return test_summary();`, which prints
   "RESULT <passed> <failed>" for tests/run.sh to add up. */
#ifndef TEST_H
#define TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test__asserts, test__expected, test__failed, test__npass, test__nfail;
static char test__assert_msg[512];

static void test__on_assert(const char *msg) {
    test__asserts++;
    snprintf(test__assert_msg, sizeof test__assert_msg, "%s", msg);
}

#define ECS_ASSERT(cond, msg) ((cond) ? (void)0 : test__on_assert(msg))

/* Fails the current test and returns from it. */
#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);    \
            test__failed = 1;                                                    \
            return;                                                              \
        }                                                                        \
    } while (0)

/* expr must trigger exactly one ECS_ASSERT whose message contains substr. */
#define EXPECT_ASSERT(expr, substr)                                              \
    do {                                                                         \
        int before_ = test__asserts;                                             \
        CHECK(expr);                                                             \
        if (test__asserts != before_ + 1 || !strstr(test__assert_msg, (substr))) { \
            printf("  %s:%d: expected one ECS_ASSERT containing \"%s\", got %d: \"%s\"\n", \
                   __FILE__, __LINE__, (substr), test__asserts - before_, test__assert_msg); \
            test__failed = 1;                                                    \
            return;                                                              \
        }                                                                        \
        test__expected++;                                                        \
    } while (0)

#define RUN(fn) test__run(#fn, fn)

static void test__run(const char *name, void (*fn)(void)) {
    test__asserts = test__expected = test__failed = 0;
    fn();
    if (!test__failed && test__asserts != test__expected) {
        printf("  unexpected ECS_ASSERT: \"%s\"\n", test__assert_msg);
        test__failed = 1;
    }
    printf("%s %s\n", test__failed ? "FAIL" : "ok  ", name);
    fflush(stdout); /* a sanitizer may end the process before exit flushes */
    if (test__failed)
        test__nfail++;
    else
        test__npass++;
}

static int test_summary(void) {
    printf("RESULT %d %d\n", test__npass, test__nfail);
    return test__nfail != 0;
}

/* A deterministic PRNG for randomized tests (xorshift64*). */
static unsigned long long test__rng = 0x9e3779b97f4a7c15ull;
static inline void test_seed(unsigned long long s) { test__rng = s ? s : 0x9e3779b97f4a7c15ull; }
static inline unsigned test_rand(unsigned n) {
    test__rng ^= test__rng >> 12;
    test__rng ^= test__rng << 25;
    test__rng ^= test__rng >> 27;
    return (unsigned)((test__rng * 2685821657736338717ull) >> 33) % (n ? n : 1);
}

#endif
