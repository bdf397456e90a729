/* Save and load (ecs.h section 17). A snapshot is a world's whole state as
   bytes; loaded into a world that registered the same components (by name,
   in any order), it gives back every entity id, every value byte for byte,
   every tracking tick and list, the uniques, the clock, and the ids the
   next creates hand out. A snapshot is input: a damaged one is refused
   with an error, never an assert, and a failed load changes nothing.

     random worlds, saved and loaded      the loaded world answers every
     (test_random_worlds_round_trip)      query as the saved one did, then
                                          behaves the same; saving it again
                                          gives the same bytes
     the format                           every field where section 17 puts
                                          it; its checksum as documented
     every cut, every bit flipped,        ECS_ERR_FORMAT, the target as it
     inconsistent contents (resealed)     was (ASan/valgrind: no bad read)
     other refusals                       the documented error, a message
                                          naming what, the target as it was
     ecs_serial callbacks                 pointers rebuilt, a failed load
                                          drops what it built, skip, NULL
     allocation failures                  load: all or nothing; save: false
     hooks, systems                       no hook runs on load; last_run 1

   ECS_VERSION_MAX is small here (the whole program uses one value, as
   section 1 asks) so that the random worlds retire slots cheaply: a slot
   whose version reaches it is never handed out again, and a snapshot must
   keep it that way.

   Run one test alone with `test_save_load <test name>`. */
/* its own configuration, so its own build of the implementation (Makefile) */
#define ECS_VERSION_MAX 40u
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "test.h"
#include "../ecs.h"

/* ---- failure messages ------------------------------------------------------ */

static const char *what = "";     /* the step a helper is checking */
static unsigned long long seed;   /* of the random world */
static long at = -1;              /* the cut, bit or allocation being tried */

static int fail_at(int line, const char *cond) {
    printf("  %s:%d: %s (seed %llu, at %ld): %s failed\n", __FILE__, line, what, seed, at, cond);
    if (test__asserts != test__expected) printf("    last ECS_ASSERT: \"%s\"\n", test__assert_msg);
    return 0;
}
/* In the helpers, which return 1 when everything held. */
#define ENSURE(cond)                                  \
    do {                                              \
        if (!(cond)) return fail_at(__LINE__, #cond); \
    } while (0)

/* The last error of w is `err` and its message contains `word`. */
static int error_is(const ecs_world *w, ecs_error err, const char *word) {
    if (ecs_last_error(w) != err || !strstr(ecs_last_error_msg(w), word)) {
        printf("    error %d \"%s\", wanted %d with \"%s\"\n", (int)ecs_last_error(w), ecs_last_error_msg(w),
               (int)err, word);
        return 0;
    }
    return 1;
}

/* ---- the components ---------------------------------------------------------- */

typedef struct { float x, y, z; } Vec3;              /* 12 bytes, 4-aligned */
typedef struct { uint64_t ref; double d; uint32_t k; } Big; /* an entity id inside a value */

enum { C_INT, C_VEC, C_BIG, C_CHAR, C_TAG, C_WIDE, NC };
static const char *const cname[NC] = {"Int", "Vec3", "Big", "Char", "Tag", "Wide"};
#define WIDE_SIZE 32
/* 16-aligned where the allocator guarantees it (64-bit), else its most */
#define WIDE_ALIGN (ECS_MAX_ALIGN < 16 ? ECS_MAX_ALIGN : 16)

static size_t csize(int k) {
    static const size_t s[NC] = {sizeof(int32_t), sizeof(Vec3), sizeof(Big), 1, 0, WIDE_SIZE};
    return s[k];
}
static size_t calign(int k) {
    switch (k) {
    case C_INT: return ECS_ALIGNOF(int32_t);
    case C_VEC: return ECS_ALIGNOF(Vec3);
    case C_BIG: return ECS_ALIGNOF(Big);
    case C_CHAR: return 1;
    case C_TAG: return 0;
    default: return WIDE_ALIGN;
    }
}

/* Registers the components in w, in order[] (NULL: the enum's order). */
static void register_all(ecs_world *w, ecs_component *c, const int *order) {
    int i;
    for (i = 0; i < NC; i++) {
        int k = order ? order[i] : i;
        c[k] = ecs_register(w, cname[k], csize(k), calign(k));
    }
}

/* ---- snapshots in memory ----------------------------------------------------- */

/* What ecs_save writes, gathered; write call number fail_at (from 1)
   returns false instead. */
typedef struct {
    unsigned char *p;
    size_t n, cap;
    unsigned long calls, fail_at;
} sink;

static bool sink_write(const void *bytes, size_t n, void *user) {
    sink *s = (sink *)user;
    if (++s->calls == s->fail_at) return false;
    if (s->n + n > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        unsigned char *p;
        while (cap < s->n + n) cap *= 2;
        if (!(p = (unsigned char *)realloc(s->p, cap))) return false;
        s->p = p;
        s->cap = cap;
    }
    if (n) memcpy(s->p + s->n, bytes, n);
    s->n += n;
    return true;
}

typedef struct {
    unsigned char *p;
    size_t n;
} snap;

/* w's snapshot through ecs_save_buffer: the size first, then the bytes. */
static snap take(ecs_world *w) {
    snap s;
    s.n = ecs_save_buffer(w, NULL, 0);
    s.p = s.n ? (unsigned char *)malloc(s.n) : NULL;
    if (s.p && ecs_save_buffer(w, s.p, s.n) != s.n) {
        free(s.p);
        s.p = NULL;
    }
    if (!s.p) printf("    ecs_save_buffer failed: \"%s\"\n", ecs_last_error_msg(w));
    return s;
}

static snap as_snap(const sink *s) {
    snap x;
    x.p = s->p;
    x.n = s->n;
    return x;
}

static int same_bytes(snap a, snap b) {
    size_t i;
    if (a.n != b.n) {
        printf("    snapshots of %lu and %lu bytes\n", (unsigned long)a.n, (unsigned long)b.n);
        return 0;
    }
    for (i = 0; i < a.n; i++)
        if (a.p[i] != b.p[i]) {
            printf("    snapshots differ first at byte %lu of %lu\n", (unsigned long)i, (unsigned long)a.n);
            return 0;
        }
    return 1;
}

/* ---- the format, as section 17 writes it down ------------------------------------ */

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}
static void wr64(unsigned char *p, uint64_t v) {
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

/* Where a snapshot's fields are, found by walking it as section 17 lays
   it out. walk() returns 1 when the walk ends exactly at the trailer, 16
   bytes before the end. */
#define MAXST 16
typedef struct {
    size_t nslots_at, versions_at, nfree_at, free_at, clock_at, created_at, nstorages_at;
    uint32_t nslots, nfree, nst;
    size_t name_at[MAXST], track_at[MAXST], bits_at[MAXST], rows_at[MAXST], dense_at[MAXST];
    size_t values_at[MAXST], removed_at[MAXST], deleted_at[MAXST];
    size_t end;
} layout;

static int walk(const unsigned char *p, size_t n, layout *L) {
    size_t pos = 16, lim;
    uint32_t i, k, cnt;
#define TAKE(len)                                                       \
    do {                                                                \
        uint64_t len_ = (len);                                          \
        if (len_ > lim - pos) return fail_at(__LINE__, "walk: past the trailer"); \
        pos += (size_t)len_;                                            \
    } while (0)
    memset(L, 0, sizeof *L);
    ENSURE(n >= 32);
    lim = n - 16;
    L->nslots_at = pos;
    TAKE(4);
    L->nslots = rd32(p + L->nslots_at);
    L->versions_at = pos;
    TAKE((uint64_t)4 * L->nslots);
    L->nfree_at = pos;
    TAKE(4);
    L->nfree = rd32(p + L->nfree_at);
    L->free_at = pos;
    TAKE((uint64_t)4 * L->nfree);
    L->clock_at = pos;
    TAKE(8);
    L->created_at = pos;
    for (k = 0; k < 2; k++) { /* created, destroyed */
        TAKE(4);
        TAKE((uint64_t)16 * rd32(p + pos - 4));
    }
    L->nstorages_at = pos;
    TAKE(4);
    L->nst = rd32(p + L->nstorages_at);
    ENSURE(L->nst <= MAXST);
    for (i = 0; i < L->nst; i++) {
        uint64_t size;
        uint32_t track, bits, rows, r;
        TAKE(4);
        L->name_at[i] = pos;
        TAKE(rd32(p + pos - 4));
        TAKE(8);
        size = rd64(p + pos - 8);
        TAKE(4); /* align */
        L->track_at[i] = pos;
        TAKE(4);
        track = rd32(p + pos - 4);
        L->bits_at[i] = pos;
        TAKE(4);
        bits = rd32(p + pos - 4);
        L->rows_at[i] = pos;
        TAKE(4);
        rows = rd32(p + pos - 4);
        L->dense_at[i] = pos;
        TAKE((uint64_t)8 * rows);
        L->values_at[i] = pos;
        if (bits & 1) /* from a save callback: per row, u64 length + bytes */
            for (r = 0; r < rows; r++) {
                TAKE(8);
                TAKE(rd64(p + pos - 8));
            }
        else
            TAKE(size * rows);
        if (track & ECS_TRACK_INSERTION) TAKE((uint64_t)8 * rows);
        if (track & ECS_TRACK_MODIFICATION) TAKE((uint64_t)8 * rows);
        TAKE(16); /* window starts */
        L->removed_at[i] = pos;
        TAKE(4);
        TAKE((uint64_t)16 * rd32(p + pos - 4));
        L->deleted_at[i] = pos;
        TAKE(4);
        cnt = rd32(p + pos - 4);
        TAKE((uint64_t)16 * cnt + (uint64_t)cnt * size);
        if (bits & 2) { /* the unique: as a row's value, then two ticks */
            if (bits & 1) {
                TAKE(8);
                TAKE(rd64(p + pos - 8));
            } else {
                TAKE(size);
            }
            TAKE(16);
        }
    }
#undef TAKE
    L->end = pos;
    ENSURE(pos == n - 16); /* nothing left over before the trailer */
    ENSURE(rd64(p + n - 16) == n);
    return 1;
}

/* The checksum of section 17 ("64-bit multiply-rotate rounds on 4
   lanes"), over p[0..n): lanes take 8 bytes each in turn, 32 bytes a
   round, the tail zero-padded; then the lanes, the length and a final
   mix. A test that changes a snapshot's contents reseals it, so that the
   load gets past the checksum to the contents. */
#define SUM_P1 0x9e3779b185ebca87ull
#define SUM_P2 0xc2b2ae3d27d4eb4full
static uint64_t rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }
static void sum_round(uint64_t *lane, const unsigned char *p) {
    int k;
    for (k = 0; k < 4; k++) lane[k] = rotl64((lane[k] + rd64(p + 8 * k)) * SUM_P1, 29);
}
static uint64_t checksum(const unsigned char *p, size_t n) {
    uint64_t lane[4], h;
    unsigned char tail[32];
    size_t i;
    lane[0] = SUM_P1, lane[1] = SUM_P2, lane[2] = ~(uint64_t)SUM_P1, lane[3] = ~(uint64_t)SUM_P2;
    for (i = 0; i + 32 <= n; i += 32) sum_round(lane, p + i);
    if (i < n) {
        memset(tail, 0, sizeof tail);
        memcpy(tail, p + i, n - i);
        sum_round(lane, tail);
    }
    h = rotl64(lane[0], 1) + rotl64(lane[1], 7) + rotl64(lane[2], 12) + rotl64(lane[3], 18);
    h ^= (uint64_t)n * SUM_P1;
    h ^= h >> 33, h *= SUM_P2, h ^= h >> 29, h *= SUM_P1, h ^= h >> 32;
    return h;
}
/* Writes the trailer of p[0..n): the length, and the checksum of all before it. */
static void reseal(unsigned char *p, size_t n) {
    wr64(p + n - 16, n);
    wr64(p + n - 8, checksum(p, n - 8));
}

/* ---- comparing two worlds ------------------------------------------------------ */

static int same_list(const ecs_change *x, uint32_t nx, const ecs_change *y, uint32_t ny) {
    uint32_t i;
    ENSURE(nx == ny);
    for (i = 0; i < nx; i++) ENSURE(x[i].entity == y[i].entity && x[i].tick == y[i].tick);
    return 1;
}

/* What the two worlds say about them. */
typedef struct {
    const char *const *names; /* the components, by name */
    int nnames;
    const ecs_entity *ids;    /* ids to ask ecs_alive about */
    int nids;
    const ecs_tick *since;    /* windows to ask the tracking queries about */
    int nsince;
    int track_entities;       /* both worlds record created/destroyed entities */
} question;

/* Does b answer every question as a does? Reads only (ecs_tick_advance
   and creates are compared by the callers, in both worlds alike). */
static int same_world(const ecs_world *a, const ecs_world *b, const question *q) {
    int k, i, j;
    ENSURE(ecs_count(a) == ecs_count(b));
    ENSURE(ecs_defer_pending(a) == ecs_defer_pending(b));
    for (i = 0; i < q->nids; i++) ENSURE(ecs_alive(a, q->ids[i]) == ecs_alive(b, q->ids[i]));
    for (k = 0; k < q->nnames; k++) {
        ecs_component ca = ecs_lookup(a, q->names[k]), cb = ecs_lookup(b, q->names[k]);
        const ecs_storage *sa, *sb;
        const ecs_entity *ea, *eb;
        size_t size;
        uint32_t rows, flags, r, na, nb;
        ENSURE(ca && cb);
        size = ecs_component_size(a, ca);
        ENSURE(size == ecs_component_size(b, cb));
        sa = ecs_storage_of(a, ca);
        sb = ecs_storage_of(b, cb);
        rows = ecs_storage_count(sa);
        ENSURE(rows == ecs_storage_count(sb));
        ea = ecs_storage_entities(sa);
        eb = ecs_storage_entities(sb);
        for (r = 0; r < rows; r++) ENSURE(ea[r] == eb[r]); /* the same rows, in the same order */
        if (size && rows) ENSURE(memcmp(ecs_storage_data(sa), ecs_storage_data(sb), rows * size) == 0);
        for (r = 0; r < rows; r++) ENSURE(ecs_alive(b, eb[r]));
        flags = ecs_track_get(a, ca);
        ENSURE(flags == ecs_track_get(b, cb));
        for (j = 0; j < q->nsince; j++) {
            ecs_tick s = q->since[j];
            for (r = 0; r < rows; r++) {
                if (flags & ECS_TRACK_INSERTION)
                    ENSURE(ecs_track_inserted(a, ea[r], ca, s) == ecs_track_inserted(b, eb[r], cb, s));
                if (flags & ECS_TRACK_MODIFICATION)
                    ENSURE(ecs_track_modified(a, ea[r], ca, s) == ecs_track_modified(b, eb[r], cb, s));
            }
            if (flags & ECS_TRACK_REMOVAL) {
                const ecs_change *x = ecs_track_removed(a, ca, s, &na), *y = ecs_track_removed(b, cb, s, &nb);
                if (!same_list(x, na, y, nb)) return fail_at(__LINE__, "removed lists");
            }
            if (flags & ECS_TRACK_DELETION) {
                const ecs_change *x = ecs_track_deleted(a, ca, s, &na), *y = ecs_track_deleted(b, cb, s, &nb);
                if (!same_list(x, na, y, nb)) return fail_at(__LINE__, "deleted lists");
                for (r = 0; r < na; r++) {
                    const void *va = ecs_track_deleted_value(a, ca, &x[r]), *vb = ecs_track_deleted_value(b, cb, &y[r]);
                    ENSURE(va && vb);
                    if (size) ENSURE(memcmp(va, vb, size) == 0);
                }
            }
        }
        ENSURE(ecs_unique_has(a, ca) == ecs_unique_has(b, cb));
        if (ecs_unique_has(a, ca)) {
            const void *ua = ecs_unique_get(a, ca), *ub = ecs_unique_get(b, cb);
            ENSURE(ua && ub);
            if (size) ENSURE(memcmp(ua, ub, size) == 0);
            for (j = 0; j < q->nsince; j++) {
                ENSURE(ecs_track_unique_inserted(a, ca, q->since[j]) == ecs_track_unique_inserted(b, cb, q->since[j]));
                ENSURE(ecs_track_unique_modified(a, ca, q->since[j]) == ecs_track_unique_modified(b, cb, q->since[j]));
            }
        }
    }
    if (q->track_entities)
        for (j = 0; j < q->nsince; j++) {
            uint32_t na, nb;
            const ecs_change *x = ecs_track_created(a, q->since[j], &na), *y = ecs_track_created(b, q->since[j], &nb);
            if (!same_list(x, na, y, nb)) return fail_at(__LINE__, "created lists");
            x = ecs_track_destroyed(a, q->since[j], &na);
            y = ecs_track_destroyed(b, q->since[j], &nb);
            if (!same_list(x, na, y, nb)) return fail_at(__LINE__, "destroyed lists");
        }
    return 1;
}

