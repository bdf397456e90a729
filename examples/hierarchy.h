/* hierarchy.h - parents and children as two components, and a transform
   pass on top of them. Shipyard's "Building an Entity Hierarchy" recipe,
   written for ecs.h in C.

   Used by examples/hierarchy.c and tests/test_hierarchy.c. Every function
   is static inline: include this header (after ecs.h) wherever you use it.

   THE DATA

   The tree lives in two components and nowhere else:

       Parent { first_child, count }     on every entity that has children
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
     loop over Parent or Child, change the hierarchy only through the
     command buffer (ecs_defer_destroy, ecs_defer_delete), even for the
     current entity: destroying it, hierarchy_detach/_remove/_remove_all,
     ecs_delete of its Parent or ecs_strip run hooks that take or give
     rows of *other* entities in the storage being walked (ecs.h
     section 7).
   - Never ecs_clone an entity that has a Parent or a Child: the copy
     would claim links the tree does not have (a child the parent does not
     count, children that are not its own), and its hooks would unlink the
     original's. Clone a template that is in no tree, then attach it.
   - Out of memory. The hooks' deletes need memory only when deletions of
     Parent or Child are tracked (ecs.h section 11). If one fails inside
     a hook, the tree stays consistent with the smallest change: a parent
     keeps an empty Parent (count 0: no children), an orphan keeps a Child
     whose parent is ECS_NULL (a root). Every function here reads them
     so; hierarchy_attach fills an empty Parent and replaces a stale
     Child. hierarchy_remove_all and hierarchy_destroy_all stop and
     return false where a step fails (what they took is gone, the rest is
     still a tree); hierarchy_attach returns HIERARCHY_NO_MEMORY with the
     tree as it was (the new parent may keep the empty Parent it was
     given, if deleting it fails too).
   - hierarchy_init stores a pointer to your `hierarchy` in the hooks: keep
     it at the same address for as long as the world lives.
   - Transforms (the last sections): give an entity both Transform and
     WorldTransform to place it. The first hierarchy_update_transforms (or
     hierarchy_transforms_init) takes over those two storages: a group
     owns them and their hooks keep them in parent-first order, so the
     pass is one loop over arrays. The order's memory is freed when the
     last placed entity goes (ecs_world_free destroys them all first).

   USAGE

       hierarchy h;
       hierarchy_init(&h, w);
       ecs_entity sun = ecs_create(w);
       ecs_entity earth = hierarchy_attach_new(&h, sun);
       ecs_entity moon = hierarchy_attach_new(&h, earth);
       for (hierarchy_iter it = hierarchy_descendants(&h, sun); hierarchy_next(&it); )
           ... it.entity is earth, then moon ...

   and with transforms (Transform and WorldTransform registered as local
   and world, each entity given both):

       hierarchy_update_transforms(&h, local, world);   every WorldTransform
       ECS_GET_MUT(w, moon, local, Transform)->angle += 0.1f;
       hierarchy_mark_moved(&h, moon);
       hierarchy_update_moved(&h);                       the moon's subtree only
*/
#ifndef HIERARCHY_H
#define HIERARCHY_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../ecs.h"

/* Parent and Child are saved as their bytes (examples/save_load.c), so
   they are laid out alike on every machine: largest fields first, the
   padding spelled out (ecs.h section 17, "Components that travel"). With
   a uint32_t before the ecs_entity, Parent would be 16 bytes on x86-64
   and 12 on i386, and a snapshot would not load across them. */
typedef struct Parent {
    ecs_entity first_child;    /* the head of the sibling ring */
    uint32_t count;            /* number of children, >= 1 */
    uint32_t pad_;             /* always 0 */
} Parent;

typedef struct Child {
    ecs_entity parent;
    ecs_entity prev, next;     /* siblings; an only child links to itself */
} Child;

/* One step of a pass over the hierarchy (see "Parent-first order" below):
   the entity at `row` of the local and world storages, whose parent is at
   row `up` of them. */
typedef struct hierarchy_step {
    uint32_t row; /* HIERARCHY_NONE: a hole, skip it */
    uint32_t up;  /* HIERARCHY_NONE: placed from the origin (a root) */
} hierarchy_step;
#define HIERARCHY_NONE 0xffffffffu

/* private: the parent-first order of hierarchy_transforms_init */
typedef struct hierarchy__plan {
    ecs_component local, world; /* 0: no order kept */
    ecs_group group;            /* owns local and world: one row indexes both */
    size_t size;                /* of a world value: its address gives its row */
    hierarchy_step *steps;      /* n steps, parents first; holes have row NONE */
    uint32_t n, holes, cap;
    uint32_t *at;               /* at[row]: the step of the entity at that row */
    uint32_t at_cap;
    uint64_t *moved;            /* bit i: step i moved since the last plan */
    uint64_t *kids;             /* bit i: step i's entity has children (a Parent) */
    uint32_t nmoved;
    hierarchy_step *out;        /* what hierarchy_plan_moved hands out */
    uint32_t out_cap;
    unsigned char *dirty;       /* hierarchy_plan_moved's scratch: a byte per row */
    uint32_t dirty_cap;
    bool lost;                  /* rebuild at the next plan (memory ran out in a hook) */
} hierarchy__plan;

