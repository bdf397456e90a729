/* ecs.h - v0.1 - sparse-set Entity Component System in one C header

   Do this:
      #define ECS_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the
   implementation. Every other file just includes "ecs.h".

   ecs.h uses stb_ds.h (Debian: libstb-dev, `pkg-config --cflags --libs stb`)
   for its name index. Exactly one translation unit of your program must
   contain the stb_ds implementation: either link `-lstb`, or define
   ECS_STB_DS_IMPLEMENTATION next to ECS_IMPLEMENTATION, or define
   STB_DS_IMPLEMENTATION in a file of your own. ecs.h never defines it by
   itself, so a game that already uses stb_ds keeps working.

      // one .c file:
      #define ECS_IMPLEMENTATION
      #define ECS_STB_DS_IMPLEMENTATION   // or link -lstb
      #include "ecs.h"

   QUICK START

      typedef struct { float x, y; } Pos;
      typedef struct { float x, y; } Vel;

      ecs_world *w = ecs_world_new(NULL);
      ecs_component pos = ECS_COMPONENT(w, Pos), vel = ECS_COMPONENT(w, Vel);
      ecs_entity e = ecs_create(w);
      ECS_ADD(w, e, pos, Pos, {0, 0});            // add or replace
      ECS_ADD(w, e, vel, Vel, {1, 2});
      const Pos *p = ECS_GET(w, e, pos, Pos);     // NULL if absent or e is stale
      Pos out; ecs_remove(w, e, pos, &out);       // takes it out
      ecs_destroy(w, e);
      ecs_world_free(w);

   TABLE OF CONTENTS

      1. Options
      2. Memory and errors
      3. World
      4. Entities
      5. Components and storages
      6. Component operations
      7. Views
      8. Command buffer
      9. Sorting
      10. Pointer validity
      11. Revision history
      (License at the end of the file.)

   ---------------------------------------------------------------------------
   1. OPTIONS  (define before including ecs.h; the same in every file)

      ECS_ASSERT(cond, msg)  Called on programmer errors (see section 2) with a
                             message naming the call, the entity and the
                             component. Default: print msg to stderr and
                             abort(), or nothing when NDEBUG is defined.
                             The failing call still returns its documented
                             failure value when ECS_ASSERT returns.
      ECS_DEBUG              Non-zero enables the cheap debug checks in the
                             inline functions and typed macros (sizeof(T)
                             against the registered size). Default: on
                             unless NDEBUG. Never changes any struct layout.
      ECS_MALLOC(size, ctx)  Default allocator of every world whose desc has
      ECS_FREE(p, size, ctx) no allocator. Define both or neither.
                             Default: malloc / free.
      ECS_MAX_ALIGN          Largest component alignment the allocator
                             guarantees (default 2 * sizeof(void *), what
                             malloc guarantees). Larger alignments are
                             refused at registration.
      ECS_VERSION_MAX        Largest entity version (default 0x7fffffff).
                             A slot reaching it is retired, never wrapped.
      ECS_API                Linkage of the public functions (default extern).
      ECS_STATIC             Make the implementation static to its TU (use
                             when ecs.h is only needed in one file).
      ECS_STB_DS_INCLUDE     How to include stb_ds (default "stb_ds.h").
      ECS_STB_DS_IMPLEMENTATION
                             Also compile the stb_ds implementation here.

   ---------------------------------------------------------------------------
   2. MEMORY AND ERRORS

      Memory: see ecs_desc.allocator (section 3). Every array ecs.h grows
      doubles its capacity; nothing shrinks until the world is freed.

      Failing calls return false / NULL / 0 / ECS_NULL and record why:
      ecs_error ecs_last_error(const ecs_world *w)
      const char *ecs_last_error_msg(const ecs_world *w)
          Set by every failing call (successful calls leave them alone), e.g.
          "ecs_add(entity 3:2, Pos): entity is not alive".
      void ecs_clear_error(ecs_world *w)

      Programmer errors also go through ECS_ASSERT with the same message;
      runtime conditions (out of memory, exhausted ids) do not assert.

      input                 answer
      --------------------  -----------------------------------------------
      null / stale entity   get/get_mut/has/alive: NULL/false, no error.
                            remove/delete/strip/destroy: false/0, no error.
                            add/add_n/set: NULL/false, ECS_ERR_DEAD_ENTITY,
                            assert (the value would be lost silently).
      unknown component     every call: failure value, ECS_ERR_UNKNOWN_COMPONENT,
                            assert.
      size mismatch         typed macros: failure value, ECS_ERR_SIZE_MISMATCH,
                            assert. Re-registering a name with a different
                            size: 0, ECS_ERR_INVALID, assert.
      out of memory         failure value, ECS_ERR_OUT_OF_MEMORY, no assert;
                            nothing was changed. (destroy cannot fail: if the
                            free-slot queue cannot grow, the slot is retired.)
      exhausted ids         ecs_create*: ECS_NULL/false, ECS_ERR_EXHAUSTED.
      NULL world            undefined (not checked).

   ---------------------------------------------------------------------------
   3. WORLD

      ecs_world *ecs_world_new(const ecs_desc *desc)
          Creates a world. desc may be NULL; a zeroed ecs_desc is the default
          configuration. Returns NULL if the world cannot be allocated.
      void ecs_world_free(ecs_world *w)
          Frees the world and everything in it. NULL is ignored.

      All memory of a world comes from desc->allocator (alloc/free with a
      user context) or, if that is zeroed, from ECS_MALLOC/ECS_FREE. The
      one exception is the component-name index, an stb_ds string hash map
      that allocates through STBDS_REALLOC and is only touched when a
      component is registered. stb_ds has no failure path: if that
      allocation fails, the program crashes inside stb_ds.

      A world is not thread-safe for writes. Any number of threads may read
      it (get, has, alive, read-only views) while nobody writes it. (A call
      that fails records its error in the world, so two threads making
      failing calls at once race on the message.)

   ---------------------------------------------------------------------------
   4. ENTITIES

      An ecs_entity is a 64-bit id: the low 32 bits are a slot index, the
      high 32 bits a version. 0 is ECS_NULL, the null entity, so zeroed
      structs hold "no entity". Every call checks the version in O(1), so a
      stale id (its entity was destroyed) never reaches the entity that
      reuses its slot. Freed slots are reused first-in first-out; a slot
      whose version reaches ECS_VERSION_MAX is retired instead of wrapping.

      ecs_entity ecs_create(ecs_world *w)
          A new entity with no components. Returns ECS_NULL when out of
          memory or when desc.max_entities slots are in use (error set).
      bool ecs_destroy(ecs_world *w, ecs_entity e)
          Deletes every component of e, then e. Returns false (no assert) if
          e is not alive, so destroying twice is harmless.
      bool ecs_alive(const ecs_world *w, ecs_entity e)      [inline]
      uint32_t ecs_count(const ecs_world *w)       number of live entities
      uint32_t ECS_ENTITY_INDEX(e), ECS_ENTITY_VERSION(e)
      const char *ecs_entity_str(ecs_entity e, char buf[ECS_ENTITY_STR])
          Formats e as "index:version" (or "null") for messages.

   ---------------------------------------------------------------------------
   5. COMPONENTS AND STORAGES

      ecs_component ecs_register(ecs_world *w, const char *name,
                                 size_t size, size_t align)
          Registers a component type and returns its id: a small integer,
          1 for the first type, 2 for the next... (0 is "no component").
          Registering the same name again with the same size and alignment
          returns the same id; a different size or alignment is an error.
          size 0 registers a tag: membership only, no data. Otherwise align
          must be a power of two, at most ECS_MAX_ALIGN, and divide size
          (as for any C type); anything else is refused (0, ECS_ERR_INVALID,
          assert).
          There is no compile-time limit on the number of types.
      ECS_COMPONENT(w, T)   ecs_register(w, "T", sizeof(T), alignof(T))
      ECS_TAG(w, name)      ecs_register(w, name, 0, 0)
      ecs_component ecs_lookup(const ecs_world *w, const char *name)
          The id registered under name, or 0.
      const char *ecs_component_name(const ecs_world *w, ecs_component c)
      size_t ecs_component_size(const ecs_world *w, ecs_component c)
      uint32_t ecs_component_count(const ecs_world *w)

      Each component type has its own sparse set: a paged sparse array
      (sparse[index] = row; pages of ECS_PAGE_SIZE entries are allocated on
      first use, so an entity with index 10,000,000 costs one page, not 10M
      slots), a packed dense array of entity ids and a packed data array
      parallel to it. Removing swaps the last row into the hole.
      Read access for your own loops:

      uint32_t ecs_storage_count(const ecs_world *w, ecs_component c)
      const ecs_entity *ecs_storage_entities(const ecs_world *w, ecs_component c)
      void *ecs_storage_data(const ecs_world *w, ecs_component c)
          Row i of the storage holds entities[i] and its value at
          (char *)data + i * size. data is NULL for tags.

   ---------------------------------------------------------------------------
   6. COMPONENT OPERATIONS  (Shipyard's vocabulary)

      void *ecs_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value)
          Inserts c on e, or replaces the value e already has. value NULL
          means zeroed. Returns a pointer to the stored value (for a tag, a
          non-NULL pointer that must not be dereferenced), or NULL on
          failure: e not alive (assert), unknown c (assert), out of memory.
      const void *ecs_get(const ecs_world *w, ecs_entity e, ecs_component c)  [inline]
      void *ecs_get_mut(ecs_world *w, ecs_entity e, ecs_component c)         [inline]
          The value, or NULL when e is not alive or lacks c. get returns
          non-NULL exactly when has is true (tags included).
      bool ecs_has(const ecs_world *w, ecs_entity e, ecs_component c)        [inline]
      bool ecs_remove(ecs_world *w, ecs_entity e, ecs_component c, void *out)
          Takes c out of e and copies the value to out (out may be NULL).
          Returns false if e is not alive or lacks c.
      bool ecs_delete(ecs_world *w, ecs_entity e, ecs_component c)
          Like remove, but discards the value.
      uint32_t ecs_strip(ecs_world *w, ecs_entity e)
          Deletes every component of e and keeps e alive. Returns how many.

      Several at once. comps[i] gets *values[i]; values or values[i] may be
      NULL (zeroed). These are all-or-nothing: when one step fails nothing
      is changed.
      bool ecs_add_n(ecs_world *w, ecs_entity e, uint32_t n,
                     const ecs_component *comps, const void *const *values)
      ecs_entity ecs_create_with(ecs_world *w, uint32_t n,
                     const ecs_component *comps, const void *const *values)
          A new entity with a bundle of components.
      bool ecs_create_bulk(ecs_world *w, uint32_t count, uint32_t n,
                     const ecs_component *comps, const void *const *values,
                     ecs_entity *out)
          count new entities with the same bundle; their ids go to out
          (may be NULL).

      Typed macros: each evaluates its arguments once and casts once. The
      ones that copy sizeof(T) bytes (ECS_ADD, ECS_SET, ECS_REMOVE,
      ECS_DEFER_ADD) always check sizeof(T) against the registered size;
      the ones that only return a pointer (ECS_GET, ECS_GET_MUT, ECS_FIELD)
      check under ECS_DEBUG. A mismatch asserts and fails the call.
      ECS_ADD(w, e, c, T, {init...})   -> T *      (braces: any initializer)
      ECS_SET(w, e, c, T, value)       -> T *      (value: an lvalue of T)
      ECS_GET(w, e, c, T)              -> const T *
      ECS_GET_MUT(w, e, c, T)          -> T *
      ECS_REMOVE(w, e, c, T, out)      -> bool     (out: T *)
      Removing a tag leaves *out untouched. After a failed ecs_create_bulk
      the contents of out are unspecified (no entity was created).

   ---------------------------------------------------------------------------
   7. VIEWS

      A view visits every entity that has its required components, lacks
      its ECS_NOT ones, has at least one of its ECS_ANY ones (if any), and
      hands out a pointer per term.

      ecs_view_desc d = {0};                 // or designated initializers
      d.terms[0] = (ecs_term){pos, ECS_WRITE};
      d.terms[1] = (ecs_term){vel, 0};       // 0: required, read
      d.terms[2] = (ecs_term){frozen, ECS_NOT};
      for (ecs_iter it = ecs_view(w, &d); ecs_iter_next(&it); ) {
          Pos *p = ECS_FIELD(&it, 0, Pos);   // term 0's value for it.entity
          const Vel *v = ECS_FIELD(&it, 1, Vel);
          p->x += v->x;
      }

      ecs_iter ecs_view(ecs_world *w, const ecs_view_desc *desc)
          Terms are read up to the first with c == 0 (at most ECS_MAX_TERMS).
          Flags per term: 0 required; ECS_WRITE the loop writes it (marks it
          modified once tracking exists); ECS_NOT must be absent; ECS_OPTIONAL field NULL when
          absent; ECS_ANY at least one ECS_ANY term present, field NULL when
          absent. A term listed twice, an unknown component, ECS_NOT with
          other flags, or no required and no ECS_ANY term: assert, and the
          view yields nothing.
      ecs_iter ecs_view_of(ecs_world *w, uint32_t n, const ecs_component *comps)
          Shorthand: every term required.
      bool ecs_iter_next(ecs_iter *it)                            [inline]
          The next matching entity in it.entity; false when done.
      ECS_FIELD(&it, i, T) -> T *      ecs_field(&it, i) -> void *
          Term i's value for it.entity; NULL for ECS_NOT terms and absent
          optional/any terms. For tags: non-NULL, not to be dereferenced.
      bool ecs_iter_next_block(ecs_iter *it)
          The next block of it.count matching entities: it.entities[0..count)
          and, per term, it.fields[i] = an array of count values (or NULL).
          The fastest loop: the inner loop is a plain array loop.
      bool ecs_iter_chunk(ecs_iter *it, uint32_t k, uint32_t nchunks)
          Before the first next: restricts the walk to the k-th of nchunks
          equal slices of the lead storage, for job systems: thread k walks
          chunk k with its own iterator. Threads may read anything and write
          the values of the components they iterate; nothing structural.
      uint32_t ecs_each(w, desc, void (*fn)(ecs_iter *it, void *ctx), ctx)
          Calls fn once per match; returns how many.

      How it walks. The lead is the required term with the fewest entities
      (desc.lead forces one). The walk goes over the lead's rows from the
      last to the first and tests each entity against the other terms. Rows
      where every other storage holds the same entity at the same row (the
      storages were filled together) are found by comparing the dense arrays
      a block at a time, so the loop reads memory sequentially and does no
      lookup per entity; other entities cost one sparse lookup per term.
      A view with no required term but ECS_ANY terms walks each ANY storage
      in turn and skips entities an earlier one produced.

      Rules of iteration:
        - Every entity is visited at most once, and every entity yielded
          matches the view at the moment it is yielded.
        - The loop may change component values of any entity, add components
          to any entity, create entities, and remove components from or
          destroy the *current* entity: no other entity is skipped or
          repeated. An entity that starts to match during the loop is
          visited if its lead row is below the current one; entities created
          during the loop are never visited.
        - Anything else structural (removing components of other entities,
          destroying them, sorting) goes through the command buffer and is
          applied after the loop. Under ECS_DEBUG, the next ecs_iter_next
          asserts when the walked storage lost another entity or was sorted,
          naming the storage and the call. Release builds stay memory-safe
          but may skip or repeat entities.
        - Breaking out of a loop early is fine: an iterator holds no lock
          and owns no memory.
        - Field pointers follow the pointer-validity rules (section 10): an
          add that grows a storage moves its data, so fetch fields again
          after such a change instead of keeping them across it.
        - Block loops (ecs_iter_next_block) must not change the storages of
          their terms structurally while they use the arrays.

   ---------------------------------------------------------------------------
   8. COMMAND BUFFER

      Changes recorded now, applied in order by ecs_flush: the way to
      destroy or remove from *other* entities while a view is walking.
      Usable from any loop, not only from systems. One buffer per world;
      recording is not thread-safe.

      ecs_entity ecs_defer_create(ecs_world *w)
          Creates the entity now (alive, no components), so its id can be
          used at once, in further commands too.
      bool ecs_defer_destroy(ecs_world *w, ecs_entity e)
      bool ecs_defer_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value)
          Copies the value now. A dead e or unknown c asserts at record time,
          like ecs_add.   ECS_DEFER_ADD(w, e, c, T, {init...})
      bool ecs_defer_remove(ecs_world *w, ecs_entity e, ecs_component c)
      bool ecs_defer_delete(ecs_world *w, ecs_entity e, ecs_component c)
          remove counts as a removal, delete as a deletion (tracking).
      uint32_t ecs_defer_count(const ecs_world *w)     commands queued
      uint32_t ecs_flush(ecs_world *w)
          Applies every queued command in order and returns how many took
          effect; a command whose entity died (or lost the component) before
          its turn does nothing. Recording fails only when out of memory
          (false, nothing recorded). If applying an add runs out of memory,
          flush stops there: that command and the ones after it stay queued
          for the next flush.

   ---------------------------------------------------------------------------
   9. SORTING

      bool ecs_sort(ecs_world *w, ecs_component c, ecs_sort_fn cmp, void *ctx)
          Stable sort of c's rows by
          int cmp(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx)
          (va, vb NULL for tags). Uses 8 bytes per row of scratch memory;
          out of memory: false, nothing moved.
      bool ecs_sort_as(ecs_world *w, ecs_component c, ecs_component order)
          Moves the entities c shares with `order` to c's first rows, in
          order's order (EnTT's sort_as): a view over both then walks both
          arrays in step. No allocation. The rest of c follows in no
          particular order.
      Both keep every entity's data and sparse entry attached to it, and
      count as a structural change of c (section 7).

   ---------------------------------------------------------------------------
   10. POINTER VALIDITY

      A pointer returned by add/get/get_mut (or ecs_storage_data) points
      into the storage's packed data array. It stays valid until the next
      structural change of *that* storage:
        - adding a component of that type to any entity (the array may
          grow and move),
        - removing/deleting one from any entity, strip or destroy of an
          entity that has one (the last row is swapped into the hole).
        - sorting it (ecs_sort, ecs_sort_as).
      Replacing a value in place (add on an entity that already has it)
      and changes to other storages never move it. ecs_storage_entities
      follows the same rule. Component ids and names stay valid for the
      life of the world.

   ---------------------------------------------------------------------------
   11. REVISION HISTORY

      0.1  (2026-11-21)  world, versioned entities, paged sparse-set
                         storages, component operations, bundles; views,
                         command buffer, sorting.
*/