static int same_group(const ecs_world *a, ecs_group ga, const ecs_world *b, ecs_group gb) {
    uint32_t n = ecs_group_count(a, ga), i;
    const ecs_entity *x = ecs_group_entities(a, ga), *y = ecs_group_entities(b, gb);
    ENSURE(n == ecs_group_count(b, gb));
    for (i = 0; i < n; i++) ENSURE(x[i] == y[i]);
    return 1;
}

/* The next creates of a and b hand out the same ids, and the two worlds
   go on alike under the same changes: values added to the new entities,
   some of them destroyed (their slots queued again), a component taken
   from the first row of every storage, time moved on. The new ids are
   appended to ids (room for n). */
static int same_future(ecs_world *a, ecs_world *b, const ecs_component *ca, const ecs_component *cb,
                       int n, ecs_entity *ids, int *nids) {
    int i, k;
    for (i = 0; i < n; i++) {
        ecs_entity x = ecs_create(a), y = ecs_create(b);
        int32_t v = i * 7;
        ENSURE(x != ECS_NULL && x == y);
        ids[(*nids)++] = x;
        if (i % 3 == 0) ENSURE(ecs_add(a, x, ca[C_INT], &v) && ecs_add(b, y, cb[C_INT], &v));
        if (i % 4 == 0) ENSURE(ecs_add(a, x, ca[C_TAG], NULL) && ecs_add(b, y, cb[C_TAG], NULL));
        if (i % 9 == 8) {
            ecs_entity old = ids[*nids - 4];
            ENSURE(ecs_destroy(a, old) == ecs_destroy(b, old));
        }
        if (i % 100 == 99) ENSURE(ecs_tick_advance(a) == ecs_tick_advance(b));
    }
    for (k = 0; k < NC; k++) {
        const ecs_storage *sa = ecs_storage_of(a, ca[k]);
        if (ecs_storage_count(sa)) {
            ecs_entity e = ecs_storage_entities(sa)[0];
            ENSURE(ecs_remove(a, e, ca[k], NULL) && ecs_remove(b, e, cb[k], NULL));
        }
    }
    ENSURE(ecs_tick_advance(a) == ecs_tick_advance(b));
    return 1;
}

/* ---- random worlds ------------------------------------------------------------- */

#define MAXSLOTS 8192
#define MAXTICKS 64
#define FUTURE 1000

static struct {
    ecs_world *w;
    ecs_component c[NC];
    ecs_group g;
    ecs_entity last[MAXSLOTS];  /* the last id handed out at each slot */
    uint32_t nslots;            /* slots seen (one past the highest index) */
    ecs_entity live[MAXSLOTS];
    int nlive, live_at[MAXSLOTS];
    ecs_tick ticks[MAXTICKS];   /* what ecs_tick_advance returned */
    int nticks;
} r;

static int note_created(ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e);
    ENSURE(e != ECS_NULL && i < MAXSLOTS);
    r.last[i] = e;
    if (i >= r.nslots) r.nslots = i + 1;
    r.live_at[i] = r.nlive;
    r.live[r.nlive++] = e;
    return 1;
}

static void note_destroyed(ecs_entity e) {
    int k = r.live_at[ECS_ENTITY_INDEX(e)];
    r.live[k] = r.live[--r.nlive];
    r.live_at[ECS_ENTITY_INDEX(r.live[k])] = k;
}

static ecs_entity random_live(void) { return r.nlive ? r.live[test_rand((unsigned)r.nlive)] : ECS_NULL; }

static void advance(void) {
    ecs_tick t = ecs_tick_advance(r.w);
    if (r.nticks < MAXTICKS) r.ticks[r.nticks++] = t;
}

/* A value of component k in out (every byte set: no padding is left
   undefined, so the snapshot's bytes are all defined). */
static void random_value(int k, unsigned char *out) {
    int32_t i;
    Vec3 v;
    Big b;
    unsigned n;
    switch (k) {
    case C_INT:
        i = (int32_t)test_rand(2000000) - 1000000;
        memcpy(out, &i, sizeof i);
        break;
    case C_VEC:
        v.x = (float)test_rand(50), v.y = (float)test_rand(1000) / 8.0f, v.z = -(float)test_rand(100);
        memcpy(out, &v, sizeof v);
        break;
    case C_BIG:
        memset(&b, 0, sizeof b);
        /* an id, alive or not: the loaded world must give it the same meaning */
        b.ref = r.nslots ? r.last[test_rand(r.nslots)] : ECS_NULL;
        b.d = (double)test_rand(1u << 30) / 3.0;
        b.k = test_rand(0xffffffffu);
        memcpy(out, &b, sizeof b);
        break;
    case C_CHAR: out[0] = (unsigned char)test_rand(256); break;
    case C_WIDE:
        for (n = 0; n < WIDE_SIZE; n++) out[n] = (unsigned char)test_rand(256);
        break;
    default: break;
    }
}

static int by_vec_x(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    float x = ((const Vec3 *)va)->x, y = ((const Vec3 *)vb)->x;
    (void)a, (void)b, (void)ctx;
    return x < y ? -1 : x > y;
}
static int by_byte(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    unsigned x = *(const unsigned char *)va, y = *(const unsigned char *)vb;
    (void)a, (void)b, (void)ctx;
    return x < y ? -1 : x > y;
}
static int by_entity_desc(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    (void)va, (void)vb, (void)ctx; /* NULL: a tag */
    return a > b ? -1 : a < b;
}
static int by_int_desc(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    int32_t x = *(const int32_t *)va, y = *(const int32_t *)vb;
    (void)a, (void)b, (void)ctx;
    return x > y ? -1 : x < y;
}

/* Tracking flags a seed gives a component. */
static uint32_t random_flags(void) {
    static const uint32_t choice[] = {0,
                                      ECS_TRACK_INSERTION,
                                      ECS_TRACK_MODIFICATION,
                                      ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION,
                                      ECS_TRACK_REMOVAL | ECS_TRACK_DELETION,
                                      ECS_TRACK_ALL,
                                      ECS_TRACK_ALL};
    return test_rand(4) == 0 ? test_rand(16) : choice[test_rand(sizeof choice / sizeof *choice)];
}

/* The group every random world has (and the world loading it): owns Int
   and Big, excludes Tag. */
static ecs_group make_group(ecs_world *w, const ecs_component *c) {
    ecs_group_desc d;
    memset(&d, 0, sizeof d);
    d.owned[0] = c[C_INT];
    d.owned[1] = c[C_BIG];
    d.excluded[0] = c[C_TAG];
    return ecs_group_new(w, &d);
}

/* One random change of r.w. */
static int random_op(void) {
    unsigned char v[64];
    int k = (int)test_rand(NC);
    ecs_component c = r.c[k];
    ecs_entity e = random_live();
    unsigned op = test_rand(100);
    if (op < 28 || !e) { /* create, with some components */
        int j;
        e = ecs_create(r.w);
        if (!note_created(e)) return 0;
        for (j = 0; j < NC; j++)
            if (test_rand(3) == 0) {
                random_value(j, v);
                ENSURE(ecs_add(r.w, e, r.c[j], v) != NULL);
            }
    } else if (op < 46) { /* add, or replace (modified) */
        random_value(k, v);
        ENSURE(ecs_add(r.w, e, c, test_rand(8) ? v : NULL) != NULL);
    } else if (op < 52) { /* get_mut marks modified */
        unsigned char *p = (unsigned char *)ecs_get_mut(r.w, e, c);
        if (p && csize(k)) p[0] ^= 1;
    } else if (op < 55) {
        ENSURE(ecs_track_mark_modified(r.w, e, c) == ecs_has(r.w, e, c));
    } else if (op < 60) {
        random_value(k, v);
        ecs_add_if_changed(r.w, e, c, v);
    } else if (op < 67) {
        unsigned char out[64];
        ecs_remove(r.w, e, c, out);
    } else if (op < 73) {
        ecs_delete(r.w, e, c);
    } else if (op < 88) { /* holes in the slot table */
        ENSURE(ecs_destroy(r.w, e));
        note_destroyed(e);
    } else if (op < 90) {
        ecs_strip(r.w, e);
    } else if (op < 93) {
        random_value(k, v);
        ENSURE(ecs_unique_add(r.w, c, v) != NULL);
    } else if (op < 94) {
        if (ecs_unique_has(r.w, c)) ENSURE(ecs_unique_get_mut(r.w, c) != NULL);
    } else if (op < 95) {
        ecs_unique_remove(r.w, c, NULL);
    } else if (op < 96) { /* a new default window (c = 0: every storage, untracked ones too) */
        ecs_track_clear(r.w, test_rand(3) ? c : 0, test_rand(16) | (test_rand(2) ? ECS_TRACK_ENTITIES : 0));
    } else if (op < 97) {
        if (r.nticks) ecs_track_clear_until(r.w, c, ECS_TRACK_ALL | ECS_TRACK_ENTITIES,
                                                    r.ticks[test_rand((unsigned)r.nticks)]);
    } else if (op < 99) { /* a bundle of Vec3 and Char on a few new entities */
        ecs_entity out[8];
        ecs_component comps[2];
        const void *vals[2];
        unsigned char v2[64];
        uint32_t n = 1 + test_rand(8), i;
        comps[0] = r.c[C_VEC], comps[1] = r.c[C_CHAR];
        random_value(C_VEC, v);
        random_value(C_CHAR, v2);
        vals[0] = v, vals[1] = v2;
        ENSURE(ecs_create_bulk(r.w, n, 2, comps, vals, out));
        for (i = 0; i < n; i++)
            if (!note_created(out[i])) return 0;
    } else { /* a bundle on one entity */
        ecs_component comps[2];
        comps[0] = r.c[C_WIDE], comps[1] = r.c[C_INT];
        e = ecs_create_n(r.w, 2, comps, NULL);
        if (!note_created(e)) return 0;
    }
    return 1;
}

/* Builds r.w from the current seed: `ops` random changes in 8 phases,
   time moving on between them; tracking turned on in phase 1 and changed
   in phase 4 (rows from before count as neither), the group made in phase
   2, storages sorted in phases 3, 6 and at the end (their rows are not in
   creation order), the group sorted in phase 5. Slot 0 is retired first:
   its version reaches ECS_VERSION_MAX. */
static int build_random_world(int ops, bool track_entities) {
    ecs_desc d;
    int phase, i;
    memset(&d, 0, sizeof d);
    d.track_entities = track_entities;
    memset(&r, 0, sizeof r);
    r.w = ecs_world_new(&d);
    ENSURE(r.w != NULL);
    register_all(r.w, r.c, NULL);
    for (i = 0; i < (int)ECS_VERSION_MAX; i++) { /* the free queue is empty: slot 0 each time */
        ecs_entity e = ecs_create(r.w);
        ENSURE(ECS_ENTITY_INDEX(e) == 0);
        if (!note_created(e)) return 0;
        ENSURE(ecs_destroy(r.w, e));
        note_destroyed(e);
    }
    for (phase = 0; phase < 8; phase++) {
        if (phase == 1)
            for (i = 0; i < NC; i++) ENSURE(ecs_track_set(r.w, r.c[i], random_flags()));
        if (phase == 2) ENSURE((r.g = make_group(r.w, r.c)) != 0);
        if (phase == 3 || phase == 6) {
            ENSURE(ecs_sort(r.w, r.c[C_VEC], by_vec_x, NULL));
            ENSURE(ecs_sort(r.w, r.c[C_CHAR], by_byte, NULL));
        }
        if (phase == 4) ENSURE(ecs_track_set(r.w, r.c[test_rand(NC)], random_flags()));
        if (phase == 5) ENSURE(ecs_group_sort(r.w, r.g, r.c[C_INT], by_int_desc, NULL));
        for (i = 0; i < ops / 8; i++)
            if (!random_op()) return 0;
        advance();
    }
    for (i = r.nlive / 5; i > 0; i--) { /* more holes */
        ecs_entity e = random_live();
        ENSURE(ecs_destroy(r.w, e));
        note_destroyed(e);
    }
    ENSURE(ecs_sort(r.w, r.c[C_WIDE], by_byte, NULL));
    ENSURE(ecs_sort(r.w, r.c[C_TAG], by_entity_desc, NULL));
    return 1;
}

/* The windows to ask about: 0 (the default window), 1, every phase's
   tick, and the present. */
static int windows(ecs_tick *since) {
    int n = 0, i;
    since[n++] = 0;
    since[n++] = 1;
    for (i = 0; i < r.nticks; i++) since[n++] = r.ticks[i];
    since[n++] = r.nticks ? r.ticks[r.nticks - 1] + 1 : 2;
    return n;
}

/* A world ready to load r's snapshot: the same components in another
   order, the same group, entity tracking as r.w. dirty: first used, then
   emptied (entities, lists, a unique and tracking flags of its own, all
   of which the snapshot replaces). */
static ecs_world *loader(ecs_component *c, ecs_group *g, bool track_entities, const int *order, bool dirty) {
    ecs_desc d;
    ecs_world *w;
    memset(&d, 0, sizeof d);
    d.track_entities = track_entities;
    w = ecs_world_new(&d);
    if (!w) return NULL;
    register_all(w, c, order);
    *g = make_group(w, c);
    if (dirty) {
        ecs_entity e[50];
        int32_t v = 5;
        int i;
        ecs_track_set(w, c[C_CHAR], ECS_TRACK_ALL);
        ecs_track_set(w, c[C_INT], ECS_TRACK_DELETION);
        for (i = 0; i < 50; i++) {
            e[i] = ecs_create(w);
            ecs_add(w, e[i], c[C_INT], &v);
            ecs_add(w, e[i], c[C_CHAR], NULL);
            if (i % 2) ecs_add(w, e[i], c[C_BIG], NULL);
        }
        ecs_unique_add(w, c[C_WIDE], NULL);
        ecs_unique_add(w, c[C_INT], &v);
        for (i = 0; i < 20; i++) ecs_tick_advance(w);
        for (i = 0; i < 50; i++) ecs_destroy(w, e[(i * 7) % 50]);
    }
    return w;
}

