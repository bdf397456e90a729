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

/* `./test_x NAME` runs only the test NAME (to see a crash in isolation):
   main calls test_only(argc, argv) first. */
static const char *test__only;
static inline void test_only(int argc, char **argv) { test__only = argc > 1 ? argv[1] : NULL; }

static void test__run(const char *name, void (*fn)(void)) {
    if (test__only && strcmp(test__only, name) != 0) return;
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

/* Does an assert message start with `call` followed by '(' or ':', and
   contain "entity " ent and comp (each when not NULL)? The _or_say form
   prints what is missing, with the caller's line. */
static inline int test_names(const char *msg, const char *call, const char *ent, const char *comp) {
    size_t n = strlen(call);
    char want[64];
    if (strncmp(msg, call, n) != 0 || (msg[n] != '(' && msg[n] != ':')) return 0;
    if (ent) {
        snprintf(want, sizeof want, "entity %s", ent);
        if (!strstr(msg, want)) return 0;
    }
    return !comp || strstr(msg, comp) != NULL;
}

static inline int test_names_or_say(const char *msg, const char *call, const char *ent, const char *comp,
                                    const char *file, int line) {
    if (test_names(msg, call, ent, comp)) return 1;
    printf("  %s:%d: the assert \"%s\" does not name %s, entity %s, %s\n", file, line, msg, call,
           ent ? ent : "-", comp ? comp : "-");
    return 0;
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