#ifndef ECS_H
#define ECS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifndef ECS_API
#if defined(ECS_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define ECS_API __attribute__((unused)) static
#elif defined(ECS_STATIC)
#define ECS_API static
#else
#define ECS_API extern
#endif
#endif

#if defined(_MSC_VER) && !defined(__cplusplus)
#define ECS_INLINE static __inline
#else
#define ECS_INLINE static inline
#endif

#ifndef ECS_DEBUG
#ifdef NDEBUG
#define ECS_DEBUG 0
#else
#define ECS_DEBUG 1
#endif
#endif

#ifndef ECS_ASSERT
#ifdef NDEBUG
#define ECS_ASSERT(cond, msg) ((void)0)
#else
#define ECS_ASSERT(cond, msg) ((cond) ? (void)0 : ecs__assert_fail((msg), __FILE__, __LINE__))
#define ECS__DEFAULT_ASSERT
#endif
#endif

#ifndef ECS_MAX_ALIGN
#define ECS_MAX_ALIGN (2 * sizeof(void *))
#endif
#ifndef ECS_VERSION_MAX
#define ECS_VERSION_MAX 0x7fffffffu
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define ECS_ALIGNOF(T) alignof(T)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ECS_ALIGNOF(T) _Alignof(T)
#elif defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
#define ECS_ALIGNOF(T) __alignof__(T)
#elif defined(_MSC_VER)
#define ECS_ALIGNOF(T) __alignof(T)
#else
#define ECS_ALIGNOF(T) offsetof(struct { char c_; T t_; }, t_)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t ecs_entity;
typedef uint32_t ecs_component;
typedef struct ecs_world ecs_world;

#define ECS_NULL ((ecs_entity)0)
#define ECS_ENTITY_INDEX(e) ((uint32_t)(e))
#define ECS_ENTITY_VERSION(e) ((uint32_t)((ecs_entity)(e) >> 32))
#define ECS_ENTITY_STR 24

typedef enum ecs_error {
    ECS_OK = 0,
    ECS_ERR_DEAD_ENTITY,        /* the entity is null, stale or never created */
    ECS_ERR_UNKNOWN_COMPONENT,  /* component id 0 or never registered */
    ECS_ERR_SIZE_MISMATCH,      /* sizeof(T) differs from the registered size */
    ECS_ERR_OUT_OF_MEMORY,      /* the allocator returned NULL; nothing changed */
    ECS_ERR_EXHAUSTED,          /* no entity slot left (desc.max_entities) */
    ECS_ERR_INVALID             /* any other bad argument; see the message */
} ecs_error;

typedef struct ecs_allocator {
    void *(*alloc)(size_t size, void *ctx);           /* like malloc: NULL on failure */
    void (*free)(void *ptr, size_t size, void *ctx);  /* size as passed to alloc */
    void *ctx;                                        /* passed to both */
} ecs_allocator;

typedef struct ecs_desc {
    ecs_allocator allocator;  /* zeroed: ECS_MALLOC / ECS_FREE */
    uint32_t max_entities;    /* most entity slots ever used; 0: 0xfffffffe (indices 0..0xfffffffd) */
} ecs_desc;

/* --- world ------------------------------------------------------------- */
ECS_API ecs_world *ecs_world_new(const ecs_desc *desc);
ECS_API void ecs_world_free(ecs_world *w);

/* --- entities ---------------------------------------------------------- */
ECS_API ecs_entity ecs_create(ecs_world *w);
ECS_API bool ecs_destroy(ecs_world *w, ecs_entity e);
ECS_API uint32_t ecs_count(const ecs_world *w);
ECS_API const char *ecs_entity_str(ecs_entity e, char buf[ECS_ENTITY_STR]);

