/* Snapshots across platforms (ecs.h section 15): a snapshot is the same
   bytes on every machine of the same byte order and component layout.

   tests/snapshot_golden.h holds, as a C array, the snapshot that the
   x86-64 build wrote of the small world golden_build makes below (30
   entities and 2 more on reused slots, 5 destroyed so that the free queue
   holds 4 slots; a float pair, an int32, an entity id (uint64), a uint8
   and a tag; two uniques; every kind of tracking list; ids stored inside
   values). make test-matrix runs this file on i386, Windows x64 (mingw,
   wine), aarch64 and armhf (qemu), where it checks that
     - building the same world and saving it gives exactly those bytes
       (the framing is little-endian; the values are fixed-layout types),
     - loading those bytes into a fresh world that registers the
       components in another order gives that world: every entity, row,
       value, tracking stamp and list, unique, the clock and the next ids,
     - loaded into a world registered in the same order, it saves the
       same bytes again, from an odd address too (UBSan on ARM reports
       misaligned reads), and a single changed bit is refused.

   The layout is the same everywhere because every component is made of
   fields of one size, or of 4-byte fields only, with no padding (checked
   at compile time below). The one difference between these platforms is
   the alignment of a uint64_t: 4 on i386, 8 elsewhere. A snapshot records
   each component's alignment, so to save the same bytes everywhere the
   components are registered with fixed sizes and alignments (the table
   KINDS) rather than with ECS_COMPONENT's alignof; a load does not
   compare alignments (they describe the loading machine's memory), so
   the golden bytes also load into components registered with this
   platform's own alignof.

   Regenerating the header: only when the world below or the snapshot
   format changes, on x86-64 (the platform the header says it came from):
       make build/plain/test_save_golden
       build/plain/test_save_golden --write-golden > tests/snapshot_golden.h
   --write-golden prints the header to stdout (exit status 1, and nothing
   printed, if the world cannot be built or saved). */
#include "test.h"
#include "../ecs.h"
#include "snapshot_golden.h"

typedef struct { float x, y; } Pos;          /* 8 bytes, align 4 */
typedef struct { int32_t hp; } Health;       /* 4, align 4 */
typedef struct { ecs_entity target; } Aim;   /* 8, registered with align 8 (see above) */
typedef struct { uint8_t bits; } Flags;      /* 1, align 1 */
typedef struct { uint32_t frame; float dt; } Clock; /* 8, align 4; a unique only */

/* the same layout on every platform: no padding anywhere */
typedef char golden_layout_check[(sizeof(Pos) == 8 && sizeof(Health) == 4 && sizeof(Aim) == 8 &&
                                  sizeof(Flags) == 1 && sizeof(Clock) == 8 && sizeof(ecs_change) == 16)
                                     ? 1 : -1];

enum { POS, HEALTH, AIM, FLAGS, FROZEN, CLOCK, NKINDS };
static const struct {
    const char *name;
    size_t size, align;
} KINDS[NKINDS] = {
    {"Pos", sizeof(Pos), 4}, {"Health", sizeof(Health), 4}, {"Aim", sizeof(Aim), 8},
    {"Flags", sizeof(Flags), 1}, {"Frozen", 0, 0}, {"Clock", sizeof(Clock), 4},
};

#define GOLDEN_FIRST 30u /* entities created first */
#define GOLDEN_IDS 40u

typedef struct golden {
    ecs_world *w;
    ecs_component c[NKINDS];
    ecs_entity ids[GOLDEN_IDS]; /* every entity golden_build created, in order (some dead) */
    uint32_t nids;
} golden;

/* A world with created/destroyed tracking and the components of KINDS,
   registered in table order or in reverse. Tracking and uniques are not
   set here: golden_build sets them, a snapshot brings them. */
static size_t own_align[NKINDS]; /* this platform's alignof of each kind; 0: KINDS' */
static bool golden_new(golden *g, bool reversed) {
    ecs_desc d;
    int i;
    memset(g, 0, sizeof *g);
    memset(&d, 0, sizeof d);
    d.track_entities = true;
    if (!(g->w = ecs_world_new(&d))) return false;
    for (i = 0; i < NKINDS; i++) {
        int k = reversed ? NKINDS - 1 - i : i;
        size_t align = own_align[k] ? own_align[k] : KINDS[k].align;
        if (!(g->c[k] = ecs_register(g->w, KINDS[k].name, KINDS[k].size, align))) return false;
    }
    return true;
}

static ecs_entity golden_create(golden *g) {
    ecs_entity e = ecs_create(g->w);
    if (e && g->nids < GOLDEN_IDS) g->ids[g->nids++] = e;
    return e;
}