typedef struct hierarchy {
    ecs_world *w;
    ecs_component parent, child; /* the ids of Parent and Child */
    ecs_entity orphaning;        /* private: whose children the Parent hook is letting go */
    hierarchy__plan plan;        /* private */
} hierarchy;

typedef enum hierarchy_result {
    HIERARCHY_OK = 0,
    HIERARCHY_DEAD,         /* the child or the parent is not alive */
    HIERARCHY_SELF,         /* attaching an entity to itself */
    HIERARCHY_CYCLE,        /* the parent is a descendant of the child */
    HIERARCHY_NO_MEMORY     /* out of memory: the tree as before (the new parent may
                               keep an empty Parent: see "Out of memory") */
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
   covered by h->orphaning, see the Parent hook.
   They also tell the parent-first order (below) that e lost its parent,
   or its last child (hierarchy_attach tells it of a first child). */

static inline void hierarchy__plan_unparent(hierarchy *h, ecs_entity e);
static inline void hierarchy__plan_attached(hierarchy *h, ecs_entity e, ecs_entity parent, bool first);
static inline void hierarchy__plan_kids(hierarchy *h, ecs_entity e, bool kids);

/* A Child leaves: take the entity out of its parent's ring. */
static inline void hierarchy__on_remove_child(ecs_world *w, ecs_entity e, ecs_component c,
                                              void *value, void *user) {
    hierarchy *h = (hierarchy *)user;
    const Child *me = (const Child *)value;
    Parent *p;
    (void)c;
    hierarchy__plan_unparent(h, e);
    if (me->parent == h->orphaning) return; /* the whole ring is going: leave it be */
    if (me->parent == ECS_NULL) return;     /* a root already (see "Out of memory") */
    p = ECS_GET_MUT(w, me->parent, h->parent, Parent);
    if (--p->count == 0) {
        /* the last child: the parent is no longer one. A row of the other
           storage, so this hook may delete it; if that fails, the Parent
           stays, empty. */
        if (!ecs_delete(w, me->parent, h->parent)) hierarchy__plan_kids(h, me->parent, false);
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
    hierarchy__plan_kids(h, e, false);
    h->orphaning = e;
    for (i = 0; i < n; i++) {
        /* read the link before the delete: it swap-removes a Child row,
           which may move the one we would read afterwards */
        Child *kid = ECS_GET_MUT(w, child, h->child, Child);
        ecs_entity next = kid->next;
        if (!ecs_delete(w, child, h->child)) { /* out of memory: it stays, a root */
            hierarchy__plan_unparent(h, child); /* (its hook did not run) */
            kid = ECS_GET_MUT(w, child, h->child, Child);
            kid->parent = ECS_NULL, kid->prev = kid->next = child;
        }
        child = next;
    }
    h->orphaning = saved;
}

/* Registers Parent and Child and installs their hooks. False if the world
   is out of memory. */
static inline bool hierarchy_init(hierarchy *h, ecs_world *w) {
    ecs_hooks parent_hooks = {NULL, hierarchy__on_remove_parent, NULL, NULL};
    ecs_hooks child_hooks = {NULL, hierarchy__on_remove_child, NULL, NULL};
    h->w = w;
    h->parent = ECS_COMPONENT(w, Parent);
    h->child = ECS_COMPONENT(w, Child);
    h->orphaning = ECS_NULL;
    memset(&h->plan, 0, sizeof h->plan);
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

/* Deletes parent's Parent if it has no children (an attach that failed). */
static inline void hierarchy__drop_empty(hierarchy *h, ecs_entity parent) {
    const Parent *p = ECS_GET(h->w, parent, h->parent, Parent);
    if (p && p->count == 0) ecs_delete(h->w, parent, h->parent);
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

    /* A parent without children has no Parent yet: start with an empty one
       (zeroed by ecs_add, its padding too, so a snapshot's bytes of it
       are all defined). It comes first: every step that may run out of
       memory comes before the first that changes the tree. */
    if (!ecs_has(w, parent, h->parent) && !ecs_add(w, parent, h->parent, NULL)) return HIERARCHY_NO_MEMORY;
    if (ecs_has(w, id, h->child) && !hierarchy_detach(h, id)) {
        hierarchy__drop_empty(h, parent); /* (the detach changed nothing) */
        return HIERARCHY_NO_MEMORY;
    }
    /* id was parent's only child: the detach took the Parent, and its row is
       free again (no allocation) */
    if (!ecs_has(w, parent, h->parent) && !ecs_add(w, parent, h->parent, NULL)) return HIERARCHY_NO_MEMORY;
    if (!ECS_ADD(w, id, h->child, Child, {parent, id, id})) {
        hierarchy__drop_empty(h, parent);
        return HIERARCHY_NO_MEMORY;
    }
    /* Fetch the pointers only now: each add above may have grown (moved)
       its storage (ecs.h section 18). From here on we only write values. */
    p = ECS_GET_MUT(w, parent, h->parent, Parent);
    c = ECS_GET_MUT(w, id, h->child, Child);
    if (p->count++ == 0) {
        p->first_child = id; /* an only child: c already links to itself */
        hierarchy__plan_attached(h, id, parent, true);
        return HIERARCHY_OK;
    }
    /* Last in the ring = between the current last child and the first. */
    first = ECS_GET_MUT(w, p->first_child, h->child, Child);
    c->prev = first->prev;
    c->next = p->first_child;
    ECS_GET_MUT(w, first->prev, h->child, Child)->next = id;
    first->prev = id;
    hierarchy__plan_attached(h, id, parent, false);
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
    return hierarchy__iter(h, HIERARCHY__CHILDREN, id, p && p->count ? p->first_child : ECS_NULL,
                           p ? p->count : 0);
}

static inline hierarchy_iter hierarchy_ancestors(const hierarchy *h, ecs_entity id) {
    return hierarchy__iter(h, HIERARCHY__ANCESTORS, id, hierarchy_parent_of(h, id), 0);
}

static inline hierarchy_iter hierarchy_descendants(const hierarchy *h, ecs_entity id) {
    const Parent *p = ECS_GET(h->w, id, h->parent, Parent);
    return hierarchy__iter(h, HIERARCHY__DESCENDANTS, id, p && p->count ? p->first_child : ECS_NULL, 0);
}

/* The entity after e in a pre-order walk of root's subtree: e's first
   child if it has children (and descend is true: false skips e's
   subtree); else the next sibling of e or of its nearest ancestor below
   root that is not a last child; else none. */
static inline ecs_entity hierarchy__preorder_next(const hierarchy *h, ecs_entity root, ecs_entity e,
                                                  bool descend) {
    const Parent *p = descend ? ECS_GET(h->w, e, h->parent, Parent) : NULL;
    if (p && p->count) return p->first_child;
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
        it->next = hierarchy__preorder_next(h, it->root, e, true);
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
static inline bool hierarchy__take_subtree(hierarchy *h, ecs_entity id, bool destroy) {
    ecs_entity e = id, up;
    const Parent *p;
    if (!ecs_alive(h->w, id)) return true;
    for (;;) {
        while ((p = ECS_GET(h->w, e, h->parent, Parent)) != NULL && p->count) e = p->first_child;
        up = hierarchy_parent_of(h, e); /* read it before e goes */
        /* out of memory: the step changed nothing (an empty Parent, left
           by an earlier failure, goes first: e stays in the tree until
           it has nothing else) */
        if (destroy ? !ecs_destroy(h->w, e)
                    : (!ecs_delete(h->w, e, h->parent) && ecs_has(h->w, e, h->parent)) ||
                          (!ecs_delete(h->w, e, h->child) && ecs_has(h->w, e, h->child)))
            return false;
        if (e == id) return true;
        e = up;
    }
}

/* Takes id and its whole subtree out of the hierarchy (the recipe's
   remove_all): every entity of it stays alive, with no Parent or Child;
   id is detached from its parent. False if memory ran out (see "Out of
   memory"): the entities not yet taken are still a tree. */
static inline bool hierarchy_remove_all(hierarchy *h, ecs_entity id) {
    return hierarchy__take_subtree(h, id, false);
}

/* Destroys id and its whole subtree (what a game usually wants when a
   parent dies; plain ecs_destroy would orphan the children instead).
   False if memory ran out, as hierarchy_remove_all. */
static inline bool hierarchy_destroy_all(hierarchy *h, ecs_entity id) {
    return hierarchy__take_subtree(h, id, true);
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
   on the next pass. To do it in one loop over arrays, the hierarchy keeps
   the entities that have both components in parent-first order ("Parent-
   first order" below); hierarchy_update_moved recomputes only the
   subtrees of what moved. */

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

/* --- Parent-first order -----------------------------------------------------
   THE PATTERN (to copy for a hierarchy of your own). A transform pass sets
   world = parent's world (+) local for every entity, each parent before
   its children. Walking the links to do it (hierarchy_descendants, then a
   lookup of each value) costs several dependent lookups per entity. A
   program without an ECS stores the tree as arrays in an order where every
   parent comes first, with the parent's index beside each node, and runs

       for (k = 1; k < n; k++) world[k] = combine(world[parent[k]], local[k]);

   This section keeps that loop possible over the rows of ecs.h's storages.
   A *plan* lists every placed entity (one that has both the local and the
   world component) as a step {row, up}: its row, and its parent's row,
   parents' steps before their children's. A pass is one loop:

       const Transform *local = ecs_storage_data(ecs_storage_of(w, local_c));
       WorldTransform *world = ecs_storage_data(ecs_storage_of_mut(w, world_c));
       const hierarchy_step *s = hierarchy_plan_all(h, &n);
       for (i = 0; i < n; i++) {
           uint32_t r = s[i].row, up = s[i].up;
           if (r == HIERARCHY_NONE) continue;                 // a hole
           world[r] = combine(up == HIERARCHY_NONE ? origin : world[up], local[r]);
       }

   hierarchy_update_transforms is that loop for Transform and
   WorldTransform; for components of your own (3D, matrices), give them to
   hierarchy_transforms_init and write the loop with your combine.
   Four things keep the plan true, each in one place:
   1. A group owns local and world (ecs.h section 13): the placed entities
      sit in the same rows of both, so one row indexes both.
   2. Rows move only when an entity joins the group (a new row at the end)
      or leaves it (the group's last entity moves into the leaver's row).
      Hooks on both storages see each: a joining entity's step is appended
      (its parent's step is already there: parents stay first); a
      leaver's step becomes a hole, and the entity moved into its row has
      its step, and its children's up, rewritten.
   3. The hierarchy's edits keep parents first: attaching under a parent
      whose step comes later moves the subtree's steps to the end, in
      pre-order; so does an entity placed after its children, for theirs.
      Only steps move, never rows. Losing a parent (detach, orphaning, the
      parent leaving the group) sets up to NONE: placed from the origin.
   4. Holes are squeezed out once they are a quarter of the plan.
   Trees spawned parents first (the usual way) get their rows in plan
   order, so the loop reads each array front to back like the raw one.
   After edits, some steps point at rows elsewhere: ecs.h moves a row only
   to the end (swap-remove) or sorts a whole storage, which would cost far
   more than the edit, so the plan visits such a row where it is.

   ONLY WHAT MOVED. hierarchy_mark_moved(h, e) sets a bit beside e's step,
   as ECS_GET_MUT stamps a row for ecs.h's tracking; attaching, detaching
   and placing an entity set it too. hierarchy_plan_moved hands out the
   steps of the marked entities' subtrees only (parents first in each) and
   clears the bits: the same loop, over what moved. A marked entity
   without children costs its step; from the first marked one with
   children on, the plan is swept once, at about the cost of a full pass,
   so a pass over what moved never costs much more than two full ones.
   The world values must be right after the previous pass. Why not ecs.h's modification tracking: it stamps rows, so finding
   the changed ones reads every stamp, which at 1M entities costs more
   than the whole pass over 1% of them (bench/README.md). A mark is set by
   the call that makes the change, and found in a scan of one bit per
   step. To feed the plan from ecs.h's tracking anyway, mark what an
   ECS_MODIFIED view of the local component yields.

   What it asks of you: hierarchy_transforms_init takes over the two
   storages' hooks and owns them in a group (no other group may own them,
   and ecs_sort cannot sort them: section 13); add or remove them in a
   loop over either only through ecs_defer_*. ecs_load runs no hooks: the
   next plan sees that its steps do not match the group's rows and
   rebuilds itself from them. */

/* The group row of e's values; NONE if e is not placed. */
static inline uint32_t hierarchy__row(const hierarchy *h, ecs_entity e) {
    const ecs_storage *s = ecs_storage_of(h->w, h->plan.world);
    const char *v = (const char *)ecs_storage_get(s, e);
    uint32_t r;
    if (!v) return HIERARCHY_NONE;
    r = (uint32_t)((size_t)(v - (const char *)ecs_storage_data(s)) / h->plan.size);
    return r < ecs_group_count(h->w, h->plan.group) ? r : HIERARCHY_NONE;
}

/* The step of the entity at row r; NONE if r is NONE or (while the plan
   is built) not planned yet. A row's at[] may be stale: the step must name
   the row. */
static inline uint32_t hierarchy__step_at(const hierarchy *h, uint32_t r) {
    uint32_t i;
    if (r >= h->plan.at_cap) return HIERARCHY_NONE;
    i = h->plan.at[r];
    return i < h->plan.n && h->plan.steps[i].row == r ? i : HIERARCHY_NONE;
}

/* e's step; NONE if e is not placed (or not planned yet). */
static inline uint32_t hierarchy__step_of(const hierarchy *h, ecs_entity e) {
    return hierarchy__step_at(h, hierarchy__row(h, e));
}

static inline bool hierarchy__bit(const uint64_t *bits, uint32_t i) { return bits[i / 64] >> (i % 64) & 1u; }
static inline void hierarchy__set_bit(uint64_t *bits, uint32_t i, bool on) {
    uint64_t bit = (uint64_t)1 << (i % 64);
    bits[i / 64] = on ? bits[i / 64] | bit : bits[i / 64] & ~bit;
}

/* Step i moved (on) or was handed out (off). */
static inline void hierarchy__mark(hierarchy *h, uint32_t i, bool on) {
    if (hierarchy__bit(h->plan.moved, i) == on) return;
    hierarchy__set_bit(h->plan.moved, i, on);
    h->plan.nmoved += on ? 1u : (uint32_t)-1;
}

/* Step i becomes a hole (its entity left, or its step moved on): a hole
   is never marked. */
static inline void hierarchy__hole(hierarchy *h, uint32_t i) {
    h->plan.steps[i].row = HIERARCHY_NONE;
    h->plan.holes++;
    hierarchy__mark(h, i, false);
}

/* The index of the lowest set bit of x (x != 0): the compiler's builtin,
   else de Bruijn multiplication. */
static inline uint32_t hierarchy__lowest_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_ctzll(x);
#else
    static const unsigned char index[64] = {
        0,  1,  48, 2,  57, 49, 28, 3,  61, 58, 50, 42, 38, 29, 17, 4,  62, 55, 59, 36, 53, 51,
        43, 22, 45, 39, 33, 30, 24, 18, 12, 5,  63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21,
        44, 32, 23, 11, 46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,  13, 8,  7,  6};
    return index[((x & (0 - x)) * 0x03f79d71b4cb0a89ull) >> 58];
#endif
}

/* p grown to hold at least need items of size (doubling); NULL, with p
   and *cap kept, when memory runs out. */
static inline void *hierarchy__grow(void *p, uint32_t *cap, uint32_t need, size_t size) {
    uint64_t c = *cap ? *cap : 64;
    void *q;
    while (c < need) c *= 2;
    if (c > 0xffffffffu || c > (uint64_t)((size_t)-1 / size) || !(q = realloc(p, (size_t)c * size))) return NULL;
    *cap = (uint32_t)c;
    return q;
}

/* Room for rows 0..rows-1 in at[] (new ones NONE). */
static inline bool hierarchy__reserve_rows(hierarchy *h, uint32_t rows) {
    uint32_t old = h->plan.at_cap;
    void *q;
    if (rows <= old) return true;
    if (!(q = hierarchy__grow(h->plan.at, &h->plan.at_cap, rows, sizeof *h->plan.at))) return false;
    h->plan.at = (uint32_t *)q;
    memset(h->plan.at + old, 0xff, (size_t)(h->plan.at_cap - old) * sizeof *h->plan.at);
    return true;
}

/* bits (words of them) grown to more words, the new ones 0. */
static inline bool hierarchy__grow_bits(uint64_t **bits, uint32_t words, uint32_t more) {
    void *q = realloc(*bits, (size_t)more * sizeof **bits);
    if (!q) return false;
    *bits = (uint64_t *)q;
    memset(*bits + words, 0, (size_t)(more - words) * sizeof **bits);
    return true;
}

/* Appends the step {row, up} (row < at_cap), whose entity has children
   or not. False if out of memory. */
static inline bool hierarchy__append(hierarchy *h, uint32_t row, uint32_t up, bool kids) {
    hierarchy__plan *pl = &h->plan;
    if (pl->n == pl->cap) { /* the steps and their bits grow together */
        uint32_t cap = pl->cap, words = (cap + 63) / 64;
        void *q = hierarchy__grow(pl->steps, &cap, pl->n + 1, sizeof *pl->steps);
        if (!q) return false;
        pl->steps = (hierarchy_step *)q;
        if (!hierarchy__grow_bits(&pl->moved, words, (cap + 63) / 64) ||
            !hierarchy__grow_bits(&pl->kids, words, (cap + 63) / 64))
            return false;
        pl->cap = cap;
    }
    pl->steps[pl->n].row = row;
    pl->steps[pl->n].up = up;
    hierarchy__set_bit(pl->kids, pl->n, kids);
    pl->at[row] = pl->n++;
    return true;
}

/* Frees the plan's arrays (it keeps its components and group). */
static inline void hierarchy__plan_clear(hierarchy *h) {
    hierarchy__plan *pl = &h->plan;
    free(pl->steps);
    free(pl->at);
    free(pl->moved);
    free(pl->kids);
    free(pl->out);
    free(pl->dirty);
    pl->steps = pl->out = NULL;
    pl->at = NULL;
    pl->moved = pl->kids = NULL;
    pl->dirty = NULL;
    pl->n = pl->holes = pl->cap = pl->at_cap = pl->nmoved = pl->out_cap = pl->dirty_cap = 0;
    pl->lost = false;
}

/* Moves the steps of e's subtree to the end, in pre-order, after a
   parent's step that came after e's. Rows stay; the old steps become
   holes. Placed entities under an unplaced one are placed from the
   origin: they need not move. False if out of memory. */
static inline bool hierarchy__move_last(hierarchy *h, ecs_entity e) {
    ecs_entity x = e;
    while (x) {
        uint32_t i = hierarchy__step_of(h, x);
        if (i != HIERARCHY_NONE) {
            hierarchy_step s = h->plan.steps[i];
            if (!hierarchy__append(h, s.row, s.up, hierarchy__bit(h->plan.kids, i))) return false;
            hierarchy__hole(h, i);
        }
        x = hierarchy__preorder_next(h, e, x, i != HIERARCHY_NONE);
    }
    return true;
}

/* The steps of e's placed children get up; losing their parent marks them. */
static inline void hierarchy__children_up(hierarchy *h, ecs_entity e, uint32_t up) {
    hierarchy_iter c;
    for (c = hierarchy_children(h, e); hierarchy_next(&c);) {
        uint32_t i = hierarchy__step_of(h, c.entity);
        if (i == HIERARCHY_NONE) continue;
        h->plan.steps[i].up = up;
        if (up == HIERARCHY_NONE) hierarchy__mark(h, i, true);
    }
}

/* e was just placed: it is in the group's last row. */
static inline void hierarchy__join(hierarchy *h, ecs_entity e) {
    uint32_t r = hierarchy__row(h, e);
    ecs_entity parent = hierarchy_parent_of(h, e);
    const Parent *kids = ECS_GET(h->w, e, h->parent, Parent);
    if (r == HIERARCHY_NONE || hierarchy__step_at(h, r) != HIERARCHY_NONE) return; /* a bundle's 2nd hook */
    if (!hierarchy__reserve_rows(h, r + 1) ||
        !hierarchy__append(h, r, parent ? hierarchy__row(h, parent) : HIERARCHY_NONE, kids != NULL)) {
        h->plan.lost = true;
        return;
    }
    hierarchy__mark(h, h->plan.n - 1, true);
    if (kids) { /* children placed before it: now under it, so after it */
        hierarchy_iter c;
        for (c = hierarchy_children(h, e); hierarchy_next(&c);) {
            uint32_t k = hierarchy__step_of(h, c.entity);
            if (k == HIERARCHY_NONE) continue;
            h->plan.steps[k].up = r;
            if (!hierarchy__move_last(h, c.entity)) h->plan.lost = true;
        }
    }
}

/* e is about to leave the group: ecs.h then moves the group's last entity
   into e's row. */
static inline void hierarchy__leave(hierarchy *h, ecs_entity e) {
    hierarchy__plan *pl = &h->plan;
    uint32_t r = hierarchy__row(h, e), i = hierarchy__step_of(h, e), last, j;
    ecs_entity l;
    if (r == HIERARCHY_NONE) return;
    if (i != HIERARCHY_NONE) hierarchy__hole(h, i);
    hierarchy__children_up(h, e, HIERARCHY_NONE);
    last = ecs_group_count(h->w, pl->group) - 1;
    if (last == 0) { /* the group is empty now: so is the plan */
        hierarchy__plan_clear(h);
        return;
    }
    l = ecs_group_entities(h->w, pl->group)[last];
    if (l != e && (j = hierarchy__step_of(h, l)) != HIERARCHY_NONE) {
        hierarchy__children_up(h, l, r); /* before row r names l: e, one of them maybe, is still there */
        pl->steps[j].row = r;
        pl->at[r] = j;
    }
}

/* The hooks of the local and world storages: joining and leaving the
   group is having both. */
static inline void hierarchy__on_insert_placed(ecs_world *w, ecs_entity e, ecs_component c, void *value,
                                               void *user) {
    hierarchy *h = (hierarchy *)user;
    (void)value;
    if (ecs_has(w, e, c == h->plan.local ? h->plan.world : h->plan.local)) hierarchy__join(h, e);
}

static inline void hierarchy__on_remove_placed(ecs_world *w, ecs_entity e, ecs_component c, void *value,
                                               void *user) {
    hierarchy *h = (hierarchy *)user;
    (void)value;
    if (ecs_has(w, e, c == h->plan.local ? h->plan.world : h->plan.local)) hierarchy__leave(h, e);
}

/* The Child hook: e lost its parent (it may get another in attach). */
static inline void hierarchy__plan_unparent(hierarchy *h, ecs_entity e) {
    uint32_t i;
    if (!h->plan.local || (i = hierarchy__step_of(h, e)) == HIERARCHY_NONE) return;
    h->plan.steps[i].up = HIERARCHY_NONE;
    hierarchy__mark(h, i, true);
}

/* hierarchy_attach made e a child of parent (its first: parent has
   children now; only attach adds a Parent). */
static inline void hierarchy__plan_attached(hierarchy *h, ecs_entity e, ecs_entity parent, bool first) {
    uint32_t i, up, k;
    if (!h->plan.local || ((i = hierarchy__step_of(h, e)) == HIERARCHY_NONE && !first)) return;
    up = hierarchy__row(h, parent);
    if ((k = hierarchy__step_at(h, up)) != HIERARCHY_NONE && first) hierarchy__set_bit(h->plan.kids, k, true);
    if (i == HIERARCHY_NONE) return;
    h->plan.steps[i].up = up;
    if (k != HIERARCHY_NONE && k > i && !hierarchy__move_last(h, e)) h->plan.lost = true;
    if ((i = hierarchy__step_of(h, e)) != HIERARCHY_NONE) hierarchy__mark(h, i, true);
}

/* The Parent hook: e lost its last child. */
static inline void hierarchy__plan_kids(hierarchy *h, ecs_entity e, bool kids) {
    uint32_t i;
    if (h->plan.local && (i = hierarchy__step_of(h, e)) != HIERARCHY_NONE) hierarchy__set_bit(h->plan.kids, i, kids);
}

/* Builds the plan from the group's rows, each entity as if just placed,
   in row order (rows already parents first give steps in row order). */
static inline bool hierarchy__plan_build(hierarchy *h) {
    uint32_t r, len = ecs_group_count(h->w, h->plan.group);
    const ecs_entity *placed = ecs_group_entities(h->w, h->plan.group);
    hierarchy__plan_clear(h);
    h->plan.lost = len && !hierarchy__reserve_rows(h, len);
    for (r = 0; r < len && !h->plan.lost; r++) hierarchy__join(h, placed[r]);
    return !h->plan.lost;
}

/* Rebuilt if a hook ran out of memory or rows came without hooks (ecs_load
   runs none: then the plan's live steps are not the group's rows); holes
   squeezed out once they are a quarter of the plan. False if no order is
   kept or memory ran out. */
static inline bool hierarchy__plan_ready(hierarchy *h) {
    hierarchy__plan *pl = &h->plan;
    uint32_t i, j = 0;
    if (!pl->local) return false;
    if (pl->n - pl->holes != ecs_group_count(h->w, pl->group)) pl->lost = true;
    if (pl->lost && !hierarchy__plan_build(h)) return false;
    if (pl->holes <= pl->n / 4) return true;
    for (i = 0; i < pl->n; i++) { /* j <= i: step j and bit j are free to write */
        hierarchy_step s = pl->steps[i];
        bool marked = hierarchy__bit(pl->moved, i), kids = hierarchy__bit(pl->kids, i);
        hierarchy__set_bit(pl->moved, i, false); /* (bits past the new end end up 0) */
        hierarchy__set_bit(pl->kids, i, false);
        if (s.row == HIERARCHY_NONE) continue; /* (holes are never marked) */
        pl->steps[j] = s;
        pl->at[s.row] = j;
        hierarchy__set_bit(pl->moved, j, marked);
        hierarchy__set_bit(pl->kids, j, kids);
        j++;
    }
    pl->n = j;
    pl->holes = 0;
    return true;
}

/* Keeps the entities that have both local and world (the placed ones) in
   parent-first order from now on (section above): makes a group owning
   both, sets both storages' hooks, plans the entities placed already.
   False when local or world is a tag or already owned by a group, or
   memory ran out. Calling it again with the same pair does nothing. */
static inline bool hierarchy_transforms_init(hierarchy *h, ecs_component local, ecs_component world) {
    ecs_hooks hooks = {hierarchy__on_insert_placed, hierarchy__on_remove_placed, NULL, NULL};
    ecs_group_desc d;
    if (h->plan.local) return h->plan.local == local && h->plan.world == world;
    if (!local || !world || local == world || !ecs_component_size(h->w, local) ||
        !ecs_component_size(h->w, world))
        return false;
    memset(&d, 0, sizeof d);
    d.owned[0] = local;
    d.owned[1] = world;
    hooks.user = h;
    if (!(h->plan.group = ecs_group_new(h->w, &d)) || !ecs_hooks_set(h->w, local, &hooks) ||
        !ecs_hooks_set(h->w, world, &hooks))
        return false;
    h->plan.local = local;
    h->plan.world = world;
    h->plan.size = ecs_component_size(h->w, world);
    return hierarchy__plan_build(h);
}

/* Every placed entity's step, parents first (with holes: row NONE); *n
   of them. A pass over all of them leaves nothing for
   hierarchy_plan_moved: the marks are cleared. NULL (*n = 0) when no
   order is kept or memory ran out. The steps stay valid until the next
   change of the hierarchy or of the two storages. */
static inline const hierarchy_step *hierarchy_plan_all(hierarchy *h, uint32_t *n) {
    static const hierarchy_step none = {HIERARCHY_NONE, HIERARCHY_NONE};
    *n = 0;
    if (!hierarchy__plan_ready(h)) return NULL;
    if (h->plan.nmoved) memset(h->plan.moved, 0, (h->plan.n + 63) / 64 * sizeof *h->plan.moved);
    h->plan.nmoved = 0;
    *n = h->plan.n;
    return h->plan.steps ? h->plan.steps : &none;
}

/* Room for need steps in what hierarchy_plan_moved hands out. */
static inline bool hierarchy__reserve_out(hierarchy *h, uint32_t need) {
    void *q;
    if (need <= h->plan.out_cap) return true;
    if (!(q = hierarchy__grow(h->plan.out, &h->plan.out_cap, need, sizeof *h->plan.out))) return false;
    h->plan.out = (hierarchy_step *)q;
    return true;
}

/* The steps of the entities marked moved and of their placed
   descendants, parents first (no holes); clears the marks. A marked
   entity inside another's subtree comes once, with it. NULL as
   hierarchy_plan_all (a failure marks everything for the next call).
   How: marked entities without children go out as their bits are found.
   From the first marked one with children on, one sweep of the plan: a
   step goes out if it is marked or its parent's row went out; parents
   come first, so one pass finds every descendant. The sweep costs about
   what a full pass does (it reads every step after that one), which
   bounds what a pass over the moved ones costs; a walk of the subtrees
   through the links costs a lookup per entity and link instead (at 1M,
   20 ms for a moved root: 13 full passes). */
static inline const hierarchy_step *hierarchy_plan_moved(hierarchy *h, uint32_t *n) {
    static const hierarchy_step none = {HIERARCHY_NONE, HIERARCHY_NONE};
    hierarchy__plan *pl = &h->plan;
    uint32_t word, words, k = 0, count = 0;
    hierarchy_step *out;
    *n = 0;
    if (!hierarchy__plan_ready(h)) return NULL;
    if (!pl->nmoved) return &none;
    if (!hierarchy__reserve_out(h, pl->nmoved)) goto failed;
    out = pl->out;
    words = (pl->n + 63) / 64;
    for (word = 0; word < words; word++) {
        uint64_t bits, inner, leaves;
        while (word < words && !pl->moved[word]) word++;
        if (word == words) break;
        leaves = bits = pl->moved[word];
        if ((inner = bits & pl->kids[word]) != 0) /* the sweep starts at the first with children */
            leaves &= ((uint64_t)1 << hierarchy__lowest_bit(inner)) - 1;
        pl->moved[word] = bits & ~leaves;
        for (; leaves; leaves &= leaves - 1) out[count++] = pl->steps[word * 64 + hierarchy__lowest_bit(leaves)];
        if (inner) {
            k = word * 64 + hierarchy__lowest_bit(inner);
            break;
        }
    }
    if (word < words) { /* the sweep, from step k */
        uint32_t rows = ecs_group_count(h->w, pl->group), i;
        unsigned char *dirty;
        if (!hierarchy__reserve_out(h, count + (pl->n - k))) goto failed;
        out = pl->out;
        if (rows + 1 > pl->dirty_cap) {
            void *q = hierarchy__grow(pl->dirty, &pl->dirty_cap, rows + 1, 1);
            if (!q) goto failed;
            pl->dirty = (unsigned char *)q;
        }
        /* dirty[row + 1]: the row went out. A byte, not a bit: no step
           waits for the last one's store. dirty[0] stays 0: up NONE + 1
           wraps to it, so a root needs no test. (steps is a local: stores
           through bytes could alias pl->steps.) */
        dirty = pl->dirty;
        memset(dirty, 0, rows + 1);
        for (i = k; i < pl->n;) { /* a word of marks at a time */
            const hierarchy_step *steps = pl->steps;
            uint32_t end = i - i % 64 + 64 < pl->n ? i - i % 64 + 64 : pl->n;
            uint64_t bits = pl->moved[i / 64] >> (i % 64);
            pl->moved[i / 64] = 0;
            for (; i < end; i++, bits >>= 1) {
                hierarchy_step s = steps[i];
                unsigned go;
                if (s.row == HIERARCHY_NONE) continue;
                go = (unsigned)(bits & 1u) | dirty[s.up + 1];
                dirty[s.row + 1] = (unsigned char)go;
                out[count] = s; /* kept if it goes out */
                count += go;
            }
        }
    }
    pl->nmoved = 0;
    *n = count;
    return count ? out : &none;
failed: /* the rebuild marks every step for the next call */
    pl->lost = true;
    return NULL;
}

/* Marks e moved (after changing its local value): the next
   hierarchy_plan_moved hands out its subtree. False if e is not placed. */
static inline bool hierarchy_mark_moved(hierarchy *h, ecs_entity e) {
    uint32_t i;
    if (!h->plan.local || (i = hierarchy__step_of(h, e)) == HIERARCHY_NONE) return false;
    hierarchy__mark(h, i, true);
    return true;
}

/* --- The transform passes -----------------------------------------------
   The loop of the section above with Transform, WorldTransform and
   transform_combine. A placed entity whose parent is not placed (or that
   has no parent) is placed from the origin: its WorldTransform is its
   Transform. The passes write the world storage's values directly (they
   mark nothing modified for ecs.h's tracking). */

static inline void hierarchy__place(const hierarchy *h, const hierarchy_step *s, uint32_t n) {
    static const WorldTransform origin = {0, 0, 0};
    const Transform *local = (const Transform *)ecs_group_data(h->w, h->plan.group, h->plan.local);
    WorldTransform *world = (WorldTransform *)ecs_group_data(h->w, h->plan.group, h->plan.world);
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint32_t r = s[i].row, up = s[i].up;
        if (r != HIERARCHY_NONE) world[r] = transform_combine(up == HIERARCHY_NONE ? origin : world[up], local[r]);
    }
}

static inline bool hierarchy__typed(const hierarchy *h) {
    return ecs_component_size(h->w, h->plan.local) == sizeof(Transform) &&
           ecs_component_size(h->w, h->plan.world) == sizeof(WorldTransform);
}

/* Computes every placed entity's WorldTransform. The first call keeps
   local and world in parent-first order (hierarchy_transforms_init) if
   nothing does yet. False if they are not that pair, not Transform and
   WorldTransform, or memory ran out. */
static inline bool hierarchy_update_transforms(hierarchy *h, ecs_component local, ecs_component world) {
    const hierarchy_step *s;
    uint32_t n;
    if (!hierarchy_transforms_init(h, local, world) || !hierarchy__typed(h) || !(s = hierarchy_plan_all(h, &n)))
        return false;
    hierarchy__place(h, s, n);
    return true;
}

/* Computes the WorldTransform of the entities marked moved and of their
   subtrees only. False as hierarchy_update_transforms. */
static inline bool hierarchy_update_moved(hierarchy *h) {
    const hierarchy_step *s;
    uint32_t n;
    if (!h->plan.local || !hierarchy__typed(h) || !(s = hierarchy_plan_moved(h, &n))) return false;
    hierarchy__place(h, s, n);
    return true;
}

#endif /* HIERARCHY_H */
