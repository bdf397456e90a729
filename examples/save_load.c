/* save_load.c - saving a running world and loading it into another
   (ecs.h section 17).

   The solar system of examples/hierarchy.c runs for a while; then the
   program
     1. saves it mid-run into a buffer: ask ecs_save_buffer for the size,
        allocate, save;
     2. loads the bytes into a fresh world whose program registered the
        same components in another order (components are matched by name,
        not by id);
     3. prints the tree from the restored world and checks that it is the
        original: the same entity ids (the Parent/Child links are entity
        ids stored inside values, and they still point at the right
        bodies), the same rows and values, the same printed tree;
     4. runs both worlds on identically - a few frames, new bodies - and
        checks that they stay the same: the restored world hands out the
        ids the original does, because the free slots and their order were
        saved too.
   It exits with status 1 if any check fails.

   A component that holds a pointer cannot be saved as its bytes: the
   address means nothing to the program that loads it. Name points at a
   string, so it gets save and load callbacks (ecs_serial_set): save writes
   the text, load finds the program's own copy of it. Parent and Child hold
   entity ids, which stay right as they are: a loaded entity has its id
   again. They are declared to travel (hierarchy.h: largest fields first,
   padding spelled out), so the snapshot would load on i386 or ARM too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "../ecs.h"
#include "hierarchy.h"
#include "solar.h" /* the scene: Name, Spin, body, turn, scene_walk... */

/* Every name this program gives a body. A loaded Name points here. */
static const char *const BODIES[] = {"sun",    "mars",  "phobos", "deimos", "earth",
                                     "moon",   "lander", "station", "comet", "probe"};
#define NBODIES (sizeof BODIES / sizeof BODIES[0])

static const char *body_name(const char *s) {
    size_t i;
    for (i = 0; i < NBODIES; i++)
        if (!strcmp(BODIES[i], s)) return BODIES[i];
    return NULL;
}

/* --- Name in a snapshot: its text, not its pointer ------------------------ */

static bool name_save(const void *value, ecs_write_fn write, void *wuser, void *user) {
    const Name *n = (const Name *)value;
    (void)user;
    return write(n->s, strlen(n->s), wuser);
}

/* bytes: the n bytes name_save wrote (no terminating 0). value is zeroed. */
static bool name_load(void *value, const void *bytes, size_t n, void *user) {
    char text[32];
    (void)user;
    if (n >= sizeof text) return false;
    memcpy(text, bytes, n);
    text[n] = '\0';
    ((Name *)value)->s = body_name(text);
    return ((Name *)value)->s != NULL; /* an unknown name fails the load */
}

/* --- The scene of examples/hierarchy.c, in another order ------------------ */

/* A world with the scene's components (examples/solar.h). The running
   world registers them as hierarchy.c does; the loading one (other_order)
   the other way round, so every component gets another id there. */
static bool scene_new(scene *s, bool other_order) {
    static const ecs_serial name_serial = {name_save, name_load, NULL, NULL, false};
    s->w = ecs_world_new(NULL);
    if (!s->w) return false;
    if (other_order) {
        s->world = ECS_COMPONENT(s->w, WorldTransform);
        s->local = ECS_COMPONENT(s->w, Transform);
        s->spin = ECS_COMPONENT(s->w, Spin);
        s->name = ECS_COMPONENT(s->w, Name);
        if (!hierarchy_init(&s->h, s->w)) return false;
    } else if (!scene_init(s))
        return false;
    /* both worlds: the saving one calls name_save, the loading one name_load */
    return s->world && s->local && s->spin && s->name && ecs_serial_set(s->w, s->name, &name_serial);
}

/* --- Printing into a string, so that two worlds' trees can be compared --- */

typedef struct text {
    char s[4096];
    size_t len;
} text;

static void say(text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (t->len < sizeof t->s) {
        int n = vsnprintf(t->s + t->len, sizeof t->s - t->len, fmt, ap);
        t->len = n < 0 || (size_t)n >= sizeof t->s - t->len ? sizeof t->s : t->len + (size_t)n;
    }
    va_end(ap);
}

static const char *id(ecs_entity e, char buf[ECS_ENTITY_STR]) { return ecs_entity_str(e, buf); }

