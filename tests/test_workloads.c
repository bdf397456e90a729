/* Systems and workloads: the system context, declared order, nested
   workloads, per-system change windows, run_if, errors, the batch plan,
   flushing between batches, and a parallel_for hook that must give the
   same result as running one system after another. */
#include "test.h"
#include <pthread.h>
#include "../ecs.h"

typedef struct { float x, y; } Pos;
typedef struct { float x, y; } Vel;
typedef struct { float angle; } Rot;
typedef struct { int ticks; } Age;
typedef struct { int hp; } Health;
typedef struct { float g; } Gravity;

static ecs_world *w;
static ecs_component pos, vel, rot, age, hp, grav;
static char trace[128];
static int ntrace;

static void setup_with(const ecs_desc *d) {
    w = ecs_world_new(d);
    pos = ECS_COMPONENT(w, Pos);
    vel = ECS_COMPONENT(w, Vel);
    rot = ECS_COMPONENT(w, Rot);
    age = ECS_COMPONENT(w, Age);
    hp = ECS_COMPONENT(w, Health);
    grav = ECS_COMPONENT(w, Gravity);
    ntrace = 0;
    trace[0] = 0;
}
static void setup(void) { setup_with(NULL); }

static ecs_system_desc sys(const char *name, ecs_system_fn fn, void *user) {
    ecs_system_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.fn = fn;
    d.user = user;
    return d;
}

/* Appends the first letter of its user string to trace. */
static int append(const ecs_system_ctx *ctx) {
    if (ntrace < 126) trace[ntrace++] = *(const char *)ctx->user;
    trace[ntrace] = 0;
    return 0;
}

/* Adds append-systems named by the letters of names ("abc": a, b, c). */
static int add_letters(const char *names) {
    static const char *letters = "abcdefghijklmnopqrstuvwxyz";
    for (; *names; names++) {
        char name[2];
        ecs_system_desc d;
        name[0] = *names;
        name[1] = 0;
        d = sys(name, append, (void *)(letters + (*names - 'a')));
        if (!ecs_system_new(w, &d)) return 0;
    }
    return 1;
}

/* --- the context ----------------------------------------------------------- */

typedef struct {
    int runs;
    ecs_world *world;
    const char *name;
    void *user;
    ecs_tick last_run[4], now[4];
} probe;

static int probe_fn(const ecs_system_ctx *ctx) {
    probe *p = (probe *)ctx->user;
    if (p->runs < 4) {
        p->world = ctx->world;
        p->name = ctx->name;
        p->user = ctx->user;
        p->last_run[p->runs] = ctx->last_run;
        p->now[p->runs] = ctx->now;
    }
    p->runs++;
    return 0;
}

static void test_system_gets_world_user_name_last_run_and_now(void) {
    probe p;
    ecs_system_desc d;
    const char *items[1];
    char name[8] = "probe";
    memset(&p, 0, sizeof p);
    setup();
    d = sys(name, probe_fn, &p);
    CHECK(ecs_system_new(w, &d));
    name[0] = 'X'; /* the world keeps its own copy */
    items[0] = "probe";
    CHECK(ecs_workload_new(w, "frame", 1, items));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(p.runs == 1 && p.world == w && p.user == &p && strcmp(p.name, "probe") == 0);
    CHECK(p.last_run[0] == 1 && p.now[0] > 1); /* 1: never ran */
    ecs_tick_advance(w);
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK_EQ(p.runs, 3);
    CHECK(p.last_run[1] == p.now[0] && p.now[1] > p.now[0]);
    CHECK(p.last_run[2] == p.now[1] && p.now[2] > p.now[1]);
    CHECK_GT(ecs_tick_advance(w), p.now[2]); /* what happens after the run is newer */
    ecs_world_free(w);
}

/* --- order ----------------------------------------------------------------- */

static void test_workload_runs_its_systems_in_declared_order(void) {
    const char *items[4];
    setup();
    CHECK(add_letters("abcd"));
    items[0] = "c", items[1] = "a", items[2] = "d", items[3] = "b";
    CHECK(ecs_workload_new(w, "frame", 4, items));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK_STR_EQ(trace, "cadb");
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK_STR_EQ(trace, "cadbcadb");
    ecs_world_free(w);
}

static void test_nested_workloads_are_expanded_in_place(void) {
    const char *inner[2], *outer[3], *bad[1];
    ecs_plan_step plan[8];
    setup();
    CHECK(add_letters("abcd"));
    inner[0] = "b", inner[1] = "c";
    CHECK(ecs_workload_new(w, "inner", 2, inner));
    outer[0] = "a", outer[1] = "inner", outer[2] = "d";
    CHECK(ecs_workload_new(w, "outer", 3, outer));
    CHECK_EQ(ecs_workload_run(w, "outer"), 0);
    CHECK_STR_EQ(trace, "abcd");
    CHECK_EQ(ecs_workload_plan(w, "outer", plan, 8), 4);
    CHECK(strcmp(plan[0].system, "a") == 0 && strcmp(plan[1].system, "b") == 0);
    CHECK(strcmp(plan[2].system, "c") == 0 && strcmp(plan[3].system, "d") == 0);
    /* what is nested must exist already */
    bad[0] = "later";
    EXPECT_ASSERT(!ecs_workload_new(w, "early", 1, bad), "no system or workload named 'later'");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_NOT_FOUND);
    ecs_world_free(w);
}