static const int reversed[NC] = {C_WIDE, C_TAG, C_CHAR, C_BIG, C_VEC, C_INT};
static const int shuffled[NC] = {C_CHAR, C_WIDE, C_INT, C_TAG, C_BIG, C_VEC};

/* One seed: build, save, load into b (another registration order), c (the
   same order) and d (from b's snapshot); compare. */
static int round_trip(unsigned long long s, int ops, bool track_entities, bool dirty) {
    static ecs_entity ids[MAXSLOTS + FUTURE];
    ecs_tick since[MAXTICKS + 3];
    ecs_component cb[NC], cc[NC], cd[NC];
    ecs_group gb, gc, gd;
    ecs_world *b = NULL, *c = NULL, *d = NULL;
    snap sa, sa2, sb, sc, sd;
    sink streamed;
    question q;
    int nids, i, ok = 0;
    uint32_t k;
    seed = s;
    test_seed(s);
    what = "building";
    if (!build_random_world(ops, track_entities)) return 0;
    memset(&streamed, 0, sizeof streamed);
    sa = take(r.w);
    sa2 = take(r.w);
    sb.p = sc.p = sd.p = NULL;
    what = "saving";
    if (!sa.p || !sa2.p || !same_bytes(sa, sa2)) goto done; /* saving changes nothing */
    if (!ecs_save(r.w, sink_write, &streamed) || !same_bytes(sa, as_snap(&streamed))) goto done;
    if (streamed.calls < 2) goto done; /* "in pieces" */
    {
        layout L;
        if (!walk(sa.p, sa.n, &L) || L.nst != NC || L.nslots != r.nslots) goto done;
    }

    what = "loading";
    b = loader(cb, &gb, track_entities, (s & 1) ? reversed : shuffled, dirty);
    c = loader(cc, &gc, track_entities, NULL, false);
    if (!b || !c || !gb || !gc) goto done;
    if (!ecs_load(b, sa.p, sa.n) || !ecs_load(c, sa.p, sa.n)) {
        printf("    ecs_load: \"%s\"\n", ecs_last_error_msg(b));
        goto done;
    }

    what = "comparing the loaded world";
    for (nids = 0, k = 0; k < r.nslots; k++) ids[nids++] = r.last[k];
    q.names = cname;
    q.nnames = NC;
    q.ids = ids;
    q.nids = nids;
    q.since = since;
    q.nsince = windows(since);
    q.track_entities = track_entities;
    if (!same_world(r.w, b, &q) || !same_world(r.w, c, &q)) goto done;
    if (!same_group(r.w, r.g, b, gb) || !same_group(r.w, r.g, c, gc)) goto done;
    /* values keep their alignment */
    if (ecs_storage_count(ecs_storage_of(b, cb[C_WIDE])) &&
        (uintptr_t)ecs_storage_data(ecs_storage_of(b, cb[C_WIDE])) % WIDE_ALIGN != 0)
        goto done;
    /* ids inside values mean the same entities */
    {
        const ecs_storage *bs = ecs_storage_of(b, cb[C_BIG]);
        const Big *v = (const Big *)ecs_storage_data(bs);
        for (k = 0; k < ecs_storage_count(bs); k++)
            if (ecs_alive(b, v[k].ref) != ecs_alive(r.w, v[k].ref)) goto done;
    }

    what = "saving the loaded worlds again";
    sc = take(c); /* registered in the saving world's order: the same bytes */
    if (!sc.p || !same_bytes(sa, sc)) goto done;
    sb = take(b); /* another order: the same state, maybe storages in another order */
    if (!sb.p || sb.n != sa.n) goto done;
    d = loader(cd, &gd, track_entities, NULL, false);
    if (!d || !ecs_load(d, sb.p, sb.n)) goto done;
    sd = take(d);
    if (!sd.p || !same_bytes(sa, sd)) goto done;

    what = "the future";
    if (!same_future(r.w, b, r.c, cb, FUTURE, ids, &nids)) goto done;
    q.nids = nids;
    what = "comparing after the future";
    if (!same_world(r.w, b, &q) || !same_group(r.w, r.g, b, gb)) goto done;
    for (i = 0; i < 3; i++)
        if (ecs_tick_advance(r.w) != ecs_tick_advance(b)) goto done;
    ok = 1;
done:
    if (!ok) fail_at(__LINE__, "round trip");
    free(sa.p), free(sa2.p), free(sb.p), free(sc.p), free(sd.p), free(streamed.p);
    ecs_world_free(r.w), ecs_world_free(b), ecs_world_free(c), ecs_world_free(d);
    r.w = NULL;
    return ok;
}

static void test_random_worlds_round_trip(void) {
    CHECK(round_trip(1, 400, false, false));
    CHECK(round_trip(2, 4000, true, false));
    CHECK(round_trip(3, 8000, false, true));
    CHECK(round_trip(4, 16000, true, true));
    CHECK(round_trip(5, 2000, true, false));
}

/* A new world's snapshot gives a new world: nothing alive, the first
   create gets slot 0, the clock where a new world's is. */
static void test_an_empty_world_round_trips(void) {
    ecs_world *a = ecs_world_new(NULL), *b = ecs_world_new(NULL), *c = ecs_world_new(NULL);
    snap s;
    what = "empty";
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    CHECK(ecs_load(b, s.p, s.n));
    CHECK_EQ(ecs_count(b), 0);
    CHECK_EQ(ecs_tick_advance(a), ecs_tick_advance(b));
    {
        ecs_entity x = ecs_create(b);
        CHECK(x == ecs_create(a) && x == ecs_create(c));
        CHECK(ECS_ENTITY_INDEX(x) == 0 && ECS_ENTITY_VERSION(x) == 1);
    }
    free(s.p);
    ecs_world_free(a), ecs_world_free(b), ecs_world_free(c);
}

/* ---- a small world, and a target that must stay as it was ----------------------- */

/* A world of 40 slots: Int (tracked, with lists), Vec3, Tag, a unique,
   entity tracking; its snapshot is a couple of kilobytes. */
static ecs_world *small_world(ecs_component *c) {
    ecs_desc d;
    ecs_world *w;
    ecs_entity e[40];
    int i;
    memset(&d, 0, sizeof d);
    d.track_entities = true;
    w = ecs_world_new(&d);
    c[C_INT] = ecs_register(w, "Int", sizeof(int32_t), ECS_ALIGNOF(int32_t));
    c[C_VEC] = ECS_COMPONENT(w, Vec3);
    c[C_TAG] = ECS_TAG(w, "Tag");
    ecs_track_set(w, c[C_INT], ECS_TRACK_ALL);
    for (i = 0; i < 40; i++) {
        int32_t v = i * 11;
        Vec3 p = {0, 0, 0};
        e[i] = ecs_create(w);
        ecs_add(w, e[i], c[C_INT], &v);
        if (i % 2) p.x = (float)i, ecs_add(w, e[i], c[C_VEC], &p);
        if (i % 3 == 0) ecs_add(w, e[i], c[C_TAG], NULL);
        if (i % 10 == 9) ecs_tick_advance(w);
    }
    for (i = 0; i < 40; i += 4) ecs_destroy(w, e[i]);
    for (i = 1; i < 40; i += 6) ecs_remove(w, e[i], c[C_INT], NULL);
    ecs_get_mut(w, e[3], c[C_INT]);
    {
        Vec3 u = {1, 2, 3};
        ecs_unique_add(w, c[C_VEC], &u);
    }
    return w;
}

/* A target with a past: a destroyed entity (its slot queued, the Int
   deletion and the entity lists recorded), tracking of its own, a unique,
   a group. control is built the same way and never loaded into: after a
   refused load the target must still equal it. */
static ecs_entity target_ids[2];
static ecs_world *target_world_of(ecs_component *c, const ecs_desc *d) {
    ecs_world *w = ecs_world_new(d);
    ecs_group_desc g;
    int32_t v = 77;
    c[C_TAG] = ECS_TAG(w, "Tag");
    c[C_VEC] = ECS_COMPONENT(w, Vec3);
    c[C_INT] = ecs_register(w, "Int", sizeof(int32_t), ECS_ALIGNOF(int32_t));
    memset(&g, 0, sizeof g);
    g.owned[0] = c[C_INT];
    g.owned[1] = c[C_VEC];
    g.excluded[0] = c[C_TAG];
    ecs_group_new(w, &g);
    ecs_track_set(w, c[C_INT], ECS_TRACK_ALL);
    ecs_unique_add(w, c[C_INT], &v);
    target_ids[0] = ecs_create(w);
    ecs_add(w, target_ids[0], c[C_INT], &v);
    ecs_add(w, target_ids[0], c[C_VEC], NULL);
    ecs_tick_advance(w);
    target_ids[1] = ecs_create(w);
    ecs_destroy(w, target_ids[0]);
    ecs_destroy(w, target_ids[1]);
    return w;
}
static ecs_world *target_world(ecs_component *c, bool track_entities) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    d.track_entities = track_entities;
    return target_world_of(c, &d);
}

static const char *const small_names[3] = {"Int", "Vec3", "Tag"};

/* target answers everything as control does (both untouched since built
   alike, apart from refused loads). */
static int unchanged(const ecs_world *target, const ecs_world *control, bool track_entities) {
    static const ecs_tick since[] = {0, 1, 2, 3, 4};
    question q;
    q.names = small_names;
    q.nnames = 3;
    q.ids = target_ids;
    q.nids = 2;
    q.since = since;
    q.nsince = 5;
    q.track_entities = track_entities;
    ENSURE(same_world(control, target, &q));
    ENSURE(same_group(control, 1, target, 1));
    ENSURE(*(const int32_t *)ecs_unique_get(target, ecs_lookup(target, "Int")) == 77);
    { /* its memory too, as the statistics count it */
        ecs_world_stats a, b;
        ENSURE(ecs_world_stats_get(control, &a) && ecs_world_stats_get(target, &b));
        ENSURE(a.total == b.total && a.storage_bytes == b.storage_bytes);
    }
    return 1;
}

/* ...and goes on as control does. */
static int unchanged_later(ecs_world *target, ecs_world *control) {
    int i;
    for (i = 0; i < 5; i++) ENSURE(ecs_tick_advance(target) == ecs_tick_advance(control));
    for (i = 0; i < 5; i++) {
        ecs_entity e = ecs_create(target);
        ENSURE(e != ECS_NULL && e == ecs_create(control));
        ENSURE(ecs_destroy(target, e) && ecs_destroy(control, e));
    }
    return 1;
}

/* One refused load of bytes[0..n) into target: false, ECS_ERR_FORMAT,
   no assert (the harness fails the test on an unexpected one). */
static int refused_as_format(ecs_world *target, const unsigned char *bytes, size_t n) {
    ecs_clear_error(target);
    ENSURE(!ecs_load(target, bytes, n));
    ENSURE(ecs_last_error(target) == ECS_ERR_FORMAT);
    ENSURE(strncmp(ecs_last_error_msg(target), "ecs_load", 8) == 0);
    return 1;
}

/* A cut that keeps the magic is a damaged snapshot, not "not a
   snapshot" (section 17: "damaged (the checksum: truncated ...)"). */
static int said_damaged(const ecs_world *target, size_t n) {
    if (n >= 8 && !strstr(ecs_last_error_msg(target), "damaged")) {
        printf("    a cut of %lu bytes: \"%s\"\n", (unsigned long)n, ecs_last_error_msg(target));
        return 0;
    }
    return 1;
}

/* Every cut of a snapshot (0 to n - 1 bytes), and the whole snapshot with
   a byte too many, are not snapshots: refused, the target as it was. The
   cut copies go to a block of exactly their size, so reading one byte past
   is caught by ASan and valgrind. */
static void test_every_truncation_is_refused_and_changes_nothing(void) {
    ecs_component c[NC], ct[NC], cc[NC];
    ecs_world *src = small_world(c), *target = target_world(ct, true), *control = target_world(cc, true);
    snap s = take(src);
    size_t n;
    unsigned char *cut;
    int damaged_wrong = 0;
    what = "truncation";
    CHECK(s.p != NULL && s.n > 256);
    for (n = 0; n < s.n; n++) {
        at = (long)n;
        cut = (unsigned char *)malloc(n ? n : 1);
        memcpy(cut, s.p, n);
        if (!refused_as_format(target, cut, n)) {
            free(cut);
            CHECK(0);
        }
        free(cut);
        if (!(damaged_wrong ? strstr(ecs_last_error_msg(target), "damaged") || n < 8 : said_damaged(target, n)))
            damaged_wrong++; /* (says so for the first) */
        if (n % 64 == 0 || n + 16 > s.n) CHECK(unchanged(target, control, true));
    }
    cut = (unsigned char *)malloc(s.n + 1);
    memcpy(cut, s.p, s.n);
    cut[s.n] = 0;
    at = (long)s.n + 1;
    n = refused_as_format(target, cut, s.n + 1);
    free(cut);
    CHECK(n);
    at = -1;
    if (damaged_wrong) printf("    %d cuts not called damaged\n", damaged_wrong);
    CHECK_EQ(damaged_wrong, 0);
    CHECK(unchanged(target, control, true));
    CHECK(unchanged_later(target, control));
    /* the whole snapshot loads: the refusals were about the cuts */
    ecs_world_free(control);
    control = target_world(cc, true);
    ecs_world_free(target);
    target = target_world(ct, true);
    CHECK(ecs_load(target, s.p, s.n));
    CHECK_EQ(ecs_count(target), ecs_count(src));
    free(s.p);
    ecs_world_free(src), ecs_world_free(target), ecs_world_free(control);
}

/* Any one bit changed anywhere (the header, a count, a name, a value, a
   tick, the length or the checksum) is caught: refused as FORMAT, no
   assert, the target as it was. Every bit of the snapshot, one at a time
   (about 21,000 loads of 2.7 KB: under a second in valgrind). */
static void test_every_flipped_bit_is_refused_and_changes_nothing(void) {
    ecs_component c[NC], ct[NC], cc[NC];
    ecs_world *src = small_world(c), *target = target_world(ct, false), *control = target_world(cc, false);
    snap s = take(src);
    size_t bit, nbits;
    long tried = 0;
    what = "bit flip";
    CHECK(s.p != NULL && s.n > 256);
    nbits = s.n * 8;
    for (bit = 0; bit < nbits; bit++) {
        int ok;
        at = (long)bit;
        s.p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        ok = refused_as_format(target, s.p, s.n);
        s.p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        CHECK(ok);
        /* past the magic, the version and the byte order, the checksum
           names it, even where reading failed first (a name, a count) */
        if (bit / 8 >= 13) CHECK(strstr(ecs_last_error_msg(target), "damaged snapshot: the checksum"));
        if (++tried % 97 == 0) CHECK(unchanged(target, control, false));
    }
    at = -1;
    CHECK_EQ(tried, (long)nbits);
    CHECK(unchanged(target, control, false));
    CHECK(unchanged_later(target, control));
    free(s.p);
    ecs_world_free(src), ecs_world_free(target), ecs_world_free(control);
}

/* ---- inconsistent snapshots with a right checksum --------------------------------- */

/* Slots 0..4: 0, 2, 3 alive, 1 and 4 free (queued in that order). Aaa
   (tracked) on 0 and 2, and removed from 3; Bbb on 0 and 2. */
