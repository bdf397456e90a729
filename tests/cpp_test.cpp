// The header compiled as C++ (-std=c++11/17 -Wall -Wextra -Wpedantic
// -Werror): typed macros with braced initializers, extern "C" linkage and
// the implementation itself.
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "test.h"
#include "../ecs.h"

struct Pos { float x, y; };
struct Vel { float x, y; };

static void test_typed_macros_work_in_cpp(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos), vel = ECS_COMPONENT(w, Vel);
    ecs_entity e = ecs_create(w);
    Pos *p = ECS_ADD(w, e, pos, Pos, {1, 2});
    CHECK(p && p->x == 1 && p->y == 2);
    Vel v = {3, 4};
    CHECK(ECS_ADD(w, e, vel, Vel, v)->y == 4);
    CHECK(ECS_GET(w, e, vel, Vel)->x == 3);
    ECS_GET_MUT(w, e, pos, Pos)->x = 5;
    Pos out = {0, 0};
    CHECK(ECS_REMOVE(w, e, pos, Pos, &out) && out.x == 5 && out.y == 2);
    CHECK(!ecs_has(w, e, pos) && ecs_has(w, e, vel));
    /* in C++ the calls are functions (no masking macros): qualified names work */
    CHECK(::ecs_get(w, e, vel) == ECS_GET(w, e, vel, Vel) && ::ecs_has(w, e, vel));
    ecs_world_free(w);
}

static void test_size_mismatch_asserts_in_cpp(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    ecs_entity e = ecs_create(w);
    EXPECT_ASSERT(ECS_ADD(w, e, pos, float, {1.0f}) == NULL, "sizeof(T) is 4 but");
    ecs_world_free(w);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_typed_macros_work_in_cpp);
    RUN(test_size_mismatch_asserts_in_cpp);
    return test_summary();
}