static void test_names_are_unique_across_systems_and_workloads(void) {
    const char *items[1];
    ecs_system_desc d;
    setup();
    CHECK(add_letters("a"));
    d = sys("a", append, (void *)"a");
    EXPECT_ASSERT(!ecs_system_new(w, &d), "ecs_system_new: the name 'a' is already taken");
    items[0] = "a";
    EXPECT_ASSERT(!ecs_workload_new(w, "a", 1, items), "not taken by another workload or system (not 'a')");
    CHECK(ecs_workload_new(w, "frame", 1, items));
    EXPECT_ASSERT(!ecs_workload_new(w, "frame", 1, items), "(not 'frame')");
    d = sys("frame", append, (void *)"f");
    EXPECT_ASSERT(!ecs_system_new(w, &d), "the name 'frame' is already taken");
    d = sys("nofn", NULL, NULL);
    EXPECT_ASSERT(!ecs_system_new(w, &d), "needs a name and fn");
    ecs_world_free(w);
}

/* --- change windows -------------------------------------------------------- */

#define NE 8
static ecs_entity ents[NE];

/* mover: get_mut on the entities listed in its user (ECS_NULL-terminated) */
static int mover(const ecs_system_ctx *ctx) {
    const ecs_entity *list = (const ecs_entity *)ctx->user;
    for (; *list; list++) ECS_GET_MUT(ctx->world, *list, pos, Pos)->x += 1;
    return 0;
}

/* watcher: what its own window shows, for one filter */
typedef struct {
    uint32_t flags;
    ecs_entity seen[64];
    int n;
    int runs;
    ecs_tick last_run, now;
} watch;

static int watcher(const ecs_system_ctx *ctx) {
    watch *wa = (watch *)ctx->user;
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[0].flags = wa->flags;
    wa->n = 0;
    for (it = ecs_system_view(ctx, &d); ecs_iter_next(&it);)
        if (wa->n < 64) wa->seen[wa->n++] = ecs_iter_entity(&it);
    wa->runs++;
    wa->last_run = ctx->last_run;
    wa->now = ctx->now;
    return 0;
}

/* The watcher saw exactly the n entities of want, in any order. */
static int saw_exactly(const watch *wa, const ecs_entity *want, int n) {
    int i, j;
    if (wa->n != n) {
        printf("  saw %d entities, expected %d\n", wa->n, n);
        return 0;
    }
    for (i = 0; i < n; i++) {
        int hits = 0;
        for (j = 0; j < wa->n; j++) hits += wa->seen[j] == want[i];
        if (hits != 1) return 0;
    }
    return 1;
}

static void spawn_all(void) {
    int i;
    ecs_track_set(w, pos, ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION);
    for (i = 0; i < NE; i++) {
        ents[i] = ecs_create(w);
        ECS_ADD(w, ents[i], pos, Pos, {(float)i, 0});
    }
}

static void add_mover_and_watcher(const char *mname, ecs_entity *list, const char *wname, watch *wa) {
    ecs_system_desc d = sys(mname, mover, list);
    d.writes[0] = pos;
    ecs_system_new(w, &d);
    d = sys(wname, watcher, wa);
    d.reads[0] = pos;
    ecs_system_new(w, &d);
}

static void test_system_view_sees_what_changed_since_that_system_last_ran(void) {
    ecs_entity touch[NE + 1], want[NE];
    watch wa;
    const char *items[2];
    setup();
    spawn_all();
    memset(&wa, 0, sizeof wa);
    wa.flags = ECS_MODIFIED;
    add_mover_and_watcher("mover", touch, "watcher", &wa);
    items[0] = "mover", items[1] = "watcher";
    CHECK(ecs_workload_new(w, "frame", 2, items));
    /* run 1: the mover touches e1, e2 */
    touch[0] = ents[1], touch[1] = ents[2], touch[2] = ECS_NULL;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    want[0] = ents[1], want[1] = ents[2];
    CHECK(saw_exactly(&wa, want, 2));
    /* between runs, outside the workload: e5 */
    ECS_GET_MUT(w, ents[5], pos, Pos)->y = 1;
    /* run 2: the mover touches e3; e1, e2 are not seen twice */
    touch[0] = ents[3], touch[1] = ECS_NULL;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    want[0] = ents[3], want[1] = ents[5];
    CHECK(saw_exactly(&wa, want, 2));
    /* run 3: nothing changed */
    touch[0] = ECS_NULL;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(saw_exactly(&wa, want, 0));
    /* run 4: e1 again */
    touch[0] = ents[1], touch[1] = ECS_NULL;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    want[0] = ents[1];
    CHECK(saw_exactly(&wa, want, 1));
    ecs_world_free(w);
}

static void test_changes_made_after_a_system_in_the_same_run_are_seen_next_run(void) {
    ecs_entity touch[NE + 1], want[NE];
    watch wa;
    const char *items[2];
    memset(want, 0, sizeof want);
    setup();
    spawn_all();
    memset(&wa, 0, sizeof wa);
    wa.flags = ECS_MODIFIED;
    add_mover_and_watcher("mover", touch, "watcher", &wa);
    items[0] = "watcher", items[1] = "mover"; /* the watcher runs first */
    CHECK(ecs_workload_new(w, "frame", 2, items));
    touch[0] = ents[1], touch[1] = ents[2], touch[2] = ECS_NULL;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(saw_exactly(&wa, want, 0));
    touch[0] = ents[3], touch[1] = ECS_NULL;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    want[0] = ents[1], want[1] = ents[2];
    CHECK(saw_exactly(&wa, want, 2));
    touch[0] = ECS_NULL;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    want[0] = ents[3];
    CHECK(saw_exactly(&wa, want, 1));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(saw_exactly(&wa, want, 0));
    ecs_world_free(w);
}