static ecs_entity crafted_ids[5];
static ecs_world *crafted_world(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ecs_register(w, "Aaa", 4, 4), b = ecs_register(w, "Bbb", 4, 4);
    int32_t v;
    int i;
    ecs_track_set(w, a, ECS_TRACK_ALL);
    for (i = 0; i < 5; i++) crafted_ids[i] = ecs_create(w);
    v = 10, ecs_add(w, crafted_ids[0], a, &v);
    v = 12, ecs_add(w, crafted_ids[2], a, &v);
    v = 13, ecs_add(w, crafted_ids[3], a, &v);
    v = 20, ecs_add(w, crafted_ids[0], b, &v);
    v = 22, ecs_add(w, crafted_ids[2], b, &v);
    ecs_remove(w, crafted_ids[3], a, NULL);
    ecs_tick_advance(w); /* a second removal, later: the list has an order */
    v = 14, ecs_add(w, crafted_ids[3], a, &v);
    ecs_remove(w, crafted_ids[3], a, NULL);
    ecs_destroy(w, crafted_ids[1]);
    ecs_destroy(w, crafted_ids[4]);
    return w;
}
static const char *const crafted_names[3] = {"Aaa", "Bbb", "Ccc"};
/* The loading side: Ccc too, a unique, a past. */
static ecs_world *crafted_target(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a;
    ecs_entity e;
    int32_t v = 5;
    ecs_register(w, "Ccc", 8, 8);
    ecs_register(w, "Bbb", 4, 4);
    a = ecs_register(w, "Aaa", 4, 4);
    ecs_unique_add(w, a, &v);
    e = ecs_create(w);
    ecs_add(w, e, a, &v);
    ecs_destroy(w, e);
    return w;
}

/* p (n bytes, resealed) is refused as damaged, and changes nothing. */
static int refused_as_inconsistent(const unsigned char *p, size_t n, const char *change) {
    static const ecs_tick since[] = {0, 1, 2, 3};
    ecs_world *t = crafted_target(), *control = crafted_target();
    question q;
    int ok;
    q.names = crafted_names, q.nnames = 3, q.ids = crafted_ids, q.nids = 5;
    q.since = since, q.nsince = 4, q.track_entities = 0;
    what = change;
    ok = !ecs_load(t, p, n) && ecs_last_error(t) == ECS_ERR_FORMAT && strstr(ecs_last_error_msg(t), "damaged") &&
         same_world(control, t, &q) && ECS_ENTITY_INDEX(ecs_create(t)) == ECS_ENTITY_INDEX(ecs_create(control));
    if (!ok) printf("    %s: \"%s\"\n", change, ecs_last_error_msg(t));
    ecs_world_free(t), ecs_world_free(control);
    ENSURE(ok);
    return 1;
}

/* Section 15: "inconsistent (a row of a dead entity...)" is FORMAT too.
   Each change below keeps the checksum right (the snapshot is resealed),
   so only the contents can tell: a row of a free slot, of a slot past the
   end, the same entity twice, a version of 0 or above ECS_VERSION_MAX, a
   queued slot that is alive, past the end or queued twice, more queued
   slots than free ones, a clock before the start, one storage more than
   there are, one listed twice or without a name, unknown flag bits, more
   rows than live entities, a unique that is not there, a removal list a
   storage does not keep, a count that runs past the end, a byte after
   the last storage; and the invariants section 17 lists beside the
   format: a clock at or beyond 2^62 (2^64-1 would wrap), an insertion or
   modification stamp or a tracking window after the clock, a removal
   after the clock, out of tick order, or of a slot the snapshot does not
   have. Each is refused, changes nothing, and reads nothing outside the
   snapshot (ASan, valgrind). */
static void test_inconsistent_snapshots_are_refused(void) {
    ecs_world *w = crafted_world();
    snap s = take(w);
    layout L;
    unsigned char *p;
    size_t n;
    CHECK(s.p != NULL && walk(s.p, s.n, &L));
    CHECK(L.nslots == 5 && L.nfree == 2 && L.nst == 2 && memcmp(s.p + L.name_at[0], "Aaa", 3) == 0);
    n = s.n;
    p = (unsigned char *)malloc(n + 1);
#define CRAFT(change, edit)                                                \
    do {                                                                   \
        memcpy(p, s.p, n);                                                 \
        edit;                                                              \
        reseal(p, n);                                                      \
        if (!refused_as_inconsistent(p, n, change)) {                      \
            free(p), free(s.p), ecs_world_free(w);                         \
            CHECK(0);                                                      \
        }                                                                  \
    } while (0)
    /* first, a change the contents allow: it loads, so resealing works */
    memcpy(p, s.p, n);
    wr32(p + L.values_at[0], 77);
    reseal(p, n);
    {
        ecs_world *t = crafted_target();
        CHECK(ecs_load(t, p, n));
        CHECK_EQ(*(const int32_t *)ecs_get(t, crafted_ids[0], ecs_lookup(t, "Aaa")), 77);
        ecs_world_free(t);
    }
    CRAFT("a row of a free slot", wr64(p + L.dense_at[0], (uint64_t)2 << 32 | 1));
    CRAFT("a row of a slot past the end", wr64(p + L.dense_at[0], (uint64_t)1 << 32 | 5));
    CRAFT("a row of a stale id", wr64(p + L.dense_at[1], (uint64_t)2 << 32 | 2));
    CRAFT("an entity with two rows", wr64(p + L.dense_at[0] + 8, rd64(p + L.dense_at[0])));
    CRAFT("a row of a slot marked free", wr32(p + L.versions_at + 8, 0x80000000u | 1));
    CRAFT("version 0", wr32(p + L.versions_at + 12, 0));
    CRAFT("a version above ECS_VERSION_MAX", wr32(p + L.versions_at + 12, ECS_VERSION_MAX + 1));
    CRAFT("a free version above ECS_VERSION_MAX", wr32(p + L.versions_at + 4, 0x80000000u | (ECS_VERSION_MAX + 1)));
    CRAFT("a live slot queued", wr32(p + L.free_at, 0));
    CRAFT("a slot past the end queued", wr32(p + L.free_at, 5));
    CRAFT("a slot queued twice", wr32(p + L.free_at + 4, 1));
    CRAFT("more queued slots than free ones", wr32(p + L.nfree_at, 3));
    CRAFT("a clock before the start", wr64(p + L.clock_at, 1));
    CRAFT("one storage more", wr32(p + L.nstorages_at, 3));
    CRAFT("a storage listed twice", memcpy(p + L.name_at[1], "Aaa", 3));
    CRAFT("a storage without a name", (wr32(p + L.name_at[1] - 4, 0)));
    CRAFT("a name with a NUL", p[L.name_at[1] + 1] = 0);
    CRAFT("unknown tracking flags", wr32(p + L.track_at[1], 1u << 4));
    CRAFT("unknown storage bits", wr32(p + L.bits_at[1], 4));
    CRAFT("more rows than live entities", wr32(p + L.rows_at[1], 4));
    CRAFT("a unique that is not there", wr32(p + L.bits_at[1], 2));
    CRAFT("a removal list not kept", wr32(p + L.track_at[0], ECS_TRACK_ALL & ~(uint32_t)ECS_TRACK_REMOVAL));
    CRAFT("a list count past the end", wr32(p + L.removed_at[0], 0xffffffffu));
    CRAFT("a row count past the end", wr32(p + L.rows_at[1], 0x10000000u));
    CRAFT("a slot count past the end", wr32(p + L.nslots_at, 0x10000000u));
    CRAFT("a name length past the end", wr32(p + L.name_at[0] - 4, 0xfffffff0u));
    {   /* Aaa (4 bytes, 2 rows, tracked): values, inserted[2], modified[2],
           window starts, then its removals {entity, tick} x 2 */
        uint64_t clock = rd64(s.p + L.clock_at);
        size_t ins = L.values_at[0] + 2 * 4, mod = ins + 16, win = L.removed_at[0] - 16, rem = L.removed_at[0] + 4;
        CHECK(rd32(s.p + L.removed_at[0]) == 2 && rd64(s.p + rem + 8) < rd64(s.p + rem + 24));
        CHECK(rd64(s.p + ins) <= clock && rd64(s.p + mod + 8) <= clock);
        CRAFT("a clock of 2^64-1", wr64(p + L.clock_at, ~(uint64_t)0));
        CRAFT("a clock of 2^62", wr64(p + L.clock_at, (uint64_t)1 << 62));
        CRAFT("an insertion stamp after the clock", wr64(p + ins, clock + 1));
        CRAFT("a modification stamp after the clock", wr64(p + mod + 8, clock + 1));
        CRAFT("an insertion window after the clock", wr64(p + win, clock + 1));
        CRAFT("a modification window after the clock", wr64(p + win + 8, clock + 1));
        CRAFT("a removal after the clock", wr64(p + rem + 24, clock + 1));
        CRAFT("removals out of tick order", wr64(p + rem + 24, rd64(s.p + rem + 8) - 1));
        CRAFT("a removal of a slot past the end", wr64(p + rem, (uint64_t)1 << 32 | 5));
        CRAFT("a removal of version 0", wr64(p + rem, 3));
        /* and the largest clock allowed loads */
        memcpy(p, s.p, n);
        wr64(p + L.clock_at, ((uint64_t)1 << 62) - 1);
        reseal(p, n);
        {
            ecs_world *t = crafted_target();
            CHECK(ecs_load(t, p, n) && ecs_tick_advance(t) == ((uint64_t)1 << 62) - 1);
            ecs_world_free(t);
        }
    }
#undef CRAFT
    /* a byte too many before the trailer */
    memcpy(p, s.p, L.end);
    p[L.end] = 0;
    memset(p + L.end + 1, 0, 16);
    reseal(p, n + 1);
    if (!refused_as_inconsistent(p, n + 1, "a byte after the last storage")) {
        free(p), free(s.p), ecs_world_free(w);
        CHECK(0);
    }
    free(p);
    free(s.p);
    ecs_world_free(w);
}

/* ---- refusals with their errors ---------------------------------------------------- */

/* The header of section 17: "ECSHSNAP", u32 version 1 (little-endian), u8
   byte order (1 little, 2 big), three zero bytes. */
static void test_the_header_is_as_documented(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c);
    snap s = take(w);
    const unsigned one = 1;
    unsigned char order = *(const unsigned char *)&one == 1 ? 1 : 2;
    CHECK(s.p != NULL && s.n >= 16 + 16);
    CHECK_EQ(memcmp(s.p, "ECSHSNAP", 8), 0);
    CHECK_EQ(rd32(s.p + 8), 1);
    CHECK_EQ(s.p[12], order);
    CHECK(s.p[13] == 0 && s.p[14] == 0 && s.p[15] == 0);
    /* the trailer: u64 length of the whole snapshot, then the checksum */
    CHECK(rd32(s.p + s.n - 16) == s.n && rd32(s.p + s.n - 12) == 0);
    {
        layout L;
        unsigned char *copy = (unsigned char *)malloc(s.n);
        int same;
        CHECK(walk(s.p, s.n, &L)); /* every field where section 17 puts it */
        CHECK(L.nst == 3 && L.nslots == 40 && L.nfree == 10);
        memcpy(copy, s.p, s.n);
        reseal(copy, s.n); /* the checksum as documented */
        same = memcmp(copy, s.p, s.n) == 0;
        free(copy);
        CHECK(same);
    }
    free(s.p);
    ecs_world_free(w);
}

/* Loads a copy of s with byte `offset` set to `value` into a fresh world
   registered like small_world. */
static int refused_patched(snap s, size_t offset, unsigned char value, ecs_error err, const char *word) {
    ecs_component c[NC];
    ecs_world *t = target_world(c, true);
    unsigned char *p = (unsigned char *)malloc(s.n);
    int ok;
    memcpy(p, s.p, s.n);
    p[offset] = value;
    ok = !ecs_load(t, p, s.n) && error_is(t, err, word) && ecs_count(t) == 0;
    free(p);
    ecs_world_free(t);
    ENSURE(ok);
    return 1;
}

/* Header checks come before the checksum: a snapshot of another format
   version says so, even though its checksum no longer matches either. */
static void test_a_wrong_magic_version_or_byte_order_is_named(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c);
    snap s = take(w);
    const unsigned one = 1;
    int little = *(const unsigned char *)&one == 1;
    what = "header";
    CHECK_PTR_NE(s.p, NULL);
    CHECK(refused_patched(s, 0, 'X', ECS_ERR_FORMAT, "not a snapshot"));
    CHECK(refused_patched(s, 7, 'p', ECS_ERR_FORMAT, "not a snapshot"));
    /* the version found is named (its checksum fails too: the header comes first) */
    CHECK(refused_patched(s, 8, 2, ECS_ERR_FORMAT, "format 2"));
    CHECK(refused_patched(s, 8, 0, ECS_ERR_FORMAT, "format 0"));
    CHECK(refused_patched(s, 11, 1, ECS_ERR_FORMAT, "format 16777217"));
    CHECK(refused_patched(s, 12, little ? 2 : 1, ECS_ERR_FORMAT, little ? "big" : "little"));
    CHECK(refused_patched(s, 12, 3, ECS_ERR_FORMAT, "byte order"));
    /* a bit of the body: the checksum catches it */
    CHECK(refused_patched(s, s.n / 2, (unsigned char)(s.p[s.n / 2] ^ 0x10), ECS_ERR_FORMAT, "checksum"));
    free(s.p);
    ecs_world_free(w);
}

/* The free queue is a ring: a snapshot saves it in queue order whatever
   state the ring is in - empty, full, wrapped around (its head past its
   tail), just grown - and the loaded world hands out the same ids, in the
   same order, as the saved one. Each state is checked on the ring itself
   (the world's private fields) so the test cannot drift away from it. */
static int same_next_ids(ecs_world *a, ecs_world *b, uint32_t n) {
    uint32_t i;
    for (i = 0; i < n; i++) {
        ecs_entity x = ecs_create(a), y = ecs_create(b);
        if (x == ECS_NULL || x != y) return fail_at(__LINE__, "the next ids differ");
    }
    return 1;
}
static int ring_round_trip(ecs_world *w) {
    snap s = take(w);
    ecs_world *t = ecs_world_new(NULL);
    int ok;
    ENSURE(s.p != NULL && t != NULL);
    ok = ecs_load(t, s.p, s.n) && t->fq_len == w->fq_len && same_next_ids(w, t, w->fq_len + 3);
    free(s.p);
    ecs_world_free(t);
    return ok;
}
static void test_the_free_queue_saves_in_order_in_every_ring_state(void) {
    ecs_world *w;
    ecs_entity e[200];
    uint32_t i, cap;
    /* empty */
    w = ecs_world_new(NULL);
    for (i = 0; i < 5; i++) e[i] = ecs_create(w);
    CHECK(w->fq_len == 0 && ring_round_trip(w));
    ecs_world_free(w);
    /* full: every entry of the ring holds a slot */
    w = ecs_world_new(NULL);
    for (i = 0; i < 200; i++) e[i] = ecs_create(w);
    for (i = 0; w->fq_len < w->fq_cap || !w->fq_cap; i++) ecs_destroy(w, e[(i * 7) % 200]);
    cap = w->fq_cap;
    CHECK(w->fq_len == cap && ring_round_trip(w));
    ecs_world_free(w);
    /* wrapped around: the head moved on, the tail came round past the end */
    w = ecs_world_new(NULL);
    for (i = 0; i < 200; i++) e[i] = ecs_create(w);
    for (i = 0; w->fq_len < w->fq_cap || !w->fq_cap; i++) ecs_destroy(w, e[i]);
    for (i = 0; i < 10; i++) e[i] = ecs_create(w); /* head 10 */
    for (i = 0; i < 5; i++) ecs_destroy(w, e[i]);   /* the tail wraps to 0.. */
    CHECK(w->fq_head + w->fq_len > w->fq_cap && ring_round_trip(w));
    ecs_world_free(w);
    /* just grown: the wrapped ring copied into a bigger one */
    w = ecs_world_new(NULL);
    for (i = 0; i < 200; i++) e[i] = ecs_create(w);
    for (i = 0; w->fq_len < w->fq_cap || !w->fq_cap; i++) ecs_destroy(w, e[i]);
    cap = w->fq_cap;
    for (i = 0; i < 10; i++) e[i] = ecs_create(w);
    for (i = 0; i < 10; i++) ecs_destroy(w, e[i]); /* full again, wrapped */
    ecs_destroy(w, e[199]);                        /* one more: it grows */
    CHECK(w->fq_cap > cap && w->fq_len == cap + 1 && ring_round_trip(w));
    ecs_world_free(w);
}

