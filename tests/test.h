/* test.h - the tiny harness every test file uses.

   A test file includes this first, then ecs.h. ECS_ASSERT is redirected to
   a recorder, so a test can check that a programmer error asserts *and*
   that the call still returns its documented failure value:

       EXPECT_ASSERT(ecs_add(w, stale, pos, NULL) == NULL, "not alive");

   An ECS_ASSERT that a test did not expect fails that test. main() starts
   with test_only(argc, argv), runs the tests with RUN(name) and ends with
   `return test_summary();`, which prints "RESULT <passed> <failed>" for
   tests/run.sh to add up.

   The implementation is compiled once per configuration (tests/impl.c,
   see the Makefile) and linked with each test file, which includes ecs.h
   without ECS_IMPLEMENTATION. The recorder, test__on_assert, is one
   external function that both sides call: it is defined in the file of the
   binary that holds the implementation, which defines ECS_IMPLEMENTATION
   *before* including this header (tests/impl.c; a test that needs its own
   configuration macros, such as ECS_VERSION_MAX, does the same and is
   built on its own). */
#ifndef TEST_H
#define TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what the recorder saw: the number of ECS_ASSERTs and the last message */
extern int test__asserts;
extern char test__assert_msg[512];
void test__on_assert(const char *msg);

#ifdef ECS_IMPLEMENTATION
int test__asserts;
char test__assert_msg[512];
void test__on_assert(const char *msg) {
    test__asserts++;
    snprintf(test__assert_msg, sizeof test__assert_msg, "%s", msg);
}
#endif

#define ECS_ASSERT(cond, msg) ((cond) ? (void)0 : test__on_assert(msg))

static int test__expected, test__failed, test__npass, test__nfail;

/* An allocator that runs out after `left` allocations (< 0: never), for
   the out-of-memory tests: ecs_desc.allocator = {budget_alloc,
   budget_free, ..., &b} (set the fields by name). */
typedef struct budget {
    long left;
} budget;
static inline void *budget_alloc(size_t size, void *ctx) {
    budget *b = (budget *)ctx;
    if (b->left == 0) return NULL;
    if (b->left > 0) b->left--;
    return malloc(size);
}
static inline void budget_free(void *p, size_t size, void *ctx) {
    (void)size, (void)ctx;
    free(p);
}

/* Fails the current test and returns from it. */
#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);    \
            test__failed = 1;                                                    \
            return;                                                              \
        }                                                                        \
    } while (0)

/* Comparisons that print both values when they fail, and the check as
   written (before its arguments' macros expand):

       CHECK_EQ(ecs_storage_count(s), 3);
         tests/test_x.c:12: CHECK_EQ(ecs_storage_count(s), 3) failed: 4 vs 3

   CHECK_EQ/NE/LT/LE/GT/GE take integers (enums and bools too); each side
   is evaluated once, and they are compared exactly as `a == b` would
   compare them: both converted to the type of `0 ? (a) : (b)` (the usual
   arithmetic conversions; __typeof__, which gcc, clang and tcc have).
   A pointer or a float is a compile error there (`| 0`), so a comparison
   never silently turns into an integer one. CHECK_PTR_EQ/NE compare
   pointers, CHECK_STR_EQ/NE strings (strcmp; NULL equals only NULL). */
#define CHECK_EQ(a, b) TEST__CMP("CHECK_EQ(" #a ", " #b ")", ==, a, b)
#define CHECK_NE(a, b) TEST__CMP("CHECK_NE(" #a ", " #b ")", !=, a, b)
#define CHECK_LT(a, b) TEST__CMP("CHECK_LT(" #a ", " #b ")", <, a, b)
#define CHECK_LE(a, b) TEST__CMP("CHECK_LE(" #a ", " #b ")", <=, a, b)
#define CHECK_GT(a, b) TEST__CMP("CHECK_GT(" #a ", " #b ")", >, a, b)
#define CHECK_GE(a, b) TEST__CMP("CHECK_GE(" #a ", " #b ")", >=, a, b)