static void test_inserted_window_starts_with_everything_then_only_what_is_new(void) {
    ecs_entity late, want[1];
    watch wa;
    const char *items[1];
    ecs_system_desc d;
    setup();
    spawn_all();
    memset(&wa, 0, sizeof wa);
    wa.flags = ECS_INSERTED;
    d = sys("greeter", watcher, &wa);
    d.reads[0] = pos;
    CHECK(ecs_system_new(w, &d));
    items[0] = "greeter";
    CHECK(ecs_workload_new(w, "frame", 1, items));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(saw_exactly(&wa, ents, NE)); /* first run: all of them */
    late = ecs_create(w);
    ECS_ADD(w, late, pos, Pos, {0, 0});
    ECS_ADD(w, ents[0], pos, Pos, {9, 9}); /* a replace is no insertion */
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    want[0] = late;
    CHECK(saw_exactly(&wa, want, 1));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(saw_exactly(&wa, want, 0));
    ecs_world_free(w);
}

/* run_if of the every-other-run watcher */
static int odd_run, run_if_calls;
static ecs_tick run_if_last_run;
static bool on_even_runs(const ecs_system_ctx *ctx) {
    run_if_calls++;
    run_if_last_run = ctx->last_run;
    return strcmp(ctx->name, "sometimes") == 0 && !odd_run;
}

static void test_run_if_skips_a_run_and_the_skipped_system_keeps_its_window(void) {
    ecs_entity touch[2], want[2];
    watch always, sometimes;
    ecs_system_desc d;
    const char *items[3];
    ecs_tick first_now = 0;
    int run;
    setup();
    spawn_all();
    memset(&always, 0, sizeof always);
    memset(&sometimes, 0, sizeof sometimes);
    always.flags = sometimes.flags = ECS_MODIFIED;
    add_mover_and_watcher("mover", touch, "always", &always);
    d = sys("sometimes", watcher, &sometimes);
    d.reads[0] = pos;
    d.run_if = on_even_runs;
    CHECK(ecs_system_new(w, &d));
    items[0] = "mover", items[1] = "always", items[2] = "sometimes";
    CHECK(ecs_workload_new(w, "frame", 3, items));
    run_if_calls = 0;
    for (run = 0; run < 3; run++) {
        odd_run = run % 2;
        touch[0] = ents[run]; /* run k touches e_k */
        touch[1] = ECS_NULL;
        CHECK_EQ(ecs_workload_run(w, "frame"), 0);
        want[0] = ents[run];
        CHECK(saw_exactly(&always, want, 1));
        if (run == 0) first_now = sometimes.now;
    }
    CHECK_EQ(run_if_calls, 3);
    CHECK_EQ(sometimes.runs, 2); /* skipped on run 1 */
    CHECK_EQ(sometimes.last_run, first_now); /* not the skipped run's tick */
    CHECK_EQ(run_if_last_run, first_now);
    want[0] = ents[1], want[1] = ents[2]; /* everything since its last real run */
    CHECK(saw_exactly(&sometimes, want, 2));
    CHECK_EQ(always.runs, 3);
    ecs_world_free(w);
}

/* --- errors ------------------------------------------------------------------ */

static int fail_code;
static int failing(const ecs_system_ctx *ctx) {
    append(ctx);
    return fail_code;
}

static void test_a_failing_system_stops_the_workload_after_its_batch(void) {
    ecs_system_desc d;
    ecs_plan_step plan[4];
    const char *items[4];
    setup();
    d = sys("first", append, (void *)"1");
    d.reads[0] = pos;
    CHECK(ecs_system_new(w, &d));
    d = sys("broken", failing, (void *)"F");
    d.reads[0] = pos;
    CHECK(ecs_system_new(w, &d));
    d = sys("second", append, (void *)"2");
    d.reads[0] = pos;
    CHECK(ecs_system_new(w, &d));
    d = sys("later", append, (void *)"L");
    d.writes[0] = pos;
    CHECK(ecs_system_new(w, &d));
    items[0] = "first", items[1] = "broken", items[2] = "second", items[3] = "later";
    CHECK(ecs_workload_new(w, "frame", 4, items));
    CHECK_EQ(ecs_workload_plan(w, "frame", plan, 4), 4);
    CHECK(plan[2].batch == 0 && plan[3].batch == 1); /* three readers, then the writer */
    fail_code = 7;
    CHECK_EQ(ecs_workload_run(w, "frame"), 7); /* a runtime error: no assert */
    CHECK_STR_EQ(trace, "1F2");        /* its batch finished, the next did not run */
    CHECK(ecs_workload_failed_system(w) != NULL && strcmp(ecs_workload_failed_system(w), "broken") == 0);
    CHECK(ecs_last_error(w) == ECS_ERR_SYSTEM && strstr(ecs_last_error_msg(w), "broken"));
    fail_code = 0;
    ntrace = 0;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK_STR_EQ(trace, "1F2L");
    ecs_world_free(w);
}

static void test_the_default_workload_is_the_first_one_added(void) {
    const char *one[1], *two[1];
    setup();
    CHECK(add_letters("ab"));
    one[0] = "a";
    two[0] = "b";
    CHECK(ecs_workload_new(w, "first", 1, one));
    CHECK(ecs_workload_new(w, "second", 1, two));
    CHECK_EQ(ecs_workload_run(w, NULL), 0);
    CHECK_STR_EQ(trace, "a");
    CHECK(ecs_workload_set_default(w, "second"));
    CHECK_EQ(ecs_workload_run(w, NULL), 0);
    CHECK_EQ(ecs_workload_run(w, "first"), 0);
    CHECK_STR_EQ(trace, "aba");
    EXPECT_ASSERT(!ecs_workload_set_default(w, "nope"), "no workload named 'nope'");
    CHECK_EQ(ecs_workload_run(w, NULL), 0);
    CHECK_STR_EQ(trace, "abab"); /* the default did not change */
    ecs_world_free(w);
}

