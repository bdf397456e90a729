/* Callbacks that call back into the world. ecs.h calls user code from
   inside its own calls: hooks (section 12: on_insert and on_remove, fired
   by add, add_n, create_n, create_bulk, remove, delete, strip, destroy and
   flush), sort comparators (section 9: ecs_sort, ecs_group_sort), systems
   and their run_if (section 14: ecs_workload_run) and the fn of ecs_visit
   (section 7). Each may call any function of the world; these tests pin
   what each answers. One test per (callback kind, function group):

     inside a hook of storage S, for entity e            answer
     -------------------------------------------------   ------------------------
     insert into / remove from S                          refused, LOCKED, assert
     insert into / remove from the storages of S's group  refused, LOCKED, assert
     destroy or strip e                                   refused, LOCKED, assert
     add to e while e is being stripped or destroyed      refused, LOCKED, assert
     sort, sort_as, hooks_set of S, a group owning S      refused, LOCKED, assert
     group_sort of S's group (it moves S's rows)          refused, LOCKED, assert
     track_set of S                                       refused, LOCKED, assert
     ecs_flush                                            0, LOCKED, assert; the
                                                          queue stays for later
     ecs_workload_run                                     -1, LOCKED, assert
     ecs_world_free                                       assert; the world stays
     other storages and entities, create, destroy others  allowed, and correct
     ecs_register (hundreds, even during destroy/strip)   allowed, and correct
     ecs_defer_* (applied by the next flush)              allowed, and correct
     ecs_group_new on storages that are not locked        allowed, and correct
     ecs_system_new, ecs_workload_new                     allowed, and correct
     reads (get, has, views, each, names, counts)         allowed, and correct

     inside a sort comparator (ecs_sort, ecs_group_sort)
     insert into / remove from the storages being sorted  refused, LOCKED, assert;
                                                          the sort still sorts
     sort those storages again                            refused, LOCKED, assert
     ecs_flush, ecs_workload_run                          refused, LOCKED, assert
     ecs_world_free                                       assert; the world stays
     changes to other storages                            allowed, and correct

     inside a system or run_if of a running workload
     ecs_system_new, ecs_workload_new                     refused, LOCKED, assert;
                                                          the workload completes
     ecs_workload_run                                     -1, INVALID, assert
     ecs_world_free                                       assert; the world stays
     structural changes (system marked structural)        allowed, and correct

     inside the fn of ecs_visit
     ecs_world_free                                       assert; the walk goes on
     the rest                                             the rules of iteration

   Every hook test fires its hook from each call that fires hooks (the
   table `triggers` below) and checks the world after each. Run one test
   alone with `test_reentrancy <test name>` (to see a crash in isolation). */
#include "test.h"
#include "../ecs.h"

typedef struct { int v; } Val;

/* ---- checking an answer (as in test_bad_input.c) --------------------------------- */


/* expr must hold and assert exactly once, naming call, entity ent (ECS_NULL:
   not checked) and component comp (NULL: not checked); the error must be
   `code` and its message the asserted one. */
#define EXPECT_REFUSED(hw, expr, code, call, ent, comp)                                         \
    do {                                                                                        \
        char es_[ECS_ENTITY_STR];                                                               \
        ecs_entity ent_ = (ent);                                                                \
        ecs_clear_error(hw);                                                                    \
        EXPECT_ASSERT(expr, "");                                                                \
        if (!test_names_or_say(test__assert_msg, (call), ent_ ? ecs_entity_str(ent_, es_) : NULL, \
                          (comp), __FILE__, __LINE__)) {                                          \
            test__failed = 1;                                                                   \
            return;                                                                             \
        }                                                                                       \
        CHECK(ecs_last_error(hw) == (code));                                                    \
        CHECK(strcmp(ecs_last_error_msg(hw), test__assert_msg) == 0);                           \
    } while (0)
#define EXPECT_LOCKED(hw, expr, call, ent, comp) EXPECT_REFUSED(hw, expr, ECS_ERR_LOCKED, call, ent, comp)

/* ecs_world_free(hw) must assert, naming itself, and leave the world alone. */
#define EXPECT_FREE_REFUSED(hw)                                                                 \
    do {                                                                                        \
        EXPECT_ASSERT((ecs_world_free(hw), 1), "");                                             \
        if (strncmp(test__assert_msg, "ecs_world_free", 14) != 0) {                             \
            printf("  %s:%d: the assert \"%s\" does not name ecs_world_free\n", __FILE__,       \
                   __LINE__, test__assert_msg);                                                 \
            test__failed = 1;                                                                   \
            return;                                                                             \
        }                                                                                       \
    } while (0)

/* ---- the world ------------------------------------------------------------------ */

static ecs_world *w;
static ecs_component hooked, extra, other, mate, banned;
static ecs_group grp; /* setup(GROUP_MATE) or setup(GROUP_EXTRA) */
static const Val seven = {7};

/* Every row of c's storage belongs to a live entity that has c there. */
static int storage_ok(ecs_component c) {
    const ecs_storage *s = ecs_storage_of(w, c);
    const ecs_entity *ents = ecs_storage_entities(s);
    size_t size = ecs_component_size(w, c);
    uint32_t r;
    for (r = 0; r < ecs_storage_count(s); r++) {
        if (!ecs_alive(w, ents[r]) || !ecs_has(w, ents[r], c)) return 0;
        if (size && ecs_get(w, ents[r], c) != (const char *)ecs_storage_data(s) + r * size) return 0;
    }
    return 1;
}

/* Group g (owning o[0..no), excluding x) holds exactly the entities that
   match it, in its first rows, at the same row of every owned storage. */
static int group_ok(ecs_group g, const ecs_component *o, int no, ecs_component x) {
    uint32_t n = ecs_group_count(w, g), r;
    const ecs_entity *ents = ecs_group_entities(w, g), *lead = ecs_storage_entities(ecs_storage_of(w, o[0]));
    int k;
    for (r = 0; r < ecs_storage_count(ecs_storage_of(w, o[0])); r++) {
        int match = !x || !ecs_has(w, lead[r], x);
        for (k = 1; k < no; k++) match = match && ecs_has(w, lead[r], o[k]);
        if (match != (r < n)) return 0;
    }
    for (k = 0; k < no; k++)
        if (memcmp(ecs_storage_entities(ecs_storage_of(w, o[k])), ents, n * sizeof *ents) != 0) return 0;
    return 1;
}

/* A hook that probes only while `armed` (the call under test), so that
   setting up entities does not run the probe. */
static int armed, probed;
static void (*probe)(ecs_world *hw, ecs_entity e, ecs_component c, void *value);
static void hook(ecs_world *hw, ecs_entity e, ecs_component c, void *value, void *user) {
    (void)user;
    if (armed <= 0) return;
    armed--;
    probed++;
    if (probe) probe(hw, e, c, value);
}

enum { NO_GROUP, GROUP_MATE, GROUP_EXTRA };
static int group_kind;

/* bystander: Hooked {100}, Extra {103}, Mate {101}, Other {102}; loner: nothing.
   GROUP_MATE: a group owns Hooked and Mate and excludes Banned (bystander is
   in it); GROUP_EXTRA: a group owns Hooked and Extra. Hooked's hooks are `hook`. */
static ecs_entity bystander, loner;
static void setup(int kind) {
    ecs_hooks h = {0};
    ecs_group_desc gd;
    w = ecs_world_new(NULL);
    hooked = ecs_register(w, "Hooked", sizeof(Val), ECS_ALIGNOF(Val));
    extra = ecs_register(w, "Extra", sizeof(Val), ECS_ALIGNOF(Val));
    other = ecs_register(w, "Other", sizeof(Val), ECS_ALIGNOF(Val));
    mate = ecs_register(w, "Mate", sizeof(Val), ECS_ALIGNOF(Val));
    banned = ecs_register(w, "Banned", sizeof(Val), ECS_ALIGNOF(Val));
    memset(&h, 0, sizeof h);
    h.on_insert = hook;
    h.on_remove = hook;
    ecs_hooks_set(w, hooked, &h);
    armed = probed = 0;
    probe = NULL;
    group_kind = kind;
    grp = 0;
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = hooked;
    if (kind == GROUP_MATE) {
        gd.owned[1] = mate;
        gd.excluded[0] = banned;
    } else {
        gd.owned[1] = extra;
    }
    if (kind != NO_GROUP) grp = ecs_group_new(w, &gd);
    bystander = ecs_create(w);
    ECS_ADD(w, bystander, hooked, Val, {100});
    ECS_ADD(w, bystander, extra, Val, {103});
    ECS_ADD(w, bystander, mate, Val, {101});
    ECS_ADD(w, bystander, other, Val, {102});
    loner = ecs_create(w);
}