static void tree_line(const scene *s, ecs_entity e, int depth, void *ctx) {
    const WorldTransform *wt = ECS_GET(s->w, e, s->world, WorldTransform);
    char buf[ECS_ENTITY_STR];
    say((text *)ctx, "  %-5s %*s%-*s (%7.2f, %7.2f) %4.0f deg\n", id(e, buf), 2 * depth, "", 12 - 2 * depth,
        name_of(s, e), shown(wt->x), shown(wt->y), degrees(wt->angle));
}

/* Every tree with its entity ids (examples/solar.h: scene_walk). */
static void tree(text *t, scene *s) {
    t->len = 0;
    t->s[0] = '\0';
    scene_walk(s, tree_line, t);
}

/* --- Comparing two worlds ------------------------------------------------- */

/* Whether two values of component c of scene s are the same. A Name: the
   same text. A Parent: the same fields, not bytes: its pad_ field is
   spelled out and zeroed by the recipe, but a Parent written by hand
   need not zero it, and comparing fields keeps the check about the
   tree. The other
   components have no padding: their bytes are their values. */
static bool same_value(const scene *s, ecs_component c, const void *va, const void *vb) {
    if (c == s->name) return !strcmp(((const Name *)va)->s, ((const Name *)vb)->s);
    if (c == s->h.parent) {
        const Parent *pa = (const Parent *)va, *pb = (const Parent *)vb;
        return pa->count == pb->count && pa->first_child == pb->first_child;
    }
    return memcmp(va, vb, ecs_component_size(s->w, c)) == 0;
}

/* Every component of a, found by name in b, has the same entities in the
   same rows with the same values (same_value), and both worlds have as
   many entities. Prints the first difference. */
static bool same_world(const scene *a, const scene *b) {
    ecs_component c;
    if (ecs_count(a->w) != ecs_count(b->w)) {
        printf("  differ: %u entities, restored %u\n", (unsigned)ecs_count(a->w), (unsigned)ecs_count(b->w));
        return false;
    }
    for (c = 1; c <= ecs_component_max(a->w); c++) {
        const char *name = ecs_component_name(a->w, c);
        ecs_component cb = ecs_lookup(b->w, name);
        const ecs_storage *sa = ecs_storage_of(a->w, c), *sb = cb ? ecs_storage_of(b->w, cb) : NULL;
        uint32_t rows = ecs_storage_count(sa), i;
        size_t size = ecs_component_size(a->w, c);
        if (!sb || ecs_storage_count(sb) != rows ||
            (rows && memcmp(ecs_storage_entities(sa), ecs_storage_entities(sb), rows * sizeof(ecs_entity)))) {
            printf("  differ: the entities of %s\n", name);
            return false;
        }
        for (i = 0; size && i < rows; i++) { /* (a tag has no values) */
            const char *va = (const char *)ecs_storage_data(sa) + i * size;
            const char *vb = (const char *)ecs_storage_data(sb) + i * size;
            if (!same_value(a, c, va, vb)) {
                printf("  differ: the %s of row %u\n", name, (unsigned)i);
                return false;
            }
        }
    }
    return true;
}

/* The same trees, printed with ids: prints the restored one and says so. */
static bool same_tree(scene *a, scene *b, const char *title) {
    static text ta, tb;
    tree(&ta, a);
    tree(&tb, b);
    printf("%s\n%s", title, tb.s);
    if (strcmp(ta.s, tb.s) != 0) {
        printf("  DIFFERENT: the original world prints\n%s", ta.s);
        return false;
    }
    printf("  (the original prints the same)\n\n");
    return true;
}