static void test_an_unknown_workload_returns_minus_one_and_asserts(void) {
    const char *one[1];
    setup();
    EXPECT_ASSERT(ecs_workload_run(w, NULL) == -1, "no workload named '(default)'");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_NOT_FOUND);
    CHECK(add_letters("a"));
    one[0] = "a";
    CHECK(ecs_workload_new(w, "frame", 1, one));
    EXPECT_ASSERT(ecs_workload_run(w, "nope") == -1, "no workload named 'nope'");
    CHECK_EQ(ecs_last_error(w), ECS_ERR_NOT_FOUND);
    EXPECT_ASSERT(ecs_workload_plan(w, "nope", NULL, 0) == 0, "no workload named 'nope'");
    CHECK_EQ(ntrace, 0);
    ecs_world_free(w);
}

static void run_inside(ecs_world *ww) {
    EXPECT_ASSERT(ecs_workload_run(ww, "frame") == -1, "already running");
}
static int reentrant(const ecs_system_ctx *ctx) {
    run_inside(ctx->world);
    return append(ctx);
}

static void test_running_a_workload_from_a_system_returns_minus_one_and_asserts(void) {
    ecs_system_desc d = sys("again", reentrant, (void *)"r");
    const char *items[1];
    setup();
    CHECK(ecs_system_new(w, &d));
    items[0] = "again";
    CHECK(ecs_workload_new(w, "frame", 1, items));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK_STR_EQ(trace, "r"); /* ran once, not twice */
    CHECK_EQ(ecs_workload_run(w, "frame"), 0); /* and the world is not stuck "running" */
    CHECK_STR_EQ(trace, "rr");
    ecs_world_free(w);
}

/* A system may not move the clock or clear the lists the other systems
   of its batch read and stamp with, maybe on other threads at that very
   moment: in a batch of several systems ecs_track_clear(_until) and
   ecs_tick_advance are refused. A system alone in its batch (structural
   ones are) may: nothing else stamps meanwhile. */
static int noop_counting(const ecs_system_ctx *ctx) {
    ++*(int *)ctx->user;
    return 0;
}
static int clear_from_a_system(const ecs_system_ctx *ctx) {
    ecs_world *cw = ctx->world;
    int refused = 0;
    ecs_track_clear(cw, pos, ECS_TRACK_ALL);
    refused += ecs_last_error(cw) == ECS_ERR_LOCKED;
    ecs_track_clear_until(cw, 0, ECS_TRACK_REMOVAL, ctx->now);
    refused += ecs_last_error(cw) == ECS_ERR_LOCKED &&
               strstr(ecs_last_error_msg(cw), "ecs_track_clear_until: systems sharing a batch are running");
    ecs_clear_error(cw);
    refused += ecs_tick_advance(cw) == 0 && ecs_last_error(cw) == ECS_ERR_LOCKED;
    *(int *)ctx->user = refused;
    return 0;
}
/* A world with one removal of Pos listed, and the workload "frame" of
   "clear" (clear_from_a_system; structural: alone in its batch) and
   "other" (counts its runs); returns the tick before the run. */
static ecs_tick clear_world(bool structural, int *refused, int *other) {
    ecs_system_desc d = sys("clear", clear_from_a_system, refused), d2 = sys("other", noop_counting, other);
    const char *items[2] = {"clear", "other"};
    ecs_entity e;
    setup();
    ecs_track_set(w, pos, ECS_TRACK_ALL);
    e = ecs_create(w);
    ECS_ADD(w, e, pos, Pos, {1, 2});
    ecs_remove(w, e, pos, NULL);
    d.structural = structural;
    if (!ecs_system_new(w, &d) || !ecs_system_new(w, &d2) || !ecs_workload_new(w, "frame", 2, items)) return 0;
    return ecs_tick_advance(w);
}
static void test_a_system_sharing_its_batch_may_not_clear_tracking_or_advance_the_clock(void) {
    int refused = 0, other = 0;
    uint32_t n = 0;
    ecs_tick before = clear_world(false, &refused, &other);
    CHECK(before != 0);
    test__asserts = 0;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(refused == 3 && other == 1); /* (one batch: both ran) */
    CHECK_EQ(test__asserts, 3);
    test__expected += 3;
    ecs_track_removed(w, pos, 0, &n);
    CHECK_EQ(n, 1u); /* the removal is still listed */
    CHECK_EQ(ecs_tick_advance(w), before + 3);         /* the run's own ticks only (its batch, after it) */
    ecs_world_free(w);
}
static void test_a_system_alone_in_its_batch_may_clear_tracking(void) {
    int refused = -1, other = 0;
    uint32_t n = 0;
    ecs_tick before = clear_world(true, &refused, &other);
    CHECK(before != 0);
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(refused == 0 && other == 1);
    ecs_track_removed(w, pos, 0, &n);
    CHECK_EQ(n, 0u); /* cleared */
    CHECK(ecs_tick_advance(w) > before + 3); /* its own advances too */
    refused = -1;
    CHECK(ecs_system_run(w, "clear") == 0 && refused == 0); /* a batch of one */
    ecs_world_free(w);
}

/* Systems that share a batch may run at once, so nothing structural
   (section 15): in such a system, every call that creates, destroys,
   inserts, removes, records a command, registers or sorts is refused
   (LOCKED, the message says to declare the system structural) and
   changes nothing; values change in place. Declared structural, the same
   system runs alone and may. */
