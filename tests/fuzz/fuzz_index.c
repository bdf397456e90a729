/* fuzz_index.c - the index model (tests/index_model.h, the model of
   tests/test_indexes.c) driven by input bytes.

   The model: a world with one component, Unit, whose twelve fields (every
   key kind and size) each have a hashed (not floats) and an ordered index,
   and a cached query on Unit and Other. Input bytes pick the changes (every
   way a value can change: ecs.h section 14); after every step every index
   and the query are compared with a brute-force scan (model_check), and
   ecs_index_find_any too (check_find_any below). A mismatch, an ECS_ASSERT
   (the model only makes valid calls), a leak or a sanitizer report prints
   what went wrong and abort()s.

   One interpreter, fi_run_input(), and three ways in, as in fuzz_model.c:
     - LLVMFuzzerTestOneInput: libFuzzer (make fuzz-index, mk/fuzz.mk);
     - built with -DFUZZ_MAIN, main() replays files or directories
       (make test replays tests/fuzz/index_corpus), or
     - `--random STEPS SEED` feeds random inputs from a fixed seed until
       STEPS steps ran.

   Input format. Byte 0 seeds model_check's picks (which keys and ranges it
   asks for: the LCG model_lcg). Then each step is one control byte and the
   bytes its step reads: a control byte whose low four bits are all set
   frees one index and makes it again on the populated world (its first
   build; the next 4-byte value picks which), any other runs model_step,
   whose random source, rnd(), reads the next four bytes as a little-endian
   32-bit value. Past the end of the input every byte reads 0; the run stops
   at the end of the input (or after MAX_STEPS steps).

   Environment: FUZZ_TRACE=1 prints every step (replay). */
#ifdef FUZZ_MAIN
#define _POSIX_C_SOURCE 200809L /* fork, pipe, waitpid for the replay */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fi_fail(const char *fmt, const char *what);
static void fi_on_assert(const char *msg) { fi_fail("unexpected ECS_ASSERT: \"%s\"", msg); }

#define ECS_ASSERT(cond, msg) ((cond) ? (void)0 : fi_on_assert(msg))
#undef ECS_DEBUG
#define ECS_DEBUG 1
#define ECS_IMPLEMENTATION
#define ECS_STB_DS_IMPLEMENTATION
#include "ecs.h"
#include "../index_model.h"

#define MAX_STEPS 2000 /* at most one entity per step: model_check's arrays hold 4096 */

/* ---- the input --------------------------------------------------------- */
static struct {
    const uint8_t *in;
    size_t n, at;
    long step;           /* of this input */
    const char *what;    /* the step's kind, for messages */
    model *m;
    int trace;
    char where[4200];    /* the input, for messages */
} fi;
static long fi_total_steps, fi_op_count[21]; /* model_step's cases, and [20] rebuilds */

static uint8_t byte(void) { return fi.at < fi.n ? fi.in[fi.at++] : 0; }

/* model_step's random source: the next four bytes, little-endian */
static uint32_t rnd(model *m) {
    uint32_t r = byte();
    (void)m;
    r |= (uint32_t)byte() << 8;
    r |= (uint32_t)byte() << 16;
    return r | (uint32_t)byte() << 24;
}

static void fi_fail(const char *fmt, const char *what) {
    fprintf(stderr, "fuzz_index.c: step %ld (%s), %u Units, input byte %lu of %lu: ", fi.step,
            fi.what ? fi.what : "setup", fi.m && fi.m->w ? ecs_storage_count(ecs_storage_of(fi.m->w, fi.m->unit)) : 0,
            (unsigned long)fi.at, (unsigned long)fi.n);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    if (fi.m && fi.m->w && ecs_last_error(fi.m->w)) fprintf(stderr, "  last error: %s\n", ecs_last_error_msg(fi.m->w));
    if (fi.where[0]) fprintf(stderr, "  input: %s\n", fi.where);
    fflush(stderr);
    abort();
}

/* ---- what the fuzzer adds to the model ------------------------------------ */

/* Frees one index and makes it again: its first build, on a populated world. */
static void rebuild_index(model *m) {
    uint32_t r = rnd(m), k = r % NFIELDS;
    int ordered = (r / NFIELDS) % 2 || FIELDS[k].kind == ECS_KEY_FLOAT;
    ecs_index *slot = ordered ? &m->ordered[k] : &m->hashed[k];
    ecs_index_desc d;
    if (!ecs_index_free(m->w, *slot)) fi_fail("ecs_index_free of the %s index refused", FIELDS[k].what);
    memset(&d, 0, sizeof d);
    d.c = m->unit, d.offset = FIELDS[k].offset, d.size = FIELDS[k].size, d.kind = FIELDS[k].kind;
    d.ordered = ordered != 0;
    if (!(*slot = ecs_index_new(m->w, &d))) fi_fail("ecs_index_new of the %s index failed", FIELDS[k].what);
}

static int by_entity_index(const void *a, const void *b) {
    uint32_t x = (uint32_t)*(const ecs_entity *)a, y = (uint32_t)*(const ecs_entity *)b;
    return (x > y) - (x < y);
}

/* ecs_index_find_any with up to three distinct keys (of random rows)
   against a scan: hashed, the same set; ordered, key after key and each
   key's entities by entity index. */