/* --- components -------------------------------------------------------- */
ECS_API ecs_component ecs_register(ecs_world *w, const char *name, size_t size, size_t align);
ECS_API ecs_component ecs_lookup(const ecs_world *w, const char *name);
ECS_API const char *ecs_component_name(const ecs_world *w, ecs_component c);
ECS_API size_t ecs_component_size(const ecs_world *w, ecs_component c);
ECS_API uint32_t ecs_component_count(const ecs_world *w);
#define ECS_COMPONENT(w, T) ecs_register((w), #T, sizeof(T), ECS_ALIGNOF(T))
#define ECS_TAG(w, name) ecs_register((w), (name), 0, 0)

/* --- component operations ---------------------------------------------- */
ECS_API void *ecs_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value);
ECS_API bool ecs_remove(ecs_world *w, ecs_entity e, ecs_component c, void *out);
ECS_API bool ecs_delete(ecs_world *w, ecs_entity e, ecs_component c);
ECS_API uint32_t ecs_strip(ecs_world *w, ecs_entity e);
ECS_API bool ecs_add_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps,
                       const void *const *values);
ECS_API ecs_entity ecs_create_with(ecs_world *w, uint32_t n, const ecs_component *comps,
                                   const void *const *values);
ECS_API bool ecs_create_bulk(ecs_world *w, uint32_t count, uint32_t n, const ecs_component *comps,
                             const void *const *values, ecs_entity *out);


/* --- views --------------------------------------------------------------- */
#define ECS_MAX_TERMS 16

/* Term flags. 0 = required, read. */
enum {
    ECS_WRITE = 1u << 0,    /* the loop writes this field (marks it modified when tracked) */
    ECS_NOT = 1u << 1,      /* the entity must not have it; field NULL */
    ECS_OPTIONAL = 1u << 2, /* field NULL when absent */
    ECS_ANY = 1u << 3       /* at least one ECS_ANY term present; field NULL when absent */
};

typedef struct ecs_term {
    ecs_component c;
    uint32_t flags;   /* ECS_WRITE, ECS_NOT, ECS_OPTIONAL, ECS_ANY */
} ecs_term;

typedef struct ecs_view_desc {
    ecs_term terms[ECS_MAX_TERMS];  /* in order, up to the first term with c == 0 */
    ecs_component lead;             /* walk this required term's storage; 0: the shortest */
} ecs_view_desc;

typedef struct ecs__storage ecs__storage;

enum { ECS__IT_DONE, ECS__IT_VIEW, ECS__IT_UNION };

typedef struct ecs_iter {
    ecs_entity entity;            /* the current entity (ecs_iter_next) */
    /* ecs_iter_next_block only: per term an array of `count` values, or
       NULL (ECS_NOT, absent optional/any); use ECS_FIELD after ecs_iter_next */
    void *fields[ECS_MAX_TERMS];
    uint32_t count;
    const ecs_entity *entities;   /* the block's entities (ecs_iter_next_block) */
    /* private: the current block is lead rows lo..row-1, in which every
       term is either at the same row as the lead (stride = its size) or
       absent (base NULL), or the block is one row (stride 0). */
    ecs_world *world;
    const uint32_t *world_epoch;  /* &world->epoch */
    ecs__storage *lead;
    const ecs_entity *dense;      /* lead->dense when the block was found */
    uint32_t row, lo, end;        /* end: lowest row of the walk (a chunk's start) */
    uint32_t epoch;               /* world->epoch when the block was found */
    uint32_t scan;                /* most rows the next block may span */
    uint32_t nterms, nany, lead_term, mode, shuffles;
    uintptr_t base[ECS_MAX_TERMS];  /* as integers: absent = 0 + row * 0 = NULL, no branch */
    uintptr_t stride[ECS_MAX_TERMS];
    ecs__storage *st[ECS_MAX_TERMS];
    uint32_t flags[ECS_MAX_TERMS];
} ecs_iter;

ECS_API ecs_iter ecs_view(ecs_world *w, const ecs_view_desc *desc);
ECS_API ecs_iter ecs_view_of(ecs_world *w, uint32_t n, const ecs_component *comps);
ECS_API bool ecs_iter_chunk(ecs_iter *it, uint32_t k, uint32_t nchunks);
ECS_API bool ecs_iter_next_block(ecs_iter *it);
ECS_API uint32_t ecs_each(ecs_world *w, const ecs_view_desc *desc,
                          void (*fn)(ecs_iter *it, void *ctx), void *ctx);
/* ECS_FIELD(&it, i, T) -> T *   and   bool ecs_iter_next(ecs_iter *it)  below */

/* --- command buffer ------------------------------------------------------ */
ECS_API ecs_entity ecs_defer_create(ecs_world *w);
ECS_API bool ecs_defer_destroy(ecs_world *w, ecs_entity e);
ECS_API bool ecs_defer_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value);
ECS_API bool ecs_defer_remove(ecs_world *w, ecs_entity e, ecs_component c);
ECS_API bool ecs_defer_delete(ecs_world *w, ecs_entity e, ecs_component c);
ECS_API uint32_t ecs_defer_count(const ecs_world *w);
ECS_API uint32_t ecs_flush(ecs_world *w);

/* --- sorting ------------------------------------------------------------- */
typedef int (*ecs_sort_fn)(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx);
ECS_API bool ecs_sort(ecs_world *w, ecs_component c, ecs_sort_fn cmp, void *ctx);
ECS_API bool ecs_sort_as(ecs_world *w, ecs_component c, ecs_component order);

/* --- errors ------------------------------------------------------------ */
ECS_API ecs_error ecs_last_error(const ecs_world *w);
ECS_API const char *ecs_last_error_msg(const ecs_world *w);
ECS_API void ecs_clear_error(ecs_world *w);

/* --- private: used by the inline functions and macros below ------------- */
ECS_API void ecs__assert_fail(const char *msg, const char *file, int line);
ECS_API void *ecs__add_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                             const void *value, size_t size);
ECS_API bool ecs__remove_sized(ecs_world *w, ecs_entity e, ecs_component c, void *out, size_t size);
ECS_API void ecs__bad_access(const ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                             size_t size);
ECS_API bool ecs__iter_refill(ecs_iter *it);
ECS_API void ecs__bad_field(const ecs_iter *it, uint32_t i, size_t size);
ECS_API bool ecs__defer_add_sized(ecs_world *w, ecs_entity e, ecs_component c, const void *value,
                                  size_t size);

/* The layout below is visible only so that the hot paths can be inline.
   It is not API: it changes between versions. */
#define ECS_PAGE_BITS 12
#define ECS_PAGE_SIZE (1u << ECS_PAGE_BITS)
#define ECS__PAGE_MASK (ECS_PAGE_SIZE - 1u)
#define ECS__NO_ROW 0xffffffffu

struct ecs__storage {
    /* sparse[i] = pages[i >> ECS_PAGE_BITS][i & mask]: the row of the entity
       with index i, or ECS__NO_ROW. dense[row] is that entity (with its
       version) and its value is at data + row * size. Rows 0..count-1 are
       packed; removal moves the last row into the hole. */
    ecs_entity *dense;
    unsigned char *data;   /* NULL for tags */
    uint32_t **pages;      /* pages[p] NULL until an entity of that page is added */
    uint32_t npages;
    uint32_t count;
    uint32_t cap;
    uint32_t size;
    uint32_t align;
    ecs_component id;
    char *name;
    /* Bumped by every removal (+1) and reorder (+2), with the call's name:
       lets a view notice, under ECS_DEBUG, that its lead storage changed. */
    uint32_t shuffles;
    const char *shuffled_by;
};

struct ecs_world {
    ecs__storage **storages;  /* storages[c] for c in 1..ncomponents; [0] unused */
    uint32_t ncomponents;
    uint32_t storages_cap;
    /* entity slots: versions[i] is the version of the live entity in slot i,
       or ECS__DEAD | the version its next entity will get. */
    uint32_t *versions;
    uint32_t nslots, slots_cap, max_slots, alive;
    uint32_t *freeq;          /* FIFO ring of free slots */
    uint32_t fq_head, fq_len, fq_cap;
    ecs_allocator alloc;
    uint32_t epoch;           /* bumped by every change that moves rows: views re-check */
    void *names;              /* stb_ds string map: name -> component */
    unsigned char *cmds;      /* command buffer: records of ecs__cmd + value */
    uint32_t cmds_head, cmds_len, cmds_cap;
    char tag_dummy;           /* what add/get return for tags */
    ecs_error err;
    char err_msg[160];
};

#define ECS__DEAD 0x80000000u

/* --- inline hot paths -------------------------------------------------- */
ECS_INLINE bool ecs_alive(const ecs_world *w, ecs_entity e) {
    uint32_t i = (uint32_t)e;
    return i < w->nslots && w->versions[i] == (uint32_t)(e >> 32);
}

/* Row of e in s, or ECS__NO_ROW. The dense check rejects stale versions. */
ECS_INLINE uint32_t ecs__row(const ecs__storage *s, ecs_entity e) {
    uint32_t i = (uint32_t)e, p = i >> ECS_PAGE_BITS, row;
    if (p >= s->npages || !s->pages[p]) return ECS__NO_ROW;
    row = s->pages[p][i & ECS__PAGE_MASK];
    if (row == ECS__NO_ROW || s->dense[row] != e) return ECS__NO_ROW;
    return row;
}

ECS_INLINE const ecs__storage *ecs__storage_of(const ecs_world *w, const char *call, ecs_entity e,
                                               ecs_component c, size_t size) {
    if (c - 1u >= w->ncomponents) {
        ecs__bad_access(w, call, e, c, size);
        return NULL;
    }
#if ECS_DEBUG
    if (size != (size_t)-1 && size != w->storages[c]->size) {
        ecs__bad_access(w, call, e, c, size);
        return NULL;
    }
#else
    (void)size;
#endif
    return w->storages[c];
}

ECS_INLINE void *ecs__get(const ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                          size_t size) {
    const ecs__storage *s = ecs__storage_of(w, call, e, c, size);
    uint32_t row;
    if (!s || (row = ecs__row(s, e)) == ECS__NO_ROW) return NULL;
    return s->data ? (void *)(s->data + (size_t)row * s->size) : (void *)&w->tag_dummy;
}

ECS_INLINE bool ecs_has(const ecs_world *w, ecs_entity e, ecs_component c) {
    const ecs__storage *s = ecs__storage_of(w, "ecs_has", e, c, (size_t)-1);
    return s && ecs__row(s, e) != ECS__NO_ROW;
}
ECS_INLINE const void *ecs_get(const ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__get(w, "ecs_get", e, c, (size_t)-1);
}
ECS_INLINE void *ecs_get_mut(ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__get(w, "ecs_get_mut", e, c, (size_t)-1);
}

ECS_INLINE uint32_t ecs_storage_count(const ecs_world *w, ecs_component c) {
    const ecs__storage *s = ecs__storage_of(w, "ecs_storage_count", ECS_NULL, c, (size_t)-1);
    return s ? s->count : 0;
}
ECS_INLINE const ecs_entity *ecs_storage_entities(const ecs_world *w, ecs_component c) {
    const ecs__storage *s = ecs__storage_of(w, "ecs_storage_entities", ECS_NULL, c, (size_t)-1);
    return s ? s->dense : NULL;
}
ECS_INLINE void *ecs_storage_data(const ecs_world *w, ecs_component c) {
    const ecs__storage *s = ecs__storage_of(w, "ecs_storage_data", ECS_NULL, c, (size_t)-1);
    return s ? s->data : NULL;
}