static ecs_entity batch_e;
static int structural_tries(const ecs_system_ctx *ctx) {
    ecs_world *cw = ctx->world;
    int done = 0;
    done += ecs_create(cw) != ECS_NULL;
    done += ECS_ADD(cw, batch_e, vel, Vel, {1, 1}) != NULL; /* an insertion */
    done += ecs_remove(cw, batch_e, pos, NULL);
    done += ecs_defer_destroy(cw, batch_e);
    done += ecs_register(cw, "Late", 4, 4) != 0;
    {
        Pos *p = ECS_GET_MUT(cw, batch_e, pos, Pos); /* in place: fine (gone when the calls above went through) */
        if (p) p->x += 1;
    }
    done += ecs_clone(cw, batch_e) != ECS_NULL;
    if (ecs_last_error(cw) == ECS_ERR_LOCKED && !strstr(ecs_last_error_msg(cw), "ecs_clone(entity"))
        done += 100; /* (refused: the entity named, no component) */
    done += ecs_sort_as(cw, vel, pos); /* (a refused sort_as writes nothing shared) */
    done += ecs_destroy(cw, batch_e);
    *(int *)ctx->user = done;
    return 0;
}
static int replaces_in_place(const ecs_system_ctx *ctx) {
    if (!ecs_alive(ctx->world, batch_e)) return 0; /* (destroyed by a structural "tries") */
    return ECS_ADD(ctx->world, batch_e, pos, Pos, {7, 7}) != NULL ? 0 : 1; /* over a value: a replace */
}
static void test_a_system_sharing_its_batch_may_not_make_structural_changes(void) {
    int done = -1;
    ecs_system_desc a = sys("tries", structural_tries, &done), b = sys("replaces", replaces_in_place, NULL);
    const char *items[2] = {"tries", "replaces"};
    uint32_t n = 0;
    setup();
    batch_e = ecs_create(w);
    ECS_ADD(w, batch_e, pos, Pos, {1, 2});
    a.writes[0] = pos;
    CHECK(ecs_system_new(w, &a) && ecs_system_new(w, &b));
    CHECK(ecs_workload_new(w, "frame", 2, items));
    CHECK(ecs_workload_plan(w, "frame", NULL, 0) == 2);
    n = ecs_count(w);
    test__asserts = 0;
    CHECK_EQ(ecs_workload_run(w, "frame"), 0); /* (the two share a batch: b declares nothing) */
    CHECK_EQ(done, 0);
    CHECK_EQ(test__asserts, 8);
    test__expected += 8;
    CHECK(strstr(test__assert_msg, "systems sharing a batch are running") != NULL);
    CHECK(ecs_alive(w, batch_e) && !ecs_has(w, batch_e, vel) && ecs_count(w) == n);
    CHECK(ecs_lookup(w, "Late") == 0 && ecs_defer_pending(w) == 0);
    CHECK_EQ(w->query_update, 0u); /* (private: what a refused sort_as must leave alone) */
    CHECK(ECS_GET(w, batch_e, pos, Pos)->x == 7); /* the replace */
    ecs_world_free(w);
    /* declared structural: alone in its batch, and allowed */
    done = -1;
    setup();
    batch_e = ecs_create(w);
    ECS_ADD(w, batch_e, pos, Pos, {1, 2});
    a.structural = true;
    CHECK(ecs_system_new(w, &a) && ecs_system_new(w, &b));
    CHECK(ecs_workload_new(w, "frame", 2, items));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK_EQ(done, 8);
    CHECK(!ecs_alive(w, batch_e) && ecs_lookup(w, "Late") != 0);
    ecs_world_free(w);
}

/* --- the plan ---------------------------------------------------------------- */

static int noop(const ecs_system_ctx *ctx) {
    (void)ctx;
    return 0;
}

static void add_sys(const char *name, ecs_component r0, ecs_component r1, ecs_component w0, bool structural) {
    ecs_system_desc d = sys(name, noop, NULL);
    d.reads[0] = r0;
    d.reads[1] = r1;
    d.writes[0] = w0;
    d.structural = structural;
    ecs_system_new(w, &d);
}

static void test_batch_plan_of_a_known_set_of_systems(void) {
    static const char *items[] = {"input", "physics", "spin", "collide", "damage", "regen",
                                  "spawn", "render", "ai", "render", "snap", "aging"};
    static const uint32_t batch[] = {0, 0, 0, 1, 1, 2, 3, 4, 4, 5, 6, 6};
    static const char *why[] = {"", "", "", "reads Pos, which physics writes", "",
                                "writes Health, which damage writes", "structural: runs alone",
                                "spawn is structural and runs alone", "",
                                "render already runs in this batch", "writes Pos, which render reads", ""};
    ecs_plan_step plan[16];
    uint32_t i, n;
    setup();
    add_sys("input", 0, 0, grav, false);      /* a unique */
    add_sys("physics", vel, 0, pos, false);
    add_sys("spin", 0, 0, rot, false);
    add_sys("collide", pos, 0, 0, false);     /* reads what physics writes */
    add_sys("damage", pos, 0, hp, false);     /* readers share a batch */
    add_sys("regen", 0, 0, hp, false);        /* two writers of Health */
    add_sys("spawn", 0, 0, 0, true);
    add_sys("render", pos, 0, 0, false);
    add_sys("ai", grav, 0, vel, false);
    add_sys("snap", 0, 0, pos, false);        /* writes what render reads */
    add_sys("aging", vel, 0, age, false);
    CHECK(ecs_workload_new(w, "frame", 12, items));
    memset(plan, 0, sizeof plan);
    n = ecs_workload_plan(w, "frame", plan, 16);
    CHECK_EQ(n, 12);
    for (i = 0; i < n; i++) {
        if (strcmp(plan[i].system, items[i]) != 0 || plan[i].batch != batch[i] ||
            (why[i][0] ? !strstr(plan[i].reason, why[i]) : plan[i].reason[0] != 0)) {
            printf("  step %u: %s batch %u \"%s\", expected %s batch %u \"%s\"\n", (unsigned)i,
                   plan[i].system, (unsigned)plan[i].batch, plan[i].reason, items[i],
                   (unsigned)batch[i], why[i]);
            CHECK(0);
        }
    }
    /* cap limits what is written, not what is returned */
    memset(plan, 0, sizeof plan);
    CHECK_EQ(ecs_workload_plan(w, "frame", plan, 3), 12);
    CHECK(plan[2].system != NULL && plan[3].system == NULL);
    CHECK_EQ(ecs_workload_plan(w, "frame", NULL, 0), 12);
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    ecs_world_free(w);
}

