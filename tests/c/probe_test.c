/*
 * Tests damka's C ABI (probe/include/damka.h) against Russian tables of up
 * to 3 pieces: probe_test <table dir> <max pieces>.
 *
 * Built and run by generator/tests/capi.rs, which generates the tables.
 * Prints one line per failed check and "N passed, N failed" at the end;
 * exits non-zero if any check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damka.h"

static int passed, failed;

#define CHECK(cond, ...)                                             \
    do {                                                             \
        if (cond) {                                                  \
            passed++;                                                \
        } else {                                                     \
            failed++;                                                \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,   \
                    __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                            \
            fprintf(stderr, " (last error: %s)\n", damka_error_message()); \
        }                                                            \
    } while (0)

#define BIT(square) (1u << ((square) - 1))

/* Algebraic name of PDN square n (1 = b8 ... 32 = g1). */
static void square_name(int n, char out[3]) {
    int row = (n - 1) / 4;      /* 0 = rank 8 */
    int rank = 7 - row;         /* 0-based */
    int k = (n - 1) % 4;
    int file = 2 * k + (rank % 2 == 0 ? 0 : 1);
    out[0] = (char)('a' + file);
    out[1] = (char)('1' + rank);
    out[2] = 0;
}

static void test_open_errors(const char *dir) {
    damka_tablebase *tb = (damka_tablebase *)1;
    int status = damka_open("/nonexistent/damka/tables", DAMKA_RUSSIAN, 0, &tb);
    CHECK(status == DAMKA_ERR_IO, "status %d", status);
    CHECK(tb == NULL, "handle not cleared");
    CHECK(strstr(damka_error_message(), "/nonexistent/damka/tables") != NULL, "message names the directory");

    status = damka_open(dir, 17, 0, &tb);
    CHECK(status == DAMKA_ERR_INVALID_ARGUMENT, "unknown variant: status %d", status);
    status = damka_open(NULL, DAMKA_RUSSIAN, 0, &tb);
    CHECK(status == DAMKA_ERR_INVALID_ARGUMENT, "NULL dir: status %d", status);
    CHECK(strcmp(damka_status_name(DAMKA_ERR_DAMAGED), "damaged table") == 0, "status name");
    CHECK(damka_status_name(12345) != NULL, "unknown status has a name");
}

static void test_basic(const damka_tablebase *tb, int max_pieces) {
    int pieces = -1;
    CHECK(damka_max_pieces(tb, &pieces) == DAMKA_OK && pieces == max_pieces, "max pieces %d", pieces);

    char name[32];
    uint64_t hash = 0;
    CHECK(damka_rules(tb, name, sizeof name, &hash) == DAMKA_OK && strcmp(name, "none") == 0, "rules '%s'", name);
    CHECK(hash != 0, "rule set hash");
    char tiny[2];
    CHECK(damka_rules(tb, tiny, sizeof tiny, NULL) == DAMKA_ERR_BUFFER_TOO_SMALL, "small name buffer");

    /* White's king on c3 takes the last Black man on f6. */
    int wdl = 99;
    CHECK(damka_probe_wdl_fen(tb, "W:WKc3:Bf6", &wdl) == DAMKA_OK && wdl == DAMKA_WIN, "wdl %d", wdl);
    damka_value v = {99, 99};
    CHECK(damka_probe_value_fen(tb, "W:WKc3:Bf6", &v) == DAMKA_OK && v.wdl == DAMKA_WIN && v.plies == 1,
          "value %d in %d", v.wdl, v.plies);
    /* The same position as masks: c3 = 22, f6 = 11. */
    wdl = 99;
    CHECK(damka_probe_wdl(tb, BIT(22), BIT(11), BIT(22), DAMKA_WHITE, &wdl) == DAMKA_OK && wdl == DAMKA_WIN,
          "mask wdl %d", wdl);
    /* Numeric squares read too. */
    CHECK(damka_probe_wdl_fen(tb, "W:WK22:B11", &wdl) == DAMKA_OK && wdl == DAMKA_WIN, "numeric FEN %d", wdl);

    damka_ranked_move moves[64];
    size_t count = 0;
    CHECK(damka_rank_moves_fen(tb, "W:WKc3:Bf6", moves, 64, &count) == DAMKA_OK && count > 1, "count %zu", count);
    if (count > 1) {
        CHECK(strcmp(moves[0].text, "c3:g7") == 0, "best move %s", moves[0].text);
        CHECK(moves[0].wdl == DAMKA_WIN && moves[0].plies == 1, "best value %d in %d", moves[0].wdl, moves[0].plies);
        CHECK(moves[0].from == 22 && moves[0].to == 8 && moves[0].captured == BIT(11), "best move squares");
        /* Capturing is compulsory: the king's only moves are captures. */
        for (size_t i = 0; i < count; i++) {
            CHECK(moves[i].captured == BIT(11), "move %s captures f6", moves[i].text);
        }
    }
    size_t needed = 0;
    CHECK(damka_rank_moves_fen(tb, "W:WKc3:Bf6", moves, 1, &needed) == DAMKA_ERR_BUFFER_TOO_SMALL && needed == count,
          "needed %zu", needed);

    /* A side with no pieces has lost; with no moves too. */
    CHECK(damka_probe_wdl(tb, 0, BIT(11), 0, DAMKA_WHITE, &wdl) == DAMKA_OK && wdl == DAMKA_LOSS, "no pieces %d", wdl);
    CHECK(damka_probe_wdl(tb, 0, BIT(11), 0, DAMKA_BLACK, &wdl) == DAMKA_OK && wdl == DAMKA_WIN, "opponent has none %d", wdl);
    CHECK(damka_rank_moves(tb, 0, BIT(11), 0, DAMKA_WHITE, moves, 64, &count) == DAMKA_OK && count == 0, "no moves");
}