/* The world of the snapshot: every step is fixed, and every value is an
   exact float or an integer, so every platform builds the same bytes. */
static bool golden_build(golden *g) {
    ecs_world *w = g->w;
    ecs_entity *ids = g->ids;
    uint32_t k;
    bool ok = true;
    ok &= ecs_track_set(w, g->c[POS], ECS_TRACK_ALL);
    ok &= ecs_track_set(w, g->c[HEALTH], ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION);
    ok &= ecs_track_set(w, g->c[AIM], ECS_TRACK_REMOVAL);
    ok &= ECS_UNIQUE_ADD(w, g->c[CLOCK], Clock, {1, 0.25f}) != NULL;

    /* tick 1: 30 entities */
    for (k = 0; k < GOLDEN_FIRST; k++) ok &= golden_create(g) != ECS_NULL;
    for (k = 0; ok && k < GOLDEN_FIRST; k++) {
        ecs_entity e = ids[k];
        ok &= ECS_ADD(w, e, g->c[POS], Pos, {(float)k, (float)k * 0.5f - 3.0f}) != NULL;
        if (k % 2 == 0) ok &= ECS_ADD(w, e, g->c[HEALTH], Health, {(int32_t)(100 + k)}) != NULL;
        if (k % 3 == 0) ok &= ECS_ADD(w, e, g->c[FLAGS], Flags, {(uint8_t)(k * 37 + 1)}) != NULL;
        if (k % 5 == 0) ok &= ecs_add(w, e, g->c[FROZEN], NULL) != NULL;
        if (k % 4 == 1) ok &= ECS_ADD(w, e, g->c[AIM], Aim, {ids[(k * 7 + 3) % GOLDEN_FIRST]}) != NULL;
    }
    ecs_tick_advance(w);

    /* tick 2: changes in place, and a unique on a storage that has rows */
    for (k = 0; ok && k < GOLDEN_FIRST; k += 6) ECS_GET_MUT(w, ids[k], g->c[POS], Pos)->y += 1.0f;
    for (k = 0; ok && k < GOLDEN_FIRST; k += 4) ECS_GET_MUT(w, ids[k], g->c[HEALTH], Health)->hp -= 10;
    ok &= ECS_UNIQUE_ADD(w, g->c[HEALTH], Health, {-7}) != NULL;
    ecs_tick_advance(w);
    ecs_track_clear(w, g->c[HEALTH], ECS_TRACK_MODIFICATION); /* a window that starts later */

    /* tick 3: destroyed slots (the free queue: 3, 10, 17, 20, 26), removals, deletions */
    ok &= ecs_destroy(w, ids[3]) && ecs_destroy(w, ids[10]) && ecs_destroy(w, ids[17]) &&
          ecs_destroy(w, ids[20]) && ecs_destroy(w, ids[26]);
    ok &= ecs_remove(w, ids[5], g->c[POS], NULL);    /* Pos: removed list */
    ok &= ecs_delete(w, ids[8], g->c[POS]);          /* Pos: deleted list, with the value */
    ok &= ecs_remove(w, ids[13], g->c[AIM], NULL);   /* Aim: removed list */
    ok &= ecs_delete(w, ids[9], g->c[AIM]);          /* Aim does not track deletion */
    ecs_tick_advance(w);

    /* tick 4: two entities on reused slots (3 and 10, next versions); one
       of them destroyed again, so the queue is 17, 20, 26, 3 */
    for (k = 0; ok && k < 2; k++) {
        ecs_entity e = golden_create(g);
        ok &= e != ECS_NULL && ECS_ADD(w, e, g->c[POS], Pos, {-1.0f, (float)k}) != NULL &&
              ECS_ADD(w, e, g->c[AIM], Aim, {ids[0]}) != NULL;
    }
    ok &= ok && ECS_ADD(w, ids[12], g->c[POS], Pos, {0.125f, 64.0f}) != NULL; /* a replace: modified */
    ok &= ok && ecs_destroy(w, ids[GOLDEN_FIRST]);
    if (ok) ECS_UNIQUE_GET_MUT(w, g->c[CLOCK], Clock)->frame = 4;
    ecs_tick_advance(w);
    return ok && g->nids == GOLDEN_FIRST + 2;
}

/* The snapshot of a world built by golden_build; NULL if anything failed.
   *size gets its size. */
static unsigned char *golden_save(ecs_world *w, size_t *size) {
    unsigned char *buf;
    *size = ecs_save_buffer(w, NULL, 0);
    if (!*size || !(buf = (unsigned char *)malloc(*size))) return NULL;
    if (ecs_save_buffer(w, buf, *size) != *size) {
        free(buf);
        return NULL;
    }
    return buf;
}