/* --- batches at run time ----------------------------------------------------- */

typedef struct {
    ecs_entity made;
    int had_it, queued;
} spawn_note;

static int spawner(const ecs_system_ctx *ctx) {
    spawn_note *s = (spawn_note *)ctx->user;
    s->made = ecs_defer_create(ctx->world);
    ECS_DEFER_ADD(ctx->world, s->made, pos, Pos, {1, 2});
    s->had_it = ecs_has(ctx->world, s->made, pos);
    s->queued = (int)ecs_defer_pending(ctx->world);
    return 0;
}

static int checker(const ecs_system_ctx *ctx) {
    spawn_note *s = (spawn_note *)ctx->user;
    const Pos *p = ECS_GET(ctx->world, s->made, pos, Pos);
    s->had_it = p && p->y == 2;
    s->queued = (int)ecs_defer_pending(ctx->world);
    return 0;
}

/* The spawner records a create and an add, then tells the checker (next
   batch, as the spawner is structural) which entity to look at. */
static int spawner_then_tell(const ecs_system_ctx *ctx) {
    spawn_note *notes = (spawn_note *)ctx->user;
    spawner(ctx);
    notes[1].made = notes[0].made;
    return 0;
}

static void test_the_command_buffer_is_flushed_after_each_batch(void) {
    spawn_note notes[2];
    ecs_system_desc d;
    const char *items[2];
    ecs_plan_step plan[2];
    memset(notes, 0, sizeof notes);
    setup();
    d = sys("spawner", spawner_then_tell, notes);
    d.structural = true;
    CHECK(ecs_system_new(w, &d));
    d = sys("checker", checker, &notes[1]);
    d.reads[0] = pos;
    CHECK(ecs_system_new(w, &d));
    items[0] = "spawner", items[1] = "checker";
    CHECK(ecs_workload_new(w, "frame", 2, items));
    CHECK(ecs_workload_plan(w, "frame", plan, 2) == 2 && plan[1].batch == 1);
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(!notes[0].had_it && notes[0].queued == 1); /* recorded, not applied */
    CHECK(notes[1].had_it && notes[1].queued == 0); /* applied before the next batch */
    CHECK(ecs_defer_pending(w) == 0 && ecs_count(w) == 1);
    ecs_world_free(w);
}

typedef struct {
    ecs_tick now;
    ecs_entity e;
} stamp_note;

static int touch_and_note(const ecs_system_ctx *ctx) {
    stamp_note *s = (stamp_note *)ctx->user;
    s->now = ctx->now;
    if (s->e) ECS_GET_MUT(ctx->world, s->e, pos, Pos)->x += 1;
    return 0;
}

static void test_each_batch_runs_at_a_new_tick_and_its_changes_carry_it(void) {
    stamp_note n[3];
    ecs_system_desc d;
    const char *items[3];
    memset(n, 0, sizeof n);
    setup();
    ecs_track_set(w, pos, ECS_TRACK_MODIFICATION);
    n[0].e = ecs_create(w);
    ECS_ADD(w, n[0].e, pos, Pos, {0, 0});
    d = sys("p", touch_and_note, &n[0]);
    d.writes[0] = pos;
    CHECK(ecs_system_new(w, &d));
    d = sys("q", touch_and_note, &n[1]); /* shares p's batch */
    d.writes[0] = rot;
    CHECK(ecs_system_new(w, &d));
    d = sys("r", touch_and_note, &n[2]); /* reads what p writes: next batch */
    d.reads[0] = pos;
    CHECK(ecs_system_new(w, &d));
    items[0] = "p", items[1] = "q", items[2] = "r";
    CHECK(ecs_workload_new(w, "frame", 3, items));
    CHECK_EQ(ecs_workload_run(w, "frame"), 0);
    CHECK(n[0].now == n[1].now && n[2].now > n[1].now);
    CHECK(ecs_track_modified(w, n[0].e, pos, n[0].now - 1));
    CHECK(!ecs_track_modified(w, n[0].e, pos, n[0].now));
    ecs_world_free(w);
}

/* --- parallel equals serial -------------------------------------------------- */

#define NTHREADS_MAX 16

typedef struct {
    int calls;
    int calls_of[NTHREADS_MAX + 1]; /* calls_of[n]: calls with n jobs */
} par_stats;

typedef struct {
    void (*job)(void *arg, uint32_t i);
    void *arg;
    uint32_t i;
} par_job;

static void *par_thread(void *p) {
    par_job *j = (par_job *)p;
    j->job(j->arg, j->i);
    return NULL;
}