static void test_errors(const damka_tablebase *tb) {
    int wdl = 0;
    int status = damka_probe_wdl_fen(tb, "W:Wz9:B1", &wdl);
    CHECK(status == DAMKA_ERR_INVALID_POSITION, "bad FEN: status %d", status);
    CHECK(strstr(damka_error_message(), "z9") != NULL, "message names the square");
    status = damka_probe_wdl(tb, BIT(22), BIT(22), 0, DAMKA_WHITE, &wdl);
    CHECK(status == DAMKA_ERR_INVALID_POSITION, "overlapping masks: status %d", status);
    status = damka_probe_wdl(tb, BIT(22), BIT(11), BIT(5), DAMKA_WHITE, &wdl);
    CHECK(status == DAMKA_ERR_INVALID_POSITION, "king on an empty square: status %d", status);
    /* A White man on its promotion row (square 1 = b8). */
    status = damka_probe_wdl(tb, BIT(1), BIT(11), 0, DAMKA_WHITE, &wdl);
    CHECK(status == DAMKA_ERR_INVALID_POSITION, "man on the last row: status %d", status);
    status = damka_probe_wdl(tb, BIT(22), BIT(11), 0, 2, &wdl);
    CHECK(status == DAMKA_ERR_INVALID_ARGUMENT, "side to move 2: status %d", status);
    status = damka_probe_wdl(tb, BIT(22), BIT(11), 0, DAMKA_WHITE, NULL);
    CHECK(status == DAMKA_ERR_INVALID_ARGUMENT, "NULL result: status %d", status);
    status = damka_probe_wdl(NULL, BIT(22), BIT(11), 0, DAMKA_WHITE, &wdl);
    CHECK(status == DAMKA_ERR_INVALID_ARGUMENT, "NULL handle: status %d", status);
    status = damka_probe_wdl_fen(tb, "W:WK1,K2,K3:BK4,K5,K6", &wdl);
    CHECK(status == DAMKA_ERR_TOO_MANY_PIECES, "6 pieces: status %d", status);
}

/* Every placement of a White king and a Black piece, both sides to move:
 * masks and FEN must give the same answers. */
static void test_masks_agree_with_fen(const damka_tablebase *tb) {
    int mismatches = 0, probes = 0;
    for (int a = 1; a <= 32; a++) {
        for (int b = 1; b <= 32; b++) {
            if (a == b) continue;
            for (int black_king = 0; black_king <= 1; black_king++) {
                if (!black_king && b >= 29) continue; /* Black man on its last row */
                for (int side = 0; side <= 1; side++) {
                    char sa[3], sb[3], fen[64];
                    square_name(a, sa);
                    square_name(b, sb);
                    snprintf(fen, sizeof fen, "%c:WK%s:B%s%s", side ? 'B' : 'W', sa, black_king ? "K" : "", sb);
                    damka_value from_fen, from_masks;
                    int s1 = damka_probe_value_fen(tb, fen, &from_fen);
                    int s2 = damka_probe_value(tb, BIT(a), BIT(b), BIT(a) | (black_king ? BIT(b) : 0), side,
                                               &from_masks);
                    probes++;
                    if (s1 != DAMKA_OK || s2 != DAMKA_OK || from_fen.wdl != from_masks.wdl ||
                        from_fen.plies != from_masks.plies) {
                        if (mismatches++ < 5) {
                            fprintf(stderr, "%s: FEN %d (%d in %d), masks %d (%d in %d)\n", fen, s1, from_fen.wdl,
                                    from_fen.plies, s2, from_masks.wdl, from_masks.plies);
                        }
                    }
                }
            }
        }
    }
    CHECK(mismatches == 0, "%d of %d placements disagree", mismatches, probes);
}