/* The tracking lists are arrays: a snapshot of a removal list in each of
   its states - empty, full (count == capacity), just grown - loads as the
   same list. The states are asserted on the list itself. */
static void test_a_tracking_list_saves_in_every_state(void) {
    ecs_world *w = ecs_world_new(NULL);
    ecs_component a = ecs_register(w, "Aaa", 4, 4);
    ecs_entity e = ecs_create(w);
    uint32_t i, n, m, last_cap = 0, full = 0, grown = 0;
    int32_t v = 1;
    ecs_track_set(w, a, ECS_TRACK_REMOVAL);
    for (i = 0; i <= 140; i++) {
        const ecs__changes *l = &w->storages[a]->removed;
        snap s;
        ecs_world *t = ecs_world_new(NULL);
        const ecs_change *x, *y;
        full += l->cap && l->count == l->cap;
        grown += l->cap > last_cap && last_cap && l->count == last_cap + 1;
        last_cap = l->cap;
        s = take(w);
        ecs_register(t, "Aaa", 4, 4);
        CHECK(s.p != NULL && ecs_load(t, s.p, s.n));
        x = ecs_track_removed(w, a, 0, &n);
        y = ecs_track_removed(t, a, 0, &m);
        CHECK(n == i && m == n && (!n || memcmp(x, y, n * sizeof *x) == 0));
        free(s.p);
        ecs_world_free(t);
        ecs_add(w, e, a, &v); /* one more removal */
        ecs_remove(w, e, a, NULL);
        if (i % 3 == 0) ecs_tick_advance(w);
    }
    CHECK(full >= 2 && grown >= 2);
    ecs_world_free(w);
}

/* A load refused late - after the slots and a first storage were read,
   at a component the target lacks - leaves the target's memory as it was:
   the page tables for the snapshot's slots and the room for a storage's
   records are made aside and installed only by a load that commits. */
static void test_a_load_refused_late_leaves_memory_as_it_was(void) {
    ecs_world *src = ecs_world_new(NULL), *t = ecs_world_new(NULL);
    ecs_component a = ecs_register(src, "Aaa", 4, 4), z = ecs_register(src, "Zzz", 4, 4);
    ecs_world_stats before, after;
    ecs_entity e = ECS_NULL;
    snap s;
    int32_t i;
    ecs_track_set(src, a, ECS_TRACK_ALL);
    for (i = 0; i < 3 * 4096; i++) ecs_add(src, e = ecs_create(src), a, &i);
    ecs_add(src, e, z, &i);
    s = take(src);
    CHECK_PTR_NE(s.p, NULL);
    ecs_register(t, "Aaa", 4, 4);
    CHECK(ecs_world_stats_get(t, &before));
    CHECK(!ecs_load(t, s.p, s.n) && ecs_last_error(t) == ECS_ERR_NOT_FOUND);
    CHECK(ecs_world_stats_get(t, &after));
    CHECK(after.total == before.total && after.storage_bytes == before.storage_bytes);
    CHECK_EQ(after.slot_capacity, before.slot_capacity);
    ecs_register(t, "Zzz", 4, 4);
    CHECK(ecs_load(t, s.p, s.n) && ecs_count(t) == 3 * 4096);
    CHECK_EQ(*(const int32_t *)ecs_get(t, e, ecs_lookup(t, "Zzz")), 3 * 4096);
    free(s.p);
    ecs_world_free(src);
    ecs_world_free(t);
}

/* A component of the snapshot that the target lacks: NOT_FOUND, naming
   it, the target as it was. Whether the target has fewer components than
   the snapshot has storages, or as many and more, makes no difference. */
static void test_a_component_missing_in_the_target_is_named(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c), *t;
    snap s = take(w);
    CHECK_PTR_NE(s.p, NULL);

    t = ecs_world_new(NULL); /* Int, Tag and two others: no Vec3 */
    ecs_register(t, "Int", sizeof(int32_t), ECS_ALIGNOF(int32_t));
    ecs_register(t, "Other", 8, 8);
    ECS_TAG(t, "Tag");
    ecs_register(t, "More", 2, 2);
    CHECK(!ecs_load(t, s.p, s.n));
    CHECK(error_is(t, ECS_ERR_NOT_FOUND, "Vec3"));
    CHECK(ecs_count(t) == 0 && ecs_storage_count(ecs_storage_of(t, ecs_lookup(t, "Int"))) == 0);
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(t)), 0); /* its own slots, untouched */
    ecs_world_free(t);

    t = ecs_world_new(NULL); /* Int and Tag only */
    ecs_register(t, "Int", sizeof(int32_t), ECS_ALIGNOF(int32_t));
    ECS_TAG(t, "Tag");
    CHECK(!ecs_load(t, s.p, s.n));
    CHECK(error_is(t, ECS_ERR_NOT_FOUND, "Vec3"));
    CHECK(ecs_count(t) == 0 && ecs_storage_count(ecs_storage_of(t, ecs_lookup(t, "Int"))) == 0);
    ecs_world_free(t);

    t = ecs_world_new(NULL); /* nothing registered */
    CHECK(!ecs_load(t, s.p, s.n));
    CHECK(error_is(t, ECS_ERR_NOT_FOUND, "Int"));
    ecs_world_free(t);

    free(s.p);
    ecs_world_free(w);
}

/* A component registered with another size than it was saved with:
   SIZE_MISMATCH, naming it, the target as it was. Another alignment
   loads: it describes the loading machine's memory, not the bytes (a
   double or an ecs_entity is aligned to 4 on i386, 8 on x86-64). */
static void test_a_size_mismatch_is_named_and_another_alignment_loads(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c), *t;
    snap s = take(w);
    CHECK_PTR_NE(s.p, NULL);

    t = ecs_world_new(NULL); /* Vec3 of 16 bytes */
    ecs_register(t, "Int", sizeof(int32_t), ECS_ALIGNOF(int32_t));
    ecs_register(t, "Vec3", 16, 4);
    ECS_TAG(t, "Tag");
    CHECK(!ecs_load(t, s.p, s.n));
    CHECK(error_is(t, ECS_ERR_SIZE_MISMATCH, "Vec3"));
    CHECK(ecs_count(t) == 0 && ecs_storage_count(ecs_storage_of(t, ecs_lookup(t, "Int"))) == 0);
    ecs_world_free(t);

    t = ecs_world_new(NULL); /* Int of 4 bytes, aligned to 1: loads, the same values */
    ecs_register(t, "Int", sizeof(int32_t), 1);
    ECS_COMPONENT(t, Vec3);
    ECS_TAG(t, "Tag");
    CHECK(ecs_load(t, s.p, s.n));
    {
        const ecs_storage *a = ecs_storage_of(w, c[C_INT]), *b = ecs_storage_of(t, ecs_lookup(t, "Int"));
        CHECK_STR_EQ(ecs_component_name(w, c[C_INT]), "Int");
        CHECK(ecs_count(t) == ecs_count(w) && ecs_storage_count(a) == ecs_storage_count(b) && ecs_storage_count(a) > 0);
        CHECK_EQ(memcmp(ecs_storage_data(a), ecs_storage_data(b), ecs_storage_count(a) * sizeof(int32_t)), 0);
    }
    ecs_world_free(t);

    t = ecs_world_new(NULL); /* Tag with data */
    ecs_register(t, "Int", sizeof(int32_t), ECS_ALIGNOF(int32_t));
    ECS_COMPONENT(t, Vec3);
    ecs_register(t, "Tag", 1, 1);
    CHECK(!ecs_load(t, s.p, s.n));
    CHECK(error_is(t, ECS_ERR_SIZE_MISMATCH, "Tag"));
    ecs_world_free(t);

    free(s.p);
    ecs_world_free(w);
}

/* The snapshot's slot count against the target's desc.max_entities:
   more is EXHAUSTED (nothing changed), as many is fine. */
static void test_more_slots_than_max_entities_is_exhausted(void) {
    ecs_world *w = ecs_world_new(NULL), *t;
    ecs_desc d;
    ecs_entity e[30];
    snap s;
    int i;
    for (i = 0; i < 30; i++) e[i] = ecs_create(w);
    for (i = 0; i < 30; i += 3) ecs_destroy(w, e[i]); /* free slots count too */
    s = take(w);
    CHECK_PTR_NE(s.p, NULL);
    memset(&d, 0, sizeof d);
    d.max_entities = 29;
    t = ecs_world_new(&d);
    CHECK(!ecs_load(t, s.p, s.n));
    CHECK(error_is(t, ECS_ERR_EXHAUSTED, "ecs_load"));
    CHECK_EQ(ecs_count(t), 0);
    CHECK_EQ(ECS_ENTITY_INDEX(ecs_create(t)), 0); /* its own slots, untouched */
    ecs_world_free(t);
    d.max_entities = 30;
    t = ecs_world_new(&d);
    CHECK(ecs_load(t, s.p, s.n));
    CHECK_EQ(ecs_count(t), 20);
    for (i = 0; i < 30; i++) CHECK_EQ(ecs_alive(t, e[i]), (i % 3 != 0));
    for (i = 0; i < 10; i++) CHECK_EQ(ecs_create(t), ecs_create(w)); /* the 10 free slots */
    CHECK(ecs_create(t) == ECS_NULL && ecs_last_error(t) == ECS_ERR_EXHAUSTED);
    free(s.p);
    ecs_world_free(w), ecs_world_free(t);
}

/* The target must be empty: a live entity or a pending command is a
   programmer error (assert, INVALID), and the target stays as it was. */
static void test_the_target_must_have_no_entity_and_no_command(void) {
    ecs_component c[NC], ct[NC];
    ecs_world *w = small_world(c), *t;
    ecs_entity e;
    snap s = take(w);
    int32_t v = 9;
    CHECK_PTR_NE(s.p, NULL);

    t = target_world(ct, true);
    e = ecs_create(t);
    ecs_add(t, e, ct[C_INT], &v);
    EXPECT_ASSERT(!ecs_load(t, s.p, s.n), "live");
    CHECK(test_names_or_say(test__assert_msg, "ecs_load", NULL, NULL, __FILE__, __LINE__));
    CHECK_EQ(ecs_last_error(t), ECS_ERR_INVALID);
    CHECK(ecs_count(t) == 1 && ecs_alive(t, e) && *(const int32_t *)ecs_get(t, e, ct[C_INT]) == 9);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(t, ct[C_VEC])), 0);
    ecs_destroy(t, e);
    CHECK(ecs_load(t, s.p, s.n)); /* emptied: now it loads */
    ecs_world_free(t);

    t = target_world(ct, true);
    e = ecs_create(t);
    ecs_destroy(t, e);
    CHECK(ecs_defer_destroy(t, e)); /* a stale id is recorded (section 8) */
    CHECK(ecs_defer_pending(t) == 1 && ecs_count(t) == 0);
    EXPECT_ASSERT(!ecs_load(t, s.p, s.n), "pending");
    CHECK(test_names_or_say(test__assert_msg, "ecs_load", NULL, NULL, __FILE__, __LINE__));
    CHECK_EQ(ecs_last_error(t), ECS_ERR_INVALID);
    CHECK(ecs_defer_pending(t) == 1 && ecs_count(t) == 0);
    CHECK_EQ(ecs_storage_count(ecs_storage_of(t, ct[C_INT])), 0);
    ecs_flush(t);
    CHECK(ecs_load(t, s.p, s.n));
    ecs_world_free(t);

    free(s.p);
    ecs_world_free(w);
}

/* The saving world must have no pending command: ecs_save and
   ecs_save_buffer refuse (assert, INVALID) and write nothing. */
static void test_save_refuses_pending_commands(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c);
    ecs_entity e = ecs_create(w);
    sink out;
    unsigned char buf[16];
    memset(&out, 0, sizeof out);
    CHECK(ecs_defer_add(w, e, c[C_VEC], NULL));
    EXPECT_ASSERT(!ecs_save(w, sink_write, &out), "pending");
    CHECK(test_names_or_say(test__assert_msg, "ecs_save", NULL, NULL, __FILE__, __LINE__));
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    CHECK_EQ(out.calls, 0);
    EXPECT_ASSERT(ecs_save_buffer(w, NULL, 0) == 0, "pending");
    CHECK(test_names_or_say(test__assert_msg, "ecs_save_buffer", NULL, NULL, __FILE__, __LINE__));
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(ecs_save_buffer(w, buf, sizeof buf) == 0, "ecs_save_buffer");
    CHECK_EQ(ecs_defer_pending(w), 1); /* the queue is untouched */
    CHECK(ecs_flush(w) == 1 && ecs_has(w, e, c[C_VEC]));
    CHECK(ecs_save(w, sink_write, &out) && out.n == ecs_save_buffer(w, NULL, 0));
    free(out.p);
    ecs_world_free(w);
}

/* A write callback that fails at any one of its calls fails the save:
   false, INVALID with a message, no assert, the world unchanged (the
   next save gives the bytes it would have). */
static void test_a_failing_write_fails_the_save(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c);
    snap s;
    sink out;
    unsigned long calls, k;
    char where[32];
    int wrong_offset = 0, i;
    what = "failing write";
    for (i = 0; i < 3000; i++) { /* some 40 KB: many pieces, small and big */
        ecs_entity e = ecs_create(w);
        Vec3 v = {1, 2, 3};
        int32_t k32 = i;
        v.x = (float)i;
        ecs_add(w, e, c[C_INT], &k32);
        if (i % 2) ecs_add(w, e, c[C_VEC], &v);
    }
    s = take(w);
    CHECK_PTR_NE(s.p, NULL);
    memset(&out, 0, sizeof out);
    CHECK(ecs_save(w, sink_write, &out));
    calls = out.calls;
    CHECK_GE(calls, 4);
    for (k = 1; k <= calls; k++) {
        at = (long)k;
        free(out.p);
        memset(&out, 0, sizeof out);
        out.fail_at = k;
        ecs_clear_error(w);
        CHECK(!ecs_save(w, sink_write, &out));
        CHECK_EQ(out.calls, k); /* it stops at the first refusal */
        CHECK(error_is(w, ECS_ERR_INVALID, "ecs_save"));
        /* the offset named is where the refused piece starts: out.n bytes went through */
        snprintf(where, sizeof where, "byte %lu", (unsigned long)out.n);
        if (!strstr(ecs_last_error_msg(w), where) && !wrong_offset++)
            printf("    write %lu refused after %lu bytes: \"%s\"\n", k, (unsigned long)out.n, ecs_last_error_msg(w));
    }
    at = -1;
    if (wrong_offset) printf("    %d of %lu messages name another offset\n", wrong_offset, calls);
    CHECK_EQ(wrong_offset, 0);
    free(out.p);
    memset(&out, 0, sizeof out);
    CHECK(ecs_save(w, sink_write, &out));
    CHECK(same_bytes(s, as_snap(&out)));
    free(out.p);
    free(s.p);
    ecs_world_free(w);
}