/* A thread per job. */
static void threads_for(void (*job)(void *arg, uint32_t i), void *arg, uint32_t n, void *user) {
    par_stats *st = (par_stats *)user;
    pthread_t th[NTHREADS_MAX];
    par_job jobs[NTHREADS_MAX];
    uint32_t i, started = 0;
    st->calls++;
    st->calls_of[n <= NTHREADS_MAX ? n : 0]++;
    for (i = 0; i < n; i++) {
        if (i < NTHREADS_MAX) {
            jobs[i].job = job;
            jobs[i].arg = arg;
            jobs[i].i = i;
            if (pthread_create(&th[started], NULL, par_thread, &jobs[i]) == 0) {
                started++;
                continue;
            }
        }
        job(arg, i); /* more jobs than threads, or no thread: run it here */
    }
    for (i = 0; i < started; i++) pthread_join(th[i], NULL);
}

static int sys_gravity(const ecs_system_ctx *ctx) {
    const Gravity *g = ECS_UNIQUE_GET(ctx->world, grav, Gravity);
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = vel;
    d.terms[0].flags = ECS_WRITE;
    for (it = ecs_system_view(ctx, &d); ecs_iter_next(&it);) ECS_FIELD(&it, 0, Vel)->y -= g->g * 0.01f;
    return 0;
}
static int sys_spin(const ecs_system_ctx *ctx) {
    ecs_iter it;
    for (it = ecs_view_of(ctx->world, 1, &rot); ecs_iter_next(&it);) ECS_FIELD(&it, 0, Rot)->angle += 0.1f;
    return 0;
}
static int sys_aging(const ecs_system_ctx *ctx) {
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = age;
    d.terms[0].flags = ECS_WRITE;
    for (it = ecs_view(ctx->world, &d); ecs_iter_next_block(&it);) {
        Age *a = ECS_BLOCK(&it, 0, Age);
        uint32_t i;
        for (i = 0; i < it.count; i++) a[i].ticks++;
    }
    return 0;
}
static int sys_move(const ecs_system_ctx *ctx) {
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = vel;
    for (it = ecs_view(ctx->world, &d); ecs_iter_next(&it);) {
        Pos *p = ECS_FIELD(&it, 0, Pos);
        const Vel *v = ECS_FIELD(&it, 1, Vel);
        p->x += v->x * 0.01f;
        p->y += v->y * 0.01f;
    }
    return 0;
}
static int sys_decay(const ecs_system_ctx *ctx) {
    ecs_view_desc d;
    ecs_iter it;
    memset(&d, 0, sizeof d);
    d.terms[0].c = hp;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = age;
    for (it = ecs_view(ctx->world, &d); ecs_iter_next(&it);)
        ECS_FIELD(&it, 0, Health)->hp -= ECS_FIELD(&it, 1, Age)->ticks % 3;
    return 0;
}
static int sys_reaper(const ecs_system_ctx *ctx) {
    ecs_iter it;
    for (it = ecs_view_of(ctx->world, 1, &hp); ecs_iter_next(&it);)
        if (ECS_FIELD(&it, 0, Health)->hp <= 0) ecs_defer_destroy(ctx->world, ecs_iter_entity(&it));
    return 0;
}
static int sys_spawner(const ecs_system_ctx *ctx) {
    ecs_component bundle[4];
    uint32_t *n = (uint32_t *)ctx->user;
    int k;
    bundle[0] = pos, bundle[1] = vel, bundle[2] = age, bundle[3] = hp;
    for (k = 0; k < 3; k++, (*n)++) {
        Pos p;
        Vel v;
        Age a;
        Health h;
        const void *vals[4];
        ecs_entity e;
        p.x = (float)*n, p.y = 0;
        v.x = (float)(*n % 5), v.y = 1;
        a.ticks = 0;
        h.hp = 5 + (int)(*n % 17);
        vals[0] = &p, vals[1] = &v, vals[2] = &a, vals[3] = &h;
        e = ecs_create_n(ctx->world, 4, bundle, vals);
        if (*n % 2) ECS_ADD(ctx->world, e, rot, Rot, {0});
    }
    return 0;
}
static int sys_sum(const ecs_system_ctx *ctx) {
    double *sum = (double *)ctx->user;
    ecs_iter it;
    for (it = ecs_view_of(ctx->world, 1, &pos); ecs_iter_next(&it);) *sum += ECS_FIELD(&it, 0, Pos)->x;
    return 0;
}

typedef struct {
    uint32_t spawned;
    double sum;
} sim_state;

static ecs_world *build_sim(ecs_parallel_fn pf, par_stats *st, sim_state *ss) {
    static const char *items[] = {"gravity", "spin", "aging", "move", "decay", "reaper", "spawner", "sum"};
    ecs_desc desc;
    ecs_system_desc d;
    int i;
    memset(&desc, 0, sizeof desc);
    desc.parallel_for = pf;
    desc.parallel_user = st;
    setup_with(&desc);
    ecs_track_set(w, pos, ECS_TRACK_ALL);
    ecs_track_set(w, vel, ECS_TRACK_MODIFICATION);
    ecs_track_set(w, age, ECS_TRACK_MODIFICATION);
    ECS_UNIQUE_ADD(w, grav, Gravity, {9.8f});
    memset(ss, 0, sizeof *ss);
    d = sys("gravity", sys_gravity, NULL);
    d.reads[0] = grav;
    d.writes[0] = vel;
    ecs_system_new(w, &d);
    d = sys("spin", sys_spin, NULL);
    d.writes[0] = rot;
    ecs_system_new(w, &d);
    d = sys("aging", sys_aging, NULL);
    d.writes[0] = age;
    ecs_system_new(w, &d);
    d = sys("move", sys_move, NULL);
    d.reads[0] = vel;
    d.writes[0] = pos;
    ecs_system_new(w, &d);
    d = sys("decay", sys_decay, NULL);
    d.reads[0] = age;
    d.writes[0] = hp;
    ecs_system_new(w, &d);
    d = sys("reaper", sys_reaper, NULL);
    d.structural = true;
    ecs_system_new(w, &d);
    d = sys("spawner", sys_spawner, &ss->spawned);
    d.structural = true;
    ecs_system_new(w, &d);
    d = sys("sum", sys_sum, &ss->sum);
    d.reads[0] = pos;
    ecs_system_new(w, &d);
    ecs_workload_new(w, "frame", 8, items);
    for (i = 0; i < 20; i++) sys_spawner(&(ecs_system_ctx){w, &ss->spawned, "setup", 1, 1, NULL, NULL});
    return w;
}

