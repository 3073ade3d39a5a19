/*
 * damka.h - probe damka's endgame tables for 8x8 draughts from C or C++.
 *
 * Link with the static library (libdamka.a, plus the system libraries
 * that `cargo rustc --release -p damka-probe --crate-type staticlib --
 * --print native-static-libs` lists; on Linux: -lgcc_s -lutil -lrt
 * -lpthread -lm -ldl -lc) or the shared one (libdamka.so). Both are built
 * by `cargo build --release -p damka-probe` into target/release/.
 *
 * Conventions
 *  - Every function but damka_close, damka_error_message and
 *    damka_status_name returns a status: DAMKA_OK (0), a negative
 *    DAMKA_ERR_* code, or (conditional probes only) DAMKA_NOT_IN_CACHE (1). Results go through pointer arguments, which are
 *    written only on success (unless said otherwise).
 *  - After a failure, damka_error_message() describes it (which table is
 *    missing or damaged, which square is wrong, ...).
 *  - No function ever unwinds into C: an internal fault is reported as
 *    DAMKA_ERR_INTERNAL.
 *  - A damka_tablebase may be probed from any number of threads at once.
 *    It must not be closed while another thread is probing it.
 *  - Table files are memory-mapped: do not modify or truncate them in
 *    place while a tablebase is open (replacing them by renaming new files
 *    over them is fine).
 *
 * Values
 *  A value is for the side to move. wdl is one of DAMKA_LOSS .. DAMKA_WIN;
 *  plies is, for a win or a loss, the number of plies (half-moves) to the
 *  next capture or promotion with best play (the winner shortens it, the
 *  loser stretches it); 0 for a draw. The tables answer for fresh
 *  move-limit counters under the rule set they were built with
 *  (damka_rules; "none" means pure values, where only LOSS, DRAW and WIN
 *  occur).
 *
 * Positions
 *  Either a FEN in the variant's notation (PDN: "W:W21,22,K5:B1,2"; the
 *  Russian and Brazilian games also read algebraic squares: "W:WKc3:Bf6"),
 *  or three 32-bit masks and the side to move. In the masks, bit n-1 stands
 *  for PDN square n (1 = b8, 4 = h8, 5 = a7, ..., 29 = a1, 32 = g1: row by
 *  row from the top, left to right, as White sees the board), whatever the
 *  variant's own numbering:
 *    white  squares holding a White piece (man or king)
 *    black  squares holding a Black piece
 *    kings  the squares of white | black that hold a king
 *    side_to_move  DAMKA_WHITE (0) or DAMKA_BLACK (1)
 */
#ifndef DAMKA_H
#define DAMKA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define DAMKA_OK 0
/* A conditional probe (the *_cached functions) that would have had to read a
 * table file: no answer, nothing read, not an error. */
#define DAMKA_NOT_IN_CACHE 1
/* No table for this material in the directory (the message names the file),
   or none of the game at all (the message says so). */
#define DAMKA_ERR_MISSING_TABLE (-1)
/* More pieces than the largest table in the directory. */
#define DAMKA_ERR_TOO_MANY_PIECES (-2)
/* A table file or the directory manifest (damka.toml) failed a check (the
 * message names the file and the block). */
#define DAMKA_ERR_DAMAGED (-3)
/* A table file built for another game than the one opened. */
#define DAMKA_ERR_WRONG_VARIANT (-4)
/* A table file built with another rule set than the others. */
#define DAMKA_ERR_WRONG_RULES (-5)
/* A file or directory that cannot be read. */
#define DAMKA_ERR_IO (-6)
/* The FEN or masks do not describe a legal position. */
#define DAMKA_ERR_INVALID_POSITION (-7)
/* A NULL pointer, a string that is not UTF-8, an unknown variant... */
#define DAMKA_ERR_INVALID_ARGUMENT (-8)
/* An output array or string is too small (the count says how much is needed). */
#define DAMKA_ERR_BUFFER_TOO_SMALL (-9)
/* A fault inside damka (a bug): please report it with the message. */
#define DAMKA_ERR_INTERNAL (-10)

/* Game results for the side to move. */
#define DAMKA_LOSS (-2)
#define DAMKA_BLESSED_LOSS (-1) /* lost, but a move limit saves it */
#define DAMKA_DRAW 0
#define DAMKA_CURSED_WIN 1 /* won, but a move limit draws it */
#define DAMKA_WIN 2

/* Games. */
#define DAMKA_RUSSIAN 0
#define DAMKA_BRAZILIAN 1
#define DAMKA_POOL 2
#define DAMKA_ENGLISH 3
#define DAMKA_ITALIAN 4

/* Sides. */
#define DAMKA_WHITE 0
#define DAMKA_BLACK 1

/* An open directory of tables for one game. */
typedef struct damka_tablebase damka_tablebase;

typedef struct damka_value {
    int wdl;   /* DAMKA_LOSS .. DAMKA_WIN */
    int plies; /* plies to the next capture or promotion; 0 for a draw */
} damka_value;

/* A legal move and its value for the side that makes it. */
typedef struct damka_ranked_move {
    int from;          /* PDN square number 1..32 */
    int to;            /* PDN square number 1..32 */
    uint32_t captured; /* captured pieces, as a mask (bit n-1 = PDN square n) */
    int wdl;           /* value for the mover after the move */
    int plies;         /* distance, counting this move (a capture or promotion: 1) */
    char text[64];     /* the move in the game's notation, NUL-terminated */
} damka_ranked_move;