/* ecs_save_buffer as snprintf: (NULL, 0) asks for the size; a buffer too
   small gets the same answer and nothing past its end is written; one that
   fits gets exactly the bytes ecs_save streams. */
static void test_save_buffer_answers_like_snprintf(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c);
    size_t n = ecs_save_buffer(w, NULL, 0), k;
    unsigned char *buf, *small;
    sink out;
    memset(&out, 0, sizeof out);
    CHECK_GT(n, 32);
    CHECK(ecs_save(w, sink_write, &out) && out.n == n);
    buf = (unsigned char *)malloc(1);
    CHECK_EQ(ecs_save_buffer(w, buf, 0), n); /* cap 0: nothing written */
    free(buf);
    for (k = 1; k < n; k += k < 64 ? 1 : 97) { /* blocks of exactly k bytes: ASan sees an overrun */
        small = (unsigned char *)malloc(k);
        at = (long)k;
        if (ecs_save_buffer(w, small, k) != n) {
            free(small);
            CHECK(0);
        }
        free(small);
    }
    at = -1;
    buf = (unsigned char *)malloc(n + 8);
    memset(buf, 0xab, n + 8);
    CHECK_EQ(ecs_save_buffer(w, buf, n + 8), n);
    CHECK_EQ(memcmp(buf, out.p, n), 0);
    for (k = n; k < n + 8; k++) CHECK_EQ(buf[k], 0xab); /* only the snapshot is written */
    memset(buf, 0, n);
    CHECK(ecs_save_buffer(w, buf, n) == n && memcmp(buf, out.p, n) == 0);
    free(buf);
    free(out.p);
    ecs_world_free(w);
}

/* NULL where a pointer is needed (section 2's catalogue): a NULL world is
   the failure value and an assert; a NULL write function, bytes or buf
   (with cap > 0) too, with ECS_ERR_INVALID in the world. */
static void test_null_arguments_are_refused(void) {
    ecs_component c[NC];
    ecs_world *w = small_world(c), *t = ecs_world_new(NULL);
    snap s = take(w);
    sink out;
    ecs_serial ser;
    memset(&out, 0, sizeof out);
    memset(&ser, 0, sizeof ser);
    CHECK_PTR_NE(s.p, NULL);
    EXPECT_ASSERT(!ecs_save(NULL, sink_write, &out), "ecs_save");
    EXPECT_ASSERT(ecs_save_buffer(NULL, NULL, 0) == 0, "ecs_save_buffer");
    EXPECT_ASSERT(!ecs_load(NULL, s.p, s.n), "ecs_load");
    EXPECT_ASSERT(!ecs_serial_set(NULL, c[C_INT], &ser), "ecs_serial_set");
    EXPECT_ASSERT(!ecs_save(w, NULL, &out), "ecs_save");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    ecs_clear_error(w);
    EXPECT_ASSERT(ecs_save_buffer(w, NULL, 64) == 0, "ecs_save_buffer");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_INVALID);
    EXPECT_ASSERT(!ecs_load(t, NULL, s.n), "ecs_load");
    CHECK_EQ(ecs_last_error(t), ECS_ERR_INVALID);
    /* an unknown component */
    EXPECT_ASSERT(!ecs_serial_set(w, 0, &ser), "ecs_serial_set");
    EXPECT_ASSERT(!ecs_serial_set(w, 99, NULL), "ecs_serial_set");
    CHECK(out.calls == 0 && ecs_count(t) == 0);
    free(s.p);
    ecs_world_free(w), ecs_world_free(t);
}

/* ---- what the target keeps, and groups ------------------------------------------- */

/* Components the target has and the snapshot lacks keep their unique and
   their tracking (flags and lists); those of the snapshot get its own,
   even "none": a unique the target had is gone when the snapshot has none,
   and tracking flags are the snapshot's. */
static void test_the_target_keeps_what_the_snapshot_lacks(void) {
    ecs_world *a = ecs_world_new(NULL), *t = ecs_world_new(NULL);
    ecs_component ia = ecs_register(a, "Int", 4, 4), it, xt;
    ecs_entity e = ecs_create(a), g;
    int32_t v = 3, x = 42;
    const ecs_change *l;
    uint32_t n;
    snap s;
    ecs_add(a, e, ia, &v);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    xt = ecs_register(t, "Extra", 4, 4);
    it = ecs_register(t, "Int", 4, 4);
    ecs_unique_add(t, xt, &x);
    ecs_unique_add(t, it, &x); /* the snapshot has no unique of Int */
    ecs_track_set(t, it, ECS_TRACK_ALL);
    ecs_track_set(t, xt, ECS_TRACK_DELETION | ECS_TRACK_MODIFICATION);
    for (n = 0; n < 100; n++) ecs_tick_advance(t); /* t's clock far past the snapshot's */
    g = ecs_create(t);
    ecs_add(t, g, xt, &x);
    ecs_destroy(t, g);
    CHECK(ECS_UNIQUE_GET_MUT(t, xt, int32_t) != NULL); /* a stamp after the snapshot's clock */
    CHECK(ecs_load(t, s.p, s.n));
    CHECK(ecs_unique_has(t, xt) && *(const int32_t *)ecs_unique_get(t, xt) == 42);
    CHECK_EQ(ecs_track_get(t, xt), (ECS_TRACK_DELETION | ECS_TRACK_MODIFICATION));
    l = ecs_track_deleted(t, xt, 0, &n); /* it named an entity of the world the load replaced: gone */
    CHECK(n == 0 || l == NULL);
    CHECK_EQ(n, 0u);
    CHECK(!ecs_track_unique_modified(t, xt, ecs_tick_advance(t))); /* nothing after the loaded clock */
    CHECK(!ecs_unique_has(t, it));
    CHECK_EQ(ecs_track_get(t, it), 0);
    CHECK(ecs_alive(t, e) && *(const int32_t *)ecs_get(t, e, it) == 3);
    free(s.p);
    s = take(t); /* what the loaded world saves loads again */
    CHECK_PTR_NE(s.p, NULL);
    ecs_world_free(a);
    a = ecs_world_new(NULL);
    ecs_register(a, "Extra", 4, 4), ecs_register(a, "Int", 4, 4);
    CHECK(ecs_load(a, s.p, s.n));
    free(s.p);
    ecs_world_free(a), ecs_world_free(t);
}

/* A group only the target has is packed over the loaded rows: its count
   and rows hold exactly the matching entities, aligned in every owned
   storage. */
static void test_a_group_only_the_target_has_is_packed(void) {
    ecs_world *a = ecs_world_new(NULL), *t = ecs_world_new(NULL);
    ecs_component pa = ECS_COMPONENT(a, Vec3), ia = ecs_register(a, "Int", 4, 4), fa = ECS_TAG(a, "Tag");
    ecs_component pt, it, ft;
    ecs_group_desc d;
    ecs_group g;
    ecs_entity e[60];
    uint32_t n, i, want = 0;
    snap s;
    for (i = 0; i < 60; i++) {
        int32_t v = (int32_t)i;
        e[i] = ecs_create(a);
        if (i % 2) ecs_add(a, e[i], pa, NULL);
        if (i % 3) ecs_add(a, e[i], ia, &v);
        if (i % 5 == 0) ecs_add(a, e[i], fa, NULL);
        want += i % 2 && i % 3 && i % 5;
    }
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    ft = ECS_TAG(t, "Tag");
    it = ecs_register(t, "Int", 4, 4);
    pt = ECS_COMPONENT(t, Vec3);
    memset(&d, 0, sizeof d);
    d.owned[0] = pt, d.owned[1] = it, d.excluded[0] = ft;
    g = ecs_group_new(t, &d);
    CHECK_NE(g, 0);
    CHECK(ecs_load(t, s.p, s.n));
    n = ecs_group_count(t, g);
    CHECK_EQ(n, want);
    for (i = 0; i < n; i++) {
        ecs_entity x = ecs_group_entities(t, g)[i];
        CHECK_EQ(ecs_storage_entities(ecs_storage_of(t, pt))[i], x);
        CHECK_EQ(ecs_storage_entities(ecs_storage_of(t, it))[i], x);
        CHECK(!ecs_has(t, x, ft));
        CHECK_EQ(*(const int32_t *)ecs_get(t, x, it), (int32_t)ECS_ENTITY_INDEX(x));
        CHECK_EQ(((const int32_t *)ecs_group_data(t, g, it))[i], (int32_t)ECS_ENTITY_INDEX(x));
    }
    for (i = 0; i < 60; i++) CHECK(ecs_has(t, e[i], it) == (i % 3 != 0) && ecs_has(t, e[i], pt) == (i % 2 != 0));
    free(s.p);
    ecs_world_free(a), ecs_world_free(t);
}

/* A slot retired at ECS_VERSION_MAX stays retired: never handed out by
   the loaded world either. */
static void test_a_retired_slot_stays_retired(void) {
    ecs_world *a = ecs_world_new(NULL), *b = ecs_world_new(NULL);
    ecs_entity e = ECS_NULL;
    snap s;
    uint32_t i;
    for (i = 0; i < ECS_VERSION_MAX; i++) {
        e = ecs_create(a);
        CHECK_EQ(ECS_ENTITY_INDEX(e), 0);
        ecs_destroy(a, e);
    }
    CHECK_EQ(ECS_ENTITY_VERSION(e), ECS_VERSION_MAX);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    CHECK(ecs_load(b, s.p, s.n));
    CHECK(!ecs_alive(b, e));
    for (i = 0; i < 100; i++) {
        ecs_entity x = ecs_create(b);
        CHECK_EQ(x, ecs_create(a));
        CHECK_NE(ECS_ENTITY_INDEX(x), 0);
    }
    free(s.p);
    ecs_world_free(a), ecs_world_free(b);
}

/* ---- ecs_serial ------------------------------------------------------------------- */

typedef struct { char *s; } Name;

typedef struct {
    long saves, loads, drops; /* calls */
    long fail_save, fail_load; /* the call (from 1) that returns false; 0: none */
    long live;                /* strings allocated and not freed */
    long dirty;               /* load found memory that was not zeroed */
} name_ctl;
static name_ctl nc;

static char *name_dup(const char *s, size_t n) {
    char *p = (char *)malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    nc.live++;
    return p;
}
static void name_free(char *s) {
    if (s) nc.live--;
    free(s);
}

/* Writes the string's bytes in two pieces. */
static bool name_save(const void *value, ecs_write_fn write, void *wuser, void *user) {
    const Name *v = (const Name *)value;
    size_t n = strlen(v->s), half = n / 2;
    (void)user;
    if (++nc.saves == nc.fail_save) return false;
    return write(v->s, half, wuser) && write(v->s + half, n - half, wuser);
}
static bool name_load(void *value, const void *bytes, size_t n, void *user) {
    Name *v = (Name *)value;
    (void)user;
    if (v->s) nc.dirty++;
    if (++nc.loads == nc.fail_load) return false;
    return (v->s = name_dup((const char *)bytes, n)) != NULL;
}
static void name_drop(void *value, void *user) {
    Name *v = (Name *)value;
    (void)user;
    nc.drops++;
    name_free(v->s);
    v->s = NULL;
}
static void name_on_remove(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)w, (void)e, (void)c, (void)user;
    name_free(((Name *)value)->s);
}

static ecs_serial name_serial(void) {
    ecs_serial s;
    memset(&s, 0, sizeof s);
    s.save = name_save;
    s.load = name_load;
    s.drop = name_drop;
    return s;
}

static ecs_component name_component(ecs_world *w) {
    ecs_component c = ECS_COMPONENT(w, Name);
    ecs_serial s = name_serial();
    ecs_hooks h = {0};
    memset(&h, 0, sizeof h);
    h.on_remove = name_on_remove;
    ecs_hooks_set(w, c, &h);
    ecs_serial_set(w, c, &s);
    return c;
}

/* 12 entities with a Name (and an Int), one destroyed with DELETION
   tracked, a unique Name. */
static ecs_world *names_world(ecs_component *nm, ecs_component *in, ecs_entity *e) {
    ecs_world *w = ecs_world_new(NULL);
    char buf[64];
    int i;
    *in = ecs_register(w, "Int", 4, 4);
    *nm = name_component(w);
    ecs_track_set(w, *nm, ECS_TRACK_DELETION);
    for (i = 0; i < 12; i++) {
        Name v;
        int32_t k = i;
        e[i] = ecs_create(w);
        snprintf(buf, sizeof buf, "entity number %d%s", i, i % 3 ? "" : " (with a longer name)");
        v.s = name_dup(buf, strlen(buf));
        ecs_add(w, e[i], *nm, &v);
        ecs_add(w, e[i], *in, &k);
    }
    {
        Name u;
        u.s = name_dup("the unique", 10);
        ecs_unique_add(w, *nm, &u);
    }
    return w;
}

static void names_world_free(ecs_world *w, ecs_component nm) {
    uint32_t n;
    Name u;
    while ((n = ecs_storage_count(ecs_storage_of(w, nm))) > 0) ecs_destroy(w, ecs_storage_entities(ecs_storage_of(w, nm))[0]);
    if (ecs_unique_remove(w, nm, &u)) name_free(u.s);
    ecs_world_free(w);
}

/* Values that hold pointers round-trip through the callbacks: equal
   strings at new addresses, the unique too; deletion-list values are
   their bytes (the old pointer); nothing leaks. */
static void test_serial_callbacks_rebuild_pointers(void) {
    ecs_component nm, in, tn, ti;
    ecs_entity e[12];
    ecs_world *a, *b;
    const ecs_change *la, *lb;
    uint32_t na, nb;
    snap s;
    int i;
    memset(&nc, 0, sizeof nc);
    a = names_world(&nm, &in, e);
    ecs_destroy(a, e[5]); /* its Name freed by the hook, its bytes in the deleted list */
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    CHECK(nc.saves >= 2 * 12 && nc.loads == 0); /* 11 rows and the unique, for the size and the bytes */
    {
        layout L; /* per value: u64 length, then the bytes the callback wrote */
        CHECK(walk(s.p, s.n, &L) && L.nst == 2);
    }
    b = ecs_world_new(NULL);
    tn = name_component(b);
    ti = ecs_register(b, "Int", 4, 4);
    CHECK(ecs_load(b, s.p, s.n));
    CHECK(nc.loads == 12 && nc.drops == 0 && nc.dirty == 0);
    for (i = 0; i < 12; i++) {
        const Name *x = (const Name *)ecs_get(a, e[i], nm), *y = (const Name *)ecs_get(b, e[i], tn);
        CHECK((x == NULL) == (i == 5) && (y == NULL) == (i == 5));
        if (i == 5) continue;
        CHECK(strcmp(x->s, y->s) == 0 && x->s != y->s);
        CHECK_EQ(*(const int32_t *)ecs_get(b, e[i], ti), i);
    }
    CHECK_STR_EQ(((const Name *)ecs_unique_get(b, tn))->s, "the unique");
    CHECK_PTR_NE(((const Name *)ecs_unique_get(b, tn))->s, ((const Name *)ecs_unique_get(a, nm))->s);
    la = ecs_track_deleted(a, nm, 0, &na);
    lb = ecs_track_deleted(b, tn, 0, &nb);
    CHECK(na == 1 && nb == 1 && la[0].entity == e[5] && lb[0].entity == e[5]);
    CHECK_EQ(memcmp(ecs_track_deleted_value(a, nm, &la[0]), ecs_track_deleted_value(b, tn, &lb[0]), sizeof(Name)), 0);
    CHECK_EQ(nc.live, 2 * 12);
    names_world_free(a, nm);
    names_world_free(b, tn);
    CHECK_EQ(nc.live, 0);
    free(s.p);
}

