/* ecs.h - v0.3 - sparse-set Entity Component System in one C header

   Do this:
      #define ECS_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the
   implementation. Every other file just includes "ecs.h".

   ecs.h uses stb_ds.h (Debian: libstb-dev, `pkg-config --cflags --libs stb`)
   for the hash function of its name indexes. Exactly one translation unit of your program must
   contain the stb_ds implementation: either link `-lstb`, or define
   ECS_STB_DS_IMPLEMENTATION next to ECS_IMPLEMENTATION, or define
   STB_DS_IMPLEMENTATION in a file of your own. ecs.h never defines it by
   itself, so a game that already uses stb_ds keeps working.

      // one .c file:
      #define ECS_IMPLEMENTATION
      #define ECS_STB_DS_IMPLEMENTATION   // or link -lstb
      #include "ecs.h"

      cc -std=c99 $(pkg-config --cflags stb) game.c -o game

   Without it: "undefined reference to stbds_hash_string" at link time
   means no file defines the stb_ds implementation (add
   ECS_STB_DS_IMPLEMENTATION, or link -lstb).

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
      10. Uniques
      11. Tracking
      12. Hooks
      13. Groups
      14. Indexes and cached queries
      15. Systems and workloads
      16. Phases: proposals and reducers
      17. Save and load
      18. Pointer validity
      19. Revision history
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
                             against the registered size, T against the
                             type ECS_COMPONENT registered) and makes the
                             typed macros' messages name the caller's file
                             and line. Default: on unless NDEBUG. Never
                             changes any struct layout. Like every option
                             it must be the same in every file, the
                             implementation's included: not detected. A
                             debug program linked with a release build
                             of the implementation (libecs.so of make
                             shared, -DNDEBUG) keeps only the checks its
                             own compiler inlined, with the library's
                             ECS_ASSERT (none): build them alike.
      ECS_CALLER_PLACE       Defined (in C, with ECS_DEBUG): the inline
                             calls that can assert name the caller's file
                             and line too, through macros that mask them
                             (section 6). Off by default: the API has no
                             lower-case function-like macros.
      ECS_MALLOC(size, ctx)  Default allocator of every world whose desc has
      ECS_FREE(p, size, ctx) no allocator. Define both or neither.
                             Default: malloc / free (and realloc).
      ECS_REALLOC(p, old_size, size, ctx)
                             Optional with ECS_MALLOC/ECS_FREE: like
                             realloc (NULL on failure, p unchanged; must
                             not fail when shrinking), so big arrays grow
                             in place. Without it, growing allocates,
                             copies and frees.
      ECS_MAX_ALIGN          Largest component alignment the allocator
                             guarantees (default 2 * sizeof(void *): 16 on
                             64-bit, 8 on 32-bit, where glibc's malloc
                             gives 16 on i386: define it 16 there for
                             16-aligned SIMD types). Larger alignments
                             are refused at registration.
      ECS_VERSION_MAX        Largest entity version (default 0x7fffffff).
                             A slot reaching it is retired, never wrapped.
      ECS_API                Linkage of the public functions (default extern).
      ECS_STATIC             Make the implementation static to its TU (use
                             when ecs.h is only needed in one file).
      ECS_SHARED             ecs.h is built into, or used from, a shared
                             library: the functions get default visibility
                             (gcc/clang) or dllexport in the TU that
                             defines ECS_IMPLEMENTATION and dllimport
                             elsewhere (Windows). Every function, the
                             inline ones too, has a real symbol there, and
                             so do the private functions the macros and
                             inline functions call (a program needs
                             them); nothing else is exported. make shared
                             and CMake's ECS_BUILD_SHARED build it as
                             libecs.so.MAJOR.MINOR.PATCH, SONAME
                             libecs.so.MAJOR.MINOR (a program and the
                             library come from the same minor version).
      ECS_STB_DS_INCLUDE     How to include stb_ds (default "stb_ds.h").
      ECS_STB_DS_IMPLEMENTATION
                             Also compile the stb_ds implementation here.

   ---------------------------------------------------------------------------
   2. MEMORY AND ERRORS

      Memory: see ecs_desc.allocator (section 3). Every array ecs.h grows
      doubles its capacity; nothing shrinks until ecs_shrink or the world
      is freed. Statistics, reserve and shrink: section 5, "Memory".

      Failing calls return false / NULL / 0 / ECS_NULL and record why:
      ecs_error ecs_last_error(const ecs_world *w)
      const char *ecs_last_error_msg(const ecs_world *w)
          Set by every failing call (successful calls leave them alone,
          but for one reported lag: a cached query's tag that could not
          follow a change, section 14), e.g.
          "ecs_add(entity 3:2, Pos): entity is not alive".
      void ecs_clear_error(ecs_world *w)

      Programmer errors also go through ECS_ASSERT with the same message;
      runtime conditions (out of memory, exhausted ids) do not assert.
      A call that runs out of memory changes nothing the API can see
      (entities, values, stamps, lists, uniques, groups, hooks run, queued
      commands): every call reserves what it needs before its first
      change. Capacity it grew before the allocation that failed stays, as
      capacity does (ecs_shrink gives it back); a failed ecs_load leaves
      even that as it was. tests/test_alloc.c and test_alloc_all.c fail
      every allocation of every call in turn, clone and reserve included.

      The catalogue. "assert" = ECS_ASSERT with the message, then the
      failure value; errors are the ecs_error set. null = ECS_NULL; stale =
      destroyed or never created; unknown = component id 0 or unregistered.

      call                      bad input                 answer
      ------------------------  ------------------------  --------------------
      ecs_world_new             alloc without free        NULL, assert
                                out of memory             NULL
      ecs_create, _n, _bulk     no slot left              ECS_NULL/false, EXHAUSTED
                                out of memory             ECS_NULL/false, OUT_OF_MEMORY
                                unknown / repeated comp   ECS_NULL/false, assert
      ecs_destroy, ecs_strip    null or stale entity      false/0, no error
                                its own hook runs         false/0, LOCKED, assert
                                out of memory (tracking)  false/0, OUT_OF_MEMORY
                                free queue cannot grow    destroyed; the slot is
                                                          retired, not queued
      ecs_create_id             bad version; slot alive,  ECS_NULL, INVALID, assert
                                used or retired
                                beyond max_entities       ECS_NULL, EXHAUSTED
      ecs_clone                 null or stale source      ECS_NULL, DEAD_ENTITY, assert
                                no slot left; out of      ECS_NULL, EXHAUSTED/
                                memory                    OUT_OF_MEMORY
      ecs_destroy_all           unknown component         0, UNKNOWN_COMP., assert
      ecs_reserve               more than max_entities    false, EXHAUSTED
      ecs_world_clear           inside a hook, comparator 0, LOCKED, assert
                                out of memory             0, OUT_OF_MEMORY, nothing
                                                          destroyed
      ecs_alive, ecs_has,       null or stale entity      false/NULL, no error
      ecs_get, ecs_get_mut      unknown component         false/NULL, assert (in
                                                          release no error is
                                                          recorded: no call)
      ECS_GET, ECS_GET_MUT      wrong sizeof(T)           NULL, assert (ECS_DEBUG)
      and every typed macro     T not the type that       NULL/false, SIZE_MISMATCH,
                                ECS_COMPONENT registered  assert (ECS_DEBUG)
      ecs_add, ECS_ADD,         null or stale entity      NULL/false, DEAD_ENTITY, assert
      ecs_add_n, ecs_create_n,  unknown component         NULL/false, assert
      ecs_add_if_changed        wrong sizeof(T)           NULL/false, SIZE_MISMATCH, assert
                                hook lock / being stripped NULL/false, LOCKED, assert
                                out of memory             NULL/false, OUT_OF_MEMORY
      ecs_remove, ECS_REMOVE,   null or stale entity      false, no error
      ecs_delete, ecs_get_n,    unknown component         false, assert
      _get_mut_n, _remove_n,    a component twice; n >    false, INVALID, assert
      _delete_n                 ECS_MAX_TERMS
                                wrong sizeof(T)           false, SIZE_MISMATCH, assert
                                hook lock                 false, LOCKED, assert
                                out of memory (tracking)  false, OUT_OF_MEMORY
      ecs_register              no name; bad size/align;  0, INVALID, assert
                                name taken, other size
      ecs_lookup                NULL or unknown name      0, no error
      ecs_component_name/size,  unknown component         NULL/0, assert
      ecs_storage_*
      ecs_view, ecs_view_of     unknown/repeated comp,    a view that yields
                                bad flags, no required    nothing, assert
                                or ANY term, untracked
                                filter, lead not required
      ecs_iter_next             forbidden change (sect. 7) assert (ECS_DEBUG)
      ECS_FIELD, ecs_field      bad index, wrong sizeof   NULL, assert (ECS_DEBUG)
      ecs_iter_chunk            union view, k >= n, late  false, assert
      ecs_defer_add             stale entity, unknown     false, assert
      ecs_defer_destroy,        null, or an id never      false, no error, nothing
      _remove, _delete          handed out                recorded (a stale id is
                                                          recorded and skipped)
      ecs_defer_*               out of memory             false, nothing recorded
      ecs_flush                 entity died meanwhile     command skipped
                                out of memory             stops; rest stays queued
      ecs_sort, ecs_sort_as     unknown; owned by group   false, assert
                                ecs_sort of a cached      false, LOCKED, assert
                                query's tag
                                out of memory             false, nothing moved
      ecs_unique_*              unknown component         NULL/false, assert
      ecs_unique_get(_mut)      no unique value           NULL, NOT_FOUND, assert
      ecs_track_set             unknown; bad flags        false, assert
                                out of memory             false
      ecs_track_get, _clear,    unknown c (0: all, for    0/nothing, UNKNOWN_COMP.,
      _clear_until,             the clears); bad flags    INVALID, assert
      _mark_modified
      ecs_track_inserted,       storage not tracking it   false/NULL, INVALID, assert
      _modified, _removed,
      _deleted*, _created
      ecs_hooks_set             its hook is running       false, LOCKED, assert
      ecs_group_new             owned twice, unknown,     0, assert
                                repeated, none owned
                                a cached query's tag      0, LOCKED, assert
      ecs_group_*               bad group; not owned c    0/NULL/false, assert
      ecs_system_new            no name/fn; name taken    false, INVALID, assert
      ecs_workload_new          unknown item; name taken  false, NOT_FOUND/INVALID, assert
      ecs_workload_run          unknown workload; nested  -1, NOT_FOUND/INVALID, assert
      ecs_workload_set_default, unknown workload          false/0, NOT_FOUND, assert
      ecs_workload_plan
                                a system returns n != 0   n, SYSTEM (no assert)
      ecs_view, ecs_visit,      NULL desc, comps (n > 0), null view (yields nothing)/
      ecs_system_view           fn or ctx                 0, INVALID, assert
      ecs_add_n, ecs_create_n,  NULL comps with n > 0;    false/ECS_NULL, INVALID, assert
      ecs_create_bulk           n > ecs_component_max
      ecs_sort, ecs_group_sort  NULL comparator           false, INVALID, assert
      ecs_group_new             NULL desc                 0, INVALID, assert
      ecs_system_new            NULL desc, name or fn     false, INVALID, assert
      ecs_workload_new          NULL name, items (n > 0)  false, INVALID / NOT_FOUND,
                                or items[i]               assert
      ecs_entity_str            NULL buf                  NULL, assert
      ecs_entity_print          NULL buf with cap > 0     0, INVALID, assert
      ecs_entity_components,    NULL out (with cap > 0    0/false, INVALID, assert
      ecs_storage_stats_get,    for the lists)
      ecs_world_stats_get,
      ecs_track_removed_or_deleted
      ecs_component_print_set   unknown c; a tag          false, UNKNOWN_COMP./INVALID,
                                                          assert
      ecs_iter_chunk            NULL iterator             false, assert
      ecs_track_deleted_value   entry not in the list     NULL, INVALID, assert
      ecs_save, ecs_save_buffer pending commands; NULL    false/0, INVALID, assert
                                write, or NULL buf with cap
                                write/save callback fails false/0, INVALID
                                out of memory             false/0, OUT_OF_MEMORY
      ecs_load                  live entities; pending    false, INVALID, assert
                                commands; NULL bytes
                                a bad snapshot (sect. 17) false, FORMAT/NOT_FOUND/
                                                          SIZE_MISMATCH/..., w unchanged
      ecs_serial_set            unknown; save w/o load    false, assert
      ecs_system_run            unknown or NULL name      -1, NOT_FOUND, assert
                                in a workload or system   -1, INVALID, assert
                                in a hook or comparator   -1, LOCKED, assert
      ecs_phase_new, _system,   NULL desc, no name or fn, false, INVALID/NOT_FOUND,
      _reducer,                 name taken, unknown phase assert
      ecs_schedule_new          or component, a second
                                claim of a unique; while
                                a schedule runs
      ecs_propose_*,            NULL p                    false, assert
      ecs_proposals_split       not from a running phase  false, LOCKED, assert
                                system (a hook, a reducer)
                                dead e, unknown c, wrong  false; the phase fails:
                                sizeof(T), bad bundle,    DEAD_ENTITY/UNKNOWN_COMP./
                                split twice or into 0,    INVALID/OUT_OF_MEMORY
                                out of memory
      ecs_proposals_part        NULL p, k >= parts        NULL, assert
      ecs_schedule_run          unknown or NULL name      -1, NOT_FOUND, assert
                                in a workload, schedule,  -1, INVALID/LOCKED, assert
                                system or hook
                                a phase fails (sect. 16)  -1 or the system's n; the
                                                          world as before the phase
                                its spawns exceed         -1, EXHAUSTED; the world
                                max_entities              as before the phase
      ecs_index_new             NULL desc; a tag; field   0, INVALID, assert
                                outside the value;
                                unsupported kind
                                unknown c                 0, UNKNOWN_COMPONENT, assert
                                out of memory             0, OUT_OF_MEMORY
      ecs_index_find, _any,     no such index; NULL key,  0, INVALID, assert
      _range, ecs_index_free    keys, or out with cap;
                                range on a hashed index;
                                ECS_INDEX_FIND: sizeof(T)
                                not the field's
                                out of memory (updating)  0, OUT_OF_MEMORY (rebuilt
                                                          at the next query)
      ecs_view (desc.where)     no such index; range on   a view that yields nothing,
                                a hashed index; flags     INVALID, assert
      ecs_query_new             NULL desc; no required    0, INVALID, assert
                                term; other flags; a tag
                                to take over with hooks,
                                groups, tracking or
                                queued commands
                                out of memory             0, OUT_OF_MEMORY
      ecs_add, ecs_remove...,   a cached query's tag,     NULL/false, LOCKED, assert
      ecs_defer_*               added where it is not or  (an add where it is
                                removed where it is       already: a replace)
      ecs_storage_reserve       storage locked (a hook)   false, LOCKED, assert
      ecs_storage_*             NULL handle               NULL/0/false, assert
      a call from a callback    refused (table below)     failure value, LOCKED, assert
      any out-of-line call      NULL world                failure value, assert
      an [inline] call, a       NULL world or iterator    undefined (not checked)
      typed macro (ECS_ADD...)
      Pointers that may be NULL: value (zeroed), values, out, count, ctx
      and user (passed through), ecs_hooks_set's hooks (clears them),
      ecs_world_new's desc (defaults), ecs_workload_plan's out (just the
      count), a workload name (the default workload), ecs_lookup's name
      (0), ecs_world_free's world (nothing).

      Callbacks that call back into the world. A hook, a sort comparator, a
      system (and its run_if) and ecs_visit's fn may call any function;
      these are refused (failure value, ECS_ERR_LOCKED, assert; nothing is
      changed, dropped or half-applied), everything else is allowed and
      works as at top level:

      inside                    refused
      ------------------------  ---------------------------------------------
      a hook of storage S, for  insertions and removals on S and on the
      entity e                  storages of S's groups (an add over a value
                                the entity has is a replace: allowed);
                                destroy/strip of e; add to an entity being
                                stripped; ecs_sort, ecs_sort_as,
                                ecs_group_sort, ecs_hooks_set, ecs_track_set,
                                ecs_group_new, ecs_index_new (it sets
                                tracking) and ecs_index_free, ecs_query_new
                                with S as a term, ecs_storage_reserve, of
                                those storages; ecs_flush (the queue stays
                                for the next flush); ecs_shrink;
                                ecs_world_clear; workload, system and
                                schedule runs; ecs_world_free
      a sort comparator         the same for the storages being sorted (one,
      (ecs_sort, ecs_group_sort) or all of the group's), including destroy
                                of their entities and, for a group, changes
                                that would join or leave it; ecs_flush,
                                ecs_workload_run, ecs_world_free
      a system or run_if, and   ecs_system_new, ecs_workload_new,
      desc.parallel_for while   ecs_workload_run, ecs_system_run and
      it runs a batch           ecs_schedule_run (INVALID), ecs_world_free,
                                in a batch of several systems everything
                                structural (section 15: create, destroy,
                                strip, insertions, removals, ecs_defer_*,
                                a new component, sorts; LOCKED),
                                ecs_track_clear(_until) and ecs_tick_advance
                                in a batch of several systems or a
                                schedule (the clock they stamp with, maybe
                                on other threads: refused in their
                                systems and hooks; a system alone in its
                                batch - structural ones are - or run by
                                ecs_system_run, and the flush after a
                                batch, may: the system's own later changes
                                are then newer than its ctx->now, and its
                                next run sees them); systems sharing a
                                batch follow section 15
      a phase system or its     every call that changes the world other
      run_if, a reducer         than in place (section 16): insertions and
                                removals, create (ecs_create_id too),
                                destroy, clone, ecs_world_clear,
                                ecs_destroy_all, ecs_defer_*, ecs_flush,
                                ecs_register, ecs_query_new, ecs_track_set,
                                ecs_track_clear(_until), ecs_tick_advance,
                                ecs_sort(_as), ecs_group_new, ecs_group_sort,
                                ecs_index_new/_free, ecs_hooks_set,
                                ecs_reserve, ecs_storage_reserve, ecs_shrink,
                                ecs_serial_set, ecs_component_print_set,
                                ecs_workload_set_default,
                                ecs_unique_add/_remove/_get_mut, another
                                system's exclusive unique, ecs_load,
                                ecs_world_free (IN_PHASE or LOCKED);
                                ecs_system_new, ecs_workload_new,
                                ecs_phase_*, ecs_schedule_new, and workload,
                                system and schedule runs (INVALID/LOCKED);
                                ecs_propose_* except by the running system
      a hook during a phase's   ecs_propose_* (the phase's buffers are being
      apply                     read)
      ecs_visit's fn, a view     what the rules of iteration (section 7)
      loop                      forbid; ecs_world_free is undefined there
                                (the loop reads the world after fn returns),
                                as freeing any array you are walking
      an allocator function     every call (not checked: they must not call
                                ecs.h)
      a save or load callback   every call that changes that world (not
      (ecs_serial)              checked; ECS_DEBUG asserts after it)
      (any of the above)        ecs_load (LOCKED in hooks, comparators and
                                systems); ecs_save is allowed (but from
                                a hook of ecs_flush, while commands are
                                queued: INVALID, as anywhere)
      Changes a hook makes to other storages run their own hooks, to any
      depth. ecs_defer_* is allowed everywhere; from a hook during ecs_flush
      the command is applied by that same flush.

   ---------------------------------------------------------------------------
   3. WORLD

      ecs_world *ecs_world_new(const ecs_desc *desc)
          Creates a world. desc may be NULL; a zeroed ecs_desc is the default
          configuration. Returns NULL if the world cannot be allocated.
      void ecs_world_free(ecs_world *w)
          Frees the world and everything in it. NULL is ignored. Refused
          (assert, the world stays) inside a hook, a sort comparator or a
          running workload (section 2, "Callbacks").
          When a storage with values has an on_remove hook, the entities
          are destroyed first, as ecs_world_clear does (pico_ecs runs its
          destructors too), so hooks that release what a value owns leak
          nothing and hooks that keep other storages in order (a
          hierarchy) work as for ecs_destroy. Nothing is recorded then
          (tracking is off), so memory cannot run out; should a destroy
          still fail, the hooks of the values left run with every storage
          locked. Hooks that create entities on every removal never let
          it end, as with ecs_world_clear.
      uint32_t ecs_world_clear(ecs_world *w)
          Destroys every entity (as ecs_destroy: hooks and tracking run,
          entities created by hooks meanwhile go too) and keeps the rest:
          registrations, hooks, tracking, groups, uniques, systems and
          workloads. Returns how many. Refused inside a hook or comparator.
          The memory it needs (room for every tracking record, a list
          for entities of more than 32 components) is taken first: out of
          memory there, it returns 0 (ECS_ERR_OUT_OF_MEMORY) with nothing
          destroyed. Only what hooks add meanwhile (entities, values,
          registrations) can still run out of memory; it stops there,
          each entity destroyed whole or not at all, and returns how many
          went.

      All memory of a world comes from desc->allocator (alloc/free with a
      user context) or, if that is zeroed, from ECS_MALLOC/ECS_FREE, and
      every allocation failure is reported (section 2). stb_ds provides
      the hash function of the name indexes; it allocates nothing for ecs.h.

      A world is not thread-safe for writes. While nobody writes it, any
      number of threads may read it: ecs_alive, ecs_get, ecs_has, the
      ecs_storage_* handles, ecs_lookup, ecs_component_name/size/max,
      ecs_count, ecs_unique_get/has, the tracking queries (ecs_track_get,
      ecs_track_inserted, _modified, _removed, _deleted*, _created,
      _destroyed), the group queries, and views with no ECS_WRITE term (both loop forms,
      ecs_visit). ecs_iter_chunk gives threads disjoint slices of one view;
      each may write its own slice's ECS_WRITE terms (marks included). The
      systems of a workload batch run at once through parallel_for (section
      15). Two reads bring something up to date, and so write it: a view
      with an index term or an ecs_index_* query after writes to the
      indexed component, and a view with a cached query's tag as a term
      while that query lags after running out of memory (section 14).
      They are safe on several threads once one of them ran alone.
      The allocator is called from the thread that makes the call: in a
      parallel workload batch or phase, from several at once (a system
      that writes an indexed component grows that index's list of
      changes), so give such a world a thread-safe allocator. tests/test_threads.c runs each of these on 4 threads under
      ThreadSanitizer. A call that fails records its error in the world, so
      two threads making failing calls at once race on the message.

   ---------------------------------------------------------------------------
   4. ENTITIES

      An ecs_entity is a 64-bit id: the low 32 bits are a slot index, the
      high 32 bits a version. 0 is ECS_NULL, the null entity, so zeroed
      structs hold "no entity". Every call checks the version in O(1), so a
      stale id (its entity was destroyed) never reaches the entity that
      reuses its slot. Freed slots are reused first-in first-out; a slot
      whose version reaches ECS_VERSION_MAX is retired instead of wrapping.
      Any 64-bit value may be passed where an entity is expected: one that
      was never handed out (an index past every slot, a version above
      ECS_VERSION_MAX, a free slot's version) is treated like a stale id.

      ecs_entity ecs_create(ecs_world *w)
          A new entity with no components. Returns ECS_NULL when out of
          memory or when no slot is left (error set): desc.max_entities
          counts every slot ever used, alive, free or retired (a slot
          whose last version was used, ECS_VERSION_MAX).
      bool ecs_destroy(ecs_world *w, ecs_entity e)
          Deletes every component of e, then e. Returns false (no assert) if
          e is not alive, so destroying twice is harmless.
      bool ecs_alive(const ecs_world *w, ecs_entity e)      [inline]
      uint32_t ecs_count(const ecs_world *w)       number of live entities
      uint32_t ECS_ENTITY_INDEX(e), ECS_ENTITY_VERSION(e)
      const char *ecs_entity_str(ecs_entity e, char buf[ECS_ENTITY_STR])
          Formats e as "index:version" (or "null") for messages.
      size_t ecs_entity_print(const ecs_world *w, ecs_entity e, char *buf, size_t cap)
          Writes e for debugging, as snprintf does (buf gets at most cap - 1
          characters and a '\0'; returns the length the whole text needs,
          so buf may be NULL with cap 0 to size one): e, then its
          components in id order, each followed by its value in parentheses
          where ecs_component_print_set gave it a print function:
          "3:1 {Pos (1, 2), Vel (0.5, 0), Frozen}"; "3:1 (not alive)" for a
          stale id, "null (not alive)" for ECS_NULL.
      ecs_entity ecs_create_id(ecs_world *w, ecs_entity e)
          Creates the entity e itself (loaders, networking): its slot
          becomes alive at e's version; slots skipped below it join the
          free queue. ECS_NULL and INVALID (assert) if the slot is alive,
          e's version is 0, above ECS_VERSION_MAX, or older than the
          slot's next one, or the slot is retired; EXHAUSTED beyond
          desc.max_entities, or when the free queue would hold more than
          2^31 slots. Memory: every slot below e exists (8 to 16 bytes
          each in the slot table and the free queue, whose capacities
          double), so ids from outside should be dense: an index of
          10,000,000 costs about 134 MB.
      ecs_entity ecs_clone(ecs_world *w, ecs_entity e)
          A new entity with a copy of each of e's components (bytes; hooks
          and tracking run as for ecs_add), for spawning from a template.
          All or nothing: on a failure the new entity is destroyed again.
      uint32_t ecs_destroy_all(ecs_world *w, ecs_component c)
          Destroys every entity that has c (Shipyard's delete_any); returns
          how many. Stops at the first refusal (error set). Out of memory
          for its records (tracking), as ecs_world_clear: 0, nothing
          destroyed; only what hooks add meanwhile can still run out.
      uint32_t ecs_entity_components(const ecs_world *w, ecs_entity e,
                                     ecs_component *out, uint32_t cap)
          e's components in id order: writes up to cap of them, returns
          how many e has (0 if not alive). One sparse lookup per
          registered component.

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
      ECS_COMPONENT(w, T)   ecs_register(w, "T", sizeof(T), alignof(T)), and
                            remembers that "T" names a C type (typed macros)
      ECS_TAG(w, name)      ecs_register(w, name, 0, 0)
      bool ecs_component_print_set(ecs_world *w, ecs_component c, ecs_print_fn fn)
          size_t fn(const void *value, char *buf, size_t cap) writes a value
          of c for ecs_entity_print, as snprintf does (it may get buf NULL
          and cap 0 once the text is full: write nothing, return the
          length). NULL: c is printed by name only. fn must not change the
          world. Not for tags (false, INVALID, assert).
      ecs_component ecs_lookup(const ecs_world *w, const char *name)
          The id registered under name, or 0.
      const char *ecs_component_name(const ecs_world *w, ecs_component c)
      size_t ecs_component_size(const ecs_world *w, ecs_component c)
      uint32_t ecs_component_max(const ecs_world *w)

      Each component type has its own sparse set: a paged sparse array
      (sparse[index] = the entity's version and row in 8 bytes, so a lookup
      checks the version with the same load; pages of 4096 entries are
      allocated on first use, so an entity with index 10,000,000 costs one
      page, not 10M entries), a packed dense array of entity ids and a
      packed data array parallel to it. Removing swaps the last row into
      the hole.

      Layers (as in EnTT; the implementation's sections follow them):
        1. storage primitives: push, pop (swap-remove), swap and permute
           are the only code that touches sparse, dense, data, the
           tracking ticks and the storage's change counter; one "modified"
           step stamps every value written (get_mut, written view terms,
           ECS_EACH, add over a value, add_if_changed, flush, uniques);
        2. one insert path and one remove path per storage, which every
           change goes through (add is a bundle of one; add_n, create_n,
           create_bulk, clone, flush and add_if_changed are bundles;
           remove, delete, remove_n, strip and destroy remove; sorts use
           the primitives directly). Each runs one fixed order:
             insert: validate and lock check -> reserve slots, rows and
                     pages -> push and copy each value (or replace one the
                     entity has) -> what is attached (groups join) ->
                     once every entity has its whole bundle: on_insert
             remove: validate and lock check -> reserve the tracking
                     record -> on_remove (value still readable) -> groups
                     leave -> record removal/deletion -> out gets the value
                     -> pop -> groups that exclude c join
           so that nothing can fail after the first change;
        3. what is attached to those two paths: a storage keeps a list of
           it (hooks, section 12; the groups that own or exclude it, 13;
           tracking's records, 11), and the paths call each in that list.
           With nothing attached to a storage, add, remove and delete take
           an inline path straight to the primitives.
      Read access for your own loops:

      const ecs_storage *ecs_storage_of(const ecs_world *w, ecs_component c) [inline]
      ecs_storage *ecs_storage_of_mut(ecs_world *w, ecs_component c)         [inline]
          A handle to c's storage (NULL and an assert for an unknown c),
          valid for the life of the world: read-only from ecs_storage_of
          (a const world gives no way to write), writable from
          ecs_storage_of_mut. Hoist it out of a loop that looks up many
          entities of one component:
      const void *ecs_storage_get(const ecs_storage *s, ecs_entity e)   [inline]
      void *ecs_storage_get_mut(ecs_storage *s, ecs_entity e)           [inline]
      bool ecs_storage_has(const ecs_storage *s, ecs_entity e)          [inline]
          ecs_get / ecs_get_mut / ecs_has of s's component, without the
          world's loads.
          ECS_STORAGE_GET(s, e, T)  ECS_STORAGE_GET_MUT(s, e, T)
      uint32_t ecs_storage_count(const ecs_storage *s)                  [inline]
      const ecs_entity *ecs_storage_entities(const ecs_storage *s)      [inline]
      void *ecs_storage_data(const ecs_storage *s)                      [inline]
          The storage's rows: row i holds entities[i] and its value at
          (char *)data + i * size. data is NULL for tags. A NULL s is
          refused with an assert (0 / NULL).

      Memory.
      bool ecs_storage_stats_get(const ecs_storage *s, ecs_storage_stats *out)
      bool ecs_world_stats_get(const ecs_world *w, ecs_world_stats *out)
          What a storage holds (rows, capacity, bytes of values, dense ids,
          sparse pages, tracking ticks and lists) and the world's totals
          (slots, free queue, command buffer, name indexes, entity lists,
          storages), counted as allocated: where the memory goes. Not
          counted: systems, workloads and groups (small, fixed at setup).
      bool ecs_reserve(ecs_world *w, uint32_t n)
          Room for n more entities: the next n creates allocate nothing.
      bool ecs_storage_reserve(ecs_storage *s, uint32_t n)
          Room for n more rows in s (moves its arrays, section 18).
      void ecs_shrink(ecs_world *w)
          Gives unused capacity back: row arrays and lists to their count,
          sparse pages with no entity, slot capacity, an empty command
          buffer. Moves arrays like growth (section 18); refused in hooks.
          Out of memory for a smaller copy keeps the bigger one.

   ---------------------------------------------------------------------------
   6. COMPONENT OPERATIONS  (Shipyard's vocabulary)

      void *ecs_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value)   [inline]
          Inserts c on e, or replaces the value e already has. value NULL
          means zeroed. Returns a pointer to the stored value (for a tag, a
          non-NULL pointer that must not be dereferenced), or NULL on
          failure: e not alive (assert), unknown c (assert), out of memory.
      const void *ecs_get(const ecs_world *w, ecs_entity e, ecs_component c)  [inline]
      void *ecs_get_mut(ecs_world *w, ecs_entity e, ecs_component c)         [inline]
          The value, or NULL when e is not alive or lacks c. get returns
          non-NULL exactly when has is true (tags included).
      bool ecs_has(const ecs_world *w, ecs_entity e, ecs_component c)        [inline]
      bool ecs_remove(ecs_world *w, ecs_entity e, ecs_component c, void *out)        [inline]
          Takes c out of e and copies the value to out (out may be NULL).
          Returns false if e is not alive or lacks c.
      bool ecs_delete(ecs_world *w, ecs_entity e, ecs_component c)                   [inline]
          Like remove, but discards the value.
      uint32_t ecs_strip(ecs_world *w, ecs_entity e)
          Deletes every component of e and keeps e alive. Returns how many.
      bool ecs_get_n(const ecs_world *w, ecs_entity e, uint32_t n,
                     const ecs_component *comps, const void **out)
      bool ecs_get_mut_n(ecs_world *w, ecs_entity e, uint32_t n,
                         const ecs_component *comps, void **out)
          out[k] = e's value of comps[k] for every k, when e has them all;
          false (out untouched) otherwise. The _mut form marks them modified.
      uint32_t ecs_remove_n(ecs_world *w, ecs_entity e, uint32_t n,
                            const ecs_component *comps, void *const *outs)
      uint32_t ecs_delete_n(ecs_world *w, ecs_entity e, uint32_t n,
                            const ecs_component *comps)
          Removes (deletes) each of comps e has, its value into outs[k]
          (outs or outs[k] may be NULL). Returns a bit mask: bit k is set
          when comps[k] was taken. All or nothing: every check and tracking
          record is made for all of them first; 0 with the error set means
          nothing changed. n <= ECS_MAX_TERMS.

      Several at once. comps[i] gets *values[i]; values or values[i] may be
      NULL (zeroed). These are all-or-nothing: when one step fails nothing
      is changed.
      bool ecs_add_n(ecs_world *w, ecs_entity e, uint32_t n,                         [inline]
                     const ecs_component *comps, const void *const *values)
      ecs_entity ecs_create_n(ecs_world *w, uint32_t n,                              [inline]
                     const ecs_component *comps, const void *const *values)
          A new entity with a bundle of components.
      bool ecs_create_bulk(ecs_world *w, uint32_t count, uint32_t n,
                     const ecs_component *comps, const void *const *values,
                     ecs_entity *out)
          count new entities with the same bundle; their ids go to out
          (may be NULL).

      Typed macros: each evaluates its arguments once and casts once. The
      ones that copy sizeof(T) bytes (ECS_ADD, ECS_REMOVE,
      ECS_DEFER_ADD) always check sizeof(T) against the registered size;
      the ones that only return a pointer (ECS_GET, ECS_GET_MUT, ECS_FIELD)
      check under ECS_DEBUG. A mismatch asserts and fails the call.
      Under ECS_DEBUG they also check T itself, against a component that
      ECS_COMPONENT(w, T) registered: ECS_GET(w, e, pos, Vel) asserts even
      when Pos and Vel have the same size ("the type is Vel but the
      component was registered as Pos"). Types are compared as spelled,
      so spell T as you registered it (Pos, not struct Pos for one and the
      typedef for the other). A component registered by ecs_register (a
      name of your own) is not checked for its type, only its size. The
      typed macros' messages end with the caller's place under ECS_DEBUG:
      "ECS_GET(entity 3:1, Pos): ... (at game.c:42)". The functions'
      messages name the call, the entity and the component; a breakpoint
      in ECS_ASSERT gives the stack. Define ECS_CALLER_PLACE (C, with
      ECS_DEBUG) and the messages of the inline calls ecs_add, ecs_has,
      ecs_get, ecs_get_mut, ecs_remove, ecs_delete, ecs_storage_get,
      ecs_storage_get_mut, ecs_field and ecs_block name the caller's place
      too: each is then also a macro that masks the function, as the C
      library may mask its own (C99 7.1.4). Each argument is evaluated
      once; (ecs_get)(w, e, c), &ecs_get and #undef ecs_get give the
      function; a function pointer of yours named ecs_get would be masked
      too. In C++ they stay functions.
      ECS_ADD(w, e, c, T, init)        -> T *      init: a braced initializer
                                                   ({1, 2}) or any expression
                                                   of type T (v, f(x), 5.0f);
                                                   scalars without braces
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

      ecs_view_desc d = {0};                 // C++: = {}; (C99 and C++20: designated initializers)
      d.terms[0] = (ecs_term){pos, ECS_WRITE}; // C++: ecs_term{pos, ECS_WRITE}
      d.terms[1] = (ecs_term){vel, 0};       // 0: required, read
      d.terms[2] = (ecs_term){frozen, ECS_NOT};
      ecs_iter it = ecs_view(w, &d);
      ECS_EACH(&it) {                        // one entity per pass
          Pos *p = ECS_FIELD(&it, 0, Pos);   // term 0's value for this entity
          const Vel *v = ECS_FIELD(&it, 1, Vel);
          p->x += v->x;                      // ecs_iter_entity(&it): the entity
      }
      for (it = ecs_view(w, &d); ecs_iter_next_block(&it); ) {
          Pos *p = ECS_BLOCK(&it, 0, Pos);   // arrays of it.count values
          const Vel *v = ECS_BLOCK(&it, 1, Vel);
          for (uint32_t j = 0; j < it.count; j++) p[j].x += v[j].x;
      }                                      // it.entities[j]: the entities

      ecs_iter ecs_view(ecs_world *w, const ecs_view_desc *desc)
          Terms are read up to the first with c == 0 (at most ECS_MAX_TERMS).
          Flags per term: 0 required; ECS_WRITE the loop writes it (marks it
          modified, section 11); ECS_INSERTED / ECS_MODIFIED only entities
          whose component changed in desc.since's window (section 11);
          ECS_NOT must be absent; ECS_OPTIONAL field NULL when
          absent; ECS_ANY at least one ECS_ANY term present, field NULL when
          absent. A term listed twice, an unknown component, ECS_NOT with
          other flags, or no required and no ECS_ANY term: assert, and the
          view yields nothing.
      ecs_iter ecs_view_of(ecs_world *w, uint32_t n, const ecs_component *comps)
          Shorthand: every term required.
      ECS_EACH(&it) { ... }
          The per-entity loop; break and continue work as in any loop.
      ECS_EACH_VIEW(it, w, desc) { ... }
          The same over ecs_view(w, desc), with the iterator it declared by
          the loop (for one loop over a view made for it):
              ECS_EACH_VIEW(it, w, &(ecs_view_desc){.terms = {{pos, ECS_WRITE}, {vel, 0}}}) {
                  ECS_FIELD(&it, 0, Pos)->x += ECS_FIELD(&it, 1, Vel)->x;
              }
      bool ecs_iter_next(ecs_iter *it)                            [inline]
          Its function form: steps to the next entity; false when done.
      ecs_entity ecs_iter_entity(const ecs_iter *it)              [inline]
          The current entity (right even after the body changed storages).
      ECS_FIELD(&it, k, T) -> T *      ecs_field(&it, k) -> void *
          Term k's value for the current entity; NULL for absent
          ECS_OPTIONAL/ECS_ANY terms. For tags: non-NULL, not to be
          dereferenced. An ECS_NOT term has no value: ecs_field gives NULL,
          ECS_FIELD too under ECS_DEBUG (in release, a meaningless pointer).
      bool ecs_iter_next_block(ecs_iter *it)                      [inline]
          The next block: it.count entities, it.entities[0..count).
      ECS_BLOCK(&it, k, T) -> T *      ecs_block(&it, k) -> void *
          Term k's values for the block: an array of it.count (absent
          optional/any terms: blocks of one, NULL; ECS_NOT terms as for
          ECS_FIELD).
      bool ecs_iter_chunk(ecs_iter *it, uint32_t k, uint32_t nchunks)
          Before the first step: restricts the walk to the k-th of nchunks
          equal slices of the lead storage (of the entities in range, when
          an index leads), for job systems: thread k walks chunk k with its
          own iterator, chunked once. Threads may read anything and write
          the values of the components they iterate (not an indexed one:
          section 14); nothing structural.
      uint32_t ecs_visit(w, desc, void (*fn)(ecs_iter *it, void *ctx), ctx)
          Calls fn once per match; returns how many.

      How it walks. The lead is the required term with the fewest entities
      (desc.lead forces one). The walk goes down the lead's rows, from the
      last, in runs. Where every other storage holds the same entities at
      the same rows (storages filled together, a group, ecs_sort_as), the
      run is aligned: one block of plain arrays, found by comparing the
      dense arrays (the world remembers the last 8 pairs of storages found
      in step until a row of either moves by anything but an append, so a
      walk compares nothing the second time; ecs_create_bulk records the
      pairs of its bundle's first four storages that were in step, so the
      first walk over a new batch compares nothing either). Elsewhere a
      probe run of up to 256 rows tests each row: one sparse lookup per
      term not in step over the run, while the terms in step keep their
      arrays. ECS_EACH
      steps through an aligned block with no call (the compiler keeps the
      iterator in registers) and, in a probe run with one term to test,
      finds the next match in its outer step, with no call either and its
      own state in registers. ecs_iter_next_block hands out an
      aligned run whole, and a probe run one entity at a time, except that
      when only an ECS_NOT term is tested the rows between the entities
      that have it form one block. Where storages interleave, ECS_EACH is
      the cheaper loop (each block of one entity costs a call's worth of
      bookkeeping); where they are in step blocks are plain array loops.
      bench/README.md has the figures.
      A view whose terms cover a group (section 13) walks its rows as one
      aligned block. A view with no required term but ECS_ANY terms walks
      each ANY storage in turn and skips entities an earlier one produced.

      Rules of iteration:
        - Every entity is visited at most once, and every entity yielded
          matches the view at the moment it is yielded.
        - The loop may change component values of any entity, add components
          to any entity (but see below for groups and cached queries),
          create entities, and remove components from or destroy the
          *current* entity: no other entity is skipped or repeated. An
          entity that starts to match during the loop is
          visited if its lead row is below the current one; entities created
          during the loop are never visited.
        - Anything else structural (removing components of other entities,
          destroying them, sorting, ecs_group_new over a walked storage,
          which packs its rows, and an add or remove that makes another
          entity join or leave a group whose storages the view walks, or a
          cached query whose tag is a term: those move rows of other
          entities) goes through the command buffer or waits until after
          the loop. Under ECS_DEBUG, the next step asserts when a walked
          storage (the lead, or a term read by the lead's rows) lost
          another entity's row, was sorted or packed, naming the storage
          and the call; it tells every such change apart
          (the storage keeps the rows of its last 8 changes; more than
          that since the previous step asserts too). Release builds stay memory-safe but may
          skip or repeat entities.
        - A union view (only ECS_ANY terms) walks one ANY storage after the
          other, so an entity whose ANY components change during the loop,
          or one created in it, could be visited twice or not at all.
          Inside a union loop, change values or destroy the current entity,
          and defer everything else. (Under ECS_DEBUG, removing the walked
          component from the current entity while it has a later one
          asserts.)
        - Breaking out of a loop early is fine: an iterator holds no lock
          and owns no memory. ECS_WRITE terms are marked modified as each
          entity is reached (blocks: when handed out), so the entities a
          break skipped stay unmarked. A loop marks the written terms whose
          storage tracks modification when the view is made; if a step finds
          that tracking turned off (ecs_track_set in the body), the walk marks
          that term no more, even once it is turned on again.
        - Fields, blocks and it.entities are pointers into the storages
          (section 18): a structural change in the body (an add, a create,
          a remove or destroy of the current entity) may move the arrays
          and leave every pointer taken before it dangling. Take the field
          again after such a change: ECS_FIELD, ECS_BLOCK, ecs_field and
          ecs_block read the storage's array at each call, so one taken
          after the change is the current entity's value in the new arrays
          (none is left after the current entity lost the term or was
          destroyed). it.entities is not fetched again: read the ids you
          need before the change. The next step fetches every array again,
          so the loop itself survives such a change (ECS_EACH and
          ecs_iter_next compare the world's epoch at each step).
        - Block loops must not change the storages of their terms
          structurally while they use the arrays.
        - The iterator is a value (copying it copies the walk); its fields
          other than count, entities and i are private.

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
          like ecs_add, and so does a cached query's tag (LOCKED, for the
          three).   ECS_DEFER_ADD(w, e, c, T, {init...})
      bool ecs_defer_remove(ecs_world *w, ecs_entity e, ecs_component c)
      bool ecs_defer_delete(ecs_world *w, ecs_entity e, ecs_component c)
          remove counts as a removal, delete as a deletion (tracking).
      uint32_t ecs_defer_pending(const ecs_world *w)     commands queued
      uint32_t ecs_flush(ecs_world *w)
          Applies every queued command in order and returns how many took
          effect; a command whose entity died (or lost the component) before
          its turn does nothing: a stale id (of an entity destroyed since,
          or of a retired slot) is recorded and skipped. Recording fails
          (false, nothing recorded) when out of memory, and for a destroy,
          remove or delete of an id no entity ever had: a later entity
          could get that id. If applying a command runs out of memory (an
          add, or a remove, delete or destroy that cannot reserve its
          tracking records), flush stops there: that command and the ones
          after it stay queued for the next flush. Inside a hook or a sort
          comparator flush is refused (0, ECS_ERR_LOCKED): the queue waits
          for the next flush. Errors: a command's failure, and a failure
          inside it (a hook's call, a cached query's lag) is reported as
          the call would be (the command's own failure named ecs_flush, a
          hook's call by its own name) and stays the last error;
          the flush goes on with the next command. Commands that hooks
          record during the flush are applied by the same flush: a hook
          that records a change that fires it again (an on_replace
          deferring a replace of its own component) loops until recording
          runs out of memory, so make such chains end. While a flush
          applies its commands the queue is not empty: ecs_save from one
          of its hooks is refused (INVALID: commands pending). The buffer holds at
          most 4 GB (its offsets are 32-bit): a record of a bigger value
          fails as out of memory, before allocating.

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
   10. UNIQUES

      One value per component type, held by the world instead of an entity
      (Shipyard's uniques, flecs' singletons): time step, input, config.

      void *ecs_unique_add(ecs_world *w, ecs_component c, const void *value)
          Inserts or replaces (value NULL: zeroed). Returns the value or NULL
          (out of memory, unknown c).
      const void *ecs_unique_get(const ecs_world *w, ecs_component c)
      void *ecs_unique_get_mut(ecs_world *w, ecs_component c)    (marks it modified)
          NULL and an assert (ECS_ERR_NOT_FOUND) if c has no unique value:
          a system asking for a unique nobody added is a bug. Use
          ecs_unique_has to ask.
      bool ecs_unique_has(const ecs_world *w, ecs_component c)
      bool ecs_unique_remove(ecs_world *w, ecs_component c, void *out)
      ECS_UNIQUE_ADD(w, c, T, {init...})  ECS_UNIQUE_GET(w, c, T)  ECS_UNIQUE_GET_MUT(w, c, T)
      ECS_UNIQUE_REMOVE(w, c, T, out)   (out: T *, or NULL)
      Pointers stay valid until ecs_unique_remove. Uniques are always
      tracked: ecs_track_unique_inserted / ecs_track_unique_modified (section 11);
      their removal is not recorded.

   ---------------------------------------------------------------------------
   11. TRACKING

      Opt-in per storage; an untracked storage pays one NULL test in
      get_mut and nothing else.

      bool ecs_track_set(ecs_world *w, ecs_component c, uint32_t flags)
          flags: ECS_TRACK_INSERTION, _MODIFICATION, _REMOVAL, _DELETION, or
          ECS_TRACK_ALL; replaces the previous flags. Rows that existed before
          insertion/modification tracking was turned on count as neither.
      uint32_t ecs_track_get(const ecs_world *w, ecs_component c)   the flags

      Time. The world has a 64-bit tick (it never wraps). Every change is
      stamped with the current tick; "changed since S" means stamped after S.
      ecs_tick ecs_tick_advance(ecs_world *w)
          Returns S and moves time on: every later change is newer than S.
      Outside workloads, since = 0 means "since the last ecs_track_clear
      of that storage" (or since tracking began). Inside a workload each
      system gets its own window: ctx->last_run is the tick of its previous
      run, and ecs_system_view uses it, so a system sees exactly what
      changed since it last ran, with no clearing (section 15).

      What counts as what (one answer to Shipyard's #67 / #227):
        inserted  the component was added to an entity that did not have it
                  (add, add_n, bundles, create_n/bulk, add_if_changed on an
                  entity without it). Not modified.
        modified  add over an existing value (ecs_add, ECS_ADD, add_n, a
                  flushed ecs_defer_add); ecs_get_mut / ECS_GET_MUT and the
                  storage handle's ecs_storage_get_mut / ECS_STORAGE_GET_MUT;
                  a view term flagged ECS_WRITE when the loop reaches the
                  entity (every loop form, ecs_iter_chunk slices, ecs_visit,
                  a system's view; ecs_iter_next_block: the whole block when
                  handed out); ecs_track_mark_modified; ecs_add_if_changed
                  when the bytes differ; for a unique, ecs_unique_get_mut /
                  ECS_UNIQUE_GET_MUT and an add over it. ecs_get, ECS_GET
                  and read terms never mark, and neither do writes through
                  the raw arrays (ecs_storage_data, ecs_group_data): mark
                  those with ecs_track_mark_modified. tests/test_tracking.c
                  checks each way.
        removed   ecs_remove / ECS_REMOVE / ecs_defer_remove: the entity id
                  and tick are recorded.
        deleted   ecs_delete, ecs_strip, ecs_destroy, ecs_defer_delete: the
                  entity id, tick and a copy of the value are recorded
                  (destroying an entity deletes each of its components).

      bool ecs_track_mark_modified(ecs_world *w, ecs_entity e, ecs_component c)
          True when e has c (marked if c tracks modification).
      bool ecs_add_if_changed(ecs_world *w, ecs_entity e, ecs_component c, const void *value)
          Writes value (NULL: zeroed) and marks modified only if its bytes
          differ; adds it (inserted) if e lacks c. Returns whether anything
          changed: false also when it fails (error set; a call that
          succeeds leaves the error alone, so ecs_clear_error first to
          tell the two apart).
          ECS_ADD_IF_CHANGED(w, e, c, T, value)
      bool ecs_track_inserted(const ecs_world *w, ecs_entity e, ecs_component c, ecs_tick since)
      bool ecs_track_modified(const ecs_world *w, ecs_entity e, ecs_component c, ecs_tick since)
      bool ecs_track_unique_inserted / ecs_track_unique_modified(w, c, since)
          (uniques are always tracked: no ecs_track_set, no error)
      View terms: ECS_INSERTED, ECS_MODIFIED, or both (inserted or
          modified) keep only entities whose component changed in the
          view's window (desc.since, or each storage's last clear; a
          window starting at ~0 keeps none). A filter whose storage no
          longer tracks it at the walk's next step (ecs_track_set in the
          body) keeps none from then on; turned off and on again before
          that step, it keeps what the new tracking recorded since.
      const ecs_change *ecs_track_removed(const ecs_world *w, ecs_component c, ecs_tick since, uint32_t *n)
      const ecs_change *ecs_track_deleted(const ecs_world *w, ecs_component c, ecs_tick since, uint32_t *n)
          The n entries ({entity, tick}, oldest first) recorded after since
          and still kept. Valid until the next change of that storage.
      const void *ecs_track_deleted_value(const ecs_world *w, ecs_component c, const ecs_change *entry)
      const ecs_change *ecs_track_created(const ecs_world *w, ecs_tick since, uint32_t *n)
      const ecs_change *ecs_track_destroyed(const ecs_world *w, ecs_tick since, uint32_t *n)
          With ecs_desc.track_entities: entities created and destroyed.
          Valid as section 18 says (the next create or destroy, ecs_reserve...).
      uint32_t ecs_track_removed_or_deleted(const ecs_world *w, ecs_component c,
                                            ecs_tick since, ecs_change *out, uint32_t cap)
          One list of both (Shipyard's removed_or_deleted), merged by tick
          (removals first within a tick): writes up to cap entries, returns
          how many there are. c must track removal or deletion. The
          entries are copies, and do not say which list each came from:
          for a deleted value, ask ecs_track_deleted_value with an entry of
          ecs_track_deleted's list.
      void ecs_track_clear(ecs_world *w, ecs_component c, uint32_t flags)
          c = 0: every storage. INSERTION/MODIFICATION start a new default
          window; REMOVAL/DELETION empty the lists; ECS_TRACK_ENTITIES
          empties the world's created/destroyed lists (whatever c is). (Shipyard's clear_all_inserted
          ... clear_all_removed_and_deleted are flag combinations.)
      void ecs_track_clear_until(ecs_world *w, ecs_component c, uint32_t flags, ecs_tick t)
          Drops removed/deleted (and entity) entries stamped at or before t,
          i.e. before the ecs_tick_advance call that returned t. INSERTION and
          MODIFICATION have no lists and are ignored here.

      Memory: insertion and modification cost 8 bytes per row each; a
      removed entry 16 bytes; a deleted entry 16 bytes + the component size;
      created/destroyed entries 16 bytes. Lists grow until cleared: clear
      them (or clear what is older than the oldest window still needed,
      e.g. once per frame) and their memory is reused, never more than the
      largest backlog. Recording never fails silently: a remove, delete or
      destroy that cannot reserve its entry fails with
      ECS_ERR_OUT_OF_MEMORY and changes nothing. One exception, reported:
      tracking a hook turns on while a destroy or strip is under way (in
      an on_remove of another component of the entity) had no room
      reserved; when its entry cannot be made, the call completes (the
      components are gone) and sets ECS_ERR_OUT_OF_MEMORY with "out of
      memory: a deletion was not recorded", naming entity and component.

   ---------------------------------------------------------------------------
   12. HOOKS

      bool ecs_hooks_set(ecs_world *w, ecs_component c, const ecs_hooks *hooks)
          hooks->on_insert(w, e, c, value, user) runs after c was added to e
          (not when a value is replaced); hooks->on_remove runs before c
          leaves e (remove, delete, strip, destroy), with the value still
          readable; ecs_remove's out receives the value as it leaves, after
          the hook; hooks->on_replace runs after e's value of c was
          replaced by an add of c to an entity that has it (ecs_add,
          ECS_ADD, add_n, a flushed ecs_defer_add) and by ecs_add_if_changed
          when the bytes differed (EnTT's on_update, flecs' OnSet), with
          the new value. Writes through pointers (get_mut, view terms) run
          no hook: they are marked modified (section 11). A replace made
          while one of c's own hooks runs does not run on_replace again (no
          hook re-enters itself). NULL clears all three.
          For bundles (add_n, create_n, create_bulk) on_insert and
          on_replace run once every entity has its whole bundle: entity by
          entity in creation order, each in bundle order (a value an
          earlier hook took away gets no hook of the bundle, nor on_remove
          if its on_insert had not run: each on_insert pairs with one
          on_remove; added back, it got its on_insert then). That holds for
          the entity whose hooks run; in create_bulk, another entity of the
          same call whose turn has not come is not marked yet: a hook that
          takes a component from it runs its on_remove, and one that adds it
          back makes its on_insert run twice (defer such changes, or make
          them once the call returns). strip and destroy run
          on_remove in component-id order. Uniques have no hooks.
      What a hook may do: read anything; change values anywhere; add and
      remove components of *other* storages, on any entity, including its
      own; create entities; destroy other entities; record commands.
      What it may not (asserts with ECS_ERR_LOCKED, and the call fails):
      insert into or remove from its own storage (defer it), destroy or
      strip its own entity (defer it), add components to an entity that is
      being stripped or destroyed (a replace of one of its values
      included: ecs_add over a value, ecs_add_if_changed, a bundle; the
      value would be dropped with the rest), or - when its storage belongs to a group
      (section 13) - add or remove any component of that group, owned or
      excluded, since joining and leaving move the group's rows, the
      hook's own value among them (defer those too).

   ---------------------------------------------------------------------------
   13. GROUPS

      A view over several storages checks the others for each entity; a
      group removes even that (EnTT's owning groups). It owns storages and
      keeps every entity that has all of them, and none of its excluded
      ones, in the first len rows of each owned storage, in the same order:

      ecs_group_desc d = {0};
      d.owned[0] = pos; d.owned[1] = vel; d.excluded[0] = frozen;
      ecs_group g = ecs_group_new(w, &d);
      ...
      uint32_t n = ecs_group_count(w, g);
      Pos *p = ecs_group_data(w, g, pos);
      const Vel *v = ecs_group_data(w, g, vel);
      for (uint32_t i = 0; i < n; i++) p[i].x += v[i].x;   // plain arrays

      ecs_group ecs_group_new(ecs_world *w, const ecs_group_desc *desc)
          Owns desc->owned (at least one), excludes desc->excluded (each
          list ends at its first 0). Entities that already match are packed now.
          Returns 0 on error: a storage already owned by another group, an
          unknown or repeated component (assert), a cached query's tag,
          owned or excluded (the world adds and removes it inside other
          changes: LOCKED, assert; exclude the query's terms instead), out
          of memory.
      uint32_t ecs_group_count(const ecs_world *w, ecs_group g)       len
      const ecs_entity *ecs_group_entities(const ecs_world *w, ecs_group g)
      void *ecs_group_data(const ecs_world *w, ecs_group g, ecs_component c)
          Rows 0..len-1 of each owned storage: the group's entities and
          values, aligned. c must be owned by g (else NULL, assert).
      bool ecs_group_sort(ecs_world *w, ecs_group g, ecs_component by, ecs_sort_fn cmp, void *ctx)
          Sorts the group's rows by the owned component `by`, moving every
          owned storage alike. Sorting an owned storage on its own
          (ecs_sort, ecs_sort_as) is refused with an assert.

      Every add, add_n, bundle, remove, delete, strip, destroy and flush
      keeps the group exact: an entity joins by swapping into row len of
      each owned storage, and leaves by swapping to the group's last row
      before an owned component goes (tracking stamps move with their rows;
      hooks see the final rows). This costs a few lookups and swaps per
      such change of an owned or excluded component.
      Views use a group by themselves: a view whose required terms include
      all owned storages of a group and whose ECS_NOT terms include all its
      excluded ones walks the group's rows with no checks for those terms
      (ecs_iter_next_block: one block, the whole group).
      While a view walks an owned storage, a change that makes an entity
      join the group - adding an owned component, or removing an excluded
      one - moves rows below the walk: defer it, even for the current
      entity (asserts under ECS_DEBUG). Leaving is fine for the current
      entity (it moves up), not for another one (adding an excluded
      component to it, or removing an owned one, moves its row and the
      group's last one: defer it; section 7), and so are the current
      entity's strip and destroy: an entity
      being stripped leaves its groups and joins none, even if it matches
      one for a moment (its on_remove hooks may see it outside a group it
      matches).
      Hooks of a group's storages may not change that group's components
      (section 12): defer it.

   ---------------------------------------------------------------------------
   14. INDEXES AND CACHED QUERIES

      Find entities by the value of a field instead of scanning for it
      (TinyECS's indexes): the entity with a name, everything in a grid
      cell, the units of a faction, everything with health below 10.

      ecs_index_desc d = {0};
      d.c = unit; d.offset = offsetof(Unit, cell); d.size = sizeof(int32_t);
      d.kind = ECS_KEY_INT;                    // hashed: equality, sets
      ecs_index by_cell = ecs_index_new(w, &d);
      int32_t cell = 42;
      ecs_entity found[64];
      uint32_t n = ecs_index_find(w, by_cell, &cell, found, 64);

      ecs_index ecs_index_new(ecs_world *w, const ecs_index_desc *desc)
          An index on one field of c's values: offset and size of the field,
          and its kind: ECS_KEY_INT (signed integers and enums of 1, 2, 4 or
          8 bytes), ECS_KEY_UINT (unsigned, the same sizes), ECS_KEY_FLOAT
          (float or double: ordered indexes only), ECS_KEY_CHARS (a char
          array of `size` bytes holding a string, NUL-terminated or filling
          it), ECS_KEY_STRING (a const char *: the index reads the string
          each time it looks, so it must live as long as the value points
          at it; NULL is not indexed). desc.ordered false: hashed (equality
          and sets of keys); true: ordered (also ranges, in key order).
          Several indexes per component, any number per world. Returns the
          index (not 0), or 0: unknown c, a tag, a field outside the value,
          an unsupported kind or size (assert), inside a hook of c
          (LOCKED, assert), out of memory. An index
          keeps modification tracking on for c (section 11): neither
          ecs_track_set nor loading a snapshot saved without it takes it
          off while an index is on c.
      bool ecs_index_free(ecs_world *w, ecs_index ix)
      uint32_t ecs_index_find(ecs_world *w, ecs_index ix, const void *key, ecs_entity *out, uint32_t cap)
          key points at a value of the field's type (an int32_t for a
          4-byte ECS_KEY_INT, a char array for ECS_KEY_CHARS, a const
          char * for ECS_KEY_STRING). Writes the first cap matches to out
          and returns how many there are (out may be NULL with cap 0, to
          count). Ordered: in key order, ties by entity index; hashed: in
          no particular order. A NaN and a NULL string match nothing.
      uint32_t ECS_INDEX_FIND(w, ix, T, key, out, cap)
          ecs_index_find with the key given by value as a T (int32_t, 42;
          a char array field's through a typedef of the array type):
          a T whose size is not the field's is refused (0, INVALID,
          assert). That is the check C allows of a key's kind: a key is
          read as the field's type, and one of another type of the same
          size (a float for an int32_t field) is not caught.
      uint32_t ecs_index_find_any(w, ix, uint32_t n, const void *keys, out, cap)
          The entities of any of n keys (keys: n values of the field's
          type, packed), key after key.
      uint32_t ecs_index_range(w, ix, const void *lo, const void *hi, uint32_t flags, out, cap)
          Ordered indexes: the entities whose key is between lo and hi, in
          key order; lo or hi NULL: no bound on that side; flags
          ECS_RANGE_LO_OPEN (> lo, else >=), ECS_RANGE_HI_OPEN (< hi,
          else <=). Floats compare as C does (-0 equals 0; NaN is in no
          range); strings compare as strcmp (strncmp for char arrays).
          An ordered index keys a string by its first 8 bytes: the strings
          that share them are found by testing each one (a lookup or a
          range costs them all, plus O(log n)), and are in strcmp order
          among themselves as the index last read them. A string written
          and not yet seen (below) may put that order out; it hides no
          other string.

      Index terms. A view takes one (desc.where): only the entities whose
      key is *where.key (any index), or, where.key NULL, in where.lo ..
      where.hi with where.flags as ecs_index_range's (ordered indexes):

      ecs_view_desc v = {0};
      v.terms[0] = (ecs_term){unit, ECS_WRITE};
      v.where.index = by_cell; v.where.key = &cell;
      ECS_EACH_VIEW(it, w, &v) { ... }       // the units of cell 42

          The index leads the walk when it has fewer entities in range than
          the shortest required term has rows (and desc.lead names none):
          the walk meets only those, an ordered index's in key order. Else
          that term leads. Either way each entity's key is tested as the
          walk reaches it, so a walk yields an entity only if its value
          matches then (after writes in the loop body too); one that comes
          to match during the walk may be missed. A view needs no other
          term; the index's component is a term only if the loop wants its
          value. The keys are read when the view is made, a string key's
          characters at each test: keep them until the walk ends. A NaN or
          NULL string key: nothing, no error. No such index (NO_INDEX), a
          range on a hashed index (INDEX_HASHED), other flags
          (WHERE_FLAGS): a view that yields nothing, assert.
          Cost: the first view an index leads after its entries changed (a
          key changed, an entity came or went; for an ordered index on
          strings longer than 8 bytes, any write of the component) lays
          its entities out for walks (O(n); 8 bytes per indexed entity,
          and 4 per bucket of a hashed index); then a walk it leads costs
          its entities in range, each looked up in the terms. That layout
          is what a walk the index led still reads: such a view made in
          the body of such a walk changes the rows under it, as for a
          storage (section 7: ECS_DEBUG asserts; release may skip or repeat
          entities). Write in one loop, query in the next. Out of memory,
          or while systems run at once and the index has writes to take in
          (below), the shortest required term leads instead, or with none
          the indexed component's storage: the same entities, more
          slowly. Walking the view, or ecs_iter_chunk slices of it on
          several threads, is as for any view. ecs_index_free during a
          walk with an index term (any index's) ends that walk at its next
          step (INVALID, assert); the body must not use the iterator
          after the free.

      Always in sync. An index sees every way a value changes: add,
      replace, bundles, create_n/bulk, clone, flush, add_if_changed, load
      (a loaded world's indexes rebuild), and writes through ecs_get_mut,
      ECS_WRITE view terms (every loop form, ecs_iter_chunk slices) and
      ecs_track_mark_modified (for writes through the raw arrays), which
      put the entity on the index's dirty list, and so do removals
      (remove, delete, strip, destroy, world_clear). Each query first
      brings the index up to date from the values as they are then, and
      tests every entity it returns against its value then: an index
      never returns an entity whose value does not match at the time of
      the query. Writing a value after the query changes nothing in what
      the query returned (its out array is yours).
      When a write through a pointer becomes visible: the index learns of
      it when the pointer is handed out (ecs_get_mut; an ECS_WRITE term as
      the walk reaches the entity, or hands out its block); the first
      query after that reads the value, and the next query reads it
      again. So a write
      is seen by the first query after it, as long as at most one query
      of that index came between the pointer being handed out and the
      write: the common loop that queries, then writes the entity it is
      at, is seen. A write made after two or more such queries is not
      seen until the entity is written again: after such a write, call
      ecs_track_mark_modified(w, e, c), or take the pointer again. Hooks'
      writes to the value they are given count as writes through a
      pointer handed out when the hook started. A view made while c was
      not tracked does not mark its writes (section 11), so make the index
      before the loops whose writes it must see.
      Cost: a dirty entity's key is computed at two queries however often
      it was written; a hashed index updates in O(1) per entity, an ordered
      one merges its changes into its sorted array in one pass (O(n) when
      anything changed, O(log n) lookups). Memory: 24 bytes per entity
      slot per index, plus 16 per entry (ordered) or per distinct key
      (hashed).
      Queries, and views with an index term, bring the index up to date
      and lay its entities out for the walks it leads, so they change the
      index (not the world) when it has writes to take in: then not from
      several threads at once, nor while the world is being changed on
      another thread. Once one was made after the last write to the
      component (the same view, for views; two, when that write was
      through a pointer handed out, which the next query reads again),
      the others only read the index, on any number of threads while
      nobody writes the component.
      Systems that run at once (a workload batch, a parallel phase) need
      nothing of this: the world brings every index up to date before
      they start, and the views they make leave the indexes alone
      (tests/test_threads.c). Writes to an indexed component put its
      entities on the index's list: not from several threads at once (no
      ECS_WRITE of it in ecs_iter_chunk slices on several threads). In a
      workload batch a system that writes it shares the batch with no
      system that declares the component: a system with an index term
      or that calls ecs_index_* reads the indexed component, and must
      declare it (desc.reads) to be kept apart from its writers.
      Out of memory while an index
      updates, the index drops its state and rebuilds at the next query;
      a query that cannot rebuild returns 0 (ECS_ERR_OUT_OF_MEMORY). It
      never answers from a stale or half-updated state.

      Cached queries. A view tests its other terms at every row of its
      lead; a cached query keeps its matching entities instead, as they
      come and go (TinyECS's cached queries, EnTT's non-owning groups):

      ecs_view_desc q = {0};
      q.terms[0] = (ecs_term){pos, 0}; q.terms[1] = (ecs_term){vel, 0};
      q.terms[2] = (ecs_term){frozen, ECS_NOT};
      ecs_component moving = ecs_query_new(w, "Moving", &q);
      ...                                    // then, every frame:
      d.terms[0] = (ecs_term){moving, 0};    // the tag leads: only the matches
      d.terms[1] = (ecs_term){pos, ECS_WRITE}; d.terms[2] = (ecs_term){vel, 0};
      ECS_EACH_VIEW(it, w, &d) { ... }

      ecs_component ecs_query_new(ecs_world *w, const char *name, const ecs_view_desc *desc)
          Registers the tag `name` (ecs_register(w, name, 0, 1)) and keeps
          it on exactly the entities that have desc's required terms and
          none of its ECS_NOT ones, from the moment it returns (ECS_WRITE
          is ignored; other flags, no required term, a term that is a
          query's tag or this one's, or a tag to take over that has hooks,
          groups, tracking or queued commands: 0, INVALID, assert; inside a hook of one of
          its terms: 0, LOCKED; from a phase's system: 0, IN_PHASE). The
          tag is a component like any other: a view term
          (the walk leads with it when it is the shortest required term,
          or desc.lead), ecs_has, ecs_storage_entities, save and load,
          ecs_sort_as (ecs_sort_as(w, tag, pos) walks the matches in
          Position's order, until more join; not ecs_sort, whose
          comparator could change the terms: LOCKED) (not
          tracking: ecs_track_set refuses it, as the world changes it from
          inside other changes, where no record could be reserved; track
          the terms; a snapshot with the tag tracked, saved where it was a
          plain tag, does not load: FORMAT, naming it). Only the world
          adds and removes it: ecs_add,
          ecs_remove and the others refuse (ECS_ERR_LOCKED, assert); a
          clone gets it if it matches. It follows every change of the
          terms at once, through their insert and remove paths, so a
          change that makes another entity join or leave moves the tag's
          rows: in a walk the tag leads, adding or removing the query's
          terms on other entities may repeat or skip entities (ECS_DEBUG
          asserts), as a group's rows do (section 13): change them in one
          loop, walk in the next, or defer the changes. Out of memory
          while the tag is kept (its storage cannot grow), the query is
          rebuilt by the next view that has the tag as a term or
          ecs_destroy_all of it (until then ecs_has and the tag's rows
          may lag), and after a load; if that runs out
          of memory too, the view yields nothing (ECS_ERR_OUT_OF_MEMORY).
          Systems that run at once and a phase's systems see every query
          brought up to date before they start. The call whose change the
          tag could not follow still succeeds (its own change is made) and
          sets ECS_ERR_OUT_OF_MEMORY, naming the tag. Out of memory in
          ecs_query_new after the tag was registered: 0, and the tag stays a
          plain tag that a second ecs_query_new with that name takes over;
          in its first fill, the tag is returned, lagging as above, with
          ECS_ERR_OUT_OF_MEMORY set. A query lives as
          long as its world.
          Against a group (section 13): a group owns its storages and packs
          their rows, so its views are plain arrays, but a storage belongs
          to one group and groups move rows on every join and leave; a
          cached query owns nothing (any number per storage, no rows
          moved), and its views look the terms up per entity (a view the
          tag leads does not test the query's required tags and ECS_NOT
          terms again, which the tag implies: only terms with a value are
          looked up).

   ---------------------------------------------------------------------------
   15. SYSTEMS AND WORKLOADS

      A system is a function and a user pointer:
          int my_system(const ecs_system_ctx *ctx)    // 0: ok, else an error
      ctx has the world, the user pointer, the system's name, last_run (the
      tick of its previous run; 1 before the first) and now.

      bool ecs_system_new(ecs_world *w, const ecs_system_desc *desc)
          name (unique), fn, user, run_if (skip this run when it returns
          false; last_run then stays), and what it touches: reads[] and
          writes[] (components and uniques; each list ends at its first 0),
          structural (it creates, destroys, adds, removes or records
          commands).
      bool ecs_workload_new(ecs_world *w, const char *name, uint32_t n, const char *const *items)
          An ordered list of systems and other workloads (nested workloads
          are expanded in place; they must exist already). The first
          workload added is the default.
      int ecs_workload_run(ecs_world *w, const char *name)
          name NULL: the default. Runs every system in order; returns 0, or
          the first non-zero value a system returned (the workload stops
          after that system's batch, whose commands are still flushed;
          ecs_workload_failed_system names the system until the next run,
          and the error is ECS_ERR_SYSTEM); -1 if the workload does not
          exist, a workload is already running, or the flush after a batch
          ran out of memory (ECS_ERR_OUT_OF_MEMORY; the commands not yet
          applied stay queued, and no later batch ran). A system that
          failed and a flush after it that ran out of memory: the
          system's value, the error OUT_OF_MEMORY (the later failure).
      bool ecs_workload_set_default(ecs_world *w, const char *name)
      int ecs_system_run(ecs_world *w, const char *name)
          Runs one system on its own (Shipyard's World::run), as a batch of
          one: a new tick, run_if, the system, then ecs_flush. Returns as
          ecs_workload_run; refused while a workload runs and in hooks.
      ecs_iter ecs_system_view(const ecs_system_ctx *ctx, const ecs_view_desc *desc)
          ecs_view whose ECS_INSERTED/ECS_MODIFIED window is the system's
          own: what changed since this system last ran.

      Outer parallelism (Shipyard's rules). The systems of a workload are
      cut into batches, in declared order: a system joins the current batch
      unless it writes something a system of the batch reads or writes,
      reads something one writes, is structural, follows a structural one,
      or already runs in the batch. Batches run one after the other, each at
      a new tick; the systems of a batch of two or more run through
      desc.parallel_for (so ecs.h needs no thread library; default: one
      after another), and the command buffer is flushed after each batch. Systems in a batch may
      touch only what they declared, and nothing structural. While the
      systems of a batch of several run (whether or not they run at
      once), the world refuses what is structural, as in a phase: create
      (every form), destroy, strip, insertions and removals, ecs_defer_*,
      registering a new component, sorting, and the calls hooks may not
      make (LOCKED, assert: "systems sharing a batch are running"; a
      system that needs them says desc.structural and runs alone). Not
      checked (data races): touching what a system did not declare, a
      replace whose component has an on_replace hook (hooks share the
      world's hook state), a bundle over existing values (ecs_add_n:
      its bookkeeping is the world's), ecs_unique_add/_remove,
      ecs_serial_set and ecs_component_print_set. A system with an index
      term or that calls ecs_index_* reads the indexed component
      (declare it).
      uint32_t ecs_workload_plan(const ecs_world *w, const char *name, ecs_plan_step *out, uint32_t cap)
          The plan: per step the system, its batch, and why it could not
          join the previous batch (naming one system it conflicts with).
          Returns the number of steps.

   ---------------------------------------------------------------------------
   16. PHASES: PROPOSALS AND REDUCERS

      A tick as a transformation from one consistent world to the next
      (esc's model, for time-stepped simulations): every system of a phase
      reads the world as the phase found it and *proposes* changes instead
      of making them; the proposals for one (component, entity) go to that
      component's reducer, which decides the next value; then the phase
      applies everything in one serial pass. Order between the systems of
      a phase stops mattering, they may all run at once with no locks, and
      the result is the same bit for bit at any thread count.

      ecs_phase_desc pd = {0};
      pd.name = "move";
      ecs_phase_new(w, &pd);
      ecs_phase_reducer(w, "move", pos, sum_deltas, NULL);
      ecs_system_desc sd = {0};
      sd.name = "velocity"; sd.fn = propose_velocity;
      ecs_phase_system(w, "move", &sd);
      const char *phases[] = {"move"};
      ecs_schedule_new(w, "tick", 1, phases);
      ecs_schedule_run(w, "tick");                 // one step

      int propose_velocity(const ecs_system_ctx *ctx) {   // reads, proposes
          ECS_EACH_VIEW(it, ctx->world, &d) {
              const Vel *v = ECS_FIELD(&it, 1, Vel);
              ECS_PROPOSE_SET(ctx->proposals, ecs_iter_entity(&it), pos, Pos, {v->x, v->y});
          }
          return 0;
      }
      int sum_deltas(const ecs_reduce *r, void *next) {   // next: the value now
          Pos *p = (Pos *)next;
          for (uint32_t k = 0; k < r->n; k++) {
              const Pos *d = (const Pos *)r->changes[k].value;   // NULL: a removal
              if (d) p->x += d->x, p->y += d->y;
          }
          return ECS_REDUCE_SET;
      }

      Registering (outside a running schedule; names are per world):
      bool ecs_phase_new(ecs_world *w, const ecs_phase_desc *desc)
          name (unique among phases and schedules); strategy for components
          with no reducer: ECS_LAST_WRITE_WINS (0: the last proposal in the
          order below; a removal if that is a removal) or
          ECS_REDUCER_REQUIRED (the phase fails, naming the system and the
          component); run_if (false: the phase is skipped); parallel (its
          systems run through desc.parallel_for); parallel_reduce (its
          reductions too, in 64 slices).
      bool ecs_phase_system(ecs_world *w, const char *phase, const ecs_system_desc *desc)
          Adds a proposing system: name (unique in the phase), fn, user,
          run_if (the system runs only when its phase's run_if and its own
          both pass), exclusive (below). reads/writes/structural are not
          used.
      bool ecs_phase_reducer(ecs_world *w, const char *phase, ecs_component c, ecs_reducer_fn fn, void *user)
          c's reducer in that phase (replaces one; fn NULL takes it off):
          int fn(const ecs_reduce *r, void *next). r: world, entity,
          component, current (e's value; NULL if e lacks c; for a tag
          non-NULL when present), changes[0..n) ({value, system}: value
          NULL for a removal, else aligned as any component may need),
          user. next holds the current value (zeroes
          if none); the reducer writes the next value there and returns
          ECS_REDUCE_SET, or ECS_REDUCE_REMOVE (e loses c), or
          ECS_REDUCE_KEEP (nothing changes, nothing is stamped); any other
          value fails the phase. It runs once per (component, entity) with
          proposals, with the world locked, and may run on any thread.
      bool ecs_schedule_new(ecs_world *w, const char *name, uint32_t n, const char *const *phases)
      int ecs_schedule_run(ecs_world *w, const char *name)
          One step: each phase in order, each seeing the world the previous
          one produced. Returns 0, a system's non-zero result, or -1; a
          failed phase changes nothing (below) and the step stops there
          (phases before it stay applied). Refused inside a workload,
          schedule, system or hook (-1, INVALID/LOCKED).
      ecs_tick ecs_step_since(const ecs_world *w)
          The tick before the last (or running) step began: since this
          tick, ecs_track_inserted/_modified/_removed/_deleted/_created/
          _destroyed and ECS_INSERTED/ECS_MODIFIED terms see what that step
          changed - after it, or from a later phase of the same step (its
          "so far"). A phase stamps its changes with its own tick.

      Proposing, from a phase system (ctx->proposals), on any thread:
      bool ecs_propose_set(ecs_proposals *p, ecs_entity e, ecs_component c, const void *value)
          value copied now (NULL: zeroed; ignored for a tag).
          ECS_PROPOSE_SET(p, e, c, T, {init...})  (checks sizeof(T))
      bool ecs_propose_remove(ecs_proposals *p, ecs_entity e, ecs_component c)
      bool ecs_propose_despawn(ecs_proposals *p, ecs_entity e)
      bool ecs_propose_spawn(ecs_proposals *p, uint32_t n, const ecs_component *comps, const void *const *values)
          A new entity with that bundle (n <= ECS_MAX_TERMS; values or
          values[k] NULL: zeroed); find it afterwards through its
          components or ecs_track_created.
          Each is an append to the buffer: no lookup, no lock, nothing of
          the world written. e must be alive and c registered; else (and
          out of memory) it returns false, the buffer refuses what follows,
          and the phase fails with the first such error. Only the phase
          system, while it runs, records into its ctx->proposals (and its
          parts): the buffer kept and used from anywhere else in the same
          ecs_schedule_run (a hook during the apply, a reducer, another
          system) is refused (false, LOCKED, assert): it is being read,
          or done with, or not yours. (Not detected: another system of a
          parallel phase that records into it while it runs - a data
          race.) Pointer validity: ctx->proposals and its parts live
          until the ecs_schedule_run that handed them out returns; after
          that, registering systems and the next split may move them, so
          a pointer kept into a later step is undefined to use.
      bool ecs_proposals_split(ecs_proposals *p, uint32_t parts)
      ecs_proposals *ecs_proposals_part(ecs_proposals *p, uint32_t k)
          For a system that splits its own work (ecs_iter_chunk through
          parallel_for, examples/life.h): split once per run, into 1 or
          more parts, before fanning out; part k is then recorded by one
          thread at a time.
      The order every reducer sees, the one last-write-wins uses: system
      registration order in the phase, then the system's own buffer
      before its parts 0, 1, ..., each in emission order. Never the order
      threads happened to run in.

      Applying. Despawns first (once each; proposals for an entity
      despawned in the same phase are dropped), then every reduction in
      (component, entity) order, then spawns in the order above (they
      take the despawned slots as ecs_create would, so a full world with
      max_entities can despawn and spawn in one phase; spawns beyond it
      fail the phase, EXHAUSTED, naming it) - each
      through the paths direct calls take (ecs_destroy, add, ecs_remove),
      so hooks, tracking and groups see a phase's changes exactly as
      direct ones; a reduced value over an existing one is a replace
      (modified, on_replace). All or nothing: every proposal is checked and
      reduced, and room for every outcome is reserved, before the first
      change; a system's non-zero result, a failed recording, a reducer's
      error, a missing reducer under ECS_REDUCER_REQUIRED or out of memory
      fail the phase with the world as it was before it (the claimed
      uniques get their bytes back) and an error naming the phase and,
      where one is to blame, the system, the component and the entity
      (out of memory and too many spawns name the phase only);
      ecs_workload_failed_system names that system. Only the clock is
      not undone: the ticks a phase took (section 11) stay taken, failed
      or not, so no stamp is ever given twice. (A hook that itself runs out of memory during the
      apply fails as its call would anywhere; a hook that adds or removes
      components may use room reserved for the phase's own changes, and
      a change of the phase that then fails is reported and makes
      ecs_schedule_run return -1, the rest applied. Each system's next run
      sees the phase's changes: they are stamped after the systems ran.)
      After each phase that applied (or that its run_if skipped),
      ecs_flush runs, as after a workload's batch: commands its hooks
      recorded (and any queued before the schedule) are applied before
      the next phase. If that flush runs
      out of memory, ecs_schedule_run returns -1 (OUT_OF_MEMORY), the
      phase applied, the commands not yet applied queued, and no later
      phase runs. A failed phase flushes nothing.

      While a phase's systems and reducers run, the world is read-only:
      every call that would change it other than in place is refused
      (ECS_ERR_LOCKED, or INVALID for registering systems, workloads and
      phases; assert): the list is section 2's re-entrancy table. Writes in place through pointers
      (ecs_get_mut, ECS_WRITE terms, ECS_ADD over an existing value) are
      not detected: they would be data races; propose instead.
      Exclusive uniques: desc.exclusive = a unique's component lets that
      one system of the phase change it in place through ctx->exclusive;
      a second claimant in the phase is refused at registration, and any
      other ecs_unique_get/_get_mut of it while the phase's systems and
      reducers run returns NULL (LOCKED, assert naming the claimant); the
      conditions (run_if), asked before any system runs, may read it. It
      is stamped modified when the phase applies.

      Proposals and the command buffer share one record format (an
      entity, an operation, a component and the value's bytes); a phase's
      buffers are per system (and per part), the command buffer is the
      world's, for one thread. Memory: a record is a 24-byte header and
      the value, each rounded up to ECS_MAX_ALIGN (at least 8); a phase's scratch is about 80 bytes per
      proposal, freed when it ends; buffers keep their capacity.

   ---------------------------------------------------------------------------
   17. SAVE AND LOAD

      A snapshot is a world's state as bytes: every slot's version and
      whether it is alive, the free-slot queue in order, every storage's
      rows in row order with their values, tracking ticks and lists, the
      uniques, the created/destroyed lists and the clock. Loaded, every
      entity has its id again (so ids stored inside values stay right),
      every value is byte for byte the same, and the next creates hand out
      the ids the saved world would have. Components are matched by name,
      so the loading program registers them in any order.

      bool ecs_save(ecs_world *w, ecs_write_fn write, void *user)
          Streams the snapshot through write(bytes, n, user), in pieces.
          False when write or a save callback returns false (ECS_ERR_INVALID,
          the message names the byte offset or the component), out of
          memory, or commands are pending (ECS_ERR_INVALID, assert: flush
          first; the command buffer is not saved).
      size_t ecs_save_buffer(ecs_world *w, void *buf, size_t cap)
          The snapshot's size in bytes, written to buf only when it fits
          (size <= cap; else buf's contents are unspecified), so
          ecs_save_buffer(w, NULL, 0) asks for the size, as snprintf does.
          0 on failure (as ecs_save).
      bool ecs_load(ecs_world *w, const void *bytes, size_t n)
          Restores a snapshot into w, which must have no live entity and no
          pending command (a new world, or one whose entities were all
          destroyed). Every component the snapshot holds must be registered
          in w under its name, with the same size (the alignment may differ:
          it describes the loading machine's memory, not the bytes); w may
          have more. For each of them the snapshot replaces its rows,
          tracking flags, ticks and lists, and its unique (present or not);
          the slots, the free queue, the clock and the created/destroyed
          lists (kept only when w has desc.track_entities) are replaced
          too. Components w has and the snapshot lacks keep their unique
          and tracking flags; their removed and deleted lists are emptied
          (they named entities of the world the load replaces) and their
          stamps and windows after the loaded clock come back to it.
          Hooks do not run. w's groups are
          packed over the loaded rows (rows of a group the saving world had
          keep their order), and every system's last_run goes back to 1.
          A failed load leaves w exactly as it was (no assert: a snapshot is
          input) and says why; the message names the part and byte offset:
            ECS_ERR_FORMAT         not a snapshot, another format version or
                                   value byte order, damaged (the checksum:
                                   truncated or any bit changed), or
                                   inconsistent (a row of a dead entity...)
            ECS_ERR_NOT_FOUND      a component of the snapshot is not
                                   registered in w
            ECS_ERR_SIZE_MISMATCH  its size differs
            ECS_ERR_EXHAUSTED      more slots than w's desc.max_entities
            ECS_ERR_OUT_OF_MEMORY
            ECS_ERR_INVALID        a load callback returned false; w has
                                   live entities or pending commands (assert)
          The checksum is checked as the snapshot is read, in the same pass
          as the copy; when w has a load callback (ecs_serial_set), before
          anything is read, so callbacks see checked bytes only. Either way
          a damaged snapshot is refused as damaged, whatever else it breaks.
      bool ecs_serial_set(ecs_world *w, ecs_component c, const ecs_serial *serial)
          How c is saved. By default its values are their bytes; a type
          that holds pointers gives callbacks instead; serial->skip leaves
          c out of snapshots (no rows, unique, lists or tracking: a loaded
          world has none, and does not need c registered). NULL: the
          default again. Values of deletion lists are saved as bytes.
            bool save(const void *value, ecs_write_fn write, void *wuser, void *user)
                writes the value through write(bytes, n, wuser), in any
                number of pieces; false fails the save
            bool load(void *value, const void *bytes, size_t n, void *user)
                builds the value in zeroed memory from the n bytes save
                wrote; false fails the load
            void drop(void *value, void *user)             (optional)
                releases what load built, when the load fails later on
          They run inside ecs_save / ecs_load and must not call ecs.h on
          that world (like allocator functions; ECS_DEBUG asserts when one
          changed it).

      Components that travel between machines. A snapshot loads on any
      machine of the same byte order where each component has the same
      size; alignment may differ (a double or an ecs_entity is aligned to 4
      on i386 and 8 on x86-64: the bytes are the same). Where the layout
      itself differs, the sizes say so and the load is refused
      (SIZE_MISMATCH): struct { ecs_entity target; uint32_t hp; } is 16
      bytes on x86-64 (4 of them tail padding) and 12 on i386. Declare such
      components with the padding spelled out, largest fields first, so
      that every machine lays them out alike:
          typedef struct { ecs_entity target; uint32_t hp, pad_; } Aim;
      (16 bytes everywhere), or give them save/load callbacks
      (ecs_serial_set) that write a fixed layout. examples/save_load.c
      shows one; tests/test_save_golden.c loads one snapshot on x86-64,
      i386, aarch64, armhf and Windows, and make test-matrix hands
      snapshots through files from each of them to x86-64 and back.

      Values are saved as their bytes, padding included: a struct with
      padding built by a compound literal (ECS_ADD's {...}) has undefined
      padding bytes, so its snapshot differs from run to run (and memory
      checkers flag them). Zero such values first, or make the padding a
      named member, where snapshots must compare byte for byte.

      The format (version 1). Framing is little-endian; values are their
      registered bytes, in the byte order of the machine that saved them,
      so a snapshot loads on any machine of the same byte order and
      component layout (tests: written on each of i386, aarch64, armhf
      and Windows and read on x86-64, and written on x86-64 and read on
      each of them). u32/u64: little-endian integers; list: u32 n, then n
      entries of u64 entity, u64 tick.
        header    "ECSHSNAP", u32 format version (1), u8 byte order of the
                  values (1 little, 2 big), 3 bytes 0
        slots     u32 n, u32 version[n] (bit 31: free, with the version its
                  next entity gets), u32 nfree, u32 free slot[nfree] (next
                  first), u64 clock, list created, list destroyed
        storages  u32 n, then each: u32 length, name, u64 size, u32
                  align, u32 track flags, u32 bits (1: values from a save
                  callback, 2: a unique), u32 rows, u64 entity[rows], the
                  values (rows x size bytes; with callbacks, per row u64
                  length + bytes), u64 inserted[rows] and u64 modified[rows]
                  when tracked, u64 window starts (inserted, modified),
                  list removed, list deleted + the deleted values (n x size
                  bytes), and with a unique: its value (as a row's), u64
                  inserted, u64 modified
        trailer   u64 length of the whole snapshot, u64 checksum of every
                  byte before it (64-bit multiply-rotate rounds on 4 lanes:
                  any one changed bit, and any cut, is caught)

      What a loaded world relies on, each checked before anything is
      installed (a snapshot that breaks one is refused with ECS_ERR_FORMAT,
      "damaged snapshot: <what> (<part>, at byte N)", even with a right
      checksum; tests/test_save_load.c writes one per invariant):
        slots     at most desc.max_entities (EXHAUSTED); every version 1..
                  ECS_VERSION_MAX, or a free slot's next one, or a retired
                  slot's (one past the maximum)
        free      at most as many as the free slots; each a free, not
                  retired slot of the snapshot, queued once
        clock     2 (a new world's) up to below 2^62: a tick that counts on
                  for centuries before it could wrap
        lists     created, destroyed, removed and deleted: in tick order,
                  no tick after the clock, each entity a slot the snapshot
                  has with a version 1..ECS_VERSION_MAX; removed and deleted
                  only on a storage that tracks them
        storages  no more than the bytes left can hold; each named, known
                  to the loading world (NOT_FOUND), listed once, its size
                  the registered one (SIZE_MISMATCH; not its alignment,
                  which describes the saving machine's memory), known flag
                  bits, a save-callback bit only with a load callback and a
                  size, at most as many rows as live entities, each row's
                  entity alive (its slot's version) and in one row only
        stamps    every insertion and modification stamp, window start and
                  unique stamp at most the clock
        the end   nothing after the last storage but the trailer

   ---------------------------------------------------------------------------
   18. POINTER VALIDITY

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
      life of the world. Tracking's lists (section 11): ecs_track_removed
      and _deleted entries and ecs_track_deleted_value's value until the
      next change of that storage, ecs_track_set of it, a clear of its
      lists or ecs_shrink; _created and _destroyed entries until the next
      create or destroy, ecs_reserve, a clear of them or ecs_shrink.

   ---------------------------------------------------------------------------
   19. REVISION HISTORY

      0.1  (2026-11-21)  world, versioned entities, paged sparse-set
                         storages, component operations, bundles; views,
                         command buffer, sorting; uniques, tracking, hooks,
                         groups, systems and workloads.
      0.2  (unreleased)  one word per meaning: ecs_create_with ->
                         ecs_create_n, ecs_set_if_changed ->
                         ecs_add_if_changed, ECS_SET folded into ECS_ADD
                         (any initializer or expression of T), ecs_track /
                         ecs_tracking -> ecs_track_set / ecs_track_get,
                         ecs_set_hooks -> ecs_hooks_set, ecs_timestamp ->
                         ecs_tick_advance, ecs_component_count ->
                         ecs_component_max, ecs_defer_count ->
                         ecs_defer_pending, ecs_system_add /
                         ecs_workload_add -> ecs_system_new /
                         ecs_workload_new; storage handles
                         (ecs_storage_of, ecs_storage_get...); descriptor
                         lists end at their first 0; ECS_H_VERSION;
                         ECS_SHARED and a real symbol for every function.
                         Save and load (section 17), ecs_create_id,
                         ecs_clone, ecs_destroy_all, ecs_entity_components,
                         ecs_world_clear, ecs_get_n, ecs_remove_n,
                         ecs_delete_n, ecs_removed_or_deleted,
                         ecs_system_run, memory statistics, reserve and
                         shrink; ecs_world_free runs on_remove hooks.
      0.3  (unreleased)  tracking under one prefix: ecs_clear_tracking ->
                         ecs_track_clear, ecs_clear_tracking_older_than ->
                         ecs_track_clear_until, ecs_was_inserted /
                         ecs_was_modified -> ecs_track_inserted /
                         ecs_track_modified, ecs_unique_was_* ->
                         ecs_track_unique_*, ecs_removed / ecs_deleted /
                         ecs_deleted_value / ecs_removed_or_deleted /
                         ecs_created / ecs_destroyed -> ecs_track_removed
                         / _deleted / _deleted_value / _removed_or_deleted
                         / _created / _destroyed, ecs_mark_modified ->
                         ecs_track_mark_modified; ecs_stats_storage(w, c,
                         out) -> ecs_storage_stats_get(s, out),
                         ecs_stats_world -> ecs_world_stats_get,
                         ecs_storage_reserve(w, c, n) ->
                         ecs_storage_reserve(s, n); ecs_each ->
                         ecs_visit (ECS_EACH is the loop); ecs_storage_of
                         gives a const handle, ecs_storage_of_mut a
                         writable one; ECS_EACH_VIEW, ECS_UNIQUE_REMOVE.
                         ecs_hooks.on_replace (a new field: zero the
                         struct before setting it); ecs_entity_print and
                         ecs_component_print_set. Under ECS_DEBUG the
                         typed macros check T against the type
                         ECS_COMPONENT registered and name their caller.
                         One insert path and one remove path per storage
                         (section 5), one table of errors (section 2).
                         Field indexes, hashed and ordered, index terms of
                         views (ecs_view_desc.where) and cached queries
                         (section 14).
                         Phases of proposing systems, reducers and
                         schedules (section 16); ecs_system_ctx gains
                         proposals and exclusive, ecs_system_desc
                         exclusive (zero the structs before setting them).
*/

#ifndef ECS_H
#define ECS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#define ECS_H_VERSION_MAJOR 0
#define ECS_H_VERSION_MINOR 3
#define ECS_H_VERSION_PATCH 0
/* one number that compares: 0.2.0 is 200, 1.4.12 is 10412 */
#define ECS_H_VERSION (ECS_H_VERSION_MAJOR * 10000 + ECS_H_VERSION_MINOR * 100 + ECS_H_VERSION_PATCH)

#ifndef ECS_API
#if defined(ECS_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define ECS_API __attribute__((unused)) static
#elif defined(ECS_STATIC)
#define ECS_API static
#elif defined(ECS_SHARED) && defined(_WIN32) && defined(ECS_IMPLEMENTATION)
#define ECS_API __declspec(dllexport)
#elif defined(ECS_SHARED) && defined(_WIN32)
#define ECS_API __declspec(dllimport)
#elif defined(ECS_SHARED) && (defined(__GNUC__) || defined(__clang__))
#define ECS_API extern __attribute__((visibility("default")))
#else
#define ECS_API extern
#endif
#endif

/* The hot functions are defined in this header so that they inline into
   the caller. With C99 inline semantics they are plain `inline` (external
   linkage), and the implementation TU emits the one real definition of
   each (section "Real symbols" at its end): DLLs, FFI binding generators
   and debuggers see every documented function. Where those semantics are
   missing (ECS_STATIC, tcc, gnu89 inline, MSVC's C) they are static
   inline, and only the out-of-line functions have symbols. */
#if defined(ECS_STATIC) || defined(__TINYC__) || (defined(__GNUC_GNU_INLINE__) && !defined(__cplusplus)) || \
    (defined(_MSC_VER) && !defined(__cplusplus))
#define ECS__EXTERN_INLINE 0
#if defined(_MSC_VER) && !defined(__cplusplus)
#define ECS__INLINE static __inline
#else
#define ECS__INLINE static inline
#endif
#elif defined(ECS_SHARED) && !defined(_WIN32) && (defined(__GNUC__) || defined(__clang__))
#define ECS__EXTERN_INLINE 1 /* exported from the shared library even under -fvisibility=hidden */
#define ECS__INLINE inline __attribute__((visibility("default")))
#else
#define ECS__EXTERN_INLINE 1
#define ECS__INLINE inline
#endif
#if defined(__GNUC__) || defined(__clang__)
#define ECS__LIKELY(x) __builtin_expect(!!(x), 1)
#define ECS__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define ECS__LIKELY(x) (x)
#define ECS__UNLIKELY(x) (x)
#endif
/* the few hot paths the compiler must not leave out of line */
#if defined(__GNUC__) || defined(__clang__)
#define ECS__HOT ECS__INLINE __attribute__((always_inline))
#else
#define ECS__HOT ECS__INLINE
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
#endif
#endif

#ifndef ECS_MAX_ALIGN
#define ECS_MAX_ALIGN (2 * sizeof(void *))
#endif
#ifndef ECS_VERSION_MAX
#define ECS_VERSION_MAX 0x7fffffffu
#endif
#if ECS_VERSION_MAX > 0x7fffffff || ECS_VERSION_MAX < 1
#error "ecs.h: ECS_VERSION_MAX must be 1..0x7fffffff (the top bit of a slot's version marks it free)"
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define ECS_ALIGNOF(T) alignof(T)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ECS_ALIGNOF(T) _Alignof(T)
#elif defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__)) /* (before C++11) */
#define ECS_ALIGNOF(T) __alignof__(T)
#elif defined(__GNUC__) || defined(__clang__) || defined(__TINYC__)
/* (C11's _Alignof, which they take in C99 too: __alignof__ is the preferred
   alignment, 8 for a double on i386 where C11 and C++ say 4, and a type
   registered from C99 and from C11 or C++ files must agree) */
#define ECS_ALIGNOF(T) (__extension__ _Alignof(T))
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
typedef uint64_t ecs_tick;
typedef uint32_t ecs_group;
typedef uint32_t ecs_index;
typedef struct ecs_world ecs_world;
typedef struct ecs_storage ecs_storage;

#define ECS_NULL ((ecs_entity)0)
#define ECS_ENTITY_INDEX(e) ((uint32_t)(e))
#define ECS_ENTITY_VERSION(e) ((uint32_t)((ecs_entity)(e) >> 32))
#define ECS_ENTITY_STR 24

/* What a failing call records (ecs_last_error). Each failure is one row
   of the message table in the implementation (section "Validation"),
   which names its error and text; section 2 lists them per call. */
#define ECS__ERRORS(X)                                                                    \
    X(ECS_OK, "no error")                                                                 \
    X(ECS_ERR_DEAD_ENTITY, "the entity is null, stale or never created")                  \
    X(ECS_ERR_UNKNOWN_COMPONENT, "component id 0 or never registered")                    \
    X(ECS_ERR_SIZE_MISMATCH, "sizeof(T) or T differs from the registered component")      \
    X(ECS_ERR_OUT_OF_MEMORY, "the allocator returned NULL; nothing changed")              \
    X(ECS_ERR_EXHAUSTED, "no entity slot left (desc.max_entities)")                       \
    X(ECS_ERR_NOT_FOUND, "no unique value, system or workload of that name")              \
    X(ECS_ERR_LOCKED, "the change would pull the rug from under a running hook")          \
    X(ECS_ERR_SYSTEM, "a system returned an error (ecs_workload_run)")                    \
    X(ECS_ERR_INVALID, "any other bad argument; see the message")                         \
    X(ECS_ERR_FORMAT, "ecs_load: not a snapshot, or a damaged one")
typedef enum ecs_error {
#define ECS__ERROR_ENUM(name, what) name,
    ECS__ERRORS(ECS__ERROR_ENUM)
#undef ECS__ERROR_ENUM
    ECS__ERR_END
} ecs_error;

typedef struct ecs_allocator {
    void *(*alloc)(size_t size, void *ctx);           /* like malloc: NULL on failure */
    void (*free)(void *ptr, size_t size, void *ctx);  /* size as passed to alloc */
    /* optional: like realloc (NULL on failure, the block unchanged); must
       not fail when shrinking. Lets big arrays grow without a copy. */
    void *(*realloc)(void *ptr, size_t old_size, size_t new_size, void *ctx);
    void *ctx;                                        /* passed to all three */
} ecs_allocator;

/* Runs job(arg, 0..n-1), possibly at the same time on several threads,
   and returns when all are done (see workloads). */
typedef void (*ecs_parallel_fn)(void (*job)(void *arg, uint32_t i), void *arg, uint32_t n,
                                void *user);

typedef struct ecs_desc {
    ecs_allocator allocator;      /* zeroed: ECS_MALLOC / ECS_FREE */
    uint32_t max_entities;        /* most entity slots ever used; 0: 0xfffffffe (indices 0..0xfffffffd) */
    bool track_entities;          /* record created and destroyed entities (ecs_track_created/ecs_track_destroyed) */
    ecs_parallel_fn parallel_for; /* runs a workload batch's systems; NULL: one after another */
    void *parallel_user;          /* passed to parallel_for */
} ecs_desc;

/* --- 2. memory and errors ---------------------------------------------- */
ECS_API ecs_error ecs_last_error(const ecs_world *w);
ECS_API const char *ecs_last_error_msg(const ecs_world *w);
ECS_API void ecs_clear_error(ecs_world *w);

/* --- 3. world ------------------------------------------------------------ */
ECS_API ecs_world *ecs_world_new(const ecs_desc *desc);
ECS_API void ecs_world_free(ecs_world *w);
ECS_API uint32_t ecs_world_clear(ecs_world *w);

/* --- 4. entities ----------------------------------------------------------- */
/* inline below: bool ecs_alive(w, e); ecs_entity ecs_create(w) */
ECS_API bool ecs_destroy(ecs_world *w, ecs_entity e);
ECS_API uint32_t ecs_count(const ecs_world *w);
ECS_API const char *ecs_entity_str(ecs_entity e, char buf[ECS_ENTITY_STR]);
ECS_API ecs_entity ecs_create_id(ecs_world *w, ecs_entity e);
ECS_API ecs_entity ecs_clone(ecs_world *w, ecs_entity e);
ECS_API uint32_t ecs_destroy_all(ecs_world *w, ecs_component c);
ECS_API uint32_t ecs_entity_components(const ecs_world *w, ecs_entity e, ecs_component *out, uint32_t cap);
ECS_API size_t ecs_entity_print(const ecs_world *w, ecs_entity e, char *buf, size_t cap);

/* --- 5. components and storages --------------------------------------------- */
ECS_API ecs_component ecs_register(ecs_world *w, const char *name, size_t size, size_t align);
typedef size_t (*ecs_print_fn)(const void *value, char *buf, size_t cap);
ECS_API bool ecs_component_print_set(ecs_world *w, ecs_component c, ecs_print_fn fn);
ECS_API ecs_component ecs_lookup(const ecs_world *w, const char *name);
ECS_API const char *ecs_component_name(const ecs_world *w, ecs_component c);
ECS_API size_t ecs_component_size(const ecs_world *w, ecs_component c);
ECS_API uint32_t ecs_component_max(const ecs_world *w);
/* (the \1 says "a C type's name" to ecs_register, which keeps the name
   without it: the typed macros compare T with it under ECS_DEBUG) */
#define ECS_COMPONENT(w, T) ecs_register((w), "\1" #T, sizeof(T), ECS_ALIGNOF(T))
#define ECS_TAG(w, name) ecs_register((w), (name), 0, 0)
/* inline below: ecs_storage_of(_mut), ecs_storage_get, ecs_storage_get_mut,
   ecs_storage_has, ecs_storage_count, ecs_storage_entities, ecs_storage_data */
typedef struct ecs_storage_stats {
    uint32_t rows, capacity;
    size_t value_bytes;     /* capacity x size, and the unique */
    size_t dense_bytes;     /* the entity of each row */
    size_t sparse_bytes;    /* page table and the pages that hold entities */
    size_t tracking_bytes;  /* tick arrays, removed and deleted lists */
    size_t total;           /* all of the above and the storage itself */
} ecs_storage_stats;
typedef struct ecs_world_stats {
    uint32_t alive, slots, slot_capacity, free_slots;
    size_t slot_bytes;      /* versions and the free queue */
    size_t command_bytes, name_bytes, tracking_bytes; /* created/destroyed lists */
    size_t storage_bytes;   /* every storage's total */
    size_t total;
} ecs_world_stats;
ECS_API bool ecs_storage_stats_get(const ecs_storage *s, ecs_storage_stats *out);
ECS_API bool ecs_world_stats_get(const ecs_world *w, ecs_world_stats *out);
ECS_API bool ecs_reserve(ecs_world *w, uint32_t n);
ECS_API bool ecs_storage_reserve(ecs_storage *s, uint32_t n);
ECS_API void ecs_shrink(ecs_world *w);

/* --- 6. component operations ------------------------------------------------ */
/* inline below: void *ecs_add(w, e, c, value); const void *ecs_get(w, e, c);
   void *ecs_get_mut(w, e, c); bool ecs_has(w, e, c) */
/* inline below: bool ecs_remove(w, e, c, out); bool ecs_delete(w, e, c) */
ECS_API uint32_t ecs_strip(ecs_world *w, ecs_entity e);
ECS_API bool ecs_get_n(const ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps, const void **out);
ECS_API bool ecs_get_mut_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps, void **out);
ECS_API uint32_t ecs_remove_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps, void *const *outs);
ECS_API uint32_t ecs_delete_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps);
/* inline below: bool ecs_add_n(w, e, n, comps, values);
   ecs_entity ecs_create_n(w, n, comps, values) */
ECS_API bool ecs_create_bulk(ecs_world *w, uint32_t count, uint32_t n, const ecs_component *comps,
                             const void *const *values, ecs_entity *out);

/* --- 7. views -------------------------------------------------------------- */
#define ECS_MAX_TERMS 16

/* Term flags. 0 = required, read. */
enum {
    ECS_WRITE = 1u << 0,    /* the loop writes this field: marks it modified (tracking) */
    ECS_NOT = 1u << 1,      /* the entity must not have it; field NULL */
    ECS_OPTIONAL = 1u << 2, /* field NULL when absent */
    ECS_ANY = 1u << 3,      /* at least one ECS_ANY term present; field NULL when absent */
    ECS_INSERTED = 1u << 4, /* only if inserted after the view's window start */
    ECS_MODIFIED = 1u << 5  /* only if modified after it; with ECS_INSERTED: either */
};

typedef struct ecs_term {
    ecs_component c;
    uint32_t flags;   /* ECS_WRITE, ECS_NOT, ECS_OPTIONAL, ECS_ANY */
} ecs_term;

typedef struct ecs_view_desc {
    ecs_term terms[ECS_MAX_TERMS];  /* in order, up to the first term with c == 0 */
    ecs_component lead;             /* walk this required term's storage; 0: the shortest */
    ecs_tick since;                 /* ECS_INSERTED/ECS_MODIFIED window start; 0: each
                                       storage's last ecs_track_clear */
    struct {                        /* an index term (section 14): index 0, none */
        ecs_index index;
        const void *key;            /* only the entities whose key is *key, */
        const void *lo, *hi;        /* else (key NULL, ordered) lo..hi as ecs_index_range */
        uint32_t flags;             /* ECS_RANGE_LO_OPEN, ECS_RANGE_HI_OPEN */
    } where;
} ecs_view_desc;


/* A term a probe run looks up at each row (ecs_iter.probe). */
/* A term a probe run looks up at each entity (ecs_iter.probe). */
typedef struct ecs__probe {
    uint32_t term;
    uint32_t want;  /* ECS__P_*: what its row must show */
} ecs__probe;

/* A term whose ECS_INSERTED/ECS_MODIFIED filter a run tests at each entity. */
typedef struct ecs__filter {
    const ecs_tick *ticks[2];  /* its storage's inserted[] and modified[], NULL where not asked */
    ecs_tick since[2];         /* the window starts */
    uint32_t term;
} ecs__filter;

/* A row offset (ecs_iter.bias): uintptr_t arithmetic, in a type of its
   own where that is possible (LP64: not uint64_t, the type of ticks and
   entities), so that the compiler knows a store of a tick or an entity
   leaves the offsets of a loop alone. */
#if defined(__LP64__) || defined(_LP64)
typedef unsigned long long ecs__off;
#else
typedef uintptr_t ecs__off;
#endif

/* What a probe run's tight loop tests at entity x (ecs__test), before the
   rest: the lead's own filter on one tick array (ticks, biased to the
   run; NULL when there is none: x passes when ticks[x] > since), and the
   first tested term (pages; NULL when there is none: its row must be
   present when want is 1, absent when 0; the row, masked with keep, is
   its value's: *bias). rest: more tests follow (ecs__iter_rest). */
typedef struct ecs__seek {
    const ecs_entity *run;  /* the lead's entities of the run */
    const ecs_tick *ticks;
    const uintptr_t *pages;
    ecs__off *bias;
    ecs_tick since;
    uint32_t want, keep, rest;
} ecs__seek;

typedef struct ecs_iter {
    /* The current block: count entities, entities[0..count), and per term
       an array of count values (ECS_BLOCK). */
    uint32_t count;
    const ecs_entity *entities;
    /* private. The walk goes down the lead's rows in runs; a run covers
       rows lo..lo+n-1 and its entity x (0 <= x < n) is at lead row lo + x.
       Term k's value for entity x is at row bias[k] + x of fst[k] (with
       wrapping arithmetic, so (bias + x) * size is 0 where fst[k] is
       &ecs__none: no value, NULL). The current block is entities
       first..first+count-1 of the run, and those below first are still
       to come; a per-entity loop walks the block down with i. */
    uint32_t i, first, lo;
    const ecs_storage *fst[ECS_MAX_TERMS];
    ecs__off bias[ECS_MAX_TERMS];
    ecs_world *world;
    ecs_storage *lead;
    const uint32_t *epoch; /* &world->epoch */
    uint32_t key;          /* the epoch the run's pointers are good for */
    uint32_t probing;      /* a probe run: entities are tested (seek, probe, filter); else aligned */
    ecs__seek seek;
    uint32_t ntest, nprobe, nfilter; /* probe[0..ntest) are tested, probe[ntest..nprobe) looked up */
    uint32_t lead_filter;  /* filter[0] is the lead's, and seek tests it (with one tick array) */
    uint32_t merge;        /* block loops: matches next to each other form one block (no tested term has a value) */
    uint32_t one;          /* the run's blocks are single entities ecs_iter_next_block finds inline */
    uint32_t needany;      /* one of the looked-up ECS_ANY terms must be present */
    uint32_t each;         /* a per-entity loop: blocks it marks are one entity */
    uint32_t nmark;        /* written terms of tracked storages, in mterm[] */
    ecs_storage *mark1;    /* a per-entity loop over an aligned run with one of them: its storage */
    ecs__off mbias;        /* entity x's row in mark1: mbias + x */
    ecs__probe probe[ECS_MAX_TERMS];
    ecs__filter filter[ECS_MAX_TERMS];
    /* the view */
    uint32_t nterms, nany, lead_term, mode, end;
    ecs_group group;       /* the group whose rows the walk trusts (owned aligned, excluded absent) */
    struct ecs__index *wix; /* the index term: tested at each entity; the lead when lead_term is ECS_MAX_TERMS */
    uint64_t wkey[2];      /* its bounds (where: 1, lo; 2, hi; ECS_RANGE_*_OPEN << 2) and their strings */
    const char *wstr[2];
    uint32_t where, wfreed; /* wfreed: the world's index_frees when it was made */
    uint64_t changes;      /* lead->changes when the walk last looked */
    uint32_t tchanges[ECS_MAX_TERMS]; /* ECS_DEBUG: each term's changes (low bits), likewise */
    ecs_entity cur;        /* ECS_DEBUG: the entity handed out last, for messages */
    ecs_storage *st[ECS_MAX_TERMS];
    uint32_t flags[ECS_MAX_TERMS];
    uint32_t until[ECS_MAX_TERMS];  /* union views: the ANY storages' row counts at the start */
    uint8_t mterm[ECS_MAX_TERMS];
} ecs_iter;

ECS_API ecs_iter ecs_view(ecs_world *w, const ecs_view_desc *desc);
ECS_API ecs_iter ecs_view_of(ecs_world *w, uint32_t n, const ecs_component *comps);
ECS_API bool ecs_iter_chunk(ecs_iter *it, uint32_t k, uint32_t nchunks);
ECS_API uint32_t ecs_visit(ecs_world *w, const ecs_view_desc *desc,
                           void (*fn)(ecs_iter *it, void *ctx), void *ctx);
/* inline below: bool ecs_iter_next_block(it); bool ecs_iter_next(it);
   ecs_entity ecs_iter_entity(it); ECS_EACH(it) { ... }; ECS_EACH_VIEW(it, w, desc)
   { ... }; ECS_FIELD(it, k, T),
   ecs_field(it, k); ECS_BLOCK(it, k, T), ecs_block(it, k) */

/* --- 8. command buffer ----------------------------------------------------- */
ECS_API ecs_entity ecs_defer_create(ecs_world *w);
ECS_API bool ecs_defer_destroy(ecs_world *w, ecs_entity e);
ECS_API bool ecs_defer_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value);
ECS_API bool ecs_defer_remove(ecs_world *w, ecs_entity e, ecs_component c);
ECS_API bool ecs_defer_delete(ecs_world *w, ecs_entity e, ecs_component c);
ECS_API uint32_t ecs_defer_pending(const ecs_world *w);
ECS_API uint32_t ecs_flush(ecs_world *w);

/* --- 9. sorting ------------------------------------------------------------ */
typedef int (*ecs_sort_fn)(ecs_entity a, const void *va, ecs_entity b, const void *vb, void *ctx);
ECS_API bool ecs_sort(ecs_world *w, ecs_component c, ecs_sort_fn cmp, void *ctx);
ECS_API bool ecs_sort_as(ecs_world *w, ecs_component c, ecs_component order);

/* --- 10. uniques ----------------------------------------------------------- */
ECS_API void *ecs_unique_add(ecs_world *w, ecs_component c, const void *value);
ECS_API const void *ecs_unique_get(const ecs_world *w, ecs_component c);
ECS_API void *ecs_unique_get_mut(ecs_world *w, ecs_component c);
ECS_API bool ecs_unique_has(const ecs_world *w, ecs_component c);
ECS_API bool ecs_unique_remove(ecs_world *w, ecs_component c, void *out);

/* --- 11. tracking ---------------------------------------------------------- */
enum {
    ECS_TRACK_INSERTION = 1u << 0,
    ECS_TRACK_MODIFICATION = 1u << 1,
    ECS_TRACK_REMOVAL = 1u << 2,
    ECS_TRACK_DELETION = 1u << 3,
    ECS_TRACK_ALL = 15u,
    ECS_TRACK_ENTITIES = 1u << 8 /* ecs_track_clear only: the created/destroyed lists (not a view flag's value) */
};
typedef struct ecs_change {
    ecs_entity entity;
    ecs_tick tick;
} ecs_change;

ECS_API bool ecs_track_set(ecs_world *w, ecs_component c, uint32_t flags);
ECS_API uint32_t ecs_track_get(const ecs_world *w, ecs_component c);
ECS_API ecs_tick ecs_tick_advance(ecs_world *w);
ECS_API bool ecs_track_mark_modified(ecs_world *w, ecs_entity e, ecs_component c);
ECS_API bool ecs_add_if_changed(ecs_world *w, ecs_entity e, ecs_component c, const void *value);
ECS_API bool ecs_track_inserted(const ecs_world *w, ecs_entity e, ecs_component c, ecs_tick since);
ECS_API bool ecs_track_modified(const ecs_world *w, ecs_entity e, ecs_component c, ecs_tick since);
ECS_API bool ecs_track_unique_inserted(const ecs_world *w, ecs_component c, ecs_tick since);
ECS_API bool ecs_track_unique_modified(const ecs_world *w, ecs_component c, ecs_tick since);
ECS_API const ecs_change *ecs_track_removed(const ecs_world *w, ecs_component c, ecs_tick since, uint32_t *count);
ECS_API const ecs_change *ecs_track_deleted(const ecs_world *w, ecs_component c, ecs_tick since, uint32_t *count);
ECS_API const void *ecs_track_deleted_value(const ecs_world *w, ecs_component c, const ecs_change *entry);
ECS_API const ecs_change *ecs_track_created(const ecs_world *w, ecs_tick since, uint32_t *count);
ECS_API const ecs_change *ecs_track_destroyed(const ecs_world *w, ecs_tick since, uint32_t *count);
ECS_API uint32_t ecs_track_removed_or_deleted(const ecs_world *w, ecs_component c, ecs_tick since, ecs_change *out,
                                              uint32_t cap);
ECS_API void ecs_track_clear(ecs_world *w, ecs_component c, uint32_t flags);
ECS_API void ecs_track_clear_until(ecs_world *w, ecs_component c, uint32_t flags, ecs_tick t);

/* --- 12. hooks ------------------------------------------------------------- */
typedef void (*ecs_hook_fn)(ecs_world *w, ecs_entity e, ecs_component c, void *value, void *user);
typedef struct ecs_hooks {
    ecs_hook_fn on_insert;  /* after c was added to e (not when a value is replaced) */
    ecs_hook_fn on_remove;  /* before c leaves e: remove, delete, strip, destroy */
    ecs_hook_fn on_replace; /* after e's value of c was replaced: add over it, add_if_changed */
    void *user;
} ecs_hooks;
ECS_API bool ecs_hooks_set(ecs_world *w, ecs_component c, const ecs_hooks *hooks);

/* --- 13. groups ------------------------------------------------------------ */

typedef struct ecs_group_desc {
    ecs_component owned[ECS_MAX_TERMS];     /* storages the group owns (up to the first 0) */
    ecs_component excluded[ECS_MAX_TERMS];  /* members must not have these (up to the first 0) */
} ecs_group_desc;

ECS_API ecs_group ecs_group_new(ecs_world *w, const ecs_group_desc *desc);
ECS_API uint32_t ecs_group_count(const ecs_world *w, ecs_group g);
ECS_API const ecs_entity *ecs_group_entities(const ecs_world *w, ecs_group g);
ECS_API void *ecs_group_data(const ecs_world *w, ecs_group g, ecs_component c);
ECS_API bool ecs_group_sort(ecs_world *w, ecs_group g, ecs_component by, ecs_sort_fn cmp, void *ctx);

/* --- 14. indexes ---------------------------------------------------------------- */
enum {
    ECS_KEY_INT = 1,  /* signed integers and enums of 1, 2, 4 or 8 bytes */
    ECS_KEY_UINT = 2, /* unsigned integers of 1, 2, 4 or 8 bytes */
    ECS_KEY_FLOAT = 3, /* float or double (ordered indexes only) */
    ECS_KEY_CHARS = 4, /* a char array of `size` bytes holding a string */
    ECS_KEY_STRING = 5 /* a const char * */
};
enum {
    ECS_RANGE_LO_OPEN = 1, /* ecs_index_range: lo excluded (>), else included (>=) */
    ECS_RANGE_HI_OPEN = 2  /* hi excluded (<), else included (<=) */
};
typedef struct ecs_index_desc {
    ecs_component c;
    uint32_t offset, size; /* the field: offsetof(T, field), sizeof the field */
    int kind;              /* ECS_KEY_* */
    bool ordered;          /* false: hashed (equality, sets); true: ordered (also ranges, key order) */
} ecs_index_desc;

ECS_API ecs_index ecs_index_new(ecs_world *w, const ecs_index_desc *desc);
ECS_API bool ecs_index_free(ecs_world *w, ecs_index ix);
ECS_API uint32_t ecs_index_find(ecs_world *w, ecs_index ix, const void *key, ecs_entity *out, uint32_t cap);
ECS_API uint32_t ecs__index_find(ecs_world *w, const char *call, ecs_index ix, const void *key, size_t size,
                                 ecs_entity *out, uint32_t cap);
ECS_API uint32_t ecs_index_find_any(ecs_world *w, ecs_index ix, uint32_t n, const void *keys, ecs_entity *out,
                                    uint32_t cap);
ECS_API uint32_t ecs_index_range(ecs_world *w, ecs_index ix, const void *lo, const void *hi, uint32_t flags,
                                 ecs_entity *out, uint32_t cap);
ECS_API void ecs__index_touch(ecs_storage *s, uint32_t row, uint32_t n, bool handed);
ECS_API ecs_component ecs_query_new(ecs_world *w, const char *name, const ecs_view_desc *desc);

/* --- 15. systems and workloads -------------------------------------------- */
typedef struct ecs_system_ctx {
    ecs_world *world;
    void *user;          /* ecs_system_desc.user */
    const char *name;    /* the system's name */
    ecs_tick last_run;   /* this system's previous run (1 if it never ran; 0 for a phase's run_if) */
    ecs_tick now;        /* this run's timestamp: its changes carry it (a phase's: the tick after) */
    struct ecs_proposals *proposals; /* a phase system's proposals (section 16); else NULL */
    void *exclusive;     /* a phase system's claimed unique (desc.exclusive); else NULL */
} ecs_system_ctx;

typedef int (*ecs_system_fn)(const ecs_system_ctx *ctx); /* 0 = ok; else stops the workload */

typedef struct ecs_system_desc {
    const char *name;                           /* required, unique */
    ecs_system_fn fn;
    void *user;
    bool (*run_if)(const ecs_system_ctx *ctx);  /* NULL, or false to skip this run */
    ecs_component reads[ECS_MAX_TERMS];         /* components and uniques read (up to the first 0) */
    ecs_component writes[ECS_MAX_TERMS];        /* ... written (up to the first 0) */
    bool structural;                            /* creates/destroys/adds/removes/flushes: runs alone */
    ecs_component exclusive;                    /* phase systems: a unique only this one may use (section 16) */
} ecs_system_desc;

typedef struct ecs_plan_step {
    const char *system;
    uint32_t batch;       /* systems with the same batch may run at the same time */
    const char *reason;   /* why it could not join the previous batch ("" if it did) */
} ecs_plan_step;

ECS_API bool ecs_system_new(ecs_world *w, const ecs_system_desc *desc);
ECS_API bool ecs_workload_new(ecs_world *w, const char *name, uint32_t n, const char *const *items);
ECS_API int ecs_workload_run(ecs_world *w, const char *name);
ECS_API int ecs_system_run(ecs_world *w, const char *name);
ECS_API bool ecs_workload_set_default(ecs_world *w, const char *name);
ECS_API uint32_t ecs_workload_plan(const ecs_world *w, const char *name, ecs_plan_step *out,
                                   uint32_t cap);
ECS_API const char *ecs_workload_failed_system(const ecs_world *w);
ECS_API ecs_iter ecs_system_view(const ecs_system_ctx *ctx, const ecs_view_desc *desc);

/* --- 16. phases: proposals and reducers ----------------------------------- */
typedef struct ecs_proposals ecs_proposals; /* a phase system's buffer (ctx->proposals) */

typedef struct ecs_proposed {
    const void *value;    /* the proposed value; NULL: a removal */
    uint32_t system;      /* the proposing system's place in its phase (0: registered first) */
} ecs_proposed;

typedef struct ecs_reduce {
    const ecs_world *world;
    ecs_entity entity;
    ecs_component component;
    const void *current;           /* e's value now; NULL if e has none (a tag it has: non-NULL) */
    const ecs_proposed *changes;   /* n >= 1, in the phase's deterministic order */
    uint32_t n;
    void *user;                    /* ecs_phase_reducer's user */
} ecs_reduce;

/* Writes the next value to *next (which holds the current value, or
   zeroes) and returns ECS_REDUCE_SET, or returns ECS_REDUCE_REMOVE or
   ECS_REDUCE_KEEP; any other value fails the phase. */
typedef int (*ecs_reducer_fn)(const ecs_reduce *r, void *next);
enum {
    ECS_REDUCE_SET = 0,
    ECS_REDUCE_REMOVE = 1,
    ECS_REDUCE_KEEP = 2
};
enum {
    ECS_LAST_WRITE_WINS = 0, /* strategies */
    ECS_REDUCER_REQUIRED = 1
};

typedef struct ecs_phase_desc {
    const char *name;                           /* required, unique among phases */
    int strategy;                               /* for components with no reducer */
    bool (*run_if)(const ecs_system_ctx *ctx);  /* NULL, or false to skip the phase */
    bool parallel;                              /* its systems through desc.parallel_for */
    bool parallel_reduce;                       /* its reductions through desc.parallel_for */
} ecs_phase_desc;

ECS_API bool ecs_phase_new(ecs_world *w, const ecs_phase_desc *desc);
ECS_API bool ecs_phase_system(ecs_world *w, const char *phase, const ecs_system_desc *desc);
ECS_API bool ecs_phase_reducer(ecs_world *w, const char *phase, ecs_component c, ecs_reducer_fn fn, void *user);
ECS_API bool ecs_schedule_new(ecs_world *w, const char *name, uint32_t n, const char *const *phases);
ECS_API int ecs_schedule_run(ecs_world *w, const char *name);
ECS_API ecs_tick ecs_step_since(const ecs_world *w);
ECS_API bool ecs_propose_set(ecs_proposals *p, ecs_entity e, ecs_component c, const void *value);
ECS_API bool ecs_propose_remove(ecs_proposals *p, ecs_entity e, ecs_component c);
ECS_API bool ecs_propose_spawn(ecs_proposals *p, uint32_t n, const ecs_component *comps,
                               const void *const *values);
ECS_API bool ecs_propose_despawn(ecs_proposals *p, ecs_entity e);
ECS_API bool ecs_proposals_split(ecs_proposals *p, uint32_t parts);
ECS_API ecs_proposals *ecs_proposals_part(ecs_proposals *p, uint32_t k);
ECS_API bool ecs__propose_sized(ecs_proposals *p, ecs_entity e, ecs_component c, const void *value, size_t size);

/* --- 17. save and load ------------------------------------------------------ */
typedef bool (*ecs_write_fn)(const void *bytes, size_t n, void *user);
typedef struct ecs_serial {
    bool (*save)(const void *value, ecs_write_fn write, void *wuser, void *user);
    bool (*load)(void *value, const void *bytes, size_t n, void *user);
    void (*drop)(void *value, void *user); /* optional: undoes a load */
    void *user;
    bool skip;                             /* not saved */
} ecs_serial;
ECS_API bool ecs_save(ecs_world *w, ecs_write_fn write, void *user);
ECS_API size_t ecs_save_buffer(ecs_world *w, void *buf, size_t cap);
ECS_API bool ecs_load(ecs_world *w, const void *bytes, size_t n);
ECS_API bool ecs_serial_set(ecs_world *w, ecs_component c, const ecs_serial *serial);

/* --- private: used by the inline functions and macros below ------------- */
ECS_API void ecs__assert_fail(const char *msg, const char *file, int line);
ECS_API void ecs__bad_access(const ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                             size_t size);
ECS_API void ecs__bad_storage(const ecs_storage *s, const char *call, ecs_entity e, size_t size);
ECS_API ecs_entity ecs__create(ecs_world *w);
ECS_API void *ecs__add_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                             const void *value, size_t size);
ECS_API bool ecs__add_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps,
                        const void *const *values);
ECS_API ecs_entity ecs__create_n(ecs_world *w, uint32_t n, const ecs_component *comps,
                                 const void *const *values);
ECS_API bool ecs__take_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c, void *out,
                             size_t size, bool deletion);
ECS_API bool ecs__iter_rest(ecs_iter *it, uint32_t x);
ECS_API void ecs__iter_mark(const ecs_iter *it);
ECS_API bool ecs__iter_next(ecs_iter *it);
ECS_API int ecs__iter_step(ecs_iter *it);
ECS_API ecs_entity ecs__iter_entity(const ecs_iter *it, uint32_t row);
ECS_API void ecs__bad_field(const ecs_iter *it, const char *call, uint32_t k, size_t size, bool block);
ECS_API bool ecs__type_ok(const ecs_storage *s, const char *call);
/* A typed macro's call under ECS_DEBUG: "\1" name "\0" T "\0" file:line
   (ECS__AT), which says its type and its caller's place; any other call
   is a plain name. ECS__TYPE_OK: is T s's type, as far as s knows one? */
#define ECS__TYPE_OK(s, call) ((call)[0] != '\1' || ecs__type_ok((s), (call)))
/* ...checked before a typed add or remove leaves the header, which is
   where it is known whether the caller's build checks (then reported) */
#if ECS_DEBUG
#define ECS__TYPE_WRONG(w, call, e, c, size)                                                                 \
    ((size) != (size_t)-1 && (w) && !ECS__TYPE_OK(ecs__storage((w), (c)), (call)) &&                         \
     (ecs__bad_access((w), (call), (e), (c), (size)), 1))
#else
#define ECS__TYPE_WRONG(w, call, e, c, size) 0
#endif
ECS_API bool ecs__defer_add_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c, const void *value,
                                  size_t size);
ECS_API void *ecs__unique_get(const ecs_world *w, const char *call, ecs_component c, size_t size, bool mut);
ECS_API void *ecs__unique_add_sized(ecs_world *w, const char *call, ecs_component c, const void *value, size_t size);
ECS_API bool ecs__unique_remove_sized(ecs_world *w, const char *call, ecs_component c, void *out, size_t size);
ECS_API bool ecs__add_if_changed_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                                       const void *value, size_t size);

/* The layout below is visible only so that the hot paths can be inline.
   It is not API: it changes between versions. */
#define ECS__PAGE_BITS 12 /* 4096 sparse entries (32 KiB) per page */
#define ECS__PAGE_SIZE (1u << ECS__PAGE_BITS)
#define ECS__PAGE_MASK (ECS__PAGE_SIZE - 1u)
#define ECS__NO_ROW 0xffffffffu
#define ECS__ABSENT (~(uint64_t)0)                  /* a sparse entry with no row */
#define ECS__VERSION_BITS 0xffffffff00000000u       /* an entity's version, in place */
#define ECS__DEAD 0x80000000u                       /* versions[i]: the slot is free */
/* a retired slot's next version: one past ECS_VERSION_MAX, which no id has */
#define ECS__RETIRED (((uint32_t)ECS_VERSION_MAX + 1u) & ~ECS__DEAD)
#define ECS__CHANGE_RING 8                          /* row changes a view can check at once */
#define ECS__MOVED(w) ((w)->epoch += 2u)              /* rows or arrays moved (world->epoch) */
#define ECS__NAME_IN_MSG 64 /* names in an error message are cut there */
#define ECS__MSG_MAX 576    /* the longest error message, names cut, the caller's place, and more */

/* A list of changes in tick order; for deletions, with a copy of each value. */
typedef struct ecs__changes {
    ecs_change *items;
    unsigned char *values;
    uint32_t count, cap;
    uint32_t reserved;  /* entries promised to a strip in progress */
} ecs__changes;

/* What is attached to a storage's insert and remove paths (section 5):
   one of them (a kind, ECS__ON_*, and its argument: the group...), and
   what its storage's paths carry. */
typedef struct ecs__listener {
    uint32_t kind, arg;
} ecs__listener;
#define ECS__PATH_INSERT 1u   /* something on the insert path */
#define ECS__PATH_REMOVE 2u   /* ...on the remove path */
#define ECS__PATH_OBSERVED 4u /* a removal can fail (a record's room) or call back (on_remove) */
#define ECS__PATH_SETTLED 8u  /* a step once a bundle is in (on_insert) */
#define ECS__PATH_RESERVE 16u /* a reservation before a removal (a record's room) */
#define ECS__PATH_REMOVED 32u /* a step after a removal (groups that exclude it) */
#define ECS__PATH_REMOVING 64u /* a step before a removal but the record (on_remove, groups that own it) */

struct ecs_storage {
    /* Rows, written only by the storage primitives (section 5). The sparse
       entry of entity index i, pages[i >> ECS__PAGE_BITS][i & mask], is
       (version << 32) | row for the entity that has a row, else
       ECS__ABSENT. Every storage has world->npages page pointers, covering
       every slot; a page without entities is the world's shared absent
       page. Rows 0..count-1 are packed: dense[row] is the entity, its
       value is at data + row * size (a tag's data is its tag_dummy byte:
       every row's value, not NULL, not to be read), and inserted[row] /
       modified[row] are its tracking ticks (arrays present only when
       tracked). */
    uintptr_t *pages;      /* page addresses, biased (ECS__PAGE) */
    uint32_t npages;       /* = world->npages (kept here: one load less per lookup) */
    ecs_entity *dense;
    unsigned char *data;
    ecs_tick *inserted, *modified;
    uint32_t count, cap;
    /* Every change of rows other than an append (a swap-remove, a swap, a
       sort) counts in `changes` and leaves the lowest row it touched in
       changed_rows[changes % ECS__CHANGE_RING], with the entity that was
       there in changed_ents (for ecs_iter_entity); changed_by names the call.
       Views use them to know two storages are still in step, and under
       ECS_DEBUG to tell a harmless change (at or above the walk) from one
       that would skip or repeat entities. */
    uint64_t changes;
    uint32_t changed_rows[ECS__CHANGE_RING];
    ecs_entity changed_ents[ECS__CHANGE_RING]; /* the entity that was at that row */
    const char *changed_by;
    /* what it stores */
    ecs_component id;
    uint32_t size, align;
    char *name;
    bool typed;            /* registered by ECS_COMPONENT: name is a C type's */
    ecs_print_fn print;    /* ecs_component_print_set's, or NULL */
    ecs_world *world;
    char tag_dummy;        /* what get and add return for a tag: non-NULL, not to be read */
    /* what is attached to its insert and remove paths, in rank order;
       paths (ECS__PATH_*) says what they carry: with anything on a path,
       that path takes its out-of-line form (the tick arrays are the
       primitives' own: not an attachment) */
    ecs__listener *listen;
    uint32_t nlisten, listen_cap, paths;
    uint32_t locked;       /* > 0 while one of its hooks, or a sort of it, runs */
    struct ecs__index *index; /* its indexes (section 14), a list: the modified step tells them */
    uint32_t query;        /* a cached query's tag: the query (section 14), else 0 */
    /* tracking (section 11) */
    uint32_t track;
    ecs_tick clear_inserted, clear_modified;
    ecs__changes removed, deleted;
    /* hooks (section 12) */
    ecs_hooks hooks;
    uint32_t hooking;      /* > 0 while one of its hooks runs (a replace then runs no on_replace) */
    /* how it is saved (section 17) */
    ecs_serial serial;
    /* the unique value, if any (section 10) */
    void *unique;
    ecs_tick unique_inserted, unique_modified;
};

/* Storages a and b (component ids) held the same entities in rows 0..n-1
   when their change counts were ca, cb (low, high words); seq makes an
   entry a seqlock (section 7: the in-step memo). */
typedef struct ecs__instep {
    uint32_t seq, a, b, ca[2], cb[2], n;
} ecs__instep;
#define ECS__INSTEP 8

/* A name index (components, systems, workloads): open addressing over
   item numbers + 1 (0: empty); the names live with the items. */
typedef struct ecs__names {
    uint32_t *slot;
    uint32_t cap, n;
} ecs__names;

struct ecs_world {
    ecs_storage **storages;   /* storages[c] for c in 1..ncomponents; [0] is &ecs__none */
    uint32_t ncomponents, storages_cap;
    uint32_t npages;          /* sparse pages per storage: they cover every slot */
    uint64_t *absent_page;    /* the page of ECS__ABSENT entries empty pages point at */
    /* entity slots: versions[i] is the version of the live entity in slot i,
       or ECS__DEAD | the version its next entity will get (ECS__RETIRED:
       none, the slot retired). */
    uint32_t *versions;
    uint32_t nslots, slots_cap, max_slots, alive;
    uint32_t *freeq;          /* FIFO ring of free slots */
    uint32_t fq_head, fq_len, fq_cap;
    uint32_t epoch;           /* += 2 by every change that moves rows or arrays (ECS__MOVED): views re-check */
    uint32_t guard;           /* > 0 while a hook, strip or sort runs: the inline paths stand aside */
    uint32_t nobserved;       /* storages whose removals record or call back (strip needs none for one pass) */
    ecs_allocator alloc;
    ecs_tick tick;            /* tracking time; changes are stamped with it */
    ecs__changes created, destroyed;
    bool track_entities;
    struct ecs__busy *busy;   /* entities in a hook or being stripped (a stack) */
    struct ecs__marks *marks; /* bundles whose hooks are running, innermost first (ecs__insert) */
    ecs__names names;         /* name -> component */
    unsigned char *cmds;      /* command buffer: records of ecs__cmd + value */
    uint32_t cmds_head, cmds_len, cmds_cap;
    ecs__instep instep[ECS__INSTEP]; /* pairs of storages known to be in step (ecs__in_step) */
    uint32_t instep_next;
    struct ecs__index **indexes; /* indexes[ix - 1], NULL when freed */
    uint32_t nindexes, indexes_cap, index_frees; /* index_frees: ecs_index_free calls (walks check it) */
    struct ecs__query *queries; /* cached queries (section 14) */
    uint32_t nqueries, queries_cap, query_update; /* > 0: the world is changing a query's tag */
    struct ecs__group *groups; /* groups[g - 1] */
    uint32_t ngroups, groups_cap;
    ecs__names systems, workloads; /* name -> index in sys[] / wl[] */
    struct ecs__system *sys;
    uint32_t nsys, sys_cap;
    struct ecs__workload *wl;
    uint32_t nwl, wl_cap, default_wl;
    const char *failed_system;
    bool running;             /* a workload or schedule is running */
    bool clock_locked;        /* systems run together, or a schedule runs: the clock stays */
    bool batch_locked;        /* the systems of a batch of several run: nothing structural */
    bool parallel;            /* systems (or reducers) are running at once: views leave indexes alone */
    struct ecs__phase *phases; /* phases and schedules (section 16) */
    uint32_t nphases, phases_cap;
    struct ecs__schedule *scheds;
    uint32_t nscheds, scheds_cap;
    const struct ecs__phase *in_phase; /* while a phase's systems run: the world is locked */
    ecs_tick step_since;      /* the tick before the last schedule step began */
    ecs_parallel_fn parallel_for;
    void *parallel_user;
    ecs_error err;
    char err_msg[ECS__MSG_MAX];
};

/* What a lookup of an unknown component or through a NULL storage handle
   looks in: a storage with no pages, where nothing is found. Lookups read
   every field they need from it before their first branch, so a loop of
   gets keeps them in registers. It is never written; it is not const only
   so that compilers do not fold its fields into a branch on the handle. */
#ifdef __cplusplus
#define ECS__ZERO {} /* a zeroed aggregate, in each language's spelling */
#else
#define ECS__ZERO {0}
#endif
#ifdef ECS_STATIC
#if defined(__GNUC__) || defined(__clang__)
__attribute__((unused))
#endif
static const ecs_storage ecs__none = ECS__ZERO;
#else
ECS_API ecs_storage ecs__none;
#endif

/* --- inline: 4. entities -------------------------------------------------- */
ECS__INLINE bool ecs_alive(const ecs_world *w, ecs_entity e) {
    uint32_t i = (uint32_t)e, v = (uint32_t)(e >> 32);
    return i < w->nslots && w->versions[i] == v && v < ECS__DEAD;
}

/* Hands out the next slot: the head of the free queue, else a fresh one.
   Room must be reserved. */
ECS__HOT ecs_entity ecs__take_slot(ecs_world *w) {
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
    return ((ecs_entity)w->versions[i] << 32) | i;
}

/* A slot is at hand: inline; otherwise ecs__create grows (or fails). */
ECS__HOT ecs_entity ecs_create(ecs_world *w) {
    if ((w->fq_len || (w->nslots < w->slots_cap && w->nslots < w->max_slots)) && !w->track_entities && !w->guard)
        return ecs__take_slot(w);
    return ecs__create(w);
}

/* --- inline: 5. storage primitives and lookups ---------------------------- */
/* The sparse entry of entity index i; i must be below npages * ECS__PAGE_SIZE,
   which every live entity's index is. */
#define ECS__ENTRY_IN(pages, i) ((uint64_t *)((pages)[(i) >> ECS__PAGE_BITS] + (uintptr_t)(i) * sizeof(uint64_t)))
#define ECS__ENTRY_AT(s, i) ECS__ENTRY_IN((s)->pages, i)
#define ECS__ENTRY(s, i) (*ECS__ENTRY_AT(s, i))
/* pages[p] holds page p's address biased by p's first index, so that the
   entry of index i is at pages[i >> ECS__PAGE_BITS] + i * 8 with no mask
   (integer arithmetic: the biased value is not a pointer). */
#define ECS__PAGE_BIAS(p) ((uintptr_t)(p) * ECS__PAGE_SIZE * sizeof(uint64_t))
#define ECS__PAGE(s, p) ((uint64_t *)((s)->pages[p] + ECS__PAGE_BIAS(p)))

/* Row of any 64-bit value e in s, or ECS__NO_ROW. The entry holds the
   version of the entity that has the row, so a stale, forged or null e
   never matches, with no look at the slot table; an absent entry's row
   bits (all ones) fail the test whatever the version. */
ECS__HOT uint32_t ecs__row(const ecs_storage *s, ecs_entity e) {
    const uintptr_t *pages = s->pages;
    uint32_t i = (uint32_t)e;
    uint64_t x;
    if ((i >> ECS__PAGE_BITS) >= s->npages) return ECS__NO_ROW;
    x = *(const uint64_t *)(pages[i >> ECS__PAGE_BITS] + (uintptr_t)i * sizeof(uint64_t)) ^ (e & ECS__VERSION_BITS);
    return x < ECS__NO_ROW ? (uint32_t)x : ECS__NO_ROW;
}

/* The modified step: rows row..row+n-1 of s were written (get_mut, a
   written view term, ECS_EACH as it reaches an entity, add over a value,
   add_if_changed, flush's adds, ecs_track_mark_modified), or with row
   ECS__NO_ROW, s's unique value (unique_add over one, unique_get_mut).
   Every way of marking a value modified goes through here; with
   modification tracking off (no modified[] array) rows are not stamped.
   (Load restores the ticks a snapshot holds: it marks nothing.) */
ECS__HOT void ecs__modified(ecs_storage *s, uint32_t row, uint32_t n, bool handed) {
    ecs_tick *m = s->modified;
    if (ECS__UNLIKELY(row == ECS__NO_ROW)) {
        s->unique_modified = s->world->tick;
    } else if (m) {
        ecs_tick now = s->world->tick;
        if (ECS__UNLIKELY(s->index != NULL)) ecs__index_touch(s, row, n, handed); /* (an indexed storage is tracked) */
        while (n--) m[row++] = now;
    }
}

/* The value at `row`, given s's base (values of `size` bytes); mut: the
   caller may write, so the row counts as modified (tracking). Never NULL,
   which gcc and clang are told, so a caller's test of the result folds
   into the lookup's own. */
ECS__HOT void *ecs__value_at(const ecs_storage *s, uintptr_t base, uint32_t row, size_t size, bool mut) {
    void *v = (void *)(base + (uintptr_t)row * size);
    if (mut) ecs__modified((ecs_storage *)(uintptr_t)s, row, 1, true); /* (a get_mut: s is the caller's to change) */
#if defined(__GNUC__) || defined(__clang__)
    if (!v) __builtin_unreachable();
#endif
    return v;
}

/* Storage primitive: appends e (alive, not in s) as the last row. Room and
   e's page must be reserved; the value is the caller's to write. */
ECS__HOT uint32_t ecs__push_at(ecs_world *w, ecs_storage *s, ecs_entity e, uint64_t *entry) {
    uint32_t row = s->count++;
    s->dense[row] = e;
    *entry = (e & ECS__VERSION_BITS) | row;
    if (s->track & (ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION)) { /* the tick arrays exist */
        if (s->inserted) s->inserted[row] = w->tick; /* inserted, not modified */
        if (s->modified) s->modified[row] = 0;
    }
    /* no ECS__MOVED: an appended row moves nothing a view holds */
    return row;
}
ECS__HOT uint32_t ecs__push(ecs_world *w, ecs_storage *s, ecs_entity e) {
    return ecs__push_at(w, s, e, ECS__ENTRY_AT(s, (uint32_t)e));
}

/* Copying component values: the sizes to 16 bytes are a jump table whose
   cases are plain moves of a constant size, not a call into libc or a
   chain of compares. Where a row is one side, its address is computed in
   the case too (row * n with n constant: an addressing mode, not a
   multiply), and size 0 (a tag: no data) copies nothing. */
#define ECS__SMALL_SIZES(X) \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define ECS__COPY_CASE(n) \
    case n: memcpy(dst, src, n); break;
ECS__HOT void ecs__copy(void *dst, const void *src, uint32_t size) {
    switch (size) {
    ECS__SMALL_SIZES(ECS__COPY_CASE)
    default: memcpy(dst, src, size); break;
    }
}
/* Row src of data over row dst. */
#define ECS__ROWS_CASE(n) \
    case n: memcpy(data + (size_t)dst * n, data + (size_t)src * n, n); break;
ECS__HOT void ecs__copy_rows(unsigned char *data, uint32_t size, uint32_t dst, uint32_t src) {
    switch (size) {
    case 0: break;
    ECS__SMALL_SIZES(ECS__ROWS_CASE)
    default: memcpy(data + (size_t)dst * size, data + (size_t)src * size, size); break;
    }
}
/* A value into row `row` of data. */
#define ECS__IN_CASE(n) \
    case n: memcpy(data + (size_t)row * n, src, n); break;
ECS__HOT void ecs__copy_in(unsigned char *data, uint32_t size, uint32_t row, const void *src) {
    switch (size) {
    case 0: break;
    ECS__SMALL_SIZES(ECS__IN_CASE)
    default: memcpy(data + (size_t)row * size, src, size); break;
    }
}

/* Storage primitive: appends e with a copy of *value (NULL: zeroed). */
ECS__HOT uint32_t ecs__push_value(ecs_world *w, ecs_storage *s, ecs_entity e, const void *value) {
    uint32_t row = ecs__push(w, s, e);
    if (value)
        ecs__copy_in(s->data, s->size, row, value);
    else if (s->size)
        memset(s->data + (size_t)row * s->size, 0, s->size);
    return row;
}

/* Storage primitive bookkeeping: every change of rows but an append goes
   through here (the counters of struct ecs_storage), before it moves
   anything; `row` is the lowest row it touches. */
ECS__HOT void ecs__changed(ecs_world *w, ecs_storage *s, uint32_t row, const char *call) {
    s->changed_rows[s->changes % ECS__CHANGE_RING] = row;
    s->changed_ents[s->changes % ECS__CHANGE_RING] = row < s->count ? s->dense[row] : ECS_NULL;
    s->changes++;
    s->changed_by = call;
    ECS__MOVED(w);
}

/* Copies row src over row dst (every row array) and repoints the sparse
   entry of the moved entity. */
ECS__HOT void ecs__move_row(ecs_storage *s, uint32_t dst, uint32_t src) {
    ecs_entity e = s->dense[dst] = s->dense[src];
    ECS__ENTRY(s, (uint32_t)e) = (e & ECS__VERSION_BITS) | dst;
    ecs__copy_rows(s->data, s->size, dst, src);
    if (s->track & (ECS_TRACK_INSERTION | ECS_TRACK_MODIFICATION)) { /* the tick arrays exist */
        if (s->inserted) s->inserted[dst] = s->inserted[src];
        if (s->modified) s->modified[dst] = s->modified[src];
    }
}

/* Storage primitive: swap-remove. Row `row` goes (entry: its sparse
   entry, which the caller found); the last row moves into it. */
ECS__HOT void ecs__pop_at(ecs_world *w, ecs_storage *s, uint32_t row, uint64_t *entry, const char *call) {
    uint32_t last;
    ecs__changed(w, s, row, call);
    last = --s->count;
    *entry = ECS__ABSENT;
    if (row != last) ecs__move_row(s, row, last);
}
ECS__HOT void ecs__pop(ecs_world *w, ecs_storage *s, uint32_t row, const char *call) {
    ecs__pop_at(w, s, row, ECS__ENTRY_AT(s, (uint32_t)s->dense[row]), call);
}

/* c's storage, or the none storage when c is not registered (no branch:
   storages[0] is &ecs__none). */
ECS__HOT const ecs_storage *ecs__storage(const ecs_world *w, ecs_component c) {
    return w->storages[c - 1u < w->ncomponents ? c : 0];
}

/* get and get_mut: size is sizeof(T) for the typed macros (checked
   against the registered size under ECS_DEBUG), (size_t)-1 otherwise. */
ECS__INLINE void *ecs__get(const ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                           size_t size, bool mut) {
    const ecs_storage *s = ecs__storage(w, c);
    uintptr_t base = (uintptr_t)s->data; /* every load from s first: a loop keeps them in registers */
    uint32_t row = ecs__row(s, e);
#if ECS_DEBUG /* release: no call, so a loop of gets keeps s in registers (an unknown c has no rows) */
    if (s == &ecs__none || (size != (size_t)-1 && (size != s->size || !ECS__TYPE_OK(s, call)))) {
        ecs__bad_access(w, call, e, c, size);
        return NULL;
    }
#else
    (void)call;
#endif
    return row == ECS__NO_ROW ? NULL : ecs__value_at(s, base, row, size == (size_t)-1 ? s->size : size, mut);
}

/* The storage of c, a handle for loops that look up many entities of one
   component: ecs_storage_get(s, e) is ecs_get(w, e, c) without the world's
   loads, so a loop can keep s in a register. */
ECS__INLINE const ecs_storage *ecs_storage_of(const ecs_world *w, ecs_component c) {
    const ecs_storage *s = ecs__storage(w, c);
    if (s != &ecs__none) return s;
    ecs__bad_access(w, "ecs_storage_of", ECS_NULL, c, (size_t)-1);
    return NULL;
}
ECS__INLINE ecs_storage *ecs_storage_of_mut(ecs_world *w, ecs_component c) {
    const ecs_storage *s = ecs__storage(w, c);
    if (s != &ecs__none) return (ecs_storage *)s; /* (w is not const: neither is s) */
    ecs__bad_access(w, "ecs_storage_of_mut", ECS_NULL, c, (size_t)-1);
    return NULL;
}

/* No call in the release path: nothing in a loop of gets can write to
   memory, so the compiler keeps s's fields in registers. (A NULL s has
   no world to record an error in; it asserts under ECS_DEBUG.) */
ECS__INLINE void *ecs__storage_get(const ecs_storage *s, const char *call, ecs_entity e, size_t size,
                                   bool mut) {
    const ecs_storage *t = s ? s : &ecs__none;
    uintptr_t base = (uintptr_t)t->data;
    uint32_t row = ecs__row(t, e);
#if ECS_DEBUG
    if (!s || (size != (size_t)-1 && (size != s->size || !ECS__TYPE_OK(s, call)))) {
        ecs__bad_storage(s, call, e, size);
        return NULL;
    }
#else
    (void)call;
#endif
    if (row == ECS__NO_ROW) return NULL; /* always so in the none storage */
    return ecs__value_at(t, base, row, size == (size_t)-1 ? t->size : size, mut);
}
ECS__INLINE const void *ecs_storage_get(const ecs_storage *s, ecs_entity e) {
    return ecs__storage_get(s, "ecs_storage_get", e, (size_t)-1, false);
}
ECS__INLINE void *ecs_storage_get_mut(ecs_storage *s, ecs_entity e) {
    return ecs__storage_get(s, "ecs_storage_get_mut", e, (size_t)-1, true);
}
ECS__INLINE bool ecs_storage_has(const ecs_storage *s, ecs_entity e) {
    if (!s) return ecs__bad_storage(s, "ecs_storage_has", e, (size_t)-1), false;
    return ecs__row(s, e) != ECS__NO_ROW;
}
ECS__INLINE uint32_t ecs_storage_count(const ecs_storage *s) {
    if (!s) return ecs__bad_storage(s, "ecs_storage_count", ECS_NULL, (size_t)-1), 0;
    return s->count;
}
ECS__INLINE const ecs_entity *ecs_storage_entities(const ecs_storage *s) {
    if (!s) return ecs__bad_storage(s, "ecs_storage_entities", ECS_NULL, (size_t)-1), (const ecs_entity *)0;
    return s->dense;
}
ECS__INLINE void *ecs_storage_data(const ecs_storage *s) {
    if (!s) return ecs__bad_storage(s, "ecs_storage_data", ECS_NULL, (size_t)-1), (void *)0;
    return s->size ? s->data : NULL;
}

/* --- inline: 6. component operations ---------------------------------------- */
/* The insert path's inline case (section 5): e alive, c registered (of
   `size` unless -1) and new to e, a value given, nothing attached to the
   storage, no hook or strip running, room and e's page in place. Then the
   copy has a constant size for the typed macros. Anything else, every
   error included, takes the one out-of-line path. */
ECS__HOT void *ecs__add_fast(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                             const void *value, size_t size) {
    uint32_t i = (uint32_t)e, row;
    ecs_storage *s;
    uint64_t *entry;
    if (ECS__TYPE_WRONG(w, call, e, c, size)) return NULL;
    if (c - 1u < w->ncomponents && ecs_alive(w, e) && value && !w->guard) {
        s = w->storages[c];
        if ((size == (size_t)-1 || size == s->size) && !(s->paths & ECS__PATH_INSERT) && s->count < s->cap &&
            ECS__PAGE(s, i >> ECS__PAGE_BITS) != w->absent_page && *(entry = ECS__ENTRY_AT(s, i)) == ECS__ABSENT) {
            row = ecs__push_at(w, s, e, entry);
            memcpy(s->data + (size_t)row * s->size, value, size == (size_t)-1 ? s->size : size);
            return s->data + (size_t)row * s->size;
        }
    }
    return ecs__add_sized(w, call, e, c, value, size);
}

ECS__INLINE void *ecs_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value) {
    return ecs__add_fast(w, "ecs_add", e, c, value, (size_t)-1);
}
ECS__INLINE bool ecs__has(const ecs_world *w, const char *call, ecs_entity e, ecs_component c) {
    const ecs_storage *s = ecs__storage(w, c);
    bool has = ecs__row(s, e) != ECS__NO_ROW;
#if ECS_DEBUG /* release: no call (see ecs__get) */
    if (s == &ecs__none) ecs__bad_access(w, call, e, c, (size_t)-1);
#else
    (void)call;
#endif
    return has;
}
ECS__INLINE bool ecs_has(const ecs_world *w, ecs_entity e, ecs_component c) { return ecs__has(w, "ecs_has", e, c); }
ECS__INLINE const void *ecs_get(const ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__get(w, "ecs_get", e, c, (size_t)-1, false);
}
ECS__INLINE void *ecs_get_mut(ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__get(w, "ecs_get_mut", e, c, (size_t)-1, true);
}

/* The remove path's inline case (section 5): c registered (of `size`
   unless -1), e has it, nothing attached to the storage, no hook, strip
   or sort running. Then the value goes to out and the primitive pops the
   row. Anything else, every error included, takes the out-of-line path. */
ECS__HOT bool ecs__remove_fast(ecs_world *w, const char *call, ecs_entity e, ecs_component c, void *out,
                               size_t size, bool deletion) {
    ecs_storage *s = (ecs_storage *)ecs__storage(w, c);
    uint32_t row = ecs__row(s, e);
    if (ECS__TYPE_WRONG(w, call, e, c, size)) return false;
    if (row != ECS__NO_ROW && !(s->paths & ECS__PATH_REMOVE) && !s->locked && !w->guard &&
        (size == (size_t)-1 || size == s->size)) {
        if (out) memcpy(out, s->data + (size_t)row * s->size, size == (size_t)-1 ? s->size : size);
        ecs__pop(w, s, row, call);
        return true;
    }
    return ecs__take_sized(w, call, e, c, out, size, deletion);
}
ECS__INLINE bool ecs_remove(ecs_world *w, ecs_entity e, ecs_component c, void *out) {
    return ecs__remove_fast(w, "ecs_remove", e, c, out, (size_t)-1, false);
}
ECS__INLINE bool ecs_delete(ecs_world *w, ecs_entity e, ecs_component c) {
    return ecs__remove_fast(w, "ecs_delete", e, c, NULL, (size_t)-1, true);
}

/* A bundle's common case, with no check or reservation left to make: its
   components registered, distinct, new to entity index i (fresh: a free
   slot, which has no component anywhere), nothing attached to their
   storages, room and pages in place, no hook or strip running. The storages go to st[]. Anything else
   takes the general path, which makes every check and reservation. */
ECS__HOT bool ecs__bundle_fast(const ecs_world *w, uint32_t i, uint32_t n, const ecs_component *comps,
                             ecs_storage **st, bool fresh) {
    uint32_t k, j;
    if (w->guard || n > ECS_MAX_TERMS || (n && !comps)) return false;
    for (k = 0; k < n; k++) {
        ecs_storage *s = (ecs_storage *)ecs__storage(w, comps[k]);
        if ((s->paths & ECS__PATH_INSERT) || s->count == s->cap || /* the none storage's: 0 == 0 */
            ECS__PAGE(s, i >> ECS__PAGE_BITS) == w->absent_page || (!fresh && ECS__ENTRY(s, i) != ECS__ABSENT))
            return false;
        for (j = 0; j < k; j++)
            if (st[j] == s) return false;
        st[k] = s;
    }
    return true;
}

/* The bundle's pushes, once per storage (the insert path's primitive step). */
ECS__HOT void ecs__bundle_push(ecs_world *w, ecs_entity e, uint32_t n, ecs_storage *const *st,
                             const void *const *values) {
    uint32_t k;
    for (k = 0; k < n; k++) ecs__push_value(w, st[k], e, values ? values[k] : NULL);
}

/* The index ecs__take_slot hands out next (a slot must be at hand). */
ECS__HOT uint32_t ecs__next_slot(const ecs_world *w) {
    return w->fq_len ? w->freeq[w->fq_head] : w->nslots;
}

/* The bundle paths' inline case: a slot at hand (or e's), the fast bundle;
   anything else, every error included, goes out of line. */
ECS__HOT ecs_entity ecs_create_n(ecs_world *w, uint32_t n, const ecs_component *comps,
                                    const void *const *values) {
    ecs_storage *st[ECS_MAX_TERMS];
    ecs_entity e;
    if ((w->fq_len || (w->nslots < w->slots_cap && w->nslots < w->max_slots)) && !w->track_entities &&
        ecs__bundle_fast(w, ecs__next_slot(w), n, comps, st, true)) {
        e = ecs__take_slot(w);
        ecs__bundle_push(w, e, n, st, values);
        return e;
    }
    return ecs__create_n(w, n, comps, values);
}
ECS__INLINE bool ecs_add_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps,
                           const void *const *values) {
    ecs_storage *st[ECS_MAX_TERMS];
    if (ecs_alive(w, e) && ecs__bundle_fast(w, (uint32_t)e, n, comps, st, false)) {
        ecs__bundle_push(w, e, n, st, values);
        return true;
    }
    return ecs__add_n(w, e, n, comps, values);
}

/* --- inline: 7. views ------------------------------------------------------- */
/* What a probe run asks of a term at a row (ecs__probe.want). Tested
   terms decide whether the row matches: ECS__P_HAS (a required term)
   must be there, ECS__P_NOT (ECS_NOT, or in a union view an ANY term of
   an earlier lead) must not; the bits of want keep the row of a present
   one. Looked-up terms only give their value: ECS__P_MAY (ECS_OPTIONAL,
   a union's later ANY terms), ECS__P_ANY (ECS_ANY: one must be there). */
#define ECS__P_NOT 0u
#define ECS__P_HAS 0xffffffffu
#define ECS__P_MAY 1u
#define ECS__P_ANY 2u


/* The highest entity below x and not below lo of a probe run that
   matches, plus 1; 0 when none is. A tight loop on locals makes the tests
   of s (see ecs__seek); where they pass, the rest runs out of line
   (ecs__iter_rest). Sets the values of the terms it looks up. */
ECS__HOT uint32_t ecs__seek_down(ecs_iter *it, const ecs__seek *s, uint32_t x, uint32_t lo) {
    const ecs_entity *run = s->run;
    const ecs_tick *ticks = s->ticks;
    const uintptr_t *pages = s->pages;
    ecs__off *bias = s->bias;
    ecs_tick since = s->since;
    uint32_t want = s->want, keep = s->keep, rest = s->rest;
    while (x > lo) {
        x--;
        if (ticks && ticks[x] <= since) continue;
        if (pages) {
            uint32_t idx = (uint32_t)run[x], row = (uint32_t)*ECS__ENTRY_IN(pages, idx); /* alive: no bounds check */
            if ((row != ECS__NO_ROW) != want) continue;
            *bias = (ecs__off)(row & keep) - x;
        }
        if (!rest || ecs__iter_rest(it, x)) return x + 1;
    }
    return 0;
}

/* The next block: it.count entities, it.entities[0..count), and per term
   an array of values (ECS_BLOCK). False when the view is done. The blocks
   of one entity that follow each other in a run (the matches of a probe
   run; in a per-entity loop, the entities of an aligned run with one
   marked term, marked as each is reached) come from here with no call;
   every other step (an aligned run's block, a new run, a run whose
   pointers moved) from ecs__iter_next, out of line. */
ECS__HOT bool ecs_iter_next_block(ecs_iter *it) {
    uint32_t x = it->first;
    if (x && it->one && it->key == *it->epoch) {
        if (!it->probing) {
            --x;
            ecs__modified(it->mark1, (uint32_t)(it->mbias + x), 1, true);
        } else if ((x = ecs__seek_down(it, &it->seek, x, 0)) != 0) {
            x--;
            if (it->nmark) it->first = x, it->count = 1, ecs__iter_mark(it);
        } else {
            it->first = 0;
            return ecs__iter_next(it);
        }
        it->first = x;
        it->count = 1;
        it->entities = it->seek.run + x;
#if ECS_DEBUG
        it->cur = it->entities[0];
#endif
        return true;
    }
    return ecs__iter_next(it);
}

/* The per-entity loops walk each block from its last entity down. Under
   ECS_DEBUG each step checks the walk out of line (ecs__iter_step). */
#if ECS_DEBUG
#define ECS__STEP(it) ecs__iter_step(it)
#else
#define ECS__STEP(it) 1
#endif

/* The next matching entity (ecs_iter_entity), false when the view is done:
   the function form of ECS_EACH. */
ECS__HOT bool ecs_iter_next(ecs_iter *it) {
    for (;;) {
        if (it->i > it->first) {
            it->i--;
            if (ECS__STEP(it)) return true;
            continue;
        }
        it->each = 1;
        if (!ecs_iter_next_block(it)) return false;
        it->i = it->first + it->count;
    }
}

/* ECS_EACH's own state, a local of the loop that no call out of line
   sees, so the compiler keeps it in registers: where the walk is in a run
   whose blocks are single entities (x, the entities still to come; key,
   the epoch they are good for), so that the next one is found with no
   call and no store a block loop needs (count stays 1, entities is not
   set: ecs_iter_entity reads the lead). more steers the two loops. */
typedef struct ecs__each {
    const uint32_t *epoch;
    uint32_t x, key;
    int more;
    /* a probe run whose one test is a term's presence (want 1, its value
       at *bias) or absence (want 0): its lead entities and the term's pages */
    const ecs_entity *run;
    const uintptr_t *pages, *pages2; /* pages2: a second tested term's (NULL: none) */
    ecs__off *bias, *bias2;
    uint32_t want, want2; /* ECS__P_HAS (present) or ECS__P_NOT (absent) */
    ecs_storage *mark1; /* an aligned run's one marked term (ecs_iter.mark1) */
    ecs__off mbias;
} ecs__each;

/* The tight loop of such a run: the highest entity below x whose row in
   pages is there (want) or not, and in pages2 (when there is a second
   test) too, plus 1, its rows in *row and *row2; 0 when none. */
ECS__HOT uint32_t ecs__probe_down(const ecs__each *e, uint32_t x, uint32_t *row, uint32_t *row2) {
    while (x--) {
        uint32_t i = (uint32_t)e->run[x], r = (uint32_t)*ECS__ENTRY_IN(e->pages, i), r2 = 0; /* alive: no bounds check */
        if ((r != ECS__NO_ROW) != (e->want != 0)) continue;
        if (e->pages2 && ((r2 = (uint32_t)*ECS__ENTRY_IN(e->pages2, i)) != ECS__NO_ROW) != (e->want2 != 0)) continue;
        return *row = r, *row2 = r2, x + 1;
    }
    return 0;
}
ECS__HOT ecs__each ecs__each_begin(ecs_iter *it) {
    ecs__each e;
    memset(&e, 0, sizeof e);
    e.epoch = it->epoch;
    e.more = 1;
    it->each = 1;
    return e;
}

/* ECS_EACH's outer step: the next block of one entity, inline, when that
   is where the walk is (x, key: the entities of the run still to come and
   the epoch they are good for); else the next block out of line
   (ecs__iter_next). */
ECS__HOT bool ecs__each_next(ecs_iter *it, ecs__each *e) {
    uint32_t x = e->x, row = 0;
    if (x && e->key == *e->epoch) {
        if (e->mark1) {
            --x;
            ecs__modified(e->mark1, (uint32_t)(e->mbias + x), 1, true); /* marked as it is reached */
        } else if (e->pages) {
            uint32_t row2 = 0;
            if (!(x = ecs__probe_down(e, x, &row, &row2))) {
                it->first = 0;
                goto next;
            }
            x--;
            *e->bias = (ecs__off)(row & e->want) - x; /* absent (want 0): no value, (bias + x) * size is 0 */
            if (e->pages2) *e->bias2 = (ecs__off)(row2 & e->want2) - x;
        } else if ((x = ecs__seek_down(it, &it->seek, x, 0)) != 0) {
            x--;
            if (it->nmark) it->first = x, it->count = 1, ecs__iter_mark(it);
        } else {
            it->first = 0;
            goto next;
        }
        e->x = it->first = x; /* count is 1 */
#if ECS_DEBUG
        it->cur = it->seek.run[x];
#endif
        return true;
    }
next:
    if (!ecs__iter_next(it)) return false;
    e->x = it->one ? it->first : 0; /* the rest of the run comes one entity at a time: here */
    e->key = it->key;
    e->mark1 = it->probing ? NULL : it->mark1;
    e->mbias = it->mbias;
    e->pages2 = NULL; /* two tests and nothing else: both inline */
    if (it->probing && !it->seek.ticks && !it->nmark && it->ntest == 2 && it->nprobe == 2 &&
        it->nfilter == it->lead_filter && !it->needany && !it->wix) {
        e->pages2 = it->st[it->probe[1].term]->pages;
        e->bias2 = &it->bias[it->probe[1].term];
        e->want2 = it->probe[1].want;
    }
    e->pages = it->probing && !it->seek.ticks && (!it->seek.rest || e->pages2) && !it->nmark ? it->seek.pages : NULL;
    e->run = it->seek.run;
    e->want = it->seek.keep; /* ECS__P_HAS or ECS__P_NOT: a mask of the row */
    e->bias = it->seek.bias;
    return true;
}

#define ECS__CAT2(a, b) a##b
#define ECS__CAT(a, b) ECS__CAT2(a, b)
/* The per-entity loop: ECS_EACH(&it) { ... ECS_FIELD(&it, k, T) ... }.
   The inner loop walks a block from its last entity down with no call;
   the outer one takes the next block (ecs__each_next). ECS_FIELD reads
   the storage's array again, so a field taken after a change in the body
   is right. break and continue work as in any loop (break: more stays 0). */
#define ECS_EACH(it)                                                                          \
    for (ecs__each ECS__CAT(ecs__e_, __LINE__) = ecs__each_begin(it);                         \
         ECS__CAT(ecs__e_, __LINE__).more &&                                                  \
         (ECS__CAT(ecs__e_, __LINE__).more = 0, ecs__each_next((it), &ECS__CAT(ecs__e_, __LINE__)));) \
        for ((it)->i = (it)->first + (it)->count;                                             \
             (it)->i > (it)->first && ((it)->i--, ECS__STEP(it)) ? 1 : (ECS__CAT(ecs__e_, __LINE__).more = 1, 0);)

/* ECS_EACH_VIEW(it, w, desc) { ... ECS_FIELD(&it, k, T) ... }: ECS_EACH
   over ecs_view(w, desc) with the iterator it declared by the loop (its
   scope is the loop). desc may be a compound literal. */
#define ECS_EACH_VIEW(it, w, ...)                                                             \
    for (ecs_iter it = ecs_view((w), __VA_ARGS__), *ECS__CAT(ecs__v_, __LINE__) = &it;      \
         ECS__CAT(ecs__v_, __LINE__); ECS__CAT(ecs__v_, __LINE__) = NULL)                    \
        ECS_EACH(&it)

/* The current entity of a per-entity loop: read from the lead's row, so
   it stays right when a change in the body moved the arrays; when the
   body took the entity out of the lead (destroyed it), the storage's
   record of that change names it (ecs__iter_entity). */
ECS__INLINE ecs_entity ecs_iter_entity(const ecs_iter *it) {
    const ecs_storage *s = it->lead;
    uint32_t row = it->lo + it->i;
    return ECS__LIKELY(s->changes == it->changes) ? s->dense[row] : ecs__iter_entity(it, row);
}

/* Term k's value for entity x of the run: fst[k]'s data + (bias[k] + x) *
   size, where size is sizeof(T) for the typed macros (checked under
   ECS_DEBUG). ECS_FIELD takes x = the current entity, ECS_BLOCK the
   block's first. */
ECS__INLINE void *ecs__field(const ecs_iter *it, const char *call, uint32_t k, size_t size, bool block) {
#if ECS_DEBUG
    if (!it || k >= it->nterms || !it->each != block ||
        (size != (size_t)-1 && (size != it->st[k]->size || !ECS__TYPE_OK(it->st[k], call)))) {
        ecs__bad_field(it, call, k, size, block);
        return NULL;
    }
    if (it->flags[k] & ECS_NOT) return NULL;
#else
    (void)call;
#endif
    if (size == (size_t)-1) size = it->fst[k]->size; /* untyped: a term with no value stays NULL */
    return (void *)((uintptr_t)it->fst[k]->data + it->bias[k] * size + (uintptr_t)(block ? it->first : it->i) * size);
}
ECS__INLINE void *ecs_field(const ecs_iter *it, uint32_t k) {
    return ecs__field(it, "ecs_field", k, (size_t)-1, false);
}
ECS__INLINE void *ecs_block(const ecs_iter *it, uint32_t k) { return ecs__field(it, "ecs_block", k, (size_t)-1, true); }

/* --- typed macros ------------------------------------------------------ */
#define ECS__STR2(x) #x
#define ECS__STR(x) ECS__STR2(x)
/* (T is spelled by the typed macro itself, #T, as ECS_COMPONENT spells
   it: a T that is a macro is compared as written, not as it expands) */
#if ECS_DEBUG
#define ECS__AT(name, Tname) ("\1" name "\0" Tname "\0" __FILE__ ":" ECS__STR(__LINE__))
#else
#define ECS__AT(name, Tname) name
#endif
#if ECS_DEBUG
#define ECS__SIZE(T) sizeof(T)
#else
#define ECS__SIZE(T) ((size_t)-1)
#endif

/* The pointer-returning macros pass sizeof(T): rows are found with it, and
   it is checked against the registered size under ECS_DEBUG. */
#define ECS_GET(w, e, c, T) ((const T *)ecs__get((w), ECS__AT("ECS_GET", #T), (e), (c), sizeof(T), false))
#define ECS_GET_MUT(w, e, c, T) ((T *)ecs__get((w), ECS__AT("ECS_GET_MUT", #T), (e), (c), sizeof(T), true))
#define ECS_STORAGE_GET(s, e, T)                                                                             \
    ((const T *)ecs__storage_get((s), ECS__AT("ECS_STORAGE_GET", #T), (e), sizeof(T), false))
/* (the unevaluated assignment refuses a const handle, as ecs_storage_get_mut does) */
#define ECS_STORAGE_GET_MUT(s, e, T)                                                                         \
    ((T *)ecs__storage_get((s), ECS__AT("ECS_STORAGE_GET_MUT", #T), (e),                                     \
                           sizeof(T) + 0 * sizeof(*(ecs_storage **)0 = (s)), true))
/* (1 ? p : (T *)0) type-checks p as a T pointer without casting it away */
#define ECS_REMOVE(w, e, c, T, out)                                                                          \
    ecs__remove_fast((w), ECS__AT("ECS_REMOVE", #T), (e), (c), (1 ? (out) : (T *)0), sizeof(T), false)
/* ECS__VALUE(T, init): the address of a T made from init, which is a braced
   initializer ({1, 2}) or any expression of type T (a variable, f(x), 5).
   C: a one-element array literal, whose element may be initialized by
   either. C++: a reference to a temporary that lives until the end of the
   full expression. */
#ifdef __cplusplus
#define ECS__VALUE(T, ...) (&ecs__lvalue<T>(__VA_ARGS__))
#else
#define ECS__VALUE(T, ...) ((T[1]){__VA_ARGS__})
#endif
#define ECS_ADD(w, e, c, T, ...)                                                                             \
    ((T *)ecs__add_fast((w), ECS__AT("ECS_ADD", #T), (e), (c), ECS__VALUE(T, __VA_ARGS__), sizeof(T)))
#define ECS_FIELD(it, k, T) ((T *)ecs__field((it), ECS__AT("ECS_FIELD", #T), (k), sizeof(T), false))
#define ECS_BLOCK(it, k, T) ((T *)ecs__field((it), ECS__AT("ECS_BLOCK", #T), (k), sizeof(T), true))
#define ECS_UNIQUE_GET(w, c, T)                                                                              \
    ((const T *)ecs__unique_get((w), ECS__AT("ECS_UNIQUE_GET", #T), (c), ECS__SIZE(T), false))
#define ECS_UNIQUE_GET_MUT(w, c, T)                                                                          \
    ((T *)ecs__unique_get((w), ECS__AT("ECS_UNIQUE_GET_MUT", #T), (c), ECS__SIZE(T), true))
#define ECS_UNIQUE_ADD(w, c, T, ...)                                                                         \
    ((T *)ecs__unique_add_sized((w), ECS__AT("ECS_UNIQUE_ADD", #T), (c), ECS__VALUE(T, __VA_ARGS__), sizeof(T)))
#define ECS_UNIQUE_REMOVE(w, c, T, out)                                                                      \
    ecs__unique_remove_sized((w), ECS__AT("ECS_UNIQUE_REMOVE", #T), (c), (1 ? (out) : (T *)0), sizeof(T))
#define ECS_ADD_IF_CHANGED(w, e, c, T, ...)                                                                  \
    ecs__add_if_changed_sized((w), ECS__AT("ECS_ADD_IF_CHANGED", #T), (e), (c), ECS__VALUE(T, __VA_ARGS__),      \
                              sizeof(T))
#define ECS_DEFER_ADD(w, e, c, T, ...)                                                                       \
    ecs__defer_add_sized((w), ECS__AT("ECS_DEFER_ADD", #T), (e), (c), ECS__VALUE(T, __VA_ARGS__), sizeof(T))
#define ECS_PROPOSE_SET(p, e, c, T, ...) ecs__propose_sized((p), (e), (c), ECS__VALUE(T, __VA_ARGS__), sizeof(T))
#define ECS_INDEX_FIND(w, ix, T, key, out, cap)                                                              \
    ecs__index_find((w), ECS__AT("ECS_INDEX_FIND", #T), (ix), ECS__VALUE(T, key), sizeof(T), (out), (cap))

/* ECS_CALLER_PLACE, under ECS_DEBUG, in C: the inline calls that can
   assert are also macros that mask the functions (as the C library may
   mask its own, C99 7.1.4), so that their messages end with the caller's
   place as the typed macros' do (no type: T is ""). Each argument is
   evaluated once, as by the function; (ecs_get)(w, e, c), &ecs_get and
   #undef ecs_get give the function. The unevaluated assignments refuse a
   const world or handle where the function takes a mutable one. Opt-in:
   the API has no lower-case function-like macros otherwise. Not in C++,
   where a macro would break ::ecs_get. */
#if ECS_DEBUG && defined(ECS_CALLER_PLACE) && !defined(__cplusplus)
#define ECS__MUT(p, T) (0 * sizeof(*(T **)0 = (p)))
/* (value is variadic: a compound literal's commas stay in it) */
#define ecs_add(w, e, c, ...) ecs__add_fast((w), ECS__AT("ecs_add", ""), (e), (c), (__VA_ARGS__), (size_t)-1)
#define ecs_has(w, e, c) ecs__has((w), ECS__AT("ecs_has", ""), (e), (c))
#define ecs_get(w, e, c) ((const void *)ecs__get((w), ECS__AT("ecs_get", ""), (e), (c), (size_t)-1, false))
#define ecs_get_mut(w, e, c)                                                                                 \
    ecs__get((w), ECS__AT("ecs_get_mut", ""), (e), (c), (size_t)-1 + ECS__MUT(w, ecs_world), true)
#define ecs_remove(w, e, c, ...)                                                                             \
    ecs__remove_fast((w), ECS__AT("ecs_remove", ""), (e), (c), (__VA_ARGS__), (size_t)-1, false)
#define ecs_delete(w, e, c) ecs__remove_fast((w), ECS__AT("ecs_delete", ""), (e), (c), NULL, (size_t)-1, true)
#define ecs_storage_get(s, e) ((const void *)ecs__storage_get((s), ECS__AT("ecs_storage_get", ""), (e), (size_t)-1, false))
#define ecs_storage_get_mut(s, e)                                                                            \
    ecs__storage_get((s), ECS__AT("ecs_storage_get_mut", ""), (e), (size_t)-1 + ECS__MUT(s, ecs_storage), true)
#define ecs_field(it, k) ecs__field((it), ECS__AT("ecs_field", ""), (k), (size_t)-1, false)
#define ecs_block(it, k) ecs__field((it), ECS__AT("ecs_block", ""), (k), (size_t)-1, true)
#endif

#ifdef __cplusplus
} /* extern "C" */
/* C++ has no compound literals; this gives a braced temporary an address
   that lives until the end of the full expression. */
template <typename T> static inline const T &ecs__lvalue(const T &v) { return v; }
#endif

#endif /* ECS_H */

#ifdef ECS_IMPLEMENTATION
#ifndef ECS_IMPLEMENTATION_ONCE
#define ECS_IMPLEMENTATION_ONCE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ECS_STB_DS_INCLUDE
#define ECS_STB_DS_INCLUDE "stb_ds.h"
#endif
/* Not on the include path: say what to do, where the compiler can tell. */
#ifdef __has_include
#if !__has_include(ECS_STB_DS_INCLUDE)
#error "ecs.h needs stb_ds.h: apt-get install libstb-dev, compile with $(pkg-config --cflags stb) (-I/usr/include/stb), or #define ECS_STB_DS_INCLUDE \"path/stb_ds.h\""
#endif
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
/* hot helpers of the implementation itself */
#if defined(__GNUC__) || defined(__clang__)
#define ECS__IMPL_HOT static inline __attribute__((always_inline))
#else
#define ECS__IMPL_HOT static inline
#endif

#if defined(ECS_MALLOC) != defined(ECS_FREE)
#error "ecs.h: define both ECS_MALLOC and ECS_FREE, or neither"
#endif
#if defined(ECS_REALLOC) && !defined(ECS_MALLOC)
#error "ecs.h: ECS_REALLOC goes with ECS_MALLOC and ECS_FREE"
#endif
#ifndef ECS_MALLOC
#define ECS_MALLOC(size, ctx) ((void)(ctx), malloc(size))
#define ECS_FREE(p, size, ctx) ((void)(ctx), (void)(size), free(p))
#define ECS_REALLOC(p, old_size, size, ctx) ((void)(ctx), (void)(old_size), realloc((p), (size)))
#endif

/* ------------------------------------------------------------------------- */
/* Memory and errors                                                         */
/* ------------------------------------------------------------------------- */

static void *ecs__default_alloc(size_t size, void *ctx) { return ECS_MALLOC(size, ctx); }
static void ecs__default_free(void *p, size_t size, void *ctx) { ECS_FREE(p, size, ctx); }
static void *ecs__default_realloc(void *p, size_t old_size, size_t size, void *ctx) {
    return ECS_REALLOC(p, old_size, size, ctx);
}

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

/* A block of n elems holding the first `used` of old (of old_size bytes),
   which is freed; NULL (old untouched) on failure. With a realloc hook the
   block may grow in place. */
static void *ecs__resize(ecs_world *w, void *old, size_t old_size, uint32_t n, size_t elem,
                         uint32_t used) {
    void *p;
    if (elem && (size_t)n > (size_t)-1 / elem) return NULL;
    if (old && w->alloc.realloc) return w->alloc.realloc(old, old_size, (size_t)n * elem, w->alloc.ctx);
    if (!(p = ecs__alloc(w, (size_t)n * elem))) return NULL;
    if (used) memcpy(p, old, (size_t)used * elem);
    ecs__free(w, old, old_size);
    return p;
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
    if (!(p = ecs__resize(w, *arr, (size_t)*cap * elem, ncap, elem, used))) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

/* Name indexes. Memory from the world's allocator; a lookup writes
   nothing, so threads may look names up at once. */
enum { ECS__NAMES_COMPONENT, ECS__NAMES_SYSTEM, ECS__NAMES_WORKLOAD };
#define ECS__NOT_FOUND 0xffffffffu
static const char *ecs__name_of(const ecs_world *w, int kind, uint32_t item);

static uint32_t ecs__names_find(const ecs_world *w, const ecs__names *ix, int kind, const char *name) {
    uint32_t m = ix->cap - 1, k;
    if (!ix->cap || !name) return ECS__NOT_FOUND;
    for (k = (uint32_t)stbds_hash_string((char *)name, 0) & m; ix->slot[k]; k = (k + 1) & m)
        if (!strcmp(ecs__name_of(w, kind, ix->slot[k] - 1), name)) return ix->slot[k] - 1;
    return ECS__NOT_FOUND;
}

static void ecs__names_put(ecs__names *ix, const char *name, uint32_t item) { /* room reserved */
    uint32_t m = ix->cap - 1, k;
    for (k = (uint32_t)stbds_hash_string((char *)name, 0) & m; ix->slot[k]; k = (k + 1) & m) {}
    ix->slot[k] = item + 1;
    ix->n++;
}

/* Room for one more name (at most half the slots used); false when out of
   memory, the index unchanged. */
static bool ecs__names_reserve(ecs_world *w, ecs__names *ix, int kind) {
    ecs__names grown;
    uint32_t k;
    if ((uint64_t)ix->n * 2 + 2 <= ix->cap) return true;
    if (ix->cap >= 0x80000000u) return false;
    grown.cap = ix->cap ? ix->cap * 2 : 16;
    grown.n = 0;
    if (!(grown.slot = (uint32_t *)ecs__alloc_n(w, grown.cap, sizeof *grown.slot))) return false;
    memset(grown.slot, 0, (size_t)grown.cap * sizeof *grown.slot);
    for (k = 0; k < ix->cap; k++)
        if (ix->slot[k]) ecs__names_put(&grown, ecs__name_of(w, kind, ix->slot[k] - 1), ix->slot[k] - 1);
    ecs__free(w, ix->slot, (size_t)ix->cap * sizeof *ix->slot);
    *ix = grown;
    return true;
}

static void ecs__names_free(ecs_world *w, ecs__names *ix) {
    ecs__free(w, ix->slot, (size_t)ix->cap * sizeof *ix->slot);
    memset(ix, 0, sizeof *ix);
}

/* Makes room for `extra` more entries in a change list (values of vsize
   bytes each for deletions); both arrays grow, or neither. */
static bool ecs__changes_reserve(ecs_world *w, ecs__changes *l, uint32_t extra, uint32_t vsize) {
    uint64_t need = (uint64_t)l->count + l->reserved + extra;
    uint32_t cap;
    ecs_change *items;
    unsigned char *values = NULL;
    if (need <= l->cap) return true;
    if (need > 0xffffffffu) return false;
    cap = ecs__next_cap(l->cap, (uint32_t)need);
    if (!(items = (ecs_change *)ecs__alloc_n(w, cap, sizeof *items))) return false;
    if (vsize && !(values = (unsigned char *)ecs__alloc_n(w, cap, vsize))) {
        ecs__free(w, items, (size_t)cap * sizeof *items);
        return false;
    }
    if (l->count) {
        memcpy(items, l->items, (size_t)l->count * sizeof *items);
        if (vsize) memcpy(values, l->values, (size_t)l->count * vsize);
    }
    ecs__free(w, l->items, (size_t)l->cap * sizeof *items);
    ecs__free(w, l->values, (size_t)l->cap * vsize);
    l->items = items;
    l->values = values;
    l->cap = cap;
    return true;
}

/* Appends an entry into room reserved before the change began. */
static void ecs__changes_push(ecs__changes *l, ecs_entity e, ecs_tick t, const void *value,
                              uint32_t vsize) {
    l->items[l->count].entity = e;
    l->items[l->count].tick = t;
    if (vsize) memcpy(l->values + (size_t)l->count * vsize, value, vsize);
    l->count++;
}

#ifndef ECS_STATIC
ecs_storage ecs__none = ECS__ZERO;
#endif

ECS__FN void ecs__assert_fail(const char *msg, const char *file, int line) {
    fprintf(stderr, "%s:%d: ecs.h: %s\n", file, line, msg);
    abort();
}

ECS__FN const char *ecs_entity_str(ecs_entity e, char buf[ECS_ENTITY_STR]) {
    if (!buf) {
        ECS_ASSERT(0, "ecs_entity_str: buf is NULL");
        return NULL;
    }
    if (e == ECS_NULL)
        snprintf(buf, ECS_ENTITY_STR, "null");
    else
        snprintf(buf, ECS_ENTITY_STR, "%lu:%lu", (unsigned long)ECS_ENTITY_INDEX(e),
                 (unsigned long)ECS_ENTITY_VERSION(e));
    return buf;
}

/* Every failure a call reports, one row each: its name, the error it
   records (ecs_last_error), whether it is a programmer error (1: it also
   goes through ECS_ASSERT; 0: a runtime condition, such as running out of
   memory, that a program handles by the return value) and its text, a
   printf format whose arguments the reporting call passes. Messages read
   "call(entity I:V, Component): text", naming the entity and the
   component the call was given (a null one only where it is what is
   wrong), or "call: text" when it was given neither, then " (at file:line)" for a typed macro's call under ECS_DEBUG;
   names and places in them are cut at ECS__NAME_IN_MSG characters, so
   that every message fits in world->err_msg whole. The
   catalogue of section 2 lists, per call, the errors of these rows. */
#define ECS__MESSAGES(X)                                                                                  \
    X(NO_WORLD, INVALID, 1, "the world is NULL")                                                         \
    X(NULL_ARG, INVALID, 1, "%s is NULL")                                                                \
    X(NULL_STORAGE, INVALID, 1, "the storage is NULL (ecs_storage_of failed?)")                          \
    X(BAD_ALLOCATOR, INVALID, 1, "desc.allocator needs both alloc and free, or neither")                 \
    X(DEAD, DEAD_ENTITY, 1, "entity is not alive")                                                       \
    X(UNKNOWN, UNKNOWN_COMPONENT, 1, "unknown component")                                                \
    X(SIZE, SIZE_MISMATCH, 1, "sizeof(T) is %lu but the component was registered with %lu")              \
    X(TYPE, SIZE_MISMATCH, 1, "the type is %.64s but the component was registered as %.64s")             \
    X(OOM, OUT_OF_MEMORY, 0, "out of memory")                                                            \
    X(NOT_RECORDED, OUT_OF_MEMORY, 0, "out of memory: %s was not recorded")                              \
    X(NO_SLOT, EXHAUSTED, 0, "no entity slot left")                                                      \
    X(REFUSED, LOCKED, 1, "not allowed while %s runs")                                                   \
    X(LOCKED, LOCKED, 1,                                                                                 \
      "a hook of this storage is running (or a sort of it): defer insertions and removals here "         \
      "(ecs_defer_*); other changes to the storage wait until it returns")                               \
    X(LOCKED_GROUP, LOCKED, 1,                                                                           \
      "a hook or sort of a storage of this component's group is running: changes that join or leave "    \
      "the group must be deferred (ecs_defer_*)")                                                        \
    X(STRIPPED, LOCKED, 1, "the entity is being stripped or destroyed")                                  \
    X(BUSY, LOCKED, 1, "the entity is inside a hook or already being stripped; defer it (ecs_defer_*)")  \
    X(TWICE, INVALID, 1, "component listed twice")                                                       \
    X(TOO_MANY, INVALID, 1, "more than ECS_MAX_TERMS components")                                        \
    X(BUNDLE_N, INVALID, 1, "n is more than the registered components (each at most once)")              \
    X(ID_VERSION, INVALID, 1, "the version must be 1..ECS_VERSION_MAX")                                  \
    X(ID_ALIVE, INVALID, 1, "its slot is alive")                                                         \
    X(ID_USED, INVALID, 1, "the slot's next version is newer: that id was used already")                 \
    X(ID_RETIRED, INVALID, 1, "the slot is retired: its last version was used")                          \
    X(ID_BEYOND, EXHAUSTED, 0, "beyond desc.max_entities")                                               \
    X(ID_FAR, EXHAUSTED, 0, "more than 2^31 free slots below it (the slots below a created id are free)") \
    X(NO_NAME, INVALID, 1, "a component needs a name")                                                   \
    X(BAD_TYPE, INVALID, 1, "%.64s: size %lu / alignment %lu not supported (max alignment %lu)")         \
    X(REREGISTER, INVALID, 1, "already registered with size %lu, align %lu (now %lu, %lu)")              \
    X(PRINT_TAG, INVALID, 1, "a tag has no value to print")                                              \
    X(TERM_FLAGS, INVALID, 1, "invalid combination of term flags")                                       \
    X(TERM_UNTRACKED, INVALID, 1,                                                                        \
      "ECS_INSERTED/ECS_MODIFIED on a storage that does not track it (ecs_track_set)")                   \
    X(LEAD, INVALID, 1, "desc.lead is not a required term")                                              \
    X(NO_LEAD, INVALID, 1, "a view needs a required or ECS_ANY term")                                    \
    X(TOO_MANY_TERMS, INVALID, 1, "more than ECS_MAX_TERMS terms")                                       \
    X(CHUNK_UNION, INVALID, 1, "a union view (no required term) cannot be split")                        \
    X(CHUNK_LATE, INVALID, 1, "needs k < nchunks, before the first step of the walk")                    \
    X(WALK_UNION, INVALID, 1,                                                                            \
      "%s took %.64s from the current entity of a union view, which still has %.64s: the walk over it "  \
      "would visit the entity again; defer the removal")                                                 \
    X(WALK_MANY, INVALID, 1,                                                                             \
      "%s and more made too many changes to storage %.64s under a live view to check (only the current " \
      "entity may be removed); defer them with ecs_defer_* and ecs_flush after the loop")                \
    X(WALK_CHANGED, INVALID, 1,                                                                          \
      "%s changed storage %.64s under a live view (only the current entity may leave it; another's "     \
      "removal, or its joining or leaving a group or query, moves rows): defer it with ecs_defer_* and "  \
      "ecs_flush after the loop")                                                                        \
    X(FIELD_INDEX, INVALID, 1, "field %lu of a view with %lu terms")                                     \
    X(FIELD_IN_BLOCKS, INVALID, 1,                                                                       \
      "a field outside a per-entity loop: in an ecs_iter_next_block loop take ECS_BLOCK")                \
    X(BLOCK_IN_EACH, INVALID, 1, "a block in a per-entity loop: in ECS_EACH or ecs_iter_next take ECS_FIELD") \
    X(OWNED, INVALID, 1, "owned by a group: sort the group (ecs_group_sort)")                            \
    X(NO_UNIQUE, NOT_FOUND, 1, "no unique value (see ecs_unique_add)")                                   \
    X(TRACK_FLAGS, INVALID, 1, "flags %lu are not ECS_TRACK_* bits this call takes (ECS_TRACK_ENTITIES: clears only)")                                         \
    X(UNTRACKED, INVALID, 1, "the storage does not track this (ecs_track_set)")                          \
    X(UNTRACKED_LISTS, INVALID, 1, "the storage tracks neither removal nor deletion (ecs_track_set)")    \
    X(NOT_DELETED, INVALID, 1, "entry is not in the deleted list")                                       \
    X(NO_ENTITY_TRACKING, INVALID, 1, "entity tracking is off (ecs_desc.track_entities)")                \
    X(GROUP_EMPTY, INVALID, 1, "a group owns at least one storage")                                      \
    X(GROUP_OWNED, INVALID, 1, "already owned by another group")                                         \
    X(NO_GROUP, INVALID, 1, "no such group")                                                             \
    X(NOT_OWNED, INVALID, 1, "not a storage this group owns")                                            \
    X(INDEX_KIND, INVALID, 1, "unsupported key: kind %lu and size %lu (ECS_KEY_FLOAT: ordered only)")       \
    X(INDEX_FIELD, INVALID, 1, "the field (offset %lu, size %lu) is not inside the value (%lu bytes; a tag has none)") \
    X(NO_INDEX, INVALID, 1, "no such index")                                                             \
    X(INDEX_KEY, INVALID, 1, "a key of %lu bytes for a field of %lu: not the field's type")               \
    X(INDEX_HASHED, INVALID, 1, "a range needs an ordered index (ecs_index_desc.ordered)")              \
    X(WHERE_FLAGS, INVALID, 1, "range flags %lu: only ECS_RANGE_LO_OPEN and ECS_RANGE_HI_OPEN")        \
    X(QUERY_TERMS, INVALID, 1, "a cached query needs a required term, terms required or ECS_NOT and no query's tag; a tag it takes over has no hooks, groups, tracking or queued commands") \
    X(QUERY_TAG, LOCKED, 1, "a cached query's tag: the world keeps it on the matching entities, nobody else adds or removes it") \
    X(SYSTEM_DESC, INVALID, 1, "a system needs a name and fn (desc->name, desc->fn)")                    \
    X(NAME_TAKEN, INVALID, 1, "the name '%.64s' is already taken")                                               \
    X(WORKLOAD_NAME, INVALID, 1, "a workload needs a name not taken by another workload or system (not '%.64s')")      \
    X(NO_ITEM, NOT_FOUND, 1, "no system or workload named '%.64s'")                                      \
    X(TOO_MANY_STEPS, INVALID, 1, "more than 2^24 steps once nested workloads are expanded")             \
    X(NO_WORKLOAD, NOT_FOUND, 1, "no workload named '%.64s'")                                            \
    X(NO_SYSTEM, NOT_FOUND, 1, "no system named '%.64s'")                                                \
    X(RUNNING, INVALID, 1, "a workload or schedule is already running")                                              \
    X(SYSTEM_FAILED, SYSTEM, 0, "system '%.64s' returned %d")                                            \
    X(PHASE_NAME, INVALID, 1, "a phase or schedule needs a name not taken by another one")               \
    X(NO_PHASE, NOT_FOUND, 1, "no phase named '%.64s'")                                                  \
    X(NO_SCHEDULE, NOT_FOUND, 1, "no schedule named '%.64s'")                                            \
    X(CLAIMED, INVALID, 1, "phase '%.64s': this unique is claimed already by system '%.64s'")              \
    X(CLAIMED_USE, LOCKED, 1, "system '%.64s' of the running phase claims this unique (ctx->exclusive)")  \
    X(IN_PHASE, LOCKED, 1, "a phase's systems are running: they change the world through proposals only") \
    X(IN_BATCH, LOCKED, 1, "systems sharing a batch are running: a system that makes structural changes says so (desc.structural) and runs alone") \
    X(NOT_PROPOSING, LOCKED, 1, "only a phase's system, while it runs, proposes (through its ctx->proposals)") \
    X(PROPOSED_DEAD, DEAD_ENTITY, 1, "phase '%.64s', system '%.64s': proposal for an entity that is not alive") \
    X(PROPOSED_UNKNOWN, UNKNOWN_COMPONENT, 1, "phase '%.64s', system '%.64s': proposal of an unknown component") \
    X(PROPOSED_BAD, INVALID, 1, "phase '%.64s', system '%.64s': %s")                                     \
    X(PROPOSED_OOM, OUT_OF_MEMORY, 0, "phase '%.64s', system '%.64s': out of memory while proposing")     \
    X(PHASE_SYSTEM, SYSTEM, 0, "phase '%.64s': system '%.64s' returned %d")                               \
    X(NO_REDUCER, INVALID, 1,                                                                            \
      "phase '%.64s' (ECS_REDUCER_REQUIRED), proposed by system '%.64s': no reducer for this component")  \
    X(REDUCER_FAILED, SYSTEM, 0, "phase '%.64s', proposed by system '%.64s': the reducer returned %d")     \
    X(INDEX_FREED, INVALID, 1, "an index was freed during a walk with an index term: the walk ends")     \
    X(PHASE_OOM, OUT_OF_MEMORY, 0, "phase '%.64s': out of memory before applying (nothing applied)")       \
    X(PHASE_SLOTS, EXHAUSTED, 0, "phase '%.64s': its spawns need more entity slots than are left (nothing applied)") \
    X(PENDING, INVALID, 1, "commands are pending (the command buffer is not saved): ecs_flush first")    \
    X(SAVE_FAILED, INVALID, 0, "%s (at byte %llu)")                                                      \
    X(SAVE_OOM, OUT_OF_MEMORY, 0, "%s (at byte %llu)")                                                   \
    X(SERIAL_PAIR, INVALID, 1, "save and load come as a pair")                                           \
    X(CALLBACK_CHANGED, INVALID, 1, "a %s callback changed the world")                                   \
    X(LOAD_LIVE, INVALID, 1, "the world has live entities: load into a new or emptied world")            \
    X(NOT_SNAPSHOT, FORMAT, 0, "not a snapshot (no \"ECSHSNAP\" at the start)")                          \
    X(SNAP_SHORT, FORMAT, 0, "damaged snapshot: cut short (%lu bytes, less than a header and a trailer)") \
    X(SNAP_VERSION, FORMAT, 0, "format %lu with values in %s byte order; this ecs.h reads format %u, %s") \
    X(SNAP_SUM, FORMAT, 0, "damaged snapshot: the checksum of its %lu bytes differs (cut short or changed)") \
    X(SNAP_BAD, FORMAT, 0, "damaged snapshot: %s (%s, at byte %lu)")                                     \
    X(SNAP_UNKNOWN, NOT_FOUND, 0, "the snapshot's component \"%.64s\" is not registered")                \
    X(SNAP_SIZE, SIZE_MISMATCH, 0, "saved with size %llu, registered with size %lu")                       \
    X(SNAP_SLOTS, EXHAUSTED, 0, "the snapshot has %lu slots, desc.max_entities allows %lu")              \
    X(SNAP_CALLBACK, INVALID, 0, "its load callback failed")                                             \
    X(SNAP_NO_CALLBACK, INVALID, 0, "saved by a save callback: give it its load callback (ecs_serial_set) first")
enum {
    ECS__M_NONE, /* not a message: 0 means "no failure yet" where one is remembered */
#define ECS__MSG_ID(name, err, fatal, text) ECS__M_##name,
    ECS__MESSAGES(ECS__MSG_ID)
#undef ECS__MSG_ID
    ECS__M_COUNT
};
static const struct ecs__message {
    ecs_error err;
    int fatal;
    const char *text;
} ecs__messages[ECS__M_COUNT] = {
    {ECS_OK, 0, ""},
#define ECS__MSG_ROW(name, err, fatal, text) {ECS_ERR_##err, fatal, text},
    ECS__MESSAGES(ECS__MSG_ROW)
#undef ECS__MSG_ROW
};

/* Records failure msg of call (for entity e and component c, each when
   not 0) in w, whose error it sets; a programmer error also goes through
   ECS_ASSERT with the message. With no world (NULL) there is nowhere to
   record it: only the assert. The message's arguments follow c. */
/* Part i of a call (ECS__AT): 0 its name, 1 its type, 2 the caller's
   place ("" for a plain name). */
static const char *ecs__call_part(const char *call, int i) {
    if (call[0] != '\1') return i ? "" : call;
    for (call++; i > 0; i--) call += strlen(call) + 1;
    return call;
}

static ecs_world ecs__dead_world; /* (the world of a view of no world: ecs__no_world_iter) */
static void ecs__report_v(const ecs_world *cw, int msg, const char *call, ecs_entity e, ecs_component c,
                          const char *text, va_list ap) {
    ecs_world *w = cw == &ecs__dead_world ? NULL : (ecs_world *)cw; /* worlds are never const objects */
    char local[ECS__MSG_MAX], eb[ECS_ENTITY_STR], cb[32], *buf = w ? w->err_msg : local;
    const struct ecs__message *m = &ecs__messages[msg];
    const char *cname = cb;
    int n;
    bool show_e, show_c;
    if (w && c - 1u < w->ncomponents)
        cname = w->storages[c]->name;
    else if (c)
        snprintf(cb, sizeof cb, "component #%lu", (unsigned long)c);
    else
        cname = "no component";
    const char *at = ecs__call_part(call, 2);
    call = ecs__call_part(call, 0);
    /* the entity and the component the call was given; a null one only
       where it is what is wrong (no entity, no component: not named) */
    show_e = e != ECS_NULL || msg == ECS__M_DEAD || msg == ECS__M_PROPOSED_DEAD,
    show_c = c || msg == ECS__M_UNKNOWN || msg == ECS__M_PROPOSED_UNKNOWN;
    if (show_e || show_c)
        n = snprintf(buf, ECS__MSG_MAX, "%s(%s%s%s%.*s): ", call, show_e ? "entity " : "", show_e ? ecs_entity_str(e, eb) : "",
                     show_e && show_c ? ", " : "", ECS__NAME_IN_MSG, show_c ? cname : "");
    else
        n = snprintf(buf, ECS__MSG_MAX, "%s: ", call);
    n += vsnprintf(buf + n, ECS__MSG_MAX - (size_t)n, text, ap);
    if (*at && (size_t)n < ECS__MSG_MAX) /* the caller's place: its file's last characters */
        snprintf(buf + n, ECS__MSG_MAX - (size_t)n, " (at %s)",
                 at + (strlen(at) > ECS__NAME_IN_MSG ? strlen(at) - ECS__NAME_IN_MSG : 0));
    if (w) w->err = m->err;
    if (m->fatal) ECS_ASSERT(0, buf);
    (void)local;
}
static void ecs__report(const ecs_world *w, int msg, const char *call, ecs_entity e, ecs_component c, ...) {
    va_list ap;
    va_start(ap, c);
    ecs__report_v(w, msg, call, e, c, ecs__messages[msg].text, ap);
    va_end(ap);
}
/* ...with the message's text already formatted (ecs_load's, made as it
   reads). */
static void ecs__report_text(const ecs_world *w, int msg, const char *call, ecs_entity e, ecs_component c, ...) {
    va_list ap;
    va_start(ap, c);
    ecs__report_v(w, msg, call, e, c, "%s", ap);
    va_end(ap);
}

/* The checks every call makes, one line each. A NULL world: nothing to
   record the error in, only the assert, and the call's failure value. */
#define ECS__WORLD_IN(w, call, fail)                                  \
    do {                                                              \
        if (!(w)) {                                                   \
            ecs__report(NULL, ECS__M_NO_WORLD, (call), ECS_NULL, 0);  \
            return fail;                                              \
        }                                                             \
    } while (0)
#define ECS__WORLD(w, fail) ECS__WORLD_IN(w, __func__, fail)

/* ...and a view of it that yields nothing: its loops read the epoch of
   this empty world, which nothing writes (a call failing on such a
   view reports as with no world: ecs__report_v). */
static ecs_iter ecs__no_world_iter(void) {
    ecs_iter it;
    memset(&it, 0, sizeof it);
    it.world = &ecs__dead_world;
    it.epoch = &ecs__dead_world.epoch;
    return it;
}
/* What refuses a call that changes the world (ECS__M_REFUSED): the
   innermost of a phase, a hook or sort, a workload or schedule. */
#define ECS__WHAT_RUNS(w) ((w)->in_phase ? "a phase's system or reducer" : (w)->batch_locked ? "a batch of several systems" \
                          : (w)->guard ? "a hook or a sort comparator" \
                                                                        : "a workload or a schedule")

/* An unknown c, or a registered one whose size is not `size` (sizeof(T)
   of a typed macro; (size_t)-1: not checked). */
ECS__FN void ecs__bad_access(const ecs_world *w, const char *call, ecs_entity e, ecs_component c, size_t size) {
    if (c - 1u >= w->ncomponents)
        ecs__report(w, ECS__M_UNKNOWN, call, e, c);
    else if (size == w->storages[c]->size) /* (the size is right: the type is not) */
        ecs__report(w, ECS__M_TYPE, call, e, c, ecs__call_part(call, 1), w->storages[c]->name);
    else
        ecs__report(w, ECS__M_SIZE, call, e, c, (unsigned long)size, (unsigned long)w->storages[c]->size);
}

/* Typed macros under ECS_DEBUG: T is the type ECS_COMPONENT registered as
   s's, or s was registered by name (no type to compare). */
ECS__FN bool ecs__type_ok(const ecs_storage *s, const char *call) {
    const char *t = ecs__call_part(call, 1);
    size_t n = strlen(t);
    if (!s->typed || !n) return true; /* (n 0: an untyped call's place only) */
    if (strncmp(t, "const ", 6) == 0) t += 6, n -= 6; /* const T and T const are T */
    if (n > 6 && strcmp(t + n - 6, " const") == 0) n -= 6;
    return strncmp(t, s->name, n) == 0 && s->name[n] == '\0';
}

/* c's storage, or NULL after reporting an unknown c or a size mismatch. */
ECS__IMPL_HOT ecs_storage *ecs__comp(const ecs_world *w, const char *call, ecs_entity e, ecs_component c, size_t size) {
    if (c - 1u < w->ncomponents && (size == (size_t)-1 || size == w->storages[c]->size)) return w->storages[c];
    ecs__bad_access(w, call, e, c, size);
    return NULL;
}

/* A typed macro's T (under the caller's ECS_DEBUG) is not c's: reported.
   For the typed calls out of line (the inline ones check in the header). */
static bool ecs__type_wrong(const ecs_world *w, const char *call, ecs_entity e, ecs_component c, size_t size) {
    bool wrong = size != (size_t)-1 && c - 1u < w->ncomponents && !ECS__TYPE_OK(w->storages[c], call);
    if (wrong) ecs__bad_access(w, call, e, c, size);
    return wrong;
}

ECS__FN void ecs__bad_storage(const ecs_storage *s, const char *call, ecs_entity e, size_t size) {
    if (!s)
        ecs__report(NULL, ECS__M_NULL_STORAGE, call, ECS_NULL, 0);
    else
        ecs__bad_access(s->world, call, e, s->id, size);
}

ECS__FN ecs_error ecs_last_error(const ecs_world *w) {
    ECS__WORLD(w, ECS_ERR_INVALID);
    return w->err;
}
ECS__FN const char *ecs_last_error_msg(const ecs_world *w) {
    ECS__WORLD(w, "the world is NULL");
    return w->err ? w->err_msg : "";
}
ECS__FN void ecs_clear_error(ecs_world *w) {
    ECS__WORLD(w, );
    w->err = ECS_OK;
    w->err_msg[0] = 0;
}

/* ------------------------------------------------------------------------- */
/* World                                                                     */
/* ------------------------------------------------------------------------- */

/* A group (section Groups): rows 0..len-1 of its owned storages. */
typedef struct ecs__group {
    uint32_t len;
    uint32_t nowned, nexcluded;
    ecs_component *owned, *excluded;
} ecs__group;

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
#ifdef ECS_REALLOC
        d.allocator.realloc = ecs__default_realloc;
#endif
    }
    w = (ecs_world *)d.allocator.alloc(sizeof *w, d.allocator.ctx);
    if (!w) return NULL;
    memset(w, 0, sizeof *w);
    w->alloc = d.allocator;
    w->max_slots = d.max_entities && d.max_entities < 0xfffffffeu ? d.max_entities : 0xfffffffeu;
    w->tick = 2; /* 1 is "before anything happened" (ecs_system_ctx.last_run) */
    w->track_entities = d.track_entities;
    w->parallel_for = d.parallel_for;
    w->parallel_user = d.parallel_user;
    w->default_wl = ECS__NOT_FOUND;
    if (!ecs__grow(w, (void **)&w->storages, &w->storages_cap, 1, 0, sizeof *w->storages)) {
        w->alloc.free(w, sizeof *w, w->alloc.ctx);
        return NULL;
    }
    w->storages[0] = (ecs_storage *)&ecs__none; /* never written: lookups of unknown components */
    return w;
}

static void ecs__changes_free(ecs_world *w, ecs__changes *l, uint32_t vsize) {
    ecs__free(w, l->items, (size_t)l->cap * sizeof *l->items);
    ecs__free(w, l->values, (size_t)l->cap * vsize);
    memset(l, 0, sizeof *l);
}

static void ecs__storage_destroy(ecs_world *w, ecs_storage *s);
static void ecs__systems_free(ecs_world *w);
static void ecs__groups_free(ecs_world *w);
static void ecs__free_entities(ecs_world *w);
static void ecs__indexes_free(ecs_world *w);
static void ecs__indexes_stale(ecs_world *w);

ECS__FN void ecs_world_free(ecs_world *w) {
    uint32_t c;
    if (!w) return;
    if (w->guard || w->running) { /* the caller's caller still uses it */
        ecs__report(w, ECS__M_REFUSED, "ecs_world_free", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return;
    }
    for (c = 1; c <= w->ncomponents; c++) /* on_remove hooks see their values go, as in ecs_destroy */
        if (w->storages[c]->hooks.on_remove && w->storages[c]->count) {
            ecs__free_entities(w);
            break;
        }
    ecs__indexes_free(w);
    for (c = 1; c <= w->ncomponents; c++) ecs__storage_destroy(w, w->storages[c]);
    ecs__free(w, w->storages, (size_t)w->storages_cap * sizeof *w->storages);
    ecs__free(w, w->absent_page, ECS__PAGE_SIZE * sizeof *w->absent_page);
    ecs__free(w, w->versions, (size_t)w->slots_cap * sizeof *w->versions);
    ecs__free(w, w->freeq, (size_t)w->fq_cap * sizeof *w->freeq);
    ecs__free(w, w->cmds, w->cmds_cap);
    ecs__changes_free(w, &w->created, 0);
    ecs__changes_free(w, &w->destroyed, 0);
    ecs__systems_free(w);
    ecs__groups_free(w);
    ecs__names_free(w, &w->names);
    w->alloc.free(w, sizeof *w, w->alloc.ctx);
}

ECS__IMPL_HOT bool ecs__destroy(ecs_world *w, ecs_entity e, const char *call, ecs_storage **room);
/* Room for every record that destroying up to `most` entities makes (each
   storage's deleted list, the destroyed list) and, with more than 32
   components, for ecs__strip's list of an entity's storages (*room), taken
   before the first destroy: out of memory there, nothing is destroyed. */
static bool ecs__destroy_room(ecs_world *w, const char *call, const ecs_storage *of, ecs_storage ***room) {
    uint32_t i, k, n, nc = w->ncomponents, most = of ? of->count : w->alive;
    bool ok = true;
    *room = NULL;
    for (i = 1; ok && i <= nc; i++) {
        ecs_storage *s = w->storages[i];
        if (!(s->track & ECS_TRACK_DELETION)) continue;
        n = of ? 0 : s->count;
        for (k = 0; of && k < of->count; k++) n += ecs__row(s, of->dense[k]) != ECS__NO_ROW; /* (only of's entities go) */
        ok = !n || ecs__changes_reserve(w, &s->deleted, n, s->size); /* (a storage nobody leaves keeps its list) */
    }
    ok = ok && (!w->track_entities || ecs__changes_reserve(w, &w->destroyed, most, 0));
    if (!ok || (nc > 32 && !(*room = (ecs_storage **)ecs__alloc_n(w, nc, sizeof **room))))
        return ecs__report(w, ECS__M_OOM, call, ECS_NULL, 0), false;
    return true;
}

ECS__FN uint32_t ecs_world_clear(ecs_world *w) {
    uint32_t i, n = 0, nc;
    ecs_storage **room; /* ecs__strip's list of an entity's storages, when more than 32 */
    bool ok = true;
    ECS__WORLD(w, 0);
    if (w->guard) {
        ecs__report(w, ECS__M_REFUSED, "ecs_world_clear", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return 0;
    }
    nc = w->ncomponents;
    if (!ecs__destroy_room(w, "ecs_world_clear", NULL, &room)) return 0;
    while (ok && w->alive) { /* hooks may create entities: those go too */
        uint32_t before = n;
        for (i = 0; ok && i < w->nslots; i++)
            if (w->versions[i] < ECS__DEAD && /* (a hook's entities: out of memory, it stops) */
                (ok = ecs__destroy(w, (ecs_entity)w->versions[i] << 32 | i, "ecs_world_clear",
                                   w->ncomponents <= nc ? room : NULL)))
                n++;
        if (n == before) break;
    }
    ecs__free(w, room, (size_t)nc * sizeof *room);
    return n;
}

/* ------------------------------------------------------------------------- */
/* Entities                                                                  */
/* ------------------------------------------------------------------------- */
/* Slot i is alive when versions[i] has no ECS__DEAD bit; the live entity is
   (version << 32 | i). Destroying bumps the version and sets ECS__DEAD, so
   every old id mismatches, and queues the slot at the tail of freeq (a ring
   whose capacity is a power of two). Creation takes the head of freeq, or a
   fresh slot when the queue is empty. Every storage's sparse pages cover
   every slot below slots_cap (ecs__cover), so a live entity's sparse entry
   needs no bounds check. */

ECS__FN uint32_t ecs_count(const ecs_world *w) {
    ECS__WORLD(w, 0);
    return w->alive;
}

/* Makes every storage's page table cover slots 0..slots-1, new pages
   pointing at the absent page. All storages grow, or none. */
/* Every storage's page table grown to cover `slots` slots, in two steps
   so that a load can make them before it knows it will commit: make
   allocates (a table of np entries per storage, and the absent page when
   the world has none yet), install swaps them in and cannot fail, free
   gives back what was not installed. */
typedef struct ecs__tables {
    uintptr_t **fresh; /* [n + 1] */
    uint64_t *absent;
    uint32_t np, n;
} ecs__tables;
static void ecs__tables_free(ecs_world *w, ecs__tables *t) {
    uint32_t c;
    for (c = 1; t->fresh && c <= t->n; c++) ecs__free(w, t->fresh[c], (size_t)t->np * sizeof **t->fresh);
    ecs__free(w, t->fresh, (size_t)(t->n + 1) * sizeof *t->fresh);
    ecs__free(w, t->absent, ECS__PAGE_SIZE * sizeof *t->absent);
    memset(t, 0, sizeof *t);
}
static bool ecs__tables_make(ecs_world *w, uint64_t slots, ecs__tables *t) {
    uint32_t need = (uint32_t)((slots + ECS__PAGE_SIZE - 1) >> ECS__PAGE_BITS), c;
    memset(t, 0, sizeof *t);
    if (need <= w->npages) return true;
    t->np = ecs__next_cap(w->npages, need), t->n = w->ncomponents;
    if (!w->absent_page) {
        if (!(t->absent = (uint64_t *)ecs__alloc_n(w, ECS__PAGE_SIZE, sizeof *t->absent))) return false;
        memset(t->absent, 0xff, ECS__PAGE_SIZE * sizeof *t->absent); /* all ECS__ABSENT */
    }
    if (t->n && !(t->fresh = (uintptr_t **)ecs__alloc_n(w, t->n + 1, sizeof *t->fresh)))
        return ecs__tables_free(w, t), false;
    if (t->n) memset(t->fresh, 0, (size_t)(t->n + 1) * sizeof *t->fresh);
    for (c = 1; c <= t->n; c++)
        if (!(t->fresh[c] = (uintptr_t *)ecs__alloc_n(w, t->np, sizeof **t->fresh)))
            return ecs__tables_free(w, t), false;
    return true;
}
static void ecs__tables_install(ecs_world *w, ecs__tables *t) {
    uint32_t c, p;
    if (!t->np) return;
    if (t->absent) w->absent_page = t->absent, t->absent = NULL;
    for (c = 1; c <= t->n; c++) {
        ecs_storage *s = w->storages[c];
        for (p = 0; p < t->np; p++)
            t->fresh[c][p] = p < w->npages ? s->pages[p] : (uintptr_t)w->absent_page - ECS__PAGE_BIAS(p);
        ecs__free(w, s->pages, (size_t)w->npages * sizeof *s->pages);
        s->pages = t->fresh[c];
        s->npages = t->np;
        t->fresh[c] = NULL;
    }
    w->npages = t->np;
    ecs__tables_free(w, t);
    ECS__MOVED(w); /* a loop may hold a page table (ECS_EACH's probe state) */
}
static bool ecs__cover(ecs_world *w, uint64_t slots) {
    ecs__tables t;
    if (!ecs__tables_make(w, slots, &t)) return false;
    ecs__tables_install(w, &t);
    return true;
}

/* While a phase's systems run, the world changes only through proposals,
   and while the systems of a batch of several run, nothing structural
   happens: the calls that would are refused (sections 15 and 16). */
#define ECS__WORLD_LOCK(w) ((w)->in_phase ? ECS__M_IN_PHASE : (w)->batch_locked ? ECS__M_IN_BATCH : 0)
static bool ecs__world_locked(const ecs_world *w, const char *call, ecs_entity e, ecs_component c) {
    int m = ECS__WORLD_LOCK(w); /* (a phase, or the systems of a batch of several: section 15) */
    return m ? ecs__report(w, m, call, e, c), true : false;
}

/* Makes sure `n` more entities can be created without allocating. */
static bool ecs__reserve_slots(ecs_world *w, const char *call, uint32_t n, uint32_t queued) {
    uint32_t fresh = n > (uint64_t)w->fq_len + queued ? n - w->fq_len - queued : 0; /* (queued: more slots to come) */
    if (ecs__world_locked(w, call, ECS_NULL, 0)) return false;
    if (fresh > w->max_slots - w->nslots) {
        ecs__report(w, ECS__M_NO_SLOT, call, ECS_NULL, 0);
        return false;
    }
    /* the pages first: slots below slots_cap must always be covered */
    if (!ecs__cover(w, w->nslots + fresh > w->slots_cap ? ecs__next_cap(w->slots_cap, w->nslots + fresh)
                                                         : w->slots_cap) ||
        !ecs__grow(w, (void **)&w->versions, &w->slots_cap, w->nslots + fresh, w->nslots,
                   sizeof *w->versions) ||
        (w->track_entities && !ecs__changes_reserve(w, &w->created, n, 0))) {
        ecs__report(w, ECS__M_OOM, call, ECS_NULL, 0);
        return false;
    }
    return true;
}

/* Index the k-th next ecs__take_slot will return; needs k + 1 reserved slots. */
static uint32_t ecs__peek_slot(const ecs_world *w, uint32_t k) {
    return k < w->fq_len ? w->freeq[(w->fq_head + k) & (w->fq_cap - 1)] : w->nslots + (k - w->fq_len);
}

/* ecs__take_slot (inline, above) plus the created-entity record. */
static ecs_entity ecs__take_tracked(ecs_world *w) {
    ecs_entity e = ecs__take_slot(w);
    if (w->track_entities) ecs__changes_push(&w->created, e, w->tick, NULL, 0); /* reserved */
    return e;
}

/* Makes room in the free queue for `extra` more slots (a ring whose
   capacity is a power of two; growing unrolls it). */
static bool ecs__freeq_room(ecs_world *w, uint32_t extra) {
    uint32_t ncap = w->fq_cap ? w->fq_cap : 64, k, *q;
    if ((uint64_t)w->fq_len + extra <= w->fq_cap) return true;
    while (ncap < (uint64_t)w->fq_len + extra) {
        if (ncap >= 0x80000000u) return false;
        ncap *= 2;
    }
    if (!(q = (uint32_t *)ecs__alloc_n(w, ncap, sizeof *q))) return false;
    k = w->fq_cap - w->fq_head < w->fq_len ? w->fq_cap - w->fq_head : w->fq_len; /* head..end, then 0.. */
    if (w->fq_len) {
        memcpy(q, w->freeq + w->fq_head, (size_t)k * sizeof *q);
        memcpy(q + k, w->freeq, (size_t)(w->fq_len - k) * sizeof *q);
    }
    ecs__free(w, w->freeq, (size_t)w->fq_cap * sizeof *q);
    w->freeq = q;
    w->fq_cap = ncap;
    w->fq_head = 0;
    return true;
}


/* Frees e's slot (e has no component left): bumps its version, records
   the destruction (room reserved by the strip) and queues the slot. */
ECS__IMPL_HOT void ecs__release_slot(ecs_world *w, ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e), v = ECS_ENTITY_VERSION(e);
    w->alive--;
    if (w->track_entities) {
        if (ecs__changes_reserve(w, &w->destroyed, 1, 0))
            ecs__changes_push(&w->destroyed, e, w->tick, NULL, 0);
        else
            ecs__report(w, ECS__M_NOT_RECORDED, "ecs_destroy", e, 0, "its destruction");
    }
    w->versions[i] = ECS__DEAD | ((v + 1u) & ~ECS__DEAD);
    if (v >= ECS_VERSION_MAX) return; /* retired (ECS__RETIRED): never reused, never wrapped */
    if (w->fq_len == w->fq_cap && !ecs__freeq_room(w, 1)) { /* the ring cannot grow: the slot is retired */
        w->versions[i] = ECS__DEAD | ECS__RETIRED;
        return;
    }
    w->freeq[(w->fq_head + w->fq_len) & (w->fq_cap - 1)] = i;
    w->fq_len++;
}

/* ecs_create's slow path: grow the slots, or record the creation. */
ECS__FN ecs_entity ecs__create(ecs_world *w) {
    ECS__WORLD_IN(w, "ecs_create", 0);
    if (!ecs__reserve_slots(w, "ecs_create", 1, 0)) return ECS_NULL;
    return ecs__take_tracked(w);
}

ECS__FN ecs_entity ecs_create_id(ecs_world *w, ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e), v = ECS_ENTITY_VERSION(e), k, j;
    int bad = -1;
    ECS__WORLD(w, ECS_NULL);
    if (ecs__world_locked(w, "ecs_create_id", ECS_NULL, 0)) return ECS_NULL;
    if (v < 1 || v > ECS_VERSION_MAX)
        bad = ECS__M_ID_VERSION;
    else if (i < w->nslots && w->versions[i] < ECS__DEAD)
        bad = ECS__M_ID_ALIVE;
    else if (i < w->nslots && (w->versions[i] & ~ECS__DEAD) == ECS__RETIRED)
        bad = ECS__M_ID_RETIRED;
    else if (i < w->nslots && v < (w->versions[i] & ~ECS__DEAD))
        bad = ECS__M_ID_USED;
    if (bad >= 0) {
        ecs__report(w, bad, "ecs_create_id", e, 0);
        return ECS_NULL;
    }
    if (i >= w->max_slots || (i >= w->nslots && (uint64_t)w->fq_len + (i - w->nslots) > 0x80000000u)) {
        ecs__report(w, i >= w->max_slots ? ECS__M_ID_BEYOND : ECS__M_ID_FAR, "ecs_create_id", e, 0);
        return ECS_NULL;
    }
    /* everything that can fail first: the slots up to i (those below it
       join the free queue), the queue's room, the creation record */
    if (i >= w->nslots &&
        (!ecs__cover(w, i + 1u > w->slots_cap ? ecs__next_cap(w->slots_cap, i + 1u) : w->slots_cap) ||
         !ecs__grow(w, (void **)&w->versions, &w->slots_cap, i + 1u, w->nslots, sizeof *w->versions) ||
         !ecs__freeq_room(w, i - w->nslots))) {
        ecs__report(w, ECS__M_OOM, "ecs_create_id", e, 0);
        return ECS_NULL;
    }
    if (w->track_entities && !ecs__changes_reserve(w, &w->created, 1, 0)) {
        ecs__report(w, ECS__M_OOM, "ecs_create_id", e, 0);
        return ECS_NULL;
    }
    if (i < w->nslots) { /* a free slot: out of the queue, if it is in it */
        for (k = 0; k < w->fq_len && w->freeq[(w->fq_head + k) & (w->fq_cap - 1)] != i; k++) {}
        if (k < w->fq_len) {
            for (j = k; j + 1 < w->fq_len; j++)
                w->freeq[(w->fq_head + j) & (w->fq_cap - 1)] = w->freeq[(w->fq_head + j + 1) & (w->fq_cap - 1)];
            w->fq_len--;
        }
    } else {
        for (; w->nslots < i; w->nslots++) { /* slots skipped over are free */
            w->versions[w->nslots] = ECS__DEAD | 1u;
            w->freeq[(w->fq_head + w->fq_len++) & (w->fq_cap - 1)] = w->nslots;
        }
        w->nslots = i + 1;
    }
    w->versions[i] = v;
    w->alive++;
    if (w->track_entities) ecs__changes_push(&w->created, e, w->tick, NULL, 0);
    return e;
}

/* ------------------------------------------------------------------------- */
/* Components and storages                                                   */
/* ------------------------------------------------------------------------- */
/* Three layers, each built on the one below (doc section 5):
     1. storage primitives: the only code that touches the sparse pages,
        dense, data, the per-row ticks and the change counters (push,
        pop, swap, permute);
     2. one insert path and one remove path, each a fixed sequence of
        steps, which every change of a storage's rows goes through;
     3. the features attached to those paths, each in its own section:
        tracking (11), hooks (12) and groups (13).
   Component operations, views, commands, sorting and systems sit on top. */

ECS__FN ecs_component ecs_lookup(const ecs_world *w, const char *name) {
    ECS__WORLD(w, 0);
    uint32_t c = ecs__names_find(w, &w->names, ECS__NAMES_COMPONENT, name);
    return c == ECS__NOT_FOUND ? 0 : c;
}

ECS__FN ecs_component ecs_register(ecs_world *w, const char *name, size_t size, size_t align) {
    ECS__WORLD(w, 0);
    ecs_component c;
    ecs_storage *s;
    size_t len;
    uint32_t p;
    bool typed = name && name[0] == '\1'; /* ECS_COMPONENT's: a C type's name */
    if (typed) name++;
    if (!name || !*name) {
        ecs__report(w, ECS__M_NO_NAME, "ecs_register", ECS_NULL, 0);
        return 0;
    }
    if (size == 0) align = 0;
    if (size > 0xffffffffu || (size && (align == 0 || (align & (align - 1)) || align > ECS_MAX_ALIGN ||
                                        size % align))) {
        ecs__report(w, ECS__M_BAD_TYPE, "ecs_register", ECS_NULL, 0, name, (unsigned long)size, (unsigned long)align,
                    (unsigned long)ECS_MAX_ALIGN);
        return 0;
    }
    c = ecs_lookup(w, name);
    if (c) {
        s = w->storages[c];
        if (s->size != size || s->align != align) {
            ecs__report(w, ECS__M_REREGISTER, "ecs_register", ECS_NULL, c, (unsigned long)s->size,
                        (unsigned long)s->align, (unsigned long)size, (unsigned long)align);
            return 0;
        }
        if (typed && !s->typed) s->typed = true;
        return c;
    }
    if (ecs__world_locked(w, "ecs_register", ECS_NULL, 0)) return 0; /* (a new one: its storage would not be locked) */
    len = strlen(name) + 1;
    if (w->ncomponents >= 0xfffffffeu || !ecs__names_reserve(w, &w->names, ECS__NAMES_COMPONENT) ||
        !ecs__grow(w, (void **)&w->storages, &w->storages_cap, w->ncomponents + 2,
                   w->ncomponents + 1, sizeof *w->storages) ||
        !(s = (ecs_storage *)ecs__alloc(w, sizeof *s))) {
        ecs__report(w, ECS__M_OOM, "ecs_register", ECS_NULL, 0);
        return 0;
    }
    memset(s, 0, sizeof *s);
    s->name = (char *)ecs__alloc(w, len);
    s->pages = w->npages ? (uintptr_t *)ecs__alloc_n(w, w->npages, sizeof *s->pages) : NULL;
    if (!s->name || (w->npages && !s->pages)) {
        ecs__free(w, s->name, len);
        ecs__free(w, s->pages, (size_t)w->npages * sizeof *s->pages);
        ecs__free(w, s, sizeof *s);
        ecs__report(w, ECS__M_OOM, "ecs_register", ECS_NULL, 0);
        return 0;
    }
    for (p = 0; p < w->npages; p++) s->pages[p] = (uintptr_t)w->absent_page - ECS__PAGE_BIAS(p);
    s->npages = w->npages;
    memcpy(s->name, name, len);
    s->size = (uint32_t)size;
    s->align = (uint32_t)align;
    s->world = w;
    s->typed = typed;
    if (!size) s->data = (unsigned char *)&s->tag_dummy; /* a tag's values: one byte, not to be read */
    c = ++w->ncomponents;
    s->id = c;
    w->storages[c] = s;
    ecs__names_put(&w->names, s->name, c);
    return c;
}

ECS__FN const char *ecs_component_name(const ecs_world *w, ecs_component c) {
    ECS__WORLD(w, NULL);
    if (c - 1u >= w->ncomponents) {
        ecs__bad_access(w, "ecs_component_name", ECS_NULL, c, 0);
        return NULL;
    }
    return w->storages[c]->name;
}

ECS__FN size_t ecs_component_size(const ecs_world *w, ecs_component c) {
    ECS__WORLD(w, 0);
    if (c - 1u >= w->ncomponents) {
        ecs__bad_access(w, "ecs_component_size", ECS_NULL, c, 0);
        return 0;
    }
    return w->storages[c]->size;
}

ECS__FN bool ecs_component_print_set(ecs_world *w, ecs_component c, ecs_print_fn fn) {
    ECS__WORLD(w, false);
    ecs_storage *s = ecs__comp(w, "ecs_component_print_set", ECS_NULL, c, (size_t)-1);
    if (!s) return false;
    if (w->in_phase) return ecs__report(w, ECS__M_IN_PHASE, "ecs_component_print_set", ECS_NULL, c), false;
    if (!s->size && fn) return ecs__report(w, ECS__M_PRINT_TAG, "ecs_component_print_set", ECS_NULL, c), false;
    s->print = fn;
    return true;
}

ECS__FN uint32_t ecs_component_max(const ecs_world *w) {
    ECS__WORLD(w, 0);
    return w->ncomponents;
}

/* --- storage primitives --------------------------------------------------- */

/* The arrays parallel to dense and their element sizes (0 = absent): the
   data and the tracking ticks. Growing and freeing go through this list;
   ecs__move_row and ecs__swap_rows move the same arrays. */
#define ECS__ROW_ARRAYS 4
static void ecs__row_arrays(ecs_storage *s, void **arr[], size_t size[]) {
    arr[0] = (void **)&s->dense;
    size[0] = sizeof *s->dense;
    arr[1] = (void **)&s->data;
    size[1] = s->size;
    arr[2] = (void **)&s->inserted;
    size[2] = s->track & ECS_TRACK_INSERTION ? sizeof(ecs_tick) : 0;
    arr[3] = (void **)&s->modified;
    size[3] = s->track & ECS_TRACK_MODIFICATION ? sizeof(ecs_tick) : 0;
}

static void ecs__storage_destroy(ecs_world *w, ecs_storage *s) {
    void **arr[ECS__ROW_ARRAYS];
    size_t size[ECS__ROW_ARRAYS];
    uint32_t p, i;
    for (p = 0; p < w->npages; p++)
        if (ECS__PAGE(s, p) != w->absent_page) ecs__free(w, ECS__PAGE(s, p), ECS__PAGE_SIZE * sizeof(uint64_t));
    ecs__free(w, s->pages, (size_t)w->npages * sizeof *s->pages);
    ecs__row_arrays(s, arr, size);
    for (i = 0; i < ECS__ROW_ARRAYS; i++)
        if (size[i]) ecs__free(w, *arr[i], (size_t)s->cap * size[i]);
    ecs__changes_free(w, &s->removed, 0);
    ecs__changes_free(w, &s->deleted, s->size);
    ecs__free(w, s->unique, s->size ? s->size : 1);
    ecs__free(w, s->listen, (size_t)s->listen_cap * sizeof *s->listen);
    ecs__free(w, s->name, strlen(s->name) + 1);
    ecs__free(w, s, sizeof *s);
}

/* Makes room for `extra` more rows, so inserting cannot fail. Every row
   array grows to the same capacity, or none does. With a realloc hook they
   grow in place and a failure shrinks back the ones already grown
   (shrinking never fails); without, new blocks are committed only once all
   of them are allocated. */
static bool ecs__reserve_rows(ecs_world *w, ecs_storage *s, uint32_t extra) {
    void **arr[ECS__ROW_ARRAYS], *fresh[ECS__ROW_ARRAYS];
    size_t size[ECS__ROW_ARRAYS];
    uint32_t need, cap, i;
    if (s->count + (uint64_t)extra > 0xfffffffeu) return false; /* rows are uint32, ~0 is "none" */
    need = s->count + extra;
    if (need <= s->cap) return true;
    cap = ecs__next_cap(s->cap, need);
    ecs__row_arrays(s, arr, size);
    ECS__MOVED(w); /* arrays may move, even if growing fails (realloc, then rollback) */
    for (i = 0; i < ECS__ROW_ARRAYS; i++) {
        fresh[i] = NULL;
        if (!size[i]) continue;
        if (w->alloc.realloc && *arr[i])
            fresh[i] = ecs__resize(w, *arr[i], (size_t)s->cap * size[i], cap, size[i], s->count);
        else
            fresh[i] = ecs__alloc_n(w, cap, size[i]);
        if (!fresh[i]) {
            while (i--) {
                if (!fresh[i]) continue;
                if (w->alloc.realloc && *arr[i]) {
                    void *back = w->alloc.realloc(fresh[i], (size_t)cap * size[i], (size_t)s->cap * size[i], w->alloc.ctx);
                    *arr[i] = back ? back : fresh[i];
                } else {
                    ecs__free(w, fresh[i], (size_t)cap * size[i]);
                }
            }
            return false;
        }
        if (w->alloc.realloc && *arr[i]) *arr[i] = fresh[i]; /* grown in place (or moved) */
    }
    for (i = 0; i < ECS__ROW_ARRAYS; i++) {
        if (!size[i] || *arr[i] == fresh[i]) continue;
        if (s->count) memcpy(fresh[i], *arr[i], (size_t)s->count * size[i]);
        ecs__free(w, *arr[i], (size_t)s->cap * size[i]);
        *arr[i] = fresh[i];
    }
    s->cap = cap;
    ECS__MOVED(w); /* views hold pointers into the old arrays */
    return true;
}

/* Gives the sparse page holding entity index i a page of its own (it
   shares the absent page until its first entity). i is a live slot's. */
static bool ecs__reserve_page(ecs_world *w, ecs_storage *s, uint32_t i) {
    uint32_t p = i >> ECS__PAGE_BITS;
    uint64_t *page;
    if (ECS__PAGE(s, p) != w->absent_page) return true;
    if (!(page = (uint64_t *)ecs__alloc_n(w, ECS__PAGE_SIZE, sizeof *page))) return false;
    memset(page, 0xff, ECS__PAGE_SIZE * sizeof *page); /* all ECS__ABSENT */
    s->pages[p] = (uintptr_t)page - ECS__PAGE_BIAS(p);
    return true;
}

/* Exchanges rows a and b (every row array) and their sparse entries. */
static void ecs__swap_rows(ecs_storage *s, uint32_t a, uint32_t b) {
    ecs_entity ea = s->dense[a], eb = s->dense[b];
    s->dense[a] = eb;
    s->dense[b] = ea;
    ECS__ENTRY(s, (uint32_t)eb) = (eb & ECS__VERSION_BITS) | a;
    ECS__ENTRY(s, (uint32_t)ea) = (ea & ECS__VERSION_BITS) | b;
    if (s->inserted) {
        ecs_tick x = s->inserted[a];
        s->inserted[a] = s->inserted[b];
        s->inserted[b] = x;
    }
    if (s->modified) {
        ecs_tick x = s->modified[a];
        s->modified[a] = s->modified[b];
        s->modified[b] = x;
    }
    if (s->size) {
        unsigned char buf[64], *pa = s->data + (size_t)a * s->size, *pb = s->data + (size_t)b * s->size;
        size_t left = s->size;
        while (left) {
            size_t n = left < sizeof buf ? left : sizeof buf;
            ecs__copy(buf, pa, (uint32_t)n); /* constant sizes for the common ones */
            ecs__copy(pa, pb, (uint32_t)n);
            ecs__copy(pb, buf, (uint32_t)n);
            pa += n;
            pb += n;
            left -= n;
        }
    }
}

/* Primitive: exchanges rows a and b. */
ECS__IMPL_HOT void ecs__swap(ecs_world *w, ecs_storage *s, uint32_t a, uint32_t b, const char *call) {
    if (a == b) return;
    ecs__changed(w, s, a < b ? a : b, call);
    ecs__swap_rows(s, a, b);
}

/* Primitive: reorders rows 0..n-1 so that row i gets the old row src[i]
   (src is used up as scratch). One change, from row 0. */
static void ecs__permute(ecs_world *w, ecs_storage *s, uint32_t *src, uint32_t n, const char *call) {
    uint32_t i;
    ecs__changed(w, s, 0, call);
    for (i = 0; i < n; i++) { /* follow each cycle, swapping */
        uint32_t j = i;
        while (src[j] != i) {
            uint32_t next = src[j];
            ecs__swap_rows(s, j, next);
            src[j] = j;
            j = next;
        }
        src[j] = j;
    }
}

/* --- what is attached to a storage ------------------------------------------ */
/* A storage keeps a list of what is attached to its insert and remove
   paths, in the order the paths call them: on the remove path the
   on_remove hook sees the value first, then groups move the row, then
   tracking records it. Each kind's steps live in its own section; the
   paths below call them by kind. The storage knows nothing else about
   them. With nothing on a path, add, remove and delete take their inline
   case (the header's ecs__add_fast...). */
enum {
    ECS__ON_INSERT_HOOK, /* settled: on_insert (section 12: Hooks) */
    ECS__ON_REMOVE_HOOK, /* removing: on_remove, the value in place */
    ECS__ON_OWNS,        /* inserted: join the group; removing: leave it (13: Groups) */
    ECS__ON_EXCLUDES,    /* inserted: leave the group; removed: join it */
    ECS__ON_RECORDS,     /* reserve: room for the record; removing: record (11: Tracking) */
    ECS__ON_REPLACE_HOOK, /* settled: on_replace, for a value a bundle replaced */
    ECS__ON_INDEX,        /* inserted, removing: the entity's key is dirty (14: Indexes) */
    ECS__ON_QUERY,        /* a query's required term: inserted: join it if all match; removing: leave it */
    ECS__ON_QUERY_NOT,    /* a query's excluded term: inserted: leave it; removed: join it if all match */
    ECS__ON_QUERY_TAG,    /* a query's tag: nothing to do, but adds and removes go out of line (refused) */
    ECS__ON_KINDS
};
static void ecs__query_tag(ecs_world *w, uint32_t id, ecs_entity e, bool join, const char *call);
typedef struct ecs__index ecs__index;
static const unsigned char ecs__on_paths[ECS__ON_KINDS] = {
    ECS__PATH_INSERT | ECS__PATH_SETTLED,
    ECS__PATH_REMOVE | ECS__PATH_OBSERVED | ECS__PATH_REMOVING,
    ECS__PATH_INSERT | ECS__PATH_REMOVE | ECS__PATH_REMOVING,
    ECS__PATH_INSERT | ECS__PATH_REMOVE | ECS__PATH_REMOVED,
    ECS__PATH_REMOVE | ECS__PATH_OBSERVED | ECS__PATH_RESERVE,
    ECS__PATH_SETTLED,
    ECS__PATH_INSERT | ECS__PATH_REMOVE | ECS__PATH_REMOVING,
    ECS__PATH_INSERT | ECS__PATH_REMOVE | ECS__PATH_REMOVING,
    ECS__PATH_INSERT | ECS__PATH_REMOVE | ECS__PATH_REMOVED,
    ECS__PATH_INSERT | ECS__PATH_REMOVE,
};

/* Recomputes what a storage's paths carry, and the world's count of
   storages whose removals are observed. */
static void ecs__paths(ecs_world *w, ecs_storage *s) {
    uint32_t k, paths = 0;
    bool was = (s->paths & ECS__PATH_OBSERVED) != 0;
    for (k = 0; k < s->nlisten; k++) paths |= ecs__on_paths[s->listen[k].kind];
    s->paths = paths;
    w->nobserved = w->nobserved - was + ((paths & ECS__PATH_OBSERVED) != 0);
}

/* Attaches (kind, arg) to s; false when out of memory (s unchanged). */
static bool ecs__listen(ecs_world *w, ecs_storage *s, uint32_t kind, uint32_t arg) {
    uint32_t k;
    if (!ecs__grow(w, (void **)&s->listen, &s->listen_cap, s->nlisten + 1, s->nlisten, sizeof *s->listen)) return false;
    for (k = s->nlisten; k && s->listen[k - 1].kind > kind; k--) s->listen[k] = s->listen[k - 1];
    s->listen[k].kind = kind;
    s->listen[k].arg = arg;
    s->nlisten++;
    ecs__paths(w, s);
    return true;
}
static void ecs__unlisten(ecs_world *w, ecs_storage *s, uint32_t kind) {
    uint32_t k, n = 0;
    for (k = 0; k < s->nlisten; k++)
        if (s->listen[k].kind != kind) s->listen[n++] = s->listen[k];
    s->nlisten = n;
    ecs__paths(w, s);
}

/* The steps of each kind, in their sections. */
static void ecs__hook(ecs_world *w, ecs_storage *s, ecs_hook_fn fn, ecs_entity e, uint32_t row);
static void ecs__hook_value(ecs_world *w, ecs_storage *s, ecs_hook_fn fn, ecs_entity e);
static bool ecs__query_fresh(ecs_world *w, uint32_t id);
ECS__IMPL_HOT void ecs__group_join(ecs_world *w, uint32_t group, ecs_entity e, const char *call);
ECS__IMPL_HOT void ecs__group_leave(ecs_world *w, uint32_t group, ecs_entity e, const char *call);
static bool ecs__group_locked(const ecs_world *w, uint32_t group);
ECS__IMPL_HOT bool ecs__records_reserve(ecs_world *w, ecs_storage *s, bool deletion, int promise);
ECS__IMPL_HOT void ecs__record_removal(ecs_world *w, ecs_storage *s, ecs_entity e, uint32_t row, bool deletion,
                                const char *call);

/* --- the insert path and the remove path ---------------------------------- */
/* Insert (ecs__insert), for entities getting a bundle of components:
     checks (registered, none twice, not locked, not being stripped)
     -> staging of values that point into storages about to grow
     -> reserve slots, rows, pages -> per entity: push and copy each
     value (or replace one the entity has: modified) -> inserted (groups
     join) -> once every entity has its whole bundle: settled (on_insert).
   The push stamps the insertion tick (tracking).
   Remove (ecs__remove_at, after ecs__may_remove), for e losing c:
     checks and reservations (locks, tracking's record) -> removing
     (on_remove with the value in place, groups leave, the record) -> out
     receives the value -> pop -> removed (groups that exclude c join).
   Nothing can fail once a path starts changing rows. */

/* A bundle whose hooks run (section 12): entity e's values in st[0..n),
   had[i]: 1 replaced (else inserted), 2 its hook is still to run, 4 it
   has a hook to run. A removal of one still to come takes the mark, so
   that hook never runs, nor on_remove if it was inserted. */
typedef struct ecs__marks {
    ecs_storage **st;
    unsigned char *had;
    uint32_t n;
    ecs_entity e;
    struct ecs__marks *prev;
} ecs__marks;
static bool ecs__unmark(ecs_world *w, const ecs_storage *s, ecs_entity e) {
    const ecs__marks *m;
    uint32_t i;
    bool fresh = false;
    for (m = w->marks; m; m = m->prev)
        for (i = 0; m->e == e && i < m->n; i++)
            if (m->st[i] == s && (m->had[i] & 2u)) {
                m->had[i] &= (unsigned char)~2u;
                fresh |= !(m->had[i] & 1u);
            }
    return fresh;
}

/* Entities inside a hook or being stripped (section 12: Hooks). */
enum { ECS__BUSY_HOOK = 1, ECS__BUSY_STRIP = 2 };
typedef struct ecs__busy {
    ecs_entity e;
    int kind;
    struct ecs__busy *prev;
} ecs__busy;
static void ecs__busy_push(ecs_world *w, ecs__busy *b, ecs_entity e, int kind);
static void ecs__busy_pop(ecs_world *w, ecs__busy *b);
static int ecs__busy_kind(const ecs_world *w, ecs_entity e);
/* The group that owns s (0: none); does group g exclude s? (section 13) */
static ecs_group ecs__owner(const ecs_storage *s);
static bool ecs__excludes_group(const ecs_storage *s, ecs_group g);
/* Promises (1) or gives back (-1) the room of ecs_destroy's record (11). */
static bool ecs__track_destroying(ecs_world *w, ecs_entity e, int promise, const char *call);

/* A storage is locked while one of its hooks or a sort of it runs; while
   any hook or sort runs, a storage is locked too if what is attached to
   it says a change would move rows a hook holds (a group's). */
static bool ecs__locked(ecs_world *w, const char *call, ecs_entity e, const ecs_storage *s) {
    uint32_t k;
    bool tag = s->query && !w->query_update, locked = s->locked != 0 || tag;
    for (k = 0; !locked && w->guard && k < s->nlisten; k++)
        locked = (s->listen[k].kind == ECS__ON_OWNS || s->listen[k].kind == ECS__ON_EXCLUDES) &&
                 ecs__group_locked(w, s->listen[k].arg);
    if (locked)
        ecs__report(w, tag ? ECS__M_QUERY_TAG : ECS__WORLD_LOCK(w) ? ECS__WORLD_LOCK(w) : s->locked ? ECS__M_LOCKED : ECS__M_LOCKED_GROUP,
                    call, e, s->id);
    return locked;
}

/* The insert path's checks for e getting s's component (the caller
   asks when s is locked or a hook runs): s is not locked, and e
   (ECS_NULL: a new entity) is not being stripped. */
static bool ecs__stripping(ecs_world *w, const char *call, ecs_entity e, ecs_component c) {
    if (e == ECS_NULL || !w->busy || !(ecs__busy_kind(w, e) & ECS__BUSY_STRIP)) return false;
    ecs__report(w, ECS__M_STRIPPED, call, e, c); /* (a replace too: its value would be dropped) */
    return true;
}
static bool ecs__may_insert(ecs_world *w, const char *call, ecs_entity e, const ecs_storage *s) {
    return !ecs__locked(w, call, e, s) && !ecs__stripping(w, call, e, s->id);
}

/* The insert path's steps once e's value is in s: what is attached
   (groups join: rows move), and once e has its whole bundle, settled
   (the on_insert hooks). */
ECS__IMPL_HOT void ecs__inserted(ecs_world *w, ecs_storage *s, ecs_entity e, const char *call) {
    uint32_t k;
    for (k = 0; k < s->nlisten; k++)
        if (s->listen[k].kind == ECS__ON_OWNS)
            ecs__group_join(w, s->listen[k].arg, e, call);
        else if (s->listen[k].kind == ECS__ON_EXCLUDES)
            ecs__group_leave(w, s->listen[k].arg, e, call);
        else if (s->listen[k].kind == ECS__ON_INDEX)
            ecs__index_touch(s, (uint32_t)ECS__ENTRY(s, (uint32_t)e), 1, false);
        else if (s->listen[k].kind == ECS__ON_QUERY || s->listen[k].kind == ECS__ON_QUERY_NOT)
            ecs__query_tag(w, s->listen[k].arg, e, s->listen[k].kind == ECS__ON_QUERY, call);
}
ECS__IMPL_HOT void ecs__settled(ecs_world *w, ecs_storage *s, ecs_entity e) {
    if (s->hooks.on_insert) ecs__hook_value(w, s, s->hooks.on_insert, e);
}
/* ...and for a value replaced in place (not from inside s's own hooks). */
static void ecs__replaced(ecs_world *w, ecs_storage *s, ecs_entity e) {
    if (s->hooks.on_replace && !s->hooking) ecs__hook_value(w, s, s->hooks.on_replace, e);
}

/* The remove path's checks and reservations for e losing s's component
   (promise: 1 keeps the record's room promised to this removal until
   ecs__unreserve; see ecs__records_reserve). */
ECS__IMPL_HOT bool ecs__may_remove(ecs_world *w, const char *call, ecs_entity e, ecs_storage *s, bool deletion,
                                  int promise) {
    if ((s->locked || w->guard || (s->query && !w->query_update)) && ecs__locked(w, call, e, s)) return false;
    if ((s->paths & ECS__PATH_RESERVE) && !ecs__records_reserve(w, s, deletion, promise)) {
        ecs__report(w, ECS__M_OOM, call, e, s->id);
        return false;
    }
    return true;
}

/* Gives back the room ecs__may_remove promised (promise 1). */
static void ecs__unreserve(ecs_world *w, ecs_storage *s, bool deletion) {
    if (s->paths & ECS__PATH_RESERVE) ecs__records_reserve(w, s, deletion, -1);
}

/* The remove path's steps (its checks passed): e loses s's row `row`
   (stripping: e is losing all its components). */
ECS__IMPL_HOT void ecs__remove_at(ecs_world *w, ecs_storage *s, ecs_entity e, uint32_t row, void *out, bool deletion,
                                  bool stripping, const char *call) {
    uint32_t paths = s->paths, k, n = s->nlisten; /* (s is locked while its hooks run: fixed) */
    bool fresh = ECS__UNLIKELY(w->marks != NULL) && ecs__unmark(w, s, e); /* (its on_insert was to come) */
    for (k = 0; (paths & ECS__PATH_REMOVING) && k < n; k++) {
        const ecs__listener *l = &s->listen[k];
        if (l->kind == ECS__ON_REMOVE_HOOK) {
            if (!fresh) ecs__hook(w, s, s->hooks.on_remove, e, row); /* (row stays) */
        } else if (l->kind == ECS__ON_OWNS) {
            ecs__group_leave(w, l->arg, e, call);
            row = (uint32_t)ECS__ENTRY(s, (uint32_t)e);
        } else if (l->kind == ECS__ON_INDEX) {
            ecs__index_touch(s, row, 1, false); /* (taken out by the sync) */
        } else if (l->kind == ECS__ON_QUERY) {
            ecs__query_tag(w, l->arg, e, false, call);
        }
    }
    if (paths & ECS__PATH_RESERVE) ecs__record_removal(w, s, e, row, deletion, call); /* (the records: last) */
    if (out) ecs__copy(out, s->data + (size_t)row * s->size, s->size);
    ecs__pop(w, s, row, call);
    /* groups that exclude s: e may join - unless e is being stripped, when
       it is about to lose everything anyway (joining for a moment would
       move rows under a view walking the group) */
    if ((paths & ECS__PATH_REMOVED) && !stripping)
        for (k = 0; k < s->nlisten; k++) {
            if (s->listen[k].kind == ECS__ON_EXCLUDES) ecs__group_join(w, s->listen[k].arg, e, call);
            if (s->listen[k].kind == ECS__ON_QUERY_NOT) ecs__query_tag(w, s->listen[k].arg, e, true, call);
        }
}

/* The modified step's out-of-line uses: a value replaced in place. */
static void *ecs__replace(ecs_storage *s, uint32_t row, const void *value) {
    unsigned char *dst = s->data + (size_t)row * s->size;
    if (!value)
        memset(dst, 0, s->size);
    else if (value != dst)
        memmove(dst, value, s->size);
    ecs__modified(s, row, 1, false);
    return dst;
}

/* Copies the values of a bundle that point into a storage about to grow
   (cloning, a prefab's components) to a staging block (*staged, to be
   freed by the caller): growing frees the old arrays. Returns the values
   to read, or NULL when out of memory. */
static const void *const *ecs__stage(ecs_world *w, uint32_t count, uint32_t n, ecs_storage *const *st,
                                     const void *const *values, void **staged, size_t *staged_size) {
    uint32_t i, j;
    uint64_t total = 0;
    const void **copy;
    unsigned char *payload;
    bool need = false;
    for (j = 0; values && j < n && !need; j++) { /* only storages about to grow matter */
        uintptr_t d = (uintptr_t)st[j]->data;
        if (!st[j]->size || st[j]->count + (uint64_t)count <= st[j]->cap) continue;
        for (i = 0; i < n && !need; i++)
            need = values[i] && (uintptr_t)values[i] >= d && (uintptr_t)values[i] - d < (size_t)st[j]->count * st[j]->size;
    }
    if (!need) return values;
    for (i = 0; i < n; i++) total += ((uint64_t)st[i]->size + 7u) & ~(uint64_t)7u;
    total += (uint64_t)n * sizeof *copy; /* sizes < 2^32, n <= 2^32: no wrap in 64 bits */
    *staged_size = (size_t)total;
    if ((size_t)total != total || !(*staged = ecs__alloc(w, *staged_size))) return NULL;
    copy = (const void **)*staged;
    payload = (unsigned char *)(copy + n);
    for (i = 0; i < n; i++) {
        copy[i] = values[i] ? payload : NULL;
        if (values[i]) memcpy(payload, values[i], st[i]->size);
        payload += (st[i]->size + 7u) & ~(size_t)7u;
    }
    return copy;
}

static bool ecs__reserve_slots(ecs_world *w, const char *call, uint32_t n, uint32_t queued);
static ecs_entity ecs__take_tracked(ecs_world *w);
static uint32_t ecs__peek_slot(const ecs_world *w, uint32_t k);
static void ecs__bulk_in_step(ecs_world *w, uint32_t n, ecs_storage *const *st, uint32_t count);

/* The insert path for one component: e (alive, without it) gets s's
   component with *value (NULL: zeroed). Returns e's value. */
ECS__IMPL_HOT void *ecs__insert1(ecs_world *w, const char *call, ecs_storage *s, ecs_entity e, const void *value) {
    uint32_t i = (uint32_t)e;
    if ((s->locked || w->guard || (s->query && !w->query_update)) && !ecs__may_insert(w, call, e, s)) return NULL;
    if (s->count == s->cap || ECS__PAGE(s, i >> ECS__PAGE_BITS) == w->absent_page) {
        /* value may point into this very storage (cloning a component):
           growing frees the old array, so follow the value to the new one */
        size_t off = (size_t)((uintptr_t)value - (uintptr_t)s->data);
        bool inside = value && (uintptr_t)value >= (uintptr_t)s->data && off < (size_t)s->count * s->size;
        if (!ecs__reserve_rows(w, s, 1) || !ecs__reserve_page(w, s, i)) {
            ecs__report(w, ECS__M_OOM, call, e, s->id);
            return NULL;
        }
        if (inside) value = s->data + off;
    }
    ecs__push_value(w, s, e, value);
    if (s->paths & ECS__PATH_INSERT) ecs__inserted(w, s, e, call);
    if (s->paths & ECS__PATH_SETTLED) ecs__settled(w, s, e); /* s is locked while its hooks run: e's row stays */
    return s->data + (size_t)(uint32_t)ECS__ENTRY(s, i) * s->size;
}

/* The insert path: `count` entities each get the bundle comps[0..n) with
   values[0..n) (values or values[k] NULL: zeroed). create: the entities
   are new, taken from free slots here, their ids written to ids (NULL:
   not wanted); else ids[0] is a live entity (count 1), and a component it
   has already gets its value replaced (a modification). All or nothing:
   every check and reservation comes first. */
static bool ecs__insert(ecs_world *w, const char *call, ecs_entity *ids, uint32_t count, bool create, uint32_t n,
                        const ecs_component *comps, const void *const *values) {
    ecs_storage *small[ECS_MAX_TERMS], **st = small;
    unsigned char had_small[ECS_MAX_TERMS], *had = had_small; /* an entity that lives already had it: replaced */
    ecs_entity one = ECS_NULL, *ents = ids;
    void *staged = NULL;
    size_t staged_size = 0, stsize = (size_t)n * (sizeof *st + 1);
    uint32_t i, j, k, e_idx = create ? 0 : (uint32_t)ids[0], settle = 0, joins = 0;
    uint64_t p;
    bool ok = false;
    ecs__marks marks;
    if (n && !comps) return ecs__report(w, ECS__M_NULL_ARG, call, ECS_NULL, 0, "comps"), false;
    if (n > w->ncomponents) return ecs__report(w, ECS__M_BUNDLE_N, call, create ? ECS_NULL : ids[0], 0), false;
    if (n > ECS_MAX_TERMS) { /* (clone, big bundles) */
        if (!(st = (ecs_storage **)ecs__alloc(w, stsize))) return ecs__report(w, ECS__M_OOM, call, ECS_NULL, 0), false;
        had = (unsigned char *)(st + n);
    }
    for (i = 0; i < n; i++) { /* checks */
        ecs_entity e = create ? ECS_NULL : ids[0];
        if (!(st[i] = ecs__comp(w, call, e, comps[i], (size_t)-1))) goto out;
        for (j = 0; j < i; j++)
            if (st[j] == st[i]) {
                ecs__report(w, ECS__M_TWICE, call, e, comps[i]);
                goto out;
            }
        if ((st[i]->locked || w->guard || st[i]->query) && (create || (uint32_t)ECS__ENTRY(st[i], e_idx) == ECS__NO_ROW)
                ? !ecs__may_insert(w, call, e, st[i])
                : ecs__stripping(w, call, e, comps[i])) /* (a replace) */
            goto out;
        settle |= st[i]->paths & ECS__PATH_SETTLED;
    }
    if (create && settle && !ents && !(ents = (ecs_entity *)ecs__alloc_n(w, count, sizeof *ents))) {
        ecs__report(w, ECS__M_OOM, call, ECS_NULL, 0); /* settled steps run once all are in: keep the ids */
        goto out;
    }
    if (values && !(values = ecs__stage(w, count, n, st, values, &staged, &staged_size))) {
        ecs__report(w, ECS__M_OOM, call, ECS_NULL, 0);
        goto out;
    }
    if (create && !ecs__reserve_slots(w, call, count, 0)) goto out;
    for (i = 0; i < n; i++) { /* rows and pages (a replaced value needs neither, and must not move) */
        ecs_storage *s = st[i];
        bool room = true;
        if (!create && (uint32_t)ECS__ENTRY(s, e_idx) != ECS__NO_ROW) continue;
        room = ecs__reserve_rows(w, s, count);
        if (!create) room = room && ecs__reserve_page(w, s, e_idx);
        for (k = 0; create && room && k < count && k < w->fq_len; k++) room = ecs__reserve_page(w, s, ecs__peek_slot(w, k));
        if (create && count > w->fq_len) /* fresh slots are consecutive: one check per page */
            for (p = w->nslots; room && p < (uint64_t)w->nslots + (count - w->fq_len); p = (p | ECS__PAGE_MASK) + 1)
                room = ecs__reserve_page(w, s, (uint32_t)p);
        if (!room) {
            ecs__report(w, ECS__M_OOM, call, create ? ECS_NULL : ids[0], comps[i]);
            goto out;
        }
    }
    ok = true; /* nothing can fail from here on */
    for (k = 0; k < count; k++) {
        ecs_entity e = create ? ecs__take_tracked(w) : ids[0];
        for (i = 0; i < n; i++) {
            ecs_storage *s = st[i];
            const void *v = values ? values[i] : NULL;
            uint32_t row;
            if (!create && (had[i] = (row = (uint32_t)ECS__ENTRY(s, e_idx)) != ECS__NO_ROW)) {
                ecs__replace(s, row, v);
                continue;
            }
            ecs__push_value(w, s, e, v);
            joins |= s->paths & ECS__PATH_INSERT;
        }
        for (i = 0; joins && i < n; i++) /* what is attached, once the entity has the whole bundle */
            if (create || !had[i]) ecs__inserted(w, st[i], e, call);
        if (ents) ents[k] = e;
        else one = e;
    }
    if (create && count > 1 && !joins) ecs__bulk_in_step(w, n, st, count); /* (groups move rows) */
    if (settle) { /* settled: every entity has its whole bundle */
        marks.st = st, marks.had = had, marks.n = n, marks.prev = w->marks;
        w->marks = &marks;
    }
    for (k = 0; settle && k < count; k++) {
        ecs_entity e = marks.e = ents ? ents[k] : one;
        for (i = 0; i < n; i++) /* its hooks to run (a removal takes the mark: ecs__unmark) */
            had[i] = (unsigned char)((create || !had[i] ? 0u : 1u) | ((st[i]->paths & ECS__PATH_SETTLED) ? 6u : 0u));
        for (i = 0; i < n; i++) {
            ecs_storage *s = st[i];
            if ((had[i] & 6u) == 4u) continue; /* an earlier hook took it (and an add since ran its own) */
            had[i] &= (unsigned char)~2u;
            if (!(s->paths & ECS__PATH_SETTLED) || ecs__row(s, e) == ECS__NO_ROW) continue;
            if (had[i] & 1u)
                ecs__replaced(w, s, e);
            else
                ecs__settled(w, s, e);
        }
    }
    if (settle) w->marks = marks.prev;
out:
    if (staged) ecs__free(w, staged, staged_size);
    if (ents != ids) ecs__free(w, ents, (size_t)count * sizeof *ents);
    if (st != small) ecs__free(w, st, stsize);
    return ok;
}

/* --- memory: statistics, reserve, shrink ------------------------------------ */
ECS__FN bool ecs_storage_stats_get(const ecs_storage *s, ecs_storage_stats *out) {
    const ecs_world *w;
    uint32_t p;
    if (!s) { ecs__bad_storage(s, "ecs_storage_stats_get", ECS_NULL, 0); return false; }
    w = s->world;
    if (!out) { ecs__report(w, ECS__M_NULL_ARG, "ecs_storage_stats_get", ECS_NULL, s->id, "out"); return false; }
    memset(out, 0, sizeof *out);
    out->rows = s->count;
    out->capacity = s->cap;
    out->value_bytes = (size_t)s->cap * s->size + (s->unique ? (s->size ? s->size : 1) : 0);
    out->dense_bytes = (size_t)s->cap * sizeof *s->dense;
    out->sparse_bytes = (size_t)w->npages * sizeof *s->pages;
    for (p = 0; p < w->npages; p++)
        if (ECS__PAGE(s, p) != w->absent_page) out->sparse_bytes += ECS__PAGE_SIZE * sizeof(uint64_t);
    out->tracking_bytes = (size_t)s->cap * sizeof(ecs_tick) * ((s->inserted != NULL) + (s->modified != NULL)) +
                          (size_t)s->removed.cap * sizeof(ecs_change) +
                          (size_t)s->deleted.cap * (sizeof(ecs_change) + s->size);
    out->total = sizeof *s + strlen(s->name) + 1 + out->value_bytes + out->dense_bytes + out->sparse_bytes +
                 out->tracking_bytes + (size_t)s->listen_cap * sizeof *s->listen;
    return true;
}

ECS__FN bool ecs_world_stats_get(const ecs_world *w, ecs_world_stats *out) {
    ecs_storage_stats ss;
    uint32_t c;
    ECS__WORLD(w, false);
    if (!out) { ecs__report(w, ECS__M_NULL_ARG, "ecs_world_stats_get", ECS_NULL, 0, "out"); return false; }
    memset(out, 0, sizeof *out);
    out->alive = w->alive;
    out->slots = w->nslots;
    out->slot_capacity = w->slots_cap;
    out->free_slots = w->fq_len;
    out->slot_bytes = (size_t)w->slots_cap * sizeof *w->versions + (size_t)w->fq_cap * sizeof *w->freeq;
    out->command_bytes = w->cmds_cap;
    out->name_bytes = (size_t)(w->names.cap + w->systems.cap + w->workloads.cap) * sizeof(uint32_t);
    out->tracking_bytes = (size_t)(w->created.cap + w->destroyed.cap) * sizeof(ecs_change);
    for (c = 1; c <= w->ncomponents; c++) {
        ecs_storage_stats_get(w->storages[c], &ss);
        out->storage_bytes += ss.total;
    }
    out->total = sizeof *w + out->slot_bytes + out->command_bytes + out->name_bytes + out->tracking_bytes +
                 out->storage_bytes + (size_t)w->storages_cap * sizeof *w->storages +
                 (w->absent_page ? ECS__PAGE_SIZE * sizeof(uint64_t) : 0);
    return true;
}

ECS__FN bool ecs_reserve(ecs_world *w, uint32_t n) {
    ECS__WORLD(w, false);
    return ecs__reserve_slots(w, "ecs_reserve", n, 0);
}

ECS__FN bool ecs_storage_reserve(ecs_storage *s, uint32_t n) {
    ecs_world *w;
    if (!s) { ecs__bad_storage(s, "ecs_storage_reserve", ECS_NULL, 0); return false; }
    w = s->world;
    if (ecs__locked(w, "ecs_storage_reserve", ECS_NULL, s)) return false; /* a hook's value would move */
    if (!ecs__reserve_rows(w, s, n)) {
        ecs__report(w, ECS__M_OOM, "ecs_storage_reserve", ECS_NULL, s->id);
        return false;
    }
    return true;
}

/* Row arrays of exactly count rows: all of them, or (out of memory) none. */
static void ecs__shrink_rows(ecs_world *w, ecs_storage *s) {
    void **arr[ECS__ROW_ARRAYS], *fresh[ECS__ROW_ARRAYS];
    size_t size[ECS__ROW_ARRAYS];
    uint32_t i;
    if (s->cap == s->count) return;
    ecs__row_arrays(s, arr, size);
    for (i = 0; i < ECS__ROW_ARRAYS; i++) {
        fresh[i] = NULL;
        if (!size[i] || !*arr[i] || !s->count) continue;
        if (!(fresh[i] = ecs__alloc_n(w, s->count, size[i]))) {
            while (i--) ecs__free(w, fresh[i], (size_t)s->count * size[i]);
            return;
        }
    }
    for (i = 0; i < ECS__ROW_ARRAYS; i++) {
        if (!size[i] || !*arr[i]) continue;
        if (fresh[i]) memcpy(fresh[i], *arr[i], (size_t)s->count * size[i]);
        ecs__free(w, *arr[i], (size_t)s->cap * size[i]);
        *arr[i] = fresh[i];
    }
    s->cap = s->count;
}

static void ecs__shrink_list(ecs_world *w, ecs__changes *l, uint32_t vsize) {
    ecs_change *items = NULL;
    unsigned char *values = NULL;
    if (l->reserved || l->cap == l->count) return;
    if (l->count && (!(items = (ecs_change *)ecs__alloc_n(w, l->count, sizeof *items)) ||
                     (vsize && !(values = (unsigned char *)ecs__alloc_n(w, l->count, vsize))))) {
        ecs__free(w, items, (size_t)l->count * sizeof *items);
        return;
    }
    if (l->count) memcpy(items, l->items, (size_t)l->count * sizeof *items);
    if (l->count && vsize) memcpy(values, l->values, (size_t)l->count * vsize);
    ecs__free(w, l->items, (size_t)l->cap * sizeof *items);
    ecs__free(w, l->values, (size_t)l->cap * vsize);
    l->items = items;
    l->values = values;
    l->cap = l->count;
}

ECS__FN void ecs_shrink(ecs_world *w) {
    uint32_t c, p, k, *v = NULL;
    ECS__WORLD(w, );
    if (ecs__world_locked(w, "ecs_shrink", ECS_NULL, 0)) return; /* (its systems read the arrays, on any thread) */
    if (w->guard) { /* a hook holds a value pointer */
        ecs__report(w, ECS__M_REFUSED, "ecs_shrink", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return;
    }
    for (c = 1; c <= w->ncomponents; c++) {
        ecs_storage *s = w->storages[c];
        ecs__shrink_rows(w, s);
        for (p = 0; p < w->npages; p++) { /* pages with no entity go back to the absent page */
            uint64_t *page = ECS__PAGE(s, p);
            if (page == w->absent_page) continue;
            for (k = 0; k < ECS__PAGE_SIZE && page[k] == ECS__ABSENT; k++) {}
            if (k < ECS__PAGE_SIZE) continue;
            ecs__free(w, page, ECS__PAGE_SIZE * sizeof *page);
            s->pages[p] = (uintptr_t)w->absent_page - ECS__PAGE_BIAS(p);
        }
        ecs__shrink_list(w, &s->removed, 0);
        ecs__shrink_list(w, &s->deleted, s->size);
    }
    ecs__shrink_list(w, &w->created, 0);
    ecs__shrink_list(w, &w->destroyed, 0);
    if (w->slots_cap > w->nslots && (!w->nslots || (v = (uint32_t *)ecs__alloc_n(w, w->nslots, sizeof *v)))) {
        if (w->nslots) memcpy(v, w->versions, (size_t)w->nslots * sizeof *v); /* pages still cover them all */
        ecs__free(w, w->versions, (size_t)w->slots_cap * sizeof *v);
        w->versions = w->nslots ? v : NULL;
        w->slots_cap = w->nslots;
    }
    if (!w->cmds_len) {
        ecs__free(w, w->cmds, w->cmds_cap);
        w->cmds = NULL;
        w->cmds_cap = w->cmds_head = 0;
    }
    ECS__MOVED(w);
}

/* ------------------------------------------------------------------------- */
/* Component operations                                                      */
/* ------------------------------------------------------------------------- */
/* Each operation validates its arguments, then runs the insert path or the
   remove path (section "Components and storages"). */

/* Checks that e is alive and c registered (and of `size` unless -1). */
ECS__IMPL_HOT ecs_storage *ecs__check(ecs_world *w, const char *call, ecs_entity e, ecs_component c, size_t size) {
    ecs_storage *s = ecs__comp(w, call, e, c, size);
    if (s && !ecs_alive(w, e)) {
        ecs__report(w, ECS__M_DEAD, call, e, c);
        return NULL;
    }
    return s;
}

/* add: a replace when e has c, else the insert path. */
static void *ecs__add(ecs_world *w, const char *call, ecs_entity e, ecs_component c, const void *value, size_t size) {
    ecs_storage *s = ecs__check(w, call, e, c, size);
    uint32_t row;
    if (!s) return NULL;
    if ((row = (uint32_t)ECS__ENTRY(s, (uint32_t)e)) == ECS__NO_ROW) return ecs__insert1(w, call, s, e, value);
    if (ecs__stripping(w, call, e, c)) return NULL;
    value = ecs__replace(s, row, value);
    ecs__replaced(w, s, e); /* (s is locked while it runs: the row stays) */
    return (void *)value;
}
ECS__FN void *ecs__add_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c, const void *value,
                             size_t size) {
    ECS__WORLD_IN(w, call, NULL);
    return ecs__add(w, call, e, c, value, size);
}

/* The remove path for components of a live e, all or nothing: st[k] is a
   storage e has (NULL: skip it), its value goes to outs[k] (outs or
   outs[k] NULL: discarded). Every check and reservation comes first, with
   tracking's records promised to these removals, so that hooks running in
   between record changes of their own beyond them; then each goes through
   the remove path, unless an earlier hook took it. stripping: e is being
   stripped (or destroyed): the busy stack says so to the hooks. Returns
   how many it removed (bit k of *taken for st[k], when n <= 32), or -1
   when refused. */
static int64_t ecs__remove_all(ecs_world *w, const char *call, ecs_entity e, ecs_storage *const *st, uint32_t n,
                               void *const *outs, bool deletion, bool stripping, uint32_t *taken) {
    uint32_t k, j, row, removed = 0;
    ecs__busy b;
    if (stripping) w->query_update++; /* (a query's tag goes with the rest) */
    for (k = 0; k < n; k++)
        if (st[k] && !ecs__may_remove(w, call, e, st[k], deletion, 1)) {
            if (stripping) w->query_update--;
            while (k--)
                if (st[k]) ecs__unreserve(w, st[k], deletion);
            return -1;
        }
    if (stripping) {
        w->query_update--;
        ecs__busy_push(w, &b, e, ECS__BUSY_STRIP);
    }
    if (taken) *taken = 0;
    for (k = 0; k < n; k++) {
        ecs_storage *s = st[k];
        if (!s) continue;
        ecs__unreserve(w, s, deletion);
        for (j = 0; j < k; j++) /* (strip: registered by a hook meanwhile, listed after) */
            if (st[j] == s) break;
        if (j < k || (row = ecs__row(s, e)) == ECS__NO_ROW) continue; /* an earlier hook took it */
        ecs__remove_at(w, s, e, row, outs ? outs[k] : NULL, deletion, stripping, call);
        if (taken && k < 32) *taken |= 1u << k;
        removed++;
    }
    if (stripping) ecs__busy_pop(w, &b);
    return removed;
}

/* remove (deletion false: counts as a removal) or delete. */
static bool ecs__take(ecs_world *w, const char *call, ecs_entity e, ecs_component c, void *out, size_t size,
                      bool deletion) {
    ecs_storage *s = ecs__comp(w, call, e, c, size);
    uint32_t row;
    if (!s || (row = ecs__row(s, e)) == ECS__NO_ROW || !ecs__may_remove(w, call, e, s, deletion, 0)) return false;
    ecs__remove_at(w, s, e, row, out, deletion, false, call);
    return true;
}
ECS__FN bool ecs__take_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c, void *out, size_t size,
                             bool deletion) {
    ECS__WORLD_IN(w, call, false);
    return ecs__take(w, call, e, c, out, size, deletion);
}

/* The remove path of a storage with groups attached, for an entity being
   stripped. Out of line: ecs__strip_plain's loop mostly pops. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static void ecs__remove_stripped(ecs_world *w, ecs_storage *s, ecs_entity e, uint32_t row, const char *call) {
    ecs__remove_at(w, s, e, row, NULL, true, true, call);
}

/* ecs__strip when nothing is observed (no tracking records, no hooks)
   and no hook or strip runs: nothing can fail, one pass over the
   storages; only a storage with groups attached takes the whole path. */
ECS__IMPL_HOT uint32_t ecs__strip_plain(ecs_world *w, ecs_entity e, const char *call) {
    uint32_t c, n = 0, row, i = (uint32_t)e, nc = w->ncomponents;
    ecs_storage *const *storages = w->storages;
    for (c = 1; c <= nc; c++) {
        ecs_storage *s = storages[c];
        uint64_t *entry;
        if (!s->count || (row = (uint32_t)*(entry = ECS__ENTRY_AT(s, i))) == ECS__NO_ROW) continue;
        if (s->paths & ECS__PATH_REMOVE)
            ecs__remove_stripped(w, s, e, row, call);
        else
            ecs__pop_at(w, s, row, entry, call);
        n++;
    }
    return n;
}

/* Deletes every component of a live e, all or nothing (ecs__remove_all,
   in component-id order). Returns how many, or -1. */
static int64_t ecs__strip(ecs_world *w, ecs_entity e, const char *call, ecs_storage **room) {
    ecs_storage *small[32], **st = small;
    uint32_t c, n = 0, k = 0, i = (uint32_t)e;
    int64_t done;
    if (ecs__world_locked(w, call, e, 0)) return -1; /* (not a storage's refusal) */
    if (w->busy && ecs__busy_kind(w, e)) {
        ecs__report(w, ECS__M_BUSY, call, e, 0);
        return -1;
    }
    for (c = 1; c <= w->ncomponents; c++)
        if (w->storages[c]->count && (uint32_t)ECS__ENTRY(w->storages[c], i) != ECS__NO_ROW) small[n++ & 31] = w->storages[c];
    if (n > 32) {
        if (!(st = room ? room : (ecs_storage **)ecs__alloc_n(w, n, sizeof *st))) {
            ecs__report(w, ECS__M_OOM, call, e, 0);
            return -1;
        }
        for (c = 1; c <= w->ncomponents; c++)
            if (w->storages[c]->count && (uint32_t)ECS__ENTRY(w->storages[c], i) != ECS__NO_ROW) st[k++] = w->storages[c];
    }
    done = n ? ecs__remove_all(w, call, e, st, n, NULL, true, true, NULL) : 0;
    if (st != small && st != room) ecs__free(w, st, (size_t)n * sizeof *st);
    return done;
}

ECS__FN uint32_t ecs_strip(ecs_world *w, ecs_entity e) {
    int64_t n;
    ECS__WORLD(w, 0);
    if (!ecs_alive(w, e)) return 0;
    if (!w->nobserved && !w->guard) return ecs__strip_plain(w, e, "ecs_strip");
    n = ecs__strip(w, e, "ecs_strip", NULL);
    return n < 0 ? 0 : (uint32_t)n;
}

/* room: NULL, or a list of ncomponents storages ecs__strip may use */
ECS__IMPL_HOT bool ecs__destroy(ecs_world *w, ecs_entity e, const char *call, ecs_storage **room) {
    if (!w->nobserved && !w->guard && !w->track_entities) {
        ecs__strip_plain(w, e, call);
    } else {
        int64_t n;
        if (ecs__world_locked(w, call, e, 0)) return false; /* (before any room is taken) */
        if (!ecs__track_destroying(w, e, 1, call)) return false; /* its record's room, promised */
        n = ecs__strip(w, e, call, room);
        ecs__track_destroying(w, e, -1, call);
        if (n < 0) return false;
    }
    ecs__release_slot(w, e);
    return true;
}
ECS__FN bool ecs_destroy(ecs_world *w, ecs_entity e) {
    ECS__WORLD(w, false);
    return ecs_alive(w, e) && ecs__destroy(w, e, "ecs_destroy", NULL);
}

/* --- whole entities: clone, destroy by component, list components ------- */
/* clone: one bundle, the values of e's components as they are. */
ECS__FN ecs_entity ecs_clone(ecs_world *w, ecs_entity e) {
    ecs_component small[ECS_MAX_TERMS], *comps = small;
    const void *vsmall[ECS_MAX_TERMS], **values = vsmall;
    ecs_entity n = ECS_NULL;
    uint32_t c, k = 0, nc;
    ECS__WORLD(w, ECS_NULL);
    if (!ecs_alive(w, e)) {
        ecs__report(w, ECS__M_DEAD, "ecs_clone", e, 0);
        return ECS_NULL;
    }
    if (ecs__world_locked(w, "ecs_clone", e, 0)) return ECS_NULL; /* (not a storage's refusal) */
    nc = ecs_entity_components(w, e, NULL, 0);
    if (nc > ECS_MAX_TERMS && (!(comps = (ecs_component *)ecs__alloc_n(w, nc, sizeof *comps)) ||
                               !(values = (const void **)ecs__alloc_n(w, nc, sizeof *values)))) {
        ecs__report(w, ECS__M_OOM, "ecs_clone", e, 0);
        goto out;
    }
    for (c = 1; c <= w->ncomponents; c++) {
        uint32_t row = ecs__row(w->storages[c], e);
        if (row == ECS__NO_ROW || w->storages[c]->query) continue; /* (a query's tag follows the terms) */
        comps[k] = c;
        values[k++] = w->storages[c]->data + (size_t)row * w->storages[c]->size;
    }
    if (!ecs__insert(w, "ecs_clone", &n, 1, true, k, comps, values)) n = ECS_NULL;
out:
    if (comps != small) ecs__free(w, comps, (size_t)nc * sizeof *comps);
    if (values != vsmall) ecs__free(w, (void *)values, (size_t)nc * sizeof *values);
    return n;
}

ECS__FN uint32_t ecs_destroy_all(ecs_world *w, ecs_component c) {
    uint32_t n = 0, nc;
    ecs_storage *s, **room;
    ECS__WORLD(w, 0);
    if (!(s = ecs__comp(w, "ecs_destroy_all", ECS_NULL, c, (size_t)-1))) return 0;
    if (ecs__world_locked(w, "ecs_destroy_all", ECS_NULL, 0)) return 0;
    if (s->query && !ecs__query_fresh(w, s->query)) /* (a query's tag that lags: rebuilt first) */
        return ecs__report(w, ECS__M_OOM, "ecs_destroy_all", ECS_NULL, c), 0;
    nc = w->ncomponents;
    if (!ecs__destroy_room(w, "ecs_destroy_all", s, &room)) return 0;
    while (s->count && ecs__destroy(w, s->dense[s->count - 1], "ecs_destroy_all", w->ncomponents <= nc ? room : NULL))
        n++; /* stops at a refusal */
    ecs__free(w, room, (size_t)nc * sizeof *room);
    return n;
}

ECS__FN uint32_t ecs_entity_components(const ecs_world *w, ecs_entity e, ecs_component *out, uint32_t cap) {
    uint32_t c, n = 0;
    ECS__WORLD(w, 0);
    if (!out && cap) return ecs__report(w, ECS__M_NULL_ARG, "ecs_entity_components", ECS_NULL, 0, "out (with cap > 0)"), 0;
    if (!ecs_alive(w, e)) return 0;
    for (c = 1; c <= w->ncomponents; c++)
        if (w->storages[c]->count && (uint32_t)ECS__ENTRY(w->storages[c], (uint32_t)e) != ECS__NO_ROW) {
            if (n < cap) out[n] = c;
            n++;
        }
    return n;
}

/* Appends to buf (cap) at *n as snprintf does, counting what does not fit. */
static void ecs__print(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(*n < cap ? buf + *n : NULL, *n < cap ? cap - *n : 0, fmt, ap);
    va_end(ap);
    if (k > 0) *n += (size_t)k;
}

ECS__FN size_t ecs_entity_print(const ecs_world *w, ecs_entity e, char *buf, size_t cap) {
    char eb[ECS_ENTITY_STR];
    size_t n = 0;
    uint32_t c, k = 0;
    ECS__WORLD(w, 0);
    if (!buf && cap) return ecs__report(w, ECS__M_NULL_ARG, "ecs_entity_print", ECS_NULL, 0, "buf (with cap > 0)"), 0;
    if (cap) buf[0] = '\0';
    ecs__print(buf, cap, &n, "%s", ecs_entity_str(e, eb));
    if (!ecs_alive(w, e)) {
        ecs__print(buf, cap, &n, " (not alive)");
        return n;
    }
    ecs__print(buf, cap, &n, " {");
    for (c = 1; c <= w->ncomponents; c++) {
        const ecs_storage *s = w->storages[c];
        uint32_t row = ecs__row(s, e);
        if (row == ECS__NO_ROW) continue;
        ecs__print(buf, cap, &n, "%s%s", k++ ? ", " : "", s->name);
        if (!s->print) continue;
        ecs__print(buf, cap, &n, " (");
        n += s->print(s->data + (size_t)row * s->size, n < cap ? buf + n : NULL, n < cap ? cap - n : 0);
        ecs__print(buf, cap, &n, ")");
    }
    ecs__print(buf, cap, &n, "}");
    return n;
}

/* --- several components of one entity ---------------------------------------- */
/* Checks a list of n <= ECS_MAX_TERMS distinct registered components;
   st[k] gets comps[k]'s storage. */
static bool ecs__check_list(const ecs_world *w, const char *call, ecs_entity e, uint32_t n, const ecs_component *comps,
                            const void *out, const char *outname, ecs_storage **st) {
    uint32_t k, j;
    if (n && !comps) return ecs__report(w, ECS__M_NULL_ARG, call, ECS_NULL, 0, "comps"), false;
    if (n && !out && outname) return ecs__report(w, ECS__M_NULL_ARG, call, ECS_NULL, 0, outname), false;
    if (n > ECS_MAX_TERMS) return ecs__report(w, ECS__M_TOO_MANY, call, e, 0), false;
    for (k = 0; k < n; k++) {
        if (!(st[k] = ecs__comp(w, call, e, comps[k], (size_t)-1))) return false;
        for (j = 0; j < k; j++)
            if (comps[j] == comps[k]) return ecs__report(w, ECS__M_TWICE, call, e, comps[k]), false;
    }
    return true;
}

static bool ecs__get_n(const ecs_world *w, const char *call, ecs_entity e, uint32_t n, const ecs_component *comps,
                       void **out, bool mut) {
    ecs_storage *st[ECS_MAX_TERMS];
    uint32_t k, rows[ECS_MAX_TERMS];
    if (!ecs__check_list(w, call, e, n, comps, out, "out", st) || !ecs_alive(w, e)) return false;
    for (k = 0; k < n; k++)
        if ((rows[k] = (uint32_t)ECS__ENTRY(st[k], (uint32_t)e)) == ECS__NO_ROW) return false;
    for (k = 0; k < n; k++) {
        if (mut) ecs__modified(st[k], rows[k], 1, true);
        out[k] = st[k]->data + (size_t)rows[k] * st[k]->size;
    }
    return true;
}
ECS__FN bool ecs_get_n(const ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps, const void **out) {
    ECS__WORLD(w, false);
    return ecs__get_n(w, "ecs_get_n", e, n, comps, (void **)(void *)out, false);
}
ECS__FN bool ecs_get_mut_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps, void **out) {
    ECS__WORLD(w, false);
    return ecs__get_n(w, "ecs_get_mut_n", e, n, comps, out, true);
}

/* remove_n / delete_n: ecs__remove_all over those of comps e has. */
static uint32_t ecs__take_n(ecs_world *w, const char *call, ecs_entity e, uint32_t n, const ecs_component *comps,
                            void *const *outs, bool deletion) {
    ecs_storage *st[ECS_MAX_TERMS];
    uint32_t k, taken = 0;
    if (!ecs__check_list(w, call, e, n, comps, NULL, NULL, st) || !ecs_alive(w, e)) return 0;
    for (k = 0; k < n; k++)
        if ((uint32_t)ECS__ENTRY(st[k], (uint32_t)e) == ECS__NO_ROW) st[k] = NULL;
    return ecs__remove_all(w, call, e, st, n, outs, deletion, false, &taken) < 0 ? 0 : taken;
}
ECS__FN uint32_t ecs_remove_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps, void *const *outs) {
    ECS__WORLD(w, 0);
    return ecs__take_n(w, "ecs_remove_n", e, n, comps, outs, false);
}
ECS__FN uint32_t ecs_delete_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps) {
    ECS__WORLD(w, 0);
    return ecs__take_n(w, "ecs_delete_n", e, n, comps, NULL, true);
}

/* --- bundles ------------------------------------------------------------------ */
/* The inline cases (ecs_add_n, ecs_create_n in the header) take the
   common case; everything else is the insert path. */
ECS__FN bool ecs__add_n(ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps,
                        const void *const *values) {
    ECS__WORLD_IN(w, "ecs_add_n", false);
    if (!ecs_alive(w, e)) return ecs__report(w, ECS__M_DEAD, "ecs_add_n", e, n && comps ? comps[0] : 0), false;
    return ecs__insert(w, "ecs_add_n", &e, 1, false, n, comps, values);
}
ECS__FN ecs_entity ecs__create_n(ecs_world *w, uint32_t n, const ecs_component *comps, const void *const *values) {
    ecs_entity e = ECS_NULL;
    ECS__WORLD_IN(w, "ecs_create_n", ECS_NULL);
    return ecs__insert(w, "ecs_create_n", &e, 1, true, n, comps, values) ? e : ECS_NULL;
}
ECS__FN bool ecs_create_bulk(ecs_world *w, uint32_t count, uint32_t n, const ecs_component *comps,
                             const void *const *values, ecs_entity *out) {
    ECS__WORLD(w, false);
    return ecs__insert(w, "ecs_create_bulk", out, count, true, n, comps, values);
}

/* ------------------------------------------------------------------------- */
/* Views                                                                     */
/* ------------------------------------------------------------------------- */
/* A view walks one storage, its lead, from its last row down, and matches
   each entity against the other terms. Walking down makes removing the
   current entity safe: the swap-remove moves the last row, already
   visited, into the current one. The lead is the shortest required term
   unless the desc names one; a view with no required term but ECS_ANY
   terms is a union: it walks each ANY storage in turn, and an entity an
   earlier one produced is skipped.

   The walk goes in runs, each a value: first row lo, rows left, each
   term's values (fst, bias), and what is tested at each row (probe,
   filter). One function decides a run, at its top row (ecs__iter_plan):
     - aligned: every value term holds the lead's entity at the lead's
       row (compared by dense arrays, or known from a group or the in-step
       memo) all the way down, and nothing is tested: one block;
     - probe: anything else, ECS__PROBE_RUN rows at a time; the terms
       aligned over the whole run keep their arrays, the others are
       looked up at each row (ecs__iter_match, inline).
   ecs_iter_next_block hands out the blocks; the per-entity loops walk
   them. */

/* Rows a probe run tests before the walk looks again whether the storages
   fell in step: long enough that looking costs nothing per row, short
   enough that an aligned stretch is not missed for long. */
#define ECS__PROBE_RUN 256u
/* Aligned runs shorter than this are tested row by row instead: setting up
   a block costs about what testing this many rows does. */
#define ECS__MIN_ALIGNED 8u

/* --- the in-step memo ------------------------------------------------------ */
/* world->instep remembers pairs of storages found to hold the same
   entities in rows 0..n-1, with both change counters at the time: that
   stays true until either changes a row other than by appending, so a walk
   over storages filled together compares their entity arrays once, not
   every frame (at 1M entities the compare reads as many bytes as the
   loop). Views on several threads read and write it at once
   (ecs_iter_chunk, the systems of a batch), so each entry is a seqlock: a
   writer makes seq odd, writes, then makes it even again; a reader keeps
   what it read only if seq was even and unchanged around its reads.
   Without atomics (tcc, MSVC's C) the memo is not used. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__)
#define ECS__MEMO 1
#define ECS__ALOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define ECS__ASTORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#else
#define ECS__MEMO 0
#endif

static uint32_t ecs__in_step(const ecs_world *w, const ecs_storage *a, const ecs_storage *b) {
#if ECS__MEMO
    uint32_t k, lo = a->id < b->id ? a->id : b->id, hi = a->id ^ b->id ^ lo;
    uint64_t ca = a->id == lo ? a->changes : b->changes, cb = a->id == lo ? b->changes : a->changes;
    for (k = 0; k < ECS__INSTEP; k++) {
        const ecs__instep *m = &w->instep[k];
        uint32_t seq = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE), n;
        bool hit = !(seq & 1u) && ECS__ALOAD(&m->a) == lo && ECS__ALOAD(&m->b) == hi &&
                   ECS__ALOAD(&m->ca[0]) == (uint32_t)ca && ECS__ALOAD(&m->ca[1]) == (uint32_t)(ca >> 32) &&
                   ECS__ALOAD(&m->cb[0]) == (uint32_t)cb && ECS__ALOAD(&m->cb[1]) == (uint32_t)(cb >> 32);
        n = ECS__ALOAD(&m->n);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (hit && ECS__ALOAD(&m->seq) == seq) return n;
    }
#else
    (void)w, (void)a, (void)b;
#endif
    return 0;
}

static void ecs__set_in_step(ecs_world *w, const ecs_storage *a, const ecs_storage *b, uint32_t n) {
#if ECS__MEMO
    uint32_t k, slot = ECS__ALOAD(&w->instep_next) % ECS__INSTEP, seq, lo = a->id < b->id ? a->id : b->id;
    uint32_t hi = a->id ^ b->id ^ lo;
    uint64_t ca = a->id == lo ? a->changes : b->changes, cb = a->id == lo ? b->changes : a->changes;
    ecs__instep *m;
    for (k = 0; k < ECS__INSTEP; k++) /* the pair's own entry, if it has one */
        if (ECS__ALOAD(&w->instep[k].a) == lo && ECS__ALOAD(&w->instep[k].b) == hi) slot = k;
    ECS__ASTORE(&w->instep_next, slot + 1);
    m = &w->instep[slot];
    seq = ECS__ALOAD(&m->seq);
    if ((seq & 1u) || !__atomic_compare_exchange_n(&m->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return; /* another writer: skip */
    __atomic_thread_fence(__ATOMIC_RELEASE); /* the odd seq before the fields */
    ECS__ASTORE(&m->a, lo);
    ECS__ASTORE(&m->b, hi);
    ECS__ASTORE(&m->ca[0], (uint32_t)ca);
    ECS__ASTORE(&m->ca[1], (uint32_t)(ca >> 32));
    ECS__ASTORE(&m->cb[0], (uint32_t)cb);
    ECS__ASTORE(&m->cb[1], (uint32_t)(cb >> 32));
    ECS__ASTORE(&m->n, n);
    __atomic_store_n(&m->seq, seq + 2, __ATOMIC_RELEASE);
#else
    (void)w, (void)a, (void)b, (void)n;
#endif
}

/* A bulk create appended the same entities in the same order to each of
   its storages, `count` rows: a pair that held the same entities in all
   its rows before does so now. The pairs of its first four storages are
   remembered, so the first walk over a batch compares nothing. */
static void ecs__bulk_in_step(ecs_world *w, uint32_t n, ecs_storage *const *st, uint32_t count) {
    uint32_t i, j;
    for (i = 0; i < n && i < 4; i++)
        for (j = i + 1; j < n && j < 4; j++) {
            const ecs_storage *a = st[i], *b = st[j];
            uint32_t before = a->count - count;
            if (b->count == a->count && (!before || ecs__in_step(w, a, b) >= before)) ecs__set_in_step(w, a, b, a->count);
        }
}

/* The lowest row >= lo from which s holds the lead's entities at the
   lead's rows up to top - 1 (top: not even there). */
static uint32_t ecs__aligned_from(const ecs_world *w, const ecs_storage *lead, const ecs_storage *s, uint32_t lo,
                                  uint32_t top) {
    uint32_t from = ecs__in_step(w, lead, s); /* rows below are known in step */
    if (top > s->count) return top;
    if (from < lo) from = lo;
    if (top <= from || !memcmp(lead->dense + from, s->dense + from, (size_t)(top - from) * sizeof *s->dense))
        return lo;
    while (top > from && lead->dense[top - 1] == s->dense[top - 1]) top--;
    return top;
}

/* --- making a view ----------------------------------------------------------- */

enum { ECS__IT_DONE, ECS__IT_VIEW, ECS__IT_UNION };

/* What term k must be at each row of the current lead (ECS__P_*). */
static uint32_t ecs__want(const ecs_iter *it, uint32_t k) {
    uint32_t f = it->flags[k];
    if ((f & ECS_NOT) || (it->mode == ECS__IT_UNION && (f & ECS_ANY) && k < it->lead_term)) return ECS__P_NOT;
    if (f & ECS_OPTIONAL) return ECS__P_MAY;
    if (f & ECS_ANY) return it->mode == ECS__IT_UNION ? ECS__P_MAY : ECS__P_ANY;
    return ECS__P_HAS;
}

/* Is term k right at every row of the walk by the group it walks (owned:
   aligned; excluded: absent), or by the cached query whose tag leads? */
static bool ecs__query_implies(const ecs_world *w, const ecs_storage *tag, const ecs_storage *s, uint32_t flags);
static bool ecs__trusted(const ecs_iter *it, uint32_t k) {
    const ecs_storage *s = it->st[k];
    if (it->lead->query && ecs__query_implies(it->world, it->lead, s, it->flags[k])) return true;
    if (!it->group) return false;
    if (ecs__owner(s) == it->group) return !(it->flags[k] & ECS_NOT);
    return (it->flags[k] & ECS_NOT) && ecs__excludes_group(s, it->group);
}

/* A view whose required terms include all of a group's owned storages and
   whose ECS_NOT terms include all its excluded ones matches only entities
   of the group: it walks rows 0..len-1 of an owned storage, where the
   owned terms are aligned and the excluded ones absent by construction. */
static void ecs__view_group(ecs_world *w, ecs_iter *it) {
    uint32_t k, j, hits = 0;
    const ecs__group *g;
    ecs_storage *lead = NULL;
    for (k = 0; k < it->nterms && !lead; k++)
        if (!(it->flags[k] & (ECS_NOT | ECS_OPTIONAL | ECS_ANY)) && ecs__owner(it->st[k])) lead = it->st[k];
    if (!lead) return;
    g = &w->groups[ecs__owner(lead) - 1];
    for (j = 0; j < g->nowned + g->nexcluded; j++)
        for (k = 0; k < it->nterms; k++) {
            bool owned = j < g->nowned;
            uint32_t f = it->flags[k];
            if (it->st[k]->id == (owned ? g->owned[j] : g->excluded[j - g->nowned]) &&
                (owned ? !(f & (ECS_NOT | ECS_OPTIONAL | ECS_ANY)) : (f & ECS_NOT) != 0)) {
                hits++;
                break;
            }
        }
    if (hits != g->nowned + g->nexcluded || g->len > it->lead->count) return;
    for (k = 0; k < it->nterms; k++)
        if (it->st[k] == lead) it->lead_term = k;
    it->lead = lead;
    it->lo = g->len;
    it->group = ecs__owner(lead);
}

/* A view that yields nothing, after reporting msg (its argument: arg). */
static ecs_iter ecs__view_fail(ecs_iter *it, ecs_world *w, const char *call, int msg, ecs_component c,
                               const char *arg) {
    if (msg) ecs__report(w, msg, call, ECS_NULL, c, arg);
    memset(it, 0, sizeof *it);
    it->world = w;
    it->epoch = &w->epoch;
    return *it;
}

static int ecs__view_where(ecs_world *w, const char *call, ecs_iter *it, const ecs_view_desc *d, const ecs_storage *lead);
static ecs_iter ecs__view(ecs_world *w, const char *call, const ecs_view_desc *d) {
    ecs_iter it;
    uint32_t k, j;
    int lead = -1;
    memset(&it, 0, sizeof it);
    it.world = w;
    it.epoch = &w->epoch;
    if (!d) return ecs__view_fail(&it, w, call, ECS__M_NULL_ARG, 0, "desc");
    for (k = 0; k < ECS_MAX_TERMS && d->terms[k].c; k++) {
        ecs_component c = d->terms[k].c;
        uint32_t f = d->terms[k].flags;
        ecs_storage *s;
        if (c - 1u >= w->ncomponents) {
            ecs__bad_access(w, call, ECS_NULL, c, (size_t)-1);
            memset(&it, 0, sizeof it);
            it.world = w;
            it.epoch = &w->epoch;
            return it;
        }
        for (j = 0; j < k; j++)
            if (d->terms[j].c == c) return ecs__view_fail(&it, w, call, ECS__M_TWICE, c, NULL);
        if ((f & ~(uint32_t)(ECS_WRITE | ECS_NOT | ECS_OPTIONAL | ECS_ANY | ECS_INSERTED | ECS_MODIFIED)) ||
            ((f & ECS_NOT) && (f & ~(uint32_t)ECS_NOT)) || ((f & ECS_OPTIONAL) && (f & ECS_ANY)) ||
            ((f & (ECS_INSERTED | ECS_MODIFIED)) && (f & (ECS_OPTIONAL | ECS_ANY))))
            return ecs__view_fail(&it, w, call, ECS__M_TERM_FLAGS, c, NULL);
        s = it.st[k] = w->storages[c];
        if (s->query && !ecs__query_fresh(w, s->query)) return ecs__view_fail(&it, w, call, ECS__M_OOM, c, NULL);
        it.flags[k] = f;
        it.fst[k] = f & ECS_NOT ? &ecs__none : s;
        it.until[k] = s->count; /* entities created during the walk are not visited */
        it.tchanges[k] = (uint32_t)s->changes;
        if (((f & ECS_INSERTED) && !(s->track & ECS_TRACK_INSERTION)) ||
            ((f & ECS_MODIFIED) && !(s->track & ECS_TRACK_MODIFICATION)))
            return ecs__view_fail(&it, w, call, ECS__M_TERM_UNTRACKED, c, NULL);
        if (f & (ECS_INSERTED | ECS_MODIFIED)) { /* the window is fixed now; the ticks are fetched per run */
            ecs__filter *fl = &it.filter[it.nfilter++];
            fl->term = k;
            fl->since[0] = f & ECS_INSERTED ? (d->since ? d->since : s->clear_inserted) : ~(ecs_tick)0;
            fl->since[1] = f & ECS_MODIFIED ? (d->since ? d->since : s->clear_modified) : ~(ecs_tick)0;
        }
        if ((f & ECS_WRITE) && (s->track & ECS_TRACK_MODIFICATION)) it.mterm[it.nmark++] = (uint8_t)k;
        if (f & ECS_ANY) it.nany++;
        if (f & (ECS_NOT | ECS_OPTIONAL | ECS_ANY)) continue;
        if (d->lead ? c == d->lead : lead < 0 || s->count < it.st[lead]->count) lead = (int)k;
    }
    it.nterms = k;
    if (d->lead && lead < 0)
        return ecs__view_fail(&it, w, call, ECS__M_LEAD, d->lead, NULL);
    if (d->where.index) { /* an index term: it may lead (section 14) */
        int r = ecs__view_where(w, call, &it, d, lead < 0 ? NULL : it.st[lead]);
        if (r < 0) return ecs__view_fail(&it, w, call, 0, 0, NULL);
        it.mode = r == 2 ? ECS__IT_DONE : ECS__IT_VIEW;
        if (r) return it;
    }
    if (lead < 0) {
        if (!it.nany) return ecs__view_fail(&it, w, call, ECS__M_NO_LEAD, 0, NULL);
        for (k = 0; !(it.flags[k] & ECS_ANY); k++) {}
        lead = (int)k;
        it.mode = ECS__IT_UNION;
    } else {
        it.mode = ECS__IT_VIEW;
    }
    it.lead_term = (uint32_t)lead;
    it.lead = it.st[lead];
    it.lo = it.lead->count; /* the walk starts below row count: nothing pending */
    if (it.mode == ECS__IT_VIEW) ecs__view_group(w, &it);
    it.changes = it.lead->changes;
    for (k = 0; k < it.nfilter; k++) /* the lead's filter on one tick array goes first: the tight loop tests it */
        if (it.filter[k].term == it.lead_term && (it.flags[it.lead_term] & (ECS_INSERTED | ECS_MODIFIED)) !=
                                                     (ECS_INSERTED | ECS_MODIFIED)) {
            ecs__filter f = it.filter[k];
            it.filter[k] = it.filter[0];
            it.filter[0] = f;
            it.lead_filter = 1;
        }
    return it;
}

ECS__FN ecs_iter ecs_view(ecs_world *w, const ecs_view_desc *d) {
    ECS__WORLD(w, ecs__no_world_iter());
    return ecs__view(w, "ecs_view", d);
}

ECS__FN ecs_iter ecs_view_of(ecs_world *w, uint32_t n, const ecs_component *comps) {
    ECS__WORLD(w, ecs__no_world_iter());
    ecs_view_desc d;
    uint32_t k;
    memset(&d, 0, sizeof d);
    if (n > ECS_MAX_TERMS || (n && !comps)) {
        ecs_iter it;
        return ecs__view_fail(&it, w, "ecs_view_of", n > ECS_MAX_TERMS ? ECS__M_TOO_MANY_TERMS : ECS__M_NULL_ARG, 0,
                              "comps");
    }
    for (k = 0; k < n; k++) d.terms[k].c = comps[k];
    return ecs__view(w, "ecs_view_of", &d);
}

/* --- walking ------------------------------------------------------------------ */

/* The pointers a run keeps (the tested terms' page tables, the filters'
   ticks), fetched again whenever the epoch moved. A written term whose
   storage stopped tracking modification (ecs_track_set in the loop body)
   is marked no more, even once it tracks again. In release builds,
   after a change the rules of iteration forbid (rows of other entities
   removed; ECS_DEBUG asserts in ecs__iter_changed), the run is cut at the
   end of the arrays it reads by row, so the walk may skip entities but
   reads and writes nothing out of bounds. */
static void ecs__iter_refresh(ecs_iter *it) {
    uint32_t k, q, n = it->lead->count, looked = 0;
    ecs__seek *sk = &it->seek;
    for (k = q = 0; k < it->nmark; k++) /* a term whose storage stopped tracking modification: never again */
        if (it->st[it->mterm[k]]->track & ECS_TRACK_MODIFICATION) it->mterm[q++] = it->mterm[k];
    it->nmark = q;
    for (q = 0; q < it->nprobe; q++) looked |= 1u << it->probe[q].term;
    for (q = 0; q < it->nfilter; q++) { /* (NULL once tracking was turned off: nothing passes) */
        const ecs_storage *s = it->st[it->filter[q].term];
        it->filter[q].ticks[0] = it->flags[it->filter[q].term] & ECS_INSERTED ? s->inserted : NULL;
        it->filter[q].ticks[1] = it->flags[it->filter[q].term] & ECS_MODIFIED ? s->modified : NULL;
    }
    sk->run = it->lead->dense + it->lo;
    sk->pages = it->ntest ? it->st[it->probe[0].term]->pages : NULL;
    sk->ticks = NULL;
    if (it->lead_filter) { /* the lead's filter on one tick array: in the tight loop */
        const ecs__filter *f = &it->filter[0];
        if (!f->ticks[0] && !f->ticks[1]) { /* its tracking turned off in the body: the walk is over */
            it->mode = ECS__IT_DONE;
            it->first = 0;
            return;
        }
        sk->ticks = (f->ticks[0] ? f->ticks[0] : f->ticks[1]) + it->lo;
        sk->since = f->ticks[0] ? f->since[0] : f->since[1];
    }
    for (k = 0; k < it->nterms; k++) /* the arrays read by the lead's rows */
        if (!(looked >> k & 1u) && it->fst[k] == it->st[k] && it->st[k]->count < n) n = it->st[k]->count;
    if (it->lo + it->first > n) it->first = n > it->lo ? n - it->lo : 0;
    it->mark1 = it->each && !it->probing && it->nmark == 1 && it->st[it->mterm[0]]->modified ? it->st[it->mterm[0]]
                                                                                             : NULL;
    it->mbias = it->bias[it->mterm[0]];
    it->one = it->probing ? !it->merge : it->mark1 != NULL;
    it->key = *it->epoch;
}

/* The lead is used up: a union view moves on to its next ANY term. */
static bool ecs__iter_next_lead(ecs_iter *it) {
    uint32_t k;
    for (k = it->lead_term + 1; it->mode == ECS__IT_UNION && k < it->nterms; k++)
        if (it->flags[k] & ECS_ANY) break;
    if (it->mode != ECS__IT_UNION || k >= it->nterms) {
        it->mode = ECS__IT_DONE;
        it->lo = it->end = 0;
        return false;
    }
    it->lead_term = k;
    it->lead = it->st[k];
    it->lo = it->until[k] < it->lead->count ? it->until[k] : it->lead->count;
    it->changes = it->lead->changes;
    return true;
}

/* The next run, from the top of what is left of the lead (or the current
   run again when the epoch moved under it). False when the view is done.
   The one place a run's kind is decided: probe when a term must be
   tested at some row, else aligned. */
static void ecs__iter_changed(ecs_iter *it, uint32_t pos);
static uint32_t ecs__iter_merge(ecs_iter *it, uint32_t x);
static bool ecs__index_ordered(const struct ecs__index *ix);
static bool ecs__iter_plan(ecs_iter *it) {
    ecs_world *w = it->world;
    uint32_t k, q, top, lo, r, want[ECS_MAX_TERMS];
    bool probe, aligned[ECS_MAX_TERMS], any_aligned = false;
    if (it->mode == ECS__IT_DONE) return false;
    if (it->wix && it->wfreed != w->index_frees) { /* (its index, or its lead, may be gone) */
        ecs__report(w, ECS__M_INDEX_FREED, "ecs_iter_next", ECS_NULL, 0);
        it->mode = ECS__IT_DONE;
        return false;
    }
    if (ECS_DEBUG || it->lead->changes != it->changes) ecs__iter_changed(it, it->lo + it->first);
    if (it->first) { /* the arrays moved: the run goes on with its pointers fetched again */
        ecs__iter_refresh(it);
        return true;
    }
    for (;;) {
        top = it->lo < it->lead->count ? it->lo : it->lead->count;
        if (it->group && top > w->groups[it->group - 1].len) top = w->groups[it->group - 1].len;
        if (top > it->end) break;
        if (!ecs__iter_next_lead(it)) return false;
    }
    /* which terms hold the lead's entity at the lead's row r, top - 1? */
    r = top - 1;
    probe = it->nfilter || it->wix; /* an index term is tested at each entity */
    for (k = 0; k < it->nterms; k++) {
        const ecs_storage *s = it->st[k];
        want[k] = ecs__want(it, k);
        aligned[k] = k == it->lead_term ||
                     (want[k] != ECS__P_NOT && it->lead_term < ECS_MAX_TERMS && /* (an index's walk: none) */
                      (ecs__trusted(it, k) || (r < s->count && s->dense[r] == it->lead->dense[r])));
        probe |= want[k] == ECS__P_NOT ? !ecs__trusted(it, k) : !aligned[k];
    }
    lo = it->end;
    if (!probe) { /* an aligned run: how far down does every term stay aligned? */
        for (k = 0; k < it->nterms && !(lo > it->end && top - lo < ECS__MIN_ALIGNED); k++)
            if (k != it->lead_term && want[k] != ECS__P_NOT && !ecs__trusted(it, k)) {
                uint32_t from = ecs__aligned_from(w, it->lead, it->st[k], lo, top);
                lo = from > lo ? from : lo;
            }
        probe = lo > it->end && top - lo < ECS__MIN_ALIGNED; /* cut short by a term out of step */
        for (k = 0; !probe && !lo && k < it->nterms; k++) /* rows 0..top-1 are in step */
            if (k != it->lead_term && want[k] != ECS__P_NOT && !ecs__trusted(it, k))
                ecs__set_in_step(w, it->lead, it->st[k], top);
    }
    it->ntest = it->nprobe = 0;
    if (probe) { /* the terms aligned over the whole run keep their arrays; the others are looked up */
        lo = top - it->end > ECS__PROBE_RUN ? top - ECS__PROBE_RUN : it->end;
        for (k = 0; k < it->nterms; k++)
            if (k != it->lead_term && aligned[k] && !ecs__trusted(it, k))
                aligned[k] = ecs__aligned_from(w, it->lead, it->st[k], lo, top) == lo;
        for (q = 0; q < 2; q++) /* the tested terms first, then the looked-up ones */
            for (k = 0; k < it->nterms; k++) {
                bool tested = want[k] == ECS__P_NOT || want[k] == ECS__P_HAS;
                if (aligned[k] || (tested ? q : !q) || (want[k] == ECS__P_NOT && ecs__trusted(it, k))) continue;
                it->probe[it->nprobe].term = k;
                it->probe[it->nprobe++].want = want[k];
                it->ntest += tested;
            }
    }
    for (k = 0; k < it->nterms; k++) any_aligned |= aligned[k] && want[k] == ECS__P_ANY;
    it->needany = it->nany && it->mode == ECS__IT_VIEW && !any_aligned;
    it->merge = it->nprobe == it->ntest && !it->each && /* a per-entity loop tests each entity when it is reached */
                !(it->lead_term == ECS_MAX_TERMS && ecs__index_ordered(it->wix)); /* (key order goes down its rows) */
    for (q = 0; q < it->ntest; q++) it->merge &= (it->flags[it->probe[q].term] & ECS_NOT) != 0;
    for (k = 0; k < it->nterms; k++) { /* the terms looked up get theirs at each match */
        it->fst[k] = want[k] == ECS__P_NOT ? &ecs__none : it->st[k];
        it->bias[k] = lo;
    }
    it->probing = probe;
    it->lo = lo;
    it->first = top - lo;
    it->count = 0;
    it->seek.keep = it->ntest ? it->probe[0].want : 0;
    it->seek.want = it->seek.keep != 0;
    it->seek.bias = &it->bias[it->probe[0].term];
    it->seek.rest = it->ntest > 1 || it->nprobe > it->ntest || it->nfilter > it->lead_filter || it->needany || it->wix;
    ecs__iter_refresh(it);
    return true;
}

ECS__FN bool ecs_iter_chunk(ecs_iter *it, uint32_t k, uint32_t n) {
    uint64_t count, base;
    if (!it) {
        ECS_ASSERT(0, "ecs_iter_chunk: the iterator is NULL");
        return false;
    }
    if (it->mode == ECS__IT_UNION || !n || k >= n || it->entities) {
        ecs__report(it->world, it->mode == ECS__IT_UNION ? ECS__M_CHUNK_UNION : ECS__M_CHUNK_LATE, "ecs_iter_chunk",
                    ECS_NULL, 0);
        return false;
    }
    if (it->mode == ECS__IT_DONE) return true;
    base = it->end; /* the walk's rows, end..lo-1, before its first step */
    count = it->lo - it->end;
    it->end = (uint32_t)(base + count * k / n);
    it->lo = (uint32_t)(base + count * (k + 1) / n);
    return true;
}

/* The lead storage changed since the walk last looked; rows pos and up
   were handed out. A change at or above pos (the current entity, or rows
   already visited) is harmless; one below it may make the walk skip or
   repeat entities. The storage keeps the lowest row of each of its last
   ECS__CHANGE_RING changes; more changes than that since the walk last
   looked cannot be told apart, and assert too (a loop only ever removes
   its current entity, once per step). */
static void ecs__iter_changed(ecs_iter *it, uint32_t pos) {
#if ECS_DEBUG
    uint32_t t, looked = 0;
    uint64_t k;
    ecs_entity cur = it->cur;
    for (t = 0; t < it->nprobe; t++) looked |= 1u << it->probe[t].term;
    for (t = 0; t <= it->nterms; t++) { /* the lead (first), then the terms read by its rows (aligned) */
        ecs_storage *s = t ? it->st[t - 1] : it->lead;
        uint64_t n = t ? (uint32_t)((uint32_t)s->changes - it->tchanges[t - 1]) : s->changes - it->changes;
        const char *by;
        bool bad;
        if (t) it->tchanges[t - 1] = (uint32_t)s->changes;
        if (!n || (t && (s == it->lead || it->fst[t - 1] != s || (looked >> (t - 1) & 1u) || ecs__trusted(it, t - 1))))
            continue; /* (a term trusted by a group moves with the lead; one by a query's tag is not read by row) */
        by = s->changed_by ? ecs__call_part(s->changed_by, 0) : "a call";
        bad = n > ECS__CHANGE_RING;
        for (k = 0; !bad && k < n; k++) bad = s->changed_rows[(s->changes - 1 - k) % ECS__CHANGE_RING] < pos;
        if (!t && !bad && it->mode == ECS__IT_UNION && it->entities && ecs__row(s, cur) == ECS__NO_ROW)
            for (k = it->lead_term + 1; k < it->nterms; k++)
                if ((it->flags[k] & ECS_ANY) && ecs__row(it->st[k], cur) != ECS__NO_ROW) {
                    ecs__report(it->world, ECS__M_WALK_UNION, "ecs_iter_next", cur, s->id, by, s->name, it->st[k]->name);
                    break;
                }
        if (bad) {
            ecs__report(it->world, n > ECS__CHANGE_RING ? ECS__M_WALK_MANY : ECS__M_WALK_CHANGED, "ecs_iter_next", cur,
                        s->id, by, s->name);
            break;
        }
    }
#else
    (void)pos;
#endif
    it->changes = it->lead->changes;
}

/* The tests of a probe run's entity x after the tight loop's (ecs__test):
   the other tested terms, the looked-up ones, then the other filters.
   Sets the value of every term it looks at. */
static bool ecs__index_match(const ecs__index *ix, ecs_entity e, uint32_t b, const uint64_t *key, const char *const *str,
                             const uint64_t *had);
ECS__FN bool ecs__iter_rest(ecs_iter *it, uint32_t x) {
    uint32_t idx = (uint32_t)it->seek.run[x], q, row, any = 0;
    for (q = 1; q < it->ntest; q++) { /* probe[0] is the tight loop's */
        const ecs__probe *p = &it->probe[q];
        row = (uint32_t)*ECS__ENTRY_IN(it->st[p->term]->pages, idx); /* idx is a live entity's */
        if ((row != ECS__NO_ROW) != (p->want != 0)) return false;
        it->bias[p->term] = (ecs__off)(row & p->want) - x;
    }
    for (q = it->ntest; q < it->nprobe; q++) {
        const ecs__probe *p = &it->probe[q];
        uint32_t has;
        row = (uint32_t)*ECS__ENTRY_IN(it->st[p->term]->pages, idx);
        has = row != ECS__NO_ROW;
        it->fst[p->term] = has ? it->st[p->term] : &ecs__none;
        it->bias[p->term] = (ecs__off)(has ? row : 0) - x;
        any |= has & (p->want == ECS__P_ANY);
    }
    if (it->needany && !any) return false;
    for (q = it->lead_filter; q < it->nfilter; q++) {
        const ecs__filter *f = &it->filter[q];
        ecs__off r = it->bias[f->term] + x;
        if (!((f->ticks[0] && f->ticks[0][r] > f->since[0]) || (f->ticks[1] && f->ticks[1][r] > f->since[1])))
            return false;
    }
    return !it->wix || ecs__index_match(it->wix, it->seek.run[x], it->where, it->wkey, (const char *const *)it->wstr, NULL);
}

/* The one place written terms are marked: the block's values of each
   written term whose storage tracks modification (ecs__modified). */
ECS__FN void ecs__iter_mark(const ecs_iter *it) {
    uint32_t m;
    for (m = 0; m < it->nmark; m++) {
        uint32_t k = it->mterm[m];
        if (it->fst[k] == it->st[k]) ecs__modified(it->st[k], (uint32_t)(it->bias[k] + it->first), it->count, true);
    }
}

/* The next block of the current run (entities first..first+count-1; the
   ones below first are still to come), else of the next run
   (ecs__iter_plan): in an aligned run the rest of the run, one entity at a
   time for a per-entity loop that marks (so that each is marked when it
   is reached); in a probe run the next match, in a block loop with the
   matches right below it when none of them has a tested value
   (ecs__iter_merge). Written terms are marked as the block is handed
   out. False when the view is done. */
ECS__FN bool ecs__iter_next(ecs_iter *it) {
    for (;;) {
        uint32_t x = it->first, n = 1;
        if (x && it->key == *it->epoch) {
            if (!it->probing) {
                if (it->mark1) ecs__modified(it->mark1, (uint32_t)(it->mbias + x - 1), 1, true);
                n = it->each && it->nmark ? 1 : x;
                x -= n;
            } else if (!(x = ecs__seek_down(it, &it->seek, x, 0))) {
                it->first = 0;
                continue;
            } else if (it->merge) {
                n = x - ecs__iter_merge(it, x - 1);
                x -= n;
            } else {
                x--;
            }
            it->first = x;
            it->count = n;
            it->entities = it->seek.run + x;
#if ECS_DEBUG
            it->cur = it->entities[n - 1];
#endif
            if (it->nmark && !it->mark1) ecs__iter_mark(it);
            return true;
        }
        if (!ecs__iter_plan(it)) return false;
    }
}

/* A block loop's probe run whose tested terms have no value (ECS_NOT
   only): the matches right below entity x (a match) join its block.
   Returns the lowest of them. */
static uint32_t ecs__iter_merge(ecs_iter *it, uint32_t x) {
    uint32_t q;
    while (x && ecs__seek_down(it, &it->seek, x, x - 1)) x--; /* entity x - 1 alone */
    for (q = 0; q < it->nprobe; q++) it->bias[it->probe[q].term] = -(ecs__off)x; /* no value at the block's first */
    return x;
}

/* ECS_DEBUG's per-entity step: checks the walk as ecs__iter_plan does at
   a new block, and stops the block (0) where a change the rules forbid
   cut it short: the run goes on from there, cut at the arrays' ends. */
ECS__FN int ecs__iter_step(ecs_iter *it) {
    uint32_t row = it->lo + it->i, k;
    ecs__iter_changed(it, row + 1); /* (the lead, and the terms aligned with it) */
    for (k = 0; k < it->nterms; k++)
        if (it->fst[k] == it->st[k] && (uint32_t)(it->bias[k] + it->i) >= it->st[k]->count) {
            it->first = it->i + 1; /* again from this entity, once the run is cut */
            it->key = it->world->epoch - 2u;
            return 0;
        }
    it->cur = it->lead->dense[row];
    return 1;
}

/* ecs_iter_entity after the lead changed in the body: the entity that left
   row `row` in the change that moved it, if one did since the block began. */
ECS__FN ecs_entity ecs__iter_entity(const ecs_iter *it, uint32_t row) {
    const ecs_storage *s = it->lead;
    uint64_t c;
    for (c = s->changes; c > it->changes && s->changes - c < ECS__CHANGE_RING; c--)
        if (s->changed_rows[(c - 1) % ECS__CHANGE_RING] == row) return s->changed_ents[(c - 1) % ECS__CHANGE_RING];
    return row < s->count ? s->dense[row] : ECS_NULL;
}

ECS__FN void ecs__bad_field(const ecs_iter *it, const char *call, uint32_t k, size_t size, bool block) {
    if (!it)
        ecs__report(NULL, ECS__M_NULL_ARG, call, ECS_NULL, 0, "the iterator");
    else if (k >= it->nterms)
        ecs__report(it->world, ECS__M_FIELD_INDEX, call, it->cur, 0, (unsigned long)k, (unsigned long)it->nterms);
    else if (size != (size_t)-1 && (size != it->st[k]->size || !ECS__TYPE_OK(it->st[k], call)))
        ecs__bad_access(it->world, call, it->cur, it->st[k]->id, size);
    else
        ecs__report(it->world, block ? ECS__M_BLOCK_IN_EACH : ECS__M_FIELD_IN_BLOCKS, call, it->cur, it->st[k]->id);
}

ECS__FN uint32_t ecs_visit(ecs_world *w, const ecs_view_desc *desc, void (*fn)(ecs_iter *it, void *ctx), void *ctx) {
    ECS__WORLD(w, 0);
    ecs_iter it;
    uint32_t n = 0;
    if (!fn) {
        ecs__report(w, ECS__M_NULL_ARG, "ecs_visit", ECS_NULL, 0, "fn");
        return 0;
    }
    it = ecs__view(w, "ecs_visit", desc);
    ECS_EACH(&it) {
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

enum { ECS__CMD_DESTROY, ECS__CMD_ADD, ECS__CMD_REMOVE, ECS__CMD_DELETE, ECS__CMD_SPAWN };

typedef struct ecs__cmd {
    ecs_entity e;
    uint32_t op;
    ecs_component c;
    uint32_t size;
    uint32_t pad_;
} ecs__cmd;

/* A record's bytes: the header, then the value at ECS__REC_VALUE, aligned
   as any component's may need (a reducer reads it in place), padded (in
   64 bits: a value may be nearly 4 GB; ecs__record keeps the buffer below
   4 GB). */
#define ECS__REC_ALIGN ((uint64_t)(ECS_MAX_ALIGN > 8 ? ECS_MAX_ALIGN : 8))
#define ECS__REC_VALUE ((sizeof(ecs__cmd) + ECS__REC_ALIGN - 1) / ECS__REC_ALIGN * ECS__REC_ALIGN)
#define ECS__REC_PAD(bytes) (((uint64_t)(bytes) + ECS__REC_ALIGN - 1) & ~(ECS__REC_ALIGN - 1)) /* (a phase's pieces too) */
static uint64_t ecs__rec_size(uint32_t size) { return ECS__REC_VALUE + ECS__REC_PAD(size); }

/* Appends a record to a buffer of records (the command buffer, or a
   phase's proposals); touches nothing else of w (threads record at once). */
static bool ecs__push_record(ecs_world *w, unsigned char **buf, uint32_t *len, uint32_t *cap, uint32_t op,
                             ecs_entity e, ecs_component c, const void *value, uint32_t size) {
    ecs__cmd cmd;
    uint64_t rec = ecs__rec_size(size);
    if (*len + rec > *cap && (*len + rec > 0xffffffffu || (size_t)(*len + rec) != *len + rec ||
                              !ecs__grow(w, (void **)buf, cap, (uint32_t)(*len + rec), *len, 1)))
        return false;
    memset(&cmd, 0, sizeof cmd);
    cmd.e = e;
    cmd.op = op;
    cmd.c = c;
    cmd.size = size;
    memset(*buf + *len, 0, ECS__REC_VALUE);
    memcpy(*buf + *len, &cmd, sizeof cmd);
    if (size) {
        if (value)
            ecs__copy(*buf + *len + ECS__REC_VALUE, value, size);
        else
            memset(*buf + *len + ECS__REC_VALUE, 0, size);
    }
    *len += (uint32_t)rec;
    return true;
}
static bool ecs__record(ecs_world *w, const char *call, uint32_t op, ecs_entity e, ecs_component c,
                        const void *value, uint32_t size) {
    if (ecs__world_locked(w, call, e, c)) return false;
    if (ecs__push_record(w, &w->cmds, &w->cmds_len, &w->cmds_cap, op, e, c, value, size)) return true;
    ecs__report(w, ECS__M_OOM, call, e, c);
    return false;
}

ECS__FN ecs_entity ecs_defer_create(ecs_world *w) {
    ECS__WORLD(w, 0);
    if (!ecs__reserve_slots(w, "ecs_defer_create", 1, 0)) return ECS_NULL;
    return ecs__take_tracked(w);
}

/* e is or was a live entity (its version is at most its slot's): a
   command for it is skipped if it is dead by then. Any other value could
   become the id of a later entity, so it is not recorded. */
static bool ecs__issued(const ecs_world *w, ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e), v = ECS_ENTITY_VERSION(e), cur;
    if (i >= w->nslots || !v) return false;
    cur = w->versions[i];
    if (!(cur & ECS__DEAD)) return v <= cur;
    cur &= ~ECS__DEAD; /* the next version: every one below it was issued (all, when the slot retired) */
    return cur == ECS__RETIRED ? v <= ECS_VERSION_MAX : v < cur;
}

ECS__FN bool ecs_defer_destroy(ecs_world *w, ecs_entity e) {
    ECS__WORLD(w, false);
    if (!ecs__issued(w, e)) return false; /* a later entity could get this id */
    return ecs__record(w, "ecs_defer_destroy", ECS__CMD_DESTROY, e, 0, NULL, 0);
}

static bool ecs__defer_add(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                           const void *value, size_t size) {
    ecs_storage *s = ecs__check(w, call, e, c, size);
    if (s && s->query) return ecs__report(w, ECS__M_QUERY_TAG, call, e, c), false; /* (refused now, not at the flush) */
    return s && ecs__record(w, call, ECS__CMD_ADD, e, c, value, s->size);
}
ECS__FN bool ecs_defer_add(ecs_world *w, ecs_entity e, ecs_component c, const void *value) {
    ECS__WORLD(w, false);
    return ecs__defer_add(w, "ecs_defer_add", e, c, value, (size_t)-1);
}
ECS__FN bool ecs__defer_add_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c, const void *value,
                                  size_t size) {
    ECS__WORLD_IN(w, call, false);
    return !ecs__type_wrong(w, call, e, c, size) && ecs__defer_add(w, call, e, c, value, size);
}

static bool ecs__defer_take(ecs_world *w, const char *call, uint32_t op, ecs_entity e, ecs_component c) {
    if (!ecs__comp(w, call, e, c, (size_t)-1)) return false;
    if (w->storages[c]->query) return ecs__report(w, ECS__M_QUERY_TAG, call, e, c), false;
    if (!ecs__issued(w, e)) return false; /* a later entity could get this id */
    return ecs__record(w, call, op, e, c, NULL, 0);
}
ECS__FN bool ecs_defer_remove(ecs_world *w, ecs_entity e, ecs_component c) {
    ECS__WORLD(w, false);
    return ecs__defer_take(w, "ecs_defer_remove", ECS__CMD_REMOVE, e, c);
}
ECS__FN bool ecs_defer_delete(ecs_world *w, ecs_entity e, ecs_component c) {
    ECS__WORLD(w, false);
    return ecs__defer_take(w, "ecs_defer_delete", ECS__CMD_DELETE, e, c);
}

/* Does a queued command name component c? */
static bool ecs__cmds_name(const ecs_world *w, ecs_component c) {
    uint32_t at = w->cmds_head;
    ecs__cmd cmd;
    for (; at < w->cmds_len; at += (uint32_t)ecs__rec_size(cmd.size)) {
        memcpy(&cmd, w->cmds + at, sizeof cmd);
        if (cmd.c == c) return true;
    }
    return false;
}

ECS__FN uint32_t ecs_defer_pending(const ecs_world *w) {
    ECS__WORLD(w, 0);
    uint32_t n = 0, at = w->cmds_head;
    while (at < w->cmds_len) {
        ecs__cmd cmd;
        memcpy(&cmd, w->cmds + at, sizeof cmd);
        at += (uint32_t)ecs__rec_size(cmd.size);
        n++;
    }
    return n;
}

ECS__FN uint32_t ecs_flush(ecs_world *w) {
    ECS__WORLD(w, 0);
    uint32_t applied = 0;
    if (w->guard) { /* a locked storage would refuse commands: they stay queued */
        ecs__report(w, ECS__M_REFUSED, "ecs_flush", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return 0;
    }
    while (w->cmds_head < w->cmds_len) {
        ecs__cmd cmd;
        bool ok = false;
        ecs_error kept = w->err; /* (the last error so far: this command's own, if any, replaces it) */
        memcpy(&cmd, w->cmds + w->cmds_head, sizeof cmd);
        w->err = ECS_OK;
        if (!ecs_alive(w, cmd.e)) { /* destroyed since it was recorded: nothing to do */
        } else if (cmd.op == ECS__CMD_DESTROY) {
            ok = ecs__destroy(w, cmd.e, "ecs_flush", NULL);
        } else if (cmd.op == ECS__CMD_ADD) {
            ok = ecs__add(w, "ecs_flush", cmd.e, cmd.c, w->cmds + w->cmds_head + ECS__REC_VALUE, (size_t)-1) != NULL;
        } else {
            ok = ecs__take(w, "ecs_flush", cmd.e, cmd.c, NULL, (size_t)-1, cmd.op == ECS__CMD_DELETE);
        }
        if (!ok && w->err == ECS_ERR_OUT_OF_MEMORY && ecs_alive(w, cmd.e)) {
            return applied; /* out of memory: this and later records stay queued */
        }
        if (w->err == ECS_OK) w->err = kept;
        applied += ok;
        w->cmds_head += (uint32_t)ecs__rec_size(cmd.size);
    }
    w->cmds_head = w->cmds_len = 0;
    return applied;
}

/* ------------------------------------------------------------------------- */
/* Sorting                                                                   */
/* ------------------------------------------------------------------------- */

/* Stably sorts rows 0..n-1 of key by cmp and applies the same permutation
   to each storage of apply[] (key itself, or every storage of a group).
   Scratch: 8 bytes per row; on failure nothing moved. While cmp runs, the
   storages being sorted are locked: it may read anything, but no row of
   them may come or go (section 18). */
static bool ecs__sort_rows(ecs_world *w, const char *call, ecs_storage *key, uint32_t n,
                           ecs_sort_fn cmp, void *ctx, ecs_storage *const *apply, uint32_t napply) {
    uint32_t *perm, *tmp, width, i, a, *src, *dst;
    if (!cmp) {
        ecs__report(w, ECS__M_NULL_ARG, call, ECS_NULL, key->id, "the comparator");
        return false;
    }
    if (n < 2) return true;
    perm = (uint32_t *)ecs__alloc_n(w, n, sizeof *perm);
    tmp = (uint32_t *)ecs__alloc_n(w, n, sizeof *tmp);
    if (!perm || !tmp) {
        ecs__free(w, perm, (size_t)n * sizeof *perm);
        ecs__free(w, tmp, (size_t)n * sizeof *tmp);
        ecs__report(w, ECS__M_OOM, call, ECS_NULL, key->id);
        return false;
    }
    /* bottom-up merge sort of row numbers (64-bit bounds: n may be ~2^32) */
    for (a = 0; a < napply; a++) apply[a]->locked++;
    w->guard++;
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
                const void *vx = key->size ? key->data + (size_t)rx * key->size : NULL;
                const void *vy = key->size ? key->data + (size_t)ry * key->size : NULL;
                dst[o++] = cmp(key->dense[rx], vx, key->dense[ry], vy, ctx) <= 0 ? src[x++] : src[y++];
            }
            while (x < mid) dst[o++] = src[x++];
            while (y < hi) dst[o++] = src[y++];
        }
        t = src;
        src = dst;
        dst = t;
        if (width > n / 2) break; /* the next doubling could overflow */
    }
    w->guard--;
    for (a = 0; a < napply; a++) apply[a]->locked--;
    /* src[i] = the old row that goes to row i (permuting uses up a copy) */
    for (a = 0; a < napply; a++) {
        memcpy(dst, src, (size_t)n * sizeof *dst);
        ecs__permute(w, apply[a], dst, n, call);
    }
    ecs__free(w, perm, (size_t)n * sizeof *perm);
    ecs__free(w, tmp, (size_t)n * sizeof *tmp);
    return true;
}

/* An owned storage keeps its group's rows in front: only the group sorts it. */
static bool ecs__owned(ecs_world *w, const char *call, const ecs_storage *s) {
    if (!ecs__owner(s)) return false;
    ecs__report(w, ECS__M_OWNED, call, ECS_NULL, s->id);
    return true;
}

/* A sort's checks: s is not a group's, nor locked. ecs_sort_as moves
   rows and calls nothing back: a cached query's tag may be sorted so
   (its_tag: let through as the query's own updates are); ecs_sort's
   comparator could change the query's terms while the tag is locked. */
static bool ecs__sort_refused(ecs_world *w, const char *call, ecs_storage *s, bool its_tag) {
    bool refused;
    if (ecs__world_locked(w, call, ECS_NULL, s->id)) return true; /* (first: systems of a batch may be here at once, and query_update is the world's) */
    w->query_update += its_tag;
    refused = ecs__owned(w, call, s) || ecs__locked(w, call, ECS_NULL, s);
    w->query_update -= its_tag;
    return refused;
}

ECS__FN bool ecs_sort(ecs_world *w, ecs_component c, ecs_sort_fn cmp, void *ctx) {
    ECS__WORLD(w, false);
    ecs_storage *s;
    if (!ecs__comp(w, "ecs_sort", ECS_NULL, c, (size_t)-1)) return false;
    s = w->storages[c];
    if (ecs__sort_refused(w, "ecs_sort", s, false)) return false;
    return ecs__sort_rows(w, "ecs_sort", s, s->count, cmp, ctx, &s, 1);
}

ECS__FN bool ecs_sort_as(ecs_world *w, ecs_component c, ecs_component order) {
    ECS__WORLD(w, false);
    ecs_storage *s, *o;
    uint32_t i, pos = 0;
    if (c - 1u >= w->ncomponents || order - 1u >= w->ncomponents) {
        ecs__bad_access(w, "ecs_sort_as", ECS_NULL, c - 1u >= w->ncomponents ? c : order, (size_t)-1);
        return false;
    }
    s = w->storages[c];
    o = w->storages[order];
    if (ecs__sort_refused(w, "ecs_sort_as", s, true)) return false;
    if (s == o) return true;
    for (i = 0; i < o->count; i++) {
        uint32_t r = (uint32_t)ECS__ENTRY(s, (uint32_t)o->dense[i]); /* o's entities are alive */
        if (r == ECS__NO_ROW) continue;
        ecs__swap(w, s, r, pos, "ecs_sort_as");
        pos++;
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Uniques                                                                   */
/* ------------------------------------------------------------------------- */
/* While a phase's systems run (section 16): a unique claimed by one of them
   is refused to everyone else, and no unique may be written. */
static bool ecs__phase_refuses(const ecs_world *w, const char *call, ecs_component c, bool write);

/* A unique is one value per component type, held by its storage, not by an
   entity. s->unique is NULL until added (a 1-byte block for tags). */

static void *ecs__unique_add(ecs_world *w, const char *call, ecs_component c, const void *value,
                             size_t size) {
    ecs_storage *s = ecs__comp(w, call, ECS_NULL, c, size);
    if (!s || (w->in_phase && ecs__phase_refuses(w, call, c, true))) return NULL;
    if (!s->unique) {
        if (!(s->unique = ecs__alloc(w, s->size ? s->size : 1))) {
            ecs__report(w, ECS__M_OOM, call, ECS_NULL, c);
            return NULL;
        }
        s->unique_inserted = w->tick;
        s->unique_modified = 0;
    } else {
        ecs__modified(s, ECS__NO_ROW, 1, false);
    }
    if (s->size) {
        if (value)
            memmove(s->unique, value, s->size);
        else
            memset(s->unique, 0, s->size);
    }
    return s->unique;
}

ECS__FN void *ecs_unique_add(ecs_world *w, ecs_component c, const void *value) {
    ECS__WORLD(w, NULL);
    return ecs__unique_add(w, "ecs_unique_add", c, value, (size_t)-1);
}
ECS__FN void *ecs__unique_add_sized(ecs_world *w, const char *call, ecs_component c, const void *value, size_t size) {
    ECS__WORLD_IN(w, call, NULL);
    return ecs__type_wrong(w, call, ECS_NULL, c, size) ? NULL : ecs__unique_add(w, call, c, value, size);
}

ECS__FN void *ecs__unique_get(const ecs_world *w, const char *call, ecs_component c, size_t size,
                              bool mut) {
    ECS__WORLD_IN(w, call, NULL);
    ecs_storage *s = ecs__comp(w, call, ECS_NULL, c, size);
    if (!s || ecs__type_wrong(w, call, ECS_NULL, c, size) || (w->in_phase && ecs__phase_refuses(w, call, c, mut)))
        return NULL;
    if (!s->unique) {
        ecs__report(w, ECS__M_NO_UNIQUE, call, ECS_NULL, c);
        return NULL;
    }
    if (mut) ecs__modified(s, ECS__NO_ROW, 1, true);
    return s->unique;
}
ECS__FN const void *ecs_unique_get(const ecs_world *w, ecs_component c) {
    ECS__WORLD(w, NULL);
    return ecs__unique_get(w, "ecs_unique_get", c, (size_t)-1, false);
}
ECS__FN void *ecs_unique_get_mut(ecs_world *w, ecs_component c) {
    ECS__WORLD(w, NULL);
    return ecs__unique_get(w, "ecs_unique_get_mut", c, (size_t)-1, true);
}

ECS__FN bool ecs_unique_has(const ecs_world *w, ecs_component c) {
    ECS__WORLD(w, false);
    const ecs_storage *s = ecs__comp(w, "ecs_unique_has", ECS_NULL, c, (size_t)-1);
    return s && s->unique;
}

static bool ecs__unique_remove(ecs_world *w, const char *call, ecs_component c, void *out, size_t size) {
    ecs_storage *s = ecs__comp(w, call, ECS_NULL, c, size);
    if (!s || !s->unique || (w->in_phase && ecs__phase_refuses(w, call, c, true))) return false;
    if (out && s->size) memcpy(out, s->unique, s->size);
    ecs__free(w, s->unique, s->size ? s->size : 1);
    s->unique = NULL;
    return true;
}
ECS__FN bool ecs_unique_remove(ecs_world *w, ecs_component c, void *out) {
    ECS__WORLD(w, false);
    return ecs__unique_remove(w, "ecs_unique_remove", c, out, (size_t)-1);
}
ECS__FN bool ecs__unique_remove_sized(ecs_world *w, const char *call, ecs_component c, void *out, size_t size) {
    ECS__WORLD_IN(w, call, false);
    return !ecs__type_wrong(w, call, ECS_NULL, c, size) && ecs__unique_remove(w, call, c, out, size);
}

/* ------------------------------------------------------------------------- */
/* Tracking                                                                  */
/* ------------------------------------------------------------------------- */
/* w->tick is the current time; every change is stamped with it. Taking a
   timestamp or clearing moves it on, so later changes are strictly newer.
   A change is "since S" when its tick > S; S = 0 means since the storage's
   last clear. Lists (removed, deleted, created, destroyed) are appended in
   tick order, so "since" is a binary search and "older than" a prefix. */

/* --- the records on the remove path ---------------------------------------- */
/* A storage that tracks removal or deletion has its records attached to
   its remove path: room for the record is reserved before anything
   changes (and promised to a removal of several components, whose hooks
   may record changes of their own meanwhile: ecs_strip, remove_n), then
   the record is made as the value goes. */
static ecs__changes *ecs__records_of(ecs_storage *s, bool deletion) {
    return s->track & (deletion ? ECS_TRACK_DELETION : ECS_TRACK_REMOVAL) ? deletion ? &s->deleted : &s->removed
                                                                           : NULL;
}
ECS__IMPL_HOT bool ecs__records_reserve(ecs_world *w, ecs_storage *s, bool deletion, int promise) {
    ecs__changes *l = ecs__records_of(s, deletion);
    if (!l) return true;
    if (promise < 0) {
        if (l->reserved) l->reserved--;
        return true;
    }
    if ((uint64_t)l->count + l->reserved >= l->cap && !ecs__changes_reserve(w, l, 1, deletion ? s->size : 0))
        return false;
    l->reserved += (uint32_t)promise;
    return true;
}
/* With no room reserved (a hook turned tracking on during a removal of
   several components) room is made here; when memory runs out the value
   goes unrecorded, reported (ECS_ERR_OUT_OF_MEMORY). */
ECS__IMPL_HOT void ecs__record_removal(ecs_world *w, ecs_storage *s, ecs_entity e, uint32_t row, bool deletion,
                                       const char *call) {
    ecs__changes *l = ecs__records_of(s, deletion);
    if (!l) return;
    if ((uint64_t)l->count + l->reserved >= l->cap && !ecs__changes_reserve(w, l, 1, deletion ? s->size : 0))
        ecs__report(w, ECS__M_NOT_RECORDED, call, e, s->id, deletion ? "a deletion" : "a removal");
    else
        ecs__changes_push(l, e, w->tick, s->data + (size_t)row * s->size, deletion ? s->size : 0);
}

/* Attaches the records to s's remove path when s->track asks for them,
   else detaches them; the caller made room on the path. */
static void ecs__records_attach(ecs_world *w, ecs_storage *s) {
    ecs__unlisten(w, s, ECS__ON_RECORDS);
    if (s->track & (ECS_TRACK_REMOVAL | ECS_TRACK_DELETION)) ecs__listen(w, s, ECS__ON_RECORDS, 0);
}

/* The room of ecs_destroy's record in the destroyed list, promised (1)
   before its components go, given back (-1) after. */
static bool ecs__track_destroying(ecs_world *w, ecs_entity e, int promise, const char *call) {
    ecs__changes *l = &w->destroyed;
    if (!w->track_entities) return true;
    if (promise < 0) {
        if (l->reserved) l->reserved--;
        return true;
    }
    if (!ecs__changes_reserve(w, l, 1, 0)) return ecs__report(w, ECS__M_OOM, call, e, 0), false;
    l->reserved++;
    return true;
}

ECS__FN bool ecs_track_set(ecs_world *w, ecs_component c, uint32_t flags) {
    ECS__WORLD(w, false);
    ecs_storage *s;
    ecs_tick *ins = NULL, *mod = NULL;
    bool want_ins = (flags & ECS_TRACK_INSERTION) != 0, want_mod = (flags & ECS_TRACK_MODIFICATION) != 0;
    bool records, had_records;
    if (c - 1u >= w->ncomponents || (flags & ~(uint32_t)ECS_TRACK_ALL)) {
        if (c - 1u >= w->ncomponents)
            ecs__bad_access(w, "ecs_track_set", ECS_NULL, c, (size_t)-1);
        else
            ecs__report(w, ECS__M_TRACK_FLAGS, "ecs_track_set", ECS_NULL, c, (unsigned long)flags);
        return false;
    }
    s = w->storages[c];
    if (s->index) flags |= ECS_TRACK_MODIFICATION, want_mod = true; /* its indexes see writes through it */
    records = (flags & (ECS_TRACK_REMOVAL | ECS_TRACK_DELETION)) != 0; /* on the remove path */
    had_records = (s->track & (ECS_TRACK_REMOVAL | ECS_TRACK_DELETION)) != 0;
    if (ecs__locked(w, "ecs_track_set", ECS_NULL, s)) return false; /* its remove path counts on its records */
    if ((s->cap && ((want_ins && !s->inserted && !(ins = (ecs_tick *)ecs__alloc_n(w, s->cap, sizeof *ins))) ||
                    (want_mod && !s->modified && !(mod = (ecs_tick *)ecs__alloc_n(w, s->cap, sizeof *mod))))) ||
        !ecs__grow(w, (void **)&s->listen, &s->listen_cap, s->nlisten + (records && !had_records), s->nlisten,
                   sizeof *s->listen)) {
        ecs__free(w, ins, (size_t)s->cap * sizeof *ins);
        ecs__free(w, mod, (size_t)s->cap * sizeof *mod);
        ecs__report(w, ECS__M_OOM, "ecs_track_set", ECS_NULL, c);
        return false;
    }
    if (ins) memset(ins, 0, (size_t)s->cap * sizeof *ins), s->inserted = ins; /* 0: before tracking */
    if (mod) memset(mod, 0, (size_t)s->cap * sizeof *mod), s->modified = mod;
    if (!want_ins) ecs__free(w, s->inserted, (size_t)s->cap * sizeof *ins), s->inserted = NULL;
    if (!want_mod) ecs__free(w, s->modified, (size_t)s->cap * sizeof *mod), s->modified = NULL;
    if (!(flags & ECS_TRACK_REMOVAL)) ecs__changes_free(w, &s->removed, 0);
    if (!(flags & ECS_TRACK_DELETION)) ecs__changes_free(w, &s->deleted, s->size);
    s->track = flags;
    ecs__records_attach(w, s); /* room made above */
    ECS__MOVED(w); /* views hold pointers to the tick arrays */
    return true;
}

ECS__FN uint32_t ecs_track_get(const ecs_world *w, ecs_component c) {
    ECS__WORLD(w, 0);
    const ecs_storage *s = ecs__comp(w, "ecs_track_get", ECS_NULL, c, (size_t)-1);
    return s ? s->track : 0;
}

/* Moves time on. Running views hold the tick their ECS_WRITE terms stamp
   with: bumping the epoch makes them fetch the new one. */
static ecs_tick ecs__advance(ecs_world *w) {
    ECS__MOVED(w);
    return w->tick++;
}

/* The clock and the lists are shared by every system of a workload (a
   batch may run on several threads, each stamping with the clock): they
   are moved outside runs only. */
/* The clock (and the windows it ends) stays while systems that stamp with
   it run together, maybe on other threads, and while a schedule runs. */
static bool ecs__clock_refused(ecs_world *w, const char *call) {
    if (ecs__world_locked(w, call, ECS_NULL, 0)) return true;
    if (w->clock_locked)
        ecs__report(w, ECS__M_REFUSED, call, ECS_NULL, 0, "a schedule or a batch of several systems");
    return w->clock_locked;
}

ECS__FN ecs_tick ecs_tick_advance(ecs_world *w) {
    ECS__WORLD(w, 0);
    return ecs__clock_refused(w, "ecs_tick_advance") ? 0 : ecs__advance(w);
}

/* Row of e in c, checking that c tracks `flag` (0: nothing to check). */
static uint32_t ecs__tracked_row(const ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                                 uint32_t flag) {
    const ecs_storage *s;
    if (!ecs__comp(w, call, e, c, (size_t)-1)) return ECS__NO_ROW;
    s = w->storages[c];
    if (flag && !(s->track & flag)) {
        ecs__report(w, ECS__M_UNTRACKED, call, e, c);
        return ECS__NO_ROW;
    }
    return ecs__row(s, e);
}

ECS__FN bool ecs_track_mark_modified(ecs_world *w, ecs_entity e, ecs_component c) {
    ECS__WORLD(w, false);
    uint32_t row = ecs__tracked_row(w, "ecs_track_mark_modified", e, c, 0);
    if (row == ECS__NO_ROW) return false;
    ecs__modified(w->storages[c], row, 1, false);
    return true;
}

static bool ecs__add_if_changed(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                                const void *value, size_t size) {
    ecs_storage *s = ecs__check(w, call, e, c, size);
    uint32_t row;
    if (!s) return false;
    if ((row = (uint32_t)ECS__ENTRY(s, (uint32_t)e)) == ECS__NO_ROW) return ecs__insert1(w, call, s, e, value) != NULL;
    if (!s->size || ecs__stripping(w, call, e, c)) return false;
    if (value) {
        if (memcmp(s->data + (size_t)row * s->size, value, s->size) == 0) return false;
    } else { /* NULL means zeroed, as everywhere */
        const unsigned char *v = s->data + (size_t)row * s->size;
        uint32_t k;
        for (k = 0; k < s->size && !v[k]; k++) {}
        if (k == s->size) return false;
    }
    ecs__replace(s, row, value);
    ecs__replaced(w, s, e);
    return true;
}
ECS__FN bool ecs_add_if_changed(ecs_world *w, ecs_entity e, ecs_component c, const void *value) {
    ECS__WORLD(w, false);
    return ecs__add_if_changed(w, "ecs_add_if_changed", e, c, value, (size_t)-1);
}
ECS__FN bool ecs__add_if_changed_sized(ecs_world *w, const char *call, ecs_entity e, ecs_component c,
                                       const void *value, size_t size) {
    ECS__WORLD_IN(w, call, false);
    return !ecs__type_wrong(w, call, e, c, size) && ecs__add_if_changed(w, call, e, c, value, size);
}

ECS__FN bool ecs_track_inserted(const ecs_world *w, ecs_entity e, ecs_component c, ecs_tick since) {
    ECS__WORLD(w, false);
    uint32_t row = ecs__tracked_row(w, "ecs_track_inserted", e, c, ECS_TRACK_INSERTION);
    const ecs_storage *s = row == ECS__NO_ROW ? NULL : w->storages[c];
    return s && s->inserted[row] > (since ? since : s->clear_inserted);
}
ECS__FN bool ecs_track_modified(const ecs_world *w, ecs_entity e, ecs_component c, ecs_tick since) {
    ECS__WORLD(w, false);
    uint32_t row = ecs__tracked_row(w, "ecs_track_modified", e, c, ECS_TRACK_MODIFICATION);
    const ecs_storage *s = row == ECS__NO_ROW ? NULL : w->storages[c];
    return s && s->modified[row] > (since ? since : s->clear_modified);
}
ECS__FN bool ecs_track_unique_inserted(const ecs_world *w, ecs_component c, ecs_tick since) {
    ECS__WORLD(w, false);
    const ecs_storage *s = ecs__comp(w, "ecs_track_unique_inserted", ECS_NULL, c, (size_t)-1);
    return s && s->unique && s->unique_inserted > (since ? since : s->clear_inserted);
}
ECS__FN bool ecs_track_unique_modified(const ecs_world *w, ecs_component c, ecs_tick since) {
    ECS__WORLD(w, false);
    const ecs_storage *s = ecs__comp(w, "ecs_track_unique_modified", ECS_NULL, c, (size_t)-1);
    return s && s->unique && s->unique_modified > (since ? since : s->clear_modified);
}

/* The entries of l with tick > since. */
static const ecs_change *ecs__changes_since(const ecs__changes *l, ecs_tick since, uint32_t *count) {
    uint32_t lo = 0, hi = l->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->items[mid].tick > since)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (count) *count = l->count - lo;
    return l->items ? l->items + lo : NULL;
}

static const ecs__changes *ecs__list(const ecs_world *w, const char *call, ecs_component c, uint32_t flag) {
    if (!ecs__comp(w, call, ECS_NULL, c, (size_t)-1)) return NULL;
    if (!(w->storages[c]->track & flag)) {
        ecs__report(w, ECS__M_UNTRACKED, call, ECS_NULL, c);
        return NULL;
    }
    return flag == ECS_TRACK_REMOVAL ? &w->storages[c]->removed : &w->storages[c]->deleted;
}

ECS__FN const ecs_change *ecs_track_removed(const ecs_world *w, ecs_component c, ecs_tick since, uint32_t *count) {
    if (count) *count = 0;
    ECS__WORLD(w, NULL);
    const ecs__changes *l = ecs__list(w, "ecs_track_removed", c, ECS_TRACK_REMOVAL);
    if (count) *count = 0;
    return l ? ecs__changes_since(l, since, count) : NULL;
}
ECS__FN const ecs_change *ecs_track_deleted(const ecs_world *w, ecs_component c, ecs_tick since, uint32_t *count) {
    if (count) *count = 0;
    ECS__WORLD(w, NULL);
    const ecs__changes *l = ecs__list(w, "ecs_track_deleted", c, ECS_TRACK_DELETION);
    if (count) *count = 0;
    return l ? ecs__changes_since(l, since, count) : NULL;
}
ECS__FN const void *ecs_track_deleted_value(const ecs_world *w, ecs_component c, const ecs_change *entry) {
    ECS__WORLD(w, NULL);
    const ecs__changes *l = ecs__list(w, "ecs_track_deleted_value", c, ECS_TRACK_DELETION);
    uintptr_t at = (uintptr_t)entry, base = l ? (uintptr_t)l->items : 0;
    if (!l || !entry || at < base || (at - base) / sizeof *entry >= l->count) {
        if (l) ecs__report(w, ECS__M_NOT_DELETED, "ecs_track_deleted_value", ECS_NULL, c);
        return NULL;
    }
    return w->storages[c]->size ? l->values + (at - base) / sizeof *entry * w->storages[c]->size
                                : (const void *)&w->storages[c]->tag_dummy;
}

static const ecs__changes *ecs__entity_list(const ecs_world *w, const char *call, const ecs__changes *l) {
    if (w->track_entities) return l;
    ecs__report(w, ECS__M_NO_ENTITY_TRACKING, call, ECS_NULL, 0);
    return NULL;
}
ECS__FN const ecs_change *ecs_track_created(const ecs_world *w, ecs_tick since, uint32_t *count) {
    if (count) *count = 0;
    ECS__WORLD(w, NULL);
    const ecs__changes *l = ecs__entity_list(w, "ecs_track_created", &w->created);
    if (count) *count = 0;
    return l ? ecs__changes_since(l, since, count) : NULL;
}
ECS__FN const ecs_change *ecs_track_destroyed(const ecs_world *w, ecs_tick since, uint32_t *count) {
    if (count) *count = 0;
    ECS__WORLD(w, NULL);
    const ecs__changes *l = ecs__entity_list(w, "ecs_track_destroyed", &w->destroyed);
    if (count) *count = 0;
    return l ? ecs__changes_since(l, since, count) : NULL;
}

ECS__FN uint32_t ecs_track_removed_or_deleted(const ecs_world *w, ecs_component c, ecs_tick since, ecs_change *out,
                                        uint32_t cap) {
    const ecs_change *r = NULL, *d = NULL;
    uint32_t nr = 0, nd = 0, i = 0, j = 0, n = 0;
    ecs_storage *s;
    ECS__WORLD(w, 0);
    if (!out && cap) { ecs__report(w, ECS__M_NULL_ARG, "ecs_track_removed_or_deleted", ECS_NULL, 0, "out (with cap > 0)"); return 0; }
    if (!ecs__comp(w, "ecs_track_removed_or_deleted", ECS_NULL, c, (size_t)-1)) return 0;
    s = w->storages[c];
    if (!(s->track & (ECS_TRACK_REMOVAL | ECS_TRACK_DELETION))) {
        ecs__report(w, ECS__M_UNTRACKED_LISTS, "ecs_track_removed_or_deleted", ECS_NULL, c);
        return 0;
    }
    if (s->track & ECS_TRACK_REMOVAL) r = ecs__changes_since(&s->removed, since, &nr);
    if (s->track & ECS_TRACK_DELETION) d = ecs__changes_since(&s->deleted, since, &nd);
    for (; i < nr || j < nd; n++) { /* merged by tick; removals first within a tick */
        const ecs_change *next = j >= nd || (i < nr && r[i].tick <= d[j].tick) ? &r[i++] : &d[j++];
        if (n < cap) out[n] = *next;
    }
    return n;
}

/* Drops the entries with tick <= t (all of them for t = ~0). */
static void ecs__changes_drop(ecs__changes *l, ecs_tick t, uint32_t vsize) {
    uint32_t n;
    ecs__changes_since(l, t, &n);
    if (n == l->count) return;
    memmove(l->items, l->items + (l->count - n), (size_t)n * sizeof *l->items);
    if (vsize) memmove(l->values, l->values + (size_t)(l->count - n) * vsize, (size_t)n * vsize);
    l->count = n;
}

/* all: ecs_track_clear (t is the last tick; the windows start again) */
static bool ecs__clear(ecs_world *w, const char *call, ecs_component c, uint32_t flags, ecs_tick t, bool all) {
    ecs_component first = c ? c : 1, last = c ? c : w->ncomponents;
    if (ecs__clock_refused(w, call)) return false;
    if (c - 1u >= w->ncomponents && c) {
        ecs__bad_access(w, call, ECS_NULL, c, (size_t)-1);
        return false;
    }
    if (flags & ~(uint32_t)(ECS_TRACK_ALL | ECS_TRACK_ENTITIES)) {
        ecs__report(w, ECS__M_TRACK_FLAGS, call, ECS_NULL, c, (unsigned long)flags);
        return false;
    }
    for (c = first; c <= last && c; c++) {
        ecs_storage *s = w->storages[c];
        if (all && (flags & ECS_TRACK_INSERTION)) s->clear_inserted = w->tick;
        if (all && (flags & ECS_TRACK_MODIFICATION)) s->clear_modified = w->tick;
        if (flags & ECS_TRACK_REMOVAL) ecs__changes_drop(&s->removed, t, 0);
        if (flags & ECS_TRACK_DELETION) ecs__changes_drop(&s->deleted, t, s->size);
    }
    if (flags & ECS_TRACK_ENTITIES) {
        ecs__changes_drop(&w->created, t, 0);
        ecs__changes_drop(&w->destroyed, t, 0);
    }
    return true;
}

ECS__FN void ecs_track_clear(ecs_world *w, ecs_component c, uint32_t flags) {
    ECS__WORLD(w, );
    if (ecs__clear(w, "ecs_track_clear", c, flags, ~(ecs_tick)0, true)) ecs__advance(w); /* what changes next is after the clear */
}

ECS__FN void ecs_track_clear_until(ecs_world *w, ecs_component c, uint32_t flags, ecs_tick t) {
    ECS__WORLD(w, );
    ecs__clear(w, "ecs_track_clear_until", c, flags, t, false);
}

/* ------------------------------------------------------------------------- */
/* Hooks                                                                     */
/* ------------------------------------------------------------------------- */
/* A hook runs attached to the insert path (on_insert, last) or the remove
   path (on_remove, first), with its storage locked (no insertion into or
   removal from it, so the value pointer stays valid) and its entity on the
   busy stack. Entities inside a hook, or being stripped, form that stack
   on the C stack: a hook may not destroy its own entity, and nothing may
   be added to an entity while it is being stripped. */

static void ecs__busy_push(ecs_world *w, ecs__busy *b, ecs_entity e, int kind) {
    b->e = e;
    b->kind = kind;
    b->prev = w->busy;
    w->busy = b;
    w->guard++;
}

static void ecs__busy_pop(ecs_world *w, ecs__busy *b) {
    w->busy = b->prev;
    w->guard--;
}

static int ecs__busy_kind(const ecs_world *w, ecs_entity e) {
    const ecs__busy *b;
    int kind = 0;
    for (b = w->busy; b; b = b->prev)
        if (b->e == e) kind |= b->kind;
    return kind;
}

static void ecs__hook(ecs_world *w, ecs_storage *s, ecs_hook_fn fn, ecs_entity e, uint32_t row) {
    ecs__busy b;
    ecs__busy_push(w, &b, e, ECS__BUSY_HOOK);
    s->locked++, s->hooking++;
    fn(w, e, s->id, s->data + (size_t)row * s->size, s->hooks.user);
    s->locked--, s->hooking--;
    ecs__busy_pop(w, &b);
}
/* An on_insert or on_replace hook, given e's value to write: a pointer
   handed out as the hook starts, for the indexes (section 14). */
static void ecs__hook_value(ecs_world *w, ecs_storage *s, ecs_hook_fn fn, ecs_entity e) {
    uint32_t row = (uint32_t)ECS__ENTRY(s, (uint32_t)e);
    if (s->index) ecs__index_touch(s, row, 1, true);
    ecs__hook(w, s, fn, e, row);
}


/* ecs_world_free's clear: nothing is recorded (nobody will read it), so
   running out of memory cannot stop it; should anything still stop it,
   the hooks of the values left run with every storage locked. */
static void ecs__free_entities(ecs_world *w) {
    uint32_t c, row, nc = w->ncomponents;
    for (c = 1; c <= nc; c++) {
        w->storages[c]->track &= ~(uint32_t)(ECS_TRACK_REMOVAL | ECS_TRACK_DELETION);
        ecs__unlisten(w, w->storages[c], ECS__ON_RECORDS);
    }
    w->track_entities = false;
    ecs_world_clear(w);
    for (c = 1; c <= nc; c++) w->storages[c]->locked++;
    for (c = 1; c <= nc; c++) {
        ecs_storage *s = w->storages[c];
        if (s->hooks.on_remove)
            for (row = s->count; row-- > 0;) ecs__hook(w, s, s->hooks.on_remove, s->dense[row], row);
    }
    for (c = 1; c <= nc; c++) w->storages[c]->locked--;
}

ECS__FN bool ecs_hooks_set(ecs_world *w, ecs_component c, const ecs_hooks *hooks) {
    ECS__WORLD(w, false);
    ecs_storage *s = ecs__comp(w, "ecs_hooks_set", ECS_NULL, c, (size_t)-1);
    uint32_t more = hooks ? !!hooks->on_insert + !!hooks->on_remove + !!hooks->on_replace : 0; /* (none: no room) */
    if (!s || ecs__locked(w, "ecs_hooks_set", ECS_NULL, s)) return false;
    if (!ecs__grow(w, (void **)&s->listen, &s->listen_cap, s->nlisten + more, s->nlisten, sizeof *s->listen))
        return ecs__report(w, ECS__M_OOM, "ecs_hooks_set", ECS_NULL, c), false;
    if (hooks)
        s->hooks = *hooks;
    else
        memset(&s->hooks, 0, sizeof s->hooks);
    ecs__unlisten(w, s, ECS__ON_INSERT_HOOK); /* then attached again, into the room made above */
    ecs__unlisten(w, s, ECS__ON_REMOVE_HOOK);
    ecs__unlisten(w, s, ECS__ON_REPLACE_HOOK);
    if (s->hooks.on_insert) ecs__listen(w, s, ECS__ON_INSERT_HOOK, 0);
    if (s->hooks.on_remove) ecs__listen(w, s, ECS__ON_REMOVE_HOOK, 0);
    if (s->hooks.on_replace) ecs__listen(w, s, ECS__ON_REPLACE_HOOK, 0);
    return true;
}

/* ------------------------------------------------------------------------- */
/* Groups                                                                    */
/* ------------------------------------------------------------------------- */
/* A group keeps every entity that has all its owned components and none of
   its excluded ones in rows 0..len-1 of each owned storage, in the same
   order: iterating it is a plain loop over arrays. An entity joins by
   swapping into row len of each owned storage (len grows), and leaves by
   swapping into row len-1 (len shrinks) before any owned component goes.
   A storage has at most one owner. Groups listen to the insert path
   (ecs__groups_inserted) and the remove path (ecs__groups_removing before
   the pop, ecs__groups_removed after it); they move rows only through the
   storage primitive ecs__swap. */

static void ecs__groups_free(ecs_world *w) {
    uint32_t g;
    for (g = 0; g < w->ngroups; g++) {
        ecs__free(w, w->groups[g].owned, (size_t)w->groups[g].nowned * sizeof(ecs_component));
        ecs__free(w, w->groups[g].excluded, (size_t)w->groups[g].nexcluded * sizeof(ecs_component));
    }
    ecs__free(w, w->groups, (size_t)w->groups_cap * sizeof *w->groups);
}

/* The entities these functions are given are alive, so their sparse
   entries are their own: a row is one lookup, with no check against the
   dense array (which would cost a cache miss per storage). */

/* e's rows in g's owned storages; false when e lacks one of them or has
   one of the excluded components. */
ECS__IMPL_HOT bool ecs__group_rows(const ecs_world *w, const ecs__group *g, ecs_entity e, uint32_t *rows) {
    uint32_t k, i = ECS_ENTITY_INDEX(e);
    for (k = 0; k < g->nowned; k++)
        if ((rows[k] = (uint32_t)ECS__ENTRY(w->storages[g->owned[k]], i)) == ECS__NO_ROW) return false;
    for (k = 0; k < g->nexcluded; k++)
        if ((uint32_t)ECS__ENTRY(w->storages[g->excluded[k]], i) != ECS__NO_ROW) return false;
    return true;
}

/* Moves the entity at rows[k] of each owned storage k to row `to`. A view
   walking one of them sees a removal at the lower row (the debug check of
   section 7). */
ECS__IMPL_HOT void ecs__group_move(ecs_world *w, const ecs__group *g, const uint32_t *rows, uint32_t to,
                            const char *call) {
    uint32_t k;
    for (k = 0; k < g->nowned; k++) {
        ecs__swap(w, w->storages[g->owned[k]], rows[k], to, call);
    }
}

/* e joins the group if it matches and is not in it yet (at a row >= len). */
ECS__IMPL_HOT void ecs__group_join(ecs_world *w, uint32_t group, ecs_entity e, const char *call) {
    ecs__group *g = &w->groups[group - 1];
    uint32_t rows[ECS_MAX_TERMS];
    rows[0] = 0; /* a group owns at least one storage: set below (compilers cannot tell) */
    if (!ecs__group_rows(w, g, e, rows) || rows[0] < g->len) return;
    ecs__group_move(w, g, rows, g->len, call);
    g->len++;
}

/* e leaves the group if it is in it (at a row < len). */
ECS__IMPL_HOT void ecs__group_leave(ecs_world *w, uint32_t group, ecs_entity e, const char *call) {
    ecs__group *g = &w->groups[group - 1];
    uint32_t rows[ECS_MAX_TERMS], k, i = ECS_ENTITY_INDEX(e);
    rows[0] = (uint32_t)ECS__ENTRY(w->storages[g->owned[0]], i);
    if (rows[0] == ECS__NO_ROW || rows[0] >= g->len) return;
    for (k = 1; k < g->nowned; k++) rows[k] = (uint32_t)ECS__ENTRY(w->storages[g->owned[k]], i);
    ecs__group_move(w, g, rows, g->len - 1, call);
    g->len--;
}

/* While hooks or sorts run, a storage a group owns or excludes is locked
   when one the group owns is: a change would move its rows. */
static bool ecs__group_locked(const ecs_world *w, uint32_t group) {
    const ecs__group *g = &w->groups[group - 1];
    uint32_t j;
    for (j = 0; j < g->nowned; j++)
        if (w->storages[g->owned[j]]->locked) return true;
    return false;
}

static ecs_group ecs__owner(const ecs_storage *s) {
    uint32_t k;
    for (k = 0; k < s->nlisten; k++)
        if (s->listen[k].kind == ECS__ON_OWNS) return s->listen[k].arg;
    return 0;
}
static bool ecs__excludes_group(const ecs_storage *s, ecs_group g) {
    uint32_t k;
    for (k = 0; k < s->nlisten; k++)
        if (s->listen[k].kind == ECS__ON_EXCLUDES && s->listen[k].arg == g) return true;
    return false;
}

static uint32_t ecs__collect(const ecs_component *in, ecs_component *out) {
    uint32_t k, n = 0;
    for (k = 0; k < ECS_MAX_TERMS && in[k]; k++) out[n++] = in[k];
    return n;
}

/* Packs the entities that match g into its rows (len 0 at first),
   walking its shortest owned storage: rows below k are done, so a swap
   never revisits one, and rows already packed stay where they are. */
static void ecs__group_pack(ecs_world *w, ecs_group id, const char *call) {
    ecs__group *g = &w->groups[id - 1];
    ecs_storage *lead = w->storages[g->owned[0]];
    uint32_t k;
    for (k = 1; k < g->nowned; k++)
        if (w->storages[g->owned[k]]->count < lead->count) lead = w->storages[g->owned[k]];
    g->len = 0;
    for (k = 0; k < lead->count; k++) ecs__group_join(w, id, lead->dense[k], call);
}

ECS__FN ecs_group ecs_group_new(ecs_world *w, const ecs_group_desc *d) {
    ECS__WORLD(w, 0);
    ecs_component owned[ECS_MAX_TERMS], excl[ECS_MAX_TERMS];
    uint32_t no, nx, k, j;
    ecs__group g;
    memset(&g, 0, sizeof g);
    if (!d) { ecs__report(w, ECS__M_NULL_ARG, "ecs_group_new", ECS_NULL, 0, "desc"); return 0; }
    no = ecs__collect(d->owned, owned);
    nx = ecs__collect(d->excluded, excl);
    if (!no) {
        ecs__report(w, ECS__M_GROUP_EMPTY, "ecs_group_new", ECS_NULL, 0);
        return 0;
    }
    for (k = 0; k < no + nx; k++) {
        ecs_component c = k < no ? owned[k] : excl[k - no];
        if (!ecs__comp(w, "ecs_group_new", ECS_NULL, c, (size_t)-1)) return 0;
        for (j = 0; j < k; j++)
            if ((j < no ? owned[j] : excl[j - no]) == c) {
                ecs__report(w, ECS__M_TWICE, "ecs_group_new", ECS_NULL, c);
                return 0;
            }
        if (k < no && ecs__owner(w->storages[c])) {
            ecs__report(w, ECS__M_GROUP_OWNED, "ecs_group_new", ECS_NULL, c);
            return 0;
        }
        if (ecs__locked(w, "ecs_group_new", ECS_NULL, w->storages[c])) return 0;
    }
    /* everything that can fail, first */
    g.owned = (ecs_component *)ecs__alloc_n(w, no, sizeof *g.owned);
    g.excluded = nx ? (ecs_component *)ecs__alloc_n(w, nx, sizeof *g.excluded) : NULL;
    if (!g.owned || (nx && !g.excluded) ||
        !ecs__grow(w, (void **)&w->groups, &w->groups_cap, w->ngroups + 1, w->ngroups, sizeof *w->groups)) {
        ecs__free(w, g.owned, (size_t)no * sizeof *g.owned);
        ecs__free(w, g.excluded, (size_t)nx * sizeof *g.excluded);
        ecs__report(w, ECS__M_OOM, "ecs_group_new", ECS_NULL, 0);
        return 0;
    }
    for (k = 0; k < no + nx; k++) { /* room on each path, so attaching cannot fail */
        ecs_storage *s = w->storages[k < no ? owned[k] : excl[k - no]];
        if (!ecs__grow(w, (void **)&s->listen, &s->listen_cap, s->nlisten + 1, s->nlisten, sizeof *s->listen)) {
            ecs__free(w, g.owned, (size_t)no * sizeof *g.owned);
            ecs__free(w, g.excluded, (size_t)nx * sizeof *g.excluded);
            ecs__report(w, ECS__M_OOM, "ecs_group_new", ECS_NULL, s->id);
            return 0;
        }
    }
    memcpy(g.owned, owned, no * sizeof *owned);
    if (nx) memcpy(g.excluded, excl, nx * sizeof *excl);
    g.nowned = no;
    g.nexcluded = nx;
    w->groups[w->ngroups++] = g;
    for (k = 0; k < no + nx; k++)
        ecs__listen(w, w->storages[k < no ? owned[k] : excl[k - no]], k < no ? ECS__ON_OWNS : ECS__ON_EXCLUDES, w->ngroups);
    ecs__group_pack(w, w->ngroups, "ecs_group_new");
    return w->ngroups;
}

static const ecs__group *ecs__group_get(const ecs_world *w, const char *call, ecs_group g) {
    if (g - 1u < w->ngroups) return &w->groups[g - 1];
    ecs__report(w, ECS__M_NO_GROUP, call, ECS_NULL, 0);
    return NULL;
}

ECS__FN uint32_t ecs_group_count(const ecs_world *w, ecs_group g) {
    ECS__WORLD(w, 0);
    const ecs__group *gp = ecs__group_get(w, "ecs_group_count", g);
    return gp ? gp->len : 0;
}

ECS__FN const ecs_entity *ecs_group_entities(const ecs_world *w, ecs_group g) {
    ECS__WORLD(w, NULL);
    const ecs__group *gp = ecs__group_get(w, "ecs_group_entities", g);
    return gp ? w->storages[gp->owned[0]]->dense : NULL;
}

ECS__FN void *ecs_group_data(const ecs_world *w, ecs_group g, ecs_component c) {
    ECS__WORLD(w, NULL);
    const ecs__group *gp = ecs__group_get(w, "ecs_group_data", g);
    if (!gp) return NULL;
    if (c - 1u >= w->ncomponents || ecs__owner(w->storages[c]) != g) {
        ecs__report(w, ECS__M_NOT_OWNED, "ecs_group_data", ECS_NULL, c);
        return NULL;
    }
    return w->storages[c]->size ? w->storages[c]->data : NULL;
}

ECS__FN bool ecs_group_sort(ecs_world *w, ecs_group g, ecs_component by, ecs_sort_fn cmp, void *ctx) {
    ECS__WORLD(w, false);
    const ecs__group *gp = ecs__group_get(w, "ecs_group_sort", g);
    ecs_storage *apply[ECS_MAX_TERMS];
    uint32_t k;
    if (!gp) return false;
    if (by - 1u >= w->ncomponents || ecs__owner(w->storages[by]) != g) {
        ecs__report(w, ECS__M_NOT_OWNED, "ecs_group_sort", ECS_NULL, by);
        return false;
    }
    for (k = 0; k < gp->nowned; k++)
        if (ecs__locked(w, "ecs_group_sort", ECS_NULL, apply[k] = w->storages[gp->owned[k]])) return false;
    return ecs__sort_rows(w, "ecs_group_sort", w->storages[by], gp->len, cmp, ctx, apply, gp->nowned);
}

/* ------------------------------------------------------------------------- */
/* Indexes                                                                   */
/* ------------------------------------------------------------------------- */
/* An index maps a field's key to the entities whose value has it. It is
   attached to its storage's insert and remove paths (ECS__ON_INDEX) and
   to the modified step (the storage's index list, ecs__index_touch): an
   insertion, a write or a removal puts the entity's index on the dirty
   list (once). A query first brings the index up to date
   (ecs__index_sync): each dirty entity's key is computed from its value
   as it is now, or it leaves the index if it has no value (an entity
   index reused meanwhile by a new entity is just another change). Keys are 64-bit: integers and floats in an
   order-preserving unsigned form, strings as a hash (hashed indexes) or
   as their first 8 bytes (ordered; ties broken by the whole string).
   A hashed index is an open-addressing table of keys, each with a doubly
   linked chain of entity indices; an ordered one is a sorted array of
   (key, entity) whose removals leave holes and whose insertions wait in a
   pending list until the sync merges both in one pass. Out of memory
   anywhere in that, the index marks itself broken and rebuilds from the
   storage at the next query: it never answers wrong. */

#define ECS__NONE 0xffffffffu

typedef struct ecs__islot { /* per entity index */
    uint64_t key;
    uint32_t at;   /* ordered: its entry (or pending one); hashed: the next entity index of its chain */
    uint32_t prev; /* hashed: the previous one (ECS__NONE: the chain's head) */
    uint32_t ver;  /* the version of the entity put in (an index reused by a new entity is a change) */
    unsigned char in, dirty, pend, handed; /* in the index; on the dirty list; ordered: at is in pending; a
                                              pointer to its value was handed out (read at the next two syncs) */
} ecs__islot;

typedef struct ecs__ibucket {
    uint64_t key;
    uint32_t head, count; /* count 0: an empty bucket */
} ecs__ibucket;

typedef struct ecs__ientry {
    uint64_t key;
    ecs_entity e; /* ECS_NULL: a hole */
} ecs__ientry;

struct ecs__index {
    ecs_index_desc d;
    ecs_index id;
    ecs_storage *s;
    struct ecs__index *next; /* the storage's next index */
    ecs__islot *slot;
    uint32_t nslot;
    uint32_t *dirty, ndirty, dirty_cap;       /* the entity indices whose key may have changed */
    uint32_t *recheck, nrecheck, recheck_cap; /* those the last sync took in: read again at the next */
    bool broken;
    ecs__ibucket *table; /* hashed: mask + 1 buckets, a power of 2 (2^(64 - shift)) */
    uint32_t mask, shift, used;
    ecs__ientry *ent, *pending; /* ordered */
    uint32_t nent, ent_cap, npending, pending_cap, holes;
    ecs_storage walk; /* the lead of the views it leads: entities only (ecs__index_walk) */
    uint32_t *walk_at, walk_at_cap; /* hashed: where each bucket's entities start in walk */
    bool walk_stale;
};

static bool ecs__index_ordered(const ecs__index *ix) { return ix->d.ordered; }
/* A string field's characters (NULL: the entity is not indexed). */
static const char *ecs__ikey_str(const ecs__index *ix, const void *field) {
    const char *p;
    if (ix->d.kind == ECS_KEY_CHARS) return (const char *)field;
    memcpy(&p, field, sizeof p);
    return p;
}

/* The key of a field's value (the field itself: value + offset); false: not
   indexed (a NaN, a NULL string). */
static bool ecs__ikey(const ecs__index *ix, const void *field, uint64_t *key) {
    const unsigned char *b = (const unsigned char *)field;
    uint32_t k, size = ix->d.size, u32;
    uint16_t u16;
    uint64_t x = 0;
    const char *str;
    size_t n = 0, max = ix->d.kind == ECS_KEY_CHARS ? size : (size_t)-1;
    if (ix->d.kind <= ECS_KEY_UINT) { /* integers (first: the commonest), sign-extended (INT), in unsigned order */
        if (size == 4) memcpy(&u32, b, 4), x = u32;
        else if (size == 8) memcpy(&x, b, 8);
        else if (size == 2) memcpy(&u16, b, 2), x = u16;
        else x = *b;
        if (ix->d.kind == ECS_KEY_INT && size < 8 && x >> (size * 8 - 1)) x |= ~(uint64_t)0 << (size * 8);
        *key = ix->d.kind == ECS_KEY_INT ? x ^ 0x8000000000000000ull : x;
        return true;
    }
    if (ix->d.kind == ECS_KEY_FLOAT) {
        float f;
        double v;
        if (size == 4) memcpy(&f, b, 4), v = f;
        else memcpy(&v, b, 8);
        if (v != v) return false; /* NaN: equal to nothing, in no order */
        if (v == 0) v = 0;        /* -0 is 0 */
        memcpy(&x, &v, 8);
        *key = x >> 63 ? ~x : x | 0x8000000000000000ull;
        return true;
    }
    if (!(str = ecs__ikey_str(ix, field))) return false; /* strings: chars or a const char * */
    while (n < max && str[n]) n++;
    if (!ix->d.ordered) /* FNV-1a */
        for (x = 1469598103934665603ull, k = 0; k < n; k++) x = (x ^ (unsigned char)str[k]) * 1099511628211ull;
    else /* the first 8 bytes */
        for (k = 0; k < 8; k++) x = x << 8 | (k < n ? (unsigned char)str[k] : 0u);
    *key = x;
    return true;
}

/* Is a key all of the value (not a string's hash or first 8 bytes)? */
static bool ecs__ikey_whole(const ecs__index *ix) {
    return ix->d.kind < ECS_KEY_CHARS || (ix->d.kind == ECS_KEY_CHARS && ix->d.size <= 8);
}

/* Does entity index i's value (in the storage) order before / equal the
   key and string given? Ordered string keys tie-break on the string. */
static int ecs__icmp_str(const ecs__index *ix, uint64_t ka, const char *sa, uint64_t kb, const char *sb) {
    if (ka != kb || ix->d.kind < ECS_KEY_CHARS) return (ka > kb) - (ka < kb);
    if (!sa || !sb) return (sa != NULL) - (sb != NULL); /* (an entry whose string became NULL, not yet taken in) */
    return strncmp(sa, sb, ix->d.kind == ECS_KEY_CHARS ? ix->d.size : (size_t)-1);
}
static const char *ecs__ient_str(const ecs__index *ix, ecs_entity e) {
    const ecs_storage *s = ix->s;
    if (ix->d.kind != ECS_KEY_CHARS && ix->d.kind != ECS_KEY_STRING) return NULL;
    return ecs__ikey_str(ix, s->data + (size_t)ecs__row(s, e) * s->size + ix->d.offset);
}
static int ecs__ient_cmp(const ecs__index *ix, const ecs__ientry *a, const ecs__ientry *b) {
    int c = ecs__icmp_str(ix, a->key, ecs__ient_str(ix, a->e), b->key, ecs__ient_str(ix, b->e));
    return c ? c : (uint32_t)a->e < (uint32_t)b->e ? -1 : (uint32_t)a->e > (uint32_t)b->e;
}

/* Room in the per-entity slots for entity index i. */
static bool ecs__islot_room(ecs_world *w, ecs__index *ix, uint32_t i) {
    uint32_t had = ix->nslot;
    if (i < had) return true;
    if (!ecs__grow(w, (void **)&ix->slot, &ix->nslot, i + 1, had, sizeof *ix->slot)) return false;
    memset(ix->slot + had, 0, (size_t)(ix->nslot - had) * sizeof *ix->slot);
    return true;
}

/* Entity index i may have a new key: on the dirty list (once). */
static void ecs__index_dirty(ecs_world *w, ecs__index *ix, uint32_t i, bool handed) {
    if (ix->broken) { /* rebuilt at the next query, which reads handed-out values again at the one after */
        if (handed && ecs__islot_room(w, ix, i)) ix->slot[i].handed = 1;
        return;
    }
    if (i < ix->nslot && ix->slot[i].dirty) {
        ix->slot[i].handed |= handed;
        return;
    }
    if ((i >= ix->nslot && !ecs__islot_room(w, ix, i)) || /* (the tests before the calls: 2x faster) */
        (ix->ndirty == ix->dirty_cap &&
         !ecs__grow(w, (void **)&ix->dirty, &ix->dirty_cap, ix->ndirty + 1, ix->ndirty, sizeof *ix->dirty))) {
        ix->broken = true; /* out of memory: rebuilt at the next query */
        return;
    }
    ix->dirty[ix->ndirty++] = i;
    ix->slot[i].dirty = 1, ix->slot[i].handed = handed;
}

/* The modified step's listener, and the insert and remove paths' (one
   ECS__ON_INDEX listener per storage, for all its indexes): rows
   row..row+n-1 of s were written, inserted or are being removed (handed:
   pointers to them were handed out, to be written through). */
ECS__FN void ecs__index_touch(ecs_storage *s, uint32_t row, uint32_t n, bool handed) {
    ecs__index *ix;
    uint32_t k;
    for (ix = s->index; ix; ix = ix->next)
        for (k = 0; k < n; k++) ecs__index_dirty(s->world, ix, (uint32_t)s->dense[row + k], handed);
}

/* --- the two structures: put entity index i in with key, take it out */

static uint32_t ecs__ihome(const ecs__index *ix, uint64_t key) { /* Fibonacci hashing: the product's top bits */
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> ix->shift);
}
static ecs__ibucket *ecs__ibucket_of(ecs__index *ix, uint64_t key) {
    uint32_t p = ecs__ihome(ix, key);
    while (ix->table[p].count && ix->table[p].key != key) p = (p + 1) & ix->mask;
    return &ix->table[p];
}
/* Room in the hashed table for n keys, keeping it at most half full;
   false when out of memory (the table unchanged). */
static bool ecs__itable_room(ecs_world *w, ecs__index *ix, uint32_t n) {
    ecs__ibucket *old = ix->table, *t;
    uint32_t k, had = old ? ix->mask + 1 : 0, bits = 4;
    if ((uint64_t)n * 2 <= had) return true;
    while (((uint64_t)1 << bits) < (uint64_t)n * 2) bits++;
    if (bits > 31 || !(t = (ecs__ibucket *)ecs__alloc_n(w, (uint32_t)1 << bits, sizeof *t))) return false;
    memset(t, 0, ((size_t)1 << bits) * sizeof *t);
    ix->table = t, ix->mask = ((uint32_t)1 << bits) - 1, ix->shift = 64 - bits;
    ix->walk_stale = true; /* (the buckets moved: walk_at is theirs) */
    for (k = 0; k < had; k++) if (old[k].count) *ecs__ibucket_of(ix, old[k].key) = old[k];
    ecs__free(w, old, (size_t)had * sizeof *old);
    return true;
}
static bool ecs__index_put(ecs_world *w, ecs__index *ix, uint32_t i, uint64_t key, ecs_entity e) {
    ecs__islot *sl = &ix->slot[i];
    if (ix->d.ordered) { /* pending until the merge */
        if (!ecs__grow(w, (void **)&ix->pending, &ix->pending_cap, ix->npending + 1, ix->npending, sizeof *ix->pending))
            return false;
        sl->at = ix->npending, sl->pend = 1;
        ix->pending[ix->npending].key = key;
        ix->pending[ix->npending++].e = e;
    } else {
        ecs__ibucket *b;
        if ((uint64_t)(ix->used + 1) * 2 > ix->mask + 1u && !ecs__itable_room(w, ix, ix->used + 1)) return false;
        b = ecs__ibucket_of(ix, key);
        if (!b->count) {
            b->key = key;
            b->head = ECS__NONE;
            ix->used++;
        }
        sl->at = b->head;
        sl->prev = ECS__NONE;
        if (b->head != ECS__NONE) ix->slot[b->head].prev = i;
        b->head = i;
        b->count++;
    }
    sl->key = key, sl->ver = (uint32_t)(e >> 32);
    sl->in = 1;
    return true;
}
static void ecs__index_take(ecs__index *ix, uint32_t i) {
    ecs__islot *sl = &ix->slot[i];
    sl->in = 0;
    if (ix->d.ordered) {
        if (sl->pend) { /* not merged yet: the last pending one takes its place */
            ix->pending[sl->at] = ix->pending[--ix->npending];
            ix->slot[(uint32_t)ix->pending[sl->at].e].at = sl->at;
            sl->pend = 0;
            return;
        }
        ix->ent[sl->at].e = ECS_NULL;
        ix->holes++;
    } else {
        ecs__ibucket *b = ecs__ibucket_of(ix, sl->key);
        uint32_t h, j;
        if (sl->prev != ECS__NONE) ix->slot[sl->prev].at = sl->at;
        else b->head = sl->at;
        if (sl->at != ECS__NONE) ix->slot[sl->at].prev = sl->prev;
        if (--b->count) return;
        ix->used--; /* the bucket goes: later ones of its run move back (linear probing) */
        for (h = (uint32_t)(b - ix->table), j = (h + 1) & ix->mask; ix->table[j].count; j = (j + 1) & ix->mask) {
            uint32_t home = ecs__ihome(ix, ix->table[j].key);
            if ((j > h && (home <= h || home > j)) || (j < h && home <= h && home > j)) {
                ix->table[h] = ix->table[j];
                ix->table[j].count = 0;
                h = j;
            }
        }
        ix->table[h].count = 0;
    }
}

/* Ordered: the holes out, the pending entries (sorted) in, one pass. */
static bool ecs__index_merge(ecs_world *w, ecs__index *ix) {
    uint32_t n = ix->nent - ix->holes + ix->npending, a = 0, b = 0, k = 0, width;
    ecs__ientry *out, *p = ix->pending, *tmp;
    if (!ix->npending && !ix->holes) return true;
    if (!(out = (ecs__ientry *)ecs__alloc_n(w, n ? n : 1, sizeof *out))) return false;
    tmp = out; /* the pending list's merge sort borrows the new array (n >= npending) */
    for (width = 1; width < ix->npending; width *= 2) {
        uint32_t lo;
        for (lo = 0; lo < ix->npending; lo += 2 * width) {
            uint32_t mid = lo + width < ix->npending ? lo + width : ix->npending;
            uint32_t hi = lo + 2 * width < ix->npending ? lo + 2 * width : ix->npending, x = lo, y = mid, z = lo;
            while (x < mid || y < hi)
                tmp[z++] = y >= hi || (x < mid && ecs__ient_cmp(ix, &p[x], &p[y]) <= 0) ? p[x++] : p[y++];
        }
        memcpy(p, tmp, (size_t)ix->npending * sizeof *p);
    }
    while (a < ix->nent || b < ix->npending) {
        if (a < ix->nent && !ix->ent[a].e) { /* a hole */
            a++;
            continue;
        }
        out[k] = b >= ix->npending || (a < ix->nent && ecs__ient_cmp(ix, &ix->ent[a], &p[b]) <= 0) ? ix->ent[a++] : p[b++];
        ix->slot[(uint32_t)out[k].e].at = k, ix->slot[(uint32_t)out[k].e].pend = 0;
        k++;
    }
    ecs__free(w, ix->ent, (size_t)ix->ent_cap * sizeof *ix->ent);
    ix->ent = out;
    ix->nent = k;
    ix->ent_cap = n ? n : 1;
    ix->npending = ix->holes = 0;
    return true;
}

/* Entity index i's row in the storage (ECS__NO_ROW: none) and, when it
   has one whose value is indexed, its key as the value is now. */
ECS__IMPL_HOT bool ecs__ikey_of(const ecs__index *ix, uint32_t i, uint32_t *row, uint64_t *key) {
    const ecs_storage *s = ix->s;
    *row = (uint32_t)ECS__ENTRY(s, i);
    return *row != ECS__NO_ROW && ecs__ikey(ix, s->data + (size_t)*row * s->size + ix->d.offset, key);
}

/* Entity index i's key as its value is now: it leaves the index and comes
   back under its key if that changed (or it came, or went); false when
   out of memory. */
static bool ecs__index_take_in(ecs_world *w, ecs__index *ix, uint32_t i) {
    ecs_storage *s = ix->s;
    uint32_t row;
    ecs__islot *sl = &ix->slot[i];
    uint64_t key = 0;
    bool has = ecs__ikey_of(ix, i, &row, &key);
    sl->dirty = 0;
    if (sl->in && has && key == sl->key && /* (the same place: a bucket, or a key that is the whole string) */
        (!ix->d.ordered || ecs__ikey_whole(ix)) &&
        sl->ver == (uint32_t)(s->dense[row] >> 32)) /* (the same entity) */
        return true;
    if (sl->in || has) ix->walk_stale = true; /* (an entity left, came or moved) */
    if (sl->in) ecs__index_take(ix, i);
    return !has || ecs__index_put(w, ix, i, key, s->dense[row]);
}

/* Hashed: starts loading the buckets entity index i leaves and goes to, a
   few entities ahead of the sync, when the table is too big for the
   caches (1M buckets, 16 MB): its misses are nearly all of a sync's time
   at 1M keys, and loading several at once hides most of them (add at 1M:
   85 -> 44 ns per entity). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__)
#define ECS__PREFETCH(p) __builtin_prefetch(p)
#else
#define ECS__PREFETCH(p) ((void)(p))
#endif
#define ECS__AHEAD 8
static void ecs__index_prefetch(const ecs__index *ix, uint32_t i) {
    uint32_t row;
    uint64_t key;
    if (!ix->table) return;
    if (ix->slot[i].in) ECS__PREFETCH(&ix->table[ecs__ihome(ix, ix->slot[i].key)]); /* (the one it leaves) */
    if (ecs__ikey_of(ix, i, &row, &key)) ECS__PREFETCH(&ix->table[ecs__ihome(ix, key)]);
}

/* Brings the index up to date: false when out of memory (it stays
   broken). The entities the last sync took in through a pointer handed
   out (ecs_get_mut, an ECS_WRITE term) are read again first: it may have
   been written through since (section 14). */
static bool ecs__index_sync(ecs_world *w, ecs__index *ix) {
    ecs_storage *s = ix->s;
    uint32_t k, came = 0, handed = 0, *list = ix->recheck, cap = ix->recheck_cap;
    if (!ix->broken && !ix->ndirty && !ix->nrecheck) return true; /* up to date: reads only (threads, section 14) */
    ix->walk_stale |= ix->broken;
    if (ix->broken) { /* rebuilt: every entity of the storage is dirty */
        for (k = 0; k < ix->nslot; k++) ix->slot[k].in = ix->slot[k].dirty = ix->slot[k].pend = 0; /* (handed stays) */
        ix->ndirty = ix->nrecheck = ix->nent = ix->npending = ix->holes = ix->used = 0;
        if (ix->table) memset(ix->table, 0, ((size_t)ix->mask + 1) * sizeof *ix->table);
        if ((s->count && !ecs__islot_room(w, ix, w->nslots - 1)) ||
            !ecs__grow(w, (void **)&ix->dirty, &ix->dirty_cap, s->count, 0, sizeof *ix->dirty))
            return false;
        for (k = 0; k < s->count; k++) ix->dirty[k] = (uint32_t)s->dense[k], ix->slot[(uint32_t)s->dense[k]].dirty = 1;
        ix->ndirty = s->count;
        ix->broken = false;
    }
    for (k = 0; !ix->d.ordered && k < ix->ndirty; k++) came += !ix->slot[ix->dirty[k]].in;
    if (came && !ecs__itable_room(w, ix, ix->used + came)) return ix->broken = true, false; /* (one growth, not several) */
    for (k = 0; k < ix->nrecheck; k++)
        if (!ix->slot[list[k]].dirty && !ecs__index_take_in(w, ix, list[k])) return ix->broken = true, false;
    for (k = ix->ndirty; k-- > 0;) { /* (the last written first: still in cache) */
        if (!ix->d.ordered && ix->mask >= 0xfffff && k >= ECS__AHEAD) ecs__index_prefetch(ix, ix->dirty[k - ECS__AHEAD]);
        if (!ecs__index_take_in(w, ix, ix->dirty[k])) return ix->broken = true, false;
        handed += ix->slot[ix->dirty[k]].handed;
    }
    for (k = ix->nrecheck = 0; handed && k < ix->ndirty; k++) /* (the handed ones are kept: read again) */
        if (ix->slot[ix->dirty[k]].handed) ix->slot[ix->dirty[k]].handed = 0, ix->dirty[ix->nrecheck++] = ix->dirty[k];
    ix->recheck = ix->dirty, ix->recheck_cap = ix->dirty_cap; /* (the two lists swap) */
    ix->dirty = list, ix->dirty_cap = cap, ix->ndirty = 0;
    if (ix->d.ordered && !ecs__index_merge(w, ix)) return ix->broken = true, false;
    return true;
}

static void ecs__index_destroy(ecs_world *w, ecs__index *ix) {
    ecs__index **at;
    for (at = &ix->s->index; *at != ix; at = &(*at)->next) {}
    *at = ix->next;
    if (!ix->s->index) ecs__unlisten(w, ix->s, ECS__ON_INDEX);
    w->indexes[ix->id - 1] = NULL;
    ecs__free(w, ix->slot, (size_t)ix->nslot * sizeof *ix->slot);
    ecs__free(w, ix->dirty, (size_t)ix->dirty_cap * sizeof *ix->dirty);
    ecs__free(w, ix->recheck, (size_t)ix->recheck_cap * sizeof *ix->recheck);
    ecs__free(w, ix->table, ix->table ? ((size_t)ix->mask + 1) * sizeof *ix->table : 0);
    ecs__free(w, ix->ent, (size_t)ix->ent_cap * sizeof *ix->ent);
    ecs__free(w, ix->pending, (size_t)ix->pending_cap * sizeof *ix->pending);
    ecs__free(w, ix->walk.dense, (size_t)ix->walk.cap * sizeof *ix->walk.dense);
    ecs__free(w, ix->walk_at, (size_t)ix->walk_at_cap * sizeof *ix->walk_at);
    ecs__free(w, ix, sizeof *ix);
}
ECS__FN ecs_index ecs_index_new(ecs_world *w, const ecs_index_desc *d) {
    ECS__WORLD(w, 0);
    ecs_storage *s;
    ecs__index *ix;
    uint32_t k, sz;
    bool ok;
    if (!d) return ecs__report(w, ECS__M_NULL_ARG, "ecs_index_new", ECS_NULL, 0, "desc"), 0;
    if (!(s = ecs__comp(w, "ecs_index_new", ECS_NULL, d->c, (size_t)-1)) || ecs__locked(w, "ecs_index_new", ECS_NULL, s))
        return 0;
    sz = d->size;
    if ((d->kind < ECS_KEY_INT || d->kind > ECS_KEY_STRING) ||
        ((d->kind == ECS_KEY_INT || d->kind == ECS_KEY_UINT) && sz != 1 && sz != 2 && sz != 4 && sz != 8) ||
        (d->kind == ECS_KEY_FLOAT && ((sz != 4 && sz != 8) || !d->ordered)) || (d->kind == ECS_KEY_CHARS && !sz) ||
        (d->kind == ECS_KEY_STRING && sz != sizeof(const char *)))
        return ecs__report(w, ECS__M_INDEX_KIND, "ecs_index_new", ECS_NULL, d->c, (unsigned long)d->kind, (unsigned long)sz), 0;
    if (!s->size || (uint64_t)d->offset + sz > s->size)
        return ecs__report(w, ECS__M_INDEX_FIELD, "ecs_index_new", ECS_NULL, d->c, (unsigned long)d->offset,
                           (unsigned long)sz, (unsigned long)s->size), 0;
    for (k = 0; k < w->nindexes && w->indexes[k]; k++) {}
    if ((k == w->nindexes &&
         !ecs__grow(w, (void **)&w->indexes, &w->indexes_cap, w->nindexes + 1, w->nindexes, sizeof *w->indexes)) ||
        !(ix = (ecs__index *)ecs__alloc(w, sizeof *ix)))
        return ecs__report(w, ECS__M_OOM, "ecs_index_new", ECS_NULL, d->c), 0;
    memset(ix, 0, sizeof *ix);
    ix->d = *d;
    ix->s = s;
    ix->id = k + 1;
    ix->broken = true; /* built at its first query */
    ix->walk.id = d->c, ix->walk.name = s->name; /* (named in the messages of a walk it leads) */
    ix->walk.changed_by = "a view led by an index of it, after a write,";
    if (!(ok = s->index || ecs__listen(w, s, ECS__ON_INDEX, 0))) /* (the storage's first index: its listener) */
        ecs__report(w, ECS__M_OOM, "ecs_index_new", ECS_NULL, d->c);
    else if (!(s->track & ECS_TRACK_MODIFICATION) && !(ok = ecs_track_set(w, d->c, s->track | ECS_TRACK_MODIFICATION)) &&
             !s->index) /* (reported) */
        ecs__unlisten(w, s, ECS__ON_INDEX);
    if (!ok) {
        ecs__free(w, ix, sizeof *ix);
        return 0;
    }
    w->indexes[k] = ix;
    w->nindexes += k == w->nindexes;
    ix->next = s->index;
    s->index = ix;
    return ix->id;
}

static ecs__index *ecs__index_of(ecs_world *w, const char *call, ecs_index id) {
    if (id - 1u >= w->nindexes || !w->indexes[id - 1]) return ecs__report(w, ECS__M_NO_INDEX, call, ECS_NULL, 0), (ecs__index *)NULL;
    return w->indexes[id - 1];
}

ECS__FN bool ecs_index_free(ecs_world *w, ecs_index id) {
    ECS__WORLD(w, false);
    ecs__index *ix = ecs__world_locked(w, "ecs_index_free", ECS_NULL, 0) ? NULL : ecs__index_of(w, "ecs_index_free", id);
    if (!ix || ecs__locked(w, "ecs_index_free", ECS_NULL, ix->s)) return false; /* (a hook of its storage runs) */
    ecs__index_destroy(w, ix);
    w->index_frees++; /* a walk with an index term ends at its next step (ecs__iter_plan) */
    ECS__MOVED(w);
    return true;
}

/* A query's checks, then the sync; NULL when it fails. */
static ecs__index *ecs__index_query(ecs_world *w, const char *call, ecs_index id, ecs_entity *out, uint32_t cap) {
    ecs__index *ix = ecs__index_of(w, call, id);
    if (!ix) return NULL;
    if (!out && cap) return ecs__report(w, ECS__M_NULL_ARG, call, ECS_NULL, ix->d.c, "out (with cap > 0)"), (ecs__index *)NULL;
    if (!ecs__index_sync(w, ix)) return ecs__report(w, ECS__M_OOM, call, ECS_NULL, ix->d.c), (ecs__index *)NULL;
    return ix;
}

/* out[n] = e if it fits (n < cap); the count goes on past cap. */
static uint32_t ecs__index_emit(ecs_entity *out, uint32_t cap, uint32_t n, ecs_entity e) { if (n < cap) out[n] = e; return n + 1; }

/* Ordered: the first entry whose key is not below key (after: above).
   Keys only, which the entries hold: a string's key is its first 8
   bytes, and the entries of one key are in the order of their strings as
   the last sync read them; a string written since, through a pointer,
   may put them out of order among themselves, but then every one of
   them is still tested (ecs__index_match), none hidden. */
static uint32_t ecs__index_bound(const ecs__index *ix, uint64_t key, bool after) {
    uint32_t lo = 0, hi = ix->nent;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->ent[mid].key < key || (after && ix->ent[mid].key == key)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A query's bounds as keys: lo and hi (NULL: none on that side) in key[]
   and str[], and in *b which there are (1: lo, 2: hi) with flags << 2;
   false when one is a NaN or a NULL string (nothing matches). */
static bool ecs__index_bounds(const ecs__index *ix, const void *lo, const void *hi, uint32_t flags, uint64_t *key,
                              const char **str, uint32_t *b) {
    const void *p[2];
    uint32_t k;
    p[0] = lo, p[1] = hi, *b = flags << 2;
    for (k = 0; k < 2; k++) {
        if (!p[k]) continue;
        if (!ecs__ikey(ix, p[k], &key[k])) return false;
        str[k] = ix->d.kind >= ECS_KEY_CHARS ? ecs__ikey_str(ix, p[k]) : NULL;
        *b |= 1u << k;
    }
    return true;
}
/* Ordered: the entries [*a, *z) whose keys are between bounds b
   (ecs__index_bounds); an open side excludes its key only when the key
   is the whole value. */
static void ecs__index_span(const ecs__index *ix, uint32_t b, const uint64_t *key, uint32_t *a, uint32_t *z) {
    bool whole = ecs__ikey_whole(ix);
    *a = b & 1u ? ecs__index_bound(ix, key[0], whole && (b & ECS_RANGE_LO_OPEN << 2)) : 0;
    *z = b & 2u ? ecs__index_bound(ix, key[1], !whole || !(b & ECS_RANGE_HI_OPEN << 2)) : ix->nent;
    *z = *z > *a ? *z : *a;
}

static uint32_t ecs__index_find1(ecs__index *ix, const void *keyp, ecs_entity *out, uint32_t cap, uint32_t n) {
    const char *str[2];
    uint64_t key[2];
    uint32_t i, a, z, b;
    if (!ecs__index_bounds(ix, keyp, keyp, 0, key, str, &b)) return n; /* NaN, a NULL string: nothing */
    if (ix->d.ordered) {
        for (ecs__index_span(ix, b, key, &a, &z); a < z; a++)
            if (ecs__index_match(ix, ix->ent[a].e, b, key, str, &ix->ent[a].key)) n = ecs__index_emit(out, cap, n, ix->ent[a].e);
        return n;
    }
    if (!ix->table || !ecs__ibucket_of(ix, key[0])->count) return n;
    for (i = ecs__ibucket_of(ix, key[0])->head; i != ECS__NONE; i = ix->slot[i].at) {
        ecs_entity e = (ecs_entity)ix->slot[i].ver << 32 | i;
        if (ecs__index_match(ix, e, b, key, str, &ix->slot[i].key)) n = ecs__index_emit(out, cap, n, e); /* (not: a hash collision) */
    }
    return n;
}

ECS__FN uint32_t ecs__index_find(ecs_world *w, const char *call, ecs_index id, const void *key, size_t size,
                                 ecs_entity *out, uint32_t cap) {
    ECS__WORLD_IN(w, call, 0);
    ecs__index *ix = ecs__index_query(w, call, id, out, cap);
    if (!ix) return 0;
    if (!key) return ecs__report(w, ECS__M_NULL_ARG, call, ECS_NULL, ix->d.c, "key"), 0;
    if (size != (size_t)-1 && size != ix->d.size) /* ECS_INDEX_FIND: sizeof(T) */
        return ecs__report(w, ECS__M_INDEX_KEY, call, ECS_NULL, ix->d.c, (unsigned long)size, (unsigned long)ix->d.size), 0;
    return ecs__index_find1(ix, key, out, cap, 0);
}
ECS__FN uint32_t ecs_index_find(ecs_world *w, ecs_index id, const void *key, ecs_entity *out, uint32_t cap) {
    return ecs__index_find(w, "ecs_index_find", id, key, (size_t)-1, out, cap);
}

ECS__FN uint32_t ecs_index_find_any(ecs_world *w, ecs_index id, uint32_t nkeys, const void *keys, ecs_entity *out,
                                    uint32_t cap) {
    ECS__WORLD(w, 0);
    ecs__index *ix = ecs__index_query(w, "ecs_index_find_any", id, out, cap);
    uint32_t k, n = 0;
    if (!ix) return 0;
    if (nkeys && !keys) return ecs__report(w, ECS__M_NULL_ARG, "ecs_index_find_any", ECS_NULL, ix->d.c, "keys"), 0;
    for (k = 0; k < nkeys; k++) /* (a key listed twice: its entities twice) */
        n = ecs__index_find1(ix, (const unsigned char *)keys + (size_t)k * ix->d.size, out, cap, n);
    return n;
}

ECS__FN uint32_t ecs_index_range(ecs_world *w, ecs_index id, const void *lo, const void *hi, uint32_t flags,
                                 ecs_entity *out, uint32_t cap) {
    ECS__WORLD(w, 0);
    ecs__index *ix = ecs__index_query(w, "ecs_index_range", id, out, cap);
    const char *str[2];
    uint64_t key[2];
    uint32_t a, z, b, n = 0;
    if (!ix) return 0;
    if (!ix->d.ordered) return ecs__report(w, ECS__M_INDEX_HASHED, "ecs_index_range", ECS_NULL, ix->d.c), 0;
    if (flags & ~3u) return ecs__report(w, ECS__M_WHERE_FLAGS, "ecs_index_range", ECS_NULL, ix->d.c, (unsigned long)flags), 0;
    if (!ecs__index_bounds(ix, lo, hi, flags, key, str, &b)) return 0;
    for (ecs__index_span(ix, b, key, &a, &z); a < z; a++)
        if (ecs__index_match(ix, ix->ent[a].e, b, key, str, &ix->ent[a].key)) n = ecs__index_emit(out, cap, n, ix->ent[a].e);
    return n;
}

/* --- the index term of a view ---------------------------------------------- */

/* The index's entities as the views it leads walk them: ix->walk, a
   storage of entities only, down its rows as every walk goes. Ordered:
   the entries from the last to the first, so a walk meets keys in order;
   hashed: bucket after bucket (walk_at[b]: where bucket b's entities start).
   Built again when a view leads with the index after it changed; a walk
   then in progress over the old one sees its rows change (ecs__iter_changed). */
static bool ecs__index_walk(ecs_world *w, ecs__index *ix) {
    ecs_storage *ws = &ix->walk;
    uint32_t k, i, n = ix->d.ordered ? ix->nent : 0;
    if (!ix->walk_stale) return true;
    for (k = 0; !ix->d.ordered && ix->table && k <= ix->mask; k++) n += ix->table[k].count;
    if ((!ix->d.ordered && !ecs__grow(w, (void **)&ix->walk_at, &ix->walk_at_cap, ix->mask + 1, 0, sizeof *ix->walk_at)) ||
        !ecs__grow(w, (void **)&ws->dense, &ws->cap, n ? n : 1, 0, sizeof *ws->dense)) /* (last: fails unmoved) */
        return false;
    if (ix->d.ordered)
        for (k = 0; k < n; k++) ws->dense[n - 1 - k] = ix->ent[k].e;
    else
        for (k = 0, n = 0; ix->table && k <= ix->mask; k++)
            for (ix->walk_at[k] = n, i = ix->table[k].head; ix->table[k].count && i != ECS__NONE; i = ix->slot[i].at)
                ws->dense[n++] = ix->s->dense[(uint32_t)ECS__ENTRY(ix->s, i)];
    ws->count = n;
    ws->changes++; /* (its changed_rows stay 0: every row changed) */
    ECS__MOVED(w);
    ix->walk_stale = false;
    return true;
}

/* A view's index term (ecs_view_desc.where): its bounds, then who leads.
   The index does when its entities in range are fewer than the rows of
   the shortest required term (lead; NULL: there is none) and desc.lead
   does not name one; else lead does. Either way each entity's key is
   tested as the walk reaches it (ecs__index_match): a walk never yields
   an entity whose value does not match then. -1: refused (reported); 0:
   a storage leads; 1: the index's walk does (or the indexed storage, when
   the index is not up to date and cannot be touched, or out of memory);
   2: nothing can match. */
static int ecs__view_where(ecs_world *w, const char *call, ecs_iter *it, const ecs_view_desc *d, const ecs_storage *lead) {
    ecs__index *ix = ecs__index_of(w, call, d->where.index);
    const void *key = d->where.key;
    ecs__ibucket *b = NULL;
    uint32_t a = 0, z = 0;
    if (!ix) return -1;
    if (d->where.flags & ~(uint32_t)(ECS_RANGE_LO_OPEN | ECS_RANGE_HI_OPEN))
        return ecs__report(w, ECS__M_WHERE_FLAGS, call, ECS_NULL, ix->d.c, (unsigned long)d->where.flags), -1;
    if (!key && !ix->d.ordered) return ecs__report(w, ECS__M_INDEX_HASHED, call, ECS_NULL, ix->d.c), -1;
    it->wix = ix;
    it->wfreed = w->index_frees;
    if (!ecs__index_bounds(ix, key ? key : d->where.lo, key ? key : d->where.hi, key ? 0 : d->where.flags, it->wkey,
                           it->wstr, &it->where))
        return 2; /* a NaN, a NULL string: matches nothing */
    if (d->lead) return 0;
    if (w->parallel ? ix->broken || ix->ndirty || ix->nrecheck || ix->walk_stale : !ecs__index_sync(w, ix)) goto scan;
    if (ix->d.ordered) /* its entries [a, z) */
        ecs__index_span(ix, it->where, it->wkey, &a, &z);
    else if (ix->table && (b = ecs__ibucket_of(ix, it->wkey[0]))->count)
        z = b->count; /* (a bucket of z entities) */
    if (lead && lead->count <= z - a) return 0;
    if (!ecs__index_walk(w, ix)) goto scan;
    if (ix->d.ordered)
        it->lo = ix->nent - a, it->end = ix->nent - z; /* (the walk's rows: reversed) */
    else
        it->end = z ? ix->walk_at[b - ix->table] : 0, it->lo = it->end + z;
    it->lead = &ix->walk, it->lead_term = ECS_MAX_TERMS; /* (rows end..lo-1 of the walk) */
    it->changes = ix->walk.changes;
    return 1;
scan: /* out of memory, or systems running at once (the index is not touched): a storage leads */
    if (lead) return 0;
    it->lead = ix->s, it->lead_term = ECS_MAX_TERMS, it->lo = ix->s->count;
    it->changes = ix->s->changes;
    return 1;
}

/* Runs job(arg, 0..n-1) through desc.parallel_for, every index brought
   up to date first (their queries then only read it, and the views made
   meanwhile leave them alone); false when it cannot (no parallel_for, out
   of memory): the caller runs them one after another. */
static bool ecs__parallel(ecs_world *w, void (*job)(void *arg, uint32_t k), void *arg, uint32_t n) {
    uint32_t k;
    for (k = 0; w->parallel_for && k < w->nindexes; k++) /* (twice: the second reads the first's again, then none) */
        if (w->indexes[k] && (!ecs__index_sync(w, w->indexes[k]) || !ecs__index_sync(w, w->indexes[k]))) return false;
    for (k = 0; w->parallel_for && k < w->nqueries; k++)
        if (!ecs__query_fresh(w, k + 1)) return false;
    if (!w->parallel_for) return false;
    w->parallel = true;
    w->parallel_for(job, arg, n, w->parallel_user);
    w->parallel = false;
    return true;
}

/* Entity e's value is there and its key within bounds b, key and str
   (ecs__index_bounds): the test of every entity a query or a walk yields
   (a walk of an index may hold a destroyed one; a write may not have
   been taken in, section 14). had: the key e is indexed under, found
   within the bounds (NULL: none); a key equal to it (and that is all of
   the value) is within them too. */
static bool ecs__index_match(const ecs__index *ix, ecs_entity e, uint32_t b, const uint64_t *key, const char *const *str,
                             const uint64_t *had) {
    const ecs_storage *s = ix->s;
    uint64_t at = *ECS__ENTRY_IN(s->pages, (uint32_t)e), cur;
    const unsigned char *field;
    const char *cstr;
    uint32_t k;
    if ((uint32_t)at == ECS__NO_ROW || at >> 32 != e >> 32) return false;
    if (!ecs__ikey(ix, field = s->data + (size_t)(uint32_t)at * s->size + ix->d.offset, &cur)) return false;
    if (had && cur == *had && ix->d.kind < ECS_KEY_CHARS) return true;
    cstr = ix->d.kind >= ECS_KEY_CHARS ? ecs__ikey_str(ix, field) : NULL;
    for (k = 0; k < 2; k++) { /* key >= lo, then hi >= key; == fails where that side is open (b bit 2 + k) */
        int c = !(b >> k & 1u) ? 1 : k ? ecs__icmp_str(ix, key[1], str[1], cur, cstr) : ecs__icmp_str(ix, cur, cstr, key[0], str[0]);
        if (c < 0 || (c == 0 && (b >> (2 + k) & 1u))) return false;
    }
    return true;
}

/* --- cached queries ------------------------------------------------------------ */
/* A cached query is a tag the world keeps on exactly the entities that
   match its terms, through listeners on its terms' insert and remove
   paths (ECS__ON_QUERY, ECS__ON_QUERY_NOT); its tag's own paths carry
   ECS__ON_QUERY_TAG, so that adding or removing the tag by hand takes the
   out-of-line path, which refuses it. A view with the tag as a term walks
   the tag's rows: only the matching entities. Out of memory while the tag
   is kept (an insert of the tag from inside another insert cannot fail
   that insert), the query is rebuilt by the next view of it. */

typedef struct ecs__query {
    ecs_component tag;
    uint32_t nterms;
    ecs_component terms[ECS_MAX_TERMS];
    bool not_[ECS_MAX_TERMS];
    bool broken;
} ecs__query;

static bool ecs__query_matches(const ecs_world *w, const ecs__query *q, ecs_entity e) {
    uint32_t k;
    for (k = 0; k < q->nterms; k++)
        if ((ecs__row(w->storages[q->terms[k]], e) != ECS__NO_ROW) == q->not_[k]) return false;
    return true;
}

/* The paths' steps: a required term came (join if all match now) or is
   going (leave); an excluded one came (leave) or went (join if all
   match). e gets or loses the query's tag by the world's hand. */
static void ecs__query_tag(ecs_world *w, uint32_t id, ecs_entity e, bool join, const char *call) {
    ecs__query *q = &w->queries[id - 1];
    ecs_storage *t = w->storages[q->tag];
    uint32_t row = ecs__row(t, e);
    if (join && !ecs__query_matches(w, q, e)) return;
    w->query_update++;
    if (join && row == ECS__NO_ROW && !(w->busy && (ecs__busy_kind(w, e) & ECS__BUSY_STRIP)))
        q->broken |= ecs__insert1(w, call, t, e, NULL) == NULL; /* (out of memory: rebuilt later) */
    else if (!join && row != ECS__NO_ROW && ecs__may_remove(w, call, e, t, false, 0))
        ecs__remove_at(w, t, e, row, NULL, false, false, call);
    w->query_update--;
}

/* A view led by the query's tag need not test term s (with flags): a tag
   the query requires (no value to look up) or a component it excludes. */
static bool ecs__query_implies(const ecs_world *w, const ecs_storage *tag, const ecs_storage *s, uint32_t flags) {
    const ecs__query *q = &w->queries[tag->query - 1];
    uint32_t k;
    for (k = 0; !q->broken && k < q->nterms; k++)
        if (q->terms[k] == s->id) return q->not_[k] ? flags == ECS_NOT : !flags && !s->size;
    return false;
}

/* Query id's tag, rebuilt from its terms if it is broken (new, loaded, or
   out of memory while it was kept); false when it stays broken (out of
   memory, or while systems run at once or a phase's do: the world brings
   every query up to date before). */
static bool ecs__query_fresh(ecs_world *w, uint32_t id) {
    ecs__query *q = &w->queries[id - 1];
    ecs_storage *t = w->storages[q->tag], *lead = NULL;
    uint32_t k, row;
    if (!q->broken || w->parallel || w->in_phase || w->batch_locked) return !q->broken;
    q->broken = false;
    w->query_update++;
    while (t->count && ecs__may_remove(w, "ecs_view", t->dense[t->count - 1], t, false, 0))
        ecs__remove_at(w, t, t->dense[t->count - 1], t->count - 1, NULL, false, false, "ecs_view");
    w->query_update--;
    for (k = 0; k < q->nterms; k++)
        if (!q->not_[k] && (!lead || w->storages[q->terms[k]]->count < lead->count)) lead = w->storages[q->terms[k]];
    for (row = lead->count; row-- > 0 && !q->broken;) ecs__query_tag(w, id, lead->dense[row], true, "ecs_view");
    return !q->broken;
}

/* After ecs_load: every index and cached query rebuilds. */
static void ecs__indexes_stale(ecs_world *w) {
    uint32_t k;
    for (k = 0; k < w->nindexes; k++)
        if (w->indexes[k]) w->indexes[k]->broken = true;
    for (k = 0; k < w->nqueries; k++) w->queries[k].broken = true, ecs__query_fresh(w, k + 1); /* (out of memory: at the next view) */
}

/* The world's indexes and queries go (ecs_world_free). */
static void ecs__indexes_free(ecs_world *w) {
    uint32_t k;
    for (k = 0; k < w->nindexes; k++)
        if (w->indexes[k]) ecs__index_destroy(w, w->indexes[k]);
    ecs__free(w, w->indexes, (size_t)w->indexes_cap * sizeof *w->indexes);
    ecs__free(w, w->queries, (size_t)w->queries_cap * sizeof *w->queries);
}

ECS__FN ecs_component ecs_query_new(ecs_world *w, const char *name, const ecs_view_desc *d) {
    ECS__WORLD(w, 0);
    ecs__query q;
    ecs_component tag;
    uint32_t k, id, req = 0;
    if (!d || !name) return ecs__report(w, ECS__M_NULL_ARG, "ecs_query_new", ECS_NULL, 0, d ? "name" : "desc"), 0;
    if (ecs__world_locked(w, "ecs_query_new", ECS_NULL, 0)) return 0;
    memset(&q, 0, sizeof q);
    for (k = 0; k < ECS_MAX_TERMS && d->terms[k].c; k++) {
        uint32_t j, f = d->terms[k].flags & ~(uint32_t)ECS_WRITE;
        if (!ecs__comp(w, "ecs_query_new", ECS_NULL, d->terms[k].c, (size_t)-1)) return 0;
        if ((f && f != ECS_NOT) || w->storages[d->terms[k].c]->query)
            return ecs__report(w, ECS__M_QUERY_TERMS, "ecs_query_new", ECS_NULL, d->terms[k].c), 0;
        if (ecs__locked(w, "ecs_query_new", ECS_NULL, w->storages[d->terms[k].c])) return 0; /* (its hook runs) */
        for (j = 0; j < k; j++)
            if (q.terms[j] == d->terms[k].c) return ecs__report(w, ECS__M_TWICE, "ecs_query_new", ECS_NULL, q.terms[j]), 0;
        q.terms[k] = d->terms[k].c;
        q.not_[k] = f == ECS_NOT;
        req += !q.not_[k];
    }
    q.nterms = k;
    if (!req) return ecs__report(w, ECS__M_QUERY_TERMS, "ecs_query_new", ECS_NULL, 0), 0;
    /* the tag first: out of memory after it, it stays a plain tag, which a
       second ecs_query_new of the name takes over */
    if (!(tag = ecs_register(w, name, 0, 1))) return 0;
    if (w->storages[tag]->query) return ecs__report(w, ECS__M_NAME_TAKEN, "ecs_query_new", ECS_NULL, tag, name), 0;
    for (k = 0; k < q.nterms && q.terms[k] != tag; k++) {}
    if (k < q.nterms || w->storages[tag]->nlisten || w->storages[tag]->track || /* (its own term; hooks, groups) */
        ecs__cmds_name(w, tag)) /* (commands queued for it would fail at the flush) */
        return ecs__report(w, ECS__M_QUERY_TERMS, "ecs_query_new", ECS_NULL, tag), 0;
    if (!ecs__grow(w, (void **)&w->queries, &w->queries_cap, w->nqueries + 1, w->nqueries, sizeof *w->queries))
        return ecs__report(w, ECS__M_OOM, "ecs_query_new", ECS_NULL, tag), 0;
    for (k = 0; k <= q.nterms; k++) { /* room on every path first: attaching cannot fail then */
        ecs_storage *s = w->storages[k < q.nterms ? q.terms[k] : tag];
        if (!ecs__grow(w, (void **)&s->listen, &s->listen_cap, s->nlisten + 1, s->nlisten, sizeof *s->listen))
            return ecs__report(w, ECS__M_OOM, "ecs_query_new", ECS_NULL, tag), 0;
    }
    id = w->nqueries + 1;
    for (k = 0; k < q.nterms; k++) ecs__listen(w, w->storages[q.terms[k]], q.not_[k] ? ECS__ON_QUERY_NOT : ECS__ON_QUERY, id);
    ecs__listen(w, w->storages[tag], ECS__ON_QUERY_TAG, id);
    q.tag = tag;
    q.broken = true;
    w->queries[w->nqueries++] = q;
    w->storages[tag]->query = id;
    ecs__query_fresh(w, id); /* filled now (out of memory: by the next view) */
    return tag;
}

/* ------------------------------------------------------------------------- */
/* Systems and workloads                                                     */
/* ------------------------------------------------------------------------- */
/* A workload is its systems flattened in order, each with a batch number:
   consecutive systems share a batch when none of them writes what another
   one in the batch reads or writes, and none is structural. Batches run one
   after the other, each at a new tick, its systems through parallel_for;
   the command buffer is flushed after each batch. */

#define ECS__REASON 120

typedef struct ecs__system {
    char *name;
    ecs_system_desc desc;
    ecs_tick last_run;
} ecs__system;

typedef struct ecs__workload {
    char *name;
    uint32_t n;        /* steps */
    uint32_t *sys;     /* the system of each step */
    uint32_t *batch;   /* its batch */
    char *reasons;     /* n * ECS__REASON: why it could not join the previous batch */
    int *results;      /* what each step returned in the last run */
} ecs__workload;


static void ecs__workload_free(ecs_world *w, ecs__workload *wl) {
    ecs__free(w, wl->name, strlen(wl->name) + 1);
    ecs__free(w, wl->sys, (size_t)wl->n * sizeof *wl->sys);
    ecs__free(w, wl->batch, (size_t)wl->n * sizeof *wl->batch);
    ecs__free(w, wl->reasons, (size_t)wl->n * ECS__REASON);
    ecs__free(w, wl->results, (size_t)wl->n * sizeof *wl->results);
}

static void ecs__phases_free(ecs_world *w);
static void ecs__systems_free(ecs_world *w) {
    uint32_t i;
    ecs__phases_free(w);
    for (i = 0; i < w->nsys; i++) ecs__free(w, w->sys[i].name, strlen(w->sys[i].name) + 1);
    for (i = 0; i < w->nwl; i++) ecs__workload_free(w, &w->wl[i]);
    ecs__free(w, w->sys, (size_t)w->sys_cap * sizeof *w->sys);
    ecs__free(w, w->wl, (size_t)w->wl_cap * sizeof *w->wl);
    ecs__names_free(w, &w->systems);
    ecs__names_free(w, &w->workloads);
}

static const char *ecs__name_of(const ecs_world *w, int kind, uint32_t item) {
    return kind == ECS__NAMES_COMPONENT ? w->storages[item]->name
           : kind == ECS__NAMES_SYSTEM  ? w->sys[item].name
                                        : w->wl[item].name;
}
#define ECS__MAX_STEPS (1u << 24) /* steps of one workload: far more than any game runs */
static uint32_t ecs__system_find(const ecs_world *w, const char *name) {
    return ecs__names_find(w, &w->systems, ECS__NAMES_SYSTEM, name);
}
static uint32_t ecs__workload_index(const ecs_world *w, const char *name) {
    return ecs__names_find(w, &w->workloads, ECS__NAMES_WORKLOAD, name);
}

static char *ecs__strdup(ecs_world *w, const char *str) {
    size_t n = strlen(str) + 1;
    char *p = (char *)ecs__alloc(w, n);
    if (p) memcpy(p, str, n);
    return p;
}

ECS__FN bool ecs_system_new(ecs_world *w, const ecs_system_desc *d) {
    ECS__WORLD(w, false);
    ecs__system *sy;
    uint32_t k;
    if (!d || !d->name || !*d->name || !d->fn) {
        ecs__report(w, d ? ECS__M_SYSTEM_DESC : ECS__M_NULL_ARG, "ecs_system_new", ECS_NULL, 0, "desc");
        return false;
    }
    if (w->running) { /* the running workload reads the systems array */
        ecs__report(w, ECS__M_REFUSED, "ecs_system_new", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return false;
    }
    if (ecs__system_find(w, d->name) != ECS__NOT_FOUND ||
        ecs__workload_index(w, d->name) != ECS__NOT_FOUND) {
        ecs__report(w, ECS__M_NAME_TAKEN, "ecs_system_new", ECS_NULL, 0, d->name);
        return false;
    }
    for (k = 0; k < 2 * ECS_MAX_TERMS; k++) { /* each list ends at its first 0 */
        const ecs_component *list = k < ECS_MAX_TERMS ? d->reads : d->writes;
        ecs_component c = list[k % ECS_MAX_TERMS];
        if (!c) k = k < ECS_MAX_TERMS ? ECS_MAX_TERMS - 1 : 2 * ECS_MAX_TERMS;
        else if (c - 1u >= w->ncomponents) {
            ecs__bad_access(w, "ecs_system_new", ECS_NULL, c, (size_t)-1);
            return false;
        }
    }
    if (!ecs__grow(w, (void **)&w->sys, &w->sys_cap, w->nsys + 1, w->nsys, sizeof *w->sys) ||
        !ecs__names_reserve(w, &w->systems, ECS__NAMES_SYSTEM)) {
        ecs__report(w, ECS__M_OOM, "ecs_system_new", ECS_NULL, 0);
        return false;
    }
    sy = &w->sys[w->nsys];
    if (!(sy->name = ecs__strdup(w, d->name))) {
        ecs__report(w, ECS__M_OOM, "ecs_system_new", ECS_NULL, 0);
        return false;
    }
    sy->desc = *d;
    sy->desc.name = sy->name;
    for (k = 0; k < ECS_MAX_TERMS; k++) { /* what follows a list's first 0 is not part of it */
        if (!sy->desc.reads[k]) memset(sy->desc.reads + k, 0, (ECS_MAX_TERMS - k) * sizeof(ecs_component)), k = ECS_MAX_TERMS;
    }
    for (k = 0; k < ECS_MAX_TERMS; k++) {
        if (!sy->desc.writes[k]) memset(sy->desc.writes + k, 0, (ECS_MAX_TERMS - k) * sizeof(ecs_component)), k = ECS_MAX_TERMS;
    }
    sy->last_run = 1; /* never ran: every stamped change is newer */
    ecs__names_put(&w->systems, sy->name, w->nsys);
    w->nsys++;
    return true;
}

/* Cuts a workload into batches (section 15). acc[c], one per component
   (ncomponents + 1 of them, zeroed), says who in the current batch
   touches c: (step + 1) << 2 | 1 read | 2 write; entries of steps before
   the batch's first are stale. */
static void ecs__plan(ecs_world *w, ecs__workload *wl, uint64_t *acc) {
    uint32_t i, k, batch = 0, first = 0;
    for (i = 0; i < wl->n; i++) {
        const ecs_system_desc *d = &w->sys[wl->sys[i]].desc;
        char *why = wl->reasons + (size_t)i * ECS__REASON;
        why[0] = 0;
        for (k = first; i && k < i && !why[0]; k++) {
            if (wl->sys[k] == wl->sys[i])
                snprintf(why, ECS__REASON, "%s already runs in this batch", d->name);
            else if (w->sys[wl->sys[k]].desc.structural)
                snprintf(why, ECS__REASON, "%s is structural and runs alone", w->sys[wl->sys[k]].name);
        }
        if (i && !why[0] && d->structural) snprintf(why, ECS__REASON, "structural: runs alone");
        for (k = 0; i && !why[0] && k < 2 * ECS_MAX_TERMS; k++) {
            bool writes = k >= ECS_MAX_TERMS;
            ecs_component c = writes ? d->writes[k - ECS_MAX_TERMS] : d->reads[k];
            uint64_t a = c ? acc[c] : 0;
            if (a >> 2 > first && (writes || (a & 2)))
                snprintf(why, ECS__REASON, "%s %s, which %s %s", writes ? "writes" : "reads",
                         w->storages[c]->name, w->sys[wl->sys[(a >> 2) - 1]].name, a & 2 ? "writes" : "reads");
        }
        if (why[0]) {
            batch++;
            first = i;
        }
        wl->batch[i] = batch;
        for (k = 0; k < 2 * ECS_MAX_TERMS; k++) {
            bool writes = k >= ECS_MAX_TERMS;
            ecs_component c = writes ? d->writes[k - ECS_MAX_TERMS] : d->reads[k];
            if (c) acc[c] = ((uint64_t)i + 1) << 2 | (writes ? 2u : 1u) | (acc[c] >> 2 > first ? acc[c] & 3u : 0u);
        }
    }
}

ECS__FN bool ecs_workload_new(ecs_world *w, const char *name, uint32_t n, const char *const *items) {
    ECS__WORLD(w, false);
    ecs__workload wl;
    uint64_t steps = 0, *acc = NULL;
    uint32_t i, k;
    memset(&wl, 0, sizeof wl);
    if (w->running) {
        ecs__report(w, ECS__M_REFUSED, "ecs_workload_new", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return false;
    }
    if (!name || !*name || (n && !items) || ecs__workload_index(w, name) != ECS__NOT_FOUND ||
        ecs__system_find(w, name) != ECS__NOT_FOUND) {
        ecs__report(w, n && !items && name && *name ? ECS__M_NULL_ARG : ECS__M_WORKLOAD_NAME, "ecs_workload_new",
                    ECS_NULL, 0, n && !items && name && *name ? "items" : name ? name : "(NULL)");
        return false;
    }
    for (i = 0; i < n; i++) {
        uint32_t at = ecs__workload_index(w, items[i]); /* a NULL name is found nowhere */
        if (!items[i]) {
            ecs__report(w, ECS__M_NULL_ARG, "ecs_workload_new", ECS_NULL, 0, "an item (items[i])");
            return false;
        } else if (at != ECS__NOT_FOUND)
            steps += w->wl[at].n;
        else if (ecs__system_find(w, items[i]) != ECS__NOT_FOUND)
            steps++;
        else {
            ecs__report(w, ECS__M_NO_ITEM, "ecs_workload_new", ECS_NULL, 0, items[i]);
            return false;
        }
    }
    if (steps > ECS__MAX_STEPS) {
        ecs__report(w, ECS__M_TOO_MANY_STEPS, "ecs_workload_new", ECS_NULL, 0);
        return false;
    }
    wl.n = (uint32_t)steps;
    wl.name = ecs__strdup(w, name);
    if (steps) {
        wl.sys = (uint32_t *)ecs__alloc_n(w, wl.n, sizeof *wl.sys);
        wl.batch = (uint32_t *)ecs__alloc_n(w, wl.n, sizeof *wl.batch);
        wl.reasons = (char *)ecs__alloc_n(w, wl.n, ECS__REASON);
        wl.results = (int *)ecs__alloc_n(w, wl.n, sizeof *wl.results);
        acc = (uint64_t *)ecs__alloc_n(w, w->ncomponents + 1, sizeof *acc);
    }
    if (!wl.name || (steps && (!wl.sys || !wl.batch || !wl.reasons || !wl.results || !acc)) ||
        !ecs__grow(w, (void **)&w->wl, &w->wl_cap, w->nwl + 1, w->nwl, sizeof *w->wl) ||
        !ecs__names_reserve(w, &w->workloads, ECS__NAMES_WORKLOAD)) {
        ecs__free(w, wl.name, wl.name ? strlen(wl.name) + 1 : 0);
        wl.name = NULL;
        ecs__free(w, wl.sys, (size_t)wl.n * sizeof *wl.sys);
        ecs__free(w, wl.batch, (size_t)wl.n * sizeof *wl.batch);
        ecs__free(w, wl.reasons, (size_t)wl.n * ECS__REASON);
        ecs__free(w, wl.results, (size_t)wl.n * sizeof *wl.results);
        ecs__free(w, acc, ((size_t)w->ncomponents + 1) * sizeof *acc);
        ecs__report(w, ECS__M_OOM, "ecs_workload_new", ECS_NULL, 0);
        return false;
    }
    for (i = 0, k = 0; i < n; i++) { /* nested workloads are flattened */
        uint32_t at = ecs__workload_index(w, items[i]), j;
        if (at == ECS__NOT_FOUND)
            wl.sys[k++] = ecs__system_find(w, items[i]);
        else
            for (j = 0; j < w->wl[at].n; j++) wl.sys[k++] = w->wl[at].sys[j];
    }
    if (steps) {
        memset(wl.results, 0, (size_t)wl.n * sizeof *wl.results);
        memset(acc, 0, ((size_t)w->ncomponents + 1) * sizeof *acc);
        ecs__plan(w, &wl, acc);
        ecs__free(w, acc, ((size_t)w->ncomponents + 1) * sizeof *acc);
    }
    w->wl[w->nwl] = wl;
    ecs__names_put(&w->workloads, w->wl[w->nwl].name, w->nwl);
    if (w->default_wl == ECS__NOT_FOUND) w->default_wl = w->nwl;
    w->nwl++;
    return true;
}

static ecs__workload *ecs__workload_find(const ecs_world *w, const char *call, const char *name) {
    uint32_t at = name ? ecs__workload_index(w, name) : w->default_wl;
    if (at != ECS__NOT_FOUND) return &w->wl[at];
    ecs__report(w, ECS__M_NO_WORKLOAD, call, ECS_NULL, 0, name ? name : "(default)");
    return NULL;
}

ECS__FN bool ecs_workload_set_default(ecs_world *w, const char *name) {
    ECS__WORLD(w, false);
    ecs__workload *wl;
    if (w->in_phase) return ecs__report(w, ECS__M_IN_PHASE, "ecs_workload_set_default", ECS_NULL, 0), false;
    wl = ecs__workload_find(w, "ecs_workload_set_default", name);
    if (wl) w->default_wl = (uint32_t)(wl - w->wl);
    return wl != NULL;
}

ECS__FN uint32_t ecs_workload_plan(const ecs_world *w, const char *name, ecs_plan_step *out, uint32_t cap) {
    ECS__WORLD(w, 0);
    const ecs__workload *wl = ecs__workload_find(w, "ecs_workload_plan", name);
    uint32_t i;
    if (!wl) return 0;
    for (i = 0; out && i < wl->n && i < cap; i++) {
        out[i].system = w->sys[wl->sys[i]].name;
        out[i].batch = wl->batch[i];
        out[i].reason = wl->reasons + (size_t)i * ECS__REASON;
    }
    return wl->n;
}

ECS__FN const char *ecs_workload_failed_system(const ecs_world *w) {
    ECS__WORLD(w, NULL);
    return w->failed_system;
}

typedef struct ecs__batch {
    ecs_world *w;
    ecs__workload *wl;
    uint32_t first;
    ecs_tick now;
} ecs__batch;

/* Runs one system at `now`: its result, 0 when run_if skipped it. */
static int ecs__run_system(ecs_world *w, ecs__system *sy, ecs_tick now) {
    ecs_system_ctx ctx;
    int rc;
    memset(&ctx, 0, sizeof ctx);
    ctx.world = w;
    ctx.user = sy->desc.user;
    ctx.name = sy->name;
    ctx.last_run = sy->last_run;
    ctx.now = now;
    if (sy->desc.run_if && !sy->desc.run_if(&ctx)) return 0; /* skipped: last_run stays */
    rc = sy->desc.fn(&ctx);
    sy->last_run = now;
    return rc;
}

/* One system of a batch; may run on any thread, at the same time as the
   others of its batch: it writes only its own step's result and last_run. */
static void ecs__run_step(void *arg, uint32_t i) {
    ecs__batch *b = (ecs__batch *)arg;
    uint32_t step = b->first + i;
    b->wl->results[step] = ecs__run_system(b->w, &b->w->sys[b->wl->sys[step]], b->now);
}

static void ecs__phase_lock(ecs_world *w, const struct ecs__phase *ph, bool on);
ECS__FN int ecs_workload_run(ecs_world *w, const char *name) {
    ECS__WORLD(w, -1);
    ecs__workload *wl;
    uint32_t i = 0, j, k;
    int rc = 0;
    if (w->running) {
        ecs__report(w, ECS__M_RUNNING, "ecs_workload_run", ECS_NULL, 0);
        return -1;
    }
    if (w->guard) {
        ecs__report(w, ECS__M_REFUSED, "ecs_workload_run", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return -1;
    }
    if (!(wl = ecs__workload_find(w, "ecs_workload_run", name))) return -1;
    w->running = true;
    w->failed_system = NULL;
    while (i < wl->n && !rc) {
        ecs__batch b;
        for (j = i; j < wl->n && wl->batch[j] == wl->batch[i]; j++) {}
        b.w = w;
        b.wl = wl;
        b.first = i;
        ecs__advance(w);
        b.now = w->tick;
        w->clock_locked = j - i >= 2;
        if (j - i >= 2) { /* nothing structural: they may run at once (section 15) */
            for (k = 0; k < w->nqueries; k++) ecs__query_fresh(w, k + 1); /* (their views cannot rebuild them meanwhile) */
            ecs__phase_lock(w, NULL, true);
        }
        if (j - i < 2 || !ecs__parallel(w, ecs__run_step, &b, j - i))
            for (k = i; k < j; k++) ecs__run_step(&b, k - i);
        if (j - i >= 2) ecs__phase_lock(w, NULL, false);
        w->clock_locked = false;
        for (k = i; k < j && !rc; k++)
            if ((rc = wl->results[k]) != 0) {
                w->failed_system = w->sys[wl->sys[k]].name;
                ecs__report(w, ECS__M_SYSTEM_FAILED, "ecs_workload_run", ECS_NULL, 0, w->failed_system, rc);
            }
        ecs_flush(w);
        if (!rc && w->cmds_head < w->cmds_len) { /* out of memory: the next batch must not run */
            w->failed_system = w->sys[wl->sys[j - 1]].name;
            rc = -1;
        }
        i = j;
    }
    ecs__advance(w); /* changes after the run are newer than every system's `now` */
    w->running = false;
    return rc;
}

ECS__FN int ecs_system_run(ecs_world *w, const char *name) {
    uint32_t k;
    int rc;
    ECS__WORLD(w, -1);
    if (w->running) {
        ecs__report(w, ECS__M_RUNNING, "ecs_system_run", ECS_NULL, 0);
        return -1;
    }
    if (w->guard) {
        ecs__report(w, ECS__M_REFUSED, "ecs_system_run", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return -1;
    }
    if ((k = ecs__system_find(w, name)) == ECS__NOT_FOUND) {
        ecs__report(w, ECS__M_NO_SYSTEM, "ecs_system_run", ECS_NULL, 0, name ? name : "(NULL)");
        return -1;
    }
    w->running = true; /* a batch of one */
    w->failed_system = NULL;
    ecs__advance(w);
    if ((rc = ecs__run_system(w, &w->sys[k], w->tick)) != 0) {
        w->failed_system = w->sys[k].name;
        ecs__report(w, ECS__M_SYSTEM_FAILED, "ecs_system_run", ECS_NULL, 0, w->failed_system, rc);
    }
    ecs_flush(w);
    if (!rc && w->cmds_head < w->cmds_len) { /* out of memory: commands stay queued */
        w->failed_system = w->sys[k].name; /* (as ecs_workload_run names its batch's last) */
        rc = -1;
    }
    ecs__advance(w);
    w->running = false;
    return rc;
}

ECS__FN ecs_iter ecs_system_view(const ecs_system_ctx *ctx, const ecs_view_desc *desc) {
    ecs_view_desc d;
    if (!ctx) {
        ECS_ASSERT(0, "ecs_system_view: ctx is NULL");
        return ecs__no_world_iter();
    }
    ECS__WORLD_IN(ctx->world, "ecs_system_view", ecs__no_world_iter());
    if (!desc) return ecs__view(ctx->world, "ecs_system_view", NULL);
    d = *desc;
    if (!d.since) d.since = ctx->last_run;
    return ecs__view(ctx->world, "ecs_system_view", &d);
}

/* ------------------------------------------------------------------------- */
/* Phases                                                                    */
/* ------------------------------------------------------------------------- */
/* A phase runs its systems against a locked world, each recording into its
   own buffer, in the command buffer's records (ADD: a proposed value,
   REMOVE: a removal, DESTROY: a despawn, SPAWN with c = n: a spawn whose
   bundle is the n ADD records that follow). Then, serially: the proposals
   are sorted by (component, entity index) with a stable radix sort, so a
   bucket keeps the deterministic order; each bucket is reduced to an
   outcome (reducers see a locked world too); room is reserved for every
   outcome; only then is anything applied, through ecs_destroy's path, the
   insert path and the remove path. */

struct ecs_proposals {
    ecs_world *world;
    unsigned char *rec; /* records */
    uint32_t len, cap;
    struct ecs_proposals *parts; /* ecs_proposals_split: parts[0..nparts) */
    uint32_t nparts, parts_cap;
    bool is_part;
    bool running; /* its system runs (a part: split in this run): it may be recorded into */
    uint32_t nprops, nspawns; /* records to bucket, spawns */
    uint64_t vbytes;          /* the values the buckets may need (each padded: ECS__REC_PAD) */
    int msg; /* the first failed recording (0: none): its message, ... */
    const char *why;
    ecs_entity err_e;
    ecs_component err_c;
};

typedef struct ecs__phase_sys {
    char *name;
    ecs_system_desc desc;
    ecs_tick last_run;
    ecs_proposals out;
    bool ran;
    int rc;
} ecs__phase_sys;

typedef struct ecs__reducer {
    ecs_reducer_fn fn;
    void *user;
} ecs__reducer;

typedef struct ecs__phase {
    char *name;
    ecs_phase_desc desc;
    ecs__phase_sys *sys;
    uint32_t nsys, sys_cap;
    ecs__reducer *red; /* red[c]: c's reducer (fn NULL: none), for c < red_cap */
    uint32_t red_cap;
    ecs_tick now;
    bool claiming; /* its systems and reducers run: claimed uniques are theirs (not while run_if is asked) */
} ecs__phase;

typedef struct ecs__schedule {
    char *name;
    uint32_t n;
    uint32_t *phases;
} ecs__schedule;

/* One proposal where the sort puts it: key = component << 32 | entity index
   (a despawn: component 0). */
typedef struct ecs__prop {
    uint64_t key;
    const unsigned char *rec;
    uint32_t sys;
} ecs__prop;

/* A bucket: props[first..first + n) share a key; its outcome, and the next
   value at values + at. */
enum { ECS__SKIP = -1000, ECS__NO_REDUCER_ = -1001, ECS__FAILED = -1002 };
typedef struct ecs__bucket {
    uint32_t first, n;
    int kind; /* ECS_REDUCE_*, or ECS__SKIP (despawned), ECS__NO_REDUCER_, ECS__FAILED (rc) */
    int rc;
    size_t at;
} ecs__bucket;

/* A phase's scratch: one block, freed at the end of the phase. */
typedef struct ecs__apply {
    ecs_world *w;
    ecs__phase *ph;
    ecs__prop *props, *tmp;
    const unsigned char **spawns;
    ecs__bucket *b;
    ecs_proposed *chg;
    uint32_t *count;          /* 4 per component: inserts, removals, deletions, spawned */
    uint32_t *radix;          /* the sort's counts: 8 x 256 */
    ecs_storage **room;       /* ecs__strip's list, when more than 32 components */
    unsigned char *values, *block;
    uint64_t block_size;
    uint32_t n, ndesp, nspawn, nb;
    bool partial; /* what a hook did made a change of the apply fail (reported); the rest is applied */
} ecs__apply;

static void ecs__proposals_free(ecs_world *w, ecs_proposals *p) {
    uint32_t k;
    for (k = 0; k < p->parts_cap; k++) ecs__proposals_free(w, &p->parts[k]);
    ecs__free(w, p->parts, (size_t)p->parts_cap * sizeof *p->parts);
    ecs__free(w, p->rec, p->cap);
}
static void ecs__proposals_reset(ecs_proposals *p) {
    uint32_t k;
    for (k = 0; k < p->parts_cap; k++) ecs__proposals_reset(&p->parts[k]);
    p->len = p->nparts = p->nprops = p->nspawns = 0;
    p->vbytes = 0;
    p->msg = 0;
}

static void ecs__phases_free(ecs_world *w) {
    uint32_t i, k;
    for (i = 0; i < w->nphases; i++) {
        ecs__phase *ph = &w->phases[i];
        for (k = 0; k < ph->nsys; k++) {
            ecs__free(w, ph->sys[k].name, strlen(ph->sys[k].name) + 1);
            ecs__proposals_free(w, &ph->sys[k].out);
        }
        ecs__free(w, ph->sys, (size_t)ph->sys_cap * sizeof *ph->sys);
        ecs__free(w, ph->red, (size_t)ph->red_cap * sizeof *ph->red);
        ecs__free(w, ph->name, strlen(ph->name) + 1);
    }
    for (i = 0; i < w->nscheds; i++) {
        ecs__free(w, w->scheds[i].name, strlen(w->scheds[i].name) + 1);
        ecs__free(w, w->scheds[i].phases, (size_t)(w->scheds[i].n ? w->scheds[i].n : 1) * sizeof(uint32_t));
    }
    ecs__free(w, w->phases, (size_t)w->phases_cap * sizeof *w->phases);
    ecs__free(w, w->scheds, (size_t)w->scheds_cap * sizeof *w->scheds);
}

static uint32_t ecs__phase_find(const ecs_world *w, const char *name, bool schedule) {
    uint32_t i, n = schedule ? w->nscheds : w->nphases;
    for (i = 0; name && i < n; i++)
        if (!strcmp(schedule ? w->scheds[i].name : w->phases[i].name, name)) return i;
    return ECS__NOT_FOUND;
}
static ecs__phase *ecs__phase_of(ecs_world *w, const char *call, const char *name) {
    uint32_t i = ecs__phase_find(w, name, false);
    if (i != ECS__NOT_FOUND) return &w->phases[i];
    ecs__report(w, ECS__M_NO_PHASE, call, ECS_NULL, 0, name ? name : "(NULL)");
    return NULL;
}
/* A new phase or schedule's name (not taken by either), or NULL. */
static char *ecs__phase_name(ecs_world *w, const char *call, const char *name, void **arr, uint32_t *cap,
                             uint32_t n, size_t elem) {
    char *copy;
    if (w->running) return ecs__report(w, ECS__M_RUNNING, call, ECS_NULL, 0), (char *)NULL;
    if (!name || ecs__phase_find(w, name, false) != ECS__NOT_FOUND || ecs__phase_find(w, name, true) != ECS__NOT_FOUND)
        return ecs__report(w, ECS__M_PHASE_NAME, call, ECS_NULL, 0), (char *)NULL;
    if (!ecs__grow(w, arr, cap, n + 1, n, elem) || !(copy = ecs__strdup(w, name)))
        return ecs__report(w, ECS__M_OOM, call, ECS_NULL, 0), (char *)NULL;
    memset((char *)*arr + (size_t)n * elem, 0, elem);
    return copy;
}

ECS__FN bool ecs_phase_new(ecs_world *w, const ecs_phase_desc *d) {
    ECS__WORLD(w, false);
    ecs__phase *ph;
    char *name;
    if (!d) return ecs__report(w, ECS__M_NULL_ARG, "ecs_phase_new", ECS_NULL, 0, "desc"), false;
    if (!(name = ecs__phase_name(w, "ecs_phase_new", d->name, (void **)&w->phases, &w->phases_cap, w->nphases,
                                 sizeof *w->phases)))
        return false;
    ph = &w->phases[w->nphases++];
    ph->name = name;
    ph->desc = *d;
    ph->desc.name = name;
    return true;
}

ECS__FN bool ecs_phase_system(ecs_world *w, const char *phase, const ecs_system_desc *d) {
    ECS__WORLD(w, false);
    ecs__phase *ph = ecs__phase_of(w, "ecs_phase_system", phase);
    ecs__phase_sys *sy;
    uint32_t k;
    if (!ph) return false;
    if (w->running) return ecs__report(w, ECS__M_RUNNING, "ecs_phase_system", ECS_NULL, 0), false;
    if (!d || !d->name || !d->fn) return ecs__report(w, ECS__M_SYSTEM_DESC, "ecs_phase_system", ECS_NULL, 0), false;
    if (d->exclusive && !ecs__comp(w, "ecs_phase_system", ECS_NULL, d->exclusive, (size_t)-1)) return false;
    for (k = 0; k < ph->nsys; k++) {
        if (!strcmp(ph->sys[k].name, d->name))
            return ecs__report(w, ECS__M_NAME_TAKEN, "ecs_phase_system", ECS_NULL, 0, d->name), false;
        if (d->exclusive && ph->sys[k].desc.exclusive == d->exclusive)
            return ecs__report(w, ECS__M_CLAIMED, "ecs_phase_system", ECS_NULL, d->exclusive, ph->name, ph->sys[k].name),
                   false;
    }
    if (!ecs__grow(w, (void **)&ph->sys, &ph->sys_cap, ph->nsys + 1, ph->nsys, sizeof *ph->sys))
        return ecs__report(w, ECS__M_OOM, "ecs_phase_system", ECS_NULL, 0), false;
    sy = &ph->sys[ph->nsys];
    memset(sy, 0, sizeof *sy);
    if (!(sy->name = ecs__strdup(w, d->name))) return ecs__report(w, ECS__M_OOM, "ecs_phase_system", ECS_NULL, 0), false;
    sy->desc = *d;
    sy->desc.name = sy->name;
    sy->last_run = 1;
    sy->out.world = w;
    ph->nsys++;
    return true;
}

ECS__FN bool ecs_phase_reducer(ecs_world *w, const char *phase, ecs_component c, ecs_reducer_fn fn, void *user) {
    ECS__WORLD(w, false);
    ecs__phase *ph = ecs__phase_of(w, "ecs_phase_reducer", phase);
    uint32_t had;
    if (!ph || !ecs__comp(w, "ecs_phase_reducer", ECS_NULL, c, (size_t)-1)) return false;
    if (w->running) return ecs__report(w, ECS__M_RUNNING, "ecs_phase_reducer", ECS_NULL, c), false;
    if ((had = ph->red_cap) <= c && !ecs__grow(w, (void **)&ph->red, &ph->red_cap, c + 1, had, sizeof *ph->red))
        return ecs__report(w, ECS__M_OOM, "ecs_phase_reducer", ECS_NULL, c), false;
    memset(ph->red + had, 0, (ph->red_cap - had) * sizeof *ph->red);
    ph->red[c].fn = fn;
    ph->red[c].user = user;
    return true;
}

ECS__FN bool ecs_schedule_new(ecs_world *w, const char *name, uint32_t n, const char *const *phases) {
    ECS__WORLD(w, false);
    ecs__schedule *sc;
    uint32_t *ids, k;
    char *copy;
    if (n && !phases) return ecs__report(w, ECS__M_NULL_ARG, "ecs_schedule_new", ECS_NULL, 0, "phases"), false;
    for (k = 0; k < n; k++)
        if (!ecs__phase_of(w, "ecs_schedule_new", phases[k])) return false;
    if (!(ids = (uint32_t *)ecs__alloc_n(w, n ? n : 1, sizeof *ids)))
        return ecs__report(w, ECS__M_OOM, "ecs_schedule_new", ECS_NULL, 0), false;
    if (!(copy = ecs__phase_name(w, "ecs_schedule_new", name, (void **)&w->scheds, &w->scheds_cap, w->nscheds,
                                 sizeof *w->scheds))) {
        ecs__free(w, ids, (size_t)(n ? n : 1) * sizeof *ids);
        return false;
    }
    for (k = 0; k < n; k++) ids[k] = ecs__phase_find(w, phases[k], false);
    sc = &w->scheds[w->nscheds++];
    sc->name = copy;
    sc->n = n;
    sc->phases = ids;
    return true;
}

/* --- recording: from any thread, each buffer by one at a time; nothing
   of the world is written, so failures are kept in the buffer and
   reported when the phase applies. */

/* Only into the buffer of a phase system that runs, or a part of this
   run's split (the buffers are read afterwards): else reported, false. */
static bool ecs__proposing(const ecs_proposals *p, const char *call, ecs_entity e, ecs_component c) {
    if (p->running) return true;
    ecs__report(p->world, ECS__M_NOT_PROPOSING, call, e, c);
    return false;
}

static bool ecs__proposal_fail(ecs_proposals *p, int msg, ecs_entity e, ecs_component c, const char *why) {
    if (!p->msg) {
        p->msg = msg;
        p->why = why;
        p->err_e = e;
        p->err_c = c;
    }
    return false;
}
static bool ecs__propose(ecs_proposals *p, uint32_t op, ecs_entity e, ecs_component c, const void *value,
                         size_t size) {
    ecs_world *w;
    uint32_t vsize = 0;
    if (!p) {
        ECS_ASSERT(0, "ecs_propose_*: proposals is NULL (not a phase system's ctx->proposals?)");
        return false;
    }
    w = p->world;
    if (!ecs__proposing(p, "ecs_propose_*", e, c) || p->msg) return false; /* (p->msg: the phase fails already) */
    if (!ecs_alive(w, e)) return ecs__proposal_fail(p, ECS__M_PROPOSED_DEAD, e, c, NULL);
    if (op != ECS__CMD_DESTROY) {
        if (c - 1u >= w->ncomponents) return ecs__proposal_fail(p, ECS__M_PROPOSED_UNKNOWN, e, c, NULL);
        if (size != (size_t)-1 && size != w->storages[c]->size)
            return ecs__proposal_fail(p, ECS__M_PROPOSED_BAD, e, c, "sizeof(T) is not the registered size");
        if (w->storages[c]->query) return ecs__proposal_fail(p, ECS__M_PROPOSED_BAD, e, c, "a cached query's tag");
        if (op == ECS__CMD_ADD) vsize = w->storages[c]->size;
    }
    if (!ecs__push_record(w, &p->rec, &p->len, &p->cap, op, e, c, value, vsize))
        return ecs__proposal_fail(p, ECS__M_PROPOSED_OOM, e, c, NULL);
    p->nprops++;
    if (c) p->vbytes += ECS__REC_PAD(w->storages[c]->size);
    return true;
}
ECS__FN bool ecs_propose_set(ecs_proposals *p, ecs_entity e, ecs_component c, const void *value) {
    return ecs__propose(p, ECS__CMD_ADD, e, c, value, (size_t)-1);
}
ECS__FN bool ecs__propose_sized(ecs_proposals *p, ecs_entity e, ecs_component c, const void *value, size_t size) {
    return ecs__propose(p, ECS__CMD_ADD, e, c, value, size);
}
ECS__FN bool ecs_propose_remove(ecs_proposals *p, ecs_entity e, ecs_component c) {
    return ecs__propose(p, ECS__CMD_REMOVE, e, c, NULL, (size_t)-1);
}
ECS__FN bool ecs_propose_despawn(ecs_proposals *p, ecs_entity e) {
    return ecs__propose(p, ECS__CMD_DESTROY, e, 0, NULL, (size_t)-1);
}
ECS__FN bool ecs_propose_spawn(ecs_proposals *p, uint32_t n, const ecs_component *comps, const void *const *values) {
    ecs_world *w;
    uint32_t k, j;
    if (!p) return ecs__propose(p, 0, ECS_NULL, 0, NULL, 0);
    w = p->world;
    if (!ecs__proposing(p, "ecs_propose_spawn", ECS_NULL, 0) || p->msg) return false;
    if (n && !comps) return ecs__proposal_fail(p, ECS__M_PROPOSED_BAD, ECS_NULL, 0, "a spawn's comps is NULL");
    if (n > ECS_MAX_TERMS)
        return ecs__proposal_fail(p, ECS__M_PROPOSED_BAD, ECS_NULL, 0, "a spawn of more than ECS_MAX_TERMS components");
    for (k = 0; k < n; k++) {
        if (comps[k] - 1u >= w->ncomponents) return ecs__proposal_fail(p, ECS__M_PROPOSED_UNKNOWN, ECS_NULL, comps[k], NULL);
        if (w->storages[comps[k]]->query)
            return ecs__proposal_fail(p, ECS__M_PROPOSED_BAD, ECS_NULL, comps[k], "a cached query's tag");
        for (j = 0; j < k; j++)
            if (comps[j] == comps[k])
                return ecs__proposal_fail(p, ECS__M_PROPOSED_BAD, ECS_NULL, comps[k], "a spawn lists a component twice");
    }
    if (!ecs__push_record(w, &p->rec, &p->len, &p->cap, ECS__CMD_SPAWN, ECS_NULL, n, NULL, 0))
        return ecs__proposal_fail(p, ECS__M_PROPOSED_OOM, ECS_NULL, 0, NULL);
    for (k = 0; k < n; k++)
        if (!ecs__push_record(w, &p->rec, &p->len, &p->cap, ECS__CMD_ADD, ECS_NULL, comps[k],
                              values ? values[k] : NULL, w->storages[comps[k]]->size))
            return ecs__proposal_fail(p, ECS__M_PROPOSED_OOM, ECS_NULL, comps[k], NULL);
    p->nspawns++;
    return true;
}

ECS__FN bool ecs_proposals_split(ecs_proposals *p, uint32_t parts) {
    uint32_t k, had;
    if (!p) return ecs__propose(p, 0, ECS_NULL, 0, NULL, 0);
    if (!ecs__proposing(p, "ecs_proposals_split", ECS_NULL, 0) || p->msg) return false;
    if (p->is_part || p->nparts || !parts)
        return ecs__proposal_fail(p, ECS__M_PROPOSED_BAD, ECS_NULL, 0, "split twice, a part split, or 0 parts");
    had = p->parts_cap;
    if (!ecs__grow(p->world, (void **)&p->parts, &p->parts_cap, parts, had, sizeof *p->parts))
        return ecs__proposal_fail(p, ECS__M_PROPOSED_OOM, ECS_NULL, 0, NULL);
    for (k = had; k < p->parts_cap; k++) {
        memset(&p->parts[k], 0, sizeof *p->parts);
        p->parts[k].world = p->world;
        p->parts[k].is_part = true;
    }
    for (k = 0; k < parts; k++) p->parts[k].running = true; /* (until the system returns) */
    p->nparts = parts;
    return true;
}
ECS__FN ecs_proposals *ecs_proposals_part(ecs_proposals *p, uint32_t k) {
    if (!p || k >= p->nparts) {
        ECS_ASSERT(0, p ? "ecs_proposals_part: no such part (ecs_proposals_split first, k < parts)"
                        : "ecs_proposals_part: proposals is NULL");
        return NULL;
    }
    return &p->parts[k];
}

/* --- running a phase */

static bool ecs__phase_refuses(const ecs_world *w, const char *call, ecs_component c, bool write) {
    const ecs__phase *ph = w->in_phase;
    uint32_t k;
    for (k = 0; ph->claiming && k < ph->nsys; k++)
        if (ph->sys[k].ran && ph->sys[k].desc.exclusive == c)
            return ecs__report(w, ECS__M_CLAIMED_USE, call, ECS_NULL, c, ph->sys[k].name), true;
    if (write) ecs__report(w, ECS__M_IN_PHASE, call, ECS_NULL, c);
    return write;
}

/* Locks (on) or unlocks the world around a phase's systems and reducers,
   or a batch of several systems (ph NULL): every storage refuses
   insertions and removals. */
static void ecs__phase_lock(ecs_world *w, const ecs__phase *ph, bool on) {
    uint32_t c;
    if (ph) w->in_phase = on ? ph : NULL;
    else w->batch_locked = on;
    if (on) w->guard++;
    else w->guard--;
    for (c = 1; c <= w->ncomponents; c++) w->storages[c]->locked += on ? 1u : (uint32_t)-1;
}

static void ecs__phase_job(void *arg, uint32_t k) {
    ecs__phase *ph = (ecs__phase *)arg;
    ecs__phase_sys *sy = &ph->sys[k];
    ecs_system_ctx ctx;
    uint32_t j;
    if (!sy->ran) return;
    memset(&ctx, 0, sizeof ctx);
    ctx.world = sy->out.world;
    ctx.user = sy->desc.user;
    ctx.name = sy->name;
    ctx.last_run = sy->last_run;
    ctx.now = ph->now;
    ctx.proposals = &sy->out;
    ctx.exclusive = sy->desc.exclusive ? ctx.world->storages[sy->desc.exclusive]->unique : NULL;
    sy->out.running = true;
    sy->rc = sy->desc.fn(&ctx);
    for (j = 0; j < sy->out.nparts; j++) sy->out.parts[j].running = false;
    sy->out.running = false;
}

/* Stable LSD radix sort of a[0..n) by key, 8 bits a pass, skipping the
   passes whose digit all keys share; tmp has room for n. */
static void ecs__sort_props(ecs__prop *a, ecs__prop *tmp, uint32_t *radix, uint32_t n) {
    uint32_t i, d, sum;
    ecs__prop *src = a, *dst = tmp, *t;
    bool sorted = true;
    for (i = 1; i < n && sorted; i++) sorted = a[i - 1].key <= a[i].key;
    if (sorted) return;
    memset(radix, 0, 8 * 256 * sizeof *radix);
    for (i = 0; i < n; i++)
        for (d = 0; d < 8; d++) radix[d * 256 + ((a[i].key >> (d * 8)) & 255)]++;
    for (d = 0; d < 8; d++) {
        uint32_t *c = radix + d * 256;
        if (c[(a[0].key >> (d * 8)) & 255] == n) continue;
        for (i = 0, sum = 0; i < 256; i++) {
            uint32_t x = c[i];
            c[i] = sum;
            sum += x;
        }
        for (i = 0; i < n; i++) dst[c[(src[i].key >> (d * 8)) & 255]++] = src[i];
        t = src, src = dst, dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

/* Calls back for every record of the phase, system by system (its own
   buffer, then its parts), each in emission order. */
#define ECS__EACH_RECORD(ph, K, P, J, AT, CMD)                                                             \
    for (K = 0; K < (ph)->nsys; K++)                                                                       \
        for (J = 0; J <= (ph)->sys[K].out.nparts; J++)                                                     \
            for (P = J ? &(ph)->sys[K].out.parts[J - 1] : &(ph)->sys[K].out, AT = 0;                       \
                 AT < P->len && (memcpy(&CMD, P->rec + AT, sizeof CMD), 1); AT += (uint32_t)ecs__rec_size(CMD.size))

/* Reduces buckets [from, to): the outcome of each in b[].kind. */
static void ecs__reduce_range(ecs__apply *a, uint32_t from, uint32_t to) {
    ecs_world *w = a->w;
    uint32_t g, i;
    for (g = from; g < to; g++) {
        ecs__bucket *b = &a->b[g];
        const ecs__prop *p = &a->props[b->first];
        ecs_component c = (ecs_component)(p->key >> 32);
        ecs_storage *s = w->storages[c];
        const ecs__reducer *r = c < a->ph->red_cap && a->ph->red[c].fn ? &a->ph->red[c] : NULL;
        unsigned char *next = a->values + b->at;
        ecs__cmd cmd;
        uint32_t row, lo = 0, hi = a->ndesp;
        memcpy(&cmd, p->rec, sizeof cmd);
        while (lo < hi) { /* despawned in this phase? (the despawns sort first) */
            uint32_t mid = lo + (hi - lo) / 2;
            if (a->props[mid].key < (uint32_t)p->key) lo = mid + 1;
            else hi = mid;
        }
        if (lo < a->ndesp && a->props[lo].key == (uint32_t)p->key) {
            b->kind = ECS__SKIP;
            continue;
        }
        row = ecs__row(s, cmd.e);
        if (s->size) {
            if (row != ECS__NO_ROW) ecs__copy(next, s->data + (size_t)row * s->size, s->size);
            else memset(next, 0, s->size);
        }
        if (r) {
            ecs_reduce in;
            for (i = 0; i < b->n; i++) {
                memcpy(&cmd, p[i].rec, sizeof cmd);
                a->chg[b->first + i].value = cmd.op == ECS__CMD_ADD ? p[i].rec + ECS__REC_VALUE : NULL;
                a->chg[b->first + i].system = p[i].sys;
            }
            memcpy(&cmd, p->rec, sizeof cmd);
            in.world = w;
            in.entity = cmd.e;
            in.component = c;
            in.current = row == ECS__NO_ROW ? NULL : s->size ? (const void *)(s->data + (size_t)row * s->size) : (const void *)s;
            in.changes = a->chg + b->first;
            in.n = b->n;
            in.user = r->user;
            b->rc = r->fn(&in, next);
            b->kind = b->rc == ECS_REDUCE_SET || b->rc == ECS_REDUCE_REMOVE || b->rc == ECS_REDUCE_KEEP ? b->rc : ECS__FAILED;
        } else if (a->ph->desc.strategy == ECS_REDUCER_REQUIRED) {
            b->kind = ECS__NO_REDUCER_;
        } else { /* last write wins */
            memcpy(&cmd, p[b->n - 1].rec, sizeof cmd);
            b->kind = cmd.op == ECS__CMD_ADD ? ECS_REDUCE_SET : ECS_REDUCE_REMOVE;
            if (cmd.op == ECS__CMD_ADD && s->size) ecs__copy(next, p[b->n - 1].rec + ECS__REC_VALUE, s->size);
        }
    }
}
#define ECS__REDUCE_TASKS 64
static void ecs__reduce_job(void *arg, uint32_t k) {
    ecs__apply *a = (ecs__apply *)arg;
    ecs__reduce_range(a, (uint32_t)((uint64_t)a->nb * k / ECS__REDUCE_TASKS),
                      (uint32_t)((uint64_t)a->nb * (k + 1) / ECS__REDUCE_TASKS));
}

/* Carves the phase's scratch from one block: a NULL block measures it. */
static void *ecs__carve(unsigned char *block, uint64_t *at, uint64_t bytes) {
    void *p = block ? block + *at : NULL;
    *at += ECS__REC_PAD(bytes);
    return p;
}
static uint64_t ecs__apply_carve(ecs__apply *a, unsigned char *block, uint64_t values) {
    uint64_t at = 0, n = a->n, nc = a->w->ncomponents + 1u;
    a->props = (ecs__prop *)ecs__carve(block, &at, n * sizeof *a->props);
    a->tmp = (ecs__prop *)ecs__carve(block, &at, n * sizeof *a->tmp);
    a->radix = (uint32_t *)ecs__carve(block, &at, 8 * 256 * sizeof *a->radix);
    a->spawns = (const unsigned char **)ecs__carve(block, &at, (uint64_t)a->nspawn * sizeof *a->spawns);
    a->b = (ecs__bucket *)ecs__carve(block, &at, n * sizeof *a->b);
    a->chg = (ecs_proposed *)ecs__carve(block, &at, n * sizeof *a->chg);
    a->count = (uint32_t *)ecs__carve(block, &at, 4 * nc * sizeof *a->count);
    a->room = (ecs_storage **)ecs__carve(block, &at, nc * sizeof *a->room);
    a->values = (unsigned char *)ecs__carve(block, &at, values);
    return at;
}

/* Reports the first failed recording of system sy (its buffer, then its
   parts), or returns false. */
static bool ecs__proposals_failed(ecs_world *w, const ecs__phase *ph, const ecs__phase_sys *sy,
                                  const ecs_proposals *p) {
    uint32_t j;
    if (p->msg) {
        w->failed_system = sy->name;
        if (p->msg == ECS__M_PROPOSED_BAD)
            ecs__report(w, p->msg, "ecs_schedule_run", p->err_e, p->err_c, ph->name, sy->name, p->why);
        else
            ecs__report(w, p->msg, "ecs_schedule_run", p->err_e, p->err_c, ph->name, sy->name);
        return true;
    }
    for (j = 0; j < p->nparts; j++)
        if (ecs__proposals_failed(w, ph, sy, &p->parts[j])) return true;
    return false;
}

/* What the systems said, gathered, sorted into buckets and reduced, with
   the world still locked. Returns 0, or the failure (reported). */
static int ecs__phase_reduce(ecs_world *w, ecs__phase *ph, ecs__apply *a) {
    ecs_proposals *p;
    ecs__cmd cmd;
    uint32_t k, j, at, i, skip = 0, ns = 0;
    uint64_t n = 0, values = 0, total, put = 0;
    for (k = 0; k < ph->nsys; k++)
        if (ph->sys[k].ran && ph->sys[k].rc) {
            w->failed_system = ph->sys[k].name;
            ecs__report(w, ECS__M_PHASE_SYSTEM, "ecs_schedule_run", ECS_NULL, 0, ph->name, ph->sys[k].name,
                        ph->sys[k].rc);
            return ph->sys[k].rc;
        }
    for (k = 0; k < ph->nsys; k++)
        if (ecs__proposals_failed(w, ph, &ph->sys[k], &ph->sys[k].out)) return -1;
    for (k = 0; k < ph->nsys; k++)
        for (j = 0; j <= ph->sys[k].out.nparts; j++) {
            p = j ? &ph->sys[k].out.parts[j - 1] : &ph->sys[k].out;
            n += p->nprops;
            a->nspawn += p->nspawns; /* (< 2^32: each is a record of 24 bytes or more in < 4 GB) */
            values += p->vbytes;
        }
    a->n = (uint32_t)n;
    total = ecs__apply_carve(a, NULL, values);
    if (n > 0xffffffffu || (size_t)total != total || !(a->block = (unsigned char *)ecs__alloc(w, (size_t)total))) {
        ecs__report(w, ECS__M_PHASE_OOM, "ecs_schedule_run", ECS_NULL, 0, ph->name);
        return -1;
    }
    a->block_size = total;
    ecs__apply_carve(a, a->block, values);
    n = 0;
    ECS__EACH_RECORD(ph, k, p, j, at, cmd) {
        if (skip) {
            skip--;
        } else if (cmd.op == ECS__CMD_SPAWN) {
            a->spawns[ns++] = p->rec + at;
            skip = cmd.c;
        } else {
            a->props[n].key = (uint64_t)(cmd.op == ECS__CMD_DESTROY ? 0 : cmd.c) << 32 | (uint32_t)cmd.e;
            a->props[n].rec = p->rec + at;
            a->props[n++].sys = k;
        }
    }
    ecs__sort_props(a->props, a->tmp, a->radix, a->n);
    for (i = 0; i < a->n && !(a->props[i].key >> 32); i++) /* the despawns, once each */
        if (!a->ndesp || a->props[a->ndesp - 1].key != a->props[i].key) a->props[a->ndesp++] = a->props[i];
    for (; i < a->n; i = j) { /* the buckets */
        ecs__bucket *b = &a->b[a->nb++];
        for (j = i + 1; j < a->n && a->props[j].key == a->props[i].key; j++) {}
        b->first = i;
        b->n = j - i;
        b->at = (size_t)put;
        put += ECS__REC_PAD(w->storages[a->props[i].key >> 32]->size);
    }
    if (!ph->desc.parallel_reduce || a->nb < 2 || !ecs__parallel(w, ecs__reduce_job, a, ECS__REDUCE_TASKS))
        ecs__reduce_range(a, 0, a->nb);
    for (k = 0; k < a->nb; k++) { /* the first failure in bucket order: the same at any thread count */
        const ecs__bucket *b = &a->b[k];
        const ecs__prop *pr = &a->props[b->first];
        if (b->kind != ECS__NO_REDUCER_ && b->kind != ECS__FAILED) continue;
        memcpy(&cmd, pr->rec, sizeof cmd);
        w->failed_system = ph->sys[pr->sys].name;
        if (b->kind == ECS__NO_REDUCER_)
            ecs__report(w, ECS__M_NO_REDUCER, "ecs_schedule_run", cmd.e, cmd.c, ph->name, w->failed_system);
        else
            ecs__report(w, ECS__M_REDUCER_FAILED, "ecs_schedule_run", cmd.e, cmd.c, ph->name, w->failed_system, b->rc);
        return -1;
    }
    return 0;
}

/* Reserves room for every outcome (nothing has changed if that fails),
   then applies them: despawns, reductions, spawns. */
static int ecs__phase_commit(ecs_world *w, ecs__phase *ph, ecs__apply *a) {
    const char *call = "ecs_schedule_run";
    uint32_t nc = w->ncomponents, c, g, i, k, reuse = 0, *ins = a->count, *rem = ins + nc + 1, *del = rem + nc + 1,
             *spn = del + nc + 1;
    uint64_t p;
    ecs__cmd cmd;
    bool ok = true;
    memset(a->count, 0, 4 * (nc + 1u) * sizeof *a->count);
    for (g = 0; ok && g < a->nb; g++) {
        const ecs__bucket *b = &a->b[g];
        memcpy(&cmd, a->props[b->first].rec, sizeof cmd);
        if (b->kind == ECS_REDUCE_SET && ecs__row(w->storages[cmd.c], cmd.e) == ECS__NO_ROW)
            ok = ++ins[cmd.c] && ecs__reserve_page(w, w->storages[cmd.c], (uint32_t)cmd.e);
        else if (b->kind == ECS_REDUCE_REMOVE && ecs__row(w->storages[cmd.c], cmd.e) != ECS__NO_ROW)
            rem[cmd.c]++;
    }
    for (i = 0; i < a->ndesp; i++) {
        memcpy(&cmd, a->props[i].rec, sizeof cmd);
        reuse += ECS_ENTITY_VERSION(cmd.e) < ECS_VERSION_MAX; /* (its slot is queued again, for the spawns) */
        for (c = 1; c <= nc; c++)
            if ((w->storages[c]->track & ECS_TRACK_DELETION) && ecs__row(w->storages[c], cmd.e) != ECS__NO_ROW) del[c]++;
    }
    if (a->nspawn && ok && !ecs__freeq_room(w, reuse)) {
        ok = false; /* (out of memory: reported below) */
    } else if (a->nspawn && ok && !ecs__reserve_slots(w, call, a->nspawn, reuse)) { /* (and their pages' tables) */
        if (w->err == ECS_ERR_EXHAUSTED) return ecs__report(w, ECS__M_PHASE_SLOTS, call, ECS_NULL, 0, ph->name), -1;
        ok = false;
    }
    for (k = 0; k < a->nspawn; k++) {
        const unsigned char *rec = a->spawns[k];
        memcpy(&cmd, rec, sizeof cmd);
        for (i = cmd.c, rec += ecs__rec_size(0); i > 0; i--, rec += ecs__rec_size(cmd.size)) {
            memcpy(&cmd, rec, sizeof cmd);
            spn[cmd.c]++;
        }
    }
    for (c = 1; ok && c <= nc; c++) {
        ecs_storage *s = w->storages[c];
        /* a spawn takes a free slot, a despawned one, or a fresh one */
        for (k = 0; spn[c] && ok && k < a->nspawn && k < w->fq_len; k++) ok = ecs__reserve_page(w, s, ecs__peek_slot(w, k));
        for (i = 0; spn[c] && ok && i < a->ndesp; i++) ok = ecs__reserve_page(w, s, (uint32_t)a->props[i].key);
        for (p = w->nslots; spn[c] && ok && p < (uint64_t)w->nslots + a->nspawn && p < w->slots_cap;
             p = (p | ECS__PAGE_MASK) + 1)
            ok = ecs__reserve_page(w, s, (uint32_t)p);
        ok = ok && (uint64_t)ins[c] + spn[c] <= 0xfffffffeu && ecs__reserve_rows(w, s, ins[c] + spn[c]);
        if (ok && rem[c] && (s->track & ECS_TRACK_REMOVAL)) ok = ecs__changes_reserve(w, &s->removed, rem[c], 0);
        if (ok && del[c]) ok = ecs__changes_reserve(w, &s->deleted, del[c], s->size);
    }
    if (ok && w->track_entities) ok = ecs__changes_reserve(w, &w->destroyed, a->ndesp, 0);
    if (!ok) {
        ecs__report(w, ECS__M_PHASE_OOM, call, ECS_NULL, 0, ph->name);
        return -1;
    }
    for (i = 0; i < a->ndesp; i++) { /* nothing can fail from here on (but what hooks do) */
        memcpy(&cmd, a->props[i].rec, sizeof cmd);
        if (ecs_alive(w, cmd.e)) ecs__destroy(w, cmd.e, call, w->ncomponents <= nc ? a->room : NULL);
    }
    for (g = 0; g < a->nb; g++) {
        const ecs__bucket *b = &a->b[g];
        memcpy(&cmd, a->props[b->first].rec, sizeof cmd);
        ecs_storage *s = w->storages[cmd.c];
        uint32_t row;
        if (!ecs_alive(w, cmd.e)) continue; /* (despawned, or destroyed by a hook) */
        row = ecs__row(s, cmd.e);
        if (b->kind == ECS_REDUCE_SET && row != ECS__NO_ROW) {
            ecs__replace(s, row, a->values + b->at);
            ecs__replaced(w, s, cmd.e);
        } else if (b->kind == ECS_REDUCE_SET) {
            a->partial |= !ecs__insert1(w, call, s, cmd.e, a->values + b->at);
        } else if (b->kind == ECS_REDUCE_REMOVE && row != ECS__NO_ROW) {
            if (ecs__may_remove(w, call, cmd.e, s, false, 0)) ecs__remove_at(w, s, cmd.e, row, NULL, false, false, call);
            else a->partial = true;
        }
    }
    for (k = 0; k < a->nspawn; k++) {
        ecs_component comps[ECS_MAX_TERMS];
        const void *vals[ECS_MAX_TERMS];
        const unsigned char *rec = a->spawns[k];
        ecs_entity id;
        uint32_t n;
        memcpy(&cmd, rec, sizeof cmd);
        n = cmd.c;
        for (i = 0, rec += ecs__rec_size(0); i < n; i++, rec += ecs__rec_size(cmd.size)) {
            memcpy(&cmd, rec, sizeof cmd);
            comps[i] = cmd.c;
            vals[i] = rec + ECS__REC_VALUE;
        }
        a->partial |= !ecs__insert(w, call, &id, 1, true, n, comps, vals);
    }
    return 0; /* (a->partial: what a hook did left a change to fail, reported; the rest is applied) */
}

/* One phase: its systems (and their run_if, and the phase's) run against
   a locked world, then its proposals are reduced and applied; on failure
   the claimed uniques get their bytes back and nothing else changed. */
static int ecs__phase_run(ecs_world *w, ecs__phase *ph) {
    ecs_system_ctx ctx;
    ecs__apply a;
    unsigned char *saved = NULL, *at;
    size_t saved_size = 0;
    uint32_t k;
    int rc = 0;
    memset(&a, 0, sizeof a);
    a.w = w;
    a.ph = ph;
    ecs__advance(w);
    ph->now = w->tick;
    memset(&ctx, 0, sizeof ctx);
    ctx.world = w;
    ctx.name = ph->name;
    ctx.now = ph->now;
    for (k = 0; k < w->nqueries; k++) ecs__query_fresh(w, k + 1); /* (their views cannot rebuild them in the phase) */
    ph->claiming = false;
    ecs__phase_lock(w, ph, true);
    if (ph->desc.run_if && !ph->desc.run_if(&ctx)) {
        ecs__phase_lock(w, ph, false);
        return 0;
    }
    for (k = 0; k < ph->nsys; k++) { /* the conditions first, in order */
        ecs__phase_sys *sy = &ph->sys[k];
        ecs__proposals_reset(&sy->out);
        ctx.user = sy->desc.user;
        ctx.name = sy->name;
        ctx.last_run = sy->last_run;
        sy->rc = 0;
        sy->ran = !sy->desc.run_if || sy->desc.run_if(&ctx);
        if (sy->ran && sy->desc.exclusive) saved_size += w->storages[sy->desc.exclusive]->size;
    }
    if (saved_size && !(saved = (unsigned char *)ecs__alloc(w, saved_size))) {
        ecs__phase_lock(w, ph, false);
        ecs__report(w, ECS__M_PHASE_OOM, "ecs_schedule_run", ECS_NULL, 0, ph->name);
        return -1;
    }
    for (k = 0, at = saved; saved && k < ph->nsys; k++) /* claimed uniques: kept, to undo a failed phase */
        if (ph->sys[k].ran && ph->sys[k].desc.exclusive) {
            ecs_storage *s = w->storages[ph->sys[k].desc.exclusive];
            if (s->unique) memcpy(at, s->unique, s->size);
            at += s->size;
        }
    ph->claiming = true;
    if (!ph->desc.parallel || ph->nsys < 2 || !ecs__parallel(w, ecs__phase_job, ph, ph->nsys))
        for (k = 0; k < ph->nsys; k++) ecs__phase_job(ph, k);
    rc = ecs__phase_reduce(w, ph, &a);
    ecs__phase_lock(w, ph, false);
    ecs__advance(w); /* the apply's changes: after every system's run, so each sees them next time */
    if (!rc) rc = ecs__phase_commit(w, ph, &a);
    for (k = 0, at = saved; k < ph->nsys; k++) {
        ecs__phase_sys *sy = &ph->sys[k];
        ecs_storage *s = sy->desc.exclusive ? w->storages[sy->desc.exclusive] : NULL;
        if (!sy->ran) continue;
        if (!rc) sy->last_run = ph->now;
        if (!s) continue;
        if (s->unique && rc) {
            if (s->size) memcpy(s->unique, at, s->size); /* (a tag: nothing was kept) */
        } else if (s->unique) {
            ecs__modified(s, ECS__NO_ROW, 1, false);
        }
        if (saved) at += s->size;
    }
    ecs__free(w, saved, saved_size);
    ecs__free(w, a.block, (size_t)a.block_size);
    return a.partial ? -1 : rc;
}

ECS__FN int ecs_schedule_run(ecs_world *w, const char *name) {
    ECS__WORLD(w, -1);
    uint32_t i, k;
    int rc = 0;
    if (w->running) return ecs__report(w, ECS__M_RUNNING, "ecs_schedule_run", ECS_NULL, 0), -1;
    if (w->guard) return ecs__report(w, ECS__M_REFUSED, "ecs_schedule_run", ECS_NULL, 0, ECS__WHAT_RUNS(w)), -1;
    if ((i = ecs__phase_find(w, name, true)) == ECS__NOT_FOUND)
        return ecs__report(w, ECS__M_NO_SCHEDULE, "ecs_schedule_run", ECS_NULL, 0, name ? name : "(NULL)"), -1;
    w->running = w->clock_locked = true;
    w->failed_system = NULL;
    w->step_since = w->tick;
    for (k = 0; k < w->scheds[i].n && !rc; k++) {
        rc = ecs__phase_run(w, &w->phases[w->scheds[i].phases[k]]);
        if (rc) break;
        ecs_flush(w); /* what hooks of its apply recorded: the next phase sees it */
        if (w->cmds_head < w->cmds_len) rc = -1; /* out of memory: they stay queued */
    }
    ecs__advance(w); /* changes after the step are newer than it */
    w->running = w->clock_locked = false;
    return rc;
}

ECS__FN ecs_tick ecs_step_since(const ecs_world *w) {
    ECS__WORLD(w, 0);
    return w->step_since;
}

/* ------------------------------------------------------------------------- */
/* Save and load                                                             */
/* ------------------------------------------------------------------------- */
/* The format is in doc section 17. Saving streams the world through a
   writer that batches small pieces and sums every byte. Loading checks
   the header, then reads the snapshot once into staged arrays, summing
   what it copies in the same pass (or checking the sum first, when load
   callbacks must see checked bytes) and validating as it goes (a live
   entity per row, no row twice, a free queue of free slots...); only when
   all of it is staged and the sum agrees does it swap the arrays into the
   world: nothing can fail after the first change. */

#define ECS__SNAP_MAGIC "ECSHSNAP"
#define ECS__SNAP_FORMAT 1u
#define ECS__SNAP_CUSTOM 1u /* storage bits: values from a save callback */
#define ECS__SNAP_UNIQUE 2u /* ... a unique follows */
#define ECS__SNAP_HEADER 16u
#define ECS__SNAP_TRAILER 16u

/* 1 when this machine stores integers little-endian, 2 when big. */
static unsigned ecs__byte_order(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b ? 1u : 2u;
}
ECS__IMPL_HOT uint32_t ecs__le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
ECS__IMPL_HOT uint64_t ecs__le64(const unsigned char *p) { return ecs__le32(p) | (uint64_t)ecs__le32(p + 4) << 32; }
static void ecs__put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}
static void ecs__put64(unsigned char *p, uint64_t v) {
    ecs__put32(p, (uint32_t)v);
    ecs__put32(p + 4, (uint32_t)(v >> 32));
}

/* --- the checksum ------------------------------------------------------------ */
/* Four lanes take 8 bytes each in turn: lane = rotl((lane + x) * P1, 29),
   a bijection in both the lane and x, so one changed bit anywhere changes
   its lane's end state, and the sum of the rotated lanes, the length and
   the final mix (all bijections in each lane) change with it. One multiply
   per 8 bytes: faster than memory. */
#define ECS__P1 0x9e3779b185ebca87u
#define ECS__P2 0xc2b2ae3d27d4eb4fu
typedef struct ecs__sum {
    uint64_t lane[4], len;
    unsigned char pend[32];
    uint32_t npend;
} ecs__sum;
ECS__IMPL_HOT uint64_t ecs__rotl(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }
static void ecs__sum_init(ecs__sum *s) {
    memset(s, 0, sizeof *s);
    s->lane[0] = ECS__P1;
    s->lane[1] = ECS__P2;
    s->lane[2] = ~(uint64_t)ECS__P1;
    s->lane[3] = ~(uint64_t)ECS__P2;
}
/* Sums n bytes; when dst is not NULL, copies them there in the same pass
   (a load reads its bulk that way: the copy runs at memory speed and the
   multiplies hide behind it). */
static void ecs__sum_blocks(ecs__sum *s, unsigned char *dst, const unsigned char *p, size_t nblocks) {
    uint64_t a = s->lane[0], b = s->lane[1], c = s->lane[2], d = s->lane[3];
    for (; nblocks; nblocks--, p += 32) {
        a = ecs__rotl((a + ecs__le64(p)) * ECS__P1, 29);
        b = ecs__rotl((b + ecs__le64(p + 8)) * ECS__P1, 29);
        c = ecs__rotl((c + ecs__le64(p + 16)) * ECS__P1, 29);
        d = ecs__rotl((d + ecs__le64(p + 24)) * ECS__P1, 29);
        if (dst) {
            memcpy(dst, p, 32);
            dst += 32;
        }
    }
    s->lane[0] = a, s->lane[1] = b, s->lane[2] = c, s->lane[3] = d;
}
static void ecs__sum_add(ecs__sum *s, void *to, const void *bytes, size_t n) {
    const unsigned char *p = (const unsigned char *)bytes;
    unsigned char *dst = (unsigned char *)to;
    size_t k;
    s->len += n;
    if (s->npend) {
        k = 32 - s->npend < n ? 32 - s->npend : n;
        memcpy(s->pend + s->npend, p, k);
        if (dst) memcpy(dst, p, k), dst += k;
        s->npend += (uint32_t)k;
        p += k, n -= k;
        if (s->npend < 32) return;
        ecs__sum_blocks(s, NULL, s->pend, 1);
        s->npend = 0;
    }
    ecs__sum_blocks(s, dst, p, n / 32);
    k = n / 32 * 32;
    memcpy(s->pend, p + k, n % 32);
    if (dst) memcpy(dst + k, p + k, n % 32);
    s->npend = (uint32_t)(n % 32);
}
static uint64_t ecs__sum_end(const ecs__sum *in) {
    ecs__sum s = *in;
    uint64_t h;
    if (s.npend) { /* the tail, zero-padded (the length tells it apart) */
        memset(s.pend + s.npend, 0, 32 - s.npend);
        ecs__sum_blocks(&s, NULL, s.pend, 1);
    }
    h = ecs__rotl(s.lane[0], 1) + ecs__rotl(s.lane[1], 7) + ecs__rotl(s.lane[2], 12) + ecs__rotl(s.lane[3], 18);
    h ^= s.len * ECS__P1;
    h ^= h >> 33, h *= ECS__P2, h ^= h >> 29, h *= ECS__P1, h ^= h >> 32;
    return h;
}

/* --- saving ------------------------------------------------------------------ */
typedef struct ecs__out {
    ecs_world *w;
    ecs_write_fn write;
    void *user;
    ecs__sum sum;
    uint64_t pos;        /* bytes handed to write so far */
    int err;             /* the first failure (ECS__M_*, 0: none); the rest is skipped */
    const char *why;
    ecs_component c;
    uint32_t nbuf;
    unsigned char buf[4096];
} ecs__out;

static void ecs__out_fail(ecs__out *o, int err, const char *why) {
    if (o->err) return;
    o->err = err;
    o->why = why;
}
static void ecs__out_raw(ecs__out *o, const void *p, size_t n) {
    if (o->err || !n) return;
    ecs__sum_add(&o->sum, NULL, p, n);
    if (!o->write(p, n, o->user))
        ecs__out_fail(o, ECS__M_SAVE_FAILED, "the write callback failed"); /* pos: where that piece starts */
    else
        o->pos += n;
}
static void ecs__out_flush(ecs__out *o) {
    ecs__out_raw(o, o->buf, o->nbuf);
    o->nbuf = 0;
}
static void ecs__out_bytes(ecs__out *o, const void *p, size_t n) {
    if (n > sizeof o->buf - o->nbuf) {
        ecs__out_flush(o);
        if (n >= sizeof o->buf) { /* big arrays go straight through */
            ecs__out_raw(o, p, n);
            return;
        }
    }
    if (n) memcpy(o->buf + o->nbuf, p, n);
    o->nbuf += (uint32_t)n;
}
static void ecs__out_u32(ecs__out *o, uint32_t v) {
    unsigned char b[4];
    ecs__put32(b, v);
    ecs__out_bytes(o, b, 4);
}
static void ecs__out_u64(ecs__out *o, uint64_t v) {
    unsigned char b[8];
    ecs__put64(b, v);
    ecs__out_bytes(o, b, 8);
}
/* Arrays of integers: as they are on little-endian machines. */
static void ecs__out_u64s(ecs__out *o, const uint64_t *a, size_t n) {
    size_t i;
    if (ecs__byte_order() == 1) {
        ecs__out_bytes(o, a, n * 8);
        return;
    }
    for (i = 0; i < n; i++) ecs__out_u64(o, a[i]);
}
static void ecs__out_u32s(ecs__out *o, const uint32_t *a, size_t n) {
    size_t i;
    if (ecs__byte_order() == 1) {
        ecs__out_bytes(o, a, n * 4);
        return;
    }
    for (i = 0; i < n; i++) ecs__out_u32(o, a[i]);
}
static void ecs__out_list(ecs__out *o, const ecs__changes *l, uint32_t vsize) {
    ecs__out_u32(o, l->count);
    ecs__out_u64s(o, (const uint64_t *)(const void *)l->items, (size_t)l->count * 2);
    if (vsize) ecs__out_bytes(o, l->values, (size_t)l->count * vsize);
}

/* A save callback's bytes, gathered so that their length goes first. */
typedef struct ecs__gather {
    ecs_world *w;
    unsigned char *p;
    size_t n, cap;
    bool oom;
} ecs__gather;
static bool ecs__gather_write(const void *bytes, size_t n, void *user) {
    ecs__gather *g = (ecs__gather *)user;
    if (!bytes && n) return false;
    if (n > g->cap - g->n) {
        size_t cap = g->cap ? g->cap : 256;
        unsigned char *p;
        while (cap - g->n < n) {
            if (cap > SIZE_MAX / 2) return g->oom = true, false;
            cap *= 2;
        }
        if (!(p = (unsigned char *)ecs__alloc(g->w, cap))) return g->oom = true, false;
        if (g->n) memcpy(p, g->p, g->n);
        ecs__free(g->w, g->p, g->cap);
        g->p = p;
        g->cap = cap;
    }
    if (n) memcpy(g->p + g->n, bytes, n);
    g->n += n;
    return true;
}

/* ECS_DEBUG: what a callback that changed the world would have changed. */
#if ECS_DEBUG
#define ECS__STAMP(w) ((uint64_t)(w)->epoch ^ (uint64_t)(w)->nslots << 20 ^ (uint64_t)(w)->alive << 40 ^ \
                       (w)->tick ^ (uint64_t)(w)->ncomponents << 50)
#else
#define ECS__STAMP(w) 0u
#endif

/* One value (a row's or the unique): its bytes, or what its save callback
   writes, after its length. */
static void ecs__out_value(ecs__out *o, ecs_storage *s, const void *value, ecs__gather *g) {
    uint64_t stamp = ECS__STAMP(o->w);
    if (!s->serial.save) {
        ecs__out_bytes(o, value, s->size);
        return;
    }
    g->n = 0;
    g->oom = false;
    /* (a callback that ignores write's false: the gathering's running out counts) */
    if (!o->err && (!s->serial.save(value, ecs__gather_write, g, s->serial.user) || g->oom)) {
        o->c = s->id;
        ecs__out_fail(o, g->oom ? ECS__M_SAVE_OOM : ECS__M_SAVE_FAILED,
                      g->oom ? "out of memory" : "its save callback failed");
    }
    ECS_ASSERT(stamp == ECS__STAMP(o->w), "ecs_save: a save callback changed the world");
    (void)stamp;
    ecs__out_u64(o, g->n);
    ecs__out_bytes(o, g->p, g->n);
}

static bool ecs__saved(const ecs_storage *s) { return !s->serial.skip; }

static bool ecs__save(ecs_world *w, const char *call, ecs_write_fn write, void *user) {
    ecs__out *o;
    ecs__gather g;
    uint32_t c, n = 0, i;
    unsigned char head[ECS__SNAP_HEADER], tail[8];
    bool ok;
    if (!write) { ecs__report(w, ECS__M_NULL_ARG, call, ECS_NULL, 0, "write"); return false; }
    if (w->cmds_len) {
        ecs__report(w, ECS__M_PENDING, call, ECS_NULL, 0);
        return false;
    }
    if (!(o = (ecs__out *)ecs__alloc(w, sizeof *o))) {
        ecs__report(w, ECS__M_OOM, call, ECS_NULL, 0);
        return false;
    }
    memset(o, 0, offsetof(ecs__out, buf));
    memset(&g, 0, sizeof g);
    g.w = w;
    o->w = w, o->write = write, o->user = user;
    ecs__sum_init(&o->sum);
    memcpy(head, ECS__SNAP_MAGIC, 8);
    ecs__put32(head + 8, ECS__SNAP_FORMAT);
    head[12] = (unsigned char)ecs__byte_order(), head[13] = head[14] = head[15] = 0;
    ecs__out_bytes(o, head, sizeof head);
    /* slots */
    ecs__out_u32(o, w->nslots);
    ecs__out_u32s(o, w->versions, w->nslots);
    ecs__out_u32(o, w->fq_len);
    i = w->fq_cap - w->fq_head < w->fq_len ? w->fq_cap - w->fq_head : w->fq_len; /* the ring in order */
    if (w->fq_len) {
        ecs__out_u32s(o, w->freeq + w->fq_head, i);
        ecs__out_u32s(o, w->freeq, w->fq_len - i);
    }
    ecs__out_u64(o, w->tick);
    ecs__out_list(o, &w->created, 0);
    ecs__out_list(o, &w->destroyed, 0);
    /* storages */
    for (c = 1; c <= w->ncomponents; c++) n += ecs__saved(w->storages[c]);
    ecs__out_u32(o, n);
    for (c = 1; c <= w->ncomponents && !o->err; c++) {
        ecs_storage *s = w->storages[c];
        uint32_t row, len;
        if (!ecs__saved(s)) continue;
        len = (uint32_t)strlen(s->name);
        ecs__out_u32(o, len);
        ecs__out_bytes(o, s->name, len);
        ecs__out_u64(o, s->size);
        ecs__out_u32(o, s->align);
        ecs__out_u32(o, s->track);
        ecs__out_u32(o, (s->serial.save && s->size ? ECS__SNAP_CUSTOM : 0u) | (s->unique ? ECS__SNAP_UNIQUE : 0u));
        ecs__out_u32(o, s->count);
        ecs__out_u64s(o, s->dense, s->count);
        if (s->serial.save && s->size)
            for (row = 0; row < s->count && !o->err; row++) ecs__out_value(o, s, s->data + (size_t)row * s->size, &g);
        else
            ecs__out_bytes(o, s->data, (size_t)s->count * s->size);
        if (s->inserted) ecs__out_u64s(o, s->inserted, s->count);
        if (s->modified) ecs__out_u64s(o, s->modified, s->count);
        ecs__out_u64(o, s->clear_inserted);
        ecs__out_u64(o, s->clear_modified);
        ecs__out_list(o, &s->removed, 0);
        ecs__out_list(o, &s->deleted, s->size);
        if (s->unique) {
            if (s->size) ecs__out_value(o, s, s->unique, &g);
            ecs__out_u64(o, s->unique_inserted);
            ecs__out_u64(o, s->unique_modified);
        }
    }
    /* trailer: the length (summed), then the sum of everything before it */
    ecs__out_u64(o, o->pos + o->nbuf + ECS__SNAP_TRAILER);
    ecs__out_flush(o);
    ecs__put64(tail, ecs__sum_end(&o->sum));
    ecs__out_raw(o, tail, sizeof tail);
    ok = !o->err;
    if (!ok) ecs__report(w, o->err, call, ECS_NULL, o->c, o->why, (unsigned long long)o->pos);
    ecs__free(w, g.p, g.cap);
    ecs__free(w, o, sizeof *o);
    return ok;
}

ECS__FN bool ecs_save(ecs_world *w, ecs_write_fn write, void *user) {
    ECS__WORLD(w, false);
    return ecs__save(w, "ecs_save", write, user);
}

typedef struct ecs__membuf {
    unsigned char *p;
    size_t cap, n;
} ecs__membuf;
static bool ecs__membuf_write(const void *bytes, size_t n, void *user) {
    ecs__membuf *m = (ecs__membuf *)user;
    if (m->n <= m->cap && n <= m->cap - m->n) memcpy(m->p + m->n, bytes, n);
    m->n = n > SIZE_MAX - m->n ? SIZE_MAX : m->n + n;
    return m->n != SIZE_MAX;
}
ECS__FN size_t ecs_save_buffer(ecs_world *w, void *buf, size_t cap) {
    ecs__membuf m;
    ECS__WORLD(w, 0);
    if (!buf && cap) { ecs__report(w, ECS__M_NULL_ARG, "ecs_save_buffer", ECS_NULL, 0, "buf (with cap > 0)"); return 0; }
    m.p = (unsigned char *)buf, m.cap = cap, m.n = 0;
    return ecs__save(w, "ecs_save_buffer", ecs__membuf_write, &m) ? m.n : 0;
}

ECS__FN bool ecs_serial_set(ecs_world *w, ecs_component c, const ecs_serial *serial) {
    ECS__WORLD(w, false);
    if (!ecs__comp(w, "ecs_serial_set", ECS_NULL, c, (size_t)-1)) return false;
    if (w->in_phase) return ecs__report(w, ECS__M_IN_PHASE, "ecs_serial_set", ECS_NULL, c), false; /* (a save may be reading it) */
    if (serial && !serial->save != !serial->load) {
        ecs__report(w, ECS__M_SERIAL_PAIR, "ecs_serial_set", ECS_NULL, c);
        return false;
    }
    if (serial)
        w->storages[c]->serial = *serial;
    else
        memset(&w->storages[c]->serial, 0, sizeof(ecs_serial));
    return true;
}

/* --- loading ----------------------------------------------------------------- */
/* The snapshot being read: a cursor that fails once and stays failed.
   When `sum` is set, every byte taken is added to the checksum as it is
   taken, and the bulk readers below take a chunk at a time, so the bytes
   the checksum just read are still in cache for the copy: one pass over
   the snapshot instead of two. */
#define ECS__IN_CHUNK 8192u
typedef struct ecs__in {
    const unsigned char *p;
    size_t n, pos;
    const char *part;    /* what is being read, for the message */
    ecs__sum *sum;       /* NULL when the checksum was checked first */
    bool bad;
} ecs__in;
static bool ecs__in_has(ecs__in *in, uint64_t len) {
    if (in->bad || len > in->n - in->pos) in->bad = true;
    return !in->bad;
}
static const unsigned char *ecs__in_take(ecs__in *in, uint64_t len) {
    const unsigned char *p;
    if (!ecs__in_has(in, len)) return NULL;
    p = in->p + in->pos;
    in->pos += (size_t)len;
    if (in->sum) ecs__sum_add(in->sum, NULL, p, (size_t)len);
    return p;
}
/* The next `len` bytes, copied to dst (summed in the same pass). */
static bool ecs__in_copy(ecs__in *in, void *dst, uint64_t len) {
    const unsigned char *p = in->p + in->pos;
    if (!ecs__in_has(in, len)) return false;
    in->pos += (size_t)len;
    if (in->sum)
        ecs__sum_add(in->sum, dst, p, (size_t)len);
    else if (len)
        memcpy(dst, p, (size_t)len);
    return true;
}
static uint32_t ecs__in_u32(ecs__in *in) {
    const unsigned char *p = ecs__in_take(in, 4);
    return p ? ecs__le32(p) : 0;
}
static uint64_t ecs__in_u64(ecs__in *in) {
    const unsigned char *p = ecs__in_take(in, 8);
    return p ? ecs__le64(p) : 0;
}
static void ecs__get_u64s(uint64_t *dst, const unsigned char *src, size_t n) {
    size_t i;
    if (!n) return; /* dst may be NULL then */
    if (ecs__byte_order() == 1)
        memcpy(dst, src, n * 8);
    else
        for (i = 0; i < n; i++) dst[i] = ecs__le64(src + i * 8);
}
/* The next n u64s (little-endian in the snapshot) into dst. */
static bool ecs__in_u64s(ecs__in *in, uint64_t *dst, uint64_t n) {
    if (ecs__byte_order() == 1) return ecs__in_copy(in, dst, n * 8);
    if (!ecs__in_has(in, n * 8)) return false;
    for (; n; ) {
        size_t k = n < ECS__IN_CHUNK / 8 ? (size_t)n : ECS__IN_CHUNK / 8;
        ecs__get_u64s(dst, ecs__in_take(in, (uint64_t)k * 8), k);
        dst += k, n -= k;
    }
    return true;
}

/* What one storage of the snapshot becomes, staged until the commit. */
typedef struct ecs__staged {
    ecs_storage *s;
    uint32_t track, rows, cap, built; /* built: values a load callback made */
    ecs_entity *dense;
    unsigned char *data;
    ecs_tick *inserted, *modified;
    ecs_tick clear_inserted, clear_modified, unique_inserted, unique_modified;
    ecs__changes removed, deleted;
    void *unique;
    bool unique_built;
    ecs__listener *listen; /* room for one more listener (its records), when s has none */
    uint32_t listen_cap;
    uint64_t **pages;  /* [L->npages]: fresh sparse pages, NULL where none is needed */
} ecs__staged;

typedef struct ecs__loading {
    ecs_world *w;
    ecs__in in;
    uint32_t nslots, cap, alive, nfree, fq_cap, n, npages;
    uint32_t *versions, *freeq;
    ecs__tables tables; /* the page tables for cap slots, installed by the commit */
    ecs_tick tick;
    ecs__changes created, destroyed;
    ecs__staged *st;
    int msg;              /* the failure (ECS__M_*), 0 while none */
    ecs_component c;
    char what[ECS__MSG_MAX];
} ecs__loading;

/* The first failure of a load: message msg (ECS__M_*) formatted now,
   reported once the load is undone. */
static bool ecs__load_fail(ecs__loading *L, int msg, ecs_component c, ...) {
    va_list ap;
    if (!L->msg) {
        L->msg = msg;
        L->c = c;
        va_start(ap, c);
        vsnprintf(L->what, sizeof L->what, ecs__messages[msg].text, ap);
        va_end(ap);
    }
    return false;
}
/* A snapshot that is not what it claims: names the part and byte. */
static bool ecs__load_bad(ecs__loading *L, ecs_component c, const char *what) {
    return ecs__load_fail(L, ECS__M_SNAP_BAD, c, what, L->in.part, (unsigned long)(ECS__SNAP_HEADER + L->in.pos));
}
static bool ecs__load_oom(ecs__loading *L, ecs_component c) { return ecs__load_fail(L, ECS__M_OOM, c); }

static bool ecs__load_list(ecs__loading *L, ecs__changes *l, uint32_t vsize, ecs_component c) {
    uint32_t n = ecs__in_u32(&L->in);
    if (!ecs__in_has(&L->in, (uint64_t)n * (16u + vsize))) return ecs__load_bad(L, c, "cut short");
    if (!n) return true;
    if (!ecs__changes_reserve(L->w, l, n, vsize)) return ecs__load_oom(L, c);
    ecs__in_u64s(&L->in, (uint64_t *)(void *)l->items, (uint64_t)n * 2);
    ecs__in_copy(&L->in, l->values, (uint64_t)n * vsize);
    l->count = n;
    return true;
}

/* A value as ecs__out_value wrote it, into dst (zeroed, s->size bytes). */
static bool ecs__load_value(ecs__loading *L, ecs__staged *t, bool custom, void *dst) {
    ecs_storage *s = t->s;
    const unsigned char *p;
    uint64_t n = custom ? ecs__in_u64(&L->in) : s->size, stamp;
    bool ok;
    if (!(p = ecs__in_take(&L->in, n))) return ecs__load_bad(L, s->id, "cut short");
    if (!custom) {
        memcpy(dst, p, s->size);
        return true;
    }
    stamp = ECS__STAMP(L->w);
    ok = s->serial.load(dst, p, (size_t)n, s->serial.user);
    ECS_ASSERT(stamp == ECS__STAMP(L->w), "ecs_load: a load callback changed the world");
    (void)stamp;
    return ok || ecs__load_fail(L, ECS__M_SNAP_CALLBACK, s->id);
}

/* Reads one storage of the snapshot into t. */
static bool ecs__load_storage(ecs__loading *L, ecs__staged *t) {
    ecs_world *w = L->w;
    ecs__in *in = &L->in;
    char buf[128], *name = buf;
    const unsigned char *p;
    uint32_t len, align, bits, row, k;
    uint64_t size;
    ecs_component c;
    ecs_storage *s;
    in->part = "a storage's name";
    len = ecs__in_u32(in);
    if (!(p = ecs__in_take(in, len)) || !len || memchr(p, 0, len)) return ecs__load_bad(L, 0, "no name");
    if (len >= sizeof buf && !(name = (char *)ecs__alloc(w, (size_t)len + 1))) return ecs__load_oom(L, 0);
    memcpy(name, p, len);
    name[len] = 0;
    c = ecs_lookup(w, name);
    if (!c) ecs__load_fail(L, ECS__M_SNAP_UNKNOWN, 0, name);
    if (name != buf) ecs__free(w, name, (size_t)len + 1);
    if (!c) return false;
    s = t->s = w->storages[c];
    for (k = 0; L->st + k < t; k++)
        if (L->st[k].s == s) return ecs__load_bad(L, c, "a storage listed twice");
    in->part = s->name;
    size = ecs__in_u64(in);
    align = ecs__in_u32(in);
    t->track = ecs__in_u32(in);
    bits = ecs__in_u32(in);
    t->rows = ecs__in_u32(in);
    if (in->bad) return ecs__load_bad(L, c, "cut short");
    (void)align; /* the saving machine's: values are copied as bytes into this one's aligned rows */
    if (size != s->size) return ecs__load_fail(L, ECS__M_SNAP_SIZE, c, (unsigned long long)size, (unsigned long)s->size);
    if ((t->track & ~(uint32_t)ECS_TRACK_ALL) || (bits & ~(uint32_t)(ECS__SNAP_CUSTOM | ECS__SNAP_UNIQUE)) ||
        ((bits & ECS__SNAP_CUSTOM) && !s->size) || t->rows > L->alive)
        return ecs__load_bad(L, c, "flags or row count out of range");
    if ((bits & ECS__SNAP_CUSTOM) && !s->serial.load)
        return ecs__load_fail(L, ECS__M_SNAP_NO_CALLBACK, c);
    if (s->query && t->track) /* (saved as a plain tag: a query's is never tracked, section 14) */
        return ecs__load_bad(L, c, "tracking of a tag this world keeps as a cached query");
    /* rows: every entity alive, none twice; its sparse entry goes into a fresh page */
    if (!ecs__in_has(in, (uint64_t)t->rows * 8)) return ecs__load_bad(L, c, "cut short");
    t->cap = t->rows;
    if (t->rows && (!(t->dense = (ecs_entity *)ecs__alloc_n(w, t->cap, sizeof *t->dense)) ||
                    (s->size && !(t->data = (unsigned char *)ecs__alloc_n(w, t->cap, s->size))) ||
                    ((t->track & ECS_TRACK_INSERTION) && !(t->inserted = (ecs_tick *)ecs__alloc_n(w, t->cap, sizeof(ecs_tick)))) ||
                    ((t->track & ECS_TRACK_MODIFICATION) && !(t->modified = (ecs_tick *)ecs__alloc_n(w, t->cap, sizeof(ecs_tick))))))
        return ecs__load_oom(L, c);
    if (s->listen_cap < s->nlisten + 1 && /* room for its records on the remove path: the commit cannot fail */
        !(t->listen = (ecs__listener *)ecs__alloc_n(w, t->listen_cap = s->nlisten + 1, sizeof *t->listen)))
        return ecs__load_oom(L, c);
    if (t->rows && !(t->pages = (uint64_t **)ecs__alloc_n(w, L->npages, sizeof *t->pages))) return ecs__load_oom(L, c);
    if (t->rows) memset(t->pages, 0, (size_t)L->npages * sizeof *t->pages);
    {
        ecs_entity *ids = t->dense;
        const uint32_t *versions = L->versions, nslots = L->nslots, rows = t->rows;
        uint64_t **pages = t->pages, *page = NULL;
        uint32_t at = ECS__NO_ROW, end; /* the page index `page` is */
        for (row = 0; row < rows; row = end) { /* a chunk at a time, checked while it is in cache */
            end = rows - row < ECS__IN_CHUNK / 8 ? rows : row + ECS__IN_CHUNK / 8;
            ecs__in_u64s(in, ids + row, end - row);
            for (; row < end; row++) {
                ecs_entity e = ids[row];
                uint32_t idx = ECS_ENTITY_INDEX(e), v = ECS_ENTITY_VERSION(e);
                if (idx >= nslots || versions[idx] != v || v >= ECS__DEAD)
                    return ecs__load_bad(L, c, "a row of an entity that is not alive");
                if (idx >> ECS__PAGE_BITS != at && !(page = pages[at = idx >> ECS__PAGE_BITS])) {
                    if (!(page = pages[at] = (uint64_t *)ecs__alloc_n(w, ECS__PAGE_SIZE, sizeof *page)))
                        return ecs__load_oom(L, c);
                    memset(page, 0xff, ECS__PAGE_SIZE * sizeof *page); /* all ECS__ABSENT */
                }
                if (page[idx & ECS__PAGE_MASK] != ECS__ABSENT) return ecs__load_bad(L, c, "an entity with two rows");
                page[idx & ECS__PAGE_MASK] = (e & ECS__VERSION_BITS) | row;
            }
        }
    }
    /* values, ticks, lists, the unique */
    in->part = s->name;
    if (bits & ECS__SNAP_CUSTOM) {
        if (t->rows) memset(t->data, 0, (size_t)t->rows * s->size);
        for (; t->built < t->rows; t->built++)
            if (!ecs__load_value(L, t, true, t->data + (size_t)t->built * s->size)) return false;
    } else if (!ecs__in_copy(in, t->data, (uint64_t)t->rows * s->size))
        return ecs__load_bad(L, c, "cut short");
    for (k = 0; k < 2; k++) {
        ecs_tick *ticks = k ? t->modified : t->inserted;
        if ((t->track & (k ? ECS_TRACK_MODIFICATION : ECS_TRACK_INSERTION)) && !ecs__in_u64s(in, ticks, t->rows))
            return ecs__load_bad(L, c, "cut short");
    }
    if (s->index && !(t->track & ECS_TRACK_MODIFICATION)) { /* an index keeps it on (section 14) */
        if (t->rows && !(t->modified = (ecs_tick *)ecs__alloc_n(w, t->cap, sizeof(ecs_tick)))) return ecs__load_oom(L, c);
        if (t->rows) memset(t->modified, 0, (size_t)t->rows * sizeof(ecs_tick)); /* (not modified since) */
        t->track |= ECS_TRACK_MODIFICATION;
    }
    t->clear_inserted = ecs__in_u64(in);
    t->clear_modified = ecs__in_u64(in);
    if (!ecs__load_list(L, &t->removed, 0, c) || !ecs__load_list(L, &t->deleted, s->size, c)) return false;
    if ((t->removed.count && !(t->track & ECS_TRACK_REMOVAL)) || (t->deleted.count && !(t->track & ECS_TRACK_DELETION)))
        return ecs__load_bad(L, c, "a list its tracking does not keep");
    if (bits & ECS__SNAP_UNIQUE) {
        if (!(t->unique = ecs__alloc(w, s->size ? s->size : 1))) return ecs__load_oom(L, c);
        memset(t->unique, 0, s->size ? s->size : 1);
        if (s->size && !ecs__load_value(L, t, (bits & ECS__SNAP_CUSTOM) != 0, t->unique)) return false;
        t->unique_built = (bits & ECS__SNAP_CUSTOM) != 0;
        t->unique_inserted = ecs__in_u64(in);
        t->unique_modified = ecs__in_u64(in);
    }
    return !in->bad || ecs__load_bad(L, c, "cut short");
}

/* Frees what a load staged (the commit took what it installed). */
static void ecs__load_free(ecs__loading *L, bool undo) {
    ecs_world *w = L->w;
    uint32_t k, row, p;
    for (k = 0; L->st && k < L->n; k++) {
        ecs__staged *t = &L->st[k];
        ecs_storage *s = t->s;
        if (!s) break;
        if (undo && s->serial.drop) { /* values load callbacks built */
            for (row = 0; row < t->built; row++) s->serial.drop(t->data + (size_t)row * s->size, s->serial.user);
            if (t->unique_built) s->serial.drop(t->unique, s->serial.user);
        }
        ecs__free(w, t->dense, (size_t)t->cap * sizeof *t->dense);
        ecs__free(w, t->data, (size_t)t->cap * s->size);
        ecs__free(w, t->inserted, (size_t)t->cap * sizeof(ecs_tick));
        ecs__free(w, t->modified, (size_t)t->cap * sizeof(ecs_tick));
        ecs__changes_free(w, &t->removed, 0);
        ecs__changes_free(w, &t->deleted, s->size);
        ecs__free(w, t->unique, s->size ? s->size : 1);
        if (t->pages) {
            for (p = 0; p < L->npages; p++) ecs__free(w, t->pages[p], ECS__PAGE_SIZE * sizeof(uint64_t));
            ecs__free(w, t->pages, (size_t)L->npages * sizeof *t->pages);
        }
        ecs__free(w, t->listen, (size_t)t->listen_cap * sizeof *t->listen);
    }
    ecs__tables_free(w, &L->tables);
    ecs__free(w, L->st, (size_t)L->n * sizeof *L->st);
    ecs__free(w, L->versions, (size_t)L->cap * sizeof *L->versions);
    ecs__free(w, L->freeq, (size_t)L->fq_cap * sizeof *L->freeq);
    ecs__changes_free(w, &L->created, 0);
    ecs__changes_free(w, &L->destroyed, 0);
}

/* The invariants of section 17 that reading did not check as it went:
   one pass over what was read, before the commit. */
#define ECS__TICK_LIMIT ((ecs_tick)1 << 62) /* a clock a world cannot reach */
static bool ecs__list_ok(const ecs__loading *L, const ecs__changes *l) {
    uint32_t k;
    ecs_tick last = 0;
    for (k = 0; k < l->count; k++) {
        const ecs_change *x = &l->items[k];
        uint32_t v = ECS_ENTITY_VERSION(x->entity);
        if (x->tick < last || x->tick > L->tick || ECS_ENTITY_INDEX(x->entity) >= L->nslots || v < 1 ||
            v > ECS_VERSION_MAX)
            return false;
        last = x->tick;
    }
    return true;
}
static bool ecs__stamps_ok(const ecs_tick *t, uint32_t n, ecs_tick clock) {
    ecs_tick most = 0;
    uint32_t k;
    for (k = 0; t && k < n; k++) most = t[k] > most ? t[k] : most;
    return most <= clock;
}
static bool ecs__load_check(ecs__loading *L) {
    uint32_t i;
    L->in.part = "the entity lists";
    if (L->tick >= ECS__TICK_LIMIT) return ecs__load_bad(L, 0, "a clock at or beyond 2^62");
    if (!ecs__list_ok(L, &L->created) || !ecs__list_ok(L, &L->destroyed))
        return ecs__load_bad(L, 0, "a list entry out of order, after the clock, or of no slot");
    for (i = 0; i < L->n; i++) {
        const ecs__staged *t = &L->st[i];
        L->in.part = t->s->name;
        if (!ecs__stamps_ok(t->inserted, t->rows, L->tick) || !ecs__stamps_ok(t->modified, t->rows, L->tick) ||
            t->clear_inserted > L->tick || t->clear_modified > L->tick || t->unique_inserted > L->tick ||
            t->unique_modified > L->tick)
            return ecs__load_bad(L, t->s->id, "a stamp or tracking window after the clock");
        if (!ecs__list_ok(L, &t->removed) || !ecs__list_ok(L, &t->deleted))
            return ecs__load_bad(L, t->s->id, "a list entry out of order, after the clock, or of no slot");
    }
    return true;
}

/* Reads the whole snapshot into L; false (L->err) at the first problem. */
static bool ecs__load_read(ecs__loading *L) {
    ecs_world *w = L->w;
    ecs__in *in = &L->in;
    const unsigned char *p;
    uint32_t i;
    in->part = "the slots";
    L->nslots = ecs__in_u32(in);
    if (in->bad) return ecs__load_bad(L, 0, "cut short");
    if (L->nslots > w->max_slots) {
        return ecs__load_fail(L, ECS__M_SNAP_SLOTS, 0, (unsigned long)L->nslots, (unsigned long)w->max_slots);
    }
    if (!ecs__in_has(in, (uint64_t)L->nslots * 4)) return ecs__load_bad(L, 0, "cut short");
    /* slots below the world's capacity stay covered by every storage's pages */
    L->cap = L->nslots > w->slots_cap ? ecs__next_cap(w->slots_cap, L->nslots) : w->slots_cap;
    if (!ecs__tables_make(w, L->cap, &L->tables) ||
        (L->cap && !(L->versions = (uint32_t *)ecs__alloc_n(w, L->cap, sizeof *L->versions))))
        return ecs__load_oom(L, 0);
    L->npages = L->tables.np ? L->tables.np : w->npages;
    for (i = 0; i < L->nslots; ) { /* a chunk at a time */
        uint32_t end = L->nslots - i < ECS__IN_CHUNK / 4 ? L->nslots : i + ECS__IN_CHUNK / 4, alive = 0;
        uint32_t *versions = L->versions + i;
        p = ecs__in_take(in, 4 * (uint64_t)(end - i));
        for (; i < end; i++, p += 4) {
            uint32_t v = *versions++ = ecs__le32(p), ver = v & ~ECS__DEAD;
            if ((ver < 1 || ver > ECS_VERSION_MAX) && !(v >= ECS__DEAD && ver == ECS__RETIRED))
                return ecs__load_bad(L, 0, "a version out of range");
            alive += v < ECS__DEAD;
        }
        L->alive += alive;
    }
    in->part = "the free queue";
    L->nfree = ecs__in_u32(in);
    if (in->bad || L->nfree > L->nslots - L->alive) return ecs__load_bad(L, 0, "more free slots than dead ones");
    if (!(p = ecs__in_take(in, (uint64_t)L->nfree * 4))) return ecs__load_bad(L, 0, "cut short");
    for (L->fq_cap = w->fq_cap; L->fq_cap < L->nfree;) L->fq_cap = L->fq_cap ? L->fq_cap * 2 : 64;
    if (L->fq_cap && !(L->freeq = (uint32_t *)ecs__alloc_n(w, L->fq_cap, sizeof *L->freeq))) return ecs__load_oom(L, 0);
    for (i = 0; i < L->nfree; i++) { /* each a free slot, once: marked by clearing its top bit for a moment */
        uint32_t idx = L->freeq[i] = ecs__le32(p + (size_t)i * 4);
        if (idx >= L->nslots || L->versions[idx] < ECS__DEAD || (L->versions[idx] & ~ECS__DEAD) == ECS__RETIRED)
            return ecs__load_bad(L, 0, "a queued slot that is not free or retired, or queued twice");
        L->versions[idx] &= ~ECS__DEAD;
    }
    for (i = 0; i < L->nfree; i++) L->versions[L->freeq[i]] |= ECS__DEAD;
    in->part = "the entity lists";
    L->tick = ecs__in_u64(in);
    if (in->bad || L->tick < 2) return ecs__load_bad(L, 0, "a clock before its start");
    if (!ecs__load_list(L, &L->created, 0, 0) || !ecs__load_list(L, &L->destroyed, 0, 0)) return false;
    in->part = "the storages";
    L->n = ecs__in_u32(in);
    if (in->bad || L->n > (in->n - in->pos) / 53u) /* a storage takes at least 53 bytes */
        return ecs__load_bad(L, 0, "more storages than bytes for them");
    if (L->n && !(L->st = (ecs__staged *)ecs__alloc_n(w, L->n, sizeof *L->st))) return L->n = 0, ecs__load_oom(L, 0);
    if (L->n) memset(L->st, 0, (size_t)L->n * sizeof *L->st);
    for (i = 0; i < L->n; i++)
        if (!ecs__load_storage(L, &L->st[i])) return false;
    in->part = "the end";
    if (in->pos != in->n) return ecs__load_bad(L, 0, "bytes after the last storage");
    return ecs__load_check(L);
}

/* Swaps the staged state into the world: nothing here can fail. */
static void ecs__load_commit(ecs__loading *L) {
    ecs_world *w = L->w;
    void **arr[ECS__ROW_ARRAYS];
    size_t size[ECS__ROW_ARRAYS];
    uint32_t k, i, p;
    ecs__tables_install(w, &L->tables);
    for (k = 0; k < L->n; k++) {
        ecs__staged *t = &L->st[k];
        ecs_storage *s = t->s;
        if (t->listen) { /* the room for its records */
            if (s->nlisten) memcpy(t->listen, s->listen, (size_t)s->nlisten * sizeof *s->listen);
            ecs__free(w, s->listen, (size_t)s->listen_cap * sizeof *s->listen);
            s->listen = t->listen, s->listen_cap = t->listen_cap;
            t->listen = NULL;
        }
        ecs__row_arrays(s, arr, size);
        for (i = 0; i < ECS__ROW_ARRAYS; i++)
            if (size[i]) ecs__free(w, *arr[i], (size_t)s->cap * size[i]);
        s->dense = t->dense, s->inserted = t->inserted, s->modified = t->modified;
        if (s->size) s->data = t->data;
        s->count = t->rows, s->cap = t->cap, s->track = t->track;
        for (p = 0; t->pages && p < w->npages; p++) {
            if (!t->pages[p]) continue;
            if (ECS__PAGE(s, p) != w->absent_page) ecs__free(w, ECS__PAGE(s, p), ECS__PAGE_SIZE * sizeof(uint64_t));
            s->pages[p] = (uintptr_t)t->pages[p] - ECS__PAGE_BIAS(p);
            t->pages[p] = NULL;
        }
        s->clear_inserted = t->clear_inserted, s->clear_modified = t->clear_modified;
        ecs__changes_free(w, &s->removed, 0);
        ecs__changes_free(w, &s->deleted, s->size);
        s->removed = t->removed, s->deleted = t->deleted;
        ecs__free(w, s->unique, s->size ? s->size : 1);
        s->unique = t->unique, s->unique_inserted = t->unique_inserted, s->unique_modified = t->unique_modified;
        memset(t, 0, offsetof(ecs__staged, pages)); /* taken; the page table is freed below */
        t->s = s;
        ecs__records_attach(w, s); /* room made by ecs__load_storage */
        ecs__changed(w, s, 0, "ecs_load");
    }
    ecs__free(w, w->versions, (size_t)w->slots_cap * sizeof *w->versions);
    w->versions = L->versions, w->slots_cap = L->cap, w->nslots = L->nslots, w->alive = L->alive;
    L->versions = NULL;
    ecs__free(w, w->freeq, (size_t)w->fq_cap * sizeof *w->freeq);
    w->freeq = L->freeq, w->fq_cap = L->fq_cap, w->fq_head = 0, w->fq_len = L->nfree;
    L->freeq = NULL;
    w->tick = L->tick;
    for (i = 1; i <= w->ncomponents; i++) { /* the components the snapshot lacks: no list or stamp of the old world */
        ecs_storage *s = w->storages[i];
        for (k = 0; k < L->n && L->st[k].s != s; k++) {}
        if (k < L->n) continue;
        s->removed.count = s->deleted.count = 0;
        s->clear_inserted = s->clear_inserted < w->tick ? s->clear_inserted : w->tick;
        s->clear_modified = s->clear_modified < w->tick ? s->clear_modified : w->tick;
        s->unique_inserted = s->unique_inserted < w->tick ? s->unique_inserted : w->tick;
        s->unique_modified = s->unique_modified < w->tick ? s->unique_modified : w->tick;
    }
    if (w->track_entities) { /* kept only by a world that tracks entities */
        ecs__changes_free(w, &w->created, 0);
        ecs__changes_free(w, &w->destroyed, 0);
        w->created = L->created, w->destroyed = L->destroyed;
        memset(&L->created, 0, sizeof L->created);
        memset(&L->destroyed, 0, sizeof L->destroyed);
    }
    for (k = 0; k < w->ngroups; k++) ecs__group_pack(w, k + 1, "ecs_load");
    for (k = 0; k < w->nsys; k++) w->sys[k].last_run = 1;
    ECS__MOVED(w);
}

/* Whether the trailer of snapshot b (n bytes) agrees: its length is n,
   and its checksum is sum's (sum holds every byte before the length, which
   is added here). ecs__snap_intact sums all of b to ask the same. */
static bool ecs__snap_sum_is(ecs__sum *sum, const unsigned char *b, size_t n) {
    ecs__sum_add(sum, NULL, b + n - 16, 8);
    return ecs__le64(b + n - 16) == n && ecs__sum_end(sum) == ecs__le64(b + n - 8);
}
static bool ecs__snap_intact(const unsigned char *b, size_t n) {
    ecs__sum sum;
    ecs__sum_init(&sum);
    ecs__sum_add(&sum, NULL, b, n - 16);
    return ecs__snap_sum_is(&sum, b, n);
}
static bool ecs__snap_damaged(ecs_world *w, size_t n) {
    ecs__report(w, ECS__M_SNAP_SUM, "ecs_load", ECS_NULL, 0, (unsigned long)n);
    return false;
}

ECS__FN bool ecs_load(ecs_world *w, const void *bytes, size_t n) {
    ecs__loading L;
    const unsigned char *b = (const unsigned char *)bytes;
    ecs__sum sum;
    ecs_component c;
    bool early;
    ECS__WORLD(w, false);
    if (!bytes) { ecs__report(w, ECS__M_NULL_ARG, "ecs_load", ECS_NULL, 0, "bytes"); return false; }
    if (w->guard || w->running) {
        ecs__report(w, ECS__M_REFUSED, "ecs_load", ECS_NULL, 0, ECS__WHAT_RUNS(w));
        return false;
    }
    if (w->alive || w->cmds_len) {
        ecs__report(w, w->alive ? ECS__M_LOAD_LIVE : ECS__M_PENDING, "ecs_load", ECS_NULL, 0);
        return false;
    }
    memset(&L, 0, sizeof L);
    L.w = w;
    if (memcmp(b, ECS__SNAP_MAGIC, n < 8 ? n : 8)) {
        ecs__report(w, ECS__M_NOT_SNAPSHOT, "ecs_load", ECS_NULL, 0);
        return false;
    }
    if (n < ECS__SNAP_HEADER + ECS__SNAP_TRAILER) {
        ecs__report(w, ECS__M_SNAP_SHORT, "ecs_load", ECS_NULL, 0, (unsigned long)n);
        return false;
    }
    if (ecs__le32(b + 8) != ECS__SNAP_FORMAT || b[12] != ecs__byte_order()) {
        ecs__report(w, ECS__M_SNAP_VERSION, "ecs_load", ECS_NULL, 0, (unsigned long)ecs__le32(b + 8),
                    b[12] == 1 ? "little" : b[12] == 2 ? "big" : "unknown", ECS__SNAP_FORMAT,
                    ecs__byte_order() == 1 ? "little" : "big");
        return false;
    }
    /* Load callbacks must see checked bytes: with one registered, the
       checksum is checked first; otherwise while reading, and a snapshot
       that fails either way is reported as damaged if its checksum says so. */
    for (c = 1; c <= w->ncomponents && !w->storages[c]->serial.load; c++) {}
    early = c <= w->ncomponents;
    if (early && !ecs__snap_intact(b, n)) return ecs__snap_damaged(w, n);
    L.in.p = b + ECS__SNAP_HEADER;
    L.in.n = n - ECS__SNAP_HEADER - ECS__SNAP_TRAILER;
    if (!early) {
        ecs__sum_init(&sum);
        ecs__sum_add(&sum, NULL, b, ECS__SNAP_HEADER);
        L.in.sum = &sum;
    }
    if (!ecs__load_read(&L) || (!early && !ecs__snap_sum_is(&sum, b, n))) {
        ecs__load_free(&L, true);
        if (!early && !ecs__snap_intact(b, n)) return ecs__snap_damaged(w, n);
        ecs__report_text(w, L.msg, "ecs_load", ECS_NULL, L.c, L.what);
        return false;
    }
    ecs__load_commit(&L);
    ecs__load_free(&L, false);
    ecs__indexes_stale(w); /* (the rows came in whole, not through the insert path) */
    return true;
}

/* ------------------------------------------------------------------------- */
/* Real symbols                                                              */
/* ------------------------------------------------------------------------- */
/* One external definition of every function the header defines inline, so
   that each documented function has a linkable symbol (ECS__INLINE above).
   In C an extern declaration in this TU turns the inline definitions into
   external ones; C++ emits an inline function where it is used, so a table
   of their addresses uses them. tests/test_symbols.sh checks the list. */
#if ECS__EXTERN_INLINE
#define ECS__INLINE_FUNCTIONS(X) \
    X(bool, ecs_alive, (const ecs_world *w, ecs_entity e)) \
    X(ecs_entity, ecs__take_slot, (ecs_world *w)) \
    X(ecs_entity, ecs_create, (ecs_world *w)) \
    X(uint32_t, ecs__row, (const ecs_storage *s, ecs_entity e)) \
    X(void, ecs__modified, (ecs_storage *s, uint32_t row, uint32_t n, bool handed)) \
    X(void *, ecs__value_at, (const ecs_storage *s, uintptr_t base, uint32_t row, size_t size, bool mut)) \
    X(const ecs_storage *, ecs__storage, (const ecs_world *w, ecs_component c)) \
    X(uint32_t, ecs__push_at, (ecs_world *w, ecs_storage *s, ecs_entity e, uint64_t *entry)) \
    X(uint32_t, ecs__push, (ecs_world *w, ecs_storage *s, ecs_entity e)) \
    X(void, ecs__copy, (void *dst, const void *src, uint32_t size)) \
    X(void, ecs__copy_rows, (unsigned char *data, uint32_t size, uint32_t dst, uint32_t src)) \
    X(void, ecs__copy_in, (unsigned char *data, uint32_t size, uint32_t row, const void *src)) \
    X(uint32_t, ecs__push_value, (ecs_world *w, ecs_storage *s, ecs_entity e, const void *value)) \
    X(void, ecs__changed, (ecs_world *w, ecs_storage *s, uint32_t row, const char *call)) \
    X(void, ecs__move_row, (ecs_storage *s, uint32_t dst, uint32_t src)) \
    X(void, ecs__pop_at, (ecs_world *w, ecs_storage *s, uint32_t row, uint64_t *entry, const char *call)) \
    X(void, ecs__pop, (ecs_world *w, ecs_storage *s, uint32_t row, const char *call)) \
    X(void *, ecs__get, (const ecs_world *w, const char *call, ecs_entity e, ecs_component c, size_t size, bool mut)) \
    X(const ecs_storage *, ecs_storage_of, (const ecs_world *w, ecs_component c)) \
    X(ecs_storage *, ecs_storage_of_mut, (ecs_world *w, ecs_component c)) \
    X(void *, ecs__storage_get, (const ecs_storage *s, const char *call, ecs_entity e, size_t size, bool mut)) \
    X(const void *, ecs_storage_get, (const ecs_storage *s, ecs_entity e)) \
    X(void *, ecs_storage_get_mut, (ecs_storage *s, ecs_entity e)) \
    X(bool, ecs_storage_has, (const ecs_storage *s, ecs_entity e)) \
    X(uint32_t, ecs_storage_count, (const ecs_storage *s)) \
    X(const ecs_entity *, ecs_storage_entities, (const ecs_storage *s)) \
    X(void *, ecs_storage_data, (const ecs_storage *s)) \
    X(void *, ecs__add_fast, (ecs_world *w, const char *call, ecs_entity e, ecs_component c, const void *value, size_t size)) \
    X(void *, ecs_add, (ecs_world *w, ecs_entity e, ecs_component c, const void *value)) \
    X(bool, ecs__has, (const ecs_world *w, const char *call, ecs_entity e, ecs_component c)) \
    X(bool, ecs_has, (const ecs_world *w, ecs_entity e, ecs_component c)) \
    X(const void *, ecs_get, (const ecs_world *w, ecs_entity e, ecs_component c)) \
    X(void *, ecs_get_mut, (ecs_world *w, ecs_entity e, ecs_component c)) \
    X(bool, ecs__remove_fast, (ecs_world *w, const char *call, ecs_entity e, ecs_component c, void *out, size_t size, bool deletion)) \
    X(bool, ecs_remove, (ecs_world *w, ecs_entity e, ecs_component c, void *out)) \
    X(bool, ecs_delete, (ecs_world *w, ecs_entity e, ecs_component c)) \
    X(bool, ecs__bundle_fast, (const ecs_world *w, uint32_t i, uint32_t n, const ecs_component *comps, ecs_storage **st, bool fresh)) \
    X(void, ecs__bundle_push, (ecs_world *w, ecs_entity e, uint32_t n, ecs_storage *const *st, const void *const *values)) \
    X(uint32_t, ecs__next_slot, (const ecs_world *w)) \
    X(ecs_entity, ecs_create_n, (ecs_world *w, uint32_t n, const ecs_component *comps, const void *const *values)) \
    X(bool, ecs_add_n, (ecs_world *w, ecs_entity e, uint32_t n, const ecs_component *comps, const void *const *values)) \
    X(uint32_t, ecs__seek_down, (ecs_iter *it, const ecs__seek *s, uint32_t x, uint32_t lo)) \
    X(uint32_t, ecs__probe_down, (const ecs__each *e, uint32_t x, uint32_t *row, uint32_t *row2)) \
    X(bool, ecs_iter_next_block, (ecs_iter *it)) \
    X(bool, ecs_iter_next, (ecs_iter *it)) \
    X(ecs__each, ecs__each_begin, (ecs_iter *it)) \
    X(bool, ecs__each_next, (ecs_iter *it, ecs__each *e)) \
    X(ecs_entity, ecs_iter_entity, (const ecs_iter *it)) \
    X(void *, ecs__field, (const ecs_iter *it, const char *call, uint32_t k, size_t size, bool block)) \
    X(void *, ecs_field, (const ecs_iter *it, uint32_t k)) \
    X(void *, ecs_block, (const ecs_iter *it, uint32_t k))
#ifdef __cplusplus
typedef void (*ecs__fnptr)(void);
#define ECS__SYMBOL(ret, name, params) (ecs__fnptr) & name,
extern const ecs__fnptr ecs__inline_symbols[];
const ecs__fnptr ecs__inline_symbols[] = {ECS__INLINE_FUNCTIONS(ECS__SYMBOL)};
#else
#define ECS__SYMBOL(ret, name, params) ECS_API ret(name) params; /* (name): not the debug macro */
ECS__INLINE_FUNCTIONS(ECS__SYMBOL)
#endif
#undef ECS__SYMBOL
#endif

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
