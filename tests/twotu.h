/* Shared by the two-translation-unit test: twotu_impl.c holds the ecs.h
   implementation and main(), twotu_user.c only includes the header, and
   twotu_stb_user.c uses stb_ds on its own and holds its implementation. */
#include "../ecs.h"
int user_spawn(ecs_world *w, ecs_component pos, int n); /* twotu_user.c */
float user_sum_x(const ecs_world *w, ecs_component pos);
int stb_user_check(void);                                /* twotu_stb_user.c */
