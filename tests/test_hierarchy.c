/* examples/hierarchy.h: the Shipyard recipe's scenarios (test_hierarchy,
   test_sorting) with their exact sequences, the rules the header adds
   (no cycles, what destroying a member does, subtree removal without
   recursion), the transform pass, the parent-first order it runs on
   (after every kind of edit) and the pass over what moved, and a
   randomized run against a plain parent-array model that checks every
   structural invariant after every step; run again with transforms, it
   also checks the order and both passes against a walk of the tree.

   The randomized tests run a fixed list of seeds. For more, one at a time:
       SEED=123 ./build/plain/test_hierarchy
       SEED=123 STEPS=100000 ./build/plain/test_hierarchy
   A failure names its seed and step. */
#include "test.h"
#include "../ecs.h"
#include "../examples/hierarchy.h"

static ecs_world *w;
static hierarchy h;

static void setup(void) {
    w = ecs_world_new(NULL);
    hierarchy_init(&h, w);
}

/* The iterator yields exactly want[0..n), in that order. */
static int yields(hierarchy_iter it, const ecs_entity *want, size_t n) {
    size_t i = 0;
    while (hierarchy_next(&it))
        if (i >= n || it.entity != want[i++]) return 0;
    return i == n;
}
#define YIELDS(iter, ...) \
    yields((iter), (ecs_entity[]){__VA_ARGS__}, sizeof((ecs_entity[]){__VA_ARGS__}) / sizeof(ecs_entity))
#define YIELDS_NOTHING(iter) yields((iter), NULL, 0)

static const Child *child_of(ecs_entity e) { return ECS_GET(w, e, h.child, Child); }
static const Parent *parent_of(ecs_entity e) { return ECS_GET(w, e, h.parent, Parent); }

/* --- the recipe ------------------------------------------------------------ */

static ecs_entity root1, root2, e1, e2, e3, e4, e5;

/* The recipe's usage example: e3 (with e4) moves from e1 to root2. */
static void build_recipe_tree(void) {
    setup();
    root1 = ecs_create(w);
    root2 = ecs_create(w);
    e1 = hierarchy_attach_new(&h, root1);
    e2 = hierarchy_attach_new(&h, e1);
    e3 = hierarchy_attach_new(&h, e1);
    e4 = hierarchy_attach_new(&h, e3);
    hierarchy_attach(&h, e3, root2);
    e5 = hierarchy_attach_new(&h, e3);
}

static void test_recipe_attach_moves_a_subtree_and_the_iterators_walk_in_order(void) {
    build_recipe_tree();
    CHECK(YIELDS(hierarchy_children(&h, e3), e4, e5));
    CHECK(YIELDS(hierarchy_ancestors(&h, e4), e3, root2));
    CHECK(YIELDS(hierarchy_descendants(&h, root1), e1, e2));
    CHECK(YIELDS(hierarchy_descendants(&h, root2), e3, e4, e5));
    CHECK(YIELDS(hierarchy_children(&h, e1), e2));
    CHECK(parent_of(e1)->count == 1 && parent_of(e3)->count == 2 && parent_of(root2)->count == 1);
    CHECK(hierarchy_parent_of(&h, e3) == root2 && hierarchy_parent_of(&h, root2) == ECS_NULL);
    ecs_world_free(w);
}

static void test_recipe_detach_remove_and_remove_all(void) {
    build_recipe_tree();
    CHECK(hierarchy_detach(&h, e1));
    CHECK(YIELDS_NOTHING(hierarchy_descendants(&h, root1)));
    CHECK(YIELDS_NOTHING(hierarchy_ancestors(&h, e1)));
    CHECK(YIELDS(hierarchy_children(&h, e1), e2));
    CHECK(!ecs_has(w, root1, h.parent)); /* its last child left */
    CHECK(!hierarchy_detach(&h, e1));     /* no parent any more */

    hierarchy_remove(&h, e1);
    CHECK(YIELDS_NOTHING(hierarchy_children(&h, e1)));
    CHECK(!ecs_has(w, e2, h.child) && !ecs_has(w, e1, h.parent)); /* e2 is a root now */

    hierarchy_remove_all(&h, root2);
    CHECK(YIELDS_NOTHING(hierarchy_descendants(&h, root2)));
    CHECK(YIELDS_NOTHING(hierarchy_descendants(&h, e3)));
    CHECK(YIELDS_NOTHING(hierarchy_ancestors(&h, e5)));
    /* remove_all leaves the entities alive, without hierarchy components */
    CHECK(ecs_alive(w, root2) && ecs_alive(w, e3) && ecs_alive(w, e4) && ecs_alive(w, e5));
    CHECK(ecs_storage_count(ecs_storage_of(w, h.parent)) == 0 && ecs_storage_count(ecs_storage_of(w, h.child)) == 0);
    CHECK_EQ(ecs_count(w), 7);
    ecs_world_free(w);
}

typedef struct { size_t n; } Usize;

static int by_usize(ecs_entity a, ecs_entity b, void *ctx) {
    ecs_component c = *(const ecs_component *)ctx;
    size_t x = ECS_GET(w, a, c, Usize)->n, y = ECS_GET(w, b, c, Usize)->n;
    return (x > y) - (x < y);
}

static void test_recipe_sorting(void) {
    ecs_entity root, k[5];
    ecs_component usize;
    const size_t values[5] = {7, 5, 6, 1, 3};
    int i;
    setup();
    usize = ECS_COMPONENT(w, Usize);
    root = ecs_create(w);
    for (i = 0; i < 5; i++) k[i] = hierarchy_attach_new(&h, root);
    for (i = 0; i < 5; i++) ECS_ADD(w, k[i], usize, Usize, {values[i]});
    CHECK(YIELDS(hierarchy_children(&h, root), k[0], k[1], k[2], k[3], k[4]));
    CHECK(hierarchy_sort_children_by(&h, root, by_usize, &usize));
    CHECK(YIELDS(hierarchy_children(&h, root), k[3], k[4], k[1], k[2], k[0]));
    CHECK_EQ(parent_of(root)->first_child, k[3]);
    CHECK(child_of(k[3])->prev == k[0] && child_of(k[0])->next == k[3]); /* still a ring */
    ecs_world_free(w);
}

static void test_sort_is_stable_and_ignores_childless_entities(void) {
    ecs_entity root, k[6];
    ecs_component usize;
    const size_t values[6] = {2, 1, 2, 1, 2, 1};
    int i;
    setup();
    usize = ECS_COMPONENT(w, Usize);
    root = ecs_create(w);
    for (i = 0; i < 6; i++) {
        k[i] = hierarchy_attach_new(&h, root);
        ECS_ADD(w, k[i], usize, Usize, {values[i]});
    }
    CHECK(hierarchy_sort_children_by(&h, root, by_usize, &usize));
    CHECK(YIELDS(hierarchy_children(&h, root), k[1], k[3], k[5], k[0], k[2], k[4]));
    CHECK(hierarchy_sort_children_by(&h, k[0], by_usize, &usize)); /* no children: nothing to do */
    CHECK(!ecs_has(w, k[0], h.parent));
    ecs_world_free(w);
}

/* --- attaching ------------------------------------------------------------- */

static void test_attach_appends_to_a_circular_sibling_ring(void) {
    ecs_entity p, a, b, c;
    setup();
    p = ecs_create(w);
    a = hierarchy_attach_new(&h, p);
    CHECK(parent_of(p)->count == 1 && parent_of(p)->first_child == a);
    CHECK(child_of(a)->parent == p && child_of(a)->prev == a && child_of(a)->next == a);
    b = hierarchy_attach_new(&h, p);
    CHECK(child_of(a)->next == b && child_of(a)->prev == b);
    CHECK(child_of(b)->next == a && child_of(b)->prev == a);
    c = hierarchy_attach_new(&h, p);
    CHECK(parent_of(p)->count == 3 && parent_of(p)->first_child == a);
    CHECK(child_of(a)->next == b && child_of(b)->next == c && child_of(c)->next == a);
    CHECK(child_of(a)->prev == c && child_of(c)->prev == b && child_of(b)->prev == a);
    /* attaching to the same parent again moves it to the end */
    CHECK_EQ(hierarchy_attach(&h, a, p), HIERARCHY_OK);
    CHECK(YIELDS(hierarchy_children(&h, p), b, c, a));
    CHECK(parent_of(p)->count == 3 && parent_of(p)->first_child == b);
    ecs_world_free(w);
}