/* With a load callback registered, the checksum is checked before any
   value is read (section 17: load callbacks see checked bytes only):
   every bit flipped in a snapshot of Names is refused as damaged, and no
   load callback ever runs. */
static void test_load_callbacks_see_checked_bytes_only(void) {
    ecs_component nm, in, tn, ti;
    ecs_entity e[12];
    ecs_world *a, *b;
    snap s;
    size_t bit;
    memset(&nc, 0, sizeof nc);
    a = names_world(&nm, &in, e);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    b = ecs_world_new(NULL);
    ti = ecs_register(b, "Int", 4, 4);
    tn = name_component(b);
    what = "bit flip, with a load callback";
    for (bit = 13 * 8; bit < s.n * 8; bit++) {
        int ok;
        at = (long)bit;
        s.p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        ok = refused_as_format(b, s.p, s.n);
        s.p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        CHECK(ok);
        CHECK(strstr(ecs_last_error_msg(b), "damaged snapshot: the checksum"));
        CHECK(nc.loads == 0 && ecs_count(b) == 0);
    }
    at = -1;
    CHECK(ecs_load(b, s.p, s.n) && nc.loads == 13 && *(const int32_t *)ecs_get(b, e[3], ti) == 3); /* 12 rows, the unique */
    names_world_free(a, nm);
    names_world_free(b, tn);
    CHECK_EQ(nc.live, 0);
    free(s.p);
}

/* A load callback that fails on the k-th value fails the load (INVALID,
   naming the component) and changes nothing; drop ran for exactly the
   k - 1 values built, so nothing leaks. Every k, the unique's last. */
static void test_a_failing_load_callback_drops_what_was_built(void) {
    ecs_component nm, in, tn;
    ecs_entity e[12];
    ecs_world *a, *b;
    snap s;
    long k;
    memset(&nc, 0, sizeof nc);
    a = names_world(&nm, &in, e);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    what = "failing load callback";
    for (k = 1; k <= 13; k++) {
        at = k;
        b = ecs_world_new(NULL);
        tn = name_component(b);
        ecs_register(b, "Int", 4, 4);
        nc.loads = nc.drops = 0;
        nc.fail_load = k;
        CHECK(!ecs_load(b, s.p, s.n));
        CHECK(error_is(b, ECS_ERR_INVALID, "Name"));
        CHECK(nc.loads == k && nc.drops == k - 1);
        CHECK_EQ(nc.live, 13); /* a's strings only */
        CHECK(ecs_count(b) == 0 && ecs_storage_count(ecs_storage_of(b, tn)) == 0 && !ecs_unique_has(b, tn));
        nc.fail_load = 0;
        nc.loads = nc.drops = 0;
        CHECK(ecs_load(b, s.p, s.n)); /* and then it loads */
        CHECK(nc.loads == 13 && nc.drops == 0);
        names_world_free(b, tn);
    }
    at = -1;
    names_world_free(a, nm);
    CHECK_EQ(nc.live, 0);
    free(s.p);
}

/* A save callback returning false fails the save (INVALID, naming the
   component); skip leaves the component out (the loading world need not
   register it, and keeps its own unique of it); NULL: its bytes again. */
static void test_serial_save_failure_skip_and_default(void) {
    ecs_component nm, in, tn;
    ecs_entity e[12];
    ecs_world *a, *b;
    ecs_serial skip;
    snap plain, s, back;
    sink out;
    Name u;
    memset(&nc, 0, sizeof nc);
    memset(&out, 0, sizeof out);
    a = names_world(&nm, &in, e);

    nc.fail_save = 4;
    CHECK(!ecs_save(a, sink_write, &out));
    CHECK(error_is(a, ECS_ERR_INVALID, "Name"));
    nc.fail_save = 0;

    CHECK(ecs_serial_set(a, nm, NULL)); /* the default: bytes */
    nc.saves = 0;
    plain = take(a);
    CHECK(plain.p != NULL && nc.saves == 0);
    b = ecs_world_new(NULL);
    tn = ECS_COMPONENT(b, Name); /* no callbacks, no hook: b does not own these pointers */
    ecs_register(b, "Int", 4, 4);
    CHECK(ecs_load(b, plain.p, plain.n));
    CHECK_PTR_EQ(((const Name *)ecs_get(b, e[2], tn))->s, ((const Name *)ecs_get(a, e[2], nm))->s);
    ecs_world_free(b);

    memset(&skip, 0, sizeof skip);
    skip.skip = true;
    CHECK(ecs_serial_set(a, nm, &skip));
    s = take(a);
    CHECK(s.p != NULL && s.n < plain.n && nc.saves == 0);
    b = ecs_world_new(NULL); /* Name not registered */
    ecs_register(b, "Int", 4, 4);
    CHECK(ecs_load(b, s.p, s.n));
    CHECK(ecs_count(b) == 12 && ecs_lookup(b, "Name") == 0);
    ecs_world_free(b);
    b = ecs_world_new(NULL); /* registered, with a unique of its own */
    tn = ECS_COMPONENT(b, Name);
    ecs_register(b, "Int", 4, 4);
    u.s = NULL;
    ecs_unique_add(b, tn, &u);
    CHECK(ecs_load(b, s.p, s.n));
    CHECK(ecs_count(b) == 12 && ecs_storage_count(ecs_storage_of(b, tn)) == 0);
    CHECK(ecs_unique_has(b, tn) && ((const Name *)ecs_unique_get(b, tn))->s == NULL);
    CHECK_EQ(ecs_track_get(b, tn), 0);
    ecs_world_free(b);

    CHECK(ecs_serial_set(a, nm, NULL));
    back = take(a);
    CHECK(back.p != NULL && same_bytes(plain, back));

    names_world_free(a, nm);
    CHECK_EQ(nc.live, 0);
    free(plain.p), free(s.p), free(back.p), free(out.p);
}

/* Values saved by a save callback need a load callback in the target:
   without one the load is refused (INVALID, naming the component), and
   nothing changes. */
static void test_values_saved_by_a_callback_need_a_load_callback(void) {
    ecs_component nm, in, tn;
    ecs_entity e[12];
    ecs_world *a, *b;
    snap s;
    memset(&nc, 0, sizeof nc);
    a = names_world(&nm, &in, e);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    b = ecs_world_new(NULL);
    tn = ECS_COMPONENT(b, Name);
    ecs_register(b, "Int", 4, 4);
    CHECK(!ecs_load(b, s.p, s.n));
    CHECK(error_is(b, ECS_ERR_INVALID, "Name"));
    CHECK(nc.loads == 0 && ecs_count(b) == 0 && ecs_storage_count(ecs_storage_of(b, tn)) == 0);
    ecs_world_free(b);
    names_world_free(a, nm);
    CHECK_EQ(nc.live, 0);
    free(s.p);
}

/* Storages with no rows, of every kind (plain, tag, tracked, values
   through callbacks, one with only a unique), in a world that never
   destroyed an entity (no free queue), save and load; the loaded
   storages then work as usual. */
static void test_empty_storages_round_trip(void) {
    ecs_world *a = ecs_world_new(NULL), *b = ecs_world_new(NULL);
    ecs_component pa = ecs_register(a, "Plain", 4, 4), ta = ECS_TAG(a, "Tag");
    ecs_component ka = ecs_register(a, "Tracked", 8, 8), na = ECS_COMPONENT(a, Name);
    ecs_component ua = ecs_register(a, "OnlyUnique", 4, 4);
    ecs_component pb, tb, kb, nb, ub;
    ecs_serial ns = name_serial();
    ecs_entity e;
    int32_t v = 8;
    uint64_t big = 99;
    ecs_tick t;
    snap s;
    memset(&nc, 0, sizeof nc);
    ecs_track_set(a, ka, ECS_TRACK_ALL);
    ecs_track_set(a, ta, ECS_TRACK_ALL);
    ecs_serial_set(a, na, &ns);
    ecs_unique_add(a, ua, &v);
    e = ecs_create(a); /* alive, no component */
    CHECK_EQ(ecs_storage_count(ecs_storage_of(a, pa)), 0);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    ub = ecs_register(b, "OnlyUnique", 4, 4);
    nb = ECS_COMPONENT(b, Name);
    kb = ecs_register(b, "Tracked", 8, 8);
    tb = ECS_TAG(b, "Tag");
    pb = ecs_register(b, "Plain", 4, 4);
    ecs_serial_set(b, nb, &ns);
    CHECK(ecs_load(b, s.p, s.n));
    CHECK(ecs_count(b) == 1 && ecs_alive(b, e));
    CHECK(ecs_storage_count(ecs_storage_of(b, pb)) == 0 && ecs_storage_count(ecs_storage_of(b, tb)) == 0);
    CHECK(ecs_storage_count(ecs_storage_of(b, kb)) == 0 && ecs_storage_count(ecs_storage_of(b, nb)) == 0);
    CHECK(ecs_track_get(b, kb) == ECS_TRACK_ALL && ecs_track_get(b, tb) == ECS_TRACK_ALL);
    CHECK_EQ(*(const int32_t *)ecs_unique_get(b, ub), 8);
    t = ecs_tick_advance(b);
    CHECK_EQ(t, ecs_tick_advance(a));
    CHECK(ecs_add(b, e, pb, &v) && ecs_add(b, e, tb, NULL) && ecs_add(b, e, kb, &big));
    CHECK(ecs_track_inserted(b, e, kb, t) && ecs_track_inserted(b, e, tb, t));
    CHECK_EQ(*(const uint64_t *)ecs_get(b, e, kb), 99);
    CHECK_EQ(ecs_create(b), ecs_create(a));
    CHECK(nc.loads == 0 && nc.live == 0);
    free(s.p);
    ecs_world_free(a), ecs_world_free(b);
}

#if ECS_DEBUG
/* Callbacks that break the rule: the first call changes the world (user). */
static int meddles;
static bool meddling_save(const void *value, ecs_write_fn write, void *wuser, void *user) {
    if (meddles++ == 0) ecs_tick_advance((ecs_world *)user);
    return write(value, sizeof(int32_t), wuser);
}
static bool meddling_load(void *value, const void *bytes, size_t n, void *user) {
    if (meddles++ == 0) ecs_tick_advance((ecs_world *)user);
    if (n != sizeof(int32_t)) return false;
    memcpy(value, bytes, n);
    return true;
}
#endif

/* Serial callbacks must not call ecs.h on the world being saved or
   loaded: under ECS_DEBUG a change they made asserts. */
static void test_a_callback_that_changes_the_world_asserts(void) {
#if ECS_DEBUG
    ecs_world *a = ecs_world_new(NULL), *b = ecs_world_new(NULL);
    ecs_component ia = ecs_register(a, "Int", 4, 4), ib = ecs_register(b, "Int", 4, 4);
    ecs_serial sa, sb;
    snap s;
    int i;
    memset(&sa, 0, sizeof sa);
    sa.save = meddling_save, sa.load = meddling_load, sa.user = a;
    sb = sa;
    sb.user = b;
    CHECK(ecs_serial_set(a, ia, &sa) && ecs_serial_set(b, ib, &sb));
    for (i = 0; i < 4; i++) ecs_add(a, ecs_create(a), ia, &i);
    meddles = 0;
    EXPECT_ASSERT(ecs_save_buffer(a, NULL, 0) > 0 || 1, "callback changed the world");
    s = take(a); /* meddles no more */
    CHECK_PTR_NE(s.p, NULL);
    meddles = 0;
    EXPECT_ASSERT(ecs_load(b, s.p, s.n) || 1, "callback changed the world");
    free(s.p);
    ecs_world_free(a), ecs_world_free(b);
#endif
}

/* ---- allocation failures -------------------------------------------------------- */

/* An allocator that fails its k-th allocation while armed (as in
   test_alloc_all.c); each block carries its size. */
#define HEADER (sizeof(size_t) > ECS_MAX_ALIGN ? sizeof(size_t) : ECS_MAX_ALIGN)
static struct {
    size_t outstanding;
    unsigned long calls, fail_at, failures, bad_size;
    int armed;
} A;

static int fails_now(void) {
    if (!A.armed || ++A.calls != A.fail_at) return 0;
    A.failures++;
    return 1;
}
static void *a_alloc(size_t size, void *ctx) {
    unsigned char *p;
    (void)ctx;
    if (fails_now() || !(p = (unsigned char *)malloc(HEADER + size))) return NULL;
    memcpy(p, &size, sizeof size);
    A.outstanding += size;
    return p + HEADER;
}
static void a_free(void *ptr, size_t size, void *ctx) {
    unsigned char *p = (unsigned char *)ptr - HEADER;
    size_t given;
    (void)ctx;
    memcpy(&given, p, sizeof given);
    if (given != size) A.bad_size++;
    A.outstanding -= given;
    memset(p, 0xdd, HEADER + given);
    free(p);
}
static void *a_realloc(void *ptr, size_t old_size, size_t new_size, void *ctx) { /* always moves */
    unsigned char *q;
    (void)ctx;
    if (new_size > old_size && fails_now()) return NULL;
    if (!(q = (unsigned char *)malloc(HEADER + new_size))) return NULL;
    memcpy(q, &new_size, sizeof new_size);
    memcpy(q + HEADER, ptr, old_size < new_size ? old_size : new_size);
    A.outstanding += new_size;
    a_free(ptr, old_size, ctx);
    return q + HEADER;
}
static ecs_desc counted(bool with_realloc, bool track_entities) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = a_alloc;
    d.allocator.free = a_free;
    if (with_realloc) d.allocator.realloc = a_realloc;
    d.track_entities = track_entities;
    return d;
}

/* Like target_world, with the counting allocator. */
static ecs_world *counted_target(ecs_component *c, bool with_realloc) {
    ecs_desc d = counted(with_realloc, true);
    return target_world_of(c, &d);
}

/* Load with the k-th allocation failing, for every k until it succeeds:
   either it fails with OUT_OF_MEMORY and the target is as it was (a twin
   built alike), or no allocation failed and it loaded everything. */