/*
 * Opens the tables of `variant` (DAMKA_RUSSIAN ...) in directory `dir`
 * (files named like russian-KKMvK.wdl). Only lists the directory; tables
 * are mapped when first probed. `cache_bytes` bounds the memory of
 * decompressed blocks kept for later probes (0: keep none). On success
 * *out is a handle to close with damka_close; on failure *out is NULL.
 */
int damka_open(const char *dir, int variant, uint64_t cache_bytes, damka_tablebase **out);

/* Closes a tablebase and frees its memory. NULL is ignored. */
void damka_close(damka_tablebase *tb);

/* The result (DAMKA_LOSS .. DAMKA_WIN) of a position given as FEN. */
int damka_probe_wdl_fen(const damka_tablebase *tb, const char *fen, int *wdl);

/* The result and distance of a position given as FEN. */
int damka_probe_value_fen(const damka_tablebase *tb, const char *fen, damka_value *value);

/* The result of a position given as masks (see "Positions" above). */
int damka_probe_wdl(const damka_tablebase *tb, uint32_t white, uint32_t black, uint32_t kings,
                    int side_to_move, int *wdl);

/* The result and distance of a position given as masks. */
int damka_probe_value(const damka_tablebase *tb, uint32_t white, uint32_t black, uint32_t kings,
                      int side_to_move, damka_value *value);

/*
 * Conditional probes: damka_probe_wdl and damka_probe_value, answered only
 * if no file needs reading, i.e. every block the answer needs (those of the
 * smaller slices a capture position's captures lead to included) is in the
 * cache already and its table file open. Otherwise they return
 * DAMKA_NOT_IN_CACHE at once and leave the result alone; a search can go on
 * without the answer (an ordinary probe of the position reads the blocks,
 * after which these answer).
 */
int damka_probe_wdl_cached(const damka_tablebase *tb, uint32_t white, uint32_t black, uint32_t kings,
                           int side_to_move, int *wdl);
int damka_probe_value_cached(const damka_tablebase *tb, uint32_t white, uint32_t black, uint32_t kings,
                             int side_to_move, damka_value *value);

/*
 * Slices by number, for interfaces that address a table and an index in it
 * (EdAccess). A slice is the tables of one material seen from the side to
 * move; its number (0 .. slices-1, fewest pieces first) holds for the open
 * handle only. Positions here have White to move (flip a position with
 * Black to move: colours swapped and the board turned).
 */

/* The number of the slice with these pieces for White (to move) and Black;
 * DAMKA_ERR_MISSING_TABLE if the directory holds no table for them. */
int damka_slice(const damka_tablebase *tb, int white_men, int white_kings, int black_men, int black_kings,
                int *slice);

/* The slice number of a position (White to move) and its index in the slice,
 * 0 .. positions-1 (damka's own index: docs/FORMAT.md). */
int damka_slice_index(const damka_tablebase *tb, uint32_t white, uint32_t black, uint32_t kings, int *slice,
                      uint64_t *index);

/* The result (DAMKA_LOSS .. DAMKA_WIN, White to move) of the position at
 * `index` in slice `slice`; a capture position is answered through its
 * captures. With `conditional` non-zero, as damka_probe_wdl_cached. */
int damka_probe_slice_index(const damka_tablebase *tb, int slice, uint64_t index, int conditional, int *wdl);

/* *in_cache = 1 if every block of the slice's result table is in the cache
 * (probes of it read no file), else 0. */
int damka_slice_in_cache(const damka_tablebase *tb, int slice, int *in_cache);

/*
 * Every legal move of the position with its value for the mover, best
 * first: wins by shortest distance, then draws, then losses by longest
 * distance. Writes up to `capacity` moves to `moves` and their number to
 * *count (0 when the side to move cannot move: it has lost). When the
 * array is too small, returns DAMKA_ERR_BUFFER_TOO_SMALL with *count set
 * to the number needed (call again with that many). Endgame positions
 * have far fewer than 128 moves.
 */
int damka_rank_moves_fen(const damka_tablebase *tb, const char *fen, damka_ranked_move *moves,
                         size_t capacity, size_t *count);

/* damka_rank_moves_fen for a position given as masks. */
int damka_rank_moves(const damka_tablebase *tb, uint32_t white, uint32_t black, uint32_t kings,
                     int side_to_move, damka_ranked_move *moves, size_t capacity, size_t *count);

/* The largest number of pieces of any table in the directory. */
int damka_max_pieces(const damka_tablebase *tb, int *pieces);

/*
 * The rule set the tables were built with: its name, NUL-terminated, into
 * `name` (`name_len` bytes; 17 are always enough), and the hash of its
 * definition into *hash (if `hash` is not NULL).
 */
int damka_rules(const damka_tablebase *tb, char *name, size_t name_len, uint64_t *hash);

/*
 * What went wrong in the last failed call on this thread ("" if none). The
 * string stays valid until the next failed call on the same thread.
 */
const char *damka_error_message(void);

/* A short name for a status code ("missing table", ...); never NULL. */
const char *damka_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* DAMKA_H */
