/* hierarchy.h - parents and children as two components, and a transform
   pass on top of them. Shipyard's "Building an Entity Hierarchy" recipe,
   written for ecs.h in C.

   Used by examples/hierarchy.c and tests/test_hierarchy.c. Every function
   is static inline: include this header (after ecs.h) wherever you use it.

   THE DATA

   The tree lives in two components and nowhere else:

       Parent { count, first_child }     on every entity that has children
       Child  { parent, prev, next }     on every entity that has a parent

   Siblings form a circular list: the last child's next is the first child
   and the first child's prev is the last. No link is ever "none", so
   linking and unlinking never test for the ends of the list.

   THE RULES

   - An entity has a Parent exactly when it has at least one child, and a
     Child exactly when it has a parent. Only hierarchy_attach adds them:
     never ECS_ADD a Parent or Child yourself.
   - hierarchy_attach refuses to make an entity its own ancestor (attaching
     it to itself or to one of its descendants) and returns
     HIERARCHY_SELF / HIERARCHY_CYCLE without changing anything.
   - Destroying an entity that is in a hierarchy (ecs_destroy, ecs_strip,
     ecs_defer_destroy + ecs_flush) detaches it from its parent and orphans
     its children: they become roots, each keeping its own subtree. This
     happens inside the destroy, so no link ever points at a dead entity.
     Deleting Child or Parent alone works the same way for that half.
     To destroy a whole subtree, call hierarchy_destroy_all.
     How: on_remove hooks on Parent and Child (see "Hooks" below) do the
     unlinking, whatever takes the component away.
   - Don't change the hierarchy while a hierarchy_iter walks it. In a view
     loop over Parent or Child, defer destroying even the current entity
     (ecs_defer_destroy): its hooks take the Child off its children, which
     are other entities of the storage being walked (ecs.h section 7).
   - hierarchy_init stores a pointer to your `hierarchy` in the hooks: keep
     it at the same address for as long as the world lives.

   USAGE

       hierarchy h;
       hierarchy_init(&h, w);
       ecs_entity sun = ecs_create(w);
       ecs_entity earth = hierarchy_attach_new(&h, sun);
       ecs_entity moon = hierarchy_attach_new(&h, earth);
       for (hierarchy_iter it = hierarchy_descendants(&h, sun); hierarchy_next(&it); )
           ... it.entity is earth, then moon ...
*/
#ifndef HIERARCHY_H
#define HIERARCHY_H

#include <math.h>
#include <stdlib.h>
#include "../ecs.h"

typedef struct Parent {
    uint32_t count;            /* number of children, >= 1 */
    ecs_entity first_child;    /* the head of the sibling ring */
} Parent;

typedef struct Child {
    ecs_entity parent;
    ecs_entity prev, next;     /* siblings; an only child links to itself */
} Child;

typedef struct hierarchy {
    ecs_world *w;
    ecs_component parent, child; /* the ids of Parent and Child */
    ecs_entity orphaning;        /* private: whose children the Parent hook is letting go */
} hierarchy;

typedef enum hierarchy_result {
    HIERARCHY_OK = 0,
    HIERARCHY_DEAD,         /* the child or the parent is not alive */
    HIERARCHY_SELF,         /* attaching an entity to itself */
    HIERARCHY_CYCLE,        /* the parent is a descendant of the child */
    HIERARCHY_NO_MEMORY     /* the child is left detached (a root) */
} hierarchy_result;

static inline const char *hierarchy_result_str(hierarchy_result r) {
    switch (r) {
    case HIERARCHY_OK: return "ok";
    case HIERARCHY_DEAD: return "the child or the parent is not alive";
    case HIERARCHY_SELF: return "an entity cannot be its own parent";
    case HIERARCHY_CYCLE: return "the parent is a descendant of the child (it would make a cycle)";
    case HIERARCHY_NO_MEMORY: return "out of memory";
    }
    return "?";
}

/* The parent of id, or ECS_NULL for a root (or a dead id). */
static inline ecs_entity hierarchy_parent_of(const hierarchy *h, ecs_entity id) {
    const Child *c = ECS_GET(h->w, id, h->child, Child);
    return c ? c->parent : ECS_NULL;
}