static bool golden_built(golden *g) {
    if (golden_new(g, false) && golden_build(g)) return true;
    printf("  building the world failed: %s\n", g->w ? ecs_last_error_msg(g->w) : "out of memory");
    ecs_world_free(g->w);
    g->w = NULL;
    return false;
}

/* Where two snapshots first differ, and the sizes, on a mismatch. */
static bool same_bytes(const unsigned char *got, size_t n, const char *what) {
    size_t i;
    if (n == SNAPSHOT_GOLDEN_SIZE && memcmp(got, snapshot_golden, n) == 0) return true;
    for (i = 0; i < n && i < SNAPSHOT_GOLDEN_SIZE && got[i] == snapshot_golden[i]; i++) {}
    printf("  %s: %lu bytes, tests/snapshot_golden.h %lu; first difference at byte %lu", what,
           (unsigned long)n, (unsigned long)SNAPSHOT_GOLDEN_SIZE, (unsigned long)i);
    if (i < n && i < SNAPSHOT_GOLDEN_SIZE) printf(" (0x%02x, golden 0x%02x)", got[i], snapshot_golden[i]);
    printf("\n");
    return false;
}

static void test_save_gives_the_golden_bytes(void) {
    golden g;
    unsigned char *buf;
    size_t n;
    bool same;
    CHECK(golden_built(&g));
    buf = golden_save(g.w, &n);
    if (!buf) printf("  save: %s\n", ecs_last_error_msg(g.w));
    same = buf && same_bytes(buf, n, "this platform's snapshot");
    free(buf);
    ecs_world_free(g.w);
    CHECK(same);
}

/* --- the loaded world against the built one ------------------------------ */

static const ecs_tick SINCE_MAX = 8; /* past the last tick golden_build reaches */

