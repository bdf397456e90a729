/* The implementation TU. It must not define the stb_ds implementation
   itself: twotu_stb_user.c does (or -lstb provides it), and a second copy
   would not link. */
#define ECS_IMPLEMENTATION
#include "test.h"
#include "twotu.h"

typedef struct { float x, y; } Pos;

static void test_header_only_file_uses_the_shared_implementation(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component pos = ECS_COMPONENT(w, Pos);
    CHECK(user_spawn(w, pos, 100));
    CHECK_EQ(ecs_storage_count(ecs_storage_of(w, pos)), 100);
    CHECK(user_sum_x(w, pos) == 4950.0f);
    CHECK_EQ(ecs_lookup(w, "Pos"), pos);
    ecs_world_free(w);
}

#ifndef TWOTU_LINK_LIBSTB
static void test_stb_ds_user_links_beside_ecs(void) { CHECK(stb_user_check()); }
#endif

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_header_only_file_uses_the_shared_implementation);
#ifndef TWOTU_LINK_LIBSTB
    RUN(test_stb_ds_user_links_beside_ecs);
#endif
    return test_summary();
}
