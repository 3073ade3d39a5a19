/*
 * damka_egdb.h - damka's English checkers tables behind the egdb driver
 * interface (the shape of the KingsRow endgame driver): egdb_open returns a
 * handle whose function pointers look positions up.
 *
 * Link with libdamka as for damka.h (the functions live in the same
 * library). docs/ENGINES.md says how each value is chosen.
 *
 * Positions: three 32-bit bitboards, bit n-1 for square n of the standard
 * English numbering (1-4 on Black's back rank, Black's men start on 1-12
 * and move towards 29-32; White's start on 21-32). `king` marks the squares
 * of black | white that hold a king.
 *
 * Values, for the side to move (`color`):
 *   EGDB_WIN, EGDB_LOSS, EGDB_DRAW under the rule set the tables were built
 *   with (English tables are usually built with `none`, pure values; under
 *   `english`, a win the 40-move rule spoils, and a loss it saves, are
 *   EGDB_DRAW);
 *   EGDB_UNKNOWN: more pieces than the tables (or the maxpieces option)
 *   hold, material with no table, invalid bitboards (a square both black
 *   and white, a king bit on an empty square, a man on its own promotion
 *   row), a colour other than EGDB_BLACK or EGDB_WHITE, a damaged table;
 *   EGDB_NOT_IN_CACHE: a conditional lookup (cl != 0) whose answer needs a
 *   block that is not in the cache (or a table file not opened yet); the
 *   lookup then read nothing.
 *
 * Thread safety: lookup may be called from any number of threads on one
 * handle; get_stats, reset_stats, verify and close are for one thread.
 */
#ifndef DAMKA_EGDB_H
#define DAMKA_EGDB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Colours. */
#define EGDB_BLACK 0
#define EGDB_WHITE 1

/* Values returned by handle->lookup(). */
#define EGDB_UNKNOWN 0      /* not in the tables */
#define EGDB_WIN 1
#define EGDB_LOSS 2
#define EGDB_DRAW 3
#define EGDB_DRAW_OR_LOSS 4 /* never returned by damka */
#define EGDB_WIN_OR_DRAW 5  /* never returned by damka */
#define EGDB_NOT_IN_CACHE (-1)      /* conditional lookup, block not in cache */
#define EGDB_SUBDB_UNAVAILABLE (-2) /* never returned by damka */

/* Option strings for egdb_open ("maxpieces=4"). */
#define MAXPIECES_OPTSTR "maxpieces"

/* Lookup counters since the last reset_stats. */
typedef struct {
    unsigned int lru_cache_hits;          /* blocks found in the cache */
    unsigned int lru_cache_loads;         /* blocks read and decompressed */
    unsigned int autoload_hits;           /* always 0: damka has no preloaded tables */
    unsigned int db_requests;             /* lookups */
    unsigned int db_returns;              /* lookups answered win, loss or draw */
    unsigned int db_not_present_requests; /* lookups answered EGDB_UNKNOWN */
    float avg_ht_list_length;             /* always 0 */
} EGDB_STATS;

/* Words verify uses in its messages (NULL: English ones). */
typedef struct {
    char crc_failed[80];
    char ok[80];
    char errors[80];
    char no_errors[80];
} EGDB_VERIFY_MSGS;

typedef struct {
    uint32_t black;
    uint32_t white;
    uint32_t king;
} EGDB_POSITION;

typedef struct egdb_driver {
    /* The value of `position` with `color` to move; cl != 0: conditional. */
    int (*lookup)(struct egdb_driver *handle, EGDB_POSITION *position, int color, int cl);
    void (*reset_stats)(struct egdb_driver *handle);
    /* Valid until the next get_stats or close. */
    EGDB_STATS *(*get_stats)(struct egdb_driver *handle);
    /* Reads every block of every table, checking its checksum; one message
     * per file and a summary through msg_fn. Stops when *abort becomes
     * non-zero. Returns the number of files that failed (0: all good). */
    int (*verify)(struct egdb_driver *handle, void (*msg_fn)(char const *msg), int *abort, EGDB_VERIFY_MSGS *msgs);
    /* Frees the handle; 0 on success. */
    int (*close)(struct egdb_driver *handle);
    /* The most pieces of a table, the most of one side, and 0 for the
     * 8- and 9-piece king limits (no such tables). Returns 0. */
    int (*get_pieces)(struct egdb_driver *handle, int *max_pieces, int *max_pieces_1side, int *max_9pc_kings,
                      int *max_8pc_kings_1side);
    void *internal_data;
} EGDB_DRIVER;

/*
 * Opens the English tables in `directory` (damka's files, english-*.wdl)
 * with a cache of `cache_mb` megabytes of decompressed blocks. `options` is
 * NULL, "" or "maxpieces=N" (positions with more pieces answer
 * EGDB_UNKNOWN). Messages (what was opened, or why not) go to msg_fn if it
 * is not NULL. Returns NULL if the directory holds no English table or
 * cannot be read, or the options are not understood.
 */
EGDB_DRIVER *egdb_open(char const *options, int cache_mb, char const *directory, void (*msg_fn)(char const *msg));

#ifdef __cplusplus
}
#endif

#endif /* DAMKA_EGDB_H */