static void test_attach_refuses_self_and_cycles_and_changes_nothing(void) {
    ecs_entity a, b, c, d;
    setup();
    a = ecs_create(w);
    b = hierarchy_attach_new(&h, a);
    c = hierarchy_attach_new(&h, b);
    d = hierarchy_attach_new(&h, b);
    CHECK_EQ(hierarchy_attach(&h, a, a), HIERARCHY_SELF);
    CHECK_EQ(hierarchy_attach(&h, b, b), HIERARCHY_SELF);
    CHECK_EQ(hierarchy_attach(&h, a, c), HIERARCHY_CYCLE); /* c is below a */
    CHECK_EQ(hierarchy_attach(&h, b, d), HIERARCHY_CYCLE);
    CHECK_EQ(hierarchy_attach(&h, a, b), HIERARCHY_CYCLE);
    CHECK_PTR_NE(strstr(hierarchy_result_str(HIERARCHY_CYCLE), "cycle"), NULL);
    /* nothing moved */
    CHECK(YIELDS(hierarchy_descendants(&h, a), b, c, d));
    CHECK(YIELDS(hierarchy_ancestors(&h, d), b, a));
    CHECK(!ecs_has(w, a, h.child));
    CHECK(parent_of(a)->count == 1 && parent_of(b)->count == 2);
    CHECK(ecs_storage_count(ecs_storage_of(w, h.parent)) == 2 && ecs_storage_count(ecs_storage_of(w, h.child)) == 3);
    /* a sibling or an ancestor's sibling is fine */
    CHECK_EQ(hierarchy_attach(&h, c, d), HIERARCHY_OK);
    CHECK(YIELDS(hierarchy_descendants(&h, a), b, d, c));
    ecs_world_free(w);
}

static void test_attach_refuses_dead_entities(void) {
    ecs_entity a, b, stale;
    setup();
    a = ecs_create(w);
    b = ecs_create(w);
    stale = ecs_create(w);
    ecs_destroy(w, stale);
    CHECK_EQ(hierarchy_attach(&h, a, stale), HIERARCHY_DEAD);
    CHECK_EQ(hierarchy_attach(&h, stale, a), HIERARCHY_DEAD);
    CHECK_EQ(hierarchy_attach(&h, a, ECS_NULL), HIERARCHY_DEAD);
    CHECK_EQ(hierarchy_attach_new(&h, stale), ECS_NULL);
    CHECK(ecs_count(w) == 2 && ecs_storage_count(ecs_storage_of(w, h.parent)) == 0 && ecs_storage_count(ecs_storage_of(w, h.child)) == 0);
    CHECK_EQ(hierarchy_attach(&h, a, b), HIERARCHY_OK);
    ecs_world_free(w);
}

static void test_descendants_are_depth_first_pre_order(void) {
    /*        r
            / | \
           a  b  c
          /|     |
         d e     f
         |      / \
         g     h   i      */
    ecs_entity r, a, b, c, d, e, f, g, hh, i;
    setup();
    r = ecs_create(w);
    a = hierarchy_attach_new(&h, r);
    b = hierarchy_attach_new(&h, r);
    c = hierarchy_attach_new(&h, r);
    d = hierarchy_attach_new(&h, a);
    e = hierarchy_attach_new(&h, a);
    f = hierarchy_attach_new(&h, c);
    g = hierarchy_attach_new(&h, d);
    hh = hierarchy_attach_new(&h, f);
    i = hierarchy_attach_new(&h, f);
    CHECK(YIELDS(hierarchy_descendants(&h, r), a, d, g, e, b, c, f, hh, i));
    CHECK(YIELDS(hierarchy_descendants(&h, a), d, g, e));
    CHECK(YIELDS(hierarchy_descendants(&h, c), f, hh, i));
    CHECK(YIELDS_NOTHING(hierarchy_descendants(&h, g)));
    CHECK(YIELDS(hierarchy_ancestors(&h, i), f, c, r));
    CHECK(YIELDS(hierarchy_children(&h, r), a, b, c));
    CHECK(hierarchy_is_ancestor(&h, r, g) && hierarchy_is_ancestor(&h, d, g) && !hierarchy_is_ancestor(&h, c, g));
    ecs_world_free(w);
}

/* A chain far deeper than any C stack would allow recursion for. */
static void test_deep_chains_walk_and_remove_without_recursion(void) {
    enum { DEPTH = 20000 };
    ecs_entity top, e, last = ECS_NULL;
    hierarchy_iter it;
    int n = 0;
    setup();
    top = e = ecs_create(w);
    while (n++ < DEPTH) e = last = hierarchy_attach_new(&h, e);
    for (n = 0, it = hierarchy_descendants(&h, top); hierarchy_next(&it); n++) {}
    CHECK(n == DEPTH && it.entity == last);
    for (n = 0, it = hierarchy_ancestors(&h, last); hierarchy_next(&it); n++) {}
    CHECK(n == DEPTH && it.entity == top);
    hierarchy_destroy_all(&h, top);
    CHECK(ecs_count(w) == 0 && ecs_storage_count(ecs_storage_of(w, h.parent)) == 0 && ecs_storage_count(ecs_storage_of(w, h.child)) == 0);
    ecs_world_free(w);
}

/* --- destroying ------------------------------------------------------------ */

/*   r -> a, m, b;  m -> x, y;  x -> z   (m in the middle of r's ring) */
static ecs_entity r, a, m, b, x, y, z;
static void build_family(void) {
    setup();
    r = ecs_create(w);
    a = hierarchy_attach_new(&h, r);
    m = hierarchy_attach_new(&h, r);
    b = hierarchy_attach_new(&h, r);
    x = hierarchy_attach_new(&h, m);
    y = hierarchy_attach_new(&h, m);
    z = hierarchy_attach_new(&h, x);
}

/* After m left in any of the ways below: m's siblings closed ranks and its
   children are roots that kept their own subtrees. */
static int m_is_gone_and_its_children_are_roots(void) {
    return YIELDS(hierarchy_children(&h, r), a, b) && parent_of(r)->count == 2 &&
           child_of(a)->next == b && child_of(b)->next == a && child_of(a)->prev == b &&
           !ecs_has(w, x, h.child) && !ecs_has(w, y, h.child) && YIELDS(hierarchy_descendants(&h, x), z) &&
           ecs_storage_count(ecs_storage_of(w, h.child)) == 3 && ecs_storage_count(ecs_storage_of(w, h.parent)) == 2;
}

static void test_destroying_a_member_detaches_it_and_orphans_its_children(void) {
    build_family();
    CHECK(ecs_destroy(w, m));
    CHECK(!ecs_alive(w, m));
    CHECK(m_is_gone_and_its_children_are_roots());
    /* the first child: first_child moves on */
    CHECK(ecs_destroy(w, a));
    CHECK(parent_of(r)->first_child == b && parent_of(r)->count == 1);
    CHECK(child_of(b)->next == b && child_of(b)->prev == b);
    /* the last child: the parent stops being one */
    CHECK(ecs_destroy(w, b));
    CHECK(!ecs_has(w, r, h.parent));
    /* a root with children */
    CHECK(ecs_destroy(w, x));
    CHECK(!ecs_has(w, z, h.child) && ecs_storage_count(ecs_storage_of(w, h.parent)) == 0 && ecs_storage_count(ecs_storage_of(w, h.child)) == 0);
    ecs_world_free(w);
}