/* --- view iteration ------------------------------------------------------ */
/* Advances to the next matching entity; false when the view is exhausted.
   Inside a block this is a few loads; at a block's end, or after any change
   that moved rows (world->epoch), ecs__iter_refill finds the next block. */
ECS_INLINE bool ecs_iter_next(ecs_iter *it) {
    if (it->row > it->lo && it->epoch == *it->world_epoch) {
        it->entity = it->dense[--it->row];
        return true;
    }
    return ecs__iter_refill(it);
}

/* Term i's value for the current entity (computed on access: the walk
   itself touches no field). NULL for ECS_NOT and absent optional/any. */
ECS_INLINE void *ecs__field(const ecs_iter *it, uint32_t i, size_t size) {
#if ECS_DEBUG
    if (i >= it->nterms || (size != (size_t)-1 && size != it->st[i]->size)) {
        ecs__bad_field(it, i, size);
        return NULL;
    }
#else
    (void)size;
#endif
    return (void *)(it->base[i] + it->row * it->stride[i]);
}

/* --- typed macros ------------------------------------------------------ */
#if ECS_DEBUG
#define ECS__SIZE(T) sizeof(T)
#else
#define ECS__SIZE(T) ((size_t)-1)
#endif

#define ECS_GET(w, e, c, T) ((const T *)ecs__get((w), "ECS_GET", (e), (c), ECS__SIZE(T)))
#define ECS_GET_MUT(w, e, c, T) ((T *)ecs__get((w), "ECS_GET_MUT", (e), (c), ECS__SIZE(T)))
/* (1 ? p : (T *)0) type-checks p as a T pointer without casting it away */
#define ECS_REMOVE(w, e, c, T, out) ecs__remove_sized((w), (e), (c), (1 ? (out) : (T *)0), sizeof(T))
#ifdef __cplusplus
#define ECS_ADD(w, e, c, T, ...) \
    ((T *)ecs__add_sized((w), "ECS_ADD", (e), (c), &ecs__lvalue(T __VA_ARGS__), sizeof(T)))
#else
#define ECS_ADD(w, e, c, T, ...) ((T *)ecs__add_sized((w), "ECS_ADD", (e), (c), &(T)__VA_ARGS__, sizeof(T)))
#endif
#define ECS_FIELD(it, i, T) ((T *)ecs__field((it), (i), ECS__SIZE(T)))
#define ecs_field(it, i) ecs__field((it), (i), (size_t)-1)
#ifdef __cplusplus
#define ECS_DEFER_ADD(w, e, c, T, ...) ecs__defer_add_sized((w), (e), (c), &ecs__lvalue(T __VA_ARGS__), sizeof(T))
#else
#define ECS_DEFER_ADD(w, e, c, T, ...) ecs__defer_add_sized((w), (e), (c), &(T)__VA_ARGS__, sizeof(T))
#endif
#define ECS_SET(w, e, c, T, value) \
    ((T *)ecs__add_sized((w), "ECS_SET", (e), (c), (1 ? &(value) : (const T *)0), sizeof(T)))

#ifdef __cplusplus
} /* extern "C" */
/* C++ has no compound literals; this gives a braced temporary an address
   that lives until the end of the full expression. */
template <typename T> static inline const T &ecs__lvalue(const T &v) { return v; }
#endif

#endif /* ECS_H */

/* ========================================================================= */
/*                              IMPLEMENTATION                               */
/* ========================================================================= */
#ifdef ECS_IMPLEMENTATION
#ifndef ECS_IMPLEMENTATION_ONCE
#define ECS_IMPLEMENTATION_ONCE

#include <stdio.h>
#include <stdlib.h>

#ifndef ECS_STB_DS_INCLUDE
#define ECS_STB_DS_INCLUDE "stb_ds.h"
#endif
/* stb_ds's hash-map macros spell `typeof`, which gcc only accepts as
   __typeof__ in strict -std=c99/c11 (stb issue #1735). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__cplusplus) && !defined(typeof)
#define typeof __typeof__
#define ECS__UNDEF_TYPEOF
#endif
#ifdef ECS_STB_DS_IMPLEMENTATION
#define STB_DS_IMPLEMENTATION
#endif
/* stb_ds's implementation is not -Wextra clean in C++; keep its warnings
   out of the user's build without hiding any of ours. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include ECS_STB_DS_INCLUDE
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

#ifdef ECS_STATIC
#define ECS__FN ECS_API
#else
#define ECS__FN
#endif

#if defined(ECS_MALLOC) != defined(ECS_FREE)
#error "ecs.h: define both ECS_MALLOC and ECS_FREE, or neither"
#endif
#ifndef ECS_MALLOC
#define ECS_MALLOC(size, ctx) ((void)(ctx), malloc(size))
#define ECS_FREE(p, size, ctx) ((void)(ctx), (void)(size), free(p))
#endif

/* ------------------------------------------------------------------------- */
/* Memory and errors                                                         */
/* ------------------------------------------------------------------------- */

static void *ecs__default_alloc(size_t size, void *ctx) { return ECS_MALLOC(size, ctx); }
static void ecs__default_free(void *p, size_t size, void *ctx) { ECS_FREE(p, size, ctx); }

static void *ecs__alloc(ecs_world *w, size_t size) { return w->alloc.alloc(size, w->alloc.ctx); }
static void ecs__free(ecs_world *w, void *p, size_t size) {
    if (p) w->alloc.free(p, size, w->alloc.ctx);
}

/* Capacity policy of every growable array: doubling, at least 8. */
static uint32_t ecs__next_cap(uint32_t cap, uint32_t need) {
    uint32_t n = cap ? cap : 8;
    while (n < need) n = n > 0x7fffffffu ? 0xffffffffu : n * 2;
    return n;
}

static void *ecs__alloc_n(ecs_world *w, uint32_t n, size_t elem) {
    if (elem && (size_t)n > (size_t)-1 / elem) return NULL;
    return ecs__alloc(w, (size_t)n * elem);
}

/* Grows one array from *cap to at least need items, keeping the first
   `used`: allocate the new block, copy, free the old. On failure nothing
   changes. */
static bool ecs__grow(ecs_world *w, void **arr, uint32_t *cap, uint32_t need, uint32_t used,
                      size_t elem) {
    uint32_t ncap;
    void *p;
    if (need <= *cap) return true;
    ncap = ecs__next_cap(*cap, need);
    if (!(p = ecs__alloc_n(w, ncap, elem))) return false;
    if (used) memcpy(p, *arr, (size_t)used * elem);
    ecs__free(w, *arr, (size_t)*cap * elem);
    *arr = p;
    *cap = ncap;
    return true;
}

ECS__FN void ecs__assert_fail(const char *msg, const char *file, int line) {
    fprintf(stderr, "%s:%d: ecs.h: %s\n", file, line, msg);
    abort();
}

ECS__FN const char *ecs_entity_str(ecs_entity e, char buf[ECS_ENTITY_STR]) {
    if (e == ECS_NULL)
        snprintf(buf, ECS_ENTITY_STR, "null");
    else
        snprintf(buf, ECS_ENTITY_STR, "%lu:%lu", (unsigned long)ECS_ENTITY_INDEX(e),
                 (unsigned long)ECS_ENTITY_VERSION(e));
    return buf;
}

/* Records an error as "call(entity I:V, Comp): what". */
static void ecs__seterr(const ecs_world *cw, ecs_error code, const char *call, ecs_entity e,
                        ecs_component c, const char *what) {
    ecs_world *w = (ecs_world *)cw; /* worlds are never const objects */
    char eb[ECS_ENTITY_STR], cb[32];
    const char *cname = cb;
    if (c - 1u < w->ncomponents)
        cname = w->storages[c]->name;
    else if (c)
        snprintf(cb, sizeof cb, "component #%lu", (unsigned long)c);
    else
        cname = "no component";
    if (e != ECS_NULL || c)
        snprintf(w->err_msg, sizeof w->err_msg, "%s(entity %s, %s): %s", call,
                 ecs_entity_str(e, eb), cname, what);
    else
        snprintf(w->err_msg, sizeof w->err_msg, "%s: %s", call, what);
    w->err = code;
}

/* A programmer error: record it, then ECS_ASSERT with the same message. */
static void ecs__fail(const ecs_world *w, ecs_error code, const char *call, ecs_entity e,
                      ecs_component c, const char *what) {
    ecs__seterr(w, code, call, e, c, what);
    ECS_ASSERT(0, w->err_msg);
}

ECS__FN void ecs__bad_access(const ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                             size_t size) {
    if (c - 1u >= w->ncomponents)
        ecs__fail(w, ECS_ERR_UNKNOWN_COMPONENT, call, e, c, "unknown component");
    else {
        char what[96];
        snprintf(what, sizeof what, "sizeof(T) is %lu but the component was registered with %lu",
                 (unsigned long)size, (unsigned long)w->storages[c]->size);
        ecs__fail(w, ECS_ERR_SIZE_MISMATCH, call, e, c, what);
    }
}

ECS__FN ecs_error ecs_last_error(const ecs_world *w) { return w->err; }
ECS__FN const char *ecs_last_error_msg(const ecs_world *w) { return w->err ? w->err_msg : ""; }
ECS__FN void ecs_clear_error(ecs_world *w) {
    w->err = ECS_OK;
    w->err_msg[0] = 0;
}

/* ------------------------------------------------------------------------- */
/* World                                                                     */
/* ------------------------------------------------------------------------- */

typedef struct ecs__name {
    char *key;
    ecs_component value;
} ecs__name;

ECS__FN ecs_world *ecs_world_new(const ecs_desc *desc) {
    ecs_desc d;
    ecs_world *w;
    if (desc)
        d = *desc;
    else
        memset(&d, 0, sizeof d);
    if (!d.allocator.alloc != !d.allocator.free) {
        ECS_ASSERT(0, "ecs_world_new: desc.allocator needs both alloc and free, or neither");
        return NULL;
    }
    if (!d.allocator.alloc) {
        d.allocator.alloc = ecs__default_alloc;
        d.allocator.free = ecs__default_free;
    }
    w = (ecs_world *)d.allocator.alloc(sizeof *w, d.allocator.ctx);
    if (!w) return NULL;
    memset(w, 0, sizeof *w);
    w->alloc = d.allocator;
    w->max_slots = d.max_entities && d.max_entities < 0xfffffffeu ? d.max_entities : 0xfffffffeu;
    return w;
}

static void ecs__storage_free(ecs_world *w, ecs__storage *s) {
    uint32_t p;
    for (p = 0; p < s->npages; p++) ecs__free(w, s->pages[p], ECS_PAGE_SIZE * sizeof(uint32_t));
    ecs__free(w, s->pages, (size_t)s->npages * sizeof *s->pages);
    ecs__free(w, s->dense, (size_t)s->cap * sizeof *s->dense);
    ecs__free(w, s->data, (size_t)s->cap * s->size);
    ecs__free(w, s->name, strlen(s->name) + 1);
    ecs__free(w, s, sizeof *s);
}

