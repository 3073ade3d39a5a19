/*
 * damka_edaccess.hpp - damka's tables behind the EdAccess interface of
 * Russian draughts programs (SiDra, Skifi and others), header-only, over
 * the C ABI of damka.h. Link with libdamka as for damka.h.
 *
 *   damka::EdAccessTables tables("data/tables", 64 << 20);
 *   EdAccess *ED = &tables;
 *   unsigned pieces = ED->Load((char *)"russian"); // 0: no tables
 *   int result = ED->GetResult(&board, 0);          // White to move
 *
 * Games: "russian", "brazil", "pool", "checkers" (English); the "...losers"
 * games have no damka tables (Load returns 0). The tables of every game are
 * looked for in the one directory given to the constructor (damka names its
 * files by game: russian-KKMvK.wdl, english-KvK.wdl, ...).
 *
 * Boards: 32 squares from b8 to g1 (b8, d8, f8, h8, a7, ..., g1: row by
 * row from the top as White sees the board), White to move, White's men
 * moving up towards b8-h8; each square white (1) or black (2), plus king
 * (8), or empty (4). This is damka's PDN numbering (square i is PDN square
 * i+1) for every game, checkers included: as in damka.h, White moves up.
 * EdBoard2 lists hold the same square numbers, 0 .. 31.
 *
 * Results: win (10000), lose (-10000), draw (0) for White, under the rule
 * set the tables were built with (a win a move limit spoils, and a loss it
 * saves, are draws); not_found (32000) for material with no table, more
 * pieces than the tables hold, a damaged table, no tables loaded, and with
 * the in_mem flag when the answer needs a block not in the cache (nothing
 * is read then). A board with an invalid code, two pieces on a square, or
 * a man on its promotion row gives invalid_board (-32000), which is no
 * result: check for it where boards may be wrong.
 *
 * Tables and indices: GetTable gives damka's slice of that material (its
 * number plus 1; 0: no table); the `rank` form gives the same slice (damka
 * does not split slices by the most advanced man). GetIndex gives the
 * position's index in its slice (damka's own order, docs/FORMAT.md), or
 * ~0 if it has none; GetResult(table, index, flags) answers that position,
 * a capture position through its captures. IsTableInMemory says whether
 * every block of the slice's result table is in the cache.
 *
 * One object may be probed from many threads at once; Load must not run
 * while another thread probes.
 */
#ifndef DAMKA_EDACCESS_HPP
#define DAMKA_EDACCESS_HPP

#include <cstdint>
#include <cstring>
#include <string>

#include "damka.h"

/* The calling convention of the interface's methods (__stdcall on 32-bit
 * Windows, as EdAccess.h declares them). */
#ifndef DAMKA_EDACCESS_CALL
#if defined(_WIN32) && !defined(_WIN64)
#define DAMKA_EDACCESS_CALL __stdcall
#else
#define DAMKA_EDACCESS_CALL
#endif
#endif

/* The interface, unless the engine's own EdAccess.h came first. */
#ifndef ED_ACCESS_H
#define ED_ACCESS_H
struct EdAccess {
    struct EdBoard1 {
        unsigned char board[32]; /* b8, d8, ... g1 */
    };

    struct EdBoard2 {
        unsigned char *wman;
        unsigned wman_cnt;
        unsigned char *wkings;
        unsigned wkings_cnt;
        unsigned char *bman;
        unsigned bman_cnt;
        unsigned char *bkings;
        unsigned bkings_cnt;
    };

    enum { draw = 0, win = 10000, lose = -10000, not_found = 32000 };
    enum { white = 1, black = 2, empty = 4, king = 8 };
    enum { in_mem = 1 };