static void test_strip_does_the_same_and_keeps_the_entity(void) {
    build_family();
    CHECK_EQ(ecs_strip(w, m), 2); /* Parent and Child */
    CHECK(ecs_alive(w, m) && !ecs_has(w, m, h.child) && !ecs_has(w, m, h.parent));
    CHECK(m_is_gone_and_its_children_are_roots());
    ecs_world_free(w);
}

static void test_a_deferred_destroy_does_the_same_when_flushed(void) {
    ecs_iter it;
    ecs_component only_child[1];
    int n = 0;
    build_family();
    /* a loop over Child destroys other entities through the command buffer */
    only_child[0] = h.child;
    for (it = ecs_view_of(w, 1, only_child); ecs_iter_next(&it); n++)
        if (ecs_iter_entity(&it) == x) CHECK(ecs_defer_destroy(w, m));
    CHECK(n == 6 && ecs_alive(w, m) && YIELDS(hierarchy_children(&h, r), a, m, b));
    CHECK_EQ(ecs_flush(w), 1);
    CHECK(!ecs_alive(w, m));
    CHECK(m_is_gone_and_its_children_are_roots());
    ecs_world_free(w);
}

static void test_hierarchy_remove_and_deleting_parent_orphan_the_children(void) {
    build_family();
    hierarchy_remove(&h, m);
    CHECK(ecs_alive(w, m));
    CHECK(m_is_gone_and_its_children_are_roots());
    ecs_world_free(w);
    /* deleting the Parent alone: children orphaned, m stays attached */
    build_family();
    CHECK(ecs_delete(w, m, h.parent));
    CHECK(YIELDS(hierarchy_children(&h, r), a, m, b));
    CHECK(!ecs_has(w, x, h.child) && !ecs_has(w, y, h.child) && YIELDS(hierarchy_children(&h, x), z));
    ecs_world_free(w);
}

static void test_destroy_all_destroys_exactly_the_subtree(void) {
    build_family();
    hierarchy_destroy_all(&h, m);
    CHECK(!ecs_alive(w, m) && !ecs_alive(w, x) && !ecs_alive(w, y) && !ecs_alive(w, z));
    CHECK(ecs_alive(w, r) && ecs_alive(w, a) && ecs_alive(w, b) && ecs_count(w) == 3);
    CHECK(YIELDS(hierarchy_descendants(&h, r), a, b));
    CHECK(ecs_storage_count(ecs_storage_of(w, h.child)) == 2 && ecs_storage_count(ecs_storage_of(w, h.parent)) == 1);
    hierarchy_destroy_all(&h, r);
    CHECK_EQ(ecs_count(w), 0);
    hierarchy_destroy_all(&h, r); /* a dead id: nothing */
    ecs_world_free(w);
}

static void test_remove_all_keeps_the_subtree_alive_and_detached(void) {
    build_family();
    hierarchy_remove_all(&h, m);
    CHECK_EQ(ecs_count(w), 7);
    CHECK(YIELDS(hierarchy_descendants(&h, r), a, b));
    CHECK(!ecs_has(w, m, h.child) && !ecs_has(w, m, h.parent) && !ecs_has(w, x, h.parent));
    CHECK(!ecs_has(w, z, h.child) && ecs_storage_count(ecs_storage_of(w, h.child)) == 2);
    ecs_world_free(w);
}

/* --- transforms ------------------------------------------------------------ */

static ecs_component local, world;

static ecs_entity placed(ecs_entity e, float px, float py, float angle) {
    ECS_ADD(w, e, local, Transform, {px, py, angle});
    ECS_ADD(w, e, world, WorldTransform, {0, 0, 0});
    return e;
}

static int near(float v, float want) { return v > want - 1e-4f && v < want + 1e-4f; }
static int at(ecs_entity e, float px, float py) {
    const WorldTransform *t = ECS_GET(w, e, world, WorldTransform);
    return near(t->x, px) && near(t->y, py);
}

static void test_transforms_are_computed_parents_before_children(void) {
    enum { N = 8 };
    ecs_entity chain[N];
    int i;
    setup();
    local = ECS_COMPONENT(w, Transform);
    world = ECS_COMPONENT(w, WorldTransform);
    /* created leaf first, so storage order is children before parents */
    for (i = N - 1; i >= 0; i--) chain[i] = placed(ecs_create(w), 1, 0, 0);
    for (i = 1; i < N; i++) CHECK_EQ(hierarchy_attach(&h, chain[i], chain[i - 1]), HIERARCHY_OK);
    hierarchy_update_transforms(&h, local, world);
    for (i = 0; i < N; i++) CHECK(at(chain[i], (float)(i + 1), 0));
    ecs_world_free(w);
}

static void test_moving_turning_or_reattaching_a_parent_moves_its_subtree(void) {
    ecs_entity sun, planet, moon, other;
    const float quarter = 1.57079633f;
    setup();
    local = ECS_COMPONENT(w, Transform);
    world = ECS_COMPONENT(w, WorldTransform);
    sun = placed(ecs_create(w), 5, 5, 0);
    planet = placed(hierarchy_attach_new(&h, sun), 10, 0, 0);
    moon = placed(hierarchy_attach_new(&h, planet), 2, 1, 0);
    other = placed(ecs_create(w), -100, 0, 0);
    hierarchy_update_transforms(&h, local, world);
    CHECK(at(sun, 5, 5) && at(planet, 15, 5) && at(moon, 17, 6));
    ECS_GET_MUT(w, sun, local, Transform)->x = 0; /* move the root */
    hierarchy_update_transforms(&h, local, world);
    CHECK(at(planet, 10, 5) && at(moon, 12, 6));
    ECS_GET_MUT(w, sun, local, Transform)->angle = quarter; /* turn it a quarter */
    hierarchy_update_transforms(&h, local, world);
    CHECK(at(planet, 0, 15) && at(moon, -1, 17)); /* (2, 1) turned a quarter: (-1, 2) */
    ECS_GET_MUT(w, planet, local, Transform)->angle = quarter; /* the moon: half a turn */
    hierarchy_update_transforms(&h, local, world);
    CHECK(at(moon, -2, 14) && near(ECS_GET(w, moon, world, WorldTransform)->angle, 2 * quarter));
    CHECK_EQ(hierarchy_attach(&h, planet, other), HIERARCHY_OK); /* the moon comes along */
    hierarchy_update_transforms(&h, local, world);
    CHECK(at(planet, -90, 0) && at(moon, -91, 2));
    ecs_world_free(w);
}

/* --- parent-first order ------------------------------------------------------
   hierarchy_transforms_init keeps the placed entities (Transform and
   WorldTransform) in a plan of steps, parents first; every edit below must
   leave it true, and the passes over it must give what walking the tree
   gives. */

static void setup_placed(void) {
    setup();
    local = ECS_COMPONENT(w, Transform);
    world = ECS_COMPONENT(w, WorldTransform);
    hierarchy_transforms_init(&h, local, world);
}

static int is_placed(ecs_entity e) { return e && ecs_has(w, e, local) && ecs_has(w, e, world); }

/* e's row in the world storage (the placed entities are its first rows). */
static uint32_t row_of(ecs_entity e) {
    const ecs_storage *s = ecs_storage_of(w, world);
    const WorldTransform *v = ECS_STORAGE_GET(s, e, WorldTransform);
    return v ? (uint32_t)(v - (const WorldTransform *)ecs_storage_data(s)) : HIERARCHY_NONE;
}

/* NULL if hierarchy_plan_all lists every placed entity exactly once, each
   with its parent's row when the parent is placed (else NONE), after its
   parent's step; else what is wrong. Clears the moved marks. */