ECS__FN void ecs_world_free(ecs_world *w) {
    uint32_t c;
    ecs__name *names;
    if (!w) return;
    for (c = 1; c <= w->ncomponents; c++) ecs__storage_free(w, w->storages[c]);
    ecs__free(w, w->storages, (size_t)w->storages_cap * sizeof *w->storages);
    ecs__free(w, w->versions, (size_t)w->slots_cap * sizeof *w->versions);
    ecs__free(w, w->freeq, (size_t)w->fq_cap * sizeof *w->freeq);
    ecs__free(w, w->cmds, w->cmds_cap);
    names = (ecs__name *)w->names;
    stbds_shfree(names);
    w->alloc.free(w, sizeof *w, w->alloc.ctx);
}

/* ------------------------------------------------------------------------- */
/* Entities                                                                  */
/* ------------------------------------------------------------------------- */
/* Slot i is alive when versions[i] has no ECS__DEAD bit; the live entity is
   (version << 32 | i). Destroying bumps the version and sets ECS__DEAD, so
   every old id mismatches, and queues the slot at the tail of freeq (a ring
   whose capacity is a power of two). Creation takes the head of freeq, or a
   fresh slot when the queue is empty. */

ECS__FN uint32_t ecs_count(const ecs_world *w) { return w->alive; }

static ecs_entity ecs__make(uint32_t index, uint32_t version) {
    return ((ecs_entity)version << 32) | index;
}

/* Makes sure `n` more entities can be created without allocating. */
static bool ecs__reserve_slots(ecs_world *w, const char *call, uint32_t n) {
    uint32_t fresh = n > w->fq_len ? n - w->fq_len : 0;
    if (fresh > w->max_slots - w->nslots) {
        ecs__seterr(w, ECS_ERR_EXHAUSTED, call, ECS_NULL, 0, "no entity slot left");
        return false;
    }
    if (!ecs__grow(w, (void **)&w->versions, &w->slots_cap, w->nslots + fresh, w->nslots,
                   sizeof *w->versions)) {
        ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, call, ECS_NULL, 0, "out of memory");
        return false;
    }
    return true;
}

/* Index the next ecs__take_slot will return; needs a reserved slot. */
static uint32_t ecs__peek_slot(const ecs_world *w, uint32_t k) {
    return k < w->fq_len ? w->freeq[(w->fq_head + k) & (w->fq_cap - 1)] : w->nslots + (k - w->fq_len);
}

static ecs_entity ecs__take_slot(ecs_world *w) {
    uint32_t i;
    if (w->fq_len) {
        i = w->freeq[w->fq_head];
        w->fq_head = (w->fq_head + 1) & (w->fq_cap - 1);
        w->fq_len--;
        w->versions[i] &= ~ECS__DEAD;
    } else {
        i = w->nslots++;
        w->versions[i] = 1;
    }
    w->alive++;
    return ecs__make(i, w->versions[i]);
}

static void ecs__release_slot(ecs_world *w, ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e), v = ECS_ENTITY_VERSION(e);
    w->alive--;
    if (v >= ECS_VERSION_MAX) { /* retire: never reused, never wrapped */
        w->versions[i] = ECS__DEAD | v;
        return;
    }
    w->versions[i] = ECS__DEAD | (v + 1);
    if (w->fq_len == w->fq_cap) { /* grow the ring, unrolling it */
        uint32_t ncap = w->fq_cap ? w->fq_cap * 2 : 64, k;
        uint32_t *q = (uint32_t *)ecs__alloc(w, (size_t)ncap * sizeof *q);
        if (!q) return; /* out of memory: the slot is retired (documented) */
        for (k = 0; k < w->fq_len; k++) q[k] = w->freeq[(w->fq_head + k) & (w->fq_cap - 1)];
        ecs__free(w, w->freeq, (size_t)w->fq_cap * sizeof *q);
        w->freeq = q;
        w->fq_cap = ncap;
        w->fq_head = 0;
    }
    w->freeq[(w->fq_head + w->fq_len) & (w->fq_cap - 1)] = i;
    w->fq_len++;
}

ECS__FN ecs_entity ecs_create(ecs_world *w) {
    if (!ecs__reserve_slots(w, "ecs_create", 1)) return ECS_NULL;
    return ecs__take_slot(w);
}

/* ------------------------------------------------------------------------- */
/* Components and storages                                                   */
/* ------------------------------------------------------------------------- */

ECS__FN ecs_component ecs_lookup(const ecs_world *w, const char *name) {
    ecs__name *names = (ecs__name *)w->names;
    ptrdiff_t i;
    if (!name || !names) return 0; /* stb_ds would allocate an empty map */
    i = stbds_shgeti(names, name);
    return i < 0 ? 0 : names[i].value;
}

ECS__FN ecs_component ecs_register(ecs_world *w, const char *name, size_t size, size_t align) {
    ecs_component c;
    ecs__storage *s;
    ecs__name *names;
    size_t len;
    if (!name || !*name) {
        ecs__fail(w, ECS_ERR_INVALID, "ecs_register", ECS_NULL, 0, "a component needs a name");
        return 0;
    }
    if (size == 0) align = 0;
    if (size > 0xffffffffu || (size && (align == 0 || (align & (align - 1)) || align > ECS_MAX_ALIGN ||
                                        size % align))) {
        char what[120];
        snprintf(what, sizeof what, "%s: size %lu / alignment %lu not supported (max alignment %lu)",
                 name, (unsigned long)size, (unsigned long)align, (unsigned long)ECS_MAX_ALIGN);
        ecs__fail(w, ECS_ERR_INVALID, "ecs_register", ECS_NULL, 0, what);
        return 0;
    }
    c = ecs_lookup(w, name);
    if (c) {
        s = w->storages[c];
        if (s->size != size || s->align != align) {
            char what[120];
            snprintf(what, sizeof what, "already registered with size %lu, align %lu (now %lu, %lu)",
                     (unsigned long)s->size, (unsigned long)s->align, (unsigned long)size,
                     (unsigned long)align);
            ecs__fail(w, ECS_ERR_INVALID, "ecs_register", ECS_NULL, c, what);
            return 0;
        }
        return c;
    }
    if (w->ncomponents >= 0xfffffffeu ||
        !ecs__grow(w, (void **)&w->storages, &w->storages_cap, w->ncomponents + 2,
                   w->storages ? w->ncomponents + 1 : 0, sizeof *w->storages)) {
        ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, "ecs_register", ECS_NULL, 0, "out of memory");
        return 0;
    }
    len = strlen(name) + 1;
    s = (ecs__storage *)ecs__alloc(w, sizeof *s);
    if (s) {
        memset(s, 0, sizeof *s);
        s->name = (char *)ecs__alloc(w, len);
    }
    if (!s || !s->name) {
        ecs__free(w, s, sizeof *s);
        ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, "ecs_register", ECS_NULL, 0, "out of memory");
        return 0;
    }
    memcpy(s->name, name, len);
    s->size = (uint32_t)size;
    s->align = (uint32_t)align;
    c = ++w->ncomponents;
    s->id = c;
    w->storages[0] = NULL;
    w->storages[c] = s;
    names = (ecs__name *)w->names;
    stbds_shput(names, s->name, c); /* stb_ds: aborts rather than fail */
    w->names = names;
    return c;
}

ECS__FN const char *ecs_component_name(const ecs_world *w, ecs_component c) {
    if (c - 1u >= w->ncomponents) {
        ecs__bad_access(w, "ecs_component_name", ECS_NULL, c, 0);
        return NULL;
    }
    return w->storages[c]->name;
}

ECS__FN size_t ecs_component_size(const ecs_world *w, ecs_component c) {
    if (c - 1u >= w->ncomponents) {
        ecs__bad_access(w, "ecs_component_size", ECS_NULL, c, 0);
        return 0;
    }
    return w->storages[c]->size;
}

ECS__FN uint32_t ecs_component_count(const ecs_world *w) { return w->ncomponents; }

/* The arrays parallel to dense (data, and later per-row state) and their
   element sizes; 0 = absent. Row moves and growth go through this list. */
#define ECS__ROW_ARRAYS 2
static void ecs__row_arrays(ecs__storage *s, void **arr[ECS__ROW_ARRAYS], size_t size[ECS__ROW_ARRAYS]) {
    arr[0] = (void **)&s->dense;
    size[0] = sizeof *s->dense;
    arr[1] = (void **)&s->data;
    size[1] = s->size;
}

/* Makes room for `extra` more rows, so inserting cannot fail. Every row
   array grows to the same capacity, or none does. */
static bool ecs__reserve_rows(ecs_world *w, ecs__storage *s, uint32_t extra) {
    void **arr[ECS__ROW_ARRAYS], *fresh[ECS__ROW_ARRAYS];
    size_t size[ECS__ROW_ARRAYS];
    uint32_t need = s->count + extra, cap, i;
    if (need < s->count) return false; /* overflow */
    if (need <= s->cap) return true;
    cap = ecs__next_cap(s->cap, need);
    ecs__row_arrays(s, arr, size);
    for (i = 0; i < ECS__ROW_ARRAYS; i++) {
        fresh[i] = size[i] ? ecs__alloc_n(w, cap, size[i]) : NULL;
        if (size[i] && !fresh[i]) {
            while (i--) ecs__free(w, fresh[i], (size_t)cap * size[i]);
            return false;
        }
    }
    for (i = 0; i < ECS__ROW_ARRAYS; i++) {
        if (!size[i]) continue;
        if (s->count) memcpy(fresh[i], *arr[i], (size_t)s->count * size[i]);
        ecs__free(w, *arr[i], (size_t)s->cap * size[i]);
        *arr[i] = fresh[i];
    }
    s->cap = cap;
    w->epoch++; /* views hold pointers into the old arrays */
    return true;
}

/* Makes sure the sparse page holding `index` exists. */
static bool ecs__reserve_page(ecs_world *w, ecs__storage *s, uint32_t index) {
    uint32_t p = index >> ECS_PAGE_BITS;
    if (p >= s->npages) {
        uint32_t n = s->npages, cap = s->npages;
        void *pages = s->pages;
        if (!ecs__grow(w, &pages, &cap, p + 1, n, sizeof *s->pages)) return false;
        s->pages = (uint32_t **)pages;
        memset(s->pages + n, 0, (size_t)(cap - n) * sizeof *s->pages);
        s->npages = cap;
    }
    if (!s->pages[p]) {
        uint32_t *page = (uint32_t *)ecs__alloc(w, ECS_PAGE_SIZE * sizeof *page);
        if (!page) return false;
        memset(page, 0xff, ECS_PAGE_SIZE * sizeof *page); /* all ECS__NO_ROW */
        s->pages[p] = page;
    }
    return true;
}

#define ECS__SPARSE(s, i) ((s)->pages[(i) >> ECS_PAGE_BITS][(i)&ECS__PAGE_MASK])

/* Appends e with value (NULL: zeroed). Space must be reserved. */
static uint32_t ecs__push(ecs_world *w, ecs__storage *s, ecs_entity e, const void *value) {
    uint32_t row = s->count++;
    w->epoch++;
    s->dense[row] = e;
    ECS__SPARSE(s, ECS_ENTITY_INDEX(e)) = row;
    if (s->size) {
        if (value)
            memcpy(s->data + (size_t)row * s->size, value, s->size);
        else
            memset(s->data + (size_t)row * s->size, 0, s->size);
    }
    return row;
}

/* Copies row src over row dst (every row array) and repoints the sparse
   entry of the moved entity. */