static const char *check_find_any(model *m) {
    const ecs_storage *s = ecs_storage_of(m->w, m->unit);
    const Unit *units = (const Unit *)ecs_storage_data(s);
    const ecs_entity *ents = ecs_storage_entities(s);
    uint32_t n = ecs_storage_count(s), k, j, q, h;
    static ecs_entity got[4096], want[4096];
    if (!n) return NULL;
    for (k = 0; k < NFIELDS; k++) {
        const field *f = &FIELDS[k];
        unsigned char keys[3 * 8];
        uint32_t nk = 0, nw = 0, ng;
        for (q = 0; q < 3; q++) { /* distinct keys (a NaN or a NULL differs from every key) */
            const void *kp = (const char *)&units[model_lcg(m) % n] + f->offset;
            for (j = 0; j < nk; j++)
                if (field_cmp(f, keys + j * f->size, kp) == 0) break;
            if (j == nk) memcpy(keys + nk++ * f->size, kp, f->size);
        }
        for (q = 0; q < nk; q++) {
            uint32_t first = nw;
            for (j = 0; j < n; j++)
                if (field_cmp(f, (const char *)&units[j] + f->offset, keys + q * f->size) == 0) want[nw++] = ents[j];
            qsort(want + first, nw - first, sizeof *want, by_entity_index);
        }
        for (h = 0; h < 2; h++) {
            ecs_index ix = h ? m->ordered[k] : m->hashed[k];
            if (!ix) continue;
            ng = ecs_index_find_any(m->w, ix, nk, keys, got, 4096);
            if (ng == nw && !h) { /* hashed: in no particular order */
                qsort(got, ng, sizeof *got, by_entity);
                qsort(want, nw, sizeof *want, by_entity);
            }
            if (ng != nw || memcmp(got, want, nw * sizeof *got)) {
                static char msg[256];
                snprintf(msg, sizeof msg, "%s %s find_any of %u keys: %u entities, the scan %u%s", h ? "ordered" : "hashed",
                         f->what, nk, ng, nw, ng == nw ? " (other entities or order)" : "");
                return msg;
            }
            if (!h) /* back in key order for the ordered index */
                for (nw = 0, q = 0; q < nk; q++) {
                    uint32_t first = nw;
                    for (j = 0; j < n; j++)
                        if (field_cmp(f, (const char *)&units[j] + f->offset, keys + q * f->size) == 0)
                            want[nw++] = ents[j];
                    qsort(want + first, nw - first, sizeof *want, by_entity_index);
                }
        }
    }
    return NULL;
}

/* ---- one input ---------------------------------------------------------------- */

static void check(model *m) {
    const char *bad = model_check(m);
    if (!bad) bad = check_find_any(m);
    if (bad) fi_fail("%s", bad);
}

static long fi_run_input(const uint8_t *data, size_t size) {
    model m;
    fi.in = data, fi.n = size, fi.at = 0, fi.step = 0, fi.what = NULL, fi.m = &m;
    model_world(&m, 1u + byte());
    if (!m.both) fi_fail("%s", "model_world: an index or the query could not be made");
    check(&m);
    while (fi.at < fi.n && fi.step < MAX_STEPS) {
        uint8_t c = byte();
        fi.step++;
        if ((c & 15) == 15) {
            fi.what = "rebuild an index";
            rebuild_index(&m);
            fi_op_count[20]++;
        } else {
            fi.what = "model_step";
            model_step(&m);
            fi.what = MODEL_OPS[m.last_op];
            fi_op_count[m.last_op]++;
        }
        if (fi.trace)
            fprintf(stderr, "step %ld %s (to byte %lu): %u Units\n", fi.step, fi.what, (unsigned long)fi.at,
                    ecs_storage_count(ecs_storage_of(m.w, m.unit)));
        check(&m);
    }
    fi_total_steps += fi.step;
    ecs_world_free(m.w);
    fi.m = NULL;
    return fi.step;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fi_run_input(data, size);
    return 0;
}

/* ---- without libFuzzer: replay files, or a fixed-seed random driver ------------------ */
#ifdef FUZZ_MAIN
static long replay_input(const char *path, const unsigned char *buf, size_t len) {
    snprintf(fi.where, sizeof fi.where, "%s (replay it: FUZZ_TRACE=1 build/fuzz/fuzz_index_replay %s)", path, path);
    return fi_run_input(buf, len);
}
#include "replay.h"

/* Random inputs from a fixed seed until `target` steps ran; each input is a
   fresh world, of 16 bytes to 8 KB. FUZZ_DUMP=file writes each input there
   before running it. */
static int random_driver(long target, unsigned long long seed) {
    static unsigned char buf[8192];
    long inputs = 0;
    int k;
    clock_t t0 = clock();
    replay_rng = seed ? seed : 1;
    while (fi_total_steps < target) {
        size_t len = replay_rnd(4) ? 16 + replay_rnd(1024) : 1024 + replay_rnd(sizeof buf - 1024), j;
        for (j = 0; j < len; j++) buf[j] = (unsigned char)replay_rnd(256);
        snprintf(fi.where, sizeof fi.where,
                 "random input %ld of seed %llu (FUZZ_DUMP=file saves it for FUZZ_TRACE=1 fuzz_index_replay file)",
                 inputs, seed);
        replay_dump(buf, len);
        fi_run_input(buf, len);
        inputs++;
    }
    printf("random driver: seed %llu, %ld inputs, %ld steps, %.1f s, every index checked against a scan after every "
           "step\n  steps by model_step case:", seed, inputs, fi_total_steps, (double)(clock() - t0) / CLOCKS_PER_SEC);
    for (k = 0; k < 20; k++) printf("%s %d %s %ld", k ? "," : "", k, MODEL_OPS[k], fi_op_count[k]);
    printf("; index rebuilds %ld\nRESULT 1 0\n", fi_op_count[20]);
    return 0;
}

int main(int argc, char **argv) {
    fi.trace = getenv("FUZZ_TRACE") != NULL;
    return replay_main(argc, argv, random_driver, 100000, "every index checked against a scan after every step");
}
#endif