static int load_under_failures(bool with_realloc) {
    ecs_component c[NC], ct[NC], cc[NC], cr[NC];
    ecs_world *src = small_world(c), *t, *control, *ref = target_world(cr, true);
    snap s = take(src);
    static const ecs_tick since[] = {0, 1, 2, 3, 4, 5};
    question q;
    unsigned long k;
    int ok = 0;
    ENSURE(s.p != NULL);
    ENSURE(ecs_load(ref, s.p, s.n)); /* what a load gives, with the same group */
    memset(&A, 0, sizeof A);
    control = counted_target(cc, with_realloc);
    q.names = small_names, q.nnames = 3, q.since = since, q.nsince = 6, q.track_entities = 1;
    for (k = 1; k < 10000; k++) {
        bool loaded;
        at = (long)k;
        t = counted_target(ct, with_realloc);
        A.calls = A.failures = 0;
        A.fail_at = k;
        A.armed = 1;
        loaded = ecs_load(t, s.p, s.n);
        A.armed = 0;
        if (loaded) {
            ENSURE(A.failures == 0);
            q.ids = target_ids, q.nids = 2;
            ENSURE(same_world(ref, t, &q));
            ENSURE(same_group(ref, 1, t, 1));
            ecs_world_free(t);
            ok = 1;
            break;
        }
        ENSURE(A.failures == 1);
        ENSURE(error_is(t, ECS_ERR_OUT_OF_MEMORY, "ecs_load"));
        ENSURE(unchanged(t, control, true));
        ENSURE(unchanged_later(t, control));
        ecs_world_free(t);
        ecs_world_free(control);
        control = counted_target(cc, with_realloc);
    }
    at = -1;
    ENSURE(ok && k > 1); /* loading allocates */
    ecs_world_free(control);
    ecs_world_free(src);
    ecs_world_free(ref);
    free(s.p);
    ENSURE(A.outstanding == 0 && A.bad_size == 0);
    return 1;
}

static void test_load_is_all_or_nothing_under_allocation_failure(void) {
    what = "load, alloc/free";
    CHECK(load_under_failures(false));
    what = "load, with realloc";
    CHECK(load_under_failures(true));
}

/* A load that runs out of memory after its load callbacks built values
   drops every one of them (nothing leaks) and changes nothing. */
static void test_a_load_out_of_memory_drops_what_was_built(void) {
    ecs_component nm, in, tn;
    ecs_entity e[12];
    ecs_world *a, *b;
    unsigned long k;
    int loaded = 0;
    snap s;
    memset(&nc, 0, sizeof nc);
    memset(&A, 0, sizeof A);
    a = names_world(&nm, &in, e);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    what = "load with callbacks, out of memory";
    for (k = 1; k < 10000 && !loaded; k++) {
        ecs_desc d = counted(k % 2 == 0, false);
        at = (long)k;
        b = ecs_world_new(&d);
        tn = name_component(b);
        ecs_register(b, "Int", 4, 4);
        nc.loads = nc.drops = 0;
        A.calls = A.failures = 0;
        A.fail_at = k;
        A.armed = 1;
        loaded = ecs_load(b, s.p, s.n);
        A.armed = 0;
        if (loaded) {
            CHECK(A.failures == 0 && nc.loads == 13 && nc.drops == 0);
            CHECK_STR_EQ(((const Name *)ecs_get(b, e[7], tn))->s, ((const Name *)ecs_get(a, e[7], nm))->s);
            names_world_free(b, tn);
            break;
        }
        CHECK_EQ(A.failures, 1);
        CHECK(error_is(b, ECS_ERR_OUT_OF_MEMORY, "ecs_load"));
        CHECK(nc.drops == nc.loads && nc.live == 13);
        CHECK(ecs_count(b) == 0 && ecs_storage_count(ecs_storage_of(b, tn)) == 0 && !ecs_unique_has(b, tn));
        ecs_world_free(b);
    }
    at = -1;
    CHECK(loaded && k > 1);
    names_world_free(a, nm);
    CHECK(nc.live == 0 && A.outstanding == 0 && A.bad_size == 0);
    free(s.p);
}

/* ecs_save and ecs_save_buffer with the k-th allocation failing: false / 0
   with OUT_OF_MEMORY, or the full snapshot; the world unchanged either
   way (the next save gives the same bytes). */
static void test_save_fails_cleanly_under_allocation_failure(void) {
    ecs_desc d = counted(false, true);
    ecs_world *w;
    ecs_component c[4];
    snap ref;
    unsigned long k;
    int i, which;
    memset(&A, 0, sizeof A);
    memset(&nc, 0, sizeof nc);
    w = ecs_world_new(&d);
    c[0] = ecs_register(w, "Int", 4, 4);
    c[1] = ECS_COMPONENT(w, Vec3);
    c[2] = ECS_TAG(w, "Tag");
    c[3] = name_component(w); /* its save callback's bytes are gathered in memory of the world's */
    ecs_track_set(w, c[0], ECS_TRACK_ALL);
    for (i = 0; i < 30; i++) {
        ecs_entity e = ecs_create(w);
        ecs_add(w, e, c[i % 3], NULL);
        if (i % 4 == 0) {
            ecs_destroy(w, e);
        } else if (i % 3 == 1) { /* 300 bytes: more than the first block a gathering takes */
            char text[300];
            Name v;
            memset(text, 'a' + i % 26, sizeof text);
            v.s = name_dup(text, sizeof text);
            ecs_add(w, e, c[3], &v);
        }
    }
    ref = take(w);
    CHECK_PTR_NE(ref.p, NULL);
    what = "save under allocation failure";
    for (which = 0; which < 2; which++)
        for (k = 1; k < 1000; k++) {
            sink out;
            snap got;
            bool ok;
            at = (long)k;
            memset(&out, 0, sizeof out);
            got.p = (unsigned char *)malloc(ref.n);
            got.n = ref.n;
            A.calls = A.failures = 0;
            A.fail_at = k;
            A.armed = 1;
            ok = which ? ecs_save_buffer(w, got.p, got.n) == ref.n : ecs_save(w, sink_write, &out);
            A.armed = 0;
            if (!which) free(got.p), got = as_snap(&out);
            if (ok) {
                int same = A.failures == 0 && same_bytes(ref, got);
                free(got.p);
                CHECK(same);
                break;
            }
            free(got.p);
            CHECK_EQ(A.failures, 1);
            CHECK(error_is(w, ECS_ERR_OUT_OF_MEMORY, which ? "ecs_save_buffer" : "ecs_save"));
        }
    at = -1;
    {
        snap again = take(w);
        CHECK(again.p != NULL && same_bytes(ref, again));
        free(again.p);
    }
    free(ref.p);
    names_world_free(w, c[3]);
    CHECK_EQ(nc.live, 0);
    CHECK(A.outstanding == 0 && A.bad_size == 0);
}

/* A save callback that ignores write's answer (as most do) while the
   gathering of its bytes runs out of memory: the save fails with
   OUT_OF_MEMORY, and never passes for whole with the value missing. */
typedef struct { unsigned char bytes[300]; } Blob;
static bool blob_save(const void *value, ecs_write_fn write, void *wuser, void *user) {
    (void)user;
    write(value, sizeof(Blob), wuser); /* (its answer ignored) */
    return true;
}
static bool blob_load(void *value, const void *bytes, size_t n, void *user) {
    (void)user;
    if (n != sizeof(Blob)) return false;
    memcpy(value, bytes, n);
    return true;
}
static bool count_bytes(const void *bytes, size_t n, void *user) {
    (void)bytes;
    *(size_t *)user += n;
    return true;
}
static void test_a_save_callback_ignoring_a_failed_write_fails_the_save(void) {
    budget b = {-1};
    ecs_desc d;
    ecs_world *w;
    ecs_component blob;
    ecs_serial se;
    Blob v;
    size_t full = 0;
    long k;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = budget_alloc, d.allocator.free = budget_free, d.allocator.ctx = &b;
    w = ecs_world_new(&d);
    blob = ecs_register(w, "Blob", sizeof(Blob), 1);
    memset(&se, 0, sizeof se);
    se.save = blob_save, se.load = blob_load;
    CHECK(ecs_serial_set(w, blob, &se));
    memset(&v, 7, sizeof v);
    CHECK(ecs_add(w, ecs_create(w), blob, &v));
    CHECK(ecs_save(w, count_bytes, &full));
    for (k = 0; k < 4; k++) {
        size_t got = 0;
        bool ok;
        b.left = k;
        ok = ecs_save(w, count_bytes, &got);
        b.left = -1;
        if (ok) {
            CHECK_EQ(got, full);
        } else {
            CHECK_EQ(ecs_last_error(w), ECS_ERR_OUT_OF_MEMORY);
            ecs_clear_error(w);
        }
    }
    ecs_world_free(w);
}

/* A slot that destroy could not queue (the free queue could not grow: out
   of memory) is retired; a snapshot keeps it retired. */
static void test_a_slot_retired_for_lack_of_memory_stays_retired(void) {
    ecs_desc d = counted(false, false);
    ecs_world *a, *b;
    ecs_entity e[65];
    snap s;
    int i;
    memset(&A, 0, sizeof A);
    a = ecs_world_new(&d);
    for (i = 0; i < 65; i++) e[i] = ecs_create(a);
    for (i = 0; i < 64; i++) CHECK(ecs_destroy(a, e[i])); /* the queue's first ring: 64 */
    A.calls = 0, A.fail_at = 1, A.armed = 1;
    CHECK(ecs_destroy(a, e[64])); /* the ring cannot grow: slot 64 retired */
    A.armed = 0;
    CHECK_EQ(A.failures, 1);
    /* retired as a slot past ECS_VERSION_MAX is: ecs_create_id refuses it */
    EXPECT_ASSERT(ecs_create_id(a, ((ecs_entity)(ECS_ENTITY_VERSION(e[64]) + 1) << 32) | 64) == ECS_NULL, "retired");
    CHECK_EQ(ecs_last_error(a), ECS_ERR_INVALID);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    b = ecs_world_new(NULL);
    CHECK(ecs_load(b, s.p, s.n));
    for (i = 0; i < 200; i++) {
        ecs_entity x = ecs_create(b);
        CHECK_EQ(x, ecs_create(a));
        CHECK_NE(ECS_ENTITY_INDEX(x), 64);
    }
    free(s.p);
    ecs_world_free(a), ecs_world_free(b);
    CHECK_EQ(A.outstanding, 0);
}

/* ---- hooks and systems ------------------------------------------------------------ */

static int inserts, removes;
static int32_t removed_value;
static void count_insert(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)w, (void)e, (void)c, (void)value, (void)user;
    inserts++;
}
static void count_remove(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)w, (void)e, (void)c, (void)user;
    removes++;
    removed_value = *(int32_t *)value;
}

/* Loading inserts rows without running hooks; the hooks stay set and run
   for later changes of the loaded entities. */
static void test_hooks_do_not_run_on_load(void) {
    ecs_component c[NC], it;
    ecs_world *a = small_world(c), *b = ecs_world_new(NULL);
    ecs_hooks h = {0};
    ecs_entity e;
    snap s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    it = ecs_register(b, "Int", 4, 4);
    ECS_COMPONENT(b, Vec3);
    ECS_TAG(b, "Tag");
    memset(&h, 0, sizeof h);
    h.on_insert = count_insert;
    h.on_remove = count_remove;
    CHECK(ecs_hooks_set(b, it, &h));
    inserts = removes = 0;
    CHECK(ecs_load(b, s.p, s.n));
    CHECK(inserts == 0 && removes == 0);
    CHECK_GT(ecs_storage_count(ecs_storage_of(b, it)), 0);
    e = ecs_storage_entities(ecs_storage_of(b, it))[0];
    CHECK(ecs_destroy(b, e));
    CHECK(removes == 1 && removed_value == *(const int32_t *)ecs_get(a, e, c[C_INT]));
    free(s.p);
    ecs_world_free(a), ecs_world_free(b);
}

static ecs_tick seen_last_run, seen_now;
static int probe_runs;
static int probe(const ecs_system_ctx *ctx) {
    seen_last_run = ctx->last_run;
    seen_now = ctx->now;
    probe_runs++;
    return 0;
}

/* Every system's last_run goes back to 1 on load: its next run sees the
   loaded world as new (and runs after the loaded clock). */
static void test_systems_start_over_after_load(void) {
    ecs_component c[NC];
    ecs_world *a = small_world(c), *b = ecs_world_new(NULL);
    ecs_system_desc sd;
    const char *items[1];
    ecs_tick first_now, clock;
    snap s;
    ecs_register(b, "Int", 4, 4);
    ECS_COMPONENT(b, Vec3);
    ECS_TAG(b, "Tag");
    memset(&sd, 0, sizeof sd);
    sd.name = "probe";
    sd.fn = probe;
    CHECK(ecs_system_new(b, &sd));
    items[0] = "probe";
    CHECK(ecs_workload_new(b, "frame", 1, items));
    probe_runs = 0;
    CHECK_EQ(ecs_workload_run(b, NULL), 0);
    CHECK(probe_runs == 1 && seen_last_run == 1);
    first_now = seen_now;
    CHECK_EQ(ecs_workload_run(b, NULL), 0);
    CHECK(probe_runs == 2 && seen_last_run == first_now);
    s = take(a);
    CHECK_PTR_NE(s.p, NULL);
    CHECK(ecs_load(b, s.p, s.n));
    clock = ecs_tick_advance(a); /* the saved clock (a's first tick after the save) */
    CHECK_EQ(ecs_workload_run(b, NULL), 0);
    CHECK(probe_runs == 3 && seen_last_run == 1);
    CHECK_GE(seen_now, clock);
    first_now = seen_now;
    CHECK_EQ(ecs_workload_run(b, NULL), 0);
    CHECK_EQ(seen_last_run, first_now);
    free(s.p);
    ecs_world_free(a), ecs_world_free(b);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_random_worlds_round_trip);
    RUN(test_an_empty_world_round_trips);
    RUN(test_every_truncation_is_refused_and_changes_nothing);
    RUN(test_every_flipped_bit_is_refused_and_changes_nothing);
    RUN(test_the_header_is_as_documented);
    RUN(test_inconsistent_snapshots_are_refused);
    RUN(test_a_load_refused_late_leaves_memory_as_it_was);
    RUN(test_the_free_queue_saves_in_order_in_every_ring_state);
    RUN(test_a_tracking_list_saves_in_every_state);
    RUN(test_a_wrong_magic_version_or_byte_order_is_named);
    RUN(test_a_component_missing_in_the_target_is_named);
    RUN(test_a_size_mismatch_is_named_and_another_alignment_loads);
    RUN(test_more_slots_than_max_entities_is_exhausted);
    RUN(test_the_target_must_have_no_entity_and_no_command);
    RUN(test_save_refuses_pending_commands);
    RUN(test_a_failing_write_fails_the_save);
    RUN(test_save_buffer_answers_like_snprintf);
    RUN(test_null_arguments_are_refused);
    RUN(test_the_target_keeps_what_the_snapshot_lacks);
    RUN(test_a_group_only_the_target_has_is_packed);
    RUN(test_a_retired_slot_stays_retired);
    RUN(test_serial_callbacks_rebuild_pointers);
    RUN(test_load_callbacks_see_checked_bytes_only);
    RUN(test_a_failing_load_callback_drops_what_was_built);
    RUN(test_serial_save_failure_skip_and_default);
    RUN(test_a_save_callback_ignoring_a_failed_write_fails_the_save);
    RUN(test_values_saved_by_a_callback_need_a_load_callback);
    RUN(test_empty_storages_round_trip);
    RUN(test_a_callback_that_changes_the_world_asserts);
    RUN(test_load_is_all_or_nothing_under_allocation_failure);
    RUN(test_a_load_out_of_memory_drops_what_was_built);
    RUN(test_save_fails_cleanly_under_allocation_failure);
    RUN(test_a_slot_retired_for_lack_of_memory_stays_retired);
    RUN(test_hooks_do_not_run_on_load);
    RUN(test_systems_start_over_after_load);
    return test_summary();
}
