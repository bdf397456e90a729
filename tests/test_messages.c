/* Error messages (section 2): every message the library can produce fits
   in the world's message buffer whole, so no advice is ever cut.

   A message is "call(entity I:V, Component): text" plus, for a typed
   macro under ECS_DEBUG, " (at file:line)". Its parts are bounded: names
   (components, systems, workloads) and the caller's place are cut at
   ECS__NAME_IN_MSG characters, numbers have a widest value, and the
   other strings a message takes are the library's own words (call
   names, what a snapshot got wrong), each at most TEXT_ARG characters,
   which this file also checks against ecs.h's source. For every row of
   the table the widest message is formatted and must fit. */
#define ECS_IMPLEMENTATION /* its own build: it reads the message table */
#define ECS_STB_DS_IMPLEMENTATION
#include "test.h"
#include "../ecs.h"

#define TEXT_ARG 64 /* the longest string of the library's own a message quotes */

/* The widest expansion of one message's text: each conversion replaced by
   the longest thing it can print. */
static size_t widest_text(const char *fmt) {
    size_t n = 0;
    while (*fmt) {
        if (*fmt != '%') {
            n++, fmt++;
            continue;
        }
        fmt++;
        if (*fmt == '%') {
            n++, fmt++;
            continue;
        }
        if (strncmp(fmt, ".64s", 4) == 0) n += ECS__NAME_IN_MSG, fmt += 4;
        else if (*fmt == 's') n += TEXT_ARG, fmt++;
        else if (strncmp(fmt, "llu", 3) == 0) n += 20, fmt += 3;
        else if (strncmp(fmt, "lu", 2) == 0) n += 20, fmt += 2; /* 64-bit long */
        else if (*fmt == 'u') n += 10, fmt++;
        else if (*fmt == 'd') n += 11, fmt++;
        else return (size_t)-1; /* a conversion this test does not know: fail */
    }
    return n;
}

static void test_every_message_fits_whole(void) {
    /* "call(entity I:V, Component): " and " (at file:line)" */
    size_t prefix = TEXT_ARG + strlen("(entity ") + (ECS_ENTITY_STR - 1) + 2 + ECS__NAME_IN_MSG + 3;
    size_t place = strlen(" (at )") + ECS__NAME_IN_MSG;
    int i, worst = 0;
    size_t most = 0;
    CHECK_EQ(ECS__NAME_IN_MSG, 64); /* the table spells it %.64s */
    for (i = 1; i < ECS__M_COUNT; i++) {
        size_t n = widest_text(ecs__messages[i].text);
        if (n == (size_t)-1) printf("  row %d: unknown conversion in \"%s\"\n", i, ecs__messages[i].text);
        CHECK_NE(n, (size_t)-1);
        if (n > most) most = n, worst = i;
    }
    printf("  the widest message: row %d, %lu + %lu + %lu of %d bytes\n", worst, (unsigned long)prefix,
           (unsigned long)most, (unsigned long)place, ECS__MSG_MAX);
    CHECK_LT(prefix + most + place, ECS__MSG_MAX);
}

/* The strings of the library's own that messages quote are at most
   TEXT_ARG characters: the call names (every "ecs_..." and "ECS_..."
   literal) and what a load found wrong (ecs__load_bad's texts). Read from
   ecs.h's source. */
/* The length of the string literal that starts at p (after its quote). */
static size_t literal_len(const char *p) {
    const char *q = strchr(p, '"');
    return q ? (size_t)(q - p) : 0;
}