/* Whether `ancestor` is id's parent, grandparent, ... */
static inline bool hierarchy_is_ancestor(const hierarchy *h, ecs_entity ancestor, ecs_entity id) {
    while ((id = hierarchy_parent_of(h, id)) != ECS_NULL)
        if (id == ancestor) return true;
    return false;
}

/* --- Hooks ------------------------------------------------------------------
   Whatever takes a Child or a Parent away - hierarchy_detach, ecs_delete,
   ecs_strip, ecs_destroy, a flushed command - runs these first, while the
   value is still in its storage. So there is one piece of code that
   unlinks, and the tree is consistent again when the call returns.

   ecs.h locks a storage while its hook runs (section 12): the Child hook
   may change Child *values* (the siblings' links) but not add or remove
   Child rows, and the same for Parent. Each hook only adds or removes rows
   of the *other* storage. The one place where that would go wrong is
   covered by h->orphaning, see the Parent hook. */

/* A Child leaves: take the entity out of its parent's ring. */
static inline void hierarchy__on_remove_child(ecs_world *w, ecs_entity e, ecs_component c,
                                              void *value, void *user) {
    hierarchy *h = (hierarchy *)user;
    const Child *me = (const Child *)value;
    Parent *p;
    (void)c;
    if (me->parent == h->orphaning) return; /* the whole ring is going: leave it be */
    p = ECS_GET_MUT(w, me->parent, h->parent, Parent);
    if (--p->count == 0) {
        /* the last child: the parent is no longer one. A row of the other
           storage, so this hook may delete it. */
        ecs_delete(w, me->parent, h->parent);
        return;
    }
    if (p->first_child == e) p->first_child = me->next;
    ECS_GET_MUT(w, me->prev, h->child, Child)->next = me->next;
    ECS_GET_MUT(w, me->next, h->child, Child)->prev = me->prev;
}

/* A Parent leaves: its children become roots (they keep their own
   children). Taking the Child from each child runs the Child hook above,
   which would relink a ring that is going away anyway, and at the last
   child would delete this very Parent - a row of the storage that is
   locked right now. h->orphaning tells it to do nothing. */
static inline void hierarchy__on_remove_parent(ecs_world *w, ecs_entity e, ecs_component c,
                                               void *value, void *user) {
    hierarchy *h = (hierarchy *)user;
    const Parent *me = (const Parent *)value; /* stays put: Parent is locked */
    ecs_entity saved = h->orphaning, child = me->first_child;
    uint32_t i, n = me->count;
    (void)c;
    h->orphaning = e;
    for (i = 0; i < n; i++) {
        /* read the link before the delete: it swap-removes a Child row,
           which may move the one we would read afterwards */
        ecs_entity next = ECS_GET(w, child, h->child, Child)->next;
        ecs_delete(w, child, h->child);
        child = next;
    }
    h->orphaning = saved;
}

/* Registers Parent and Child and installs their hooks. False if the world
   is out of memory. */
static inline bool hierarchy_init(hierarchy *h, ecs_world *w) {
    ecs_hooks parent_hooks = {NULL, hierarchy__on_remove_parent, NULL};
    ecs_hooks child_hooks = {NULL, hierarchy__on_remove_child, NULL};
    h->w = w;
    h->parent = ECS_COMPONENT(w, Parent);
    h->child = ECS_COMPONENT(w, Child);
    h->orphaning = ECS_NULL;
    parent_hooks.user = child_hooks.user = h;
    return h->parent && h->child && ecs_hooks_set(w, h->parent, &parent_hooks) &&
           ecs_hooks_set(w, h->child, &child_hooks);
}

/* --- Attaching and detaching --------------------------------------------- */

/* Takes id away from its parent; its own children stay with it. False if
   it had no parent. (The Child hook does the unlinking.) */
static inline bool hierarchy_detach(hierarchy *h, ecs_entity id) {
    return ecs_delete(h->w, id, h->child);
}

/* Makes id the last child of parent. id may already be in a tree: it is
   detached first and moves with its whole subtree. Refused, with nothing
   changed: a dead id or parent, id == parent, parent below id. */