static void same_lists(const ecs_change *a, uint32_t na, const ecs_change *b, uint32_t nb) {
    CHECK_EQ(na, nb);
    CHECK(na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

/* Component k of `want` (built) and `got` (loaded): rows, values, tracking
   flags, stamps and lists, and the unique. */
static void same_component(const golden *want, const golden *got, int k) {
    ecs_world *a = want->w, *b = got->w;
    ecs_component ca = want->c[k], cb = got->c[k];
    const ecs_storage *sa = ecs_storage_of(a, ca), *sb = ecs_storage_of(b, cb);
    uint32_t rows = ecs_storage_count(sa), flags = ecs_track_get(a, ca), i, na, nb;
    size_t size = KINDS[k].size;
    ecs_tick since;
    CHECK(ecs_storage_count(sb) == rows && rows > 0);
    CHECK(!memcmp(ecs_storage_entities(sa), ecs_storage_entities(sb), rows * sizeof(ecs_entity)));
    CHECK(!size || !memcmp(ecs_storage_data(sa), ecs_storage_data(sb), rows * size));
    CHECK_EQ(ecs_track_get(b, cb), flags);
    for (i = 0; i < want->nids; i++) {
        for (since = 0; since <= SINCE_MAX; since++) {
            if (flags & ECS_TRACK_INSERTION)
                CHECK_EQ(ecs_track_inserted(a, want->ids[i], ca, since), ecs_track_inserted(b, want->ids[i], cb, since));
            if (flags & ECS_TRACK_MODIFICATION)
                CHECK_EQ(ecs_track_modified(a, want->ids[i], ca, since), ecs_track_modified(b, want->ids[i], cb, since));
        }
    }
    if (flags & ECS_TRACK_REMOVAL) {
        const ecs_change *la = ecs_track_removed(a, ca, 0, &na), *lb = ecs_track_removed(b, cb, 0, &nb);
        CHECK_GT(na, 0);
        same_lists(la, na, lb, nb);
        if (test__failed) return;
    }
    if (flags & ECS_TRACK_DELETION) {
        const ecs_change *la = ecs_track_deleted(a, ca, 0, &na), *lb = ecs_track_deleted(b, cb, 0, &nb);
        CHECK_GT(na, 0);
        same_lists(la, na, lb, nb);
        if (test__failed) return;
        for (i = 0; i < na; i++)
            CHECK(!memcmp(ecs_track_deleted_value(a, ca, &la[i]), ecs_track_deleted_value(b, cb, &lb[i]), size));
    }
    CHECK_EQ(ecs_unique_has(a, ca), ecs_unique_has(b, cb));
    if (ecs_unique_has(a, ca)) {
        CHECK(!memcmp(ecs_unique_get(a, ca), ecs_unique_get(b, cb), size));
        for (since = 0; since <= SINCE_MAX; since++) {
            CHECK_EQ(ecs_track_unique_inserted(a, ca, since), ecs_track_unique_inserted(b, cb, since));
            CHECK_EQ(ecs_track_unique_modified(a, ca, since), ecs_track_unique_modified(b, cb, since));
        }
    }
}

static void same_world(const golden *want, const golden *got) {
    const ecs_change *la, *lb;
    uint32_t i, na, nb;
    int k;
    CHECK(ecs_count(got->w) == ecs_count(want->w) && ecs_count(want->w) == 26);
    for (i = 0; i < want->nids; i++) CHECK_EQ(ecs_alive(got->w, want->ids[i]), ecs_alive(want->w, want->ids[i]));
    for (k = 0; k < NKINDS; k++) {
        if (k == CLOCK) { /* a unique only: no rows */
            CHECK(ecs_unique_has(got->w, got->c[k]) && ecs_storage_count(ecs_storage_of(got->w, got->c[k])) == 0);
            CHECK(!memcmp(ecs_unique_get(got->w, got->c[k]), ecs_unique_get(want->w, want->c[k]), sizeof(Clock)));
            continue;
        }
        same_component(want, got, k);
        if (test__failed) {
            printf("  (in component %s)\n", KINDS[k].name);
            return;
        }
    }
    la = ecs_track_created(want->w, 0, &na);
    lb = ecs_track_created(got->w, 0, &nb);
    CHECK_EQ(na, GOLDEN_FIRST + 2);
    same_lists(la, na, lb, nb);
    if (test__failed) return;
    la = ecs_track_destroyed(want->w, 0, &na);
    lb = ecs_track_destroyed(got->w, 0, &nb);
    CHECK_EQ(na, 6);
    same_lists(la, na, lb, nb);
}

/* Both worlds move on alike: the same clock, the same next ids (the free
   queue first, in order: slots 17, 20, 26, 3; then new slots). */
static void same_future(golden *want, golden *got) {
    static const uint32_t slots[6] = {17, 20, 26, 3, 30, 31};
    int i;
    CHECK_EQ(ecs_tick_advance(got->w), ecs_tick_advance(want->w));
    for (i = 0; i < 6; i++) {
        ecs_entity a = ecs_create(want->w), b = ecs_create(got->w);
        CHECK(a != ECS_NULL && a == b && ECS_ENTITY_INDEX(a) == slots[i]);
    }
}

/* bytes (a snapshot of golden_build's world) load into a world that
   registers the components in another order as the world built here. */
static void loads_as_the_world_built_here(const unsigned char *bytes, size_t n) {
    golden want, got;
    CHECK(golden_built(&want));
    if (!golden_new(&got, true)) { /* the components get other ids */
        ecs_world_free(want.w);
        ecs_world_free(got.w);
        CHECK(0);
    }
    if (!ecs_load(got.w, bytes, n)) {
        printf("  ecs_load: %s\n", ecs_last_error_msg(got.w));
        test__failed = 1;
    } else {
        memcpy(got.ids, want.ids, sizeof got.ids);
        got.nids = want.nids;
        same_world(&want, &got);
        if (!test__failed) same_future(&want, &got);
    }
    ecs_world_free(want.w);
    ecs_world_free(got.w);
}
static void test_golden_loads_as_the_world_it_was(void) {
    loads_as_the_world_built_here(snapshot_golden, SNAPSHOT_GOLDEN_SIZE);
}

/* Registered with this platform's own alignof (Aim's is 4 on i386, where
   the golden bytes say 8), the components load the same world. */
static void test_golden_loads_into_components_of_their_own_alignment(void) {
    own_align[POS] = ECS_ALIGNOF(Pos), own_align[HEALTH] = ECS_ALIGNOF(Health), own_align[AIM] = ECS_ALIGNOF(Aim);
    own_align[FLAGS] = ECS_ALIGNOF(Flags), own_align[CLOCK] = ECS_ALIGNOF(Clock);
    test_golden_loads_as_the_world_it_was();
    memset(own_align, 0, sizeof own_align);
}

/* Loaded from an odd address into a world registered as the saving one
   was, it saves the golden bytes again; one flipped bit is refused. */
static void test_golden_round_trips_and_refuses_a_flipped_bit(void) {
    golden g;
    unsigned char *odd = (unsigned char *)malloc(SNAPSHOT_GOLDEN_SIZE + 1), *again = NULL;
    size_t n = 0;
    bool loaded = false, refused = false, same = false;
    CHECK_PTR_NE(odd, NULL);
    memcpy(odd + 1, snapshot_golden, SNAPSHOT_GOLDEN_SIZE);
    if (golden_new(&g, false)) {
        loaded = ecs_load(g.w, odd + 1, SNAPSHOT_GOLDEN_SIZE);
        if (!loaded) printf("  ecs_load: %s\n", ecs_last_error_msg(g.w));
        again = loaded ? golden_save(g.w, &n) : NULL;
        same = again && same_bytes(again, n, "the loaded world's snapshot");
    }
    ecs_world_free(g.w);
    odd[1 + SNAPSHOT_GOLDEN_SIZE / 2] ^= 0x10;
    if (golden_new(&g, false)) {
        refused = !ecs_load(g.w, odd + 1, SNAPSHOT_GOLDEN_SIZE) && ecs_last_error(g.w) == ECS_ERR_FORMAT &&
                  ecs_count(g.w) == 0;
    }
    ecs_world_free(g.w);
    free(again);
    free(odd);
    CHECK(loaded && same);
    CHECK(refused);
}

/* Snapshots handed from one platform to another through a file (make
   test-matrix saves on each of i386, Windows x64, aarch64 and armhf and
   loads on x86-64, and the other way round):
     SNAPSHOT_SAVE_TO=file    this platform's snapshot of the world is
                              written there
     SNAPSHOT_LOAD_FROM=file  a snapshot written there (on another
                              platform) loads here as the world built here,
                              into components of this platform's alignof */
static void test_the_snapshot_saved_here_goes_to_a_file(void) {
    const char *path = getenv("SNAPSHOT_SAVE_TO");
    golden g;
    unsigned char *buf;
    size_t n = 0;
    FILE *f;
    bool written = false;
    CHECK(golden_built(&g));
    buf = golden_save(g.w, &n);
    ecs_world_free(g.w);
    CHECK_PTR_NE(buf, NULL);
    if ((f = fopen(path, "wb")) != NULL) {
        written = fwrite(buf, 1, n, f) == n;
        written &= fclose(f) == 0;
    }
    free(buf);
    if (!written) printf("  could not write %s\n", path);
    CHECK(written);
}
static void test_a_snapshot_saved_on_another_platform_loads_here(void) {
    const char *path = getenv("SNAPSHOT_LOAD_FROM");
    unsigned char *buf = NULL;
    long n = -1;
    FILE *f = fopen(path, "rb");
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (unsigned char *)malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    if (!buf) printf("  could not read %s\n", path);
    CHECK_PTR_NE(buf, NULL);
    own_align[POS] = ECS_ALIGNOF(Pos), own_align[HEALTH] = ECS_ALIGNOF(Health), own_align[AIM] = ECS_ALIGNOF(Aim);
    own_align[FLAGS] = ECS_ALIGNOF(Flags), own_align[CLOCK] = ECS_ALIGNOF(Clock);
    loads_as_the_world_built_here(buf, (size_t)n);
    memset(own_align, 0, sizeof own_align);
    free(buf);
}

/* --write-golden: tests/snapshot_golden.h on stdout. */
static int write_golden(void) {
    golden g;
    unsigned char *buf;
    size_t n = 0, i;
    if (!golden_built(&g)) return 1;
    buf = golden_save(g.w, &n);
    ecs_world_free(g.w);
    if (!buf) return 1;
    printf("/* snapshot_golden.h - the snapshot of the world of tests/test_save_golden.c,\n"
           "   as saved on x86-64. Written by that test:\n"
           "       build/plain/test_save_golden --write-golden > tests/snapshot_golden.h\n"
           "   Do not edit: every platform must save exactly these bytes. */\n");
    printf("#define SNAPSHOT_GOLDEN_SIZE %luu\n", (unsigned long)n);
    printf("static const unsigned char snapshot_golden[SNAPSHOT_GOLDEN_SIZE] = {");
    for (i = 0; i < n; i++) printf("%s0x%02x,", i % 12 ? " " : "\n    ", buf[i]);
    printf("\n};\n");
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--write-golden")) return write_golden();
    test_only(argc, argv);
    RUN(test_save_gives_the_golden_bytes);
    RUN(test_golden_loads_as_the_world_it_was);
    RUN(test_golden_loads_into_components_of_their_own_alignment);
    RUN(test_golden_round_trips_and_refuses_a_flipped_bit);
    if (getenv("SNAPSHOT_SAVE_TO")) RUN(test_the_snapshot_saved_here_goes_to_a_file);
    if (getenv("SNAPSHOT_LOAD_FROM")) RUN(test_a_snapshot_saved_on_another_platform_loads_here);
    return test_summary();
}