    virtual unsigned DAMKA_EDACCESS_CALL Load(char *game_type) = 0;
    virtual char *DAMKA_EDACCESS_CALL GetBaseType() = 0;
    virtual int DAMKA_EDACCESS_CALL GetResult(EdBoard1 *board, unsigned flags) = 0;
    virtual int DAMKA_EDACCESS_CALL GetResult(EdBoard2 *board, unsigned flags) = 0;
    virtual unsigned DAMKA_EDACCESS_CALL GetTable(unsigned wm, unsigned wk, unsigned bm, unsigned bk) = 0;
    virtual unsigned DAMKA_EDACCESS_CALL GetTable(unsigned wm, unsigned wk, unsigned bm, unsigned bk,
                                                  unsigned rank) = 0;
    virtual unsigned DAMKA_EDACCESS_CALL IsTableInMemory(unsigned table) = 0;
    virtual unsigned long long DAMKA_EDACCESS_CALL GetIndex(EdBoard1 *board) = 0;
    virtual unsigned long long DAMKA_EDACCESS_CALL GetIndex(EdBoard2 *board) = 0;
    virtual int DAMKA_EDACCESS_CALL GetResult(unsigned table, unsigned long long index, unsigned flags) = 0;
    virtual ~EdAccess() {}
};
#endif

namespace damka {

class EdAccessTables : public EdAccess {
public:
    /* Not a result: the board given was not a position. */
    enum { invalid_board = -32000 };

    EdAccessTables(const char *directory, uint64_t cache_bytes) : dir_(directory), cache_bytes_(cache_bytes) {}
    ~EdAccessTables() { damka_close(tb_); }
    EdAccessTables(const EdAccessTables &) = delete;
    EdAccessTables &operator=(const EdAccessTables &) = delete;

    /* The pieces the tables of `game_type` cover (0: none, or an unknown
     * game; damka_error_message() says why). */
    unsigned DAMKA_EDACCESS_CALL Load(char *game_type) override {
        damka_close(tb_);
        tb_ = nullptr;
        type_.clear();
        int variant = game_variant(game_type);
        int pieces = 0;
        if (variant < 0 || damka_open(dir_.c_str(), variant, cache_bytes_, &tb_) != DAMKA_OK ||
            damka_max_pieces(tb_, &pieces) != DAMKA_OK || pieces == 0) {
            damka_close(tb_);
            tb_ = nullptr;
            return 0;
        }
        type_ = game_type;
        return (unsigned)pieces;
    }

    /* The game loaded ("russian", ...), "" if none. */
    char *DAMKA_EDACCESS_CALL GetBaseType() override { return &type_[0]; }

    int DAMKA_EDACCESS_CALL GetResult(EdBoard1 *board, unsigned flags) override {
        Masks m;
        if (!board || !from_board(*board, m)) return invalid_board;
        return probe(m, flags);
    }

    int DAMKA_EDACCESS_CALL GetResult(EdBoard2 *board, unsigned flags) override {
        Masks m;
        if (!board || !from_lists(*board, m)) return invalid_board;
        return probe(m, flags);
    }

    unsigned DAMKA_EDACCESS_CALL GetTable(unsigned wm, unsigned wk, unsigned bm, unsigned bk) override {
        int slice = 0;
        if (!tb_ || wm > 32 || wk > 32 || bm > 32 || bk > 32) return 0;
        if (damka_slice(tb_, (int)wm, (int)wk, (int)bm, (int)bk, &slice) != DAMKA_OK) return 0;
        return (unsigned)slice + 1;
    }

    unsigned DAMKA_EDACCESS_CALL GetTable(unsigned wm, unsigned wk, unsigned bm, unsigned bk, unsigned) override {
        return GetTable(wm, wk, bm, bk);
    }

    unsigned DAMKA_EDACCESS_CALL IsTableInMemory(unsigned table) override {
        int in_cache = 0;
        if (!tb_ || table == 0 || damka_slice_in_cache(tb_, (int)(table - 1), &in_cache) != DAMKA_OK) return 0;
        return in_cache ? 1 : 0;
    }

    unsigned long long DAMKA_EDACCESS_CALL GetIndex(EdBoard1 *board) override {
        Masks m;
        return board && from_board(*board, m) ? index(m) : ~0ull;
    }