static const char *plan_error(void) {
    static uint32_t pos[256];
    const ecs_storage *s = ecs_storage_of(w, world);
    const ecs_entity *ents = ecs_storage_entities(s);
    const hierarchy_step *st;
    uint32_t n, i, len = 0;
    while (len < ecs_storage_count(s) && ecs_has(w, ents[len], local)) len++;
    for (i = len; i < ecs_storage_count(s); i++)
        if (ecs_has(w, ents[i], local)) return "a placed entity outside the first rows";
    if (len > 256) return "too many for this check";
    for (i = 0; i < len; i++) pos[i] = HIERARCHY_NONE;
    if (!(st = hierarchy_plan_all(&h, &n))) return "no plan";
    for (i = 0; i < n; i++) {
        ecs_entity p;
        uint32_t want;
        if (st[i].row == HIERARCHY_NONE) continue;
        if (st[i].row >= len) return "a step past the placed rows";
        if (pos[st[i].row] != HIERARCHY_NONE) return "two steps for one row";
        pos[st[i].row] = i;
        p = hierarchy_parent_of(&h, ents[st[i].row]);
        want = is_placed(p) ? row_of(p) : HIERARCHY_NONE;
        if (st[i].up != want) return "a step's up is not its parent's row";
        if (want != HIERARCHY_NONE && pos[want] == HIERARCHY_NONE) return "a child's step before its parent's";
    }
    for (i = 0; i < len; i++)
        if (pos[i] == HIERARCHY_NONE) return "a placed entity without a step";
    return NULL;
}

/* What e's WorldTransform must be: walking up the tree, as the pass did
   before the plan (a parent that is not placed counts as the origin). */
static WorldTransform expected(ecs_entity e) {
    static const WorldTransform origin = {0, 0, 0};
    ecs_entity p = hierarchy_parent_of(&h, e);
    return transform_combine(is_placed(p) ? expected(p) : origin, *ECS_GET(w, e, local, Transform));
}

static int close_to(float v, float want) {
    float d = v > want ? v - want : want - v, m = want < 0 ? -want : want;
    return d <= 1e-3f * (m > 1 ? m : 1);
}
static int world_is_right(ecs_entity e) {
    const WorldTransform *t = ECS_GET(w, e, world, WorldTransform);
    WorldTransform want = expected(e);
    return close_to(t->x, want.x) && close_to(t->y, want.y) && close_to(t->angle, want.angle);
}
/* Every placed entity's WorldTransform is right. */
static int worlds_are_right(void) {
    const ecs_storage *s = ecs_storage_of(w, world);
    uint32_t i;
    for (i = 0; i < ecs_storage_count(s); i++)
        if (is_placed(ecs_storage_entities(s)[i]) && !world_is_right(ecs_storage_entities(s)[i])) return 0;
    return 1;
}

static ecs_entity spawn(ecs_entity parent, float px) {
    return placed(parent ? hierarchy_attach_new(&h, parent) : ecs_create(w), px, 1, 0.25f);
}

static void test_a_tree_spawned_parents_first_is_planned_in_row_order(void) {
    ecs_entity r, a, b, c;
    const hierarchy_step *st;
    uint32_t n;
    setup_placed();
    r = spawn(ECS_NULL, 1);
    a = spawn(r, 2);
    b = spawn(r, 3);
    c = spawn(a, 4);
    st = hierarchy_plan_all(&h, &n);
    CHECK_EQ(n, 4);
    CHECK(st[0].row == 0 && st[0].up == HIERARCHY_NONE && row_of(r) == 0);
    CHECK(st[1].row == 1 && st[1].up == 0 && row_of(a) == 1);
    CHECK(st[2].row == 2 && st[2].up == 0 && row_of(b) == 2);
    CHECK(st[3].row == 3 && st[3].up == 1 && row_of(c) == 3);
    CHECK(hierarchy_update_transforms(&h, local, world));
    CHECK(worlds_are_right());
    ecs_world_free(w);
}

static void test_attaching_under_a_later_parent_moves_the_subtree_steps_after_it(void) {
    ecs_entity a, b, c, d, e;
    uint32_t rb, rc;
    setup_placed();
    a = spawn(ECS_NULL, 1);
    b = spawn(a, 2);
    c = spawn(b, 3);
    d = spawn(ECS_NULL, 10); /* its step and row come after b's and c's */
    e = spawn(d, 1);
    CHECK(hierarchy_update_transforms(&h, local, world));
    rb = row_of(b), rc = row_of(c);
    CHECK_EQ(hierarchy_attach(&h, b, e), HIERARCHY_OK);
    CHECK(row_of(b) == rb && row_of(c) == rc); /* only the steps moved */
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    CHECK_EQ(hierarchy_attach(&h, e, a), HIERARCHY_OK); /* and back up, under an earlier one */
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    ecs_world_free(w);
}

static void test_placing_a_parent_after_its_children_moves_their_steps(void) {
    ecs_entity p, c, g, other;
    setup_placed();
    p = ecs_create(w);
    c = spawn(p, 2);
    g = spawn(c, 3);
    other = spawn(ECS_NULL, 5);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right()); /* c from the origin */
    placed(p, 100, 0, 0);
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    CHECK(ECS_GET(w, g, world, WorldTransform)->x > 100 && ECS_GET(w, other, world, WorldTransform)->x < 6);
    ecs_world_free(w);
}

static void test_the_row_a_leaver_frees_is_taken_by_the_last_placed_entity(void) {
    ecs_entity r, a, k1, k2, last;
    setup_placed();
    r = spawn(ECS_NULL, 1);
    a = spawn(r, 2);
    k1 = spawn(r, 3);
    k2 = spawn(r, 4);
    last = spawn(r, 5);
    CHECK_EQ(hierarchy_attach(&h, k1, last), HIERARCHY_OK); /* last, in the last row, has children */
    CHECK_EQ(hierarchy_attach(&h, k2, last), HIERARCHY_OK);
    CHECK(hierarchy_update_transforms(&h, local, world));
    CHECK(ecs_destroy(w, a));
    CHECK_EQ(row_of(last), 1); /* ecs.h moved it into a's row: its children's steps follow */
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    CHECK(ecs_delete(w, last, local)); /* no longer placed: its children start from the origin */
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    CHECK(at(k1, 3, 1) && at(k2, 4, 1));
    ecs_world_free(w);
}

/* The entity ecs.h moves into the freed row is the leaver's own parent:
   while the hook runs, both are "in" that row. */
static void test_a_leaver_whose_parent_is_in_the_last_row(void) {
    ecs_entity a, c, p;
    setup_placed();
    a = spawn(ECS_NULL, 1);
    c = spawn(ECS_NULL, 2);
    p = spawn(ECS_NULL, 3);
    CHECK_EQ(hierarchy_attach(&h, c, p), HIERARCHY_OK);
    CHECK(hierarchy_update_transforms(&h, local, world));
    CHECK(ecs_delete(w, c, world));
    CHECK(row_of(p) == 1 && plan_error() == NULL);
    CHECK(hierarchy_attach(&h, a, p) == HIERARCHY_OK && ecs_destroy(w, a));
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    ecs_world_free(w);
}

static void test_destroying_in_every_way_keeps_the_plan(void) {
    ecs_entity r, a, b, x, y, z, q;
    setup_placed();
    r = spawn(ECS_NULL, 1);
    a = spawn(r, 2);
    b = spawn(r, 3);
    x = spawn(a, 4);
    y = spawn(x, 5);
    z = spawn(b, 6);
    q = spawn(z, 7);
    CHECK(hierarchy_update_transforms(&h, local, world));
    hierarchy_destroy_all(&h, x);
    CHECK(!ecs_alive(w, y) && plan_error() == NULL);
    CHECK(ecs_defer_destroy(w, b) && ecs_flush(w) == 1); /* z is orphaned: a root now */
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right() && at(z, 6, 1));
    CHECK_EQ(ecs_strip(w, z), 3); /* Transform, WorldTransform, Parent: q is orphaned too */
    CHECK_PTR_EQ(plan_error(), NULL);
    hierarchy_remove_all(&h, r);
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    CHECK(at(a, 2, 1) && at(q, 7, 1));
    ecs_world_free(w);
}

