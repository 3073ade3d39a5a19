/*
 * egdb_test.c - the egdb driver (damka_egdb.h) against expected answers,
 * using only that header, from several threads at once.
 *
 *   egdb_test TABLE_DIR EXPECTED_FILE
 *
 * EXPECTED_FILE has one position a line: white, black and king masks in
 * hex (bit n-1 = square n), the side to move (0 White, 1 Black) and the
 * expected lookup value (generator/tests/engines.rs writes it from
 * `damka probe --json`). Prints "N passed, M failed".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damka_egdb.h"

#define THREADS 4

typedef struct {
    EGDB_POSITION pos;
    int color;
    int expected;
} Case;

static Case *cases;
static size_t ncases;
static EGDB_DRIVER *db;
static atomic_long passed, failed;

static void check(int ok, const char *what, size_t i, int got) {
    if (ok) {
        atomic_fetch_add(&passed, 1);
        return;
    }
    if (atomic_fetch_add(&failed, 1) < 20) {
        const Case *c = &cases[i];
        fprintf(stderr, "FAIL %s: %08x %08x %08x color %d: got %d, expected %d\n", what, (unsigned)c->pos.white,
                (unsigned)c->pos.black, (unsigned)c->pos.king, c->color, got, c->expected);
    }
}

static void on_message(char const *msg) { fputs(msg, stderr); }

static void *probe_all(void *arg) {
    size_t start = (size_t)arg * ncases / THREADS;
    for (size_t k = 0; k < ncases; k++) {
        size_t i = (start + k) % ncases;
        Case c = cases[i];
        /* A conditional lookup answers right or not at all. */
        int before = db->lookup(db, &c.pos, c.color, 1);
        check(before == c.expected || before == EGDB_NOT_IN_CACHE, "conditional", i, before);
        int got = db->lookup(db, &c.pos, c.color, 0);
        check(got == c.expected, "lookup", i, got);
        /* The blocks are cached now (the cache holds every table). */
        int after = db->lookup(db, &c.pos, c.color, 1);
        check(after == c.expected, "conditional after a lookup", i, after);
    }
    return NULL;
}

static int read_cases(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t cap = 1024;
    cases = malloc(cap * sizeof *cases);
    unsigned w, b, k;
    int color, expected;
    while (fscanf(f, "%x %x %x %d %d", &w, &b, &k, &color, &expected) == 5) {
        if (ncases == cap) cases = realloc(cases, (cap *= 2) * sizeof *cases);
        Case c = {{b, w, k}, color == 0 ? EGDB_WHITE : EGDB_BLACK, expected};
        cases[ncases++] = c;
    }
    fclose(f);
    return ncases > 0;
}

int main(int argc, char **argv) {
    if (argc != 3 || !read_cases(argv[2])) {
        fprintf(stderr, "usage: egdb_test TABLE_DIR EXPECTED_FILE (with cases)\n");
        return 2;
    }
    check(egdb_open("cache=1", 64, argv[1], on_message) == NULL, "unknown option refused", 0, 0);
    check(egdb_open("", 64, "/nonexistent/damka", on_message) == NULL, "missing directory refused", 0, 0);
    db = egdb_open("", 64, argv[1], on_message);
    if (!db) {
        fprintf(stderr, "egdb_open failed\n");
        return 1;
    }
    int max_pieces = 0, one_side = 0, k9 = -1, k8 = -1;
    check(db->get_pieces(db, &max_pieces, &one_side, &k9, &k8) == 0 && max_pieces == 4 && one_side == 3 &&
              k9 == 0 && k8 == 0,
          "get_pieces", 0, max_pieces);

    /* A cold handle has read nothing: the first lookup with pieces on both
     * sides that are not all captured at once is not in cache. */
    int cold = 0;
    for (size_t i = 0; i < ncases && i < 50; i++) cold += db->lookup(db, &cases[i].pos, cases[i].color, 1) == EGDB_NOT_IN_CACHE;
    check(cold > 25, "a cold handle answers conditional lookups not in cache", 0, cold);

    /* Invalid positions and colours are unknown. */
    EGDB_POSITION overlap = {1, 1, 0}, stray_king = {1, 1u << 31, 2}, man_on_last_row = {1u << 31, 1, 0};
    check(db->lookup(db, &overlap, EGDB_WHITE, 0) == EGDB_UNKNOWN, "overlapping bitboards", 0, 0);
    check(db->lookup(db, &stray_king, EGDB_WHITE, 0) == EGDB_UNKNOWN, "king bit on an empty square", 0, 0);
    check(db->lookup(db, &man_on_last_row, EGDB_WHITE, 0) == EGDB_UNKNOWN, "black man on its last row", 0, 0);
    check(db->lookup(db, &cases[0].pos, 7, 0) == EGDB_UNKNOWN, "colour 7", 0, 0);

    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, probe_all, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);

    /* The counters count lookups since the reset. */
    db->reset_stats(db);
    for (size_t i = 0; i < 100 && i < ncases; i++) db->lookup(db, &cases[i].pos, cases[i].color, 0);
    EGDB_STATS *stats = db->get_stats(db);
    check(stats && stats->db_requests == (ncases < 100 ? ncases : 100) &&
              stats->db_returns + stats->db_not_present_requests == stats->db_requests && stats->lru_cache_loads == 0,
          "stats", 0, stats ? (int)stats->db_requests : -1);

    int abort_flag = 0;
    check(db->verify(db, NULL, &abort_flag, NULL) == 0, "verify", 0, 0);
    check(db->close(db) == 0, "close", 0, 0);
    printf("%ld passed, %ld failed\n", (long)passed, (long)failed);
    return failed ? 1 : 0;
}