    unsigned long long DAMKA_EDACCESS_CALL GetIndex(EdBoard2 *board) override {
        Masks m;
        return board && from_lists(*board, m) ? index(m) : ~0ull;
    }

    int DAMKA_EDACCESS_CALL GetResult(unsigned table, unsigned long long index, unsigned flags) override {
        int wdl = 0;
        if (!tb_ || table == 0) return not_found;
        int status = damka_probe_slice_index(tb_, (int)(table - 1), index, (flags & in_mem) != 0, &wdl);
        return result(status, wdl);
    }

private:
    struct Masks {
        uint32_t white = 0, black = 0, kings = 0;
    };

    static int game_variant(const char *game) {
        if (!game) return -1;
        if (std::strcmp(game, "russian") == 0) return DAMKA_RUSSIAN;
        if (std::strcmp(game, "brazil") == 0) return DAMKA_BRAZILIAN;
        if (std::strcmp(game, "pool") == 0) return DAMKA_POOL;
        if (std::strcmp(game, "checkers") == 0) return DAMKA_ENGLISH;
        return -1;
    }

    /* Adds a piece on square `sq` (0..31); false if the square is taken. */
    static bool put(Masks &m, unsigned sq, bool is_white, bool is_king) {
        if (sq >= 32) return false;
        uint32_t bit = (uint32_t)1 << sq;
        if ((m.white | m.black) & bit) return false;
        (is_white ? m.white : m.black) |= bit;
        if (is_king) m.kings |= bit;
        return true;
    }

    static bool from_board(const EdBoard1 &b, Masks &m) {
        for (unsigned i = 0; i < 32; i++) {
            switch (b.board[i]) {
                case empty: break;
                case white: put(m, i, true, false); break;
                case black: put(m, i, false, false); break;
                case white | king: put(m, i, true, true); break;
                case black | king: put(m, i, false, true); break;
                default: return false;
            }
        }
        return true;
    }

    static bool put_all(Masks &m, const unsigned char *squares, unsigned count, bool is_white, bool is_king) {
        if (count > 32 || (count > 0 && !squares)) return false;
        for (unsigned i = 0; i < count; i++)
            if (!put(m, squares[i], is_white, is_king)) return false;
        return true;
    }

    static bool from_lists(const EdBoard2 &b, Masks &m) {
        return put_all(m, b.wman, b.wman_cnt, true, false) && put_all(m, b.wkings, b.wkings_cnt, true, true) &&
               put_all(m, b.bman, b.bman_cnt, false, false) && put_all(m, b.bkings, b.bkings_cnt, false, true);
    }

    static int result(int status, int wdl) {
        if (status == DAMKA_ERR_INVALID_POSITION) return invalid_board;
        if (status != DAMKA_OK) return not_found; /* also DAMKA_NOT_IN_CACHE */
        if (wdl == DAMKA_WIN) return win;
        if (wdl == DAMKA_LOSS) return lose;
        return draw; /* draws, and the wins and losses a move limit draws */
    }

    int probe(const Masks &m, unsigned flags) const {
        int wdl = 0;
        if (!tb_) return not_found;
        int status = (flags & in_mem) ? damka_probe_wdl_cached(tb_, m.white, m.black, m.kings, DAMKA_WHITE, &wdl)
                                      : damka_probe_wdl(tb_, m.white, m.black, m.kings, DAMKA_WHITE, &wdl);
        return result(status, wdl);
    }

    unsigned long long index(const Masks &m) const {
        int slice = 0;
        uint64_t at = 0;
        if (!tb_ || damka_slice_index(tb_, m.white, m.black, m.kings, &slice, &at) != DAMKA_OK) return ~0ull;
        return at;
    }

    std::string dir_;
    uint64_t cache_bytes_;
    damka_tablebase *tb_ = nullptr;
    std::string type_;
};

} // namespace damka

#endif /* DAMKA_EDACCESS_HPP */