static void test_a_bundle_or_a_deferred_add_places_once(void) {
    ecs_entity p, c, d;
    ecs_component comps[2];
    Transform t = {1, 2, 0};
    WorldTransform wt = {0, 0, 0};
    const void *values[2];
    setup_placed();
    p = spawn(ECS_NULL, 1);
    c = hierarchy_attach_new(&h, p);
    comps[0] = local, comps[1] = world, values[0] = &t, values[1] = &wt;
    CHECK(ecs_add_n(w, c, 2, comps, values)); /* both on_insert hooks run once it has both */
    d = hierarchy_attach_new(&h, c);
    CHECK(ECS_DEFER_ADD(w, d, local, Transform, {3, 0, 0}) && ECS_DEFER_ADD(w, d, world, WorldTransform, {0, 0, 0}));
    CHECK_EQ(ecs_flush(w), 2);
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    CHECK_EQ(ecs_delete_n(w, c, 2, comps), 3u);
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right() && at(d, 3, 0));
    ecs_world_free(w);
}

static void test_update_moved_recomputes_the_marked_subtrees_only(void) {
    ecs_entity r, a, b, x, y;
    const hierarchy_step *st;
    uint32_t n;
    setup_placed();
    r = spawn(ECS_NULL, 1);
    a = spawn(r, 2);
    b = spawn(r, 3);
    x = spawn(a, 4);
    y = spawn(x, 5);
    CHECK(hierarchy_update_transforms(&h, local, world));
    st = hierarchy_plan_moved(&h, &n);
    CHECK(st != NULL && n == 0); /* the full pass left nothing */
    ECS_GET_MUT(w, a, local, Transform)->x = 20;
    CHECK(hierarchy_mark_moved(&h, a) && hierarchy_mark_moved(&h, y)); /* y: inside a's subtree */
    ECS_GET_MUT(w, b, local, Transform)->x = 30;                       /* not marked */
    st = hierarchy_plan_moved(&h, &n);
    CHECK(n == 3 && st[0].row == row_of(a) && st[1].row == row_of(x) && st[2].row == row_of(y));
    hierarchy_mark_moved(&h, a);
    CHECK(hierarchy_update_moved(&h));
    CHECK(world_is_right(a) && world_is_right(x) && world_is_right(y));
    CHECK(!world_is_right(b)); /* its change was not marked: still where it was */
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    CHECK(!hierarchy_mark_moved(&h, ecs_create(w))); /* not placed */
    /* attaching and detaching mark by themselves */
    CHECK(hierarchy_attach(&h, x, b) == HIERARCHY_OK && hierarchy_update_moved(&h) && worlds_are_right());
    CHECK(hierarchy_detach(&h, b) && hierarchy_update_moved(&h) && worlds_are_right());
    ecs_world_free(w);
}

static void test_holes_are_squeezed_out(void) {
    ecs_entity keep[8], drop[64];
    uint32_t n, i;
    setup_placed();
    for (i = 0; i < 8; i++) {
        keep[i] = spawn(i ? keep[i - 1] : ECS_NULL, (float)i);
        drop[i] = spawn(keep[i], 1);
    }
    for (i = 8; i < 64; i++) drop[i] = spawn(keep[i % 8], 1);
    for (i = 0; i < 64; i++) ecs_destroy(w, drop[i]);
    CHECK(hierarchy_plan_all(&h, &n) && n == 8);
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right());
    ecs_world_free(w);
}

/* ecs_load runs no hooks: the first plan after it is built from the rows. */
static void test_a_world_loaded_with_the_order_kept_is_planned_at_its_first_pass(void) {
    ecs_entity r, a, b;
    unsigned char *bytes;
    size_t size;
    setup_placed();
    r = spawn(ECS_NULL, 1);
    a = spawn(r, 2);
    b = spawn(a, 3);
    hierarchy_attach(&h, a, spawn(ECS_NULL, 4)); /* a's steps move past its new parent's */
    CHECK(hierarchy_update_transforms(&h, local, world));
    size = ecs_save_buffer(w, NULL, 0);
    CHECK(size && (bytes = (unsigned char *)malloc(size)) != NULL);
    CHECK_EQ(ecs_save_buffer(w, bytes, size), size);
    ecs_world_free(w);
    setup_placed();
    CHECK(ecs_load(w, bytes, size));
    free(bytes);
    CHECK_PTR_EQ(plan_error(), NULL);
    CHECK(hierarchy_update_transforms(&h, local, world) && worlds_are_right() && world_is_right(b));
    CHECK(hierarchy_mark_moved(&h, r) && hierarchy_update_moved(&h) && worlds_are_right());
    ecs_world_free(w);
}

static void test_transforms_init_refuses_what_it_cannot_order(void) {
    ecs_component tag, other;
    ecs_group_desc d;
    setup();
    local = ECS_COMPONENT(w, Transform);
    world = ECS_COMPONENT(w, WorldTransform);
    tag = ECS_TAG(w, "Tag");
    other = ECS_COMPONENT(w, Usize);
    CHECK(!hierarchy_transforms_init(&h, local, local));
    CHECK(!hierarchy_transforms_init(&h, local, tag));
    memset(&d, 0, sizeof d);
    d.owned[0] = world;
    CHECK(ecs_group_new(w, &d));
    EXPECT_ASSERT(!hierarchy_transforms_init(&h, local, world), "owned by another group");
    EXPECT_ASSERT(!hierarchy_update_transforms(&h, local, world), "owned by another group");
    ecs_world_free(w);
    setup();
    local = ECS_COMPONENT(w, Transform);
    world = ECS_COMPONENT(w, WorldTransform);
    other = ECS_COMPONENT(w, Usize);
    CHECK(hierarchy_transforms_init(&h, local, world) && hierarchy_transforms_init(&h, local, world));
    CHECK(!hierarchy_transforms_init(&h, local, other)); /* one pair per hierarchy */
    ecs_world_free(w);
}

/* --- out of memory ---------------------------------------------------------- */
/* With deletions of Parent and Child tracked, the hooks' own deletes need
   memory for their records. When one fails, the tree keeps the smallest
   consistent change (hierarchy.h, "Out of memory"): an empty Parent (count
   0, no children), an orphan whose Child names no parent. This checks
   what must hold then: every counted ring closes and names its parent,
   every Child names a live parent that counts it (or none), and the walks
   agree with the rings. */
static int tree_consistent(void) {
    const ecs_storage *ps = ecs_storage_of(w, h.parent), *cs = ecs_storage_of(w, h.child);
    uint32_t i, j, counted = 0, linked = 0;
    for (i = 0; i < ecs_storage_count(ps); i++) {
        ecs_entity p = ecs_storage_entities(ps)[i], e = ((const Parent *)ecs_storage_data(ps))[i].first_child;
        uint32_t n = ((const Parent *)ecs_storage_data(ps))[i].count;
        hierarchy_iter it = hierarchy_children(&h, p);
        for (j = 0; j < n; j++, e = child_of(e)->next) {
            if (!child_of(e) || child_of(e)->parent != p || child_of(child_of(e)->next)->prev != e) return 0;
            if (!hierarchy_next(&it) || it.entity != e) return 0;
        }
        if (hierarchy_next(&it) || (n && e != parent_of(p)->first_child)) return 0;
        counted += n;
    }
    for (i = 0; i < ecs_storage_count(cs); i++) {
        ecs_entity up = ((const Child *)ecs_storage_data(cs))[i].parent;
        if (up != ECS_NULL && (!ecs_alive(w, up) || !parent_of(up) || !parent_of(up)->count)) return 0;
        linked += up != ECS_NULL;
    }
    return counted == linked;
}