static void test_the_library_words_a_message_quotes_are_short(void) {
    FILE *f = fopen("ecs.h", "rb");
    char line[1024];
    int lines = 0, calls = 0, bad = 0;
    if (!f) f = fopen("../ecs.h", "rb");
    CHECK_PTR_NE(f, NULL);
    while (fgets(line, sizeof line, f)) {
        const char *p;
        lines++;
        for (p = line; (p = strchr(p, '"')) != NULL; p += 1 + literal_len(p + 1) + 1) {
            size_t n = literal_len(p + 1);
            if (strncmp(p + 1, "ecs_", 4) != 0 && strncmp(p + 1, "ECS_", 4) != 0) continue;
            if (strchr(p + 1, ' ') && strchr(p + 1, ' ') < p + 1 + n) continue; /* words, not a call */
            calls++;
            if (n > TEXT_ARG) printf("  ecs.h:%d: call \"%.*s\"\n", lines, (int)n, p + 1);
            CHECK_LE(n, TEXT_ARG);
        }
        if ((p = strstr(line, "ecs__load_bad(L, ")) != NULL && (p = strchr(p, '"')) != NULL) {
            bad++;
            if (literal_len(p + 1) > TEXT_ARG) printf("  ecs.h:%d: \"%s\"\n", lines, p);
            CHECK_LE(literal_len(p + 1), TEXT_ARG);
        }
    }
    fclose(f);
    CHECK(lines > 1000 && calls > 100 && bad > 10);
}

/* A message formatted for real: the longest names, cut where the table
   says, and the caller's place of a typed macro. */
typedef struct { int v; } Val;
static void test_a_message_with_the_longest_names_is_whole(void) {
    ecs_world *w = ecs_world_new(NULL);
    char name[200];
    ecs_component c;
    ecs_entity e = ecs_create(w);
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    c = ecs_register(w, name, sizeof(Val), ECS_ALIGNOF(Val));
    EXPECT_ASSERT(ECS_GET(w, e, c, char) == NULL, "sizeof(T) is 1");
    CHECK_PTR_NE(strstr(test__assert_msg, "registered with 4"), NULL);
    CHECK_LT(strlen(test__assert_msg), ECS__MSG_MAX - 1);
    EXPECT_ASSERT(ecs_workload_run(w, name) == -1, "no workload named");
    CHECK_PTR_EQ(strstr(test__assert_msg, name), NULL); /* cut at 64 */
    CHECK_EQ(test__assert_msg[strlen(test__assert_msg) - 1], '\'');
    ecs_world_free(w);
}

/* A message names the entity and the component the call was given, and
   only those: a call that takes no entity names none (not "entity null"),
   while a null entity that is what is wrong is named. */
static void test_a_message_names_what_the_call_was_given(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component c = ECS_COMPONENT(w, Val);
    ecs_entity e = ecs_create(w);
    ecs_index_desc d = {0};
    ecs_view_desc q = {0};
    EXPECT_ASSERT(!ecs_track_set(w, c, 1u << 8), "ecs_track_set(Val): flags 256 are not ECS_TRACK_* bits");
    EXPECT_ASSERT(ecs_add(w, ECS_NULL, c, NULL) == NULL, "ecs_add(entity null, Val): entity is not alive");
    EXPECT_ASSERT(ecs_get(w, e, 0) == NULL, "ecs_get(entity 0:1, no component): unknown component");
    EXPECT_ASSERT(ecs_reserve(NULL, 1) == false, "ecs_reserve: the world is NULL");
    ecs_track_clear(w, c, 1u << 9); /* bits a clear does not take: refused, as ecs_track_set does */
    CHECK_STR_EQ(ecs_last_error_msg(w),
                 "ecs_track_clear(Val): flags 512 are not ECS_TRACK_* bits this call takes (ECS_TRACK_ENTITIES: clears only)");
    test__expected++;
    ecs_track_clear_until(w, c, ECS_TRACK_INSERTION | 1u << 9, 0); /* the flags as given */
    CHECK_STR_EQ(ecs_last_error_msg(w),
                 "ecs_track_clear_until(Val): flags 513 are not ECS_TRACK_* bits this call takes (ECS_TRACK_ENTITIES: clears only)");
    test__expected++;
    d.c = c, d.size = 4, d.kind = 99;
    EXPECT_ASSERT(ecs_index_new(w, &d) == 0, "ecs_index_new(Val): unsupported key: kind 99 and size 4");
    q.terms[0].c = c;
    EXPECT_ASSERT(ecs_query_new(w, NULL, &q) == 0, "ecs_query_new: name is NULL");
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_every_message_fits_whole);
    RUN(test_the_library_words_a_message_quotes_are_short);
    RUN(test_a_message_with_the_longest_names_is_whole);
    RUN(test_a_message_names_what_the_call_was_given);
    return test_summary();
}