/* Same entities, rows, values and change stamps in every storage. */
static int same_world(ecs_world *x, ecs_world *y, ecs_tick since) {
    ecs_component k;
    if (ecs_count(x) != ecs_count(y)) return 0;
    for (k = 1; k <= ecs_component_max(x); k++) {
        uint32_t n = ecs_storage_count(ecs_storage_of(x, k)), r;
        const ecs_entity *ex = ecs_storage_entities(ecs_storage_of(x, k)), *ey = ecs_storage_entities(ecs_storage_of(y, k));
        if (n != ecs_storage_count(ecs_storage_of(y, k))) return 0;
        if (n && memcmp(ex, ey, n * sizeof *ex) != 0) return 0;
        if (n && ecs_component_size(x, k) &&
            memcmp(ecs_storage_data(ecs_storage_of(x, k)), ecs_storage_data(ecs_storage_of(y, k)), n * ecs_component_size(x, k)) != 0)
            return 0;
        if (ecs_track_get(x, k) & ECS_TRACK_MODIFICATION)
            for (r = 0; r < n; r++)
                if (ecs_track_modified(x, ex[r], k, since) != ecs_track_modified(y, ey[r], k, since)) return 0;
    }
    return memcmp(ecs_unique_get(x, grav), ecs_unique_get(y, grav), sizeof(Gravity)) == 0;
}

static void test_parallel_for_gives_the_same_world_as_serial_runs(void) {
    ecs_world *serial, *parallel;
    par_stats st;
    sim_state s1, s2;
    ecs_plan_step plan[8];
    ecs_tick mid = 0;
    int frame;
    static const uint32_t batch[] = {0, 0, 0, 1, 1, 2, 3, 4};
    uint32_t i;
    memset(&st, 0, sizeof st);
    serial = build_sim(NULL, NULL, &s1);
    parallel = build_sim(threads_for, &st, &s2);
    CHECK_EQ(ecs_workload_plan(parallel, "frame", plan, 8), 8);
    for (i = 0; i < 8; i++) CHECK_EQ(plan[i].batch, batch[i]);
    for (frame = 0; frame < 20; frame++) {
        if (frame == 15) {
            mid = ecs_tick_advance(serial);
            CHECK_EQ(ecs_tick_advance(parallel), mid);
        }
        CHECK_EQ(ecs_workload_run(serial, "frame"), 0);
        CHECK_EQ(ecs_workload_run(parallel, "frame"), 0);
    }
    CHECK(ecs_count(serial) > 20 && ecs_count(serial) < s1.spawned); /* some were reaped */
    CHECK(s1.spawned == s2.spawned && s1.sum == s2.sum);
    CHECK(same_world(serial, parallel, mid));
    /* the hook ran the batches of several systems: 3 and 2 per frame */
    CHECK(st.calls_of[3] == 20 && st.calls_of[2] == 20);
    for (i = 4; i <= NTHREADS_MAX; i++) CHECK_EQ(st.calls_of[i], 0);
    CHECK_EQ(st.calls_of[0], 0);
    ecs_world_free(serial);
    ecs_world_free(parallel);
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_system_gets_world_user_name_last_run_and_now);
    RUN(test_workload_runs_its_systems_in_declared_order);
    RUN(test_nested_workloads_are_expanded_in_place);
    RUN(test_names_are_unique_across_systems_and_workloads);
    RUN(test_system_view_sees_what_changed_since_that_system_last_ran);
    RUN(test_changes_made_after_a_system_in_the_same_run_are_seen_next_run);
    RUN(test_inserted_window_starts_with_everything_then_only_what_is_new);
    RUN(test_run_if_skips_a_run_and_the_skipped_system_keeps_its_window);
    RUN(test_a_failing_system_stops_the_workload_after_its_batch);
    RUN(test_the_default_workload_is_the_first_one_added);
    RUN(test_an_unknown_workload_returns_minus_one_and_asserts);
    RUN(test_running_a_workload_from_a_system_returns_minus_one_and_asserts);
    RUN(test_a_system_sharing_its_batch_may_not_clear_tracking_or_advance_the_clock);
    RUN(test_a_system_alone_in_its_batch_may_clear_tracking);
    RUN(test_a_system_sharing_its_batch_may_not_make_structural_changes);
    RUN(test_batch_plan_of_a_known_set_of_systems);
    RUN(test_the_command_buffer_is_flushed_after_each_batch);
    RUN(test_each_batch_runs_at_a_new_tick_and_its_changes_carry_it);
    RUN(test_parallel_for_gives_the_same_world_as_serial_runs);
    return test_summary();
}