/* A tree r { a { a1, a2 { x } }, b } in a world whose allocator fails after
   `left` more allocations (once the tree is built), Parent and Child
   deletions tracked. */
static budget oom;
static ecs_entity r, a, b, a1, a2, x;
static void oom_tree(long left) {
    ecs_desc d;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = budget_alloc, d.allocator.free = budget_free, d.allocator.ctx = &oom;
    oom.left = -1;
    w = ecs_world_new(&d);
    hierarchy_init(&h, w);
    ecs_track_set(w, h.parent, ECS_TRACK_DELETION);
    ecs_track_set(w, h.child, ECS_TRACK_DELETION);
    r = ecs_create(w), a = hierarchy_attach_new(&h, r), b = hierarchy_attach_new(&h, r);
    a1 = hierarchy_attach_new(&h, a), a2 = hierarchy_attach_new(&h, a), x = hierarchy_attach_new(&h, a2);
    oom.left = left;
}

static void test_running_out_of_memory_in_any_step_leaves_a_consistent_tree(void) {
    long left;
    int op, failed[5] = {0};
    for (op = 0; op < 5; op++)
        for (left = 0; left < 200; left++) {
            bool ok = true;
            oom_tree(left);
            switch (op) {
            case 0: /* stops where a step fails (it looped for ever), and finishes when called again */
                ok = hierarchy_destroy_all(&h, a);
                oom.left = -1;
                CHECK(tree_consistent());
                CHECK(hierarchy_destroy_all(&h, a) && !ecs_alive(w, a) && !ecs_alive(w, x) && ecs_alive(w, b));
                break;
            case 1:
                ok = hierarchy_remove_all(&h, a);
                oom.left = -1;
                CHECK(tree_consistent());
                CHECK(hierarchy_remove_all(&h, a) && !child_of(a) && !child_of(x) && !parent_of(a2));
                CHECK(YIELDS(hierarchy_children(&h, r), b));
                break;
            case 2: /* the orphans whose Child could not go are roots */
                if (!ecs_destroy(w, r)) { /* its own records: nothing changed */
                    oom.left = -1;
                    CHECK(tree_consistent() && YIELDS(hierarchy_children(&h, r), a, b));
                    CHECK(ecs_destroy(w, r));
                    ok = false;
                }
                ok = ok && ecs_last_error(w) == ECS_OK;
                oom.left = -1;
                CHECK(tree_consistent() && !ecs_alive(w, r));
                CHECK(hierarchy_parent_of(&h, a) == ECS_NULL && hierarchy_parent_of(&h, b) == ECS_NULL);
                CHECK(YIELDS(hierarchy_descendants(&h, a), a1, a2, x));
                CHECK(hierarchy_attach(&h, a, b) == HIERARCHY_OK && YIELDS(hierarchy_descendants(&h, b), a, a1, a2, x));
                break;
            case 3: /* a's last child leaves: an empty Parent if it cannot go, reused by the next attach */
                oom.left = -1;
                CHECK(hierarchy_detach(&h, a1));
                oom.left = left; /* (counted from the step that matters) */
                if (ok && !hierarchy_detach(&h, a2)) { /* its own record: nothing changed */
                    oom.left = -1;
                    CHECK(tree_consistent() && YIELDS(hierarchy_children(&h, a), a2));
                    CHECK(hierarchy_detach(&h, a2));
                    ok = false;
                }
                ok = ok && ecs_last_error(w) == ECS_OK;
                oom.left = -1;
                CHECK(tree_consistent() && YIELDS_NOTHING(hierarchy_descendants(&h, a)));
                CHECK(hierarchy_attach(&h, x, a) == HIERARCHY_OK && YIELDS(hierarchy_children(&h, a), x));
                break;
            case 4: { /* a failed re-parent changes nothing */
                ecs_entity lone;
                oom.left = -1;
                lone = ecs_create(w);
                oom.left = left;
                hierarchy_result res = hierarchy_attach(&h, a2, lone);
                ok = res == HIERARCHY_OK;
                oom.left = -1;
                CHECK(tree_consistent());
                if (!ok) CHECK(res == HIERARCHY_NO_MEMORY && hierarchy_parent_of(&h, a2) == a &&
                                 (!parent_of(lone) || !parent_of(lone)->count)); /* (an empty one that could not go) */
                if (ok) CHECK(hierarchy_parent_of(&h, a2) == lone && YIELDS(hierarchy_children(&h, a), a1));
                break;
            }
            }
            ecs_world_free(w);
            failed[op] += !ok;
            if (ok) break; /* it went through: no later failure to try */
        }
    /* every operation failed at least once on the way (the test reached the failures) */
    for (op = 0; op < 5; op++) CHECK(failed[op] > 0);
}

/* --- randomized, against a model ------------------------------------------ */
/* The model: per entity slot the id, whether it lives, its parent slot (-1:
   none) and its children's slots in ring order. Every operation is applied
   to the world and to the model; then check_invariants compares them. */

#define MAX_SLOTS 64
#define MAX_LIVE 40

static struct slot {
    ecs_entity id;
    int alive, parent, nkids, key;
    int kids[MAX_SLOTS];
} md[MAX_SLOTS];
static int nslots;
static unsigned long long cur_seed;
static int cur_step;
static ecs_component keyc;

static int slot_of(ecs_entity e) { return (int)ECS_ENTITY_INDEX(e); }

static void model_detach(int i) {
    int p = md[i].parent, k, j = 0;
    if (p < 0) return;
    for (k = 0; k < md[p].nkids; k++)
        if (md[p].kids[k] != i) md[p].kids[j++] = md[p].kids[k];
    md[p].nkids = j;
    md[i].parent = -1;
}
static void model_orphan(int i) {
    int k;
    for (k = 0; k < md[i].nkids; k++) md[md[i].kids[k]].parent = -1;
    md[i].nkids = 0;
}
static void model_attach(int i, int p) {
    model_detach(i);
    md[i].parent = p;
    md[p].kids[md[p].nkids++] = i;
}
static int model_is_ancestor(int a, int i) {
    for (i = md[i].parent; i >= 0; i = md[i].parent)
        if (i == a) return 1;
    return 0;
}
static void model_preorder(int i, int *out, int *n) {
    int k;
    for (k = 0; k < md[i].nkids; k++) {
        out[(*n)++] = md[i].kids[k];
        model_preorder(md[i].kids[k], out, n);
    }
}
/* remove_all / destroy_all: every slot of i's subtree */
static void model_take_subtree(int i, int destroy) {
    int sub[MAX_SLOTS], n = 0, k;
    model_preorder(i, sub, &n);
    sub[n++] = i;
    model_detach(i);
    for (k = 0; k < n; k++) {
        md[sub[k]].parent = -1;
        md[sub[k]].nkids = 0;
        if (destroy) md[sub[k]].alive = 0;
    }
}
static void model_new(ecs_entity e) {
    int i = slot_of(e);
    md[i].id = e;
    md[i].alive = 1;
    md[i].parent = -1;
    md[i].nkids = 0;
    md[i].key = (int)test_rand(4); /* few keys: sorting must be stable */
    ECS_ADD(w, e, keyc, int, md[i].key);
    if (i >= nslots) nslots = i + 1;
}
static int nlive(void) {
    int i, n = 0;
    for (i = 0; i < nslots; i++) n += md[i].alive;
    return n;
}

static int by_key(ecs_entity x_, ecs_entity y_, void *ctx) {
    (void)ctx;
    return *ECS_GET(w, x_, keyc, int) - *ECS_GET(w, y_, keyc, int);
}
static void model_sort(int i) {
    int k, j, v;
    for (k = 1; k < md[i].nkids; k++) {
        for (v = md[i].kids[k], j = k; j > 0 && md[md[i].kids[j - 1]].key > md[v].key; j--)
            md[i].kids[j] = md[i].kids[j - 1];
        md[i].kids[j] = v;
    }
}