static void ecs__move_row(ecs__storage *s, uint32_t dst, uint32_t src) {
    s->dense[dst] = s->dense[src];
    ECS__SPARSE(s, ECS_ENTITY_INDEX(s->dense[dst])) = dst;
    if (s->size) memcpy(s->data + (size_t)dst * s->size, s->data + (size_t)src * s->size, s->size);
}

/* Swap-remove: the last row moves into `row`. */
static void ecs__erase(ecs_world *w, ecs__storage *s, uint32_t row, const char *call) {
    uint32_t last = s->count - 1;
    w->epoch++;
    ECS__SPARSE(s, ECS_ENTITY_INDEX(s->dense[row])) = ECS__NO_ROW;
    if (row != last) ecs__move_row(s, row, last);
    s->count = last;
    s->shuffles++;
    s->shuffled_by = call;
}

static void *ecs__value(ecs_world *w, ecs__storage *s, uint32_t row) {
    return s->data ? (void *)(s->data + (size_t)row * s->size) : (void *)&w->tag_dummy;
}

/* ------------------------------------------------------------------------- */
/* Component operations                                                      */
/* ------------------------------------------------------------------------- */

/* Checks that e is alive and c registered (and of `size` unless -1). */
static ecs__storage *ecs__check(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                                size_t size) {
    if (c - 1u >= w->ncomponents || (size != (size_t)-1 && size != w->storages[c]->size)) {
        ecs__bad_access(w, call, e, c, size);
        return NULL;
    }
    if (!ecs_alive(w, e)) {
        ecs__fail(w, ECS_ERR_DEAD_ENTITY, call, e, c, "entity is not alive");
        return NULL;
    }
    return w->storages[c];
}

static void *ecs__add(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                      const void *value, size_t size) {
    ecs__storage *s = ecs__check(w, call, e, c, size);
    uint32_t row;
    if (!s) return NULL;
    row = ecs__row(s, e);
    if (row != ECS__NO_ROW) { /* replace in place */
        if (s->size) {
            void *dst = s->data + (size_t)row * s->size;
            if (!value)
                memset(dst, 0, s->size);
            else if (value != dst)
                memmove(dst, value, s->size);
        }
        return ecs__value(w, s, row);
    }
    {
        /* value may point into this very storage (cloning a component);
           growing frees the old array, so follow the value to the new one */
        uintptr_t v = (uintptr_t)value, d = (uintptr_t)s->data;
        size_t off = v - d;
        bool inside = value && s->data && v >= d && off < (size_t)s->count * s->size;
        if (!ecs__reserve_page(w, s, ECS_ENTITY_INDEX(e)) || !ecs__reserve_rows(w, s, 1)) {
            ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, call, e, c, "out of memory");
            return NULL;
        }
        if (inside) value = s->data + off;
    }
    return ecs__value(w, s, ecs__push(w, s, e, value));
}

ECS__FN void *ecs_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value) {
    return ecs__add(w, "ecs_add", e, c, value, (size_t)-1);
}

ECS__FN void *ecs__add_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                             const void *value, size_t size) {
    return ecs__add(w, call, e, c, value, size);
}

static bool ecs__take(ecs_world *w, const char *call, ecs_entity e, ecs_component c, void *out,
                      size_t size) {
    ecs__storage *s;
    uint32_t row;
    if (c - 1u >= w->ncomponents || (size != (size_t)-1 && size != w->storages[c]->size)) {
        ecs__bad_access(w, call, e, c, size);
        return false;
    }
    s = w->storages[c];
    row = ecs__row(s, e); /* a stale e never matches the dense entry */
    if (row == ECS__NO_ROW) return false;
    if (out && s->size) memcpy(out, s->data + (size_t)row * s->size, s->size);
    ecs__erase(w, s, row, call);
    return true;
}

ECS__FN bool ecs_remove(ecs_world *w, ecs_entity e, ecs_component c, void *out) {
    return ecs__take(w, "ecs_remove", e, c, out, (size_t)-1);
}
ECS__FN bool ecs__remove_sized(ecs_world *w, ecs_entity e, ecs_component c, void *out, size_t size) {
    return ecs__take(w, "ECS_REMOVE", e, c, out, size);
}
ECS__FN bool ecs_delete(ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__take(w, "ecs_delete", e, c, NULL, (size_t)-1);
}

static uint32_t ecs__strip(ecs_world *w, ecs_entity e, const char *call) {
    uint32_t c, n = 0, row;
    for (c = 1; c <= w->ncomponents; c++) {
        ecs__storage *s = w->storages[c];
        if ((row = ecs__row(s, e)) != ECS__NO_ROW) {
            ecs__erase(w, s, row, call);
            n++;
        }
    }
    return n;
}

ECS__FN uint32_t ecs_strip(ecs_world *w, ecs_entity e) {
    return ecs_alive(w, e) ? ecs__strip(w, e, "ecs_strip") : 0;
}

ECS__FN bool ecs_destroy(ecs_world *w, ecs_entity e) {
    if (!ecs_alive(w, e)) return false;
    ecs__strip(w, e, "ecs_destroy");
    ecs__release_slot(w, e);
    return true;
}

/* Validates a bundle: every component registered, none twice. */
static bool ecs__check_bundle(ecs_world *w, const char *call, ecs_entity e, uint32_t n,
                              const ecs_component *comps) {
    uint32_t i, j;
    if (n && !comps) {
        ecs__fail(w, ECS_ERR_INVALID, call, e, 0, "comps is NULL");
        return false;
    }
    for (i = 0; i < n; i++) {
        if (comps[i] - 1u >= w->ncomponents) {
            ecs__bad_access(w, call, e, comps[i], (size_t)-1);
            return false;
        }
        for (j = 0; j < i; j++)
            if (comps[j] == comps[i]) {
                ecs__fail(w, ECS_ERR_INVALID, call, e, comps[i], "component listed twice");
                return false;
            }
    }
    return true;
}

/* Reserves rows in every storage of a bundle and the sparse pages of the
   `count` slots about to be handed out (slots k0.. of ecs__peek_slot), or
   of entity e when it is not null. */
static bool ecs__reserve_bundle(ecs_world *w, const char *call, ecs_entity e, uint32_t count,
                                uint32_t n, const ecs_component *comps) {
    uint32_t i, k;
    for (i = 0; i < n; i++) {
        ecs__storage *s = w->storages[comps[i]];
        bool ok = ecs__reserve_rows(w, s, count);
        if (e != ECS_NULL)
            ok = ok && ecs__reserve_page(w, s, ECS_ENTITY_INDEX(e));
        else
            for (k = 0; ok && k < count; k++) {
                uint32_t idx = ecs__peek_slot(w, k);
                /* fresh slots are consecutive: one check per page suffices */
                if (k >= w->fq_len && k + 1 < count && ((idx + 1) & ECS__PAGE_MASK)) continue;
                ok = ecs__reserve_page(w, s, idx);
            }
        if (!ok) {
            ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, call, e, comps[i], "out of memory");
            return false;
        }
    }
    return true;
}

/* A bundle's values may point into storages the bundle is about to grow
   (cloning a prefab's components): growing frees the old arrays, so such
   values are first copied to a staging block (*staged, to be freed by the
   caller). Returns the values to read. */
static const void *const *ecs__stage(ecs_world *w, const char *call, uint32_t count, uint32_t n,
                                     const ecs_component *comps, const void *const *values,
                                     void **staged, size_t *staged_size) {
    uint32_t i, j;
    size_t total = 0;
    const void **copy;
    unsigned char *payload;
    bool need = false;
    *staged = NULL;
    *staged_size = 0;
    for (i = 0; values && i < n && !need; i++)
        for (j = 0; values[i] && j < n && !need; j++) {
            const ecs__storage *s = w->storages[comps[j]];
            uintptr_t v = (uintptr_t)values[i], d = (uintptr_t)s->data;
            need = s->data && s->count + (uint64_t)count > s->cap && v >= d &&
                   v - d < (size_t)s->count * s->size;
        }
    if (!need) return values;
    for (i = 0; i < n; i++) total += ((size_t)w->storages[comps[i]]->size + 7u) & ~(size_t)7u;
    *staged_size = (size_t)n * sizeof *copy + total;
    if (!(*staged = ecs__alloc(w, *staged_size))) {
        ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, call, ECS_NULL, 0, "out of memory");
        return NULL;
    }
    copy = (const void **)*staged;
    payload = (unsigned char *)(copy + n);
    for (i = 0; i < n; i++) {
        size_t size = w->storages[comps[i]]->size;
        copy[i] = values[i] ? payload : NULL;
        if (values[i]) memcpy(payload, values[i], size);
        payload += (size + 7u) & ~(size_t)7u;
    }
    return copy;
}

ECS__FN bool ecs_add_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps,
                       const void *const *values) {
    uint32_t i;
    void *staged;
    size_t staged_size;
    bool ok;
    if (!ecs_alive(w, e)) {
        ecs__fail(w, ECS_ERR_DEAD_ENTITY, "ecs_add_n", e, n && comps ? comps[0] : 0,
                  "entity is not alive");
        return false;
    }
    if (!ecs__check_bundle(w, "ecs_add_n", e, n, comps)) return false;
    values = ecs__stage(w, "ecs_add_n", 1, n, comps, values, &staged, &staged_size);
    if (staged_size && !staged) return false;
    ok = ecs__reserve_bundle(w, "ecs_add_n", e, 1, n, comps);
    for (i = 0; ok && i < n; i++) /* cannot fail now: everything is reserved */
        ecs__add(w, "ecs_add_n", e, comps[i], values ? values[i] : NULL, (size_t)-1);
    ecs__free(w, staged, staged_size);
    return ok;
}

static bool ecs__create_bulk(ecs_world *w, const char *call, uint32_t count, uint32_t n,
                             const ecs_component *comps, const void *const *values, ecs_entity *out) {
    uint32_t k, i;
    void *staged;
    size_t staged_size;
    bool ok;
    if (!ecs__check_bundle(w, call, ECS_NULL, n, comps)) return false;
    values = ecs__stage(w, call, count, n, comps, values, &staged, &staged_size);
    if (staged_size && !staged) return false;
    ok = ecs__reserve_slots(w, call, count) && ecs__reserve_bundle(w, call, ECS_NULL, count, n, comps);
    for (k = 0; ok && k < count; k++) {
        ecs_entity e = ecs__take_slot(w);
        for (i = 0; i < n; i++) ecs__push(w, w->storages[comps[i]], e, values ? values[i] : NULL);
        if (out) out[k] = e;
    }
    ecs__free(w, staged, staged_size);
    return ok;
}

ECS__FN bool ecs_create_bulk(ecs_world *w, uint32_t count, uint32_t n, const ecs_component *comps,
                             const void *const *values, ecs_entity *out) {
    return ecs__create_bulk(w, "ecs_create_bulk", count, n, comps, values, out);
}

ECS__FN ecs_entity ecs_create_with(ecs_world *w, uint32_t n, const ecs_component *comps,
                                   const void *const *values) {
    ecs_entity e;
    return ecs__create_bulk(w, "ecs_create_with", 1, n, comps, values, &e) ? e : ECS_NULL;
}