int main(void) {
    scene s, r; /* the running world and the restored one */
    ecs_entity sun, mars, earth, moon, comet;
    unsigned char *snapshot;
    size_t size;
    bool ok = true;
    int frame;
    char b1[ECS_ENTITY_STR], b2[ECS_ENTITY_STR];

    /* --- 1. run the solar system for a while (as examples/hierarchy.c) */
    if (!scene_new(&s, false)) return 1;
    sun = body(&s, "sun", ECS_NULL, 0, 10);
    mars = body(&s, "mars", sun, 16, 30);
    body(&s, "phobos", mars, 1, 0);
    earth = body(&s, "earth", sun, 10, 90);
    moon = body(&s, "moon", earth, 2, 45);
    body(&s, "lander", moon, 0.5f, 0);
    body(&s, "station", earth, 1, 0);
    hierarchy_sort_children_by(&s.h, sun, by_distance, &s);
    for (frame = 1; frame <= 3; frame++) turn(&s);
    hierarchy_attach(&s.h, moon, mars); /* the moon and its lander move to mars */
    ecs_destroy(s.w, earth);            /* the station is orphaned; earth's slot is free */
    for (frame = 4; frame <= 5; frame++) turn(&s);

    /* --- 2. save it mid-run: ask the size, allocate, save */
    size = ecs_save_buffer(s.w, NULL, 0);
    snapshot = size ? (unsigned char *)malloc(size) : NULL;
    if (!snapshot || ecs_save_buffer(s.w, snapshot, size) != size) {
        printf("save failed: %s\n", ecs_last_error_msg(s.w));
        return 1;
    }
    printf("1. after 5 frames, the moon moved to mars and earth destroyed: saved %lu bytes\n\n",
           (unsigned long)size);

    /* --- 3. load it into a fresh world with the same components */
    if (!scene_new(&r, true)) return 1;
    printf("2. a fresh world registers the components in another order:\n");
    printf("   %-15s %8s %8s\n", "component id", "saved", "loaded");
    printf("   %-15s %8u %8u\n", "Parent", (unsigned)s.h.parent, (unsigned)r.h.parent);
    printf("   %-15s %8u %8u\n", "Child", (unsigned)s.h.child, (unsigned)r.h.child);
    printf("   %-15s %8u %8u\n", "Name", (unsigned)s.name, (unsigned)r.name);
    printf("   %-15s %8u %8u\n", "Spin", (unsigned)s.spin, (unsigned)r.spin);
    printf("   %-15s %8u %8u\n", "Transform", (unsigned)s.local, (unsigned)r.local);
    printf("   %-15s %8u %8u\n\n", "WorldTransform", (unsigned)s.world, (unsigned)r.world);
    if (!ecs_load(r.w, snapshot, size)) {
        printf("load failed: %s\n", ecs_last_error_msg(r.w));
        return 1;
    }
    free(snapshot); /* the world holds its own copy of everything */

    /* --- 4. the restored world is the original */
    ok &= same_tree(&s, &r, "3. loaded; the restored world's tree (entity index:version, name, world position):");
    ok &= same_world(&s, &r);
    printf("   same entity ids, rows and values in every storage: %s\n\n", ok ? "yes" : "NO");

    /* --- 5. run both on alike: they stay alike, and hand out the same ids */
    {
        scene *both[2];
        ecs_entity made[2][3];
        int k;
        both[0] = &s;
        both[1] = &r;
        for (k = 0; k < 2; k++) {
            scene *x = both[k];
            for (frame = 6; frame <= 8; frame++) turn(x);
            /* mars has the same id in both worlds: one variable serves both */
            made[k][0] = body(x, "deimos", mars, 3, 0);
            made[k][1] = comet = body(x, "comet", ECS_NULL, 30, 5);
            made[k][2] = body(x, "probe", comet, 1, 0);
        }
        printf("4. both worlds turn 3 more frames and create deimos, a comet and a probe:\n");
        for (k = 0; k < 3; k++) {
            bool same = made[0][k] == made[1][k];
            printf("   %-7s original %-5s restored %-5s %s\n", name_of(&s, made[0][k]), id(made[0][k], b1),
                   id(made[1][k], b2), same ? "same" : "DIFFERENT");
            ok &= same;
        }
        printf("   (deimos reuses the slot earth left free, with its next version)\n\n");
    }
    ok &= same_tree(&s, &r, "5. the restored world now:");
    ok &= same_world(&s, &r);

    printf("%s\n", ok ? "the restored world behaves as the original" : "FAILED: the worlds differ");
    ecs_world_free(s.w);
    ecs_world_free(r.w);
    return ok ? 0 : 1;
}