#define INV(cond)                                                                              \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("  seed %llu step %d: invariant %s failed (line %d)\n", cur_seed, cur_step, \
                   #cond, __LINE__);                                                           \
            return 0;                                                                          \
        }                                                                                      \
    } while (0)

static int check_invariants(void) {
    int i, k, nchild = 0, nparent = 0;
    for (i = 0; i < nslots; i++) {
        struct slot *s = &md[i];
        const Child *c;
        const Parent *p;
        hierarchy_iter it;
        int want[MAX_SLOTS], n = 0, steps;
        INV(ecs_alive(w, s->id) == (s->alive != 0));
        if (!s->alive) continue;
        /* Child <=> a parent in the model, and the same parent */
        c = child_of(s->id);
        INV((c != NULL) == (s->parent >= 0));
        if (c) INV(c->parent == md[s->parent].id);
        nchild += c != NULL;
        /* Parent <=> children; count = ring length; the ring in model order,
           prev/next inverse of each other, every member names this parent */
        p = parent_of(s->id);
        INV((p != NULL) == (s->nkids > 0));
        if (p) {
            ecs_entity e = p->first_child;
            nparent++;
            INV(p->count == (uint32_t)s->nkids);
            for (k = 0; k < s->nkids; k++) {
                const Child *ce = child_of(e);
                INV(e == md[s->kids[k]].id);
                INV(ce != NULL && ce->parent == s->id);
                INV(child_of(ce->next) != NULL && child_of(ce->next)->prev == e);
                INV(child_of(ce->prev) != NULL && child_of(ce->prev)->next == e);
                e = ce->next;
            }
            INV(e == p->first_child); /* the ring closes after count steps */
        }
        /* the iterators against the model */
        for (k = 0; k < s->nkids; k++) want[k] = s->kids[k];
        for (k = 0, it = hierarchy_children(&h, s->id); hierarchy_next(&it); k++)
            INV(k < s->nkids && it.entity == md[want[k]].id);
        INV(k == s->nkids);
        /* ancestors: the model's chain, and finite (no cycle) */
        for (k = s->parent, steps = 0, it = hierarchy_ancestors(&h, s->id); hierarchy_next(&it); steps++) {
            INV(steps < MAX_SLOTS && k >= 0 && it.entity == md[k].id);
            k = md[k].parent;
        }
        INV(k == -1);
        model_preorder(i, want, &n);
        for (k = 0, it = hierarchy_descendants(&h, s->id); hierarchy_next(&it); k++)
            INV(k < n && it.entity == md[want[k]].id);
        INV(k == n);
    }
    /* no hierarchy component anywhere else (dead entities have none) */
    INV(ecs_storage_count(ecs_storage_of(w, h.child)) == (uint32_t)nchild);
    INV(ecs_storage_count(ecs_storage_of(w, h.parent)) == (uint32_t)nparent);
    return 1;
}

/* Mostly a live entity; now and then a stale id or ECS_NULL. */
static ecs_entity any_entity(void) {
    int live[MAX_SLOTS], n = 0, i;
    unsigned r = test_rand(16);
    for (i = 0; i < nslots; i++)
        if (md[i].alive) live[n++] = i;
    if (r == 0 || nslots == 0) return ECS_NULL;
    if (r == 1 || n == 0) return md[test_rand((unsigned)nslots)].id;
    return md[live[test_rand((unsigned)n)]].id;
}

/* The operations and how often each is picked (out of 64). */
enum { OP_CREATE, OP_ATTACH_NEW, OP_ATTACH, OP_DETACH, OP_REMOVE, OP_REMOVE_ALL, OP_DESTROY_ALL,
       OP_DESTROY, OP_DEFER_DESTROY, OP_STRIP, OP_DELETE_PARENT, OP_SORT, NOPS };
static const int op_weight[NOPS] = {6, 14, 22, 4, 3, 1, 1, 4, 2, 1, 2, 4};
static int pick_op(void) {
    int op = 0, r = (int)test_rand(64);
    while (r >= op_weight[op]) r -= op_weight[op++];
    return op;
}

/* With transforms (run_model's last argument): an operation on e's
   Transform and WorldTransform, in one of the ways a program may do it.
   Placing adds what e lacks (one by one in either order, as a bundle, or
   deferred); unplacing deletes one or both (or deferred); moving sets a
   new Transform on a placed entity and marks it. */
static int transform_op(ecs_entity e) {
    Transform t;
    WorldTransform zero = {0, 0, 0};
    ecs_component both[2];
    const void *values[2];
    unsigned way = test_rand(4);
    if (!(e && ecs_alive(w, e))) return 1;
    t.x = (float)test_rand(9) - 4, t.y = (float)test_rand(9) - 4, t.angle = (float)test_rand(8) * 0.25f;
    both[0] = local, both[1] = world, values[0] = &t, values[1] = &zero;
    switch (is_placed(e) ? 2 + test_rand(2) : test_rand(2)) {
    case 0: /* place */
        if (way == 0) INV(ECS_ADD(w, e, local, Transform, t) && ECS_ADD(w, e, world, WorldTransform, zero));
        if (way == 1) INV(ECS_ADD(w, e, world, WorldTransform, zero) && ECS_ADD(w, e, local, Transform, t));
        if (way == 2) INV(ecs_add_n(w, e, 2, both, values));
        if (way == 3) {
            INV(ECS_DEFER_ADD(w, e, local, Transform, t) && ECS_DEFER_ADD(w, e, world, WorldTransform, zero));
            INV(ecs_flush(w) == 2);
        }
        INV(is_placed(e));
        break;
    case 1: /* (not placed) take what it has */
    case 2: /* unplace */
        if (way == 0) ecs_delete(w, e, local);
        if (way == 1) ecs_delete(w, e, world);
        if (way == 2) ecs_delete_n(w, e, 2, both);
        if (way == 3 && ecs_defer_delete(w, e, local)) ecs_flush(w);
        INV(!is_placed(e));
        break;
    default: /* move */
        *ECS_GET_MUT(w, e, local, Transform) = t;
        INV(hierarchy_mark_moved(&h, e));
    }
    return 1;
}

/* hierarchy_plan_moved hands out no hole and no row twice (a loop of
   your own over it need not test). Clears the marks. */
static int moved_steps_are_distinct_rows(void) {
    static unsigned char seen[256];
    uint32_t n, i, len = 0;
    const hierarchy_step *st = hierarchy_plan_moved(&h, &n);
    const ecs_storage *s = ecs_storage_of(w, world);
    while (len < ecs_storage_count(s) && ecs_has(w, ecs_storage_entities(s)[len], local)) len++;
    memset(seen, 0, sizeof seen);
    if (!st) return 0;
    for (i = 0; i < n; i++) {
        if (st[i].row >= len || seen[st[i].row]) return 0;
        seen[st[i].row] = 1;
    }
    return 1;
}

/* With transforms, after every step: the marked subtrees' pass (now and
   then the full one) leaves every WorldTransform right, and the plan lists
   every placed entity parents first. */
static int check_placed(void) {
    const char *err;
    unsigned pass = test_rand(8);
    if (pass == 0) {
        INV(hierarchy_update_transforms(&h, local, world));
    } else if (pass == 1) { /* what it would hand out, then all of it */
        INV(moved_steps_are_distinct_rows());
        INV(hierarchy_update_transforms(&h, local, world));
    } else {
        INV(hierarchy_update_moved(&h));
    }
    INV(worlds_are_right());
    if ((err = plan_error()) != NULL) {
        printf("  seed %llu step %d: the plan is wrong: %s\n", cur_seed, cur_step, err);
        return 0;
    }
    return 1;
}

/* transforms 0: the hierarchy alone. 1: also Transform and WorldTransform
   (a third of the steps are transform_op; a new child is placed half the
   time), checked after every step. With 0 the random sequence is the
   same as without the option. */