/* Conditional probes on a fresh handle: not in cache until an ordinary
 * probe has read the blocks, then the same value; the slice calls. */
static void test_conditional(const char *dir) {
    damka_tablebase *tb = NULL;
    CHECK(damka_open(dir, DAMKA_RUSSIAN, 1 << 20, &tb) == DAMKA_OK, "open");
    /* White king c3 (22), White man a1 (29), Black man h8 (4): quiet. */
    uint32_t white = BIT(22) | BIT(29), black = BIT(4), kings = BIT(22);
    damka_value cached = {99, 99}, value;
    int wdl = 99, status = damka_probe_value_cached(tb, white, black, kings, DAMKA_WHITE, &cached);
    CHECK(status == DAMKA_NOT_IN_CACHE && cached.wdl == 99, "cold value: status %d", status);
    status = damka_probe_wdl_cached(tb, white, black, kings, DAMKA_BLACK, &wdl);
    CHECK(status == DAMKA_NOT_IN_CACHE && wdl == 99, "cold wdl: status %d", status);
    CHECK(strcmp(damka_status_name(DAMKA_NOT_IN_CACHE), "not in cache") == 0, "status name");
    CHECK(damka_probe_value(tb, white, black, kings, DAMKA_WHITE, &value) == DAMKA_OK, "ordinary probe");
    status = damka_probe_value_cached(tb, white, black, kings, DAMKA_WHITE, &cached);
    CHECK(status == DAMKA_OK && cached.wdl == value.wdl && cached.plies == value.plies, "warm value: status %d", status);
    status = damka_probe_wdl_cached(tb, white, black, kings, DAMKA_WHITE, &wdl);
    CHECK(status == DAMKA_OK && wdl == value.wdl, "warm wdl: status %d, %d", status, wdl);

    /* The same position by slice and index. */
    int slice = -1, by_material = -2, in_cache = -1;
    uint64_t index = 0;
    CHECK(damka_slice_index(tb, white, black, kings, &slice, &index) == DAMKA_OK, "slice index");
    CHECK(damka_slice(tb, 1, 1, 1, 0, &by_material) == DAMKA_OK && by_material == slice, "slice %d", by_material);
    CHECK(damka_probe_slice_index(tb, slice, index, 1, &wdl) == DAMKA_OK && wdl == value.wdl, "by index %d", wdl);
    CHECK(damka_probe_slice_index(tb, slice, (uint64_t)1 << 40, 0, &wdl) == DAMKA_ERR_INVALID_ARGUMENT, "index too big");
    CHECK(damka_probe_slice_index(tb, 1000, 0, 0, &wdl) == DAMKA_ERR_INVALID_ARGUMENT, "slice 1000");
    CHECK(damka_slice(tb, 5, 0, 1, 0, &by_material) == DAMKA_ERR_MISSING_TABLE, "no 6-piece slice");
    CHECK(damka_slice_in_cache(tb, slice, &in_cache) == DAMKA_OK && in_cache == 0, "slice not all cached");
    damka_close(tb);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <table dir> <max pieces>\n", argv[0]);
        return 2;
    }
    test_open_errors(argv[1]);
    damka_tablebase *tb = NULL;
    int status = damka_open(argv[1], DAMKA_RUSSIAN, 1 << 20, &tb);
    CHECK(status == DAMKA_OK && tb != NULL, "open: status %d", status);
    if (tb == NULL) {
        printf("%d passed, %d failed\n", passed, failed);
        return 1;
    }
    test_basic(tb, atoi(argv[2]));
    test_errors(tb);
    test_masks_agree_with_fen(tb);
    test_conditional(argv[1]);
    damka_close(tb);
    damka_close(NULL);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