static inline hierarchy_result hierarchy_attach(hierarchy *h, ecs_entity id, ecs_entity parent) {
    ecs_world *w = h->w;
    Parent *p;
    Child *c, *first;
    if (!ecs_alive(w, id) || !ecs_alive(w, parent)) return HIERARCHY_DEAD;
    if (id == parent) return HIERARCHY_SELF;
    /* (only an entity with children can be above parent: skip the walk up) */
    if (ecs_has(w, id, h->parent) && hierarchy_is_ancestor(h, id, parent)) return HIERARCHY_CYCLE;

    hierarchy_detach(h, id);
    /* A parent without children has no Parent yet: start with an empty one. */
    if (!ecs_has(w, parent, h->parent) && !ECS_ADD(w, parent, h->parent, Parent, {0, ECS_NULL}))
        return HIERARCHY_NO_MEMORY;
    if (!ECS_ADD(w, id, h->child, Child, {parent, id, id})) {
        if (ECS_GET(w, parent, h->parent, Parent)->count == 0) ecs_delete(w, parent, h->parent);
        return HIERARCHY_NO_MEMORY;
    }
    /* Fetch the pointers only now: each add above may have grown (moved)
       its storage (ecs.h section 14). From here on we only write values. */
    p = ECS_GET_MUT(w, parent, h->parent, Parent);
    c = ECS_GET_MUT(w, id, h->child, Child);
    if (p->count++ == 0) {
        p->first_child = id; /* an only child: c already links to itself */
        return HIERARCHY_OK;
    }
    /* Last in the ring = between the current last child and the first. */
    first = ECS_GET_MUT(w, p->first_child, h->child, Child);
    c->prev = first->prev;
    c->next = p->first_child;
    ECS_GET_MUT(w, first->prev, h->child, Child)->next = id;
    first->prev = id;
    return HIERARCHY_OK;
}

/* A new entity, attached to parent. ECS_NULL if parent is dead or memory
   ran out. */
static inline ecs_entity hierarchy_attach_new(hierarchy *h, ecs_entity parent) {
    ecs_entity id;
    if (!ecs_alive(h->w, parent)) return ECS_NULL;
    id = ecs_create(h->w);
    if (id != ECS_NULL && hierarchy_attach(h, id, parent) != HIERARCHY_OK) {
        ecs_destroy(h->w, id);
        id = ECS_NULL;
    }
    return id;
}

/* --- Traversal ----------------------------------------------------------
   An iterator is a small struct on your stack; it owns no memory:

       for (hierarchy_iter it = hierarchy_children(&h, e); hierarchy_next(&it); )
           use(it.entity);

   children     e's children, first to last.
   ancestors    e's parent, its parent, ... up to the root (nearest first).
   descendants  e's subtree without e, depth-first, pre-order: each entity
                before its children, so a parent is always visited before
                its children (what a transform pass needs).

   The recipe walks descendants with a stack of (cursor, children left) per
   level. Child already links each entity to its parent, so this walk
   climbs back up instead: no stack, no allocation, no depth limit, and no
   recursion. Don't change the hierarchy while iterating. */

enum { HIERARCHY__CHILDREN, HIERARCHY__ANCESTORS, HIERARCHY__DESCENDANTS };

typedef struct hierarchy_iter {
    ecs_entity entity;      /* the current entity, after hierarchy_next returned true */
    /* private */
    const hierarchy *h;
    ecs_entity next;        /* the entity the next call hands out; ECS_NULL: done */
    ecs_entity root;        /* descendants: where the walk began */
    uint32_t left;          /* children: how many are left */
    int kind;
} hierarchy_iter;

static inline hierarchy_iter hierarchy__iter(const hierarchy *h, int kind, ecs_entity root,
                                             ecs_entity next, uint32_t left) {
    hierarchy_iter it;
    it.entity = ECS_NULL;
    it.h = h;
    it.next = next;
    it.root = root;
    it.left = left;
    it.kind = kind;
    return it;
}

static inline hierarchy_iter hierarchy_children(const hierarchy *h, ecs_entity id) {
    const Parent *p = ECS_GET(h->w, id, h->parent, Parent);
    return hierarchy__iter(h, HIERARCHY__CHILDREN, id, p ? p->first_child : ECS_NULL,
                           p ? p->count : 0);
}

