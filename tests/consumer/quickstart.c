/* consumer/quickstart.c - the README's quick start, as a program of someone
   else's that gets ecs.h from a build system: every integration check
   (tests/test_symbols.sh, the pkg-config, make install and CMake checks in
   mk/integration.mk) builds and runs it.

   It includes "ecs.h" by name only, so the build system must supply the
   include path. It contains the implementation unless CONSUMER_LINKS_ECS is
   defined: then a library (libecs.so, the CMake target ecs::ecs_static)
   must. EXPECT_VERSION, if defined, is the version string the build system
   reports ("0.3.0"), checked against the header's macros. Exit status 0 and
   one line "consumer: ... ok" if everything matched. */
#include <stdio.h>
#include <string.h>
#ifndef CONSUMER_LINKS_ECS
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#endif
#include "ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { float x, y; } Vel;

#define STR_(x) #x
#define STR(x) STR_(x)
#define HEADER_VERSION STR(ECS_H_VERSION_MAJOR) "." STR(ECS_H_VERSION_MINOR) "." STR(ECS_H_VERSION_PATCH)

static int failed;
static void check(int ok, const char *what) {
    if (!ok) {
        printf("consumer: FAILED: %s\n", what);
        failed = 1;
    }
}

int main(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos, vel;
    ecs_entity e;
    const Pos *p;
    Pos out;
    check(w != NULL, "ecs_world_new");
    if (!w) return 1;
    pos = ECS_COMPONENT(w, Pos), vel = ECS_COMPONENT(w, Vel);
    e = ecs_create(w);
    ECS_ADD(w, e, pos, Pos, {0, 0});
    ECS_ADD(w, e, vel, Vel, {1, 2});
    p = ECS_GET(w, e, pos, Pos);
    check(p && p->x == 0 && p->y == 0, "ECS_GET after ECS_ADD");
    check(ecs_has(w, e, vel) && ECS_GET(w, e, vel, Vel)->y == 2, "ecs_has, ECS_GET of Vel");
    check(ecs_remove(w, e, pos, &out) && !ecs_has(w, e, pos), "ecs_remove");
    check(ecs_destroy(w, e) && !ecs_alive(w, e) && ecs_count(w) == 0, "ecs_destroy");
    ecs_world_free(w);

    check(ECS_H_VERSION == ECS_H_VERSION_MAJOR * 10000 + ECS_H_VERSION_MINOR * 100 + ECS_H_VERSION_PATCH,
          "ECS_H_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH");
#ifdef EXPECT_VERSION
    check(strcmp(EXPECT_VERSION, HEADER_VERSION) == 0, "the build system's version is the header's (" EXPECT_VERSION ")");
#endif
    if (failed) return 1;
    printf("consumer: ecs.h %s, quick start ok\n", HEADER_VERSION);
    return 0;
}