static int world_ok(void) {
    ecs_component o[2];
    if (!storage_ok(hooked) || !storage_ok(extra) || !storage_ok(other) || !storage_ok(mate) || !storage_ok(banned))
        return 0;
    o[0] = hooked;
    o[1] = group_kind == GROUP_MATE ? mate : extra;
    return !grp || group_ok(grp, o, 2, group_kind == GROUP_MATE ? banned : 0);
}

/* ---- the calls that fire hooks ---------------------------------------------------- */

enum { ON_INSERT = 1, ON_REMOVE = 2, IN_STRIP = 4 /* e is being stripped or destroyed */ };
static const struct {
    const char *name;
    int kind;
} triggers[] = {
    {"ecs_add", ON_INSERT},
    {"ecs_add_n", ON_INSERT},
    {"ecs_create_n", ON_INSERT},
    {"ecs_create_bulk", ON_INSERT},
    {"ecs_flush of ecs_defer_add", ON_INSERT},
    {"ecs_remove", ON_REMOVE},
    {"ecs_delete", ON_REMOVE},
    {"ecs_strip", ON_REMOVE | IN_STRIP},
    {"ecs_destroy", ON_REMOVE | IN_STRIP},
    {"ecs_flush of ecs_defer_remove", ON_REMOVE},
    {"ecs_flush of ecs_defer_delete", ON_REMOVE},
    {"ecs_flush of ecs_defer_destroy", ON_REMOVE | IN_STRIP},
};
#define NTRIGGERS ((int)(sizeof triggers / sizeof triggers[0]))

static ecs_entity fired;      /* the entity of the last hook the trigger ran */
static uint32_t count_inside; /* ecs_count while the hooks run */
static int e_may_die;         /* the probe deferred the destruction of its entity */

/* Runs trigger t on a new entity that has (or gets) Hooked {7} and Extra
   {7}, with the hook armed for the calls the trigger makes, then checks
   that each ran once and that the world is what the trigger makes it. */
static void fire(int t) {
    ecs_component both[2];
    const void *vals[2];
    ecs_entity ids[2], e = ECS_NULL;
    int want = 1, k = triggers[t].kind;
    both[0] = hooked;
    both[1] = extra;
    vals[0] = vals[1] = &seven;
    if (k & ON_REMOVE) {
        CHECK_NE((e = ecs_create_n(w, 2, both, vals)), ECS_NULL); /* not armed yet */
    } else if (t != 2 && t != 3) {
        e = ecs_create(w);
        CHECK_PTR_NE(ecs_add(w, e, extra, &seven), NULL);
    }
    if (t == 3) want = 2;
    count_inside = ecs_count(w) + (t == 2 ? 1u : t == 3 ? 2u : 0u);
    probed = 0;
    armed = want;
    switch (t) {
    case 0: CHECK_PTR_NE(ECS_ADD(w, e, hooked, Val, {7}), NULL); break;
    case 1: CHECK(ecs_add_n(w, e, 2, both, vals)); break;
    case 2: CHECK_NE((e = ecs_create_n(w, 2, both, vals)), ECS_NULL); break;
    case 3: CHECK(ecs_create_bulk(w, 2, 2, both, vals, ids)); e = ids[1]; break;
    case 4: CHECK(ecs_defer_add(w, e, hooked, &seven)); ecs_flush(w); break;
    case 5: CHECK(ecs_remove(w, e, hooked, NULL)); break;
    case 6: CHECK(ecs_delete(w, e, hooked)); break;
    case 7: CHECK_EQ(ecs_strip(w, e), 2); break;
    case 8: CHECK(ecs_destroy(w, e)); break;
    case 9: CHECK(ecs_defer_remove(w, e, hooked)); ecs_flush(w); break;
    case 10: CHECK(ecs_defer_delete(w, e, hooked)); ecs_flush(w); break;
    default: CHECK(ecs_defer_destroy(w, e)); ecs_flush(w); break;
    }
    armed = 0;
    fired = e;
    if (test__failed) return;
    CHECK_EQ(probed, want);
    if (k & ON_INSERT) {
        CHECK((e_may_die && !ecs_alive(w, e)) || (ecs_alive(w, e) && ECS_GET(w, e, hooked, Val)->v == 7));
        if (t == 3) CHECK(ecs_alive(w, ids[0]) && ECS_GET(w, ids[0], hooked, Val)->v == 7);
    } else {
        CHECK(!ecs_has(w, e, hooked));
        if (t == 8 || t == 11) CHECK(!ecs_alive(w, e));
        if (t == 7) CHECK((e_may_die || ecs_alive(w, e)) && !ecs_has(w, e, extra));
    }
    CHECK(world_ok());
}

/* Fires trigger t; on a failure, says which call ran the hook, and returns. */
#define FIRE(t)                                                                                 \
    do {                                                                                        \
        fire(t);                                                                                \
        if (test__failed) {                                                                     \
            printf("  (the hook ran under %s)\n", triggers[t].name);                            \
            return;                                                                             \
        }                                                                                       \
    } while (0)
#define EACH_TRIGGER(t, kinds) for (t = 0; t < NTRIGGERS; t++) if (triggers[t].kind & (kinds))

static void teardown(void) {
    ecs_world_free(w);
    w = NULL;
}

/* ---- hooks: what is refused ------------------------------------------------------- */

/* Inserting into or removing from the hook's own storage, by every call that can. */
static void try_own_storage(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    Val v = {5}, out = {0};
    const void *vals[1];
    ecs_entity ids[2];
    uint32_t n = ecs_count(hw), rows = ecs_storage_count(ecs_storage_of(hw, c));
    vals[0] = &v;
    EXPECT_LOCKED(hw, ecs_add(hw, loner, c, &v) == NULL, "ecs_add", loner, "Hooked");
    EXPECT_LOCKED(hw, ECS_ADD(hw, loner, c, Val, {5}) == NULL, "ECS_ADD", loner, "Hooked");
    EXPECT_LOCKED(hw, !ecs_add_n(hw, loner, 1, &c, vals), "ecs_add_n", loner, "Hooked");
    EXPECT_LOCKED(hw, !ecs_add_if_changed(hw, loner, c, &v), "ecs_add_if_changed", loner, "Hooked");
    EXPECT_LOCKED(hw, !ECS_ADD_IF_CHANGED(hw, loner, c, Val, {5}), "ECS_ADD_IF_CHANGED", loner, "Hooked");
    EXPECT_LOCKED(hw, ecs_create_n(hw, 1, &c, NULL) == ECS_NULL, "ecs_create_n", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, !ecs_create_bulk(hw, 2, 1, &c, NULL, ids), "ecs_create_bulk", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, !ecs_remove(hw, bystander, c, &out), "ecs_remove", bystander, "Hooked");
    EXPECT_LOCKED(hw, !ECS_REMOVE(hw, bystander, c, Val, &out), "ECS_REMOVE", bystander, "Hooked");
    EXPECT_LOCKED(hw, !ecs_delete(hw, bystander, c), "ecs_delete", bystander, "Hooked");
    EXPECT_LOCKED(hw, ecs_strip(hw, bystander) == 0, "ecs_strip", bystander, "Hooked");
    EXPECT_LOCKED(hw, !ecs_destroy(hw, bystander), "ecs_destroy", bystander, "Hooked");
    /* nothing happened */
    CHECK(ecs_count(hw) == n && ecs_storage_count(ecs_storage_of(hw, c)) == rows && out.v == 0);
    CHECK(!ecs_has(hw, loner, c) && ECS_GET(hw, bystander, c, Val)->v == 100 && ecs_has(hw, bystander, extra));
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7); /* the hook's value did not move */
}

static void test_hook_inserting_into_or_removing_from_its_own_storage_is_refused_locked(void) {
    int t;
    setup(NO_GROUP);
    probe = try_own_storage;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    CHECK(!ecs_has(w, loner, hooked) && ECS_GET(w, bystander, hooked, Val)->v == 100);
    CHECK_PTR_NE(ECS_ADD(w, loner, hooked, Val, {1}), NULL); /* outside the hook: fine */
    teardown();
}

/* Hooked is owned by a group with Mate that excludes Banned: joining and
   leaving that group move Hooked's rows, so Mate and Banned are locked too. */