#define TEST__CMP(name, op, a, b)                                                \
    do {                                                                         \
        __typeof__(0 ? (a) : (b)) test__a = (a), test__b = (b);                  \
        (void)sizeof((a) | 0), (void)sizeof((b) | 0); /* integers only */        \
        if (!(test__a op test__b)) {                                             \
            test__int_failed(__FILE__, __LINE__, name, /* signed? */             \
                             (__typeof__(test__a))-1 < (__typeof__(test__a))1,   \
                             (unsigned long long)test__a, (unsigned long long)test__b); \
            return;                                                              \
        }                                                                        \
    } while (0)

#define CHECK_PTR_EQ(a, b) TEST__PTR("CHECK_PTR_EQ(" #a ", " #b ")", ==, a, b)
#define CHECK_PTR_NE(a, b) TEST__PTR("CHECK_PTR_NE(" #a ", " #b ")", !=, a, b)
#define TEST__PTR(name, op, a, b)                                                \
    do {                                                                         \
        const void *test__a = (a), *test__b = (b);                               \
        if (!(test__a op test__b)) {                                             \
            printf("  %s:%d: %s failed: %p vs %p\n", __FILE__, __LINE__, name, \
                   (void *)test__a, (void *)test__b);                            \
            test__failed = 1;                                                    \
            return;                                                              \
        }                                                                        \
    } while (0)

#define CHECK_STR_EQ(a, b) TEST__STR("CHECK_STR_EQ(" #a ", " #b ")", 1, a, b)
#define CHECK_STR_NE(a, b) TEST__STR("CHECK_STR_NE(" #a ", " #b ")", 0, a, b)
#define TEST__STR(name, want, a, b)                                              \
    do {                                                                         \
        const char *test__a = (a), *test__b = (b);                               \
        if (test__str_same(test__a, test__b) != (want)) {                        \
            printf("  %s:%d: %s failed: ", __FILE__, __LINE__, name);            \
            test__print_str(test__a);                                            \
            printf(" vs ");                                                      \
            test__print_str(test__b);                                            \
            printf("\n");                                                        \
            test__failed = 1;                                                    \
            return;                                                              \
        }                                                                        \
    } while (0)

static inline void test__print_int(int is_signed, unsigned long long v) {
    if (is_signed)
        printf("%lld", (long long)v);
    else
        printf("%llu", v);
    if (!is_signed || (long long)v >= 0) /* an id's bits are easier to read in hex */
        if (v > 0xffff) printf(" (0x%llx)", v);
}

static inline void test__int_failed(const char *file, int line, const char *check, int is_signed,
                                    unsigned long long va, unsigned long long vb) {
    printf("  %s:%d: %s failed: ", file, line, check);
    test__print_int(is_signed, va);
    printf(" vs ");
    test__print_int(is_signed, vb);
    printf("\n");
    test__failed = 1;
}

static inline int test__str_same(const char *a, const char *b) {
    return a && b ? strcmp(a, b) == 0 : a == b;
}

static inline void test__print_str(const char *s) {
    if (s)
        printf("\"%s\"", s);
    else
        printf("NULL");
}

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

/* `./test_x NAME` runs only the test NAME (to see a crash in isolation;
   make check T=test_x N=NAME): main calls test_only(argc, argv) first. A
   NAME that no test has is a failure, and so is a main that does not call
   test_only, so that neither runs nothing quietly. */
static const char *test__only;
static int test__only_called;
static inline void test_only(int argc, char **argv) {
    test__only = argc > 1 ? argv[1] : NULL;
    test__only_called = 1;
}

static inline void test__run(const char *name, void (*fn)(void)) {
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

static inline int test_summary(void) {
    if (!test__only_called) {
        printf("FAIL main: it does not call test_only(argc, argv)\n");
        test__nfail++;
    } else if (test__only && test__npass + test__nfail == 0) {
        printf("FAIL no test is named \"%s\" in this file\n", test__only);
        test__nfail++;
    }
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