static inline hierarchy_iter hierarchy_ancestors(const hierarchy *h, ecs_entity id) {
    return hierarchy__iter(h, HIERARCHY__ANCESTORS, id, hierarchy_parent_of(h, id), 0);
}

static inline hierarchy_iter hierarchy_descendants(const hierarchy *h, ecs_entity id) {
    const Parent *p = ECS_GET(h->w, id, h->parent, Parent);
    return hierarchy__iter(h, HIERARCHY__DESCENDANTS, id, p ? p->first_child : ECS_NULL, 0);
}

/* The entity after e in a pre-order walk of root's subtree: e's first
   child if it has children; else the next sibling of e or of its nearest
   ancestor below root that is not a last child; else none. */
static inline ecs_entity hierarchy__preorder_next(const hierarchy *h, ecs_entity root, ecs_entity e) {
    const Parent *p = ECS_GET(h->w, e, h->parent, Parent);
    if (p) return p->first_child;
    while (e != root) {
        const Child *c = ECS_GET(h->w, e, h->child, Child);
        /* e is the last child when its next wraps around to the first */
        if (c->next != ECS_GET(h->w, c->parent, h->parent, Parent)->first_child) return c->next;
        e = c->parent;
    }
    return ECS_NULL;
}

static inline bool hierarchy_next(hierarchy_iter *it) {
    const hierarchy *h = it->h;
    ecs_entity e = it->next;
    if (e == ECS_NULL) return false;
    it->entity = e;
    switch (it->kind) {
    case HIERARCHY__CHILDREN:
        it->next = --it->left ? ECS_GET(h->w, e, h->child, Child)->next : ECS_NULL;
        break;
    case HIERARCHY__ANCESTORS:
        it->next = hierarchy_parent_of(h, e);
        break;
    default:
        it->next = hierarchy__preorder_next(h, it->root, e);
        break;
    }
    return true;
}

/* --- Removing -------------------------------------------------------------- */

/* Takes id out of the hierarchy: detached from its parent, its children
   orphaned (they become roots, keeping their own subtrees). id stays
   alive. (Deleting Child and Parent; the hooks do the rest.) */
static inline void hierarchy_remove(hierarchy *h, ecs_entity id) {
    ecs_delete(h->w, id, h->child);
    ecs_delete(h->w, id, h->parent);
}

/* Leaves first: go down to a leaf, take it, go back to its parent, repeat.
   A leaf has no children, so taking it only detaches it - and once its
   last child is gone, the parent is a leaf too. No allocation and no
   recursion; each entity is reached once. */
static inline void hierarchy__take_subtree(hierarchy *h, ecs_entity id, bool destroy) {
    ecs_entity e = id, up;
    const Parent *p;
    if (!ecs_alive(h->w, id)) return;
    for (;;) {
        while ((p = ECS_GET(h->w, e, h->parent, Parent)) != NULL) e = p->first_child;
        up = hierarchy_parent_of(h, e); /* read it before e goes */
        if (destroy)
            ecs_destroy(h->w, e);
        else
            ecs_delete(h->w, e, h->child);
        if (e == id) return;
        e = up;
    }
}

/* Takes id and its whole subtree out of the hierarchy (the recipe's
   remove_all): every entity of it stays alive, with no Parent or Child;
   id is detached from its parent. */
static inline void hierarchy_remove_all(hierarchy *h, ecs_entity id) {
    hierarchy__take_subtree(h, id, false);
}

/* Destroys id and its whole subtree (what a game usually wants when a
   parent dies; plain ecs_destroy would orphan the children instead). */
static inline void hierarchy_destroy_all(hierarchy *h, ecs_entity id) {
    hierarchy__take_subtree(h, id, true);
}

/* --- Sorting --------------------------------------------------------------- */

/* Like strcmp: negative if a goes before b. May read the world, not change it. */
typedef int (*hierarchy_cmp)(ecs_entity a, ecs_entity b, void *ctx);

/* Reorders id's children by cmp (stable: equal ones keep their order).
   Only the links change; no component moves. False if out of memory. */