static ecs_entity outcast, matey; /* outcast: Hooked, Mate, Banned; matey: Mate */
static void try_group_storages(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    Val v = {5};
    ecs_entity ids[2];
    uint32_t n = ecs_count(hw), len = ecs_group_count(hw, grp);
    EXPECT_LOCKED(hw, ecs_add(hw, loner, mate, &v) == NULL, "ecs_add", loner, "Mate");
    EXPECT_LOCKED(hw, ECS_ADD(hw, loner, banned, Val, {5}) == NULL, "ECS_ADD", loner, "Banned");
    EXPECT_LOCKED(hw, ecs_add(hw, bystander, banned, NULL) == NULL, "ecs_add", bystander, "Banned");
    EXPECT_LOCKED(hw, !ecs_add_n(hw, loner, 1, &mate, NULL), "ecs_add_n", loner, "Mate");
    EXPECT_LOCKED(hw, !ecs_add_if_changed(hw, loner, banned, &v), "ecs_add_if_changed", loner, "Banned");
    EXPECT_LOCKED(hw, ecs_create_n(hw, 1, &mate, NULL) == ECS_NULL, "ecs_create_n", ECS_NULL, "Mate");
    EXPECT_LOCKED(hw, !ecs_create_bulk(hw, 2, 1, &banned, NULL, ids), "ecs_create_bulk", ECS_NULL, "Banned");
    EXPECT_LOCKED(hw, !ecs_remove(hw, bystander, mate, NULL), "ecs_remove", bystander, "Mate");
    EXPECT_LOCKED(hw, !ecs_delete(hw, outcast, banned), "ecs_delete", outcast, "Banned");
    EXPECT_LOCKED(hw, !ecs_delete(hw, matey, mate), "ecs_delete", matey, "Mate");
    EXPECT_LOCKED(hw, ecs_strip(hw, matey) == 0, "ecs_strip", matey, "Mate");
    EXPECT_LOCKED(hw, !ecs_destroy(hw, matey), "ecs_destroy", matey, "Mate");
    CHECK(ecs_count(hw) == n && ecs_group_count(hw, grp) == len);
    CHECK(!ecs_has(hw, loner, mate) && !ecs_has(hw, loner, banned) && !ecs_has(hw, bystander, banned));
    CHECK(ecs_has(hw, bystander, mate) && ecs_has(hw, outcast, banned) && ecs_has(hw, matey, mate));
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_changing_the_storages_of_its_storages_group_is_refused_locked(void) {
    int t;
    setup(GROUP_MATE);
    outcast = ecs_create(w);
    ECS_ADD(w, outcast, hooked, Val, {1});
    ECS_ADD(w, outcast, mate, Val, {1});
    ECS_ADD(w, outcast, banned, Val, {1});
    matey = ecs_create(w);
    ECS_ADD(w, matey, mate, Val, {1});
    CHECK_EQ(ecs_group_count(w, grp), 1); /* bystander */
    probe = try_group_storages;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    CHECK(ecs_group_count(w, grp) == 1 && ecs_has(w, matey, mate) && ecs_has(w, outcast, banned));
    CHECK(ECS_ADD(w, loner, mate, Val, {1}) != NULL && ecs_delete(w, outcast, banned)); /* outside: fine */
    CHECK(ecs_group_count(w, grp) == 2 && world_ok());
    teardown();
}

static void try_own_entity(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    EXPECT_LOCKED(hw, !ecs_destroy(hw, e), "ecs_destroy", e, NULL);
    EXPECT_LOCKED(hw, ecs_strip(hw, e) == 0, "ecs_strip", e, NULL);
    EXPECT_LOCKED(hw, ecs_destroy_all(hw, c) == 0, "ecs_destroy_all", ECS_NULL, NULL); /* (it names itself) */
    CHECK(ecs_alive(hw, e) && ecs_get(hw, e, c) == value && ecs_has(hw, e, extra));
}

static void test_hook_destroying_or_stripping_its_own_entity_is_refused_locked(void) {
    int t;
    setup(NO_GROUP);
    probe = try_own_entity;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    teardown();
}

static void try_add_to_stripped(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    Val v = {5};
    EXPECT_LOCKED(hw, ecs_add(hw, e, other, &v) == NULL, "ecs_add", e, "Other");
    EXPECT_LOCKED(hw, ECS_ADD(hw, e, other, Val, {5}) == NULL, "ECS_ADD", e, "Other");
    EXPECT_LOCKED(hw, !ecs_add_n(hw, e, 1, &other, NULL), "ecs_add_n", e, "Other");
    EXPECT_LOCKED(hw, !ecs_add_if_changed(hw, e, other, &v), "ecs_add_if_changed", e, "Other");
    CHECK(!ecs_has(hw, e, other) && ecs_get(hw, e, c) == value);
}

static void test_hook_adding_to_its_entity_while_it_is_stripped_or_destroyed_is_refused_locked(void) {
    int t;
    setup(NO_GROUP);
    probe = try_add_to_stripped;
    EACH_TRIGGER(t, IN_STRIP) {
        FIRE(t);
        CHECK(!ecs_has(w, fired, other) && ecs_storage_count(ecs_storage_of(w, other)) == 1);
    }
    teardown();
}

static int by_v(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx);

static void try_reorder_own_storage(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    ecs_hooks h = {0};
    ecs_group_desc gd;
    memset(&h, 0, sizeof h);
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = c;
    gd.owned[1] = other;
    EXPECT_LOCKED(hw, !ecs_sort(hw, c, by_v, NULL), "ecs_sort", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, !ecs_sort_as(hw, c, other), "ecs_sort_as", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, !ecs_hooks_set(hw, c, &h), "ecs_hooks_set", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, !ecs_hooks_set(hw, c, NULL), "ecs_hooks_set", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, ecs_group_new(hw, &gd) == 0, "ecs_group_new", ECS_NULL, "Hooked");
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_sorting_or_rehooking_or_grouping_its_own_storage_is_refused_locked(void) {
    ecs_group_desc gd;
    int t;
    setup(NO_GROUP);
    probe = try_reorder_own_storage;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t); /* fire checks that the hook still runs each time */
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = hooked;
    gd.owned[1] = other;
    CHECK_EQ(ecs_group_new(w, &gd), 1); /* no group was made inside the hook */
    teardown();
}

/* ecs_group_sort of the group that owns Hooked permutes Hooked's rows: the
   hook's value would move under it, as with ecs_sort of Hooked. */
static void try_sort_own_group(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    EXPECT_LOCKED(hw, !ecs_group_sort(hw, grp, c, by_v, NULL), "ecs_group_sort", ECS_NULL, NULL);
    EXPECT_LOCKED(hw, !ecs_group_sort(hw, grp, extra, by_v, NULL), "ecs_group_sort", ECS_NULL, NULL);
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_sorting_its_storages_group_is_refused_locked(void) {
    ecs_component both[2];
    const void *vals[2];
    Val lo = {1}, hi = {500};
    int t;
    setup(GROUP_EXTRA);
    both[0] = hooked;
    both[1] = extra;
    vals[0] = vals[1] = &lo;
    CHECK_NE(ecs_create_n(w, 2, both, vals), ECS_NULL); /* members that sort before and after 7 */
    vals[0] = vals[1] = &hi;
    CHECK_NE(ecs_create_n(w, 2, both, vals), ECS_NULL);
    probe = try_sort_own_group;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    teardown();
}

static void try_track_own_storage(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    EXPECT_LOCKED(hw, !ecs_track_set(hw, c, ECS_TRACK_ALL), "ecs_track_set", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, !ecs_track_set(hw, c, 0), "ecs_track_set", ECS_NULL, "Hooked");
    EXPECT_LOCKED(hw, !ecs_track_set(hw, c, ECS_TRACK_REMOVAL), "ecs_track_set", ECS_NULL, "Hooked");
    CHECK_EQ(ecs_track_get(hw, c), (ECS_TRACK_INSERTION | ECS_TRACK_DELETION));
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_changing_its_storages_tracking_is_refused_locked(void) {
    const ecs_change *l;
    uint32_t n, deleted = 0;
    int t;
    setup(NO_GROUP);
    CHECK(ecs_track_set(w, hooked, ECS_TRACK_INSERTION | ECS_TRACK_DELETION));
    probe = try_track_own_storage;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) {
        FIRE(t);
        if ((triggers[t].kind & ON_REMOVE) && t != 5 && t != 9) deleted++; /* removals are not deletions */
        if (triggers[t].kind & ON_INSERT) CHECK(ecs_track_inserted(w, fired, hooked, 0));
    }
    CHECK_EQ(ecs_track_get(w, hooked), (ECS_TRACK_INSERTION | ECS_TRACK_DELETION));
    l = ecs_track_deleted(w, hooked, 0, &n);
    CHECK(n == deleted && ((const Val *)ecs_track_deleted_value(w, hooked, &l[n - 1]))->v == 7);
    teardown();
}

/* The probe queues an insert into Hooked, a deletion from it and a
   destruction, then flushes: refused, and nothing of the queue is lost. */
static ecs_entity fl_target, fl_holder, fl_victim;
static void try_flush(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    Val v = {5};
    uint32_t pending;
    CHECK(ecs_defer_add(hw, fl_target, c, &v));
    CHECK(ecs_defer_delete(hw, fl_holder, c));
    CHECK(ecs_defer_destroy(hw, fl_victim));
    pending = ecs_defer_pending(hw);
    EXPECT_LOCKED(hw, ecs_flush(hw) == 0, "ecs_flush", ECS_NULL, NULL);
    CHECK_EQ(ecs_defer_pending(hw), pending);
    CHECK(!ecs_has(hw, fl_target, c) && ecs_has(hw, fl_holder, c) && ecs_alive(hw, fl_victim));
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_flushing_is_refused_locked_and_drops_nothing(void) {
    int t;
    setup(NO_GROUP);
    probe = try_flush;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) {
        fl_target = ecs_create(w);
        fl_holder = ecs_create(w);
        CHECK_PTR_NE(ECS_ADD(w, fl_holder, hooked, Val, {9}), NULL);
        fl_victim = ecs_create(w);
        CHECK_PTR_NE(ECS_ADD(w, fl_victim, other, Val, {9}), NULL);
        FIRE(t);
        ecs_flush(w); /* outside the hook: applies what the hook queued (a flush trigger already did) */
        CHECK_EQ(ecs_defer_pending(w), 0);
        CHECK(ECS_GET(w, fl_target, hooked, Val) && ECS_GET(w, fl_target, hooked, Val)->v == 5);
        CHECK(ecs_alive(w, fl_holder) && !ecs_has(w, fl_holder, hooked) && !ecs_alive(w, fl_victim));
        CHECK(world_ok());
    }
    teardown();
}

static int ran; /* runs of the system `tick` */
static int tick_system(const ecs_system_ctx *ctx) {
    (void)ctx;
    ran++;
    return 0;
}

static ecs_system_desc sys(const char *name, ecs_system_fn fn) {
    ecs_system_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.fn = fn;
    return d;
}

static void try_run_workload(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    int before = ran;
    EXPECT_LOCKED(hw, ecs_workload_run(hw, "frame") == -1, "ecs_workload_run", ECS_NULL, NULL);
    EXPECT_LOCKED(hw, ecs_workload_run(hw, NULL) == -1, "ecs_workload_run", ECS_NULL, NULL);
    CHECK(ran == before && ecs_get(hw, e, c) == value);
}

static void test_hook_running_a_workload_is_refused_locked(void) {
    ecs_system_desc d;
    const char *items[1] = {"tick"};
    int t;
    setup(NO_GROUP);
    d = sys("tick", tick_system);
    CHECK(ecs_system_new(w, &d) && ecs_workload_new(w, "frame", 1, items));
    ran = 0;
    probe = try_run_workload;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    CHECK(ran == 0 && ecs_workload_run(w, "frame") == 0 && ran == 1); /* outside: fine */
    teardown();
}

static void try_free_world(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    uint32_t n = ecs_count(hw);
    EXPECT_FREE_REFUSED(hw);
    CHECK(ecs_count(hw) == n && ecs_alive(hw, e) && ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
    CHECK_EQ(ECS_GET(hw, bystander, c, Val)->v, 100);
}

static void test_hook_freeing_the_world_is_refused_and_the_world_stays_usable(void) {
    ecs_entity e;
    int t;
    setup(NO_GROUP);
    probe = try_free_world;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    e = ecs_create(w);
    CHECK(ECS_ADD(w, e, other, Val, {1}) != NULL && ecs_destroy(w, e) && world_ok());
    teardown();
}

/* ---- hooks: what is allowed ------------------------------------------------------- */

/* Changes elsewhere: values anywhere (its own storage's too), other
   storages on any entity (its own, unless it is being stripped), new
   entities, destroying and stripping others. */
static ecs_entity al_target, al_holder, al_victim, al_stripee, al_made[6];
static int al_strip, al_done; /* ecs_create_bulk runs the hook twice: the changes are made once */
static void try_elsewhere(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    ecs_component pair[2];
    Val v = {40}, *p;
    uint32_t n = ecs_count(hw);
    if (al_done++) return;
    pair[0] = other;
    pair[1] = mate;
    CHECK_PTR_NE(ecs_add(hw, bystander, c, &v), NULL);          /* a replace: a value change */
    CHECK_PTR_NE((p = ECS_GET_MUT(hw, bystander, c, Val)), NULL);
    p->v += 15;                                            /* 55 */
    CHECK_PTR_NE(ecs_add(hw, bystander, other, &v), NULL);
    CHECK_PTR_NE(ECS_ADD(hw, al_target, other, Val, {41}), NULL);
    CHECK(ecs_add_n(hw, al_target, 2, pair, NULL));         /* Other is replaced by zeroes */
    CHECK(ecs_remove(hw, al_holder, other, NULL));
    if (!al_strip) CHECK_PTR_NE(ECS_ADD(hw, e, other, Val, {42}), NULL);
    CHECK((al_made[0] = ecs_create(hw)) != ECS_NULL && ECS_ADD(hw, al_made[0], other, Val, {43}) != NULL);
    CHECK_NE((al_made[1] = ecs_create_n(hw, 2, pair, NULL)), ECS_NULL);
    CHECK(ecs_create_bulk(hw, 3, 1, &other, NULL, al_made + 2));
    al_made[5] = ecs_defer_create(hw);
    CHECK(ecs_destroy(hw, al_victim));
    CHECK_EQ(ecs_strip(hw, al_stripee), 2);
    CHECK_EQ(ecs_count(hw), n + 6 - 1);
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_changing_other_storages_and_entities_is_allowed(void) {
    int t, k;
    setup(NO_GROUP);
    probe = try_elsewhere;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) {
        al_strip = (triggers[t].kind & IN_STRIP) != 0;
        al_done = 0;
        al_target = ecs_create(w);
        al_holder = ecs_create(w);
        ECS_ADD(w, al_holder, other, Val, {1});
        al_victim = ecs_create(w);
        ECS_ADD(w, al_victim, other, Val, {1});
        al_stripee = ecs_create(w);
        ECS_ADD(w, al_stripee, other, Val, {1});
        ECS_ADD(w, al_stripee, mate, Val, {1});
        FIRE(t);
        CHECK(ECS_GET(w, bystander, hooked, Val)->v == 55 && ECS_GET(w, bystander, other, Val)->v == 40);
        CHECK(ECS_GET(w, al_target, other, Val)->v == 0 && ecs_has(w, al_target, mate));
        CHECK(ecs_alive(w, al_holder) && !ecs_has(w, al_holder, other));
        CHECK(al_strip || t == 3 || ECS_GET(w, fired, other, Val)->v == 42); /* bulk: the first one got it */
        CHECK(ECS_GET(w, al_made[0], other, Val)->v == 43 && ecs_has(w, al_made[1], mate));
        for (k = 2; k < 5; k++) CHECK(ecs_alive(w, al_made[k]) && ecs_has(w, al_made[k], other));
        CHECK(ecs_alive(w, al_made[5]));
        CHECK(!ecs_alive(w, al_victim) && ecs_alive(w, al_stripee) && !ecs_has(w, al_stripee, mate));
        CHECK_PTR_NE(ecs_add(w, bystander, hooked, &seven), NULL); /* back to 7 for the next round */
        ECS_GET_MUT(w, bystander, hooked, Val)->v = 100;
    }
    teardown();
}

/* Registers 300 components each time it runs: the storage table grows
   under the very call that runs the hook (a destroy or strip walking it). */
#define NREG 300
static int reg_round;
static ecs_component reg_first[16];
static void try_register(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    char name[32];
    int i;
    reg_first[reg_round] = ecs_component_max(hw) + 1;
    for (i = 0; i < NREG; i++) {
        snprintf(name, sizeof name, "Late%d_%d", reg_round, i);
        CHECK_EQ(ecs_register(hw, name, (size_t)(i % 4 + 1) * 4, 4), reg_first[reg_round] + (ecs_component)i);
    }
    reg_round++;
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7 && ecs_has(hw, e, extra));
}

static void test_hook_registering_hundreds_of_components_is_allowed(void) {
    char name[32];
    ecs_entity user;
    int t, r, i;
    setup(NO_GROUP);
    probe = try_register;
    reg_round = 0;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    CHECK(reg_round == 13 && ecs_component_max(w) == 5 + 13 * NREG);
    user = ecs_create(w);
    for (r = 0; r < reg_round; r++)
        for (i = 0; i < NREG; i += 37) {
            ecs_component c = reg_first[r] + (ecs_component)i;
            snprintf(name, sizeof name, "Late%d_%d", r, i);
            CHECK(ecs_lookup(w, name) == c && ecs_component_size(w, c) == (size_t)(i % 4 + 1) * 4);
            CHECK(ecs_add(w, user, c, NULL) != NULL && ecs_has(w, user, c));
        }
    CHECK(ecs_destroy(w, user) && world_ok() && ECS_GET(w, bystander, hooked, Val)->v == 100);
    teardown();
}

/* Defers what it may not do now, its own entity's destruction included. */
static ecs_entity df_target, df_holder, df_holder2, df_victim, df_made;
static void try_defer(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    Val v = {5};
    CHECK((df_made = ecs_defer_create(hw)) != ECS_NULL && ecs_alive(hw, df_made));
    CHECK(ecs_defer_add(hw, df_target, c, &v));
    CHECK(ECS_DEFER_ADD(hw, df_made, other, Val, {3}));
    CHECK(ecs_defer_remove(hw, df_holder, c));
    CHECK(ecs_defer_delete(hw, df_holder2, other));
    CHECK(ecs_defer_destroy(hw, df_victim));
    CHECK(ecs_defer_destroy(hw, e));
    /* nothing is applied yet */
    CHECK(!ecs_has(hw, df_target, c) && ecs_has(hw, df_holder, c) && ecs_has(hw, df_holder2, other));
    CHECK(ecs_alive(hw, df_victim) && ecs_alive(hw, e) && ecs_get(hw, e, c) == value);
}

static void test_hook_deferring_commands_is_allowed_and_the_next_flush_applies_them(void) {
    int t;
    setup(NO_GROUP);
    probe = try_defer;
    e_may_die = 1;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) {
        df_target = ecs_create(w);
        df_holder = ecs_create(w);
        ECS_ADD(w, df_holder, hooked, Val, {1});
        df_holder2 = ecs_create(w);
        ECS_ADD(w, df_holder2, other, Val, {1});
        df_victim = ecs_create(w);
        FIRE(t);
        ecs_flush(w); /* a flush trigger applied them already */
        CHECK(ecs_defer_pending(w) == 0 && !ecs_alive(w, fired) && !ecs_alive(w, df_victim));
        CHECK(ECS_GET(w, df_target, hooked, Val)->v == 5 && ECS_GET(w, df_made, other, Val)->v == 3);
        CHECK(ecs_alive(w, df_holder) && !ecs_has(w, df_holder, hooked));
        CHECK(ecs_alive(w, df_holder2) && !ecs_has(w, df_holder2, other));
    }
    e_may_die = 0;
    teardown();
}

/* Makes a group of two storages nobody has locked, whose 3 common entities
   are packed at once. */
#define NPAIRS 16
static ecs_component pair_a[NPAIRS], pair_b[NPAIRS];
static ecs_entity pair_member[NPAIRS][3];
static ecs_group pair_group[NPAIRS];
static int pair_round;
static void try_group_new(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    ecs_group_desc gd;
    const ecs_entity *ents;
    ecs_group g;
    int k, j, found;
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = pair_a[pair_round];
    gd.owned[1] = pair_b[pair_round];
    CHECK((g = ecs_group_new(hw, &gd)) != 0 && ecs_group_count(hw, g) == 3);
    pair_group[pair_round] = g;
    ents = ecs_group_entities(hw, g);
    for (k = 0; k < 3; k++) {
        for (found = 0, j = 0; j < 3; j++) found += ents[j] == pair_member[pair_round][k];
        CHECK_EQ(found, 1);
    }
    pair_round++;
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_making_a_group_of_unlocked_storages_is_allowed(void) {
    char name[32];
    int t, k, i;
    setup(NO_GROUP);
    for (k = 0; k < NPAIRS; k++) {
        ecs_entity lone;
        snprintf(name, sizeof name, "PairA%d", k);
        pair_a[k] = ecs_register(w, name, sizeof(Val), ECS_ALIGNOF(Val));
        snprintf(name, sizeof name, "PairB%d", k);
        pair_b[k] = ecs_register(w, name, sizeof(Val), ECS_ALIGNOF(Val));
        lone = ecs_create(w);
        ECS_ADD(w, lone, pair_a[k], Val, {0}); /* only A: not a member */
        for (i = 0; i < 3; i++) {
            pair_member[k][i] = ecs_create(w);
            ECS_ADD(w, pair_member[k][i], pair_b[k], Val, {i});
            ECS_ADD(w, pair_member[k][i], pair_a[k], Val, {i});
        }
    }
    probe = try_group_new;
    pair_round = 0;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    CHECK_EQ(pair_round, 13);
    for (k = 0; k < pair_round; k++) {
        ecs_component o[2];
        o[0] = pair_a[k];
        o[1] = pair_b[k];
        CHECK(group_ok(pair_group[k], o, 2, 0) && ecs_group_count(w, pair_group[k]) == 3);
        CHECK(ECS_ADD(w, loner, pair_b[k], Val, {1}) != NULL && ECS_ADD(w, loner, pair_a[k], Val, {1}) != NULL);
        CHECK(ecs_group_count(w, pair_group[k]) == 4 && group_ok(pair_group[k], o, 2, 0)); /* it keeps working */
    }
    teardown();
}

static int sys_round;
static void try_system_new(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    char name[32], wname[32];
    const char *items[1];
    ecs_system_desc d;
    snprintf(name, sizeof name, "hooked_system%d", sys_round);
    snprintf(wname, sizeof wname, "hooked_workload%d", sys_round);
    items[0] = name;
    d = sys(name, tick_system);
    CHECK(ecs_system_new(hw, &d));
    CHECK(ecs_workload_new(hw, wname, 1, items));
    sys_round++;
    CHECK(ecs_get(hw, e, c) == value && ((Val *)value)->v == 7);
}

static void test_hook_adding_systems_and_workloads_is_allowed(void) {
    char wname[32];
    int t, k;
    setup(NO_GROUP);
    probe = try_system_new;
    sys_round = 0;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    CHECK_EQ(sys_round, 13);
    ran = 0;
    for (k = 0; k < sys_round; k++) {
        snprintf(wname, sizeof wname, "hooked_workload%d", k);
        CHECK(ecs_workload_run(w, wname) == 0 && ran == k + 1);
    }
    CHECK(ecs_workload_run(w, NULL) == 0 && ran == sys_round + 1); /* the first one is the default */
    teardown();
}

static void count_fn(ecs_iter *it, void *ctx) {
    (void)it;
    ++*(uint32_t *)ctx;
}

static void try_reads(ecs_world *hw, ecs_entity e, ecs_component c, void *value) {
    const ecs_storage *s = ecs_storage_of(hw, c);
    ecs_view_desc d;
    ecs_iter it;
    uint32_t n = 0, m = 0;
    CHECK(ecs_alive(hw, e) && ecs_has(hw, e, c) && ecs_get(hw, e, c) == value && ECS_GET(hw, e, c, Val)->v == 7);
    CHECK(ecs_storage_has(s, e) && ecs_storage_get(s, e) == value && ECS_GET(hw, e, extra, Val)->v == 7);
    CHECK(ECS_GET(hw, bystander, c, Val)->v == 100 && ECS_GET(hw, bystander, other, Val)->v == 102);
    CHECK(!ecs_has(hw, loner, c) && ecs_get(hw, loner, c) == NULL);
    CHECK_EQ(ecs_count(hw), count_inside);
    for (it = ecs_view_of(hw, 1, &c); ecs_iter_next(&it);) {
        CHECK_PTR_EQ(ecs_get(hw, ecs_iter_entity(&it), c), ECS_FIELD(&it, 0, Val));
        n++;
    }
    CHECK_EQ(n, ecs_storage_count(s));
    memset(&d, 0, sizeof d);
    d.terms[0].c = c;
    d.terms[1].c = extra;
    CHECK(ecs_visit(hw, &d, count_fn, &m) == m && m >= 2); /* bystander and e at least */
    CHECK(strcmp(ecs_component_name(hw, c), "Hooked") == 0 && ecs_lookup(hw, "Hooked") == c);
    CHECK(ecs_component_size(hw, c) == sizeof(Val) && ecs_track_get(hw, c) == 0);
    CHECK(!ecs_unique_has(hw, c) && ecs_defer_pending(hw) <= 1);
}

static void test_hook_reading_anything_is_allowed(void) {
    int t;
    setup(NO_GROUP);
    probe = try_reads;
    EACH_TRIGGER(t, ON_INSERT | ON_REMOVE) FIRE(t);
    teardown();
}

/* ---- sort comparators -------------------------------------------------------------- */
/* ecs_sort(w, Sorted, ...) locks Sorted; ecs_group_sort of the group that
   owns GKey and GMate locks both, for as long as the comparator runs. */

static ecs_component sorted, gkey, gmate;
static ecs_group sgroup;
static ecs_entity keeper; /* has Sorted, GKey, GMate, Other */
static int cmp_armed;
static void (*cmp_probe)(ecs_world *hw, const ecs_component *locked, int nlocked);
static const ecs_component *cmp_locked;
static int cmp_nlocked;

static int by_v(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx) {
    int x = ((const Val *)va)->v, y = ((const Val *)vb)->v;
    (void)a, (void)b, (void)ctx;
    if (cmp_armed > 0) {
        cmp_armed--;
        if (cmp_probe) cmp_probe(w, cmp_locked, cmp_nlocked);
    }
    return x < y ? -1 : x > y;
}

static const int shuffled[12] = {5, 3, 9, 1, 7, 2, 8, 0, 6, 4, 11, 10};

static void sort_setup(void) {
    int i;
    ecs_group_desc gd;
    w = ecs_world_new(NULL);
    sorted = ecs_register(w, "Sorted", sizeof(Val), ECS_ALIGNOF(Val));
    gkey = ecs_register(w, "GKey", sizeof(Val), ECS_ALIGNOF(Val));
    gmate = ecs_register(w, "GMate", sizeof(Val), ECS_ALIGNOF(Val));
    other = ecs_register(w, "Other", sizeof(Val), ECS_ALIGNOF(Val));
    memset(&gd, 0, sizeof gd);
    gd.owned[0] = gkey;
    gd.owned[1] = gmate;
    sgroup = ecs_group_new(w, &gd);
    for (i = 0; i < 12; i++) {
        ecs_entity e = ecs_create(w);
        ECS_ADD(w, e, sorted, Val, {shuffled[i]});
        ECS_ADD(w, e, gkey, Val, {shuffled[i]});
        ECS_ADD(w, e, gmate, Val, {shuffled[i] * 10});
    }
    keeper = ecs_create(w);
    ECS_ADD(w, keeper, sorted, Val, {6});
    ECS_ADD(w, keeper, gkey, Val, {6});
    ECS_ADD(w, keeper, gmate, Val, {60});
    ECS_ADD(w, keeper, other, Val, {1});
    loner = ecs_create(w);
    cmp_probe = NULL;
    cmp_armed = 0;
}

/* Rows 0..n-1 of c are in ascending order, every row is its entity's, and
   (mate != 0) mate holds 10 times the key at the same rows. */
static int sorted_ok(ecs_component c, uint32_t n, ecs_component m) {
    const ecs_storage *s = ecs_storage_of(w, c);
    const Val *v = (const Val *)ecs_storage_data(s);
    const ecs_entity *ents = ecs_storage_entities(s);
    uint32_t r;
    if (!storage_ok(c) || (m && !storage_ok(m))) return 0;
    for (r = 0; r + 1 < n; r++)
        if (v[r].v > v[r + 1].v) return 0;
    for (r = 0; m && r < n; r++)
        if (ecs_storage_entities(ecs_storage_of(w, m))[r] != ents[r] || ECS_GET(w, ents[r], m, Val)->v != v[r].v * 10)
            return 0;
    return 1;
}

/* Runs the sort (0: ecs_sort of Sorted, 1: ecs_group_sort by GKey) with
   the comparator armed for its first call, then checks the result. */
static const char *const sort_names[2] = {"ecs_sort", "ecs_group_sort"};
static void run_sort(int kind) {
    static ecs_component locked[2];
    locked[0] = kind ? gkey : sorted;
    locked[1] = gmate;
    cmp_locked = locked;
    cmp_nlocked = kind ? 2 : 1;
    cmp_armed = 1;
    if (kind == 0)
        CHECK(ecs_sort(w, sorted, by_v, NULL));
    else
        CHECK(ecs_group_sort(w, sgroup, gkey, by_v, NULL));
    CHECK_EQ(cmp_armed, 0);
    if (kind == 0)
        CHECK(sorted_ok(sorted, ecs_storage_count(ecs_storage_of(w, sorted)), 0));
    else
        CHECK(sorted_ok(gkey, ecs_group_count(w, sgroup), gmate));
}
#define RUN_SORT(kind)                                                                          \
    do {                                                                                        \
        run_sort(kind);                                                                         \
        if (test__failed) {                                                                     \
            printf("  (the comparator ran under %s)\n", sort_names[kind]);                      \
            return;                                                                             \
        }                                                                                       \
    } while (0)

static void try_rows_of_sorted(ecs_world *hw, const ecs_component *locked, int nlocked) {
    Val v = {5};
    ecs_entity ids[2];
    uint32_t n = ecs_count(hw);
    int k;
    for (k = 0; k < nlocked; k++) {
        ecs_component c = locked[k];
        const char *name = ecs_component_name(hw, c);
        uint32_t rows = ecs_storage_count(ecs_storage_of(hw, c));
        EXPECT_LOCKED(hw, ecs_add(hw, loner, c, &v) == NULL, "ecs_add", loner, name);
        EXPECT_LOCKED(hw, ECS_ADD(hw, loner, c, Val, {5}) == NULL, "ECS_ADD", loner, name);
        EXPECT_LOCKED(hw, !ecs_add_n(hw, loner, 1, &c, NULL), "ecs_add_n", loner, name);
        EXPECT_LOCKED(hw, !ecs_add_if_changed(hw, loner, c, &v), "ecs_add_if_changed", loner, name);
        EXPECT_LOCKED(hw, ecs_create_n(hw, 1, &c, NULL) == ECS_NULL, "ecs_create_n", ECS_NULL, name);
        EXPECT_LOCKED(hw, !ecs_create_bulk(hw, 2, 1, &c, NULL, ids), "ecs_create_bulk", ECS_NULL, name);
        EXPECT_LOCKED(hw, !ecs_remove(hw, keeper, c, NULL), "ecs_remove", keeper, name);
        EXPECT_LOCKED(hw, !ecs_delete(hw, keeper, c), "ecs_delete", keeper, name);
        CHECK(ecs_storage_count(ecs_storage_of(hw, c)) == rows && !ecs_has(hw, loner, c));
    }
    EXPECT_LOCKED(hw, ecs_strip(hw, keeper) == 0, "ecs_strip", keeper, NULL);
    EXPECT_LOCKED(hw, !ecs_destroy(hw, keeper), "ecs_destroy", keeper, NULL);
    CHECK(ecs_count(hw) == n && ecs_has(hw, keeper, sorted) && ecs_has(hw, keeper, gkey) && ecs_has(hw, keeper, gmate));
}

static void test_comparator_inserting_into_or_removing_from_the_sorted_storages_is_refused_locked(void) {
    int kind;
    for (kind = 0; kind < 2; kind++) {
        sort_setup();
        cmp_probe = try_rows_of_sorted;
        RUN_SORT(kind);
        CHECK(ecs_count(w) == 14 && ecs_has(w, keeper, sorted) && !ecs_has(w, loner, gkey));
        teardown();
    }
}

static void try_sort_again(ecs_world *hw, const ecs_component *locked, int nlocked) {
    if (nlocked == 1) {
        EXPECT_LOCKED(hw, !ecs_sort(hw, locked[0], by_v, NULL), "ecs_sort", ECS_NULL, "Sorted");
        EXPECT_LOCKED(hw, !ecs_sort_as(hw, locked[0], gkey), "ecs_sort_as", ECS_NULL, "Sorted");
    } else {
        EXPECT_LOCKED(hw, !ecs_group_sort(hw, sgroup, gkey, by_v, NULL), "ecs_group_sort", ECS_NULL, NULL);
        EXPECT_LOCKED(hw, !ecs_group_sort(hw, sgroup, gmate, by_v, NULL), "ecs_group_sort", ECS_NULL, NULL);
    }
}

static void test_comparator_sorting_the_storages_being_sorted_again_is_refused_locked(void) {
    int kind;
    for (kind = 0; kind < 2; kind++) {
        sort_setup();
        cmp_probe = try_sort_again;
        RUN_SORT(kind);
        teardown();
    }
}

static ecs_entity cq_holder, cq_target;
static void try_flush_in_sort(ecs_world *hw, const ecs_component *locked, int nlocked) {
    uint32_t pending = ecs_defer_pending(hw);
    (void)nlocked;
    EXPECT_LOCKED(hw, ecs_flush(hw) == 0, "ecs_flush", ECS_NULL, NULL);
    CHECK(ecs_defer_pending(hw) == pending && pending == 3);
    CHECK(ecs_has(hw, cq_holder, locked[0]) && !ecs_has(hw, cq_target, locked[0]) && !ecs_has(hw, cq_target, other));
}

static void test_comparator_flushing_is_refused_locked_and_drops_nothing(void) {
    int kind;
    for (kind = 0; kind < 2; kind++) {
        ecs_component key;
        sort_setup();
        key = kind ? gkey : sorted;
        cq_holder = keeper;
        cq_target = loner;
        CHECK(ecs_defer_delete(w, cq_holder, key) && ECS_DEFER_ADD(w, cq_target, key, Val, {77}));
        CHECK(ECS_DEFER_ADD(w, cq_target, other, Val, {78}));
        cmp_probe = try_flush_in_sort;
        RUN_SORT(kind);
        CHECK(ecs_flush(w) == 3 && ecs_defer_pending(w) == 0);
        CHECK(!ecs_has(w, cq_holder, key) && ECS_GET(w, cq_target, key, Val)->v == 77);
        CHECK(ECS_GET(w, cq_target, other, Val)->v == 78 && storage_ok(key));
        teardown();
    }
}

static void try_run_in_sort(ecs_world *hw, const ecs_component *locked, int nlocked) {
    int before = ran;
    (void)locked, (void)nlocked;
    EXPECT_LOCKED(hw, ecs_workload_run(hw, "frame") == -1, "ecs_workload_run", ECS_NULL, NULL);
    EXPECT_LOCKED(hw, ecs_workload_run(hw, NULL) == -1, "ecs_workload_run", ECS_NULL, NULL);
    CHECK_EQ(ran, before);
}

static void test_comparator_running_a_workload_is_refused_locked(void) {
    ecs_system_desc d;
    const char *items[1] = {"tick"};
    int kind;
    for (kind = 0; kind < 2; kind++) {
        sort_setup();
        d = sys("tick", tick_system);
        CHECK(ecs_system_new(w, &d) && ecs_workload_new(w, "frame", 1, items));
        ran = 0;
        cmp_probe = try_run_in_sort;
        RUN_SORT(kind);
        CHECK(ran == 0 && ecs_workload_run(w, "frame") == 0 && ran == 1);
        teardown();
    }
}

static void try_free_in_sort(ecs_world *hw, const ecs_component *locked, int nlocked) {
    uint32_t n = ecs_count(hw);
    (void)nlocked;
    EXPECT_FREE_REFUSED(hw);
    CHECK(ecs_count(hw) == n && ecs_has(hw, keeper, locked[0]));
}

static void test_comparator_freeing_the_world_is_refused_and_the_world_stays_usable(void) {
    int kind;
    for (kind = 0; kind < 2; kind++) {
        sort_setup();
        cmp_probe = try_free_in_sort;
        RUN_SORT(kind);
        CHECK(ecs_destroy(w, keeper) && ecs_count(w) == 13 && storage_ok(sorted) && storage_ok(gkey));
        teardown();
    }
}

static ecs_entity cs_victim, cs_made;
static void try_other_storages_in_sort(ecs_world *hw, const ecs_component *locked, int nlocked) {
    Val *p;
    (void)nlocked;
    CHECK_PTR_NE(ECS_ADD(hw, loner, other, Val, {3}), NULL);
    CHECK_PTR_NE(ECS_ADD(hw, ecs_storage_entities(ecs_storage_of(hw, locked[0]))[0], other, Val, {4}), NULL);
    CHECK(ecs_remove(hw, keeper, other, NULL));
    CHECK_NE((cs_made = ecs_create_n(hw, 1, &other, NULL)), ECS_NULL);
    CHECK(ecs_destroy(hw, cs_victim));
    CHECK_PTR_NE((p = ECS_GET_MUT(hw, cs_made, other, Val)), NULL);
    p->v = 9;
}

static void test_comparator_changing_other_storages_is_allowed(void) {
    int kind;
    for (kind = 0; kind < 2; kind++) {
        sort_setup();
        cs_victim = ecs_create(w);
        ECS_ADD(w, cs_victim, other, Val, {1});
        cmp_probe = try_other_storages_in_sort;
        RUN_SORT(kind);
        CHECK(ECS_GET(w, loner, other, Val)->v == 3 && !ecs_has(w, keeper, other));
        CHECK(ECS_GET(w, cs_made, other, Val)->v == 9 && !ecs_alive(w, cs_victim));
        CHECK(ecs_storage_count(ecs_storage_of(w, other)) == 3 && storage_ok(other));
        teardown();
    }
}

/* ---- systems and run_if ----------------------------------------------------------- */
/* The workload "frame": first, meddler (whose fn or run_if probes), last
   (structural: a batch of its own). Each logs its name when it runs. */

static char order[64];
static void (*sys_probe)(ecs_world *hw);
static int probe_in_run_if;

static void log_run(const char *name) {
    size_t n = strlen(order);
    snprintf(order + n, sizeof order - n, "%s%s", n ? " " : "", name);
}
static int logging_system(const ecs_system_ctx *ctx) {
    log_run(ctx->name);
    if (!probe_in_run_if && sys_probe && strcmp(ctx->name, "meddler") == 0) sys_probe(ctx->world);
    return 0;
}
static bool meddler_gate(const ecs_system_ctx *ctx) {
    if (probe_in_run_if && sys_probe) sys_probe(ctx->world);
    return true;
}

static void sys_setup(void (*p)(ecs_world *hw), int in_run_if) {
    ecs_system_desc d;
    const char *items[3] = {"first", "meddler", "last"}, *spare[1] = {"spare"};
    w = ecs_world_new(NULL);
    other = ecs_register(w, "Other", sizeof(Val), ECS_ALIGNOF(Val));
    d = sys("first", logging_system);
    ecs_system_new(w, &d);
    d = sys("meddler", logging_system);
    d.run_if = meddler_gate;
    ecs_system_new(w, &d);
    d = sys("last", logging_system);
    d.structural = true;
    ecs_system_new(w, &d);
    d = sys("spare", logging_system);
    ecs_system_new(w, &d);
    ecs_workload_new(w, "frame", 3, items);
    ecs_workload_new(w, "spare_frame", 1, spare);
    order[0] = 0;
    sys_probe = p;
    probe_in_run_if = in_run_if;
}

/* The frame ran first, meddler, last, once each, and returned 0. */
static void check_frame(int rc) {
    ecs_plan_step plan[4];
    CHECK_EQ(rc, 0);
    CHECK_STR_EQ(order, "first meddler last");
    CHECK_EQ(ecs_workload_plan(w, "frame", plan, 4), 3);
    CHECK(strcmp(plan[0].system, "first") == 0 && strcmp(plan[2].system, "last") == 0);
    CHECK(plan[0].batch == plan[1].batch && plan[2].batch == plan[1].batch + 1);
}

/* 20 tries each: enough to outgrow the system and workload arrays. */
static void try_new_systems(ecs_world *hw) {
    char name[32];
    const char *items[1] = {"first"};
    ecs_system_desc d;
    int i, refused = 0, named = 0, before = test__asserts;
    for (i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "late%d", i);
        d = sys(name, logging_system);
        ecs_clear_error(hw);
        refused += !ecs_system_new(hw, &d) && ecs_last_error(hw) == ECS_ERR_LOCKED;
        named += strncmp(test__assert_msg, "ecs_system_new", 14) == 0;
        ecs_clear_error(hw);
        refused += !ecs_workload_new(hw, name, 1, items) && ecs_last_error(hw) == ECS_ERR_LOCKED;
        named += strncmp(test__assert_msg, "ecs_workload_new", 16) == 0;
    }
    test__expected += test__asserts - before;
    CHECK(refused == 40 && named == 40 && test__asserts - before == 40);
}

static void test_system_or_run_if_adding_systems_or_workloads_is_refused_locked_and_the_run_completes(void) {
    const char *items[1] = {"late0"};
    ecs_system_desc d;
    int in_run_if;
    for (in_run_if = 0; in_run_if < 2; in_run_if++) {
        sys_setup(try_new_systems, in_run_if);
        check_frame(ecs_workload_run(w, "frame"));
        if (test__failed) {
            printf("  (probed from %s)\n", in_run_if ? "run_if" : "the system");
            return;
        }
        d = sys("late0", logging_system); /* nothing was added: the names are free */
        CHECK(ecs_system_new(w, &d) && ecs_workload_new(w, "late1", 1, items));
        order[0] = 0;
        check_frame(ecs_workload_run(w, "frame"));
        teardown();
    }
}

static void try_nested_run(ecs_world *hw) {
    EXPECT_REFUSED(hw, ecs_workload_run(hw, "spare_frame") == -1, ECS_ERR_INVALID, "ecs_workload_run", ECS_NULL, NULL);
    EXPECT_REFUSED(hw, ecs_workload_run(hw, NULL) == -1, ECS_ERR_INVALID, "ecs_workload_run", ECS_NULL, NULL);
}

static void test_system_or_run_if_running_a_workload_is_refused_invalid(void) {
    int in_run_if;
    for (in_run_if = 0; in_run_if < 2; in_run_if++) {
        sys_setup(try_nested_run, in_run_if);
        check_frame(ecs_workload_run(w, "frame")); /* spare never ran */
        if (test__failed) {
            printf("  (probed from %s)\n", in_run_if ? "run_if" : "the system");
            return;
        }
        teardown();
    }
}

static void try_free_in_system(ecs_world *hw) {
    EXPECT_FREE_REFUSED(hw);
    CHECK(ecs_component_max(hw) == 1 && ecs_lookup(hw, "Other") == other);
}

static void test_system_or_run_if_freeing_the_world_is_refused_and_the_run_completes(void) {
    int in_run_if;
    for (in_run_if = 0; in_run_if < 2; in_run_if++) {
        sys_setup(try_free_in_system, in_run_if);
        check_frame(ecs_workload_run(w, "frame"));
        if (test__failed) {
            printf("  (probed from %s)\n", in_run_if ? "run_if" : "the system");
            return;
        }
        order[0] = 0;
        check_frame(ecs_workload_run(w, "frame"));
        teardown();
    }
}

/* A structural system creates, adds, removes, destroys and defers; the
   deferred part is flushed after its batch, before the next batch runs. */
static ecs_entity st_made, st_victim, st_holder, st_deferred;
static int st_seen;
static int builder(const ecs_system_ctx *ctx) {
    ecs_world *hw = ctx->world;
    log_run(ctx->name);
    st_made = ecs_create(hw);
    if (!ECS_ADD(hw, st_made, other, Val, {1}) || !ecs_remove(hw, st_holder, other, NULL) ||
        !ecs_destroy(hw, st_victim) || !ecs_create_bulk(hw, 4, 1, &other, NULL, NULL))
        return 1;
    st_deferred = ecs_defer_create(hw);
    if (!ECS_DEFER_ADD(hw, st_deferred, other, Val, {2}) || !ecs_defer_destroy(hw, st_made)) return 2;
    return ecs_has(hw, st_deferred, other) ? 3 : 0; /* not yet */
}
static int checker(const ecs_system_ctx *ctx) {
    log_run(ctx->name);
    st_seen = ecs_has(ctx->world, st_deferred, other) && !ecs_alive(ctx->world, st_made);
    return 0;
}

static void test_structural_system_changing_the_world_is_allowed(void) {
    ecs_system_desc d;
    const char *items[2] = {"builder", "checker"};
    sys_setup(NULL, 0);
    d = sys("builder", builder);
    d.structural = true;
    CHECK(ecs_system_new(w, &d));
    d = sys("checker", checker);
    d.reads[0] = other;
    CHECK(ecs_system_new(w, &d) && ecs_workload_new(w, "build", 2, items));
    st_holder = ecs_create(w);
    ECS_ADD(w, st_holder, other, Val, {1});
    st_victim = ecs_create(w);
    st_seen = 0;
    CHECK(ecs_workload_run(w, "build") == 0 && strcmp(order, "builder checker") == 0);
    CHECK(st_seen && ecs_defer_pending(w) == 0);
    CHECK(!ecs_has(w, st_holder, other) && !ecs_alive(w, st_victim) && !ecs_alive(w, st_made));
    CHECK(ECS_GET(w, st_deferred, other, Val)->v == 2 && ecs_count(w) == 1 + 4 + 1);
    CHECK(ecs_storage_count(ecs_storage_of(w, other)) == 5 && storage_ok(other));
    teardown();
}

/* ---- ecs_visit ------------------------------------------------------------------------- */

/* ecs_world_free inside ecs_visit's fn is undefined, as freeing any array
   being walked (section 2): the loop reads the world after fn returns. */
static ecs_component pos, vel;
/* Pos.v is each original entity's number 0..19; visits[k] counts its visits.
   Per entity k, the fn: writes another entity's Pos, gives a Vel to another
   entity, gives Pos to a late entity (appended: above the walk, never
   visited), creates an entity with Pos (never visited), and then either
   destroys the current entity (k % 4 == 0), removes its Pos (k % 4 == 1),
   or defers the destruction of another entity (k % 4 == 2). */
#define NEACH 20
static ecs_entity ents[NEACH], late[NEACH], made[NEACH];
static int visits[NEACH], nmade, nlate, pokes[NEACH];
static void busy_fn(ecs_iter *it, void *ctx) {
    ecs_entity e = ecs_iter_entity(it);
    Val *p = ECS_FIELD(it, 0, Val);
    int k = p->v, j;
    (void)ctx;
    if (k < 0 || k >= NEACH || ents[k] != e) { /* a late or created entity: never visited */
        visits[0] += 1000;
        return;
    }
    visits[k]++;
    j = (k + 7) % NEACH;
    if (ecs_alive(w, ents[j]) && ecs_has(w, ents[j], pos)) {
        ECS_GET_MUT(w, ents[j], pos, Val)->v += 0; /* a write elsewhere: the value stays its number */
        pokes[j]++;
    }
    if (ecs_alive(w, ents[j])) CHECK_PTR_NE(ECS_ADD(w, ents[j], vel, Val, {k}), NULL);
    CHECK_PTR_NE(ECS_ADD(w, late[nlate], pos, Val, {-1}), NULL);
    nlate++;
    CHECK_NE((made[nmade] = ecs_create_n(w, 1, &pos, NULL)), ECS_NULL);
    ECS_GET_MUT(w, made[nmade], pos, Val)->v = -2;
    nmade++;
    if (k % 4 == 0)
        CHECK(ecs_destroy(w, e));
    else if (k % 4 == 1)
        CHECK(ecs_remove(w, e, pos, NULL));
    else if (k % 4 == 2)
        CHECK(ecs_defer_destroy(w, ents[(k + 1) % NEACH]));
}

static void test_each_fn_follows_the_rules_of_iteration(void) {
    ecs_view_desc d;
    int k;
    w = ecs_world_new(NULL);
    pos = ecs_register(w, "Pos", sizeof(Val), ECS_ALIGNOF(Val));
    vel = ecs_register(w, "Vel", sizeof(Val), ECS_ALIGNOF(Val));
    for (k = 0; k < NEACH; k++) {
        ents[k] = ecs_create(w);
        ECS_ADD(w, ents[k], pos, Val, {k});
        late[k] = ecs_create(w);
        visits[k] = pokes[k] = 0;
    }
    nmade = nlate = 0;
    memset(&d, 0, sizeof d);
    d.terms[0].c = pos;
    d.terms[0].flags = ECS_WRITE;
    d.terms[1].c = vel;
    d.terms[1].flags = ECS_OPTIONAL;
    CHECK_EQ(ecs_visit(w, &d, busy_fn, NULL), NEACH);
    for (k = 0; k < NEACH; k++) CHECK_EQ(visits[k], 1); /* each once, nothing created visited */
    CHECK(nmade == NEACH && nlate == NEACH);
    CHECK_EQ(ecs_defer_pending(w), NEACH / 4);
    CHECK_EQ(ecs_flush(w), NEACH / 4); /* the deferred destructions: (k+1) for k % 4 == 2 are all alive */
    for (k = 0; k < NEACH; k++) {
        int destroyed = k % 4 == 0 || k % 4 == 3;
        CHECK_EQ(ecs_alive(w, ents[k]), !destroyed);
        CHECK(destroyed || ecs_has(w, ents[k], pos) == (k % 4 != 1));
        CHECK(ECS_GET(w, late[k], pos, Val)->v == -1 && ECS_GET(w, made[k], pos, Val)->v == -2);
    }
    CHECK(storage_ok(pos) && storage_ok(vel) && ecs_count(w) == 3 * NEACH - NEACH / 2);
    teardown();
}


int main(int argc, char **argv) {
    test_only(argc, argv);
    /* hooks: refused */
    RUN(test_hook_inserting_into_or_removing_from_its_own_storage_is_refused_locked);
    RUN(test_hook_changing_the_storages_of_its_storages_group_is_refused_locked);
    RUN(test_hook_destroying_or_stripping_its_own_entity_is_refused_locked);
    RUN(test_hook_adding_to_its_entity_while_it_is_stripped_or_destroyed_is_refused_locked);
    RUN(test_hook_sorting_or_rehooking_or_grouping_its_own_storage_is_refused_locked);
    RUN(test_hook_sorting_its_storages_group_is_refused_locked);
    RUN(test_hook_changing_its_storages_tracking_is_refused_locked);
    RUN(test_hook_flushing_is_refused_locked_and_drops_nothing);
    RUN(test_hook_running_a_workload_is_refused_locked);
    RUN(test_hook_freeing_the_world_is_refused_and_the_world_stays_usable);
    /* hooks: allowed */
    RUN(test_hook_changing_other_storages_and_entities_is_allowed);
    RUN(test_hook_registering_hundreds_of_components_is_allowed);
    RUN(test_hook_deferring_commands_is_allowed_and_the_next_flush_applies_them);
    RUN(test_hook_making_a_group_of_unlocked_storages_is_allowed);
    RUN(test_hook_adding_systems_and_workloads_is_allowed);
    RUN(test_hook_reading_anything_is_allowed);
    /* comparators */
    RUN(test_comparator_inserting_into_or_removing_from_the_sorted_storages_is_refused_locked);
    RUN(test_comparator_sorting_the_storages_being_sorted_again_is_refused_locked);
    RUN(test_comparator_flushing_is_refused_locked_and_drops_nothing);
    RUN(test_comparator_running_a_workload_is_refused_locked);
    RUN(test_comparator_freeing_the_world_is_refused_and_the_world_stays_usable);
    RUN(test_comparator_changing_other_storages_is_allowed);
    /* systems and run_if */
    RUN(test_system_or_run_if_adding_systems_or_workloads_is_refused_locked_and_the_run_completes);
    RUN(test_system_or_run_if_running_a_workload_is_refused_invalid);
    RUN(test_system_or_run_if_freeing_the_world_is_refused_and_the_run_completes);
    RUN(test_structural_system_changing_the_world_is_allowed);
    /* ecs_visit; last: while ecs_world_free is not refused there, the walk
       reads the freed world (use after free under ASan) */
    RUN(test_each_fn_follows_the_rules_of_iteration);
    teardown();
    return test_summary();
}
