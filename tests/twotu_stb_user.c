/* A game file that uses stb_ds by itself, short names and all, and holds
   the one stb_ds implementation of the program. */
#define STB_DS_IMPLEMENTATION
/* gcc in strict -std=c99 has no `typeof`, which stb_ds's hash-map macros
   use (stb issue #1735): the same fix ecs.h applies inside itself. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__cplusplus)
#define typeof __typeof__
#endif
#include "stb_ds.h"
#include "twotu.h"

int stb_user_check(void) {
    int *arr = NULL, key = 7, ok;
    struct { int key; int value; } *map = NULL;
    arrput(arr, 1);
    arrput(arr, 2);
    hmput(map, key, 42);
    ok = arrlen(arr) == 2 && hmget(map, key) == 42;
    arrfree(arr);
    hmfree(map);
    return ok;
}