static inline bool hierarchy_sort_children_by(hierarchy *h, ecs_entity id, hierarchy_cmp cmp,
                                              void *ctx) {
    const Parent *p = ECS_GET(h->w, id, h->parent, Parent);
    hierarchy_iter it;
    ecs_entity *kids, k;
    uint32_t n, i, j;
    if (!p || p->count < 2) return true;
    n = p->count;
    kids = (ecs_entity *)malloc(n * sizeof *kids);
    if (!kids) return false;
    /* 1. the children into an array, 2. sort it (insertion sort: stable and
       plenty for sibling lists; use a merge sort for thousands) */
    for (i = 0, it = hierarchy_children(h, id); hierarchy_next(&it);) kids[i++] = it.entity;
    for (i = 1; i < n; i++) {
        for (k = kids[i], j = i; j > 0 && cmp(kids[j - 1], k, ctx) > 0; j--) kids[j] = kids[j - 1];
        kids[j] = k;
    }
    /* 3. relink the ring in that order */
    ECS_GET_MUT(h->w, id, h->parent, Parent)->first_child = kids[0];
    for (i = 0; i < n; i++) {
        Child *c = ECS_GET_MUT(h->w, kids[i], h->child, Child);
        c->prev = kids[(i + n - 1) % n];
        c->next = kids[(i + 1) % n];
    }
    free(kids);
    return true;
}

/* --- Transforms -----------------------------------------------------------
   What a hierarchy is usually for: children move with their parent.
   Transform is an entity's placement relative to its parent (a root's is
   relative to the world); hierarchy_update_transforms computes every
   WorldTransform from them, parents before children, so one pass is
   enough. Moving, turning or re-attaching a parent moves its whole subtree
   on the next pass. */

typedef struct Transform {
    float x, y;   /* position in the parent's frame */
    float angle;  /* radians, counter-clockwise, added to the parent's */
} Transform;

typedef struct WorldTransform {
    float x, y, angle;
} WorldTransform;

/* parent's frame applied to local: rotate local's position by the
   parent's angle, then move it to the parent's position */
static inline WorldTransform transform_combine(WorldTransform parent, Transform local) {
    float c = cosf(parent.angle), s = sinf(parent.angle);
    WorldTransform out;
    out.x = parent.x + c * local.x - s * local.y;
    out.y = parent.y + s * local.x + c * local.y;
    out.angle = parent.angle + local.angle;
    return out;
}

/* For every root (a Transform without a Child), its WorldTransform is its
   Transform; then each descendant, in pre-order, combines its parent's
   WorldTransform (just computed) with its own Transform. Give every entity
   of a transform tree both components: the pass starts at roots that have
   both and skips an entity that lacks one. Only values change here, so the
   field pointers stay valid throughout. */
static inline void hierarchy_update_transforms(const hierarchy *h, ecs_component local,
                                               ecs_component world) {
    static const WorldTransform origin = {0, 0, 0};
    ecs_view_desc roots;
    ecs_iter it;
    memset(&roots, 0, sizeof roots);
    roots.terms[0].c = local;
    roots.terms[1].c = world;
    roots.terms[1].flags = ECS_WRITE;
    roots.terms[2].c = h->child;
    roots.terms[2].flags = ECS_NOT;
    for (it = ecs_view(h->w, &roots); ecs_iter_next(&it);) {
        const Transform *t = ECS_FIELD(&it, 0, Transform);
        WorldTransform *wt = ECS_FIELD(&it, 1, WorldTransform);
        hierarchy_iter d;
        wt->x = t->x, wt->y = t->y, wt->angle = t->angle;
        for (d = hierarchy_descendants(h, ecs_iter_entity(&it)); hierarchy_next(&d);) {
            const Transform *lt = ECS_GET(h->w, d.entity, local, Transform);
            const WorldTransform *pw = ECS_GET(h->w, hierarchy_parent_of(h, d.entity), world, WorldTransform);
            WorldTransform *dw = ECS_GET_MUT(h->w, d.entity, world, WorldTransform);
            if (lt && dw) *dw = transform_combine(pw ? *pw : origin, *lt);
        }
    }
}

#endif /* HIERARCHY_H */