/* ------------------------------------------------------------------------- */
/* Views                                                                     */
/* ------------------------------------------------------------------------- */
/* A view walks one storage, its lead, from the last row down to row 0, and
   tests each entity against the other terms. Walking downwards makes
   removing the current entity safe: the swap-remove moves the last row,
   already visited, into the current one. The lead is the shortest required
   term unless the desc names one. A view without required terms but with
   ECS_ANY terms is a union: it walks each ANY storage in turn and skips
   entities an earlier ANY storage already produced. */

static void ecs__iter_changed(ecs_iter *it);

static ecs_iter ecs__view_fail(ecs_iter *it, ecs_world *w, ecs_error code, ecs_component c,
                               const char *what) {
    ecs__fail(w, code, "ecs_view", ECS_NULL, c, what);
    memset(it, 0, sizeof *it);
    it->world = w;
    it->world_epoch = &w->epoch;
    return *it;
}

ECS__FN ecs_iter ecs_view(ecs_world *w, const ecs_view_desc *d) {
    ecs_iter it;
    uint32_t k, j, nreq = 0;
    int lead = -1;
    memset(&it, 0, sizeof it);
    it.world = w;
    it.world_epoch = &w->epoch;
    for (k = 0; k < ECS_MAX_TERMS && d->terms[k].c; k++) {
        ecs_component c = d->terms[k].c;
        uint32_t f = d->terms[k].flags;
        if (c - 1u >= w->ncomponents) {
            ecs__bad_access(w, "ecs_view", ECS_NULL, c, (size_t)-1);
            memset(&it, 0, sizeof it);
            it.world = w;
            it.world_epoch = &w->epoch;
            return it;
        }
        for (j = 0; j < k; j++)
            if (d->terms[j].c == c) return ecs__view_fail(&it, w, ECS_ERR_INVALID, c, "component listed twice");
        if ((f & ~(uint32_t)(ECS_WRITE | ECS_NOT | ECS_OPTIONAL | ECS_ANY)) ||
            ((f & ECS_NOT) && (f & ~(uint32_t)ECS_NOT)) || ((f & ECS_OPTIONAL) && (f & ECS_ANY)))
            return ecs__view_fail(&it, w, ECS_ERR_INVALID, c, "invalid combination of term flags");
        it.st[k] = w->storages[c];
        it.flags[k] = f;
        if (f & ECS_ANY) it.nany++;
        if (f & (ECS_NOT | ECS_OPTIONAL | ECS_ANY)) continue;
        nreq++;
        if (d->lead ? c == d->lead : lead < 0 || it.st[k]->count < it.st[lead]->count) lead = (int)k;
    }
    it.nterms = k;
    if (d->lead && lead < 0)
        return ecs__view_fail(&it, w, ECS_ERR_INVALID, d->lead, "desc.lead is not a required term");
    if (lead < 0) {
        if (!it.nany) return ecs__view_fail(&it, w, ECS_ERR_INVALID, 0, "a view needs a required or ECS_ANY term");
        for (k = 0; !(it.flags[k] & ECS_ANY); k++) {}
        lead = (int)k;
        it.mode = ECS__IT_UNION;
    } else {
        it.mode = ECS__IT_VIEW;
    }
    it.lead_term = (uint32_t)lead;
    it.lead = it.st[lead];
    it.row = it.lo = it.lead->count; /* an empty, used-up block */
    it.epoch = w->epoch - 1;
    it.scan = 0xffffffffu;
    return it;
}

ECS__FN ecs_iter ecs_view_of(ecs_world *w, uint32_t n, const ecs_component *comps) {
    ecs_view_desc d;
    uint32_t k;
    memset(&d, 0, sizeof d);
    if (n > ECS_MAX_TERMS) {
        ecs_iter it;
        return ecs__view_fail(&it, w, ECS_ERR_INVALID, 0, "more than ECS_MAX_TERMS terms");
    }
    for (k = 0; k < n; k++) d.terms[k].c = comps[k];
    return ecs_view(w, &d);
}

/* Row of term k's entity e, when the lead holds e at row r. */
static uint32_t ecs__term_row(const ecs__storage *s, uint32_t r, ecs_entity e) {
    return r < s->count && s->dense[r] == e ? r : ecs__row(s, e);
}

/* Does the entity e at lead row r match? rows[k] receives its row in each
   term's storage (ECS__NO_ROW when absent). */
static bool ecs__iter_match(const ecs_iter *it, uint32_t r, ecs_entity e, uint32_t *rows) {
    uint32_t k, any = 0;
    for (k = 0; k < it->nterms; k++) {
        uint32_t f = it->flags[k];
        rows[k] = ecs__term_row(it->st[k], r, e);
        if (rows[k] == ECS__NO_ROW) {
            if (!(f & (ECS_NOT | ECS_OPTIONAL | ECS_ANY))) return false;
        } else if (f & ECS_NOT) {
            return false;
        } else if (f & ECS_ANY) {
            /* a union view produced e already while walking an earlier ANY term */
            if (it->mode == ECS__IT_UNION && k < it->lead_term) return false;
            any++;
        }
    }
    return any || !it->nany;
}

/* Lowest lo >= end such that, at every row of lo..top-1, each term that
   holds the lead's entity at row top-1 holds the lead's entity of that row:
   the rows over which fields are at the lead's row. One pass over the lead,
   256 rows at a time, each compared with every such term by memcmp. */
static uint32_t ecs__aligned_down(const ecs_iter *it, const uint32_t *rows, uint32_t top,
                                  uint32_t end) {
    const ecs_entity *a = it->lead->dense;
    uint32_t j = top, k;
    while (j > end) {
        uint32_t n = j - end < 256 ? j - end : 256, lo = j - n;
        for (k = 0; k < it->nterms; k++) {
            const ecs_entity *b = it->st[k]->dense;
            uint32_t x = j;
            if (it->st[k] == it->lead || rows[k] == ECS__NO_ROW) continue;
            if (memcmp(a + lo, b + lo, n * sizeof *a) == 0) continue;
            while (x > lo && a[x - 1] == b[x - 1]) x--;
            if (x > lo) lo = x; /* this term leaves the lead's order at row x - 1 */
        }
        if (lo > j - n) return lo;
        j = lo;
    }
    return end;
}

/* Finds the next block below it->row: its top row is the first matching
   one, and it extends down while every term keeps its relation to the lead
   (at the same row, or absent). A term present at another row makes a
   one-row block. Sets lo, row (= the block's top + 1), base, stride. */
static bool ecs__iter_block(ecs_iter *it) {
    uint32_t rows[ECS_MAX_TERMS], k;
    ecs_world *w = it->world;
    if (it->mode == ECS__IT_DONE) return false;
    /* A change in the middle of a block (say, the loop removes the current
       entity) makes the rest of it unverified; rescanning everything below
       after each change would be quadratic, so the next block is short and
       doubles again while nothing changes. */
    if (it->epoch != w->epoch && it->row > it->lo)
        it->scan = 64;
    else if (it->scan < 0x80000000u)
        it->scan *= 2;
    if (it->entity && it->lead->shuffles != it->shuffles) ecs__iter_changed(it);
    for (;;) {
        ecs__storage *lead = it->lead;
        if (it->row > lead->count) it->row = lead->count; /* rows were removed */
        while (it->row > it->end) {
            uint32_t r = it->row - 1, lo;
            bool single = false;
            if (!ecs__iter_match(it, r, lead->dense[r], rows)) {
                it->row = r;
                continue;
            }
            for (k = 0; k < it->nterms; k++) {
                ecs__storage *s = it->st[k];
                unsigned char *data = s->data ? s->data : (unsigned char *)&w->tag_dummy;
                if (rows[k] == ECS__NO_ROW) {
                    it->base[k] = 0;
                    it->stride[k] = 0;
                } else if (rows[k] == r) {
                    it->base[k] = (uintptr_t)data;
                    it->stride[k] = s->data ? s->size : 0;
                } else {
                    it->base[k] = (uintptr_t)(s->data ? data + (size_t)rows[k] * s->size : data);
                    it->stride[k] = 0;
                    single = true;
                }
            }
            /* the block is rows lo..r: start from the floor of the walk and
               let each term raise lo, aligned terms by comparing dense
               arrays, absent ones by lookup */
            lo = r + 1 - it->end > it->scan ? r + 1 - it->scan : it->end;
            lo = single ? r : ecs__aligned_down(it, rows, r + 1, lo);
            for (k = 0; k < it->nterms && lo < r; k++) {
                uint32_t j = r;
                if (rows[k] != ECS__NO_ROW || it->st[k] == lead) continue;
                while (j > lo && ecs__row(it->st[k], lead->dense[j - 1]) == ECS__NO_ROW) j--;
                lo = j;
            }
            it->lo = lo;
            it->row = r + 1;
            it->dense = lead->dense;
            it->epoch = w->epoch;
            it->shuffles = lead->shuffles;
            return true;
        }
        /* the lead is exhausted: a union view moves on to its next ANY term */
        for (k = it->lead_term + 1; it->mode == ECS__IT_UNION && k < it->nterms; k++)
            if (it->flags[k] & ECS_ANY) break;
        if (it->mode != ECS__IT_UNION || k >= it->nterms) {
            it->mode = ECS__IT_DONE;
            it->entity = ECS_NULL;
            it->row = it->lo = it->end = 0;
            return false;
        }
        it->lead_term = k;
        it->lead = it->st[k];
        it->row = it->lead->count;
        it->shuffles = it->lead->shuffles;
    }
}

ECS__FN bool ecs__iter_refill(ecs_iter *it) {
    /* resume below the row last yielded, not below the stale block */
    if (!ecs__iter_block(it)) return false;
    return ecs_iter_next(it);
}

ECS__FN bool ecs_iter_next_block(ecs_iter *it) {
    uint32_t k;
    if (!ecs__iter_block(it)) return false;
    it->count = it->row - it->lo;
    it->entities = it->dense + it->lo;
    for (k = 0; k < it->nterms; k++)
        it->fields[k] = (void *)(it->base[k] + it->lo * it->stride[k]);
    it->row = it->lo;
    it->entity = it->entities[0];
    return true;
}

ECS__FN bool ecs_iter_chunk(ecs_iter *it, uint32_t k, uint32_t n) {
    uint64_t count;
    if (it->mode == ECS__IT_UNION || !n || k >= n || it->entity) {
        ecs__fail(it->world, ECS_ERR_INVALID, "ecs_iter_chunk", ECS_NULL, 0,
                  it->mode == ECS__IT_UNION ? "a union view (no required term) cannot be split"
                                            : "needs k < nchunks, before the first ecs_iter_next");
        return false;
    }
    if (it->mode == ECS__IT_DONE) return true;
    count = it->lead->count;
    it->end = (uint32_t)(count * k / n);
    it->row = it->lo = (uint32_t)(count * (k + 1) / n);
    return true;
}

/* The lead storage lost rows, or was reordered, since the block was found.
   Removing the entity just yielded is fine; anything else may make the
   walk skip or repeat entities. */