static int run_model(unsigned long long seed, int steps, int transforms) {
    setup();
    keyc = ECS_COMPONENT(w, int);
    if (transforms) {
        local = ECS_COMPONENT(w, Transform);
        world = ECS_COMPONENT(w, WorldTransform);
        if (!hierarchy_transforms_init(&h, local, world)) return 0;
    }
    memset(md, 0, sizeof md);
    nslots = 0;
    cur_seed = seed;
    test_seed(seed);
    for (cur_step = 0; cur_step < steps; cur_step++) {
        ecs_entity e = any_entity(), p = any_entity();
        int i = e ? slot_of(e) : -1, pi = p ? slot_of(p) : -1;
        int live = e && ecs_alive(w, e);
        int op = pick_op();
        if ((op == OP_CREATE || op == OP_ATTACH_NEW) && nlive() >= MAX_LIVE) op = OP_ATTACH;
        if (transforms && test_rand(3) == 0) {
            if (!transform_op(e)) return 0;
        } else if (op == OP_CREATE || op == OP_ATTACH_NEW) { /* a new root, or a new child of p */
            ecs_entity n = op == OP_CREATE ? ecs_create(w) : hierarchy_attach_new(&h, p);
            if (op == OP_ATTACH_NEW && !(p && ecs_alive(w, p))) {
                INV(n == ECS_NULL);
            } else {
                INV(n != ECS_NULL && slot_of(n) < MAX_SLOTS);
                model_new(n);
                if (op == OP_ATTACH_NEW) model_attach(slot_of(n), pi);
                if (transforms && op == OP_ATTACH_NEW && test_rand(2) && !transform_op(n)) return 0;
            }
        } else if (op == OP_ATTACH) {
            hierarchy_result want = HIERARCHY_OK, got = hierarchy_attach(&h, e, p);
            if (!live || !(p && ecs_alive(w, p))) want = HIERARCHY_DEAD;
            else if (e == p) want = HIERARCHY_SELF;
            else if (model_is_ancestor(i, pi)) want = HIERARCHY_CYCLE;
            INV(got == want);
            if (want == HIERARCHY_OK) model_attach(i, pi);
        } else if (op == OP_DETACH) {
            INV(hierarchy_detach(&h, e) == (live && md[i].parent >= 0));
            if (live) model_detach(i);
        } else if (op == OP_REMOVE) {
            hierarchy_remove(&h, e);
            if (live) model_detach(i), model_orphan(i);
        } else if (op == OP_REMOVE_ALL) {
            hierarchy_remove_all(&h, e);
            if (live) model_take_subtree(i, 0);
        } else if (op == OP_DESTROY_ALL) {
            hierarchy_destroy_all(&h, e);
            if (live) model_take_subtree(i, 1);
        } else if (op == OP_DESTROY || op == OP_DEFER_DESTROY) {
            if (op == OP_DESTROY) {
                INV(ecs_destroy(w, e) == (live != 0));
            } else {
                ecs_defer_destroy(w, e);
                ecs_flush(w);
            }
            if (live) model_detach(i), model_orphan(i), md[i].alive = 0;
        } else if (op == OP_STRIP) {
            /* with transforms, strip takes Transform and WorldTransform too */
            unsigned placed_parts = transforms && live ? (unsigned)ecs_has(w, e, local) + ecs_has(w, e, world) : 0u;
            INV(ecs_strip(w, e) == (live ? 1u + (md[i].parent >= 0) + (md[i].nkids > 0) + placed_parts : 0u));
            if (live) {
                ECS_ADD(w, e, keyc, int, md[i].key); /* strip took the key too */
                model_detach(i), model_orphan(i);
            }
        } else if (op == OP_DELETE_PARENT) {
            INV(ecs_delete(w, e, h.parent) == (live && md[i].nkids > 0));
            if (live) model_orphan(i);
        } else {
            INV(hierarchy_sort_children_by(&h, e, by_key, NULL));
            if (live) model_sort(i);
        }
        if (!check_invariants() || (transforms && !check_placed())) return 0;
    }
    ecs_world_free(w);
    return 1;
}

static void test_randomized_operations_keep_every_invariant(void) {
    static const unsigned long long seeds[] = {1, 2, 3, 42, 0xdecafbadull, 20261121};
    const char *seed = getenv("SEED"), *n = getenv("STEPS");
    int steps = n ? atoi(n) : 1500;
    size_t k;
    if (seed) {
        CHECK(run_model(strtoull(seed, NULL, 0), n ? steps : 100 * steps, 0));
        return;
    }
    for (k = 0; k < sizeof seeds / sizeof *seeds; k++) CHECK(run_model(seeds[k], steps, 0));
}

/* The same with transforms: every kind of edit (attach, detach, reparent,
   spawn under a parent, destroy a subtree, destroy, deferred destroy,
   strip, placing and unplacing in every way) keeps the plan parents
   first, and the fast passes give what walking the tree gives. SEED and
   STEPS work as above. */
static void test_randomized_edits_keep_the_plan_and_the_passes_right(void) {
    static const unsigned long long seeds[] = {1, 2, 3, 42, 0xdecafbadull, 20261121};
    const char *seed = getenv("SEED"), *n = getenv("STEPS");
    int steps = n ? atoi(n) : 1500;
    size_t k;
    if (seed) {
        CHECK(run_model(strtoull(seed, NULL, 0), n ? steps : 100 * steps, 1));
        return;
    }
    for (k = 0; k < sizeof seeds / sizeof *seeds; k++) CHECK(run_model(seeds[k], steps, 1));
}

int main(int argc, char **argv) {
    test_only(argc, argv);
    RUN(test_recipe_attach_moves_a_subtree_and_the_iterators_walk_in_order);
    RUN(test_recipe_detach_remove_and_remove_all);
    RUN(test_recipe_sorting);
    RUN(test_sort_is_stable_and_ignores_childless_entities);
    RUN(test_attach_appends_to_a_circular_sibling_ring);
    RUN(test_attach_refuses_self_and_cycles_and_changes_nothing);
    RUN(test_attach_refuses_dead_entities);
    RUN(test_descendants_are_depth_first_pre_order);
    RUN(test_deep_chains_walk_and_remove_without_recursion);
    RUN(test_destroying_a_member_detaches_it_and_orphans_its_children);
    RUN(test_strip_does_the_same_and_keeps_the_entity);
    RUN(test_a_deferred_destroy_does_the_same_when_flushed);
    RUN(test_hierarchy_remove_and_deleting_parent_orphan_the_children);
    RUN(test_destroy_all_destroys_exactly_the_subtree);
    RUN(test_remove_all_keeps_the_subtree_alive_and_detached);
    RUN(test_transforms_are_computed_parents_before_children);
    RUN(test_moving_turning_or_reattaching_a_parent_moves_its_subtree);
    RUN(test_a_tree_spawned_parents_first_is_planned_in_row_order);
    RUN(test_attaching_under_a_later_parent_moves_the_subtree_steps_after_it);
    RUN(test_placing_a_parent_after_its_children_moves_their_steps);
    RUN(test_the_row_a_leaver_frees_is_taken_by_the_last_placed_entity);
    RUN(test_a_leaver_whose_parent_is_in_the_last_row);
    RUN(test_destroying_in_every_way_keeps_the_plan);
    RUN(test_a_bundle_or_a_deferred_add_places_once);
    RUN(test_update_moved_recomputes_the_marked_subtrees_only);
    RUN(test_holes_are_squeezed_out);
    RUN(test_a_world_loaded_with_the_order_kept_is_planned_at_its_first_pass);
    RUN(test_transforms_init_refuses_what_it_cannot_order);
    RUN(test_running_out_of_memory_in_any_step_leaves_a_consistent_tree);
    RUN(test_randomized_operations_keep_every_invariant);
    RUN(test_randomized_edits_keep_the_plan_and_the_passes_right);
    return test_summary();
}
