/* model.h: what the model tests (test_views_model.c, test_groups_model.c)
   share: the model's entity slots, and checks of what a view hands out.
   Include it after defining NC, VMAX, MAX_SLOTS, NDEAD, the model `m`
   (w, comp[], size[], slot[] with id, alive, has[], val[]; live[],
   live_at[], nlive, dead[], ndead), ENSURE, and vspec (n, comp[], kind[])
   with T_NOT. */

static int slot_of(ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e);
    return e && i < MAX_SLOTS && m.slot[i].alive && m.slot[i].id == e ? (int)i : -1;
}

static int m_create(ecs_entity e) {
    uint32_t i = ECS_ENTITY_INDEX(e);
    ENSURE(e != ECS_NULL && i < MAX_SLOTS && !m.slot[i].alive);
    memset(&m.slot[i], 0, sizeof m.slot[i]);
    m.slot[i].id = e;
    m.slot[i].alive = 1;
    m.live_at[i] = m.nlive;
    m.live[m.nlive++] = i;
    return 1;
}

static void m_destroy(int i) {
    int at = m.live_at[i];
    m.slot[i].alive = 0;
    memset(m.slot[i].has, 0, sizeof m.slot[i].has);
    m.dead[m.ndead++ % NDEAD] = m.slot[i].id;
    m.live[at] = m.live[--m.nlive];
    m.live_at[m.live[at]] = at;
}

static int random_live(void) { return m.nlive ? (int)m.live[test_rand((unsigned)m.nlive)] : -1; }

static void random_bytes(unsigned char *v, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) v[i] = (unsigned char)test_rand(256);
}

/* Term k's field p for model slot i: NULL for ECS_NOT and absent terms,
   else the entity's own value (for tags: just not NULL). */
static int field_is_right(const vspec *v, int k, int i, const void *p) {
    int c = v->comp[k];
    if (v->kind[k] == T_NOT || !m.slot[i].has[c]) {
        ENSURE(p == NULL);
        return 1;
    }
    ENSURE(p != NULL);
    if (m.size[c]) {
        ENSURE(p == ecs_get(m.w, m.slot[i].id, m.comp[c]));
        ENSURE(memcmp(p, m.slot[i].val[c], m.size[c]) == 0);
    }
    return 1;
}

/* A block of ecs_iter_next_block: each entity as above; fields[k] is NULL
   when no entity of the block has term k, else an array of their values. */
static int block_is_right(const vspec *v, const ecs_iter *it, const unsigned char *want, int *seen) {
    uint32_t j;
    int k;
    ENSURE(it->count > 0 && it->count <= (uint32_t)m.nlive);
    for (j = 0; j < it->count; j++) {
        int i = slot_of(it->entities[j]);
        ENSURE(i >= 0);
        ENSURE(want[i]);
        ENSURE(seen[i]++ == 0);
        for (k = 0; k < v->n; k++) {
            const char *p = (const char *)ecs_block(it, k);
            if (!field_is_right(v, k, i, p ? p + j * m.size[v->comp[k]] : NULL)) return 0;
        }
    }
    return 1;
}

static int every_wanted_seen_once(const unsigned char *want, const int *seen) {
    int k;
    for (k = 0; k < m.nlive; k++) {
        uint32_t i = m.live[k];
        ENSURE(seen[i] == want[i]);
    }
    return 1;
}

static void count_each(ecs_iter *it, void *ctx) {
    (void)it;
    ++*(uint32_t *)ctx;
}