static void ecs__iter_changed(ecs_iter *it) {
#if ECS_DEBUG
    ecs__storage *s = it->lead;
    if (!(s->shuffles - it->shuffles == 1 && ecs__row(s, it->entity) == ECS__NO_ROW)) {
        char what[160];
        snprintf(what, sizeof what,
                 "%s changed storage %s under a live view (only the current entity may be "
                 "removed); defer the change with ecs_defer_* and ecs_flush after the loop",
                 s->shuffled_by ? s->shuffled_by : "a call", s->name);
        ecs__fail(it->world, ECS_ERR_INVALID, "ecs_iter_next", it->entity, s->id, what);
    }
#else
    (void)it;
#endif
}

ECS__FN void ecs__bad_field(const ecs_iter *it, uint32_t i, size_t size) {
    char what[96];
    if (i >= it->nterms) {
        snprintf(what, sizeof what, "field %lu of a view with %lu terms", (unsigned long)i,
                 (unsigned long)it->nterms);
        ecs__fail(it->world, ECS_ERR_INVALID, "ECS_FIELD", it->entity, 0, what);
    } else
        ecs__bad_access(it->world, "ECS_FIELD", it->entity, it->st[i]->id, size);
}

ECS__FN uint32_t ecs_each(ecs_world *w, const ecs_view_desc *desc,
                          void (*fn)(ecs_iter *it, void *ctx), void *ctx) {
    ecs_iter it = ecs_view(w, desc);
    uint32_t n = 0;
    while (ecs_iter_next(&it)) {
        fn(&it, ctx);
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------------- */
/* Command buffer                                                            */
/* ------------------------------------------------------------------------- */
/* One byte array of records: an ecs__cmd header, then `size` value bytes,
   padded to 8. ecs_flush applies records from cmds_head in order; records
   added while flushing (by hooks) are applied by the same flush. */

enum { ECS__CMD_DESTROY, ECS__CMD_ADD, ECS__CMD_REMOVE, ECS__CMD_DELETE };

typedef struct ecs__cmd {
    ecs_entity e;
    uint32_t op;
    ecs_component c;
    uint32_t size;
    uint32_t pad_;
} ecs__cmd;

static bool ecs__record(ecs_world *w, const char *call, uint32_t op, ecs_entity e, ecs_component c,
                        const void *value, uint32_t size) {
    ecs__cmd cmd;
    uint32_t rec = (uint32_t)sizeof cmd + ((size + 7u) & ~7u);
    if (w->cmds_len + rec < w->cmds_len ||
        !ecs__grow(w, (void **)&w->cmds, &w->cmds_cap, w->cmds_len + rec, w->cmds_len, 1)) {
        ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, call, e, c, "out of memory");
        return false;
    }
    memset(&cmd, 0, sizeof cmd);
    cmd.e = e;
    cmd.op = op;
    cmd.c = c;
    cmd.size = size;
    memcpy(w->cmds + w->cmds_len, &cmd, sizeof cmd);
    if (size) {
        if (value)
            memcpy(w->cmds + w->cmds_len + sizeof cmd, value, size);
        else
            memset(w->cmds + w->cmds_len + sizeof cmd, 0, size);
    }
    w->cmds_len += rec;
    return true;
}

ECS__FN ecs_entity ecs_defer_create(ecs_world *w) { return ecs_create(w); }

ECS__FN bool ecs_defer_destroy(ecs_world *w, ecs_entity e) {
    return ecs__record(w, "ecs_defer_destroy", ECS__CMD_DESTROY, e, 0, NULL, 0);
}

static bool ecs__defer_add(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                           const void *value, size_t size) {
    ecs__storage *s = ecs__check(w, call, e, c, size);
    return s && ecs__record(w, call, ECS__CMD_ADD, e, c, value, s->size);
}
ECS__FN bool ecs_defer_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value) {
    return ecs__defer_add(w, "ecs_defer_add", e, c, value, (size_t)-1);
}
ECS__FN bool ecs__defer_add_sized(ecs_world *w, ecs_entity e, ecs_component c, const void *value,
                                  size_t size) {
    return ecs__defer_add(w, "ECS_DEFER_ADD", e, c, value, size);
}

static bool ecs__defer_take(ecs_world *w, const char *call, uint32_t op, ecs_entity e, ecs_component c) {
    if (c - 1u >= w->ncomponents) {
        ecs__bad_access(w, call, e, c, (size_t)-1);
        return false;
    }
    return ecs__record(w, call, op, e, c, NULL, 0);
}
ECS__FN bool ecs_defer_remove(ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__defer_take(w, "ecs_defer_remove", ECS__CMD_REMOVE, e, c);
}
ECS__FN bool ecs_defer_delete(ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__defer_take(w, "ecs_defer_delete", ECS__CMD_DELETE, e, c);
}

ECS__FN uint32_t ecs_defer_count(const ecs_world *w) {
    uint32_t n = 0, at = w->cmds_head;
    while (at < w->cmds_len) {
        ecs__cmd cmd;
        memcpy(&cmd, w->cmds + at, sizeof cmd);
        at += (uint32_t)sizeof cmd + ((cmd.size + 7u) & ~7u);
        n++;
    }
    return n;
}

ECS__FN uint32_t ecs_flush(ecs_world *w) {
    uint32_t applied = 0;
    while (w->cmds_head < w->cmds_len) {
        ecs__cmd cmd;
        bool ok = false;
        memcpy(&cmd, w->cmds + w->cmds_head, sizeof cmd);
        switch (cmd.op) {
        case ECS__CMD_DESTROY: ok = ecs_destroy(w, cmd.e); break;
        case ECS__CMD_ADD:
            if (!ecs_alive(w, cmd.e)) break; /* destroyed since it was recorded */
            if (!ecs__add(w, "ecs_flush", cmd.e, cmd.c, w->cmds + w->cmds_head + sizeof cmd, (size_t)-1))
                return applied; /* out of memory: this and later records stay queued */
            ok = true;
            break;
        case ECS__CMD_REMOVE: ok = ecs__take(w, "ecs_flush", cmd.e, cmd.c, NULL, (size_t)-1); break;
        default: ok = ecs__take(w, "ecs_flush", cmd.e, cmd.c, NULL, (size_t)-1); break;
        }
        applied += ok;
        w->cmds_head += (uint32_t)sizeof cmd + ((cmd.size + 7u) & ~7u);
    }
    w->cmds_head = w->cmds_len = 0;
    return applied;
}

/* ------------------------------------------------------------------------- */
/* Sorting                                                                   */
/* ------------------------------------------------------------------------- */

/* Swaps rows a and b of s (every row array) and their sparse entries. */
static void ecs__swap_rows(ecs__storage *s, uint32_t a, uint32_t b) {
    ecs_entity t = s->dense[a];
    s->dense[a] = s->dense[b];
    s->dense[b] = t;
    ECS__SPARSE(s, ECS_ENTITY_INDEX(s->dense[a])) = a;
    ECS__SPARSE(s, ECS_ENTITY_INDEX(s->dense[b])) = b;
    if (s->size) {
        unsigned char buf[64], *pa = s->data + (size_t)a * s->size, *pb = s->data + (size_t)b * s->size;
        size_t left = s->size;
        while (left) {
            size_t n = left < sizeof buf ? left : sizeof buf;
            memcpy(buf, pa, n);
            memcpy(pa, pb, n);
            memcpy(pb, buf, n);
            pa += n;
            pb += n;
            left -= n;
        }
    }
}

static void ecs__reordered(ecs_world *w, ecs__storage *s, const char *call) {
    w->epoch++;
    s->shuffles += 2;
    s->shuffled_by = call;
}

ECS__FN bool ecs_sort(ecs_world *w, ecs_component c, ecs_sort_fn cmp, void *ctx) {
    ecs__storage *s;
    uint32_t *perm, *tmp, n, width, i, *src, *dst;
    if (c - 1u >= w->ncomponents) {
        ecs__bad_access(w, "ecs_sort", ECS_NULL, c, (size_t)-1);
        return false;
    }
    s = w->storages[c];
    n = s->count;
    if (n < 2) return true;
    perm = (uint32_t *)ecs__alloc_n(w, n, sizeof *perm);
    tmp = (uint32_t *)ecs__alloc_n(w, n, sizeof *tmp);
    if (!perm || !tmp) {
        ecs__free(w, perm, (size_t)n * sizeof *perm);
        ecs__free(w, tmp, (size_t)n * sizeof *tmp);
        ecs__seterr(w, ECS_ERR_OUT_OF_MEMORY, "ecs_sort", ECS_NULL, c, "out of memory");
        return false;
    }
    /* stable bottom-up merge sort of row numbers (64-bit bounds: n may be ~2^32) */
    for (i = 0; i < n; i++) perm[i] = i;
    src = perm;
    dst = tmp;
    for (width = 1; width < n; width *= 2) {
        uint64_t lo;
        uint32_t *t;
        for (lo = 0; lo < n; lo += 2 * (uint64_t)width) {
            uint32_t mid = (uint32_t)(lo + width < n ? lo + width : n);
            uint32_t hi = (uint32_t)(lo + 2 * (uint64_t)width < n ? lo + 2 * (uint64_t)width : n);
            uint32_t x = (uint32_t)lo, y = mid, o = (uint32_t)lo;
            while (x < mid && y < hi) {
                uint32_t rx = src[x], ry = src[y];
                const void *vx = s->data ? s->data + (size_t)rx * s->size : NULL;
                const void *vy = s->data ? s->data + (size_t)ry * s->size : NULL;
                dst[o++] = cmp(s->dense[rx], vx, s->dense[ry], vy, ctx) <= 0 ? src[x++] : src[y++];
            }
            while (x < mid) dst[o++] = src[x++];
            while (y < hi) dst[o++] = src[y++];
        }
        t = src;
        src = dst;
        dst = t;
        if (width > n / 2) break; /* the next doubling could overflow */
    }
    /* src[i] = the old row that goes to row i: follow each cycle, swapping */
    for (i = 0; i < n; i++) {
        uint32_t j = i;
        while (src[j] != i) {
            uint32_t next = src[j];
            ecs__swap_rows(s, j, next);
            src[j] = j;
            j = next;
        }
        src[j] = j;
    }
    ecs__free(w, perm, (size_t)n * sizeof *perm);
    ecs__free(w, tmp, (size_t)n * sizeof *tmp);
    ecs__reordered(w, s, "ecs_sort");
    return true;
}

ECS__FN bool ecs_sort_as(ecs_world *w, ecs_component c, ecs_component order) {
    ecs__storage *s, *o;
    uint32_t i, pos = 0;
    if (c - 1u >= w->ncomponents || order - 1u >= w->ncomponents) {
        ecs__bad_access(w, "ecs_sort_as", ECS_NULL, c - 1u >= w->ncomponents ? c : order, (size_t)-1);
        return false;
    }
    s = w->storages[c];
    o = w->storages[order];
    if (s == o) return true;
    for (i = 0; i < o->count; i++) {
        uint32_t r = ecs__row(s, o->dense[i]);
        if (r == ECS__NO_ROW) continue;
        if (r != pos) ecs__swap_rows(s, r, pos);
        pos++;
    }
    ecs__reordered(w, s, "ecs_sort_as");
    return true;
}

#ifdef ECS__UNDEF_TYPEOF
#undef typeof
#undef ECS__UNDEF_TYPEOF
#endif

#endif /* ECS_IMPLEMENTATION_ONCE */
#endif /* ECS_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the ecs.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication in perpetuity for the benefit of current and
future generations of society and to the detriment of all copyright interest in
the software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
